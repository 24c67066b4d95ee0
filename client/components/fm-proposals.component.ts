/**
 * <fm-proposals>: the review queue. Each card shows its rows (value editable per row); a row of an aggregated card
 * can be struck out (prune); the card can be applied, rejected or revised. Stale rows are marked; an applied card's
 * toast can undo it through fact-restore.
 */
import { css, html, LitElement, nothing } from 'lit'
import type { AppState } from '../app-state.ts'
import { callVerb } from '../api.ts'
import { EVIDENCE_LABEL, formatAge } from '../format.ts'
import { baseStyles } from '../styles.ts'
import { ReloadOnChange } from './reload-on-change.ts'
import type { ProposalCardWire } from '../../src/wire-types.ts'

const REASON: Readonly<Record<string, string>> = {
  inferred: 'inferred by the model', low_confidence: 'below the confidence floor',
}

/** The proposal queue view. */
export class FmProposals extends LitElement {
  static override properties = { app: { attribute: false }, cards: { state: true }, editing: { state: true } }

  static override styles = [baseStyles, css`
    :host { display: block; overflow: auto; padding: 16px; }
    .card { border: 1px solid var(--dsw-alias-border-l2); border-radius: 12px; padding: 12px; margin-bottom: 12px; background: var(--dsw-alias-bg-layer-1); }
    .card header { display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; }
    .row { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 8px; align-items: center; padding: 6px 0; border-top: 1px solid var(--dsw-alias-border-l1); }
    .row.stale { opacity: 0.6; }
    .actions { display: flex; gap: 8px; margin-top: 8px; }
    input { width: 100%; }
  `]

  declare app: AppState | undefined
  declare cards: readonly ProposalCardWire[] | undefined
  declare editing: string | null

  constructor() {
    super()
    // Loaded on arrival of the page state, and again after every change the page makes to the store.
    new ReloadOnChange(this, () => this.refresh())
    this.cards = undefined
    this.editing = null
  }

  /** Reload the queue. */
  refresh(): void {
    void this.load()
  }

  private async load(): Promise<void> {
    const answer = await callVerb<{ proposals: ProposalCardWire[]; generation: number }>('proposals', { status: 'pending' })
    if (!answer.ok) {
      this.cards = []
      this.app?.toast(`Could not load proposals: ${answer.message}`, { tone: 'error' })
      return
    }
    this.app?.generation.observe(answer.data)
    this.cards = answer.data.proposals
  }

  private async act(card: ProposalCardWire, verb: string, extra: Record<string, unknown> = {}): Promise<void> {
    const app = this.app
    if (app === undefined) return
    const done = await app.fencedEdit<{ editId?: number; generation: number; skippedStale?: number[] }>(verb, { id: card.id, revision: card.revision, ...extra })
    if (done === undefined) return
    const editId = done.editId
    if (verb === 'proposal-apply' && editId !== undefined) {
      const skipped = done.skippedStale?.length ?? 0
      app.toast(`Accepted proposal #${card.id}${skipped > 0 ? ` (${skipped} stale row${skipped === 1 ? '' : 's'} skipped)` : ''}`, {
        action: app.undoAction(editId, 'Undone: the proposal is back in the queue'),
      })
    } else if (verb === 'proposal-reject') app.toast(`Rejected proposal #${card.id}`)
    else app.toast('Saved')
    this.editing = null
    app.changed()
  }

  override render(): unknown {
    if (this.cards === undefined) return html`<div class="skeleton" style="height: 96px"></div>`
    if (this.cards.length === 0) {
      return html`<p class="empty" data-fm="proposals-empty">No proposals are waiting. Values the model inferred, or was less than 60% sure of, would wait here for you.</p>`
    }
    return html`${this.cards.map((card) => html`<article class="card" data-fm="proposal" data-id=${card.id}>
      <header><strong>#${card.id}</strong><span class="muted">${REASON[card.reason] ?? card.reason}</span>
        <span class="caption">${formatAge(card.createdAt)} · revision ${card.revision}</span></header>
      ${card.rows.map((row) => {
        const key = `${card.id}:${row.index}`
        return html`<div class="row ${row.stale ? 'stale' : ''}">
          ${this.editing === key
            ? html`<form @submit=${(event: Event) => { event.preventDefault(); void this.act(card, 'proposal-revise', { row: row.index, value: (event.target as HTMLFormElement).querySelector('input')?.value ?? row.value }) }}>
                <input aria-label="Proposed value" .value=${row.value}><div class="actions"><button class="primary" type="submit">Save revision</button>
                <button type="button" @click=${() => { this.editing = null }}>Cancel</button></div></form>`
            : html`<span>${row.subject} · ${row.property}: <strong>${row.value}</strong>
                <span class="caption"> · ${EVIDENCE_LABEL[row.evidence] ?? row.evidence} · confidence ${row.confidence}${row.stale ? ' · stale: the fact changed since' : ''}</span></span>`}
          <span>
            ${this.editing === key ? nothing : html`<button class="quiet" @click=${() => { this.editing = key }}>Edit</button>`}
            ${card.rows.length > 1 ? html`<button class="quiet" aria-label="Strike this row" @click=${() => { void this.act(card, 'proposal-prune', { row: row.index }) }}>Strike</button>` : nothing}
          </span></div>`
      })}
      <div class="actions"><button class="primary" @click=${() => { void this.act(card, 'proposal-apply') }}>Accept</button>
        <button @click=${() => { void this.act(card, 'proposal-reject') }}>Reject</button></div>
    </article>`)}`
  }
}
