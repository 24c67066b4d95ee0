/** Pure geometry of the one-hop tree (the SVG tree view and the no-WebGL fallback); no DOM. */
import type { GraphEdge, GraphNode, GraphPayload } from '../src/graph-types.ts'
import { edgeWords, glanceLabel } from './format.ts'

/** A label's box on the drawing, in the drawing's units. */
export interface LabelBox {
  readonly left: number
  readonly top: number
  readonly right: number
  readonly bottom: number
}

/** A node placed on the drawing, with its label's text and place. */
export interface PlacedNode {
  readonly node: GraphNode
  readonly x: number
  readonly y: number
  /** The node's circle radius. */
  readonly r: number
  /** What its label says (a sensitive value withheld, long names cut). */
  readonly labelText: string
  /** The label's anchor point and text anchor, as SVG draws it (the baseline is the box's middle plus 4). */
  readonly labelX: number
  readonly labelY: number
  readonly labelAnchor: 'start' | 'middle' | 'end'
  readonly labelBox: LabelBox
  /** False when no place near the node is clear (a crowded ring): its name is left to the node's tooltip. */
  readonly labelShown: boolean
}

/** An edge between two placed nodes, from source to target, with where its label goes. */
export interface PlacedEdge {
  readonly edge: GraphEdge
  readonly x1: number
  readonly y1: number
  readonly x2: number
  readonly y2: number
  /** What its label says: the property and its qualifiers, cut when long. */
  readonly labelText: string
  /** The label's centre: on the edge, at the first stop along it that no other edge, label or circle is in the way of. */
  readonly labelX: number
  readonly labelY: number
  readonly labelBox: LabelBox
  /** False when no stop along the edge is clear: the label is left to the edge's tooltip. */
  readonly labelShown: boolean
}

/** Label sizes: about 0.6 em a Latin character and 1 em a CJK one; 11 px edge labels, 12 px node labels. */
const EDGE_FONT_PX = 11
const NODE_FONT_PX = 12
const LABEL_HEIGHT_PX = 14
const LABEL_GAP_PX = 2
/** Longest label, in characters, before it is cut with an ellipsis. */
const LABEL_MAX_CHARS = 24
/** Where along an edge (from its source) a label may sit, tried in this order. */
const LABEL_STOPS = [0.5, 0.36, 0.64, 0.26, 0.74, 0.18, 0.82]
/** Circle radii: the centre, and every other node. */
const CENTER_R = 14
const NODE_R = 9

/**
 * @param text - a label
 * @returns the text, cut to LABEL_MAX_CHARS with an ellipsis
 */
function cut(text: string): string {
  const chars = [...text]
  return chars.length > LABEL_MAX_CHARS ? `${chars.slice(0, LABEL_MAX_CHARS - 1).join('')}…` : text
}

/**
 * @param text - a label as drawn
 * @param px - its font size
 * @returns its estimated width: CJK and other wide characters 1 em, the rest 0.6 em
 */
export function textWidth(text: string, px: number): number {
  let width = 0
  for (const char of text) width += (char.codePointAt(0) ?? 0) >= 0x2e80 ? px : px * 0.6
  return width
}

/**
 * Whether a segment passes through a box (grown by `pad`): Liang–Barsky clipping.
 * @returns true when some part of the segment lies inside the box
 */
export function segmentCrossesBox(x1: number, y1: number, x2: number, y2: number, box: LabelBox, pad = 0): boolean {
  let t0 = 0
  let t1 = 1
  const dx = x2 - x1
  const dy = y2 - y1
  const sides: [number, number][] = [
    [-dx, x1 - (box.left - pad)],
    [dx, box.right + pad - x1],
    [-dy, y1 - (box.top - pad)],
    [dy, box.bottom + pad - y1],
  ]
  for (const [p, q] of sides) {
    if (p === 0) {
      if (q < 0) return false
      continue
    }
    const t = q / p
    if (p < 0) {
      if (t > t1) return false
      if (t > t0) t0 = t
    } else {
      if (t < t0) return false
      if (t < t1) t1 = t
    }
  }
  return t0 < t1
}

