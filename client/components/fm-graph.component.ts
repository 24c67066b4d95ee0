/**
 * <fm-graph>: the graph tab. The nebula (3D, default) or the one-hop tree, current relations or all (contested
 * ones labelled); every time the tab opens it re-reads the projection, and a refresh button re-reads on demand.
 * three.js lives in a separate chunk loaded with import() the first time the nebula is drawn; without WebGL the
 * tab draws the SVG tree instead of a blank panel. Opening a node or an edge lists the facts behind it.
 */
import { css, html, LitElement, nothing, type PropertyValues } from 'lit'
import type { AppState } from '../app-state.ts'
import { callVerb } from '../api.ts'
import { EVIDENCE_LABEL, formatInstant, STATUS_LABEL } from '../format.ts'
import { baseStyles } from '../styles.ts'
import type { GraphEdge, GraphNode, GraphPayload, GraphScope, GraphView } from '../../src/graph-types.ts'
import type { FactView } from '../../src/wire-types.ts'

/** What the lazily loaded chunk exports. */
interface NebulaModule {
  webglAvailable(): boolean
  mountNebula(container: HTMLElement, payload: GraphPayload, handlers: {
    onHover(node: GraphNode | null): void
    onSelectNode(node: GraphNode): void
    onSelectEdge(edge: GraphEdge): void
  }): { update(payload: GraphPayload): void; setTheme(): void; pause(): void; resume(): void; dispose(): void }
}

/** The chunk's URL; the revision busts caches when a new build is served. */
const NEBULA_URL = `/api/fact-memory/assets/nebula.js?rev=${FM_NEBULA_REV}`

