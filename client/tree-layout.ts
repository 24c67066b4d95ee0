/** Pure geometry of the one-hop tree (the SVG tree view and the no-WebGL fallback); no DOM. */
import type { GraphEdge, GraphNode, GraphPayload } from '../src/graph-types.ts'

/** A node placed on the drawing. */
export interface PlacedNode {
  readonly node: GraphNode
  readonly x: number
  readonly y: number
}

/** An edge between two placed nodes, from source to target, with where its label goes. */
export interface PlacedEdge {
  readonly edge: GraphEdge
  readonly x1: number
  readonly y1: number
  readonly x2: number
  readonly y2: number
  /** The label's centre: along the edge, moved along it until it clears the labels placed before it. */
  readonly labelX: number
  readonly labelY: number
  /** False when no stop along the edge clears them: the label is left to the edge's tooltip. */
  readonly labelShown: boolean
}

/** The label box the layout keeps apart: about 6.6 px a character at 11 px, 14 px high, plus a small gap. */
const LABEL_CHAR_PX = 6.6
const LABEL_HEIGHT_PX = 14
const LABEL_GAP_PX = 2
/** Where along an edge (from its source) a label may sit, tried in this order. */
const LABEL_STOPS = [0.5, 0.36, 0.64, 0.26, 0.74, 0.18, 0.82]

/**
 * Lay a one-hop tree out on a circle: the centre (the payload's, else the best-connected node) in the middle, the
 * others evenly on a ring in id order, so the same payload always draws the same picture.
 * @param payload - the graph projection.
 * @param width - drawing width.
 * @param height - drawing height.
 * @returns placed nodes and the edges whose two ends are both placed, each label at the first stop along its edge
 *   that clears the labels before it (or not shown, when none does).
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
  const boxes: { x: number; y: number; w: number }[] = []
  const clear = (x: number, y: number, w: number): boolean => boxes.every((box) =>
    Math.abs(box.x - x) >= (box.w + w) / 2 + LABEL_GAP_PX || Math.abs(box.y - y) >= LABEL_HEIGHT_PX + LABEL_GAP_PX)
  const edges = payload.edges.flatMap((edge) => {
    const a = placed.get(edge.source)
    const b = placed.get(edge.target)
    if (a === undefined || b === undefined) return []
    const w = Math.min(24, edge.label.length) * LABEL_CHAR_PX
    const at = (t: number): [number, number] => [a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t]
    const stop = LABEL_STOPS.find((t) => clear(...at(t), w))
    const [labelX, labelY] = at(stop ?? 0.5)
    if (stop !== undefined) boxes.push({ x: labelX, y: labelY, w })
    return [{ edge, x1: a.x, y1: a.y, x2: b.x, y2: b.y, labelX, labelY, labelShown: stop !== undefined }]
  })
  return { nodes: [...placed.values()], edges }
}
