/**
 * <fm-svg-tree>: the one-hop tree as SVG: the centre entity in the middle, its neighbours on a ring, each edge an
 * arrow from subject to value (so "checkout-web → depends on → billing-api" reads the right way) labelled by its
 * property and qualifiers, labels kept apart and off every edge (see tree-layout.ts), a sensitive value withheld; contested edges dashed and marked. Used for the tree view, as the graph's fallback when
 * WebGL is unavailable. Emits fm-select-node / fm-select-edge.
 */
import { css, html, LitElement, nothing, svg } from 'lit'
import { baseStyles } from '../styles.ts'
import type { GraphEdge, GraphNode, GraphPayload } from '../../src/graph-types.ts'
import { treeLayout } from '../tree-layout.ts'
import { countOf, edgeWords, glanceLabel } from '../format.ts'

/** The SVG tree. */
export class FmSvgTree extends LitElement {
  static override properties = { payload: { attribute: false }, compact: { type: Boolean } }

  static override styles = [
    baseStyles,
    css`
    :host { display: block; width: 100%; height: 100%; }
    svg { width: 100%; height: 100%; display: block; }
    .edge { stroke: var(--dsw-alias-border-l3); stroke-width: 1.5; }
    .edge.contested { stroke: var(--dsw-alias-state-warn-primary, var(--dsw-alias-label-secondary)); stroke-dasharray: 5 4; }
    .edge.scheduled { stroke-dasharray: 2 4; }
    .edge-label { fill: var(--dsw-alias-label-secondary); font-size: 11px; paint-order: stroke; stroke: var(--dsw-alias-bg-base); stroke-width: 3px; }
    .arrow { fill: var(--dsw-alias-border-l3); }
    .arrow.contested { fill: var(--dsw-alias-state-warn-primary, var(--dsw-alias-label-secondary)); }
    .node circle { fill: var(--dsw-alias-bg-layer-2); stroke: var(--dsw-alias-label-secondary); stroke-width: 1.5; cursor: pointer; }
    .node.entity circle { fill: var(--dsw-alias-bg-layer-3); stroke: var(--dsw-alias-label-primary); }
    .node.center circle { stroke-width: 3; }
    .node text { fill: var(--dsw-alias-label-primary); font-size: 12px; pointer-events: none; }
    .hit { stroke: transparent; stroke-width: 12; cursor: pointer; }
  `,
  ]

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
    const radius = (id: string): number => layout.nodes.find((placed) => placed.node.id === id)?.r ?? 9
    // Each edge stops short of its target's circle, where its arrowhead sits.
    const end = (x1: number, y1: number, x2: number, y2: number, id: string): [number, number] => {
      const length = Math.hypot(x2 - x1, y2 - y1) || 1
      const back = radius(id) + 3
      return [x2 - ((x2 - x1) / length) * back, y2 - ((y2 - y1) / length) * back]
    }
    return html`<svg viewBox="0 0 ${width} ${height}" role="img" aria-label="One-hop graph" data-fm="svg-tree">
      <defs>
        <marker id="fm-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path class="arrow" d="M0,0 L10,5 L0,10 z"></path></marker>
        <marker id="fm-arrow-contested" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path class="arrow contested" d="M0,0 L10,5 L0,10 z"></path></marker>
      </defs>
      ${layout.edges.map(({ edge, x1, y1, x2, y2, labelText, labelX, labelY, labelShown }) => {
        const [ex, ey] = end(x1, y1, x2, y2, edge.target)
        return svg`
        <g @click=${() => this.emit('fm-select-edge', edge)} data-fm="tree-edge" data-source=${edge.source} data-target=${edge.target}>
          <line class="edge ${edge.contested ? 'contested' : ''} ${edge.scheduled ? 'scheduled' : ''}" x1=${x1} y1=${y1} x2=${ex} y2=${ey}
            marker-end=${edge.contested ? 'url(#fm-arrow-contested)' : 'url(#fm-arrow)'}></line>
          <line class="hit" x1=${x1} y1=${y1} x2=${x2} y2=${y2}><title>${edgeWords(edge)}${edge.contested ? ' (contested)' : ''} · ${countOf(edge.factIds.length, 'fact')}</title></line>
          ${this.compact || !labelShown ? nothing : svg`<text class="edge-label" data-fm="tree-edge-label" x=${labelX} y=${labelY + 4} text-anchor="middle">${labelText}${edge.contested ? ' ⚠' : ''}</text>`}
        </g>`
      })}
      ${layout.nodes.map(
        ({ node, x, y, r, labelText, labelX, labelY, labelAnchor, labelShown }) => svg`
        <g class="node ${node.kind} ${node.id === centerId ? 'center' : ''}" @click=${() => this.emit('fm-select-node', node)}>
          <circle cx=${x} cy=${y} r=${r}><title>${glanceLabel(node)} · ${countOf(node.factCount, 'fact')}</title></circle>
          ${labelShown ? svg`<text data-fm="tree-node-label" x=${labelX} y=${labelY + 4} text-anchor=${labelAnchor}>${labelText}</text>` : nothing}
        </g>`,
      )}
    </svg>`
  }
}
