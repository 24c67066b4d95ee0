/**
 * <fm-proposals>: the review queue. It opens with a digest of what arrived since the user last looked ("2 new since
 * Tuesday"), and cards queued since then are marked new. A card of a value to write shows its rows (value editable
 * per row); a card that changes stored facts (merge, retire, fold, alias) says in plain words what accepting it will
 * do ("keep #12, retire #31, move 2 sources"; a fold lists the runs it folds) and which batch of a longer list it is ("batch 2/3"). A row of an
 * aggregated card can be struck out (prune); the card can be applied or rejected. Stale rows are marked; an applied
 * card's toast can undo it through fact-restore.
 *
 * Looking is what marks the queue as seen (review-seen, which moves no generation): the tab has shown the digest and
 * the cards for LOOK_MS without a break, with the browser tab visible. Opening the tab and leaving at once, a page
 * left open on another tab, and a hidden browser tab mark nothing. The digest is read once per visit, so reloads
 * while the tab is shown (auto refresh, an edit) keep it as it opened, and the next visit counts from this look.
 */
import { css, html, LitElement, nothing } from 'lit'
import type { AppState } from '../app-state.ts'
import { callVerb, type VerbAnswer } from '../api.ts'
import { EVIDENCE_LABEL, formatAge, formatSince, slotWords } from '../format.ts'
import {
  aboutSubject,
  acceptWouldChange,
  batchWords,
  cardWords,
  foldRunLines,
  proposedFrom,
  REASON_LABEL,
  rowWords,
  WAITING_BECAUSE,
} from '../proposal-words.ts'
import { baseStyles } from '../styles.ts'
import { LookController } from './look-controller.ts'
import { ReloadOnChange } from './reload-on-change.ts'
import type { FactView, FoldRowWire, ProposalCardWire } from '../../src/wire-types.ts'

/** How long the queue must be in view before it counts as looked at. */
const LOOK_MS = 2000
/** Cards read at a time; Load more reads the next ones. */
const PAGE = 50

/** One page of the queue as the proposals verb answers it. */
type CardPage = VerbAnswer<'proposals'>

/** The verbs a card's buttons call. */
type CardVerb = 'proposal-apply' | 'proposal-reject' | 'proposal-revise' | 'proposal-prune'

/** What arrived since the last look, read once per visit. */
interface Digest {
  /** The last look (ISO), or null when the queue was never marked as seen. */
  readonly since: string | null
  readonly facts: number
  readonly conflicts: number
  /** The store's display zone. */
  readonly timeZone: string
}

/** The proposal queue view. */
export class FmProposals extends LitElement {
  static override properties = {
    app: { attribute: false },
    cards: { state: true },
    editing: { state: true },
    digest: { state: true },
    current: { state: true },
    cursor: { state: true },
    total: { state: true },
    newSince: { state: true },
    loading: { state: true },
  }

  static override styles = [
    baseStyles,
    css`
    :host { display: block; overflow: auto; padding: 16px; }
    .card { border: 1px solid var(--dsw-alias-border-l2); border-radius: 12px; padding: 12px; margin-bottom: 12px; background: var(--dsw-alias-bg-layer-1); }
    .card header { display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; }
    .row { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 8px; align-items: center; padding: 6px 0; border-top: 1px solid var(--dsw-alias-border-l1); }
    .row.stale { opacity: 0.6; }
    .words { margin: 8px 0 4px; }
    .line { display: block; margin-top: 2px; word-break: break-word; }
    .quote { font-style: italic; color: var(--dsw-alias-label-secondary); }
    .digest { margin: 0 0 12px; display: flex; gap: 4px 12px; flex-wrap: wrap; align-items: baseline; }
    .pill.new { color: var(--dsw-alias-brand-primary, var(--dsw-alias-label-primary)); border-color: currentColor; }
    .actions { display: flex; gap: 8px; margin-top: 8px; }
    .more { display: flex; gap: 12px; align-items: center; justify-content: center; padding: 4px 0 12px; }
    input { width: 100%; }
    ul.runs { margin: 4px 0 0; padding-left: 18px; font-size: 12px; line-height: 18px; word-break: break-word; }
  `,
  ]

