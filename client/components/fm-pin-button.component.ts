/**
 * <fm-pin-button>: the user's pin of one fact (the model cannot pin). Shows whether the fact is pinned and toggles it
 * through the fenced fact-pin verb; the toast's Undo sends fact-pin with `undoes`, which puts back exactly the pin the
 * fact had. A pinned fact leads the directory the model reads while it is current. `compact` renders the small
 * library-row form (a pin glyph); otherwise a labelled button for the detail pane. A row that is no longer current
 * can only be unpinned.
 */
import { css, html, LitElement, nothing } from 'lit'
import type { AppState } from '../app-state.ts'
import type { VerbAnswer } from '../api.ts'
import { PIN_ICON } from '../icons.ts'
import { baseStyles } from '../styles.ts'
import { icon } from './icon.ts'
import type { FactView } from '../../src/wire-types.ts'

/** The pin toggle. */
export class FmPinButton extends LitElement {
  static override properties = {
    app: { attribute: false },
    fact: { attribute: false },
    compact: { type: Boolean, reflect: true },
    busy: { state: true },
  }

  static override styles = [
    baseStyles,
    css`
    :host { display: inline-flex; }
    button { display: inline-flex; gap: 4px; align-items: center; }
    button[aria-pressed='true'] { color: var(--dsw-alias-brand-primary); border-color: currentColor; }
    :host([compact]) button { border-color: transparent; padding: 2px 6px; font-size: 13px; line-height: 18px; min-width: 28px; min-height: 28px; justify-content: center; }
    :host([compact]) button[aria-pressed='false'] { color: var(--dsw-alias-label-secondary); }
    :host([compact]) button[aria-pressed='true'] { border-color: currentColor; }
    svg { width: 14px; height: 14px; fill: currentColor; flex: none; }
  `,
  ]

  declare app: AppState | undefined
  declare fact: FactView | undefined
  declare compact: boolean
  declare busy: boolean

  constructor() {
    super()
    this.compact = false
    this.busy = false
  }

  private async toggle(event: Event): Promise<void> {
    event.stopPropagation()
    const { app, fact } = this
    if (app === undefined || fact === undefined || this.busy) return
    const pinning = fact.pinnedAt === null
    this.busy = true
    try {
      const answer = await app.fencedEdit('fact-pin', { id: fact.id, pinned: pinning })
      if (answer === undefined) return
      const what = `${fact.subject} · ${fact.property}`
      app.toast(pinning ? `Pinned ${what}: it leads the memory directory` : `Unpinned ${what}`, {
        action: { label: 'Undo', run: () => this.undo(answer.undo) },
      })
      app.changed()
    } finally {
      this.busy = false
    }
  }

  private async undo(body: VerbAnswer<'fact-pin'>['undo']): Promise<void> {
    const app = this.app
    if (app === undefined) return
    const answer = await app.fencedEdit('fact-pin', { ...body })
    if (answer === undefined) return
    app.toast('Undone')
    app.changed()
  }

  override render(): unknown {
    const fact = this.fact
    if (fact === undefined) return nothing
    const pinned = fact.pinnedAt !== null
    // Only a current value can be pinned; a pin left on a past value can still be taken off.
    if (!pinned && fact.status !== 'active') return nothing
    const label = pinned ? 'Unpin' : 'Pin'
    const title = pinned
      ? fact.status === 'active'
        ? 'Pinned: leads the memory directory. Click to unpin.'
        : 'Pinned, but no longer current: not in the directory. Click to unpin.'
      : 'Pin: keep this fact at the top of the memory directory'
    return html`<button type="button" data-fm="pin" aria-pressed=${String(pinned)} ?disabled=${this.busy} title=${title}
      aria-label=${`${label} ${fact.subject} · ${fact.property}`} @click=${(event: Event) => {
        void this.toggle(event)
      }}>
      ${icon(PIN_ICON)}${this.compact && !pinned ? nothing : html`<span>${pinned ? 'Pinned' : 'Pin'}</span>`}</button>`
  }
}
