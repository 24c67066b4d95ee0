/**
 * <fm-page>: the Fact memory page. A header (title, store summary read again whenever the store's generation moves,
 * auto refresh, close), five tabs, and the active tab's view. Auto refresh is off by default; when on, only the
 * visible tab is polled, and polling stops when the tab is left or the page closes. The page does not depend on the
 * seat that hosts it.
 */
import { css, html, LitElement, nothing, type PropertyValues } from 'lit'
import type { AppState, PageState, Summary, Tab } from '../app-state.ts'
import { callVerb } from '../api.ts'
import { baseStyles } from '../styles.ts'

const TABS: readonly (readonly [Tab, string])[] = [
  ['graph', 'Nebula'],
  ['library', 'Fact library'],
  ['proposals', 'Proposals'],
  ['conflicts', 'Conflicts'],
  ['extraction', 'Extraction queue'],
]

/** Auto refresh choices in seconds; 0 is manual. */
const REFRESH_CHOICES = [0, 5, 10, 15, 30] as const

/** A tab view the page can ask to reload. */
interface Refreshable extends HTMLElement {
  refresh?(): void
}

/** The page shell. */
export class FmPage extends LitElement {
  static override properties = {
    app: { attribute: false },
    closePage: { attribute: false },
    state: { state: true },
    refreshSeconds: { state: true },
    storeLine: { state: true },
    summary: { state: true },
    subject: { state: true },
  }

  static override styles = [
    baseStyles,
    css`
    :host { display: flex; flex-direction: column; height: 100%; background: var(--dsw-alias-bg-base); }
    header { display: flex; align-items: center; gap: 12px; padding: 10px 16px; border-bottom: 1px solid var(--dsw-alias-border-l1); }
    h1 { font-size: 16px; line-height: 24px; margin: 0; font-weight: 600; }
    .store { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    nav { display: flex; gap: 4px; padding: 6px 12px; border-bottom: 1px solid var(--dsw-alias-border-l1); overflow-x: auto; }
    nav button { border-color: transparent; display: inline-flex; gap: 6px; align-items: center; white-space: nowrap; }
    nav button[aria-selected='true'] { background: var(--dsw-alias-interactive-bg-active); font-weight: 600; }
    .count { min-width: 18px; padding: 0 5px; border-radius: 9px; font-size: 11px; line-height: 18px; text-align: center; font-weight: 600;
      background: var(--dsw-alias-state-warn-tertiary, var(--dsw-alias-bg-layer-3)); color: var(--fm-warn-text); }
    .body { flex: 1; min-height: 0; position: relative; }
    .body > * { position: absolute; inset: 0; }
    label.refresh { display: inline-flex; align-items: center; gap: 6px; }
    .body > fm-entity-panel { left: auto; width: min(440px, 100%); z-index: 5; }
  `,
  ]

  declare app: AppState | undefined
  declare closePage: (() => void) | undefined
  declare state: PageState
  declare refreshSeconds: number
  declare storeLine: string
  declare summary: Summary | undefined
  /** The subject whose panel is open, or null. */
  declare subject: string | null
  private unsubscribe: (() => void) | undefined
  /** The store generation the store line was read at; a summary at another one reads it again. */
  private storeLineGeneration: number | undefined
  private poll: ReturnType<typeof setInterval> | undefined

  constructor() {
    super()
    this.state = { open: true, tab: 'graph', focusFact: null }
    this.refreshSeconds = Number(localStorage.getItem('fm.refreshSeconds') ?? '0') || 0
    this.storeLine = ''
    this.subject = null
  }