  declare app: AppState | undefined
  declare cards: readonly ProposalCardWire[] | undefined
  declare editing: string | null
  declare digest: Digest | null | undefined
  /** Each proposed subject's current facts, so a row can say what accepting it would change. */
  declare current: ReadonlyMap<string, readonly FactView[]>
  /** Where the next page starts, or null when every pending card is shown. */
  declare cursor: string | null
  /** Pending cards on every page, as the header badge counts them. */
  declare total: number
  /** Pending cards queued since the digest's last look, on every page. */
  declare newSince: number | null
  declare loading: boolean
  private digestRead: Promise<Digest | null> | undefined
  private readonly look = new LookController(this, LOOK_MS, () => {
    void this.markSeen()
  })

  constructor() {
    super()
    // Loaded on arrival of the page state, and again after every change the page makes to the store.
    new ReloadOnChange(this, () => this.refresh())
    this.cards = undefined
    this.editing = null
    this.digest = undefined
    this.current = new Map()
    this.cursor = null
    this.total = 0
    this.newSince = null
    this.loading = false
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback()
    this.digestRead = undefined
  }

  /** Reload the queue. */
  refresh(): void {
    void this.load()
  }

  /**
   * Read the queue: a reload reads again as many cards as were shown (at least one page), `more` the next page.
   * @param more - append the next page instead of reloading.
   */
  private async load(more = false): Promise<void> {
    this.digestRead ??= this.readDigest()
    const digest = await this.digestRead
    const since = digest?.since ?? undefined
    const want = more ? PAGE : Math.max(PAGE, this.cards?.length ?? 0)
    let cursor = more ? this.cursor : null
    const read: ProposalCardWire[] = []
    let last: CardPage | undefined
    this.loading = true
    try {
      do {
        const answer = await callVerb('proposals', {
          status: 'pending',
          limit: Math.min(100, want - read.length),
          ...(cursor === null ? {} : { cursor }),
          ...(since === undefined ? {} : { since }),
        })
        if (!answer.ok) {
          if (!more) this.cards = []
          this.app?.toast(`Could not load proposals: ${answer.message}`, { tone: 'error' })
          return
        }
        last = answer.data
        read.push(...answer.data.proposals)
        cursor = answer.data.nextCursor
      } while (cursor !== null && read.length < want)
    } finally {
      this.loading = false
    }
    if (last === undefined) return
    this.app?.generation.observe(last)
    this.digest = digest
    this.cards = more ? [...(this.cards ?? []), ...read] : read
    this.cursor = cursor
    this.total = last.total
    this.newSince = last.newSince
    void this.readCurrent(this.cards)
    await this.updateComplete
    if (this.isConnected) this.look.arm()
  }

  /** The digest as of this visit's start; null when the activity route did not answer (the queue shows without it). */
  private async readDigest(): Promise<Digest | null> {
    const [activity, timeZone] = await Promise.all([callVerb('activity', {}), this.app?.displayZone() ?? ''])
    if (!activity.ok) return null
    return { since: activity.data.since, facts: activity.data.facts, conflicts: activity.data.conflicts, timeZone }
  }

  /** The current facts of every subject the cards propose for (an unknown subject has none). */
  private async readCurrent(cards: readonly ProposalCardWire[]): Promise<void> {
    const subjects = [
      ...new Set(cards.flatMap((card) => (card.kind === 'add_fact' ? card.rows.map((row) => row.subject) : []))),
    ]
    // The facts verb answers an unknown subject with no facts (the entity verb would answer not_found).
    const answers = await Promise.all(
      subjects.map((subject) => callVerb('facts', { subject, status: 'current', limit: 100 })),
    )
    this.current = new Map(
      subjects.map((subject, i) => {
        const answer = answers[i]
        return [subject, answer?.ok === true ? answer.data.facts.filter((fact) => aboutSubject(fact, subject)) : []]
      }),
    )
  }

