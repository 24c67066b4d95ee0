/**
 * <fm-library>: the fact library. Search (focus with "/", clear with Esc, the last five queries remembered), status,
 * evidence and scope filters, 100 rows at a time with Load more (each row naming its scope), and a detail pane with
 * value history, sources, dates and scope where a fact can be edited, expired, moved to another scope or forgotten
 * (from its row too), and a past value put back; facts are put in with <fm-add-fact> and <fm-import-file> and taken out as a download with <fm-export>; each ends in a toast whose Undo goes through fact-restore. Each row
 * and the detail pane carry <fm-pin-button> (pin, unpin). The first paint is a skeleton, an empty store shows one
 * sentence to copy, and below 1180px the detail pane is a bottom sheet. The detail follows one rule: after Add it shows
 * the new fact, after a Forget of its fact the next row (nothing when none is left), and through any other edit the
 * fact it showed.
 *
 * The search filters as the user types (once typing pauses; Enter runs it at once and remembers it), says how many
 * facts match and marks the matched words; a query no fact holds every word of (a question) shows what
 * memory_search finds for it.
 */
import { css, html, LitElement, nothing, type PropertyValues } from 'lit'
import type { AppState } from '../app-state.ts'
import { callVerb, type VerbAnswer } from '../api.ts'
import {
  aliasMatchNote,
  EVIDENCE_LABEL,
  formatInstant,
  listedValue,
  ORIGIN_LABEL,
  qualifierNote,
  seenNote,
  sensitiveMark,
  STATUS_LABEL,
} from '../format.ts'
import { markMatches } from '../highlight.ts'
import { canPutBack, putBack } from '../put-back.ts'
import { chosenScope, moveTargets, NEW_LABEL, scopeFilterOptions, scopeWords } from '../scope-words.ts'
import { baseStyles } from '../styles.ts'
import { ReloadOnChange } from './reload-on-change.ts'
import type { AliasMatchWire, FactView, ScopeWire } from '../../src/wire-types.ts'

/** The sentence an empty store offers to copy. */
export const EMPTY_SENTENCE = 'Remember that our API runs on port 8080.'

const RECENT_KEY = 'fm.recentQueries'
/** How long typing pauses before the filter runs. */
const TYPING_MS = 250
const CURRENT_STATUSES: readonly string[] = ['active', 'scheduled', 'conflict']
const STATUS_FILTERS = [
  ['current', 'Current'],
  ['history', 'History'],
  ['all', 'All'],
] as const

/** The open fact: the fact verb's answer. */
type Detail = Pick<VerbAnswer<'fact'>, 'fact' | 'history' | 'sources'>

/** The library view. */
export class FmLibrary extends LitElement {
  static override properties = {
    app: { attribute: false },
    focusFact: { attribute: false },
    facts: { state: true },
    loading: { state: true },
    cursor: { state: true },
    query: { state: true },
    aliasMatches: { state: true },
    status: { state: true },
    evidence: { state: true },
    scope: { state: true },
    scopes: { state: true },
    detail: { state: true },
    editing: { state: true },
    editingCues: { state: true },
    recent: { state: true },
    timeZone: { state: true },
    narrow: { state: true },
    matched: { state: true },
    moveTarget: { state: true },
  }

