/**
 * Which labels the nebula asks for, most important first: the hovered star and edge, the selected star and its
 * neighbours (and its contested edges), the unlinked group's name, each linked cluster's largest entity, every hub, every contested relation, and, once zoomed in past the framing,
 * the other stars by rank. The overlay then places those that fit.
 */
import { MathUtils, Vector3, type PerspectiveCamera } from 'three'
import type { GraphEdge, GraphNode } from '../../src/graph-types.ts'
import { edgeWords, glanceLabel } from '../format.ts'
import type { GroupLabel } from './cluster-identity.ts'
import type { WantedLabel } from './labels.ts'
import type { NebulaScene } from './scene.ts'
import { nodeRadius } from './scene-looks.ts'
import { describeEdge, plural } from './words.ts'

/** What the plan reads from the view. */
export interface LabelPlanInput {
  readonly scene: NebulaScene
  readonly camera: PerspectiveCamera
  /** The orbit target. */
  readonly target: Vector3
  /** Nodes by rank, most important first. */
  readonly ranked: readonly GraphNode[]
  /** Each linked cluster's largest entity, always asked for right after the hovered and selected stars. */
  readonly largest: readonly GraphNode[]
  /** The neutral group's label, at its members' centre: it is named as a group, never after a member. */
  readonly groups: readonly GroupLabel[]
  readonly hovered: GraphNode | null
  readonly hoveredEdge: GraphEdge | null
  /** The camera distance that frames the graph. */
  readonly framedDistance: number
  /** The overlay's size in pixels. */
  readonly width: number
  readonly height: number
}

/**
 * @param input - the scene, camera, ranking and pointer state
 * @returns the labels wanted, in order of importance (a key may repeat; the first wins)
 */
export function planLabels(input: LabelPlanInput): WantedLabel[] {
  const { scene, camera, ranked, hovered, hoveredEdge, width, height } = input
  const focus = scene.focused
  const wanted: WantedLabel[] = []
  const perPixel = (2 * Math.tan(MathUtils.degToRad(camera.fov / 2))) / Math.max(1, height)
  const nodeLabel = (node: GraphNode, strong: boolean): void => {
    const at = scene.positionOf(node.id)
    if (at === undefined) return
    const point = new Vector3(at.x, at.y, at.z)
    const lift = 3 + nodeRadius(node) / Math.max(1e-6, perPixel * point.distanceTo(camera.position))
    const text =
      node.id === hovered?.id ? `${glanceLabel(node)} · ${plural(node.factCount, 'fact')}` : glanceLabel(node)
    wanted.push({
      key: `n:${node.id}`,
      text,
      at: point,
      lift,
      strong,
      warn: false,
      dim: scene.nodeState(node.id) === 'dimmed',
    })
  }
  const edgeLabel = (edge: GraphEdge, text: string): void => {
    const a = scene.positionOf(edge.source)
    const b = scene.positionOf(edge.target)
    if (a === undefined || b === undefined) return
    const at = new Vector3((a.x + b.x) / 2, (a.y + b.y) / 2, (a.z + b.z) / 2)
    const ends = { from: new Vector3(a.x, a.y, a.z), to: new Vector3(b.x, b.y, b.z) }
    wanted.push({ key: `e:${edge.id}`, text, at, lift: 0, strong: true, warn: edge.contested, dim: false, edge: ends })
  }
  if (hovered !== null) nodeLabel(hovered, true)
  if (hoveredEdge !== null) edgeLabel(hoveredEdge, describeEdge(hoveredEdge))
  if (focus !== null) {
    const near = scene.neighbours(focus)
    for (const node of ranked) if (node.id === focus || near.has(node.id)) nodeLabel(node, node.id === focus)
    scene.forEachEdge((edge, state) => {
      if (state === 'focus' && edge.contested && edge.id !== hoveredEdge?.id) edgeLabel(edge, 'contested')
    })
  }
  // Contested relations are named next to their edges before any star's name takes the room, so they are seen
  // without hovering.
  scene.forEachEdge((edge) => {
    if (edge.contested) edgeLabel(edge, `${edgeWords(edge)} · contested`)
  })
  // The unlinked group is named above the topmost star of its bulk on screen (a member pulled out toward a value it
  // shares with another cluster does not count), so the name reads as the group's, never a member's.
  for (const group of input.groups) {
    const points = group.members.flatMap((id) => {
      const at = scene.positionOf(id)
      if (at === undefined) return []
      const world = new Vector3(at.x, at.y, at.z)
      const screen = world.clone().project(camera)
      return [{ world, x: screen.x * width, y: screen.y * height }]
    })
    if (points.length === 0) continue
    const cx = points.reduce((sum, p) => sum + p.x, 0) / points.length
    const cy = points.reduce((sum, p) => sum + p.y, 0) / points.length
    const distances = points.map((p) => Math.hypot(p.x - cx, p.y - cy)).sort((a, b) => a - b)
    const reach = 1.5 * (distances[Math.floor(distances.length / 2)] ?? 0) + 1e-6
    const bulk = points.filter((p) => Math.hypot(p.x - cx, p.y - cy) <= reach)
    const top = bulk.reduce((best, p) => (p.y > best.y ? p : best), bulk[0] ?? (points[0] as (typeof points)[number]))
    wanted.push({ key: group.key, text: group.text, at: top.world, lift: 10, strong: false, warn: false, dim: false })
  }
  for (const node of input.largest) nodeLabel(node, true)
  for (const node of ranked) if (node.hub) nodeLabel(node, true)
  const zoomedIn = camera.position.distanceTo(input.target) < input.framedDistance * 0.7
  if (zoomedIn) {
    const budget = Math.max(12, Math.min(80, Math.round((width * height) / 12000)))
    for (const node of ranked.slice(0, budget)) nodeLabel(node, false)
  }
  return wanted
}