/** Whether two boxes overlap, with the label gap between them. */
function boxesMeet(a: LabelBox, b: LabelBox): boolean {
  return (
    a.left < b.right + LABEL_GAP_PX &&
    b.left < a.right + LABEL_GAP_PX &&
    a.top < b.bottom + LABEL_GAP_PX &&
    b.top < a.bottom + LABEL_GAP_PX
  )
}

/** Whether a box covers some of a circle. */
function boxMeetsCircle(box: LabelBox, x: number, y: number, r: number): boolean {
  const nx = Math.max(box.left, Math.min(x, box.right))
  const ny = Math.max(box.top, Math.min(y, box.bottom))
  return (x - nx) ** 2 + (y - ny) ** 2 < r * r
}

/**
 * Lay a one-hop tree out on a circle: the centre (the payload's, else the best-connected node) in the middle, the
 * others evenly on a ring in id order, so the same payload always draws the same picture. No edge crosses a label:
 * - a ring node's label sits outside the ring, on the far side of its node from the centre (every edge of a one-hop
 *   tree runs from the centre to the ring, so nothing crosses there), else inside a gap beside it;
 * - the centre's label sits in the gap between two edges nearest the centre that holds it, else above the ring;
 * - a node label with no clear place is not shown (its tooltip names it);
 * - an edge's label sits on its own edge (drawn with a halo that breaks the line), at the first stop along it that
 *   no other edge crosses and no other label or circle covers; with none, it is left to the edge's tooltip.
 * @param payload - the graph projection.
 * @param width - drawing width.
 * @param height - drawing height.
 * @returns placed nodes with their labels, and the edges whose two ends are both placed.
 */
