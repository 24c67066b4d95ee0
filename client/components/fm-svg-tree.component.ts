/**
 * <fm-svg-tree>: the one-hop tree as SVG: the centre entity in the middle, its neighbours on a ring, each edge
 * labelled by its property; contested edges dashed and marked. Used for the tree view, as the graph's fallback when
 * WebGL is unavailable, and as the settings card's preview. Emits fm-select-node / fm-select-edge.
 */
import { css, html, LitElement, nothing, svg } from 'lit'
import { baseStyles } from '../styles.ts'
import type { GraphEdge, GraphNode, GraphPayload } from '../../src/graph-types.ts'
import { treeLayout } from '../tree-layout.ts'
import { countOf } from '../format.ts'

/** The SVG tree. */
export class FmSvgTree extends LitElement {
  static override properties = { payload: { attribute: false }, compact: { type: Boolean } }

  static override styles = [baseStyles, css`
    :host { display: block; width: 100%; height: 100%; }
    svg { width: 100%; height: 100%; display: block; }
    .edge { stroke: var(--dsw-alias-border-l3); stroke-width: 1.5; }
    .edge.contested { stroke: var(--dsw-alias-state-warn-primary, var(--dsw-alias-label-secondary)); stroke-dasharray: 5 4; }
    .edge.scheduled { stroke-dasharray: 2 4; }
    .edge-label { fill: var(--dsw-alias-label-tertiary); font-size: 11px; }
    .node circle { fill: var(--dsw-alias-bg-layer-2); stroke: var(--dsw-alias-label-secondary); stroke-width: 1.5; cursor: pointer; }
    .node.entity circle { fill: var(--dsw-alias-bg-layer-3); stroke: var(--dsw-alias-label-primary); }
    .node.center circle { stroke-width: 3; }
    .node text { fill: var(--dsw-alias-label-primary); font-size: 12px; pointer-events: none; }
    .hit { stroke: transparent; stroke-width: 12; cursor: pointer; }
  `]

  declare payload: GraphPayload | undefined
  declare compact: boolean

  constructor() {
    super()
    this.payload = undefined
    this.compact = false
  }

  private emit(name: 'fm-select-node' | 'fm-select-edge', detail: GraphNode | GraphEdge): void {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }))
  }

  override render(): unknown {
    const payload = this.payload
    if (payload === undefined || payload.nodes.length === 0) return html`<p class="empty">Nothing to draw yet.</p>`
    const width = this.compact ? 360 : 800
    const height = this.compact ? 240 : 560
    const layout = treeLayout(payload, width, height)
    const centerId = payload.center?.id
    const short = (text: string): string => (text.length > 24 ? `${text.slice(0, 23)}…` : text)
    return html`<svg viewBox="0 0 ${width} ${height}" role="img" aria-label="One-hop graph" data-fm="svg-tree">
      ${layout.edges.map(({ edge, x1, y1, x2, y2 }) => svg`
        <g @click=${() => this.emit('fm-select-edge', edge)}>
          <line class="edge ${edge.contested ? 'contested' : ''} ${edge.scheduled ? 'scheduled' : ''}" x1=${x1} y1=${y1} x2=${x2} y2=${y2}></line>
          <line class="hit" x1=${x1} y1=${y1} x2=${x2} y2=${y2}><title>${edge.label}${edge.contested ? ' (contested)' : ''} · ${countOf(edge.factIds.length, 'fact')}</title></line>
          ${this.compact ? nothing : svg`<text class="edge-label" x=${(x1 + x2) / 2} y=${(y1 + y2) / 2 - 4} text-anchor="middle">${short(edge.label)}${edge.contested ? ' ⚠' : ''}</text>`}
        </g>`)}
      ${layout.nodes.map(({ node, x, y }) => svg`
        <g class="node ${node.kind} ${node.id === centerId ? 'center' : ''}" @click=${() => this.emit('fm-select-node', node)}>
          <circle cx=${x} cy=${y} r=${node.id === centerId ? 14 : 9}><title>${node.label} · ${countOf(node.factCount, 'fact')}</title></circle>
          <text x=${x} y=${y + (node.id === centerId ? 30 : 24)} text-anchor="middle">${short(node.label)}</text>
        </g>`)}
    </svg>`
  }
}