  override connectedCallback(): void {
    super.connectedCallback()
    this.attach()
    document.addEventListener('visibilitychange', this.onVisibility)
    // Capture on window, registered before any tab's own: Esc closes the subject panel over the tabs first.
    window.addEventListener('keydown', this.onEscape, { capture: true })
    void this.loadStoreLine()
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback()
    this.unsubscribe?.()
    this.unsubscribe = undefined
    document.removeEventListener('visibilitychange', this.onVisibility)
    window.removeEventListener('keydown', this.onEscape, { capture: true })
    this.stopPolling()
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('app')) this.attach()
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has('refreshSeconds') || changed.has('state')) this.restartPolling()
  }

  private attach(): void {
    this.unsubscribe?.()
    const app = this.app
    if (app === undefined) return
    this.state = app.page.getSnapshot()
    this.summary = app.summary.getSnapshot()
    const stopPage = app.page.subscribe(() => {
      this.state = app.page.getSnapshot()
    })
    const stopSummary = app.summary.subscribe(() => {
      this.summary = app.summary.getSnapshot()
      if (this.summary.available && this.summary.generation !== this.storeLineGeneration) void this.loadStoreLine()
    })
    this.subject = app.subject.getSnapshot()
    const stopSubject = app.subject.subscribe(() => {
      this.subject = app.subject.getSnapshot()
    })
    this.unsubscribe = () => {
      stopPage()
      stopSummary()
      stopSubject()
    }
  }

  private readonly onVisibility = (): void => {
    this.restartPolling()
  }

  private readonly onEscape = (event: KeyboardEvent): void => {
    if (event.key !== 'Escape' || this.subject === null || this.app === undefined || !this.isConnected) return
    event.preventDefault()
    event.stopImmediatePropagation()
    this.app.closeSubject()
  }

  private restartPolling(): void {
    this.stopPolling()
    if (this.refreshSeconds === 0 || document.visibilityState !== 'visible') return
    this.poll = setInterval(() => this.refreshActive(), this.refreshSeconds * 1000)
  }

  private stopPolling(): void {
    if (this.poll !== undefined) clearInterval(this.poll)
    this.poll = undefined
  }

  /** Reload the visible tab and the summary. */
  refreshActive(): void {
    const view = this.renderRoot.querySelector<Refreshable>('.body > *')
    view?.refresh?.()
    void this.app?.refreshSummary()
    void this.loadStoreLine()
  }

  private async loadStoreLine(): Promise<void> {
    const answer = await callVerb('status', {})
    if (!answer.ok) {
      this.storeLine = `Fact memory is unavailable: ${answer.message}`
      return
    }
    if (!answer.data.available) {
      this.storeLine = `The store is not open: ${answer.data.error?.message ?? 'switched off'}`
      return
    }
    this.storeLineGeneration = answer.data.generation
    const by = answer.data.counts?.byStatus ?? {}
    const current = (by['active'] ?? 0) + (by['scheduled'] ?? 0) + (by['conflict'] ?? 0)
    const history = (by['superseded'] ?? 0) + (by['retired'] ?? 0) + (by['expired'] ?? 0)
    this.storeLine = `${current} current facts · ${history} in history`
  }

  private setRefresh(seconds: number): void {
    this.refreshSeconds = seconds
    localStorage.setItem('fm.refreshSeconds', String(seconds))
  }

  override render(): unknown {
    const app = this.app
    if (app === undefined) return nothing
    const summary = this.summary ?? app.summary.getSnapshot()
    const counts: Partial<Record<Tab, number>> = {
      proposals: summary.pendingProposals,
      conflicts: summary.openConflictGroups,
    }
    return html`
      <header>
        <h1>Fact memory</h1>
        <span class="store caption" data-fm="store-line">${this.storeLine}</span>
        <label class="refresh caption">Auto refresh
          <select aria-label="Auto refresh" @change=${(event: Event) => this.setRefresh(Number((event.target as HTMLSelectElement).value))}>
            ${REFRESH_CHOICES.map((seconds) => html`<option value=${seconds} ?selected=${seconds === this.refreshSeconds}>${seconds === 0 ? 'off' : `${seconds} s`}</option>`)}
          </select>
        </label>
        <button class="quiet" title="Refresh now" aria-label="Refresh now" @click=${() => this.refreshActive()}>↻</button>
        ${this.closePage === undefined ? nothing : html`<button class="quiet" aria-label="Close Fact memory" @click=${() => this.closePage?.()}>✕</button>`}
      </header>
      <nav role="tablist" aria-label="Fact memory views">
        ${TABS.map(
          ([tab, label]) => html`
          <button role="tab" data-tab=${tab} aria-selected=${String(this.state.tab === tab)} @click=${() => app.selectTab(tab)}>
            ${label}${(counts[tab] ?? 0) > 0 ? html`<span class="count">${counts[tab]}</span>` : nothing}
          </button>`,
        )}
      </nav>
      <div class="body" role="tabpanel">${this.renderTab(app)}${
        this.subject === null
          ? nothing
          : html`<fm-entity-panel role="dialog" aria-label="Subject" .app=${app} .entityKey=${this.subject}
            @fm-close-subject=${() => app.closeSubject()}></fm-entity-panel>`
      }</div>`
  }

  private renderTab(app: AppState): unknown {
    switch (this.state.tab) {
      case 'library':
        return html`<fm-library .app=${app} .focusFact=${this.state.focusFact}></fm-library>`
      case 'graph':
        return html`<fm-graph .app=${app}></fm-graph>`
      case 'proposals':
        return html`<fm-proposals .app=${app}></fm-proposals>`
      case 'conflicts':
        return html`<fm-conflicts .app=${app}></fm-conflicts>`
      case 'extraction':
        return html`<fm-extraction .app=${app}></fm-extraction>`
    }
  }
}