  static override styles = [
    baseStyles,
    css`
    :host { display: grid; grid-template-columns: minmax(0, 1fr) minmax(320px, 32%); min-height: 0; }
    :host([narrow]) { grid-template-columns: minmax(0, 1fr); }
    .list { display: flex; flex-direction: column; min-height: 0; border-right: 1px solid var(--dsw-alias-border-l1); }
    .tools { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; padding: 10px 12px; border-bottom: 1px solid var(--dsw-alias-border-l1); }
    /* One row at 1,440 px however many scopes the store holds: the search takes what is left, a select is as wide as
       its chosen option needs up to a cap (its list still shows every name in full), the status chips sit tight. */
    .tools input[type=search] { flex: 1 1 130px; min-width: 110px; }
    .tools select { max-width: 130px; text-overflow: ellipsis; }
    .tools select[aria-label='Evidence'] { max-width: 150px; }
    .chips { display: flex; gap: 4px; }
    .chips button { padding: 4px 7px; }
    .cues { display: flex; flex-wrap: wrap; gap: 4px; }
    .cue { border: 1px solid var(--dsw-alias-border-primary, #8884); border-radius: 10px; padding: 0 8px; font-size: 12px; line-height: 20px; }
    .chips button[aria-pressed='true'] { background: var(--dsw-alias-interactive-bg-active); font-weight: 600; }
    .recent { display: flex; gap: 4px; flex-wrap: wrap; padding: 0 12px 8px; }
    .recent button { font-size: 12px; line-height: 16px; padding: 2px 10px; border-radius: 999px; background: var(--dsw-alias-bg-layer-2, transparent); }
    ul { list-style: none; margin: 0; padding: 0; overflow: auto; flex: 1; }
    li.fact { display: grid; grid-template-columns: minmax(0, 1fr) auto; align-items: center; border-bottom: 1px solid var(--dsw-alias-border-l1); }
    li.fact fm-forget { padding-right: 8px; }
    li button.row { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 2px 12px; width: 100%; text-align: left;
      border: 0; border-radius: 0; padding: 8px 12px; }
    li button.row > .pill, li button.row > .id { justify-self: end; }
    li.fact.selected { background: var(--dsw-alias-interactive-bg-active); }
    li.fact.selected > button.row:hover { background: transparent; }
    li.fact { display: flex; }
    li.fact > button.row { flex: 1; min-width: 0; }
    li.fact > fm-pin-button { flex: none; width: 84px; align-items: center; justify-content: center; border-bottom: 1px solid var(--dsw-alias-border-l1); }
    .what { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .value { font-weight: 600; }
    .more { padding: 12px; text-align: center; }
    .pane { overflow: auto; padding: 16px; min-height: 0; }
    .pane h2 { margin: 0 0 4px; font-size: 15px; line-height: 22px; }
    .pane h3 { margin: 16px 0 6px; font-size: 13px; line-height: 18px; color: var(--dsw-alias-label-secondary); }
    .big { font-size: 18px; line-height: 26px; font-weight: 600; word-break: break-word; }
    dl { display: grid; grid-template-columns: auto 1fr; gap: 4px 12px; margin: 8px 0; }
    dt { color: var(--dsw-alias-label-secondary); }
    dd { margin: 0; }
    .actions { display: flex; gap: 8px; margin: 12px 0; flex-wrap: wrap; }
    .history li, .sources li { padding: 6px 0; border-bottom: 1px solid var(--dsw-alias-border-l1); }
    .sheet-backdrop { position: fixed; inset: 0; background: var(--dsw-alias-bg-mask-1, rgba(0, 0, 0, 0.3)); z-index: 1; }
    .sheet { position: fixed; left: 0; right: 0; bottom: 0; max-height: 70%; z-index: 2; background: var(--dsw-alias-bg-base);
      border-top: 1px solid var(--dsw-alias-border-l2); border-radius: 12px 12px 0 0; box-shadow: var(--dsw-shadow-lv3, none); }
    .sheet { display: grid; grid-template-rows: auto minmax(0, 1fr); }
    .sheet-close { justify-self: end; margin: 6px 8px 0 0; }
    .copy { display: inline-flex; gap: 8px; align-items: center; margin-top: 8px; padding: 6px 10px; border-radius: 8px;
      background: var(--dsw-alias-bg-layer-2); font-family: var(--dsw-font-family-mono, monospace); }
    .skeleton-row { height: 44px; margin: 8px 12px; }
    .match-count { margin: 0; padding: 0 12px 8px; }
    .put-in { display: inline-flex; gap: 6px; margin-left: auto; }
    mark { background: var(--dsw-alias-state-warn-tertiary, var(--dsw-alias-bg-layer-3)); color: inherit; border-radius: 2px; }
  `,
  ]

  declare app: AppState | undefined
  declare focusFact: number | null
  declare facts: readonly FactView[] | undefined
  declare loading: boolean
  declare cursor: string | null
  declare query: string
  declare status: 'current' | 'history' | 'all'
  declare evidence: string
  /** The scope filter: a stored scope text, or '' for every scope. */
  declare scope: string
  /** Every scope the store holds, as the facts route last listed them. */
  declare scopes: readonly ScopeWire[]
  declare detail: Detail | undefined
  /** The Move control's choice for the fact in the detail: a stored scope text, {@link NEW_LABEL}'s value, or ''. */
  declare moveTarget: string
  declare editing: boolean
  /** The detail's cues are open for editing. */
  declare editingCues: boolean
  declare recent: readonly string[]
  /** The store's display zone, read with the facts. */
  declare timeZone: string
  declare narrow: boolean
  /** How many facts the text filter matches on every page, or null without one. */
  declare matched: number | null
  /** The subjects the text filter named by an old name, for their rows to say so. */
  declare aliasMatches: readonly AliasMatchWire[]
  private typing: ReturnType<typeof setTimeout> | undefined
  /**
   * The fact the detail shows, or is on its way to show: set when a fact is asked for, so a reload that starts before
   * the answer reads the fact the user chose, not the one still drawn. Null when the pane is empty.
   */
  private selectedId: number | null = null
  /** Counts detail reads; only the latest one's answer is drawn. */
  private detailRead = 0
  private abort: AbortController | undefined
  private resizeObserver: ResizeObserver | undefined

