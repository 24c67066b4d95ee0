/**
 * <fm-graph>: the graph tab. The nebula (3D, default) or the one-hop tree, current relations or all (contested
 * ones labelled); every time the tab opens it re-reads the projection, and a refresh button re-reads on demand.
 * three.js lives in a separate chunk loaded with import() the first time the nebula is drawn; without WebGL the
 * tab draws the SVG tree instead of a blank panel. Opening a node or an edge lists the facts behind it, each with a
 * Forget button (this fact, its subject · property, or the whole subject); a forget closes the panel. The newest
 * request the user made wins whatever order answers land in: only the newest read draws, only the newest ask (a
 * click, a find) fills the panel, and no read writes into the centre field while the user is in it.
 */
import { css, html, LitElement, nothing, type PropertyValues } from 'lit'
import type { AppState } from '../app-state.ts'
import { callVerb } from '../api.ts'
import {
  countOf,
  edgeWords,
  EVIDENCE_LABEL,
  glanceLabel,
  formatInstant,
  listedValue,
  seenNote,
  sensitiveMark,
  slotWords,
  STATUS_LABEL,
} from '../format.ts'
import { type CentreFieldEvent, centreFieldText, draftAfter } from '../centre-field.ts'
import { graphCaption, nodeFactIds, selectionTitle } from '../graph-selection.ts'
import { NewestRequest } from '../newest-request.ts'
import { exactStar, partialStar } from '../star-search.ts'
import { baseStyles } from '../styles.ts'
import type { GraphEdge, GraphNode, GraphPayload, GraphScope, GraphView } from '../../src/graph-types.ts'
import type { FactView } from '../../src/wire-types.ts'

/** What the lazily loaded chunk exports. */
interface NebulaModule {
  webglAvailable(): boolean
  mountNebula(
    container: HTMLElement,
    payload: GraphPayload,
    handlers: {
      onHover(node: GraphNode | null): void
      onSelectNode(node: GraphNode, at: { readonly x: number; readonly width: number }): void
      onSelectEdge(edge: GraphEdge): void
    },
    memory?: object,
  ): {
    update(payload: GraphPayload): void
    setTheme(): void
    pause(): void
    resume(): void
    clearSelection(): void
    fit(): void
    dispose(): void
    flyTo(id: string): { readonly x: number; readonly width: number } | undefined
    memory(): object
  }
}

/** The most facts a selection lists (a value such as "prod" can stand behind hundreds). */
const LIST_CAP = 100

/** The chunk's URL; the revision busts caches when a new build is served. */
const NEBULA_URL = `/api/fact-memory/assets/nebula.js?rev=${FM_NEBULA_REV}`

/** The selection panel's content. */
interface Selection {
  readonly title: string
  readonly facts: readonly FactView[]
  /** The store's display zone, read with the facts. */
  readonly timeZone: string
  /** A subject's own current facts no drawn edge shows (contested ones in the Current scope, any past the budget). */
  readonly undrawn: readonly FactView[]
  /** The side the panel sits on: away from the selected star, so it never covers it. */
  readonly side: 'left' | 'right'
  /** The selected subject's entity key, for its panel; null for a value or an edge. */
  readonly entityKey?: string | null
}

/** The graph tab. */
export class FmGraph extends LitElement {
  static override properties = {
    app: { attribute: false },
    view: { state: true },
    scope: { state: true },
    payload: { state: true },
    fallback: { state: true },
    selection: { state: true },
    error: { state: true },
    subjects: { state: true },
    finding: { state: true },
    centreDraft: { state: true },
  }