/** The selection panel's content. */
interface Selection {
  readonly title: string
  readonly facts: readonly FactView[]
  /** The store's display zone, read with the facts. */
  readonly timeZone: string
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
  }

  static override styles = [baseStyles, css`
    :host { display: grid; grid-template-rows: auto minmax(0, 1fr); min-height: 0; }
    .toolbar { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; padding: 8px 12px; border-bottom: 1px solid var(--dsw-alias-border-l1); }
    .seg button[aria-pressed='true'] { background: var(--dsw-alias-interactive-bg-active); font-weight: 600; }
    .stage { position: relative; min-height: 0; }
    .canvas { position: absolute; inset: 0; overflow: hidden; }
    .panel { position: absolute; right: 12px; top: 12px; bottom: 12px; width: min(340px, 45%); overflow: auto; padding: 12px;
      border: 1px solid var(--dsw-alias-border-l2); border-radius: 12px; background: var(--dsw-alias-bg-base); box-shadow: var(--dsw-shadow-lv2, none); }
    .panel li { padding: 6px 0; border-bottom: 1px solid var(--dsw-alias-border-l1); list-style: none; }
    .panel ul { padding: 0; margin: 8px 0 0; }
  `]

  declare app: AppState | undefined
  declare view: GraphView
  declare scope: GraphScope
  declare payload: GraphPayload | undefined
  declare fallback: boolean
  declare selection: Selection | undefined
  declare error: string | undefined
  private mounted: ReturnType<NebulaModule['mountNebula']> | undefined
  private center: string | undefined
  private visibility: IntersectionObserver | undefined

  constructor() {
    super()
    this.view = 'nebula'
    this.scope = 'current'
    this.payload = undefined
    this.fallback = false
    this.selection = undefined
    this.error = undefined
  }

  override connectedCallback(): void {
    super.connectedCallback()
    // Opening the tab always re-reads the projection: a cached map is never passed off as the current store.
    void this.load()
    this.visibility = new IntersectionObserver((entries) => {
      const visible = entries.some((entry) => entry.isIntersecting)
      if (visible) this.mounted?.resume()
      else this.mounted?.pause()
    })
    this.visibility.observe(this)
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback()
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
    this.error = undefined
    const body: Record<string, unknown> = { view: this.view, scope: this.scope }
    if (this.view === 'tree') {
      const center = this.center ?? await this.defaultCenter()
      if (center === undefined) {
        this.payload = emptyPayload(this.view, this.scope)
        return
      }
      body['center'] = center
    }
    const answer = await callVerb<GraphPayload>('graph', body)
    if (!answer.ok) {
      this.error = answer.message
      this.payload = emptyPayload(this.view, this.scope)
      return
    }
    this.payload = answer.data
  }

  /** The entity with the most relations, for a tree nobody asked a centre for. */
  private async defaultCenter(): Promise<string | undefined> {
    const answer = await callVerb<GraphPayload>('graph', { view: 'nebula', scope: this.scope })
    if (!answer.ok) return undefined
    const top = [...answer.data.nodes].filter((node) => node.kind === 'entity').sort((a, b) => b.degree - a.degree || (a.id < b.id ? -1 : 1))[0]
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
      const module = await import(/* @vite-ignore */ NEBULA_URL) as NebulaModule
      if (!module.webglAvailable()) {
        this.useFallback()
        return
      }
      this.mounted = module.mountNebula(container, payload, {
        // The nebula labels the hovered star itself.
        onHover: () => undefined,
        onSelectNode: (node) => { void this.selectNode(node) },
        onSelectEdge: (edge) => { void this.selectEdge(edge) },
      })
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
    this.mounted?.dispose()
    this.mounted = undefined
  }

  private setView(view: GraphView): void {
    if (view === 'nebula' && this.fallback) {
      this.app?.toast('WebGL is not available in this browser; showing the tree instead.', { tone: 'error' })
      return
    }
    this.view = view
    this.selection = undefined
    void this.load()
  }

  private setScope(scope: GraphScope): void {
    this.scope = scope
    void this.load()
  }

  private async selectNode(node: GraphNode): Promise<void> {
    if (node.kind === 'entity' && node.entityKey !== null) {
      const [answer, timeZone] = await Promise.all([
        callVerb<{ properties: { property: string; facts: FactView[] }[] }>('entity', { entityKey: node.entityKey }), this.zone(),
      ])
      const facts = answer.ok ? answer.data.properties.flatMap((group) => group.facts).filter((fact) => ['active', 'scheduled', 'conflict'].includes(fact.status)) : []
      this.selection = { title: `${node.label} · ${node.factCount} fact(s)`, facts, timeZone }
      if (this.view === 'tree') {
        this.center = node.entityKey
        void this.load()
      }
      return
    }
    const ids = (this.payload?.edges ?? []).filter((edge) => edge.target === node.id || edge.source === node.id).flatMap((edge) => edge.factIds)
    const [facts, timeZone] = await Promise.all([this.factsByIds(ids), this.zone()])
    this.selection = { title: `${node.label} · ${node.factCount} fact(s)`, facts, timeZone }
  }

  private async selectEdge(edge: GraphEdge): Promise<void> {
    const [facts, timeZone] = await Promise.all([this.factsByIds(edge.factIds), this.zone()])
    this.selection = { title: `${edge.label}${edge.contested ? ' (contested)' : ''}`, facts, timeZone }
  }

  private zone(): Promise<string> {
    return this.app?.displayZone() ?? Promise.resolve('')
  }

  private async factsByIds(ids: readonly number[]): Promise<FactView[]> {
    const answers = await Promise.all([...new Set(ids)].slice(0, 20).map((id) => callVerb<{ fact: FactView }>('fact', { id })))
    return answers.flatMap((answer) => (answer.ok ? [answer.data.fact] : []))
  }

  override render(): unknown {
    const payload = this.payload
    const selection = this.selection
    const omitted = payload?.omitted
    const left = omitted === undefined ? 0 : omitted.nodes + omitted.edges
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
        <button class="quiet" aria-label="Refresh graph" title="Re-read the graph" @click=${() => this.refresh()}>↻ Refresh</button>
        <span class="caption" data-fm="graph-counts">${payload === undefined ? 'loading…'
          : `${payload.nodes.length} nodes · ${payload.edges.length} edges${left > 0 ? ` · ${omitted?.nodes ?? 0} nodes and ${omitted?.edges ?? 0} edges left out` : ''}`}</span>
        ${this.fallback ? html`<span class="caption">WebGL unavailable: showing the SVG tree</span>` : nothing}
        ${this.error === undefined ? nothing : html`<span class="caption" role="alert">${this.error}</span>`}
      </div>
      <div class="stage">
        ${this.view === 'nebula' && !this.fallback
          ? html`<div class="canvas" data-fm="nebula"></div>`
          : html`<div class="canvas"><fm-svg-tree .payload=${payload}
              @fm-select-node=${(event: CustomEvent<GraphNode>) => { void this.selectNode(event.detail) }}
              @fm-select-edge=${(event: CustomEvent<GraphEdge>) => { void this.selectEdge(event.detail) }}></fm-svg-tree></div>`}
        ${payload !== undefined && payload.nodes.length === 0 ? html`<p class="empty" style="position: absolute; inset: 30% 0 auto">No relations yet: facts appear here once something is remembered.</p>` : nothing}
        ${selection === undefined ? nothing : html`<aside class="panel" data-fm="graph-selection">
          <strong>${selection.title}</strong> <button class="quiet" aria-label="Close" @click=${() => { this.selection = undefined }}>✕</button>
          <ul>${selection.facts.map((fact) => html`<li>
            <button class="quiet" @click=${() => this.app?.open('library', fact.id)}>${fact.subject} · ${fact.property}: <strong>${fact.value}</strong></button>
            <div class="caption">${STATUS_LABEL[fact.status] ?? fact.status} · ${EVIDENCE_LABEL[fact.evidence] ?? fact.evidence} · ${formatInstant(fact.validFrom, selection.timeZone)}</div></li>`)}</ul>
        </aside>`}
      </div>`
  }
}

function emptyPayload(view: GraphView, scope: GraphScope): GraphPayload {
  return { view, scope, center: null, nodes: [], edges: [], omitted: { nodes: 0, edges: 0, entities: 0, facts: 0 }, limits: { nodes: 0, edges: 0, entities: 0 }, generation: 0 }
}
