/**
 * <fm-forget>: a Forget button for one fact, and the confirmation it opens: choose how far it reaches (this fact, the
 * subject · property, the whole subject), read what goes and that the same claim cannot be written back, then
 * forget behind the fence. The toast offers Undo while shown. Esc closes the confirmation, not the page around it. Emits `fm-forgotten` (bubbling, composed) with the
 * forgotten facts, so the view around it can drop a selection that no longer exists.
 */
import { css, html, LitElement, nothing } from 'lit'
import type { AppState } from '../app-state.ts'
import { callVerb } from '../api.ts'
import { slotWords, STATUS_LABEL } from '../format.ts'
import {
  factsThatGo,
  forgetChoices,
  forgetHeading,
  forgottenToast,
  NO_WAY_BACK,
  type ForgetReach,
} from '../forget-words.ts'
import { baseStyles } from '../styles.ts'
import type { FactView } from '../../src/wire-types.ts'
import { FORGET_ICON } from '../icons.ts'
import { EscapeCloses } from './escape-closes.ts'
import { icon } from './icon.ts'

/** How many of the facts that go the confirmation lists by value. */
const LISTED = 8

/** The Forget button and its confirmation. */
export class FmForget extends LitElement {
  static override properties = {
    app: { attribute: false },
    fact: { attribute: false },
    compact: { type: Boolean },
    reach: { state: true },
    subjectFacts: { state: true },
    busy: { state: true },
    opened: { state: true },
  }

  static override styles = [
    baseStyles,
    css`
    :host { display: inline-block; }
    dialog { max-width: min(520px, 92vw); border: 1px solid var(--dsw-alias-border-l2); border-radius: 12px; padding: 16px;
      background: var(--dsw-alias-bg-base); color: var(--dsw-alias-label-primary); box-shadow: var(--dsw-shadow-lv3, none); }
    dialog::backdrop { background: var(--dsw-alias-bg-mask-1, rgba(0, 0, 0, 0.35)); }
    h2 { margin: 0 0 10px; font-size: 15px; line-height: 22px; word-break: break-word; }
    fieldset { border: 0; margin: 0; padding: 0; display: grid; gap: 6px; }
    label { display: flex; gap: 8px; align-items: baseline; }
    ul { margin: 10px 0; padding-left: 18px; max-height: 180px; overflow: auto; }
    .warn { margin: 10px 0; color: var(--dsw-alias-label-secondary); }
    .actions { display: flex; gap: 8px; justify-content: flex-end; margin-top: 12px; }
    button[data-fm='forget'].quiet { display: inline-flex; align-items: center; justify-content: center; min-width: 28px; min-height: 28px; padding: 2px 6px; }
    svg.icon { width: 14px; height: 14px; flex: none; }
    button.confirm { background: color-mix(in srgb, var(--dsw-alias-state-error-primary, #ec1313) 80%, #000); color: #fff; border-color: transparent; }
  `,
  ]

  declare app: AppState | undefined
  declare fact: FactView | undefined
  /** A small button for a list row. */
  declare compact: boolean
  declare reach: ForgetReach
  declare subjectFacts: readonly FactView[] | undefined
  declare busy: boolean
  /** Whether the confirmation is drawn: only while it is open, so a list of rows holds no hidden dialogs. */
  declare opened: boolean

  constructor() {
    super()
    this.compact = false
    this.reach = 'fact'
    this.subjectFacts = undefined
    this.busy = false
    this.opened = false
  }

  /** Esc closes the open dialog before the host's panel hears it and closes the whole page. */
  private readonly escape = new EscapeCloses(this, () => {
    this.close()
  })

  private get dialog(): HTMLDialogElement | null {
    return this.renderRoot.querySelector('dialog')
  }

  private async open(event: Event): Promise<void> {
    event.stopPropagation()
    const fact = this.fact
    if (fact === undefined) return
    this.reach = 'fact'
    this.subjectFacts = undefined
    this.opened = true
    this.escape.listen()
    await this.updateComplete
    this.dialog?.showModal()
    const answer = await callVerb('entity', { entityKey: fact.entityKey })
    if (answer.ok) this.subjectFacts = answer.data.properties.flatMap((group) => group.facts)
  }

  private close(): void {
    this.dialog?.close()
    this.opened = false
    this.escape.stop()
  }

  private async confirm(): Promise<void> {
    const app = this.app
    const fact = this.fact
    const choice = fact === undefined ? undefined : forgetChoices(fact).find((entry) => entry.reach === this.reach)
    if (app === undefined || choice === undefined) return
    this.busy = true
    try {
      const answer = await app.fencedEdit('fact-forget', { ...choice.body })
      if (answer === undefined) return
      this.close()
      app.toast(forgottenToast(answer.forgotten), {
        action: app.undoAction(answer.editId, 'Taken back: the forgotten facts are back'),
      })
      this.dispatchEvent(new CustomEvent('fm-forgotten', { detail: answer.forgotten, bubbles: true, composed: true }))
      app.changed()
    } finally {
      this.busy = false
    }
  }

  override render(): unknown {
    const fact = this.fact
    if (fact === undefined) return nothing
    return html`
      <button class=${this.compact ? 'quiet danger' : 'danger'} data-fm="forget" aria-label=${`Forget ${fact.subject} · ${fact.property}…`}
        title="Forget…" @click=${(event: Event) => {
          void this.open(event)
        }}>${this.compact ? icon(FORGET_ICON) : 'Forget…'}</button>
      ${this.opened ? this.renderDialog(fact) : nothing}`
  }

  private renderDialog(fact: FactView): unknown {
    const going = factsThatGo(this.reach, fact, this.subjectFacts)
    const counting = this.reach !== 'fact' && this.subjectFacts === undefined
    return html`
      <dialog data-fm="forget-dialog" aria-label="Forget" @close=${() => this.close()}
        @click=${(event: Event) => event.stopPropagation()}>
        <h2 data-fm="forget-heading">${forgetHeading(this.reach, fact, going.length)}</h2>
        <fieldset>
          <legend class="caption">How far</legend>
          ${forgetChoices(fact).map(
            (
              choice,
            ) => html`<label><input type="radio" name="reach" .value=${choice.reach} ?checked=${this.reach === choice.reach}
            @change=${() => {
              this.reach = choice.reach
            }}>${choice.label}</label>`,
          )}
        </fieldset>
        ${
          counting
            ? html`<p class="caption">Counting what goes…</p>`
            : html`<ul data-fm="forget-list">
          ${going.slice(0, LISTED).map((row) => html`<li>${slotWords(row)} = ${row.value} <span class="caption">(${STATUS_LABEL[row.status] ?? row.status}, #${row.id})</span></li>`)}
          ${going.length > LISTED ? html`<li class="caption">and ${going.length - LISTED} more</li>` : nothing}</ul>`
        }
        <p class="warn" data-fm="forget-warning">${NO_WAY_BACK}</p>
        <div class="actions">
          <button @click=${() => this.close()}>Cancel</button>
          <button class="confirm" data-fm="forget-confirm" ?disabled=${this.busy || counting} @click=${() => {
            void this.confirm()
          }}>
            Forget ${going.length === 1 ? 'it' : `${going.length} facts`}</button>
        </div>
      </dialog>`
  }
}