  static override styles = [
    baseStyles,
    css`
    :host { display: grid; grid-template-rows: auto minmax(0, 1fr); min-height: 0; }
    .toolbar { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; padding: 8px 12px; border-bottom: 1px solid var(--dsw-alias-border-l1); }
    .seg button[aria-pressed='true'] { background: var(--dsw-alias-interactive-bg-active); font-weight: 600; }
    .stage { position: relative; min-height: 0; }
    .canvas { position: absolute; inset: 0; overflow: hidden; }
    .panel { position: absolute; top: 12px; bottom: 12px; width: min(340px, 45%); overflow: auto; padding: 12px;
      border: 1px solid var(--dsw-alias-border-l2); border-radius: 12px; background: var(--dsw-alias-bg-base); box-shadow: var(--dsw-shadow-lv2, none); }
    .panel--right { right: 12px; }
    .panel--left { left: 12px; }
    .panel li { padding: 6px 0; border-bottom: 1px solid var(--dsw-alias-border-l1); list-style: none;
      display: grid; grid-template-columns: minmax(0, 1fr) auto; align-items: start; gap: 2px 8px; }
    .panel li > .fact { justify-self: start; text-align: left; padding-inline: 0; overflow-wrap: anywhere; white-space: normal; }
    .panel li > fm-forget { white-space: nowrap; }
    .panel li > .caption { grid-column: 1 / -1; }
    /* The canvas takes keys (arrows pan): a ring when the keyboard brought focus, never a frame after a mouse click,
       even once a key is pressed (the view marks focus the pointer gave with data-pointer-focus). */
    .canvas canvas:focus, .canvas canvas[data-pointer-focus]:focus-visible { outline: none; }
    .canvas canvas:focus-visible { outline: 2px solid var(--dsw-alias-brand-primary); outline-offset: -2px; }
    .find { display: inline-flex; gap: 6px; align-items: center; }
    .find input { width: 210px; }
    .panel ul { padding: 0; margin: 8px 0 0; }
  `,
  ]

  declare app: AppState | undefined
  declare view: GraphView
  declare scope: GraphScope
  declare payload: GraphPayload | undefined
  declare fallback: boolean
  declare selection: Selection | undefined
  declare error: string | undefined
  /** Subjects the tree can be centred on (the nebula's), for the centre field. */
  declare subjects: readonly string[]
  /** The find box's answer: what it found, or that no star matches; undefined before a search. */
  declare finding: { readonly found: boolean; readonly text: string } | undefined
  /** The tree's centre field's text while the user is in it, from entering it until leaving it (centre-field.ts). */
  declare centreDraft: string | undefined
  private mounted: ReturnType<NebulaModule['mountNebula']> | undefined
  private center: string | undefined
  /** The centre asked for when the drawn tree was read (undefined: the default centre). */
  private drawnCentre: string | undefined
  private visibility: IntersectionObserver | undefined
  /** Re-reads of the projection: only the newest one draws, so a slow earlier read never replaces a later centre or scope. */
  private readonly reads = new NewestRequest()
  /**
   * What the selection panel was last asked to show (a star or edge clicked, a find): only the newest ask fills it,
   * whatever order the reads behind each land in, and closing the panel or switching the view drops every ask.
   */
  private readonly asks = new NewestRequest()

  constructor() {
    super()
    this.view = 'nebula'
    this.scope = 'current'
    this.payload = undefined
    this.fallback = false
    this.selection = undefined
    this.error = undefined
    this.subjects = []
    this.finding = undefined
    this.centreDraft = undefined
  }

  override connectedCallback(): void {
    super.connectedCallback()
    // Opening the tab always re-reads the projection: a cached map is never passed off as the current store.
    void this.load()
    window.addEventListener('keydown', this.onEscape, { capture: true })
    this.visibility = new IntersectionObserver((entries) => {
      const visible = entries.some((entry) => entry.isIntersecting)
      if (visible) this.mounted?.resume()
      else this.mounted?.pause()
    })
    this.visibility.observe(this)
  }

  /** Esc closes the innermost thing first: the selection panel, while it is open. */
  private readonly onEscape = (event: KeyboardEvent): void => {
    if (event.key !== 'Escape' || this.selection === undefined || !this.isConnected || !this.checkVisibility()) return
    event.preventDefault()
    event.stopImmediatePropagation()
    this.closeSelection()
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback()
    window.removeEventListener('keydown', this.onEscape, { capture: true })
    this.visibility?.disconnect()
    this.unmount()
  }