  constructor() {
    super()
    // Loaded on arrival of the page state, and again after every change the page makes to the store.
    new ReloadOnChange(this, () => this.refresh())
    this.focusFact = null
    this.facts = undefined
    this.loading = false
    this.cursor = null
    this.query = ''
    this.status = 'current'
    this.evidence = ''
    this.scope = ''
    this.scopes = []
    this.detail = undefined
    this.editing = false
    this.editingCues = false
    this.recent = readRecent()
    this.timeZone = ''
    this.narrow = false
    this.matched = null
    this.aliasMatches = []
    this.moveTarget = ''
  }

  override connectedCallback(): void {
    super.connectedCallback()
    document.addEventListener('keydown', this.onKey)
    // Capture on window: Esc closes the sheet before the host's panel hears it and closes the whole page.
    window.addEventListener('keydown', this.onEscape, { capture: true })
    this.resizeObserver = new ResizeObserver(() => {
      this.narrow = this.getBoundingClientRect().width < 1180
      this.toggleAttribute('narrow', this.narrow)
    })
    this.resizeObserver.observe(this)
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback()
    document.removeEventListener('keydown', this.onKey)
    window.removeEventListener('keydown', this.onEscape, { capture: true })
    this.resizeObserver?.disconnect()
    this.abort?.abort()
    clearTimeout(this.typing)
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('focusFact') && this.focusFact !== null) void this.openDetail(this.focusFact)
  }

  /** Reload the list (and the open detail) from the first page. */
  refresh(): void {
    void this.load(false)
    if (this.selectedId !== null) void this.openDetail(this.selectedId)
  }

  /**
   * Esc closes the innermost thing first: the selected fact (the bottom sheet below 1180px, the detail pane above),
   * before the page hears it; in the search box Esc clears the search instead.
   */
  private readonly onEscape = (event: KeyboardEvent): void => {
    if (event.key !== 'Escape' || this.detail === undefined || !this.isConnected || !this.checkVisibility()) return
    if (!this.narrow && event.composedPath()[0] === this.renderRoot.querySelector('input[type=search]')) return
    // A menu or dialog open over the library (Export, Add fact) is the innermost thing: it closes first.
    if (
      event
        .composedPath()
        .some(
          (node) =>
            node instanceof HTMLElement && (node.getAttribute('role') === 'menu' || node instanceof HTMLDialogElement),
        )
    )
      return
    event.preventDefault()
    event.stopImmediatePropagation()
    this.closeDetail()
  }

  private readonly onKey = (event: KeyboardEvent): void => {
    const target = event.composedPath()[0]
    const typing =
      target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement
    const search = this.renderRoot.querySelector<HTMLInputElement>('input[type=search]')
    if (event.key === '/' && !typing && search !== null) {
      event.preventDefault()
      search.focus()
    } else if (event.key === 'Escape' && target === search && search !== null) {
      clearTimeout(this.typing)
      search.value = ''
      this.query = ''
      void this.load(false)
    }
  }

  private async load(more: boolean): Promise<void> {
    this.abort?.abort()
    const abort = new AbortController()
    this.abort = abort
    this.loading = true
    const body: Record<string, unknown> = { status: this.status }
    if (this.query.trim() !== '') body['text'] = this.query.trim()
    if (this.evidence !== '') body['evidence'] = [this.evidence]
    if (this.scope !== '') body['scope'] = this.scope
    if (more && this.cursor !== null) body['cursor'] = this.cursor
    try {
      const [answer, timeZone] = await Promise.all([
        callVerb('facts', body, abort.signal),
        this.app?.displayZone() ?? '',
      ])
      if (abort.signal.aborted) return
      this.timeZone = timeZone
      if (!answer.ok) {
        this.app?.toast(`Could not load facts: ${answer.message}`, { tone: 'error' })
        this.facts = more ? this.facts : []
        return
      }
      this.app?.generation.observe(answer.data)
      this.facts = more ? [...(this.facts ?? []), ...answer.data.facts] : answer.data.facts
      // A new list (a search, a filter) is read from its first row; a loaded page continues where the reader is.
      if (!more)
        void this.updateComplete.then(() => {
          this.renderRoot.querySelector('ul[data-fm="fact-list"]')?.scrollTo({ top: 0 })
        })
      this.cursor = answer.data.nextCursor
      this.scopes = answer.data.scopes
      this.matched = answer.data.matched
      this.aliasMatches = answer.data.aliasMatches ?? []
    } catch {
      // Aborted by a newer load; that load owns the list now.
    } finally {
      if (this.abort === abort) this.loading = false
    }
  }

  /** Typing filters once it pauses for TYPING_MS. */
  private typed(event: Event): void {
    const value = (event.target as HTMLInputElement).value
    clearTimeout(this.typing)
    this.typing = setTimeout(() => {
      if (value === this.query) return
      this.query = value
      void this.load(false)
    }, TYPING_MS)
  }

  /** Enter filters at once and remembers the query. */
  private search(event: Event): void {
    event.preventDefault()
    clearTimeout(this.typing)
    const value = this.renderRoot.querySelector<HTMLInputElement>('input[type=search]')?.value ?? ''
    this.query = value
    if (value.trim() !== '') {
      this.recent = [value.trim(), ...this.recent.filter((entry) => entry !== value.trim())].slice(0, 5)
      localStorage.setItem(RECENT_KEY, JSON.stringify(this.recent))
    }
    void this.load(false)
  }

  /**
   * Show one fact in the detail. The pane follows one rule: it shows what the user last chose (a row, a fact just
   * added, the row after a forgotten one), and a reload after any other edit reads that same fact again; of reads
   * that overlap, only the latest is drawn.
   */
  private async openDetail(id: number): Promise<void> {
    if (this.detail?.fact.id !== id) this.moveTarget = ''
    this.selectedId = id
    this.detailRead += 1
    const read = this.detailRead
    const [answer, timeZone] = await Promise.all([callVerb('fact', { id }), this.app?.displayZone() ?? ''])
    if (read !== this.detailRead) return
    this.timeZone = timeZone
    if (!answer.ok) {
      // A fact that is gone is not asked for again at the next reload.
      if (answer.code === 'not_found') this.closeDetail()
      this.app?.toast(`Could not open fact #${id}: ${answer.message}`, { tone: 'error' })
      return
    }
    this.app?.generation.observe(answer.data)
    this.detail = answer.data
    this.editing = false
    this.editingCues = false
  }

  private async edit(fact: FactView, value: string): Promise<void> {
    const app = this.app
    if (app === undefined || value.trim() === '' || value === fact.value) {
      this.editing = false
      return
    }
    await this.saveUpdate(
      app,
      fact,
      { value },
      (saved) => `Changed ${fact.subject} · ${fact.property} to ${saved.value}`,
    )
  }

  /** Save the detail's cues (one per line, blank lines dropped); an unchanged list just closes the editor. */
  private async editCues(fact: FactView, text: string): Promise<void> {
    const app = this.app
    const cues = text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '')
    if (app === undefined || JSON.stringify(cues) === JSON.stringify(fact.cues)) {
      this.editingCues = false
      return
    }
    await this.saveUpdate(app, fact, { cues }, () => `Changed the cues of ${fact.subject} · ${fact.property}`)
  }

  /**
   * Send one fact-update from the detail, then say what changed with an Undo, refresh the page and reopen the detail
   * on the fact as saved (a refusal is shown instead).
   * @param app - the page's state.
   * @param fact - the fact edited.
   * @param change - the fields the user changed.
   * @param said - the toast's text, given the fact as saved.
   */
  private async saveUpdate(
    app: AppState,
    fact: FactView,
    change: { readonly value: string } | { readonly cues: readonly string[] },
    said: (saved: FactView) => string,
  ): Promise<void> {
    const answer = await callVerb('fact-update', { id: fact.id, ...change, ...app.generation.fence() })
    if (!answer.ok) return this.refused(answer.message, answer.details)
    app.generation.observe(answer.data)
    app.toast(said(answer.data.fact), { action: { label: 'Undo', run: () => this.undo(answer.data.editId) } })
    app.changed()
    await this.openDetail(answer.data.fact.id)
  }

  private async expire(fact: FactView): Promise<void> {
    const app = this.app
    if (app === undefined) return
    const answer = await callVerb('fact-expire', { id: fact.id, ...app.generation.fence() })
    if (!answer.ok) return this.refused(answer.message, answer.details)
    app.generation.observe(answer.data)
    app.toast(`Expired ${fact.subject} · ${fact.property}`, {
      action: { label: 'Undo', run: () => this.undo(answer.data.editId) },
    })
    app.changed()
    await this.openDetail(fact.id)
  }

  private async move(fact: FactView): Promise<void> {
    const app = this.app
    if (app === undefined) return
    const chosen = chosenScope(
      this.moveTarget,
      this.renderRoot.querySelector<HTMLInputElement>('input[name=new-label]')?.value,
    )
    if ('missing' in chosen) return this.refused(chosen.missing, {})
    const answer = await callVerb('fact-move', { id: fact.id, scope: chosen.scope, ...app.generation.fence() })
    if (!answer.ok) return this.refused(answer.message, answer.details)
    app.generation.observe(answer.data)
    const moved = answer.data.fact
    app.toast(`Moved ${fact.subject} · ${fact.property} to ${scopeWords(moved.scopeKind, moved.scopeName)}`, {
      action: { label: 'Undo', run: () => this.undo(answer.data.editId) },
    })
    app.changed()
    await this.openDetail(fact.id)
  }

  /** Empty the detail pane (and close the bottom sheet). */
  private closeDetail(): void {
    this.selectedId = null
    this.detailRead += 1
    this.detail = undefined
  }

  /**
   * After a forget: when the shown fact went, the detail moves to the row that followed it in the list (the one
   * before it when it was the last), or empties when no row is left; a forget of other rows leaves it alone.
   */
  private dropForgotten(event: CustomEvent<readonly FactView[]>): void {
    const gone = new Set(event.detail.map((fact) => fact.id))
    if (this.selectedId === null || !gone.has(this.selectedId)) return
    const listed = this.facts ?? []
    const at = listed.findIndex((fact) => fact.id === this.selectedId)
    const left = (fact: FactView): boolean => !gone.has(fact.id)
    const next = at < 0 ? undefined : (listed.slice(at + 1).find(left) ?? listed.slice(0, at).reverse().find(left))
    if (next === undefined) this.closeDetail()
    else void this.openDetail(next.id)
  }

  private async putBack(row: FactView): Promise<void> {
    const app = this.app
    if (app === undefined) return
    const back = await putBack(app, row)
    if (back !== undefined) await this.openDetail(back.id)
  }

  private async undo(editId: number): Promise<void> {
    const app = this.app
    if (app === undefined) return
    const answer = await callVerb('fact-restore', { editId, ...app.generation.fence() })
    if (!answer.ok) return this.refused(answer.message, answer.details)
    app.generation.observe(answer.data)
    app.toast('Undone')
    // The detail follows the value the undo made current again, not the row it retired.
    const shown = answer.data.facts.find((row) => row.id === this.detail?.fact.id)
    const restored = answer.data.facts.find((row) => CURRENT_STATUSES.includes(row.status))
    if (shown !== undefined && !CURRENT_STATUSES.includes(shown.status) && restored !== undefined)
      await this.openDetail(restored.id)
    app.changed()
  }

  private refused(message: string, details: Record<string, unknown>): void {
    if (details['stale'] === true) {
      this.app?.generation.observe(details)
      this.app?.toast('The store changed since this page read it; it has been reloaded. Try again.', { tone: 'error' })
      this.refresh()
      return
    }
    this.app?.toast(message, { tone: 'error' })
  }

  override render(): unknown {
    return html`
      <section class="list" aria-label="Facts">
        <form class="tools" @submit=${(event: Event) => this.search(event)}>
          <input type="search" placeholder="Search facts  ( / )" aria-label="Search facts" .value=${this.query} list="fm-recent" @input=${(event: Event) => this.typed(event)}>
          <div class="chips" role="group" aria-label="Status">
            ${STATUS_FILTERS.map(
              ([value, label]) => html`<button type="button" aria-pressed=${String(this.status === value)}
              @click=${() => {
                this.status = value
                void this.load(false)
              }}>${label}</button>`,
            )}
          </div>
          <select aria-label="Evidence" @change=${(event: Event) => {
            this.evidence = (event.target as HTMLSelectElement).value
            void this.load(false)
          }}>
            <option value="">Any evidence</option>
            ${Object.entries(EVIDENCE_LABEL).map(([value, label]) => html`<option value=${value} ?selected=${this.evidence === value}>${label}</option>`)}
          </select>
          <select aria-label="Scope" data-fm="scope-filter" @change=${(event: Event) => {
            this.scope = (event.target as HTMLSelectElement).value
            void this.load(false)
          }}>
            <option value="">Any scope</option>
            ${scopeFilterOptions(this.scopes).map(({ value, label }) => html`<option .value=${value} ?selected=${this.scope === value}>${label}</option>`)}
          </select>
          <span class="put-in"><fm-add-fact .app=${this.app} .scopes=${this.scopes} @fm-added=${(
            event: CustomEvent<number>,
          ) => {
            void this.openDetail(event.detail)
          }}></fm-add-fact>
            <fm-import-file .app=${this.app}></fm-import-file><fm-export .app=${this.app}></fm-export></span>
        </form>
        ${
          this.recent.length === 0
            ? nothing
            : html`<div class="recent" aria-label="Recent searches">
          ${this.recent.map((entry) => html`<button type="button" class="chip" @click=${() => this.useRecent(entry)}>${entry}</button>`)}</div>`
        }
        ${
          this.matched === null || this.query.trim() === ''
            ? nothing
            : html`<p class="caption match-count" data-fm="match-count" aria-live="polite">${this.matched} fact${this.matched === 1 ? ' matches' : 's match'} “${this.query.trim()}”</p>`
        }
        ${this.renderRows()}
      </section>
      ${this.renderDetail()}`
  }

  private useRecent(entry: string): void {
    this.query = entry
    const input = this.renderRoot.querySelector<HTMLInputElement>('input[type=search]')
    if (input !== null) input.value = entry
    void this.load(false)
  }

  private renderRows(): unknown {
    if (this.facts === undefined) {
      return html`<div aria-busy="true" aria-label="Loading facts">${[0, 1, 2, 3, 4, 5].map(() => html`<div class="skeleton skeleton-row"></div>`)}</div>`
    }
    if (this.facts.length === 0) {
      if (this.query.trim() !== '') {
        return html`<p class="empty">No fact holds every word of “${this.query.trim()}”.</p>
          <fm-question-hits .query=${this.query.trim()} .open=${(id: number) => {
            void this.openDetail(id)
          }}></fm-question-hits>`
      }
      if (this.status !== 'current' || this.evidence !== '' || this.scope !== '')
        return html`<p class="empty">No fact matches these filters.</p>`
      return html`<div class="empty" data-fm="empty">
        <p>Nothing is remembered yet. Add a fact or import a file above, or tell the assistant, for example:</p>
        <span class="copy"><span>${EMPTY_SENTENCE}</span>
          <button class="quiet" aria-label="Copy the sentence" @click=${() => {
            void navigator.clipboard?.writeText(EMPTY_SENTENCE)
            this.app?.toast('Copied')
          }}>Copy</button></span>
      </div>`
    }
    const selected = this.detail?.fact.id
    return html`<ul data-fm="fact-list">
      ${this.facts.map(
        (
          fact,
        ) => html`<li class=${fact.id === selected ? 'fact selected' : 'fact'}><button class="row" aria-current=${String(fact.id === selected)} @click=${() => {
          void this.openDetail(fact.id)
        }}>
        <span class="what">${this.marked(fact.subject)} · ${this.marked(fact.property)}${qualifierNote(fact.qualifiers) === '' ? nothing : html`<span class="caption" data-fm="row-qualifiers">${qualifierNote(fact.qualifiers)}</span>`}: <span class="value">${this.marked(listedValue(fact))}</span>${sensitiveMark(fact) === '' ? nothing : html` <span class="pill sensitive" data-fm="row-sensitive">${sensitiveMark(fact)}</span>`}${this.aliasNote(fact)}</span>
        <span class="pill ${fact.status}">${STATUS_LABEL[fact.status] ?? fact.status}</span>
        <span class="caption">${EVIDENCE_LABEL[fact.evidence] ?? fact.evidence} · ${formatInstant(fact.validFrom, this.timeZone)}${seenNote(fact.foldedCount)} · <span data-fm="row-scope">${scopeWords(fact.scopeKind, fact.scopeName)}</span></span>
        <span class="caption id">#${fact.id}</span>
      </button><fm-pin-button compact .app=${this.app} .fact=${fact}></fm-pin-button><fm-forget compact .app=${this.app} .fact=${fact} @fm-forgotten=${(event: CustomEvent<readonly FactView[]>) => this.dropForgotten(event)}></fm-forget></li>`,
      )}
      ${
        this.cursor === null
          ? nothing
          : html`<li class="more"><button ?disabled=${this.loading} @click=${() => {
              void this.load(true)
            }}>Load more</button></li>`
      }
    </ul>`
  }

  /** The old name the search named a row's subject by, when it was by one. */
  private aliasNote(fact: FactView): unknown {
    const alias = this.aliasMatches.find((match) => match.entityKey === fact.entityKey)?.alias
    return alias === undefined
      ? nothing
      : html` <span class="caption" data-fm="row-alias">${aliasMatchNote(alias)}</span>`
  }

  /** A row's text with the words of the query the list was filtered by marked. */
  private marked(text: string): unknown {
    return markMatches(text, this.query).map((run) => (run.hit ? html`<mark>${run.text}</mark>` : run.text))
  }

  private renderCues(fact: FactView, current: boolean): unknown {
    if (this.editingCues) {
      return html`<form @submit=${(event: Event) => {
        event.preventDefault()
        void this.editCues(fact, this.renderRoot.querySelector<HTMLTextAreaElement>('textarea[name=cues]')?.value ?? '')
      }}>
        <textarea name="cues" rows="4" aria-label="Cues, one per line" placeholder="one phrase per line, e.g. run the tests" style="width: 100%">${fact.cues.join('\n')}</textarea>
        <div class="caption">Up to 8, one per line, in any language.</div>
        <div class="actions"><button class="primary" type="submit">Save cues</button><button type="button" @click=${() => {
          this.editingCues = false
        }}>Cancel</button></div>
      </form>`
    }
    return html`<span class="cues">${fact.cues.length === 0 ? html`<span class="caption">none</span>` : fact.cues.map((cue) => html`<span class="cue">${cue}</span>`)}</span>
      ${
        current && !fact.masked
          ? html`<button class="quiet" data-fm="edit-cues" @click=${() => {
              this.editingCues = true
            }}>Edit cues</button>`
          : nothing
      }`
  }

  private renderDetail(): unknown {
    if (this.detail === undefined)
      return this.narrow
        ? nothing
        : html`<aside class="pane empty">Select a fact to see its history and sources.</aside>`
    const { fact, history, sources } = this.detail
    const current = ['active', 'scheduled', 'conflict'].includes(fact.status)
    const pane = html`<aside class="pane" data-fm="detail" aria-label="Fact detail">
      <h2>${fact.subject} · ${fact.property}${qualifierNote(fact.qualifiers) === '' ? nothing : html`<span class="caption">${qualifierNote(fact.qualifiers)}</span>`}</h2>
      <button class="quiet" data-fm="open-subject" title="Rename or merge this subject, rename a property, see its aliases" @click=${() => this.app?.openSubject(fact.entityKey)}>Subject “${fact.subject}” ›</button>
      ${
        this.editing
          ? html`<form @submit=${(event: Event) => {
              event.preventDefault()
              void this.edit(fact, this.renderRoot.querySelector<HTMLInputElement>('input[name=value]')?.value ?? '')
            }}>
            ${settlesConflict(fact, history)}
            <input name="value" aria-label="New value" .value=${fact.value} style="width: 100%">
            <div class="actions"><button class="primary" type="submit">Save</button><button type="button" @click=${() => {
              this.editing = false
            }}>Cancel</button></div>
          </form>`
          : html`<div class="big" data-fm="detail-value">${fact.value}</div>`
      }
      <span class="pill ${fact.status}">${STATUS_LABEL[fact.status] ?? fact.status}</span>
      <fm-pin-button data-fm="detail-pin" .app=${this.app} .fact=${fact}></fm-pin-button>
      <dl>
        <dt>Evidence</dt><dd>${EVIDENCE_LABEL[fact.evidence] ?? fact.evidence}</dd>
        <dt>Scope</dt><dd data-fm="detail-scope">${scopeWords(fact.scopeKind, fact.scopeName)}</dd>
        <dt>Valid</dt><dd>${formatInstant(fact.validFrom, this.timeZone)} → ${fact.validTo === null ? 'now' : formatInstant(fact.validTo, this.timeZone)}</dd>
        <dt>Last seen</dt><dd>${formatInstant(fact.observedAt, this.timeZone)}${seenNote(fact.foldedCount)}</dd>
        <dt>Source</dt><dd>${ORIGIN_LABEL[fact.origin] ?? fact.origin}${fact.sessionId === null ? '' : ` · ${fact.sessionId.slice(0, 16)}${fact.turn === null ? '' : ` turn ${fact.turn}`}`}</dd>
        ${fact.sensitivity === null ? nothing : html`<dt>Sensitive</dt><dd>${fact.sensitivity}${fact.modelUseAllowed ? '' : ' · hidden from the model'}</dd>`}
        ${fact.quote === null ? nothing : html`<dt>Quote</dt><dd>“${fact.quote}”</dd>`}
        <dt title="Phrases a later request needing this fact would use; they help find it and are never shown to the model as its value">Cues</dt>
        <dd data-fm="detail-cues">${this.renderCues(fact, current)}</dd>
      </dl>
      ${
        current && !this.editing
          ? html`<div class="actions">
        <button ?disabled=${fact.masked} @click=${() => {
          this.editing = true
        }}>Edit value</button>
        <button class="danger" @click=${() => {
          void this.expire(fact)
        }}>Expire now</button>
        <fm-forget .app=${this.app} .fact=${fact} @fm-forgotten=${(event: CustomEvent<readonly FactView[]>) => this.dropForgotten(event)}></fm-forget></div>
      <div class="actions" data-fm="move">
        <label class="caption">Scope: move to <select name="move-to" aria-label="Move to scope"
          @change=${(event: Event) => {
            this.moveTarget = (event.target as HTMLSelectElement).value
          }}>
          <option value="" ?selected=${this.moveTarget === ''}>choose…</option>
          ${[...moveTargets(fact, this.scopes), NEW_LABEL].map(({ value, label }) => html`<option .value=${value} ?selected=${this.moveTarget === value}>${label}</option>`)}
        </select></label>
        ${this.moveTarget === NEW_LABEL.value ? html`<input name="new-label" aria-label="New label" placeholder="label name" maxlength="200">` : nothing}
        <button ?disabled=${this.moveTarget === ''} title=${this.moveTarget === '' ? 'Choose a scope, or a new label, to move this fact to' : ''}
          @click=${() => {
            void this.move(fact)
          }}>Move</button></div>`
          : nothing
      }
      <h3>Value history</h3>
      <ul class="history">${history.map(
        (row) => html`<li>
        <span class=${row.id === fact.id ? 'value' : ''}>${row.value}</span> <span class="pill ${row.status}">${STATUS_LABEL[row.status] ?? row.status}</span>
        ${
          canPutBack(row, history)
            ? html`<button class="quiet" data-fm="put-back" @click=${() => {
                void this.putBack(row)
              }}>Put back</button>`
            : nothing
        }
        <div class="caption">${formatInstant(row.validFrom, this.timeZone)} → ${row.validTo === null ? 'now' : formatInstant(row.validTo, this.timeZone)} · ${EVIDENCE_LABEL[row.evidence] ?? row.evidence} · #${row.id}</div></li>`,
      )}</ul>
      ${
        fact.foldedCount === 0
          ? nothing
          : html`<h3>Folded lines</h3>
      <p class="caption">The same line on ${fact.foldedCount} other day${fact.foldedCount === 1 ? '' : 's'}, folded into this fact${fact.foldedCount > fact.foldedFrom.length ? `; the last ${fact.foldedFrom.length} are kept` : ''}:</p>
      <ul class="history" data-fm="folded-from">${[...fact.foldedFrom].reverse().map((line) => html`<li>${line}</li>`)}</ul>`
      }
      <h3>Sources</h3>
      <ul class="sources">${sources.map(
        (source) => html`<li>
        ${ORIGIN_LABEL[source.origin] ?? source.origin} · ${EVIDENCE_LABEL[source.evidence] ?? source.evidence}
        <div class="caption">${formatInstant(source.observedAt, this.timeZone)}${source.sessionId === null ? '' : ` · ${source.sessionId.slice(0, 16)}`}${source.quote === null ? '' : ` · “${source.quote}”`}</div></li>`,
      )}</ul>
    </aside>`
    if (!this.narrow) return pane
    return html`<div class="sheet-backdrop" data-fm="sheet-backdrop" @click=${() => this.closeDetail()}></div><div class="sheet" role="dialog" aria-label="Fact detail">
      <button class="quiet sheet-close" data-fm="sheet-close" aria-label="Close the detail" title="Close (Esc)" @click=${() => this.closeDetail()}>✕</button>${pane}</div>`
  }
}

/**
 * What saving an edit of a contested value does, said before the user saves: the user's own value settles the
 * conflict, and the rival values leave the current set with the edited one.
 */
function settlesConflict(fact: FactView, history: readonly FactView[]): unknown {
  const rivals =
    fact.conflictGroupId === null
      ? []
      : history.filter(
          (row) =>
            row.id !== fact.id && row.conflictGroupId === fact.conflictGroupId && CURRENT_STATUSES.includes(row.status),
        )
  if (rivals.length === 0) return nothing
  const named = rivals.map((row) => `“${row.value}” (#${row.id})`).join(', ')
  return html`<p class="caption" role="note" data-fm="settles-conflict">Saving settles the conflict: this value is contested by
    ${named}. Your value becomes the only current one; ${rivals.length === 1 ? 'the rival goes' : 'the rivals go'} to history with this one.</p>`
}

function readRecent(): string[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(RECENT_KEY) ?? '[]')
    return Array.isArray(parsed) ? parsed.filter((entry): entry is string => typeof entry === 'string').slice(0, 5) : []
  } catch {
    return []
  }
}
