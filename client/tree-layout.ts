/** Pure geometry of the one-hop tree (the SVG tree view and the no-WebGL fallback); no DOM. */
import type { GraphEdge, GraphNode, GraphPayload } from '../src/graph-types.ts'

/** A node placed on the drawing. */
export interface PlacedNode {
  readonly node: GraphNode
  readonly x: number
  readonly y: number
}

/** An edge between two placed nodes. */
export interface PlacedEdge {
  readonly edge: GraphEdge
  readonly x1: number
  readonly y1: number
  readonly x2: number
  readonly y2: number
}

/**
 * Lay a one-hop tree out on a circle: the centre (the payload's, else the best-connected node) in the middle, the
 * others evenly on a ring in id order, so the same payload always draws the same picture.
 * @param payload - the graph projection.
 * @param width - drawing width.
 * @param height - drawing height.
 * @returns placed nodes and the edges whose two ends are both placed.
 */
export function treeLayout(payload: GraphPayload, width: number, height: number): { nodes: PlacedNode[]; edges: PlacedEdge[] } {
  const center = payload.center ?? [...payload.nodes].sort((a, b) => b.degree - a.degree || (a.id < b.id ? -1 : 1))[0]
  const cx = width / 2
  const cy = height / 2
  const radius = Math.max(40, Math.min(width, height) / 2 - 60)
  const others = payload.nodes.filter((node) => node.id !== center?.id).sort((a, b) => (a.id < b.id ? -1 : 1))
  const placed = new Map<string, PlacedNode>()
  if (center !== undefined) placed.set(center.id, { node: center, x: cx, y: cy })
  others.forEach((node, index) => {
    const angle = (index / Math.max(1, others.length)) * Math.PI * 2 - Math.PI / 2
    placed.set(node.id, { node, x: cx + radius * Math.cos(angle), y: cy + radius * Math.sin(angle) })
  })
  const edges = payload.edges.flatMap((edge) => {
    const a = placed.get(edge.source)
    const b = placed.get(edge.target)
    return a === undefined || b === undefined ? [] : [{ edge, x1: a.x, y1: a.y, x2: b.x, y2: b.y }]
  })
  return { nodes: [...placed.values()], edges }
}