  /** Re-read the projection. */
  refresh(): void {
    void this.load()
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has('payload') || changed.has('fallback') || changed.has('view')) void this.draw()
  }

  private async load(): Promise<void> {
    const ticket = this.reads.start()
    const asked = this.center
    this.error = undefined
    const body: Record<string, unknown> = { view: this.view, scope: this.scope }
    if (this.view === 'tree') {
      const fallback = await this.defaultCenter()
      if (!this.reads.isNewest(ticket)) return
      const center = this.center ?? fallback
      if (center === undefined) {
        this.payload = emptyPayload(this.view, this.scope)
        return
      }
      body['center'] = center
    }
    const answer = await callVerb('graph', body)
    if (!this.reads.isNewest(ticket)) return
    this.drawnCentre = asked
    if (!answer.ok) {
      this.error = answer.message
      this.payload = emptyPayload(this.view, this.scope)
      return
    }
    this.payload = answer.data
  }

  /**
   * The entity with the most relations, for a tree nobody asked a centre for; the nebula's subjects also fill the
   * centre field's suggestions.
   */
  private async defaultCenter(): Promise<string | undefined> {
    const answer = await callVerb('graph', { view: 'nebula', scope: this.scope })
    if (!answer.ok) return undefined
    const entities = answer.data.nodes.filter((node) => node.kind === 'entity')
    this.subjects = entities.map((node) => node.label).sort((a, b) => a.localeCompare(b))
    const top = [...entities].sort((a, b) => b.degree - a.degree || (a.id < b.id ? -1 : 1))[0]
    return top?.entityKey ?? undefined
  }

  private async draw(): Promise<void> {
    const payload = this.payload
    if (payload === undefined || this.view !== 'nebula' || this.fallback) {
      this.unmount()
      return
    }
    const container = this.renderRoot.querySelector<HTMLElement>('.canvas')
    if (container === null) return
    try {
      if (this.mounted !== undefined) {
        this.mounted.update(payload)
        return
      }
      const module = (await import(/* @vite-ignore */ NEBULA_URL)) as NebulaModule
      if (!module.webglAvailable()) {
        this.useFallback()
        return
      }
      this.mounted = module.mountNebula(
        container,
        payload,
        {
          // The nebula labels the hovered star itself.
          onHover: () => undefined,
          onSelectNode: (node, at) => {
            void this.selectNode(node, panelSide(at.x, at.width))
          },
          onSelectEdge: (edge) => {
            void this.selectEdge(edge)
          },
        },
        this.app?.graphMemory,
      )
    } catch {
      // No WebGL (or the chunk failed to load): draw the SVG tree rather than a blank panel.
      this.useFallback()
    }
  }

  private useFallback(): void {
    this.unmount()
    this.fallback = true
    this.view = 'tree'
    void this.load()
  }

  private unmount(): void {
    if (this.mounted !== undefined && this.app !== undefined) this.app.graphMemory = this.mounted.memory()
    this.mounted?.dispose()
    this.mounted = undefined
  }

  private setView(view: GraphView): void {
    if (view === 'nebula' && this.fallback) {
      this.app?.toast('WebGL is not available in this browser; showing the tree instead.', { tone: 'error' })
      return
    }
    this.view = view
    this.dropSelection()
    void this.load()
  }

  private setScope(scope: GraphScope): void {
    this.scope = scope
    void this.load()
  }

  /** Centre the tree on a subject as typed (a name or an entity key; the verb refuses one it does not know). */
  private centreOn(subject: string): void {
    this.editCentre({ kind: 'commit', text: subject })
    const wanted = subject.trim()
    if (wanted === '' || wanted === this.center) return
    this.center = wanted
    this.dropSelection()
    void this.load()
  }

  /** Follow the centre field's draft: the field's text is the user's from entering it until leaving it. */
  private editCentre(event: CentreFieldEvent): void {
    this.centreDraft = draftAfter(event, this.centreText(undefined))
  }

  /**
   * @param draft - the field's draft, if the user is in it.
   * @returns what the centre field shows.
   */
  private centreText(draft: string | undefined): string {
    return centreFieldText({
      draft,
      drawn: this.payload?.center?.label,
      asked: this.center,
      askedIsDrawn: this.drawnCentre === this.center,
    })
  }

  /**
   * Find a star: the drawn subject called what was typed (its name or key, folded), else the subject the host knows
   * by that name (an alias: an old name, the name in another language), else the subject whose name starts with or
   * holds it. The view flies to it and its panel opens; with no match the box says so.
   * @param typed - the find box's text
   */
  private async findStar(typed: string): Promise<void> {
    const query = typed.trim()
    if (query === '' || this.payload === undefined) {
      this.finding = undefined
      return
    }
    const ticket = this.asks.start()
    let star = exactStar(query, this.payload.nodes)
    if (star === undefined) {
      const named = await callVerb('subject-find', { name: query })
      if (!this.asks.isNewest(ticket)) return
      // Looked up in the graph drawn now: a refresh may have landed while the host answered.
      if (named.ok && named.data.entityKey !== null)
        star = this.payload?.nodes.find((node) => node.kind === 'entity' && node.entityKey === named.data.entityKey)
    }
    star ??= partialStar(query, this.payload?.nodes ?? [])
    if (star === undefined) {
      this.finding = { found: false, text: `No star matches “${query}”.` }
      return
    }
    this.finding = {
      found: true,
      text: star.label === query ? `Found ${star.label}.` : `Found ${star.label} for “${query}”.`,
    }
    const at = this.mounted?.flyTo(star.id)
    await this.showNode(star, at === undefined ? 'right' : panelSide(at.x, at.width), ticket)
  }

  /**
   * Lists the facts behind a star: those of its drawn edges, counted in the title as the star's hover counts them
   * (its `factCount`), and for a subject, apart, its own current facts the drawing leaves out (contested ones in
   * the Current scope, any past the budget), counted on their own. In the tree, a subject becomes the centre.
   * @param side - where the panel goes: away from the star (the tree, which has no canvas point, keeps it right)
   */
  private async selectNode(node: GraphNode, side: 'left' | 'right' = 'right'): Promise<void> {
    await this.showNode(node, side, this.asks.start())
  }

  /**
   * selectNode's work, for an ask already made (a click, a find).
   * @param ticket - the ask's ticket: a later ask, or the panel closed meanwhile, leaves the panel alone.
   */
  private async showNode(node: GraphNode, side: 'left' | 'right', ticket: number): Promise<void> {
    const drawn = nodeFactIds(this.payload ?? emptyPayload(this.view, this.scope), node.id)
    const [all, timeZone] = await Promise.all([this.factsByIds(drawn, node.entityKey), this.zone()])
    if (!this.asks.isNewest(ticket)) return
    const drawnIds = new Set(drawn)
    const facts = all.filter((fact) => drawnIds.has(fact.id))
    const undrawn = all.filter((fact) => !drawnIds.has(fact.id))
    this.selection = {
      title: selectionTitle(glanceLabel(node), facts.length, drawn.length),
      facts,
      timeZone,
      undrawn,
      side,
      entityKey: node.kind === 'entity' ? node.entityKey : null,
    }
    if (
      this.view === 'tree' &&
      node.kind === 'entity' &&
      node.entityKey !== null &&
      node.id !== this.payload?.center?.id
    ) {
      this.center = node.entityKey
      void this.load()
    }
  }

  private async selectEdge(edge: GraphEdge): Promise<void> {
    const ticket = this.asks.start()
    const [facts, timeZone] = await Promise.all([this.factsByIds(edge.factIds, null), this.zone()])
    if (!this.asks.isNewest(ticket)) return
    this.selection = {
      title: selectionTitle(
        `${edgeWords(edge)}${edge.contested ? ' (contested)' : ''}`,
        facts.length,
        edge.factIds.length,
      ),
      facts,
      timeZone,
      undrawn: [],
      side: 'right',
    }
  }

  private closeSelection(): void {
    this.dropSelection()
    this.mounted?.clearSelection()
  }

  /** Empty the selection panel, and leave it empty whatever a star or edge asked for earlier still reads. */
  private dropSelection(): void {
    this.asks.drop()
    this.selection = undefined
  }

  private zone(): Promise<string> {
    return this.app?.displayZone() ?? Promise.resolve('')
  }

  /**
   * The facts with these ids, in id order, at most LIST_CAP, read one by one; for a subject, its own current facts
   * in one entity read instead (all of them: drawn or not), and the rest (facts naming it) one by one.
   */
  private async factsByIds(ids: readonly number[], entityKey: string | null): Promise<FactView[]> {
    const found = new Map<number, FactView>()
    if (entityKey !== null) {
      const answer = await callVerb('entity', { entityKey })
      const current = new Set(['active', 'scheduled', 'conflict'])
      if (answer.ok) {
        for (const fact of answer.data.properties.flatMap((group) => group.facts))
          if (current.has(fact.status)) found.set(fact.id, fact)
      }
    }
    const rest = ids.filter((id) => !found.has(id)).slice(0, Math.max(0, LIST_CAP - found.size))
    const answers = await Promise.all(rest.map((id) => callVerb('fact', { id })))
    for (const answer of answers) if (answer.ok) found.set(answer.data.fact.id, answer.data.fact)
    return [...found.values()].sort((a, b) => a.id - b.id).slice(0, LIST_CAP)
  }

  private renderFact(fact: FactView, timeZone: string): unknown {
    return html`<li>
      <button class="quiet fact" @click=${() => this.app?.open('library', fact.id)}>${slotWords(fact)}: <strong>${listedValue(fact)}</strong>${sensitiveMark(fact) === '' ? '' : ` (${sensitiveMark(fact)})`}</button>
      <fm-forget compact .app=${this.app} .fact=${fact}></fm-forget>
      <div class="caption">${STATUS_LABEL[fact.status] ?? fact.status} · ${EVIDENCE_LABEL[fact.evidence] ?? fact.evidence} · ${formatInstant(fact.validFrom, timeZone)}${seenNote(fact.foldedCount)}</div></li>`
  }

  override render(): unknown {
    const payload = this.payload
    const selection = this.selection
    return html`
      <div class="toolbar">
        <span class="seg" role="group" aria-label="Graph view">
          <button aria-pressed=${String(this.view === 'nebula')} ?disabled=${this.fallback} @click=${() => this.setView('nebula')}>Nebula</button>
          <button aria-pressed=${String(this.view === 'tree')} @click=${() => this.setView('tree')}>One-hop tree</button>
        </span>
        <span class="seg" role="group" aria-label="Relations">
          <button aria-pressed=${String(this.scope === 'current')} @click=${() => this.setScope('current')}>Current</button>
          <button aria-pressed=${String(this.scope === 'all')} @click=${() => this.setScope('all')}>All, with contested</button>
        </span>
        ${
          this.view === 'tree'
            ? html`<label class="caption">Centre
          <input data-fm="tree-center" list="fm-graph-subjects" placeholder="a subject"
            .value=${this.centreText(this.centreDraft)}
            @focus=${(event: FocusEvent) => this.editCentre({ kind: 'focus', text: (event.target as HTMLInputElement).value })}
            @input=${(event: Event) => this.editCentre({ kind: 'input', text: (event.target as HTMLInputElement).value })}
            @keydown=${(event: KeyboardEvent) => {
              if (event.key === 'Enter') this.centreOn((event.target as HTMLInputElement).value)
              if (event.key === 'Escape') this.editCentre({ kind: 'put-back' })
            }}
            @change=${(event: Event) => this.centreOn((event.target as HTMLInputElement).value)}
            @blur=${() => this.editCentre({ kind: 'leave' })}></label>
          <datalist id="fm-graph-subjects">${this.subjects.map((subject) => html`<option value=${subject}></option>`)}</datalist>`
            : nothing
        }
 ${
   this.view === 'nebula' && !this.fallback
     ? html`<form class="find" role="search" @submit=${(event: Event) => {
         event.preventDefault()
         void this.findStar(new FormData(event.target as HTMLFormElement).get('star')?.toString() ?? '')
       }}>
          <label class="caption" for="fm-find-star">Find a star</label>
          <input id="fm-find-star" name="star" type="search" data-fm="find-star" list="fm-graph-stars" placeholder="subject or old name" autocomplete="off"
            aria-describedby="fm-find-status" @input=${() => {
              this.finding = undefined
            }}>
          <datalist id="fm-graph-stars">${(payload?.nodes ?? []).filter((node) => node.kind === 'entity').map((node) => html`<option value=${node.label}></option>`)}</datalist>
          <button type="submit" class="quiet">Find</button>
          <span class="caption" id="fm-find-status" role="status" data-fm="find-status" data-found=${this.finding === undefined ? nothing : String(this.finding.found)}>${this.finding?.text ?? ''}</span>
        </form>`
     : nothing
 }
        ${this.view === 'nebula' && !this.fallback ? html`<button class="quiet" data-fm="graph-fit" title="Frame the whole graph again" @click=${() => this.mounted?.fit()}>⤢ Fit</button>` : nothing}
        <button class="quiet" aria-label="Refresh graph" title="Re-read the graph" @click=${() => this.refresh()}>↻ Refresh</button>
        <span class="caption" data-fm="graph-counts">${payload === undefined ? 'loading…' : graphCaption(payload)}</span>
        ${this.fallback ? html`<span class="caption">WebGL unavailable: showing the SVG tree</span>` : nothing}
        ${this.error === undefined ? nothing : html`<span class="caption" role="alert">${this.error}</span>`}
      </div>
      <div class="stage">
        ${
          this.view === 'nebula' && !this.fallback
            ? html`<div class="canvas" data-fm="nebula"></div>`
            : html`<div class="canvas"><fm-svg-tree .payload=${payload}
              @fm-select-node=${(event: CustomEvent<GraphNode>) => {
                void this.selectNode(event.detail)
              }}
              @fm-select-edge=${(event: CustomEvent<GraphEdge>) => {
                void this.selectEdge(event.detail)
              }}></fm-svg-tree></div>`
        }
        ${payload !== undefined && payload.nodes.length === 0 ? html`<p class="empty" style="position: absolute; inset: 30% 0 auto">No relations yet: facts appear here once something is remembered.</p>` : nothing}
        ${
          selection === undefined
            ? nothing
            : html`<aside class="panel panel--${selection.side}" data-fm="graph-selection" data-side=${selection.side} @fm-forgotten=${() => this.closeSelection()}>
          <strong data-fm="selection-title">${selection.title}</strong> <button class="quiet" aria-label="Close" @click=${() => this.closeSelection()}>✕</button>
          ${
            selection.entityKey == null
              ? nothing
              : html`<button class="quiet" data-fm="open-subject" @click=${() => {
                  if (selection.entityKey != null) this.app?.openSubject(selection.entityKey)
                }}>Rename, merge, aliases ›</button>`
          }
          <ul>${selection.facts.map((fact) => this.renderFact(fact, selection.timeZone))}</ul>
          ${
            selection.undrawn.length === 0
              ? nothing
              : html`<p class="caption" data-fm="selection-undrawn">Not drawn: ${countOf(selection.undrawn.length, 'more fact')}${this.scope === 'current' ? ' (contested ones show under All, with contested)' : ''}.</p>
            <ul data-fm="selection-undrawn-list">${selection.undrawn.map((fact) => this.renderFact(fact, selection.timeZone))}</ul>`
          }
        </aside>`
        }
      </div>`
  }
}

/**
 * @param x - the selected star's x in the canvas
 * @param width - the canvas's width
 * @returns the side away from the star: the panel (at most 45% wide) then never covers it
 */
function panelSide(x: number, width: number): 'left' | 'right' {
  return x > width / 2 ? 'left' : 'right'
}

function emptyPayload(view: GraphView, scope: GraphScope): GraphPayload {
  return {
    view,
    scope,
    center: null,
    nodes: [],
    edges: [],
    clusters: [],
    omitted: { nodes: 0, edges: 0, entities: 0, facts: 0 },
    limits: { nodes: 0, edges: 0, entities: 0 },
    generation: 0,
  }
}