  private async markSeen(): Promise<void> {
    // Bookkeeping: a failure only means the next visit counts from the earlier look.
    await callVerb('review-seen', {})
  }

  private isNew(card: ProposalCardWire): boolean {
    const since = this.digest?.since
    return since === null || (since !== undefined && card.createdAt > since)
  }

  private async act(
    card: ProposalCardWire,
    verb: CardVerb,
    extra: { readonly row?: number; readonly value?: string } = {},
  ): Promise<void> {
    const app = this.app
    if (app === undefined) return
    const done = await app.fencedEdit(verb, { id: card.id, revision: card.revision, ...extra })
    if (done === undefined) return
    if ('skippedStale' in done) {
      const { editId } = done
      const skipped = done.skippedStale.length
      const words = cardWords(card)
      app.toast(
        `Accepted proposal #${card.id}${words === null ? '' : `: ${words}`}${skipped > 0 ? ` (${skipped} stale row${skipped === 1 ? '' : 's'} skipped)` : ''}`,
        {
          action: app.undoAction(editId, 'Undone: the proposal is back in the queue'),
        },
      )
    } else if (verb === 'proposal-reject') app.toast(`Rejected proposal #${card.id}`)
    else app.toast('Saved')
    this.editing = null
    app.changed()
  }

  override render(): unknown {
    const cards = this.cards
    if (cards === undefined) return html`<div class="skeleton" style="height: 96px"></div>`
    const digest = this.renderDigest(cards)
    if (cards.length === 0) {
      return html`${digest}<p class="empty" data-fm="proposals-empty">No proposals are waiting. Values the model inferred, or was less than 60% sure of, would wait here for you.</p>`
    }
    return html`${digest}${cards.map(
      (card) => html`<article class="card" data-fm="proposal" data-id=${card.id} data-kind=${card.kind}>
      <header><strong>#${card.id}</strong>${this.isNew(card) ? html`<span class="pill new" data-fm="new">new</span>` : nothing}<span class="muted" data-fm="waiting-because">${WAITING_BECAUSE[card.reason] ?? REASON_LABEL[card.reason] ?? card.reason}</span>
        ${batchWords(card) === null ? nothing : html`<span class="pill" data-fm="batch">${batchWords(card)}</span>`}
        <span class="caption">${formatAge(card.createdAt)} · revision ${card.revision}</span></header>
      ${card.kind === 'add_fact' ? this.renderValueRows(card) : this.renderReviewRows(card)}
      <div class="actions"><button class="primary" @click=${() => {
        void this.act(card, 'proposal-apply')
      }}>Accept</button>
        <button @click=${() => {
          void this.act(card, 'proposal-reject')
        }}>Reject</button></div>
    </article>`,
    )}
    ${
      this.cursor === null
        ? nothing
        : html`<div class="more"><span class="caption">${cards.length} of ${this.total} shown</span>
      <button data-fm="proposals-more" ?disabled=${this.loading} @click=${() => {
        void this.load(true)
      }}>Load more</button></div>`
    }`
  }

  /** The rows of a card of values to write: each value, editable. */
  private renderValueRows(card: Extract<ProposalCardWire, { kind: 'add_fact' }>): unknown {
    return card.rows.map((row) => {
      const key = `${card.id}:${row.index}`
      return html`<div class="row ${row.stale ? 'stale' : ''}">
        ${
          this.editing === key
            ? html`<form @submit=${(event: Event) => {
                event.preventDefault()
                void this.act(card, 'proposal-revise', {
                  row: row.index,
                  value: (event.target as HTMLFormElement).querySelector('input')?.value ?? row.value,
                })
              }}>
              <input aria-label="Proposed value" .value=${row.value}><div class="actions"><button class="primary" type="submit">Save revision</button>
              <button type="button" @click=${() => {
                this.editing = null
              }}>Cancel</button></div></form>`
            : html`<span>${slotWords(row)}: <strong>${row.value}</strong>
              <span class="caption"> · ${EVIDENCE_LABEL[row.evidence] ?? row.evidence} · confidence ${row.confidence}${row.stale ? ' · stale: the fact changed since' : ''}</span>
              ${row.quote === null || row.quote === '' ? nothing : html`<span class="line quote" data-fm="row-quote">“${row.quote}”</span>`}
              <span class="line caption" data-fm="row-source">${proposedFrom(card, this.digest?.timeZone ?? '')}</span>
              <span class="line caption" data-fm="row-effect">${acceptWouldChange(row, this.current.get(row.subject) ?? [])}</span></span>`
        }
        <span>
          ${
            this.editing === key
              ? nothing
              : html`<button class="quiet" @click=${() => {
                  this.editing = key
                }}>Edit</button>`
          }
          ${this.strike(card, row.index)}
        </span></div>`
    })
  }