export function treeLayout(
  payload: GraphPayload,
  width: number,
  height: number,
): { nodes: PlacedNode[]; edges: PlacedEdge[] } {
  const center = payload.center ?? [...payload.nodes].sort((a, b) => b.degree - a.degree || (a.id < b.id ? -1 : 1))[0]
  const cx = width / 2
  const cy = height / 2
  const radius = Math.max(40, Math.min(width, height) / 2 - 60)
  const others = payload.nodes.filter((node) => node.id !== center?.id).sort((a, b) => (a.id < b.id ? -1 : 1))
  const spots = new Map<string, { node: GraphNode; x: number; y: number; r: number }>()
  if (center !== undefined) spots.set(center.id, { node: center, x: cx, y: cy, r: CENTER_R })
  others.forEach((node, index) => {
    const angle = (index / Math.max(1, others.length)) * Math.PI * 2 - Math.PI / 2
    spots.set(node.id, { node, x: cx + radius * Math.cos(angle), y: cy + radius * Math.sin(angle), r: NODE_R })
  })
  const segments = payload.edges.flatMap((edge) => {
    const a = spots.get(edge.source)
    const b = spots.get(edge.target)
    return a === undefined || b === undefined ? [] : [{ edge, a, b }]
  })
  const boxes: LabelBox[] = []
  const inside = (box: LabelBox): boolean => box.left >= 0 && box.top >= 0 && box.right <= width && box.bottom <= height
  const clear = (box: LabelBox, own?: GraphEdge): boolean =>
    inside(box) &&
    !boxes.some((other) => boxesMeet(box, other)) &&
    ![...spots.values()].some((spot) => boxMeetsCircle(box, spot.x, spot.y, spot.r + 1)) &&
    !segments.some(({ edge, a, b }) => edge !== own && segmentCrossesBox(a.x, a.y, b.x, b.y, box, 1))
  const boxAt = (x: number, y: number, w: number, anchor: 'start' | 'middle' | 'end'): LabelBox => {
    const left = anchor === 'start' ? x : anchor === 'end' ? x - w : x - w / 2
    return { left, top: y - LABEL_HEIGHT_PX / 2, right: left + w, bottom: y + LABEL_HEIGHT_PX / 2 }
  }

  const nodes: PlacedNode[] = []
  const placeNode = (
    spot: { node: GraphNode; x: number; y: number; r: number },
    candidates: readonly [number, number, 'start' | 'middle' | 'end'][],
  ): void => {
    const text = cut(glanceLabel(spot.node))
    const w = textWidth(text, NODE_FONT_PX) + 4
    const found = candidates.find(([cx2, cy2, a]) => clear(boxAt(cx2, cy2, w, a)))
    const [x, y, anchor] = found ?? candidates[0] ?? [spot.x, spot.y + spot.r + 12, 'middle']
    const labelBox = boxAt(x, y, w, anchor)
    if (found !== undefined) boxes.push(labelBox)
    nodes.push({
      node: spot.node,
      x: spot.x,
      y: spot.y,
      r: spot.r,
      labelText: text,
      labelX: x,
      labelY: y,
      labelAnchor: anchor,
      labelBox,
      labelShown: found !== undefined,
    })
  }
  const centreSpot = center === undefined ? undefined : spots.get(center.id)
  if (centreSpot !== undefined) {
    // The centre's label: along the middle of each gap between neighbouring edges, nearest the centre first.
    const angles = [...spots.values()]
      .filter((spot) => spot !== centreSpot)
      .map((spot) => Math.atan2(spot.y - cy, spot.x - cx))
      .sort((p, q) => p - q)
    const bisectors =
      angles.length === 0
        ? [Math.PI / 2]
        : angles.map((angle, i) => {
            const next = angles[(i + 1) % angles.length] ?? angle
            const span = i + 1 < angles.length ? next - angle : next + Math.PI * 2 - angle
            return angle + (angles.length === 1 ? Math.PI : span / 2)
          })
    const candidates: [number, number, 'start' | 'middle' | 'end'][] = []
    for (let d = CENTER_R + 10; d <= radius; d += 4) {
      for (const angle of bisectors) {
        const ux = Math.cos(angle)
        const uy = Math.sin(angle)
        const anchor = Math.abs(ux) < 0.3 ? 'middle' : ux > 0 ? 'start' : 'end'
        candidates.push([cx + ux * d, cy + uy * d, anchor])
      }
    }
    // A ring too dense for any gap: above the ring, at the top of the drawing, where no edge runs.
    candidates.push([cx, LABEL_HEIGHT_PX / 2 + 2, 'middle'])
    placeNode(centreSpot, candidates)
  }
  for (const spot of spots.values()) {
    if (spot === centreSpot) continue
    const ux = (spot.x - cx) / (Math.hypot(spot.x - cx, spot.y - cy) || 1)
    const uy = (spot.y - cy) / (Math.hypot(spot.x - cx, spot.y - cy) || 1)
    const out = spot.r + 6
    const anchor = Math.abs(ux) < 0.3 ? 'middle' : ux > 0 ? 'start' : 'end'
    const candidates: [number, number, 'start' | 'middle' | 'end'][] = [
      [spot.x + ux * out, spot.y + uy * (out + (anchor === 'middle' ? 6 : 0)), anchor],
      [spot.x, spot.y + spot.r + 12, 'middle'],
      [spot.x, spot.y - spot.r - 12, 'middle'],
      [spot.x + spot.r + 6, spot.y, 'start'],
      [spot.x - spot.r - 6, spot.y, 'end'],
    ]
    placeNode(spot, candidates)
  }

  const edges = segments.map(({ edge, a, b }) => {
    const text = cut(edgeWords(edge))
    const w = textWidth(text, EDGE_FONT_PX) + 4
    const at = (t: number): [number, number] => [a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t]
    const stop = LABEL_STOPS.find((t) => clear(boxAt(...at(t), w, 'middle'), edge))
    const [labelX, labelY] = at(stop ?? 0.5)
    const labelBox = boxAt(labelX, labelY, w, 'middle')
    if (stop !== undefined) boxes.push(labelBox)
    return {
      edge,
      x1: a.x,
      y1: a.y,
      x2: b.x,
      y2: b.y,
      labelText: text,
      labelX,
      labelY,
      labelBox,
      labelShown: stop !== undefined,
    }
  })
  return { nodes, edges }
}
