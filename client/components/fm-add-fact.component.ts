/**
 * <fm-add-fact>: the library's "Add fact" button and the form it opens — subject, property, value, "keeps several
 * values" (multi) and a scope (global, a project or label the store holds, or a new label typed here). It sends
 * fact-add behind the fence; a refusal (a credential, a forgotten claim, bad input) is shown in the form in the write
 * path's own words and nothing is stored; a success closes the form with a toast saying what the write path did and
 * an Undo. Esc closes the form, not the page around it. Emits `fm-added` (bubbling, composed) with the written
 * fact's id.
 */
import { css, html, LitElement, nothing } from 'lit'
import type { AppState } from '../app-state.ts'
import { callVerb } from '../api.ts'
import { addedWords, addScopes } from '../add-words.ts'
import { chosenScope, NEW_LABEL } from '../scope-words.ts'
import { baseStyles } from '../styles.ts'
import type { ScopeWire } from '../../src/wire-types.ts'
import { EscapeCloses } from './escape-closes.ts'

/** The Add fact button and its form. */
export class FmAddFact extends LitElement {
  static override properties = {
    app: { attribute: false },
    scopes: { attribute: false },
    opened: { state: true },
    busy: { state: true },
    error: { state: true },
    newLabel: { state: true },
  }

  static override styles = [
    baseStyles,
    css`
    :host { display: inline-block; }
    dialog { width: min(460px, 92vw); border: 1px solid var(--dsw-alias-border-l2); border-radius: 12px; padding: 16px;
      background: var(--dsw-alias-bg-base); color: var(--dsw-alias-label-primary); box-shadow: var(--dsw-shadow-lv3, none); }
    dialog::backdrop { background: var(--dsw-alias-bg-mask-1, rgba(0, 0, 0, 0.35)); }
    h2 { margin: 0 0 4px; font-size: 15px; line-height: 22px; }
    form { display: grid; gap: 10px; }
    label.field { display: grid; gap: 4px; }
    label.check { display: flex; gap: 8px; align-items: baseline; }
    input[type=text], textarea, select { width: 100%; box-sizing: border-box; }
    textarea { resize: vertical; min-height: 56px; font: inherit; }
    .error { margin: 0; padding: 8px 10px; border-radius: 8px; color: var(--fm-error-text);
      background: var(--dsw-alias-state-error-tertiary, transparent); border: 1px solid var(--dsw-alias-state-error-primary, #c62828); }
    .actions { display: flex; gap: 8px; justify-content: flex-end; }
  `,
  ]

  declare app: AppState | undefined
  declare scopes: readonly ScopeWire[]
  /** Whether the form is drawn: only while open. */
  declare opened: boolean
  declare busy: boolean
  /** Why the last send was refused, in the write path's words. */
  declare error: string | null
  /** Whether "New label…" is chosen, so the label's name is asked for. */
  declare newLabel: boolean

  constructor() {
    super()
    this.scopes = []
    this.opened = false
    this.busy = false
    this.error = null
    this.newLabel = false
  }

  /** Esc closes the open dialog before the host's panel hears it and closes the whole page. */
  private readonly escape = new EscapeCloses(this, () => {
    this.close()
  })

  /** Open the form. */
  async show(): Promise<void> {
    this.error = null
    this.newLabel = false
    this.opened = true
    this.escape.listen()
    await this.updateComplete
    this.renderRoot.querySelector('dialog')?.showModal()
    this.renderRoot.querySelector<HTMLInputElement>('input[name=subject]')?.focus()
  }

  private close(): void {
    this.renderRoot.querySelector('dialog')?.close()
    this.opened = false
    this.escape.stop()
  }

  private async submit(event: Event): Promise<void> {
    event.preventDefault()
    const app = this.app
    const form = event.target as HTMLFormElement
    if (app === undefined) return
    const data = new FormData(form)
    const body = {
      subject: String(data.get('subject') ?? '').trim(),
      property: String(data.get('property') ?? '').trim(),
      value: String(data.get('value') ?? '').trim(),
      multi: data.get('multi') === 'on',
    }
    const missing = (['subject', 'property', 'value'] as const).filter((key) => body[key] === '')
    if (missing.length > 0) {
      this.error = `Fill in the ${missing.join(', ')}.`
      return
    }
    const scope = chosenScope(String(data.get('scope') ?? 'global'), data.get('new-label')?.toString())
    if ('missing' in scope) {
      this.error = scope.missing
      return
    }
    this.busy = true
    try {
      const answer = await callVerb('fact-add', { ...body, scope: scope.scope, ...app.generation.fence() })
      if (!answer.ok) {
        if (answer.details['stale'] === true) {
          app.generation.observe(answer.details)
          app.changed()
          this.error = 'The store changed since this page read it; it has been reloaded. Press Add again.'
        } else {
          this.error = answer.message
          // A refused credential does not stay on screen in the form either.
          const value = form.querySelector<HTMLTextAreaElement>('textarea[name=value]')
          if (answer.code === 'credential_refused' && value !== null) value.value = ''
        }
        return
      }
      app.generation.observe(answer.data)
      this.close()
      const editId = answer.data.editId
      app.toast(
        addedWords(answer.data),
        editId === null ? {} : { action: app.undoAction(editId, 'Undone: the added fact is gone') },
      )
      if (answer.data.outcome !== 'proposed') {
        this.dispatchEvent(new CustomEvent('fm-added', { detail: answer.data.fact.id, bubbles: true, composed: true }))
      }
      app.changed()
    } finally {
      this.busy = false
    }
  }

  override render(): unknown {
    return html`
      <button class="primary" data-fm="add-fact" @click=${() => {
        void this.show()
      }}>Add fact</button>
      ${this.opened ? this.renderForm() : nothing}`
  }

  private renderForm(): unknown {
    return html`
      <dialog data-fm="add-dialog" aria-label="Add fact" @close=${() => this.close()}>
        <form @submit=${(event: Event) => {
          void this.submit(event)
        }} novalidate>
          <h2>Add a fact</h2>
          <p class="caption" style="margin:0">Stored as your own statement. Credentials are refused; personal data is kept as sensitive.</p>
          <label class="field">Subject <input type="text" name="subject" maxlength="200" placeholder="billing-api" autocomplete="off"></label>
          <label class="field">Property <input type="text" name="property" maxlength="200" placeholder="port" autocomplete="off"></label>
          <label class="field">Value <textarea name="value" maxlength="4000" placeholder="8080"></textarea></label>
          <label class="check"><input type="checkbox" name="multi">Keeps several values (a new one is added beside the others, not instead)</label>
          <label class="field">Scope <select name="scope" aria-label="Scope of the new fact"
            @change=${(event: Event) => {
              this.newLabel = (event.target as HTMLSelectElement).value === NEW_LABEL.value
            }}>
            ${[...addScopes(this.scopes), NEW_LABEL].map(({ value, label }) => html`<option .value=${value}>${label}</option>`)}
          </select></label>
          ${this.newLabel ? html`<label class="field">New label <input type="text" name="new-label" maxlength="200" placeholder="infra" autocomplete="off"></label>` : nothing}
          ${this.error === null ? nothing : html`<p class="error" role="alert" data-fm="add-error">${this.error}</p>`}
          <div class="actions">
            <button type="button" @click=${() => this.close()}>Cancel</button>
            <button type="submit" class="primary" data-fm="add-submit" ?disabled=${this.busy}>Add</button>
          </div>
        </form>
      </dialog>`
  }
}