  /** The rows of a card that changes stored facts: what accepting it does, then each row with the facts it names. */
  private renderReviewRows(card: Exclude<ProposalCardWire, { kind: 'add_fact' }>): unknown {
    // A row repeats what it does only where the card's line sums up several rows; a retire row is the fact itself.
    const each = card.rows.length > 1 && card.kind !== 'retire'
    return html`<p class="words" data-fm="card-words"><strong>${cardWords(card)}</strong></p>
      ${card.rows.map((row) => {
        const words = rowWords(card, row.index)
        return html`<div class="row ${row.stale ? 'stale' : ''}" data-fm="proposal-row">
          <span>${each && words !== undefined ? html`<span data-fm="row-does">${words.does}</span> · ` : nothing}<span class="caption">${words?.facts ?? ''}${row.stale ? ' · stale: the fact changed since, this row will be skipped' : ''}</span>
            ${card.kind === 'fold' && card.rows[row.index] !== undefined ? this.renderRuns(card.rows[row.index] as FoldRowWire) : nothing}</span>
          <span>${this.strike(card, row.index)}</span></div>`
      })}`
  }

  /** The runs a fold row folds into its survivor, one per line, oldest first as the card holds them. */
  private renderRuns(row: FoldRowWire): unknown {
    const { lines, more } = foldRunLines(row)
    return html`<span class="line caption">folds:</span><ul class="runs" data-fm="fold-runs" aria-label="Runs folded">
      ${lines.map((line) => html`<li data-fm="fold-run">${line}</li>`)}${more === 0 ? nothing : html`<li class="caption">and ${more} more</li>`}</ul>`
  }

  /** The Strike button of one row of an aggregated card (a card of one row is rejected instead). */
  private strike(card: ProposalCardWire, index: number): unknown {
    return card.rows.length > 1
      ? html`<button class="quiet" aria-label="Strike this row" @click=${() => {
          void this.act(card, 'proposal-prune', { row: index })
        }}>Strike</button>`
      : nothing
  }

  /** "2 new since Tuesday · 3 waiting", and what else arrived since then. */
  private renderDigest(cards: readonly ProposalCardWire[]): unknown {
    const digest = this.digest
    if (digest === null || digest === undefined) return nothing
    // Counted on every page, not only those shown.
    const total = Math.max(this.total, cards.length)
    const waiting = total === 0 ? '' : ` · ${total} waiting`
    if (digest.since === null) {
      return html`<p class="digest" data-fm="digest"><strong>${total === 0 ? 'Nothing is waiting' : `All ${total} waiting are new`}</strong>
        <span class="caption">the queue has not been looked at before</span></p>`
    }
    const fresh = this.newSince ?? cards.filter((card) => this.isNew(card)).length
    const also = [
      digest.facts > 0 ? `${digest.facts} fact${digest.facts === 1 ? '' : 's'} recorded` : '',
      digest.conflicts > 0 ? `${digest.conflicts} conflict${digest.conflicts === 1 ? '' : 's'} opened` : '',
    ].filter((part) => part !== '')
    return html`<p class="digest" data-fm="digest"><strong>${fresh === 0 ? 'Nothing' : fresh} new since ${formatSince(digest.since, digest.timeZone)}${waiting}</strong>
      ${also.length === 0 ? nothing : html`<span class="caption">Since then: ${also.join(' · ')}</span>`}</p>`
  }
}
