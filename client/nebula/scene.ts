/**
 * The nebula as a pure three.js scene object: a starfield, one glowing node per graph node and one line per edge,
 * kept in step with a GraphPayload by a keyed data join. Geometries and materials come from value-keyed,
 * reference-counted caches and are disposed when their last user goes, or on `dispose()`. Contested edges are
 * dashed in the warning colour, scheduled edges faint. No renderer and no DOM, so it runs in Node.
 */
import {
  AdditiveBlending,
  BufferGeometry,
  Color,
  DataTexture,
  Float32BufferAttribute,
  Group,
  Line,
  LineBasicMaterial,
  LineDashedMaterial,
  LinearFilter,
  Mesh,
  MeshBasicMaterial,
  NormalBlending,
  Points,
  PointsMaterial,
  RGBAFormat,
  Scene,
  SphereGeometry,
  Sprite,
  SpriteMaterial,
  SRGBColorSpace,
  type Object3D,
} from 'three'
import type { GraphEdge, GraphNode, GraphPayload } from '../../src/graph-types.ts'
import { hashString, seededRandom, type Positions, type Vec3 } from './layout.ts'

/** Colours of the scene, as CSS colour strings three.js parses (`#rrggbb`, `rgb(…)`, `hsl(…)`). */
export interface NebulaPalette {
  readonly background: string
  /** Confirmed and scheduled edges. */
  readonly edge: string
  readonly star: string
  /** Contested edges. */
  readonly contested: string
  /** Cluster colours; cluster `c` uses entry `c % clusters.length`. Must not be empty. */
  readonly clusters: readonly string[]
}

/** How an edge is drawn: contested wins over scheduled. */
export type EdgeKind = 'confirmed' | 'contested' | 'scheduled'
/** A node's part in the current highlight. */
export type NodeState = 'normal' | 'focus' | 'neighbour' | 'dimmed'
/** An edge's part in the current highlight. */
export type EdgeState = 'normal' | 'focus' | 'dimmed'

/** Ids touched by one `sync`, per kind of change. */
export interface JoinReport {
  readonly added: readonly string[]
  readonly updated: readonly string[]
  readonly removed: readonly string[]
}

/** What one `sync` changed. */
export interface SyncReport {
  readonly nodes: JoinReport
  readonly edges: JoinReport
}

/** Construction options. */
export interface NebulaSceneOptions {
  readonly palette: NebulaPalette
  /** Stars in the background. Default 1500. */
  readonly stars?: number
  /** Inner radius of the star shell. Default 6000. */
  readonly starRadius?: number
}

interface NodeLook {
  readonly core: MeshBasicMaterial
  readonly coreDim: MeshBasicMaterial
  readonly glow: SpriteMaterial
  readonly glowDim: SpriteMaterial
}

type EdgeMaterial = LineBasicMaterial | LineDashedMaterial
type EdgeLook = Readonly<Record<EdgeState, EdgeMaterial>>

interface NodeEntry {
  node: GraphNode
  readonly group: Group
  readonly core: Mesh<SphereGeometry, MeshBasicMaterial>
  readonly glow: Sprite
  geometryKey: string
  lookKey: string
  radius: number
  state: NodeState
}

interface EdgeEntry {
  edge: GraphEdge
  readonly line: Line<BufferGeometry, EdgeMaterial>
  kind: EdgeKind
  state: EdgeState
}

const EDGE_OPACITY: Readonly<Record<EdgeKind, Readonly<Record<EdgeState, number>>>> = {
  confirmed: { normal: 0.35, focus: 0.95, dimmed: 0.05 },
  contested: { normal: 0.85, focus: 1, dimmed: 0.15 },
  scheduled: { normal: 0.12, focus: 0.45, dimmed: 0.03 },
}
const GLOW_SCALE = 5
const FOCUS_SCALE = 1.35

/** A cache of disposable values keyed by value, counting users; the last release disposes. */
class RefCache<V> {
  readonly #entries = new Map<string, { readonly value: V; refs: number }>()
  readonly #dispose: (value: V) => void

  constructor(dispose: (value: V) => void) {
    this.#dispose = dispose
  }

  get size(): number {
    return this.#entries.size
  }

  acquire(key: string, create: () => V): V {
    const entry = this.#entries.get(key) ?? { value: create(), refs: 0 }
    entry.refs++
    this.#entries.set(key, entry)
    return entry.value
  }

  peek(key: string): V | undefined {
    return this.#entries.get(key)?.value
  }

  release(key: string): void {
    const entry = this.#entries.get(key)
    if (entry === undefined) return
    entry.refs--
    if (entry.refs > 0) return
    this.#entries.delete(key)
    this.#dispose(entry.value)
  }

  entries(): [string, V][] {
    return [...this.#entries].map(([key, entry]) => [key, entry.value])
  }

  clear(): void {
    for (const entry of this.#entries.values()) this.#dispose(entry.value)
    this.#entries.clear()
  }
}

/**
 * The world radius of a node's core: grows with the square root of its degree and fact count, values a little
 * smaller than entities, rounded to half units so nodes of similar weight share one geometry.
 * @param node - the node
 * @returns a radius between 1.5 and 9
 */
export function nodeRadius(node: GraphNode): number {
  const raw = 1.5 + 1.1 * Math.sqrt(Math.max(0, node.degree)) + 0.4 * Math.sqrt(Math.max(0, node.factCount))
  const scaled = node.kind === 'value' ? raw * 0.8 : raw
  return Math.round(Math.min(9, Math.max(1.5, scaled)) * 2) / 2
}

/**
 * @param edge - the edge
 * @returns how it is drawn: contested before scheduled before confirmed
 */
export function edgeKind(edge: GraphEdge): EdgeKind {
  if (edge.contested) return 'contested'
  return edge.scheduled ? 'scheduled' : 'confirmed'
}

/** A white radial falloff, tinted per node by its sprite material's colour. */
function createGlowTexture(size = 64): DataTexture {
  const data = new Uint8Array(size * size * 4)
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const d = Math.hypot(x + 0.5 - size / 2, y + 0.5 - size / 2) / (size / 2)
      const a = Math.max(0, 1 - d) ** 1.6
      data.set([255, 255, 255, Math.round(a * 255)], (y * size + x) * 4)
    }
  }
  const texture = new DataTexture(data, size, size, RGBAFormat)
  texture.magFilter = LinearFilter
  texture.minFilter = LinearFilter
  texture.generateMipmaps = false
  texture.needsUpdate = true
  return texture
}

function createStars(count: number, radius: number, palette: NebulaPalette): Points<BufferGeometry, PointsMaterial> {
  const random = seededRandom(hashString('nebula:stars'))
  const coords = new Float32Array(count * 3)
  for (let i = 0; i < count; i++) {
    const u = random() * 2 - 1
    const phi = random() * Math.PI * 2
    const r = radius * (1 + random() * 0.5)
    const s = Math.sqrt(1 - u * u)
    coords.set([r * s * Math.cos(phi), r * s * Math.sin(phi), r * u], i * 3)
  }
  const geometry = new BufferGeometry()
  geometry.setAttribute('position', new Float32BufferAttribute(coords, 3))
  const material = new PointsMaterial({ color: palette.star, size: 1.6, sizeAttenuation: false, transparent: true, depthWrite: false })
  const points = new Points(geometry, material)
  points.name = 'stars'
  return points
}

/** The nebula scene; its `object` is the THREE.Scene a view renders. */
export class NebulaScene {
  /** The scene to render; its `background` follows the palette. */
  readonly object = new Scene()

  readonly #nodes = new Map<string, NodeEntry>()
  readonly #edges = new Map<string, EdgeEntry>()
  readonly #adjacent = new Map<string, Set<string>>()
  readonly #nodeGroup = new Group()
  readonly #edgeGroup = new Group()
  readonly #stars: Points<BufferGeometry, PointsMaterial>
  readonly #glowTexture = createGlowTexture()
  readonly #geometries = new RefCache<SphereGeometry>((geometry) => geometry.dispose())
  readonly #nodeLooks = new RefCache<NodeLook>((look) => Object.values(look).forEach((m: MeshBasicMaterial | SpriteMaterial) => m.dispose()))
  readonly #edgeLooks = new RefCache<EdgeLook>((look) => Object.values(look).forEach((m: EdgeMaterial) => m.dispose()))
  #palette: NebulaPalette
  #dark = true
  #focus: string | null = null
  #disposed = false

  /** @param options - the palette, and optionally the star count and shell radius */
  constructor(options: NebulaSceneOptions) {
    this.#palette = options.palette
    this.#stars = createStars(options.stars ?? 1500, options.starRadius ?? 6000, options.palette)
    this.#nodeGroup.name = 'nodes'
    this.#edgeGroup.name = 'edges'
    this.object.add(this.#stars, this.#edgeGroup, this.#nodeGroup)
    this.setPalette(options.palette)
  }

  /** True once `dispose()` ran. */
  get disposed(): boolean {
    return this.#disposed
  }

  /** The node whose neighbours are revealed, or null. */
  get focused(): string | null {
    return this.#focus
  }

  /**
   * Joins the scene to a payload by id: adds new nodes and edges, updates changed ones, removes and disposes the
   * ones gone. Edges whose endpoints are not in the payload are skipped. Keeps the highlight if its node remains.
   * @param payload - the graph to show
   * @param positions - node positions by id; a node without one keeps its old position (the origin when new)
   * @returns the ids added, updated and removed
   */
  sync(payload: GraphPayload, positions: Positions): SyncReport {
    this.#assertLive()
    const nextNodes = new Map(payload.nodes.map((node) => [node.id, node]))
    const nodes = this.#join(this.#nodes, nextNodes, {
      add: (node) => this.#addNode(node),
      update: (entry, node) => this.#updateNode(entry, node),
      remove: (entry) => this.#removeNode(entry),
    })
    const nextEdges = new Map(payload.edges.filter((e) => nextNodes.has(e.source) && nextNodes.has(e.target)).map((e) => [e.id, e]))
    const edges = this.#join(this.#edges, nextEdges, {
      add: (edge) => this.#addEdge(edge),
      update: (entry, edge) => this.#updateEdge(entry, edge),
      remove: (entry) => this.#removeEdge(entry),
    })
    this.#adjacent.clear()
    for (const { edge } of this.#edges.values()) {
      this.#link(edge.source, edge.target)
      this.#link(edge.target, edge.source)
    }
    this.setPositions(positions)
    if (this.#focus !== null && !this.#nodes.has(this.#focus)) this.#focus = null
    this.#applyStates()
    return { nodes, edges }
  }

  /**
   * Moves nodes and edge ends; ids not in the scene are ignored.
   * @param positions - node positions by id
   */
  setPositions(positions: Positions): void {
    this.#assertLive()
    for (const [id, entry] of this.#nodes) {
      const at = positions.get(id)
      if (at !== undefined) entry.group.position.set(at.x, at.y, at.z)
    }
    for (const entry of this.#edges.values()) this.#placeEdge(entry)
  }

  /**
   * Recolours every cached material in place, so a theme change needs no rebuild. Glows add light on a dark
   * background and blend normally on a light one, where additive light would vanish.
   * @param palette - the new colours
   */
  setPalette(palette: NebulaPalette): void {
    this.#assertLive()
    this.#palette = palette
    const background = new Color(palette.background)
    this.object.background = background
    this.#dark = background.getHSL({ h: 0, s: 0, l: 0 }, SRGBColorSpace).l < 0.5
    this.#stars.material.color.set(palette.star)
    this.#stars.material.opacity = this.#dark ? 0.75 : 0.35
    for (const [key, look] of this.#nodeLooks.entries()) this.#paintNodeLook(look, Number(key.slice('node:'.length)))
    for (const [key, look] of this.#edgeLooks.entries()) this.#paintEdgeLook(look, key.slice('edge:'.length) as EdgeKind)
  }

  /**
   * Reveals a node's neighbours: the node becomes `focus`, its neighbours `neighbour`, every other node `dimmed`;
   * edges touching the node become `focus` and the rest `dimmed`. Null, or an unknown id, clears the highlight.
   * @param nodeId - the node to reveal, or null
   */
  highlight(nodeId: string | null): void {
    this.#assertLive()
    this.#focus = nodeId !== null && this.#nodes.has(nodeId) ? nodeId : null
    this.#applyStates()
  }

  /** @returns the node with this id, if shown */
  node(id: string): GraphNode | undefined {
    return this.#nodes.get(id)?.node
  }

  /** @returns the edge with this id, if shown */
  edge(id: string): GraphEdge | undefined {
    return this.#edges.get(id)?.edge
  }

  /** @returns the node's part in the highlight, if shown */
  nodeState(id: string): NodeState | undefined {
    return this.#nodes.get(id)?.state
  }

  /** @returns the edge's part in the highlight, if shown */
  edgeState(id: string): EdgeState | undefined {
    return this.#edges.get(id)?.state
  }

  /** @returns ids of the nodes sharing an edge with this one */
  neighbours(id: string): ReadonlySet<string> {
    return this.#adjacent.get(id) ?? new Set()
  }

  /** @returns the node's group (core mesh and glow sprite), if shown */
  nodeObject(id: string): Group | undefined {
    return this.#nodes.get(id)?.group
  }

  /** @returns the edge's line, if shown */
  edgeObject(id: string): Line<BufferGeometry, EdgeMaterial> | undefined {
    return this.#edges.get(id)?.line
  }

  /**
   * Visits every shown node with its current position and core radius.
   * @param visit - called once per node, in insertion order
   */
  forEachNode(visit: (node: GraphNode, position: Vec3, radius: number, state: NodeState) => void): void {
    for (const entry of this.#nodes.values()) visit(entry.node, entry.group.position, entry.radius, entry.state)
  }

  /**
   * Visits every shown edge with its highlight state.
   * @param visit - called once per edge, in insertion order
   */
  forEachEdge(visit: (edge: GraphEdge, state: EdgeState) => void): void {
    for (const entry of this.#edges.values()) visit(entry.edge, entry.state)
  }

  /** @returns the position of a shown node */
  positionOf(id: string): Vec3 | undefined {
    return this.#nodes.get(id)?.group.position
  }

  /** @returns the edge lines, for ray picking (each carries `userData.edgeId`) */
  edgeLines(): Line[] {
    return [...this.#edges.values()].map((entry) => entry.line)
  }

  /** @returns the edge an object picked by a ray stands for */
  edgeOf(object: Object3D): GraphEdge | undefined {
    const id: unknown = object.userData['edgeId']
    return typeof id === 'string' ? this.edge(id) : undefined
  }

  /** @returns how many nodes, edges and cached GPU resources the scene holds */
  stats(): { nodes: number; edges: number; geometries: number; nodeLooks: number; edgeLooks: number } {
    return {
      nodes: this.#nodes.size,
      edges: this.#edges.size,
      geometries: this.#geometries.size,
      nodeLooks: this.#nodeLooks.size,
      edgeLooks: this.#edgeLooks.size,
    }
  }

  /** Disposes every geometry, material and texture the scene created and empties it. Safe to call twice. */
  dispose(): void {
    if (this.#disposed) return
    this.#disposed = true
    for (const entry of this.#edges.values()) entry.line.geometry.dispose()
    this.#edges.clear()
    this.#nodes.clear()
    this.#adjacent.clear()
    this.#geometries.clear()
    this.#nodeLooks.clear()
    this.#edgeLooks.clear()
    this.#glowTexture.dispose()
    this.#stars.geometry.dispose()
    this.#stars.material.dispose()
    this.#nodeGroup.clear()
    this.#edgeGroup.clear()
    this.object.clear()
    this.object.background = null
  }

  #assertLive(): void {
    if (this.#disposed) throw new Error('NebulaScene is disposed')
  }

  #join<D, E>(
    current: Map<string, E>,
    next: ReadonlyMap<string, D>,
    ops: { add(datum: D): E; update(entry: E, datum: D): boolean; remove(entry: E): void },
  ): JoinReport {
    const added: string[] = []
    const updated: string[] = []
    const removed: string[] = []
    for (const [id, entry] of current) {
      if (next.has(id)) continue
      ops.remove(entry)
      current.delete(id)
      removed.push(id)
    }
    for (const [id, datum] of next) {
      const entry = current.get(id)
      if (entry === undefined) {
        current.set(id, ops.add(datum))
        added.push(id)
      } else if (ops.update(entry, datum)) {
        updated.push(id)
      }
    }
    return { added, updated, removed }
  }

  #link(from: string, to: string): void {
    const set = this.#adjacent.get(from) ?? new Set<string>()
    set.add(to)
    this.#adjacent.set(from, set)
  }

  #lookKey(node: GraphNode): string {
    const slots = Math.max(1, this.#palette.clusters.length)
    return `node:${((node.cluster % slots) + slots) % slots}`
  }

  #acquireGeometry(radius: number): SphereGeometry {
    return this.#geometries.acquire(`sphere:${radius}`, () => {
      const segments = Math.min(20, Math.round(8 + radius * 1.5))
      return new SphereGeometry(radius, segments, Math.max(6, Math.round(segments * 0.75)))
    })
  }

  #acquireNodeLook(key: string): NodeLook {
    return this.#nodeLooks.acquire(key, () => {
      const look: NodeLook = {
        core: new MeshBasicMaterial(),
        coreDim: new MeshBasicMaterial({ transparent: true, depthWrite: false }),
        glow: new SpriteMaterial({ map: this.#glowTexture, transparent: true, depthWrite: false }),
        glowDim: new SpriteMaterial({ map: this.#glowTexture, transparent: true, depthWrite: false }),
      }
      this.#paintNodeLook(look, Number(key.slice('node:'.length)))
      return look
    })
  }

  #paintNodeLook(look: NodeLook, slot: number): void {
    const colour = this.#palette.clusters[slot % Math.max(1, this.#palette.clusters.length)] ?? this.#palette.edge
    for (const material of [look.core, look.coreDim, look.glow, look.glowDim]) material.color.set(colour)
    look.coreDim.opacity = 0.18
    for (const glow of [look.glow, look.glowDim]) {
      glow.blending = this.#dark ? AdditiveBlending : NormalBlending
      glow.needsUpdate = true
    }
    look.glow.opacity = this.#dark ? 0.9 : 0.4
    look.glowDim.opacity = this.#dark ? 0.1 : 0.05
  }

  #acquireEdgeLook(kind: EdgeKind): EdgeLook {
    return this.#edgeLooks.acquire(`edge:${kind}`, () => {
      const make = (): EdgeMaterial =>
        kind === 'contested'
          ? new LineDashedMaterial({ dashSize: 3, gapSize: 2, transparent: true, depthWrite: false })
          : new LineBasicMaterial({ transparent: true, depthWrite: false })
      const look: EdgeLook = { normal: make(), focus: make(), dimmed: make() }
      this.#paintEdgeLook(look, kind)
      return look
    })
  }

  #paintEdgeLook(look: EdgeLook, kind: EdgeKind): void {
    const colour = kind === 'contested' ? this.#palette.contested : this.#palette.edge
    for (const state of ['normal', 'focus', 'dimmed'] as const) {
      look[state].color.set(colour)
      look[state].opacity = EDGE_OPACITY[kind][state]
    }
  }

  #addNode(node: GraphNode): NodeEntry {
    const radius = nodeRadius(node)
    const lookKey = this.#lookKey(node)
    const look = this.#acquireNodeLook(lookKey)
    const core = new Mesh(this.#acquireGeometry(radius), look.core)
    const glow = new Sprite(look.glow)
    glow.scale.setScalar(radius * GLOW_SCALE)
    const group = new Group()
    group.name = `node:${node.id}`
    group.userData['nodeId'] = node.id
    core.userData['nodeId'] = node.id
    group.add(glow, core)
    this.#nodeGroup.add(group)
    return { node, group, core, glow, geometryKey: `sphere:${radius}`, lookKey, radius, state: 'normal' }
  }

  #updateNode(entry: NodeEntry, node: GraphNode): boolean {
    const old = entry.node
    const same =
      old.label === node.label &&
      old.kind === node.kind &&
      old.entityKey === node.entityKey &&
      old.factCount === node.factCount &&
      old.degree === node.degree &&
      old.cluster === node.cluster
    entry.node = node
    if (same) return false
    const radius = nodeRadius(node)
    if (radius !== entry.radius) {
      const geometry = this.#acquireGeometry(radius)
      this.#geometries.release(entry.geometryKey)
      entry.core.geometry = geometry
      entry.geometryKey = `sphere:${radius}`
      entry.radius = radius
      entry.glow.scale.setScalar(radius * GLOW_SCALE)
    }
    const lookKey = this.#lookKey(node)
    if (lookKey !== entry.lookKey) {
      this.#acquireNodeLook(lookKey)
      this.#nodeLooks.release(entry.lookKey)
      entry.lookKey = lookKey
    }
    return true
  }

  #removeNode(entry: NodeEntry): void {
    entry.group.removeFromParent()
    this.#geometries.release(entry.geometryKey)
    this.#nodeLooks.release(entry.lookKey)
  }

  #addEdge(edge: GraphEdge): EdgeEntry {
    const kind = edgeKind(edge)
    const geometry = new BufferGeometry()
    geometry.setAttribute('position', new Float32BufferAttribute(new Float32Array(6), 3))
    const line = new Line(geometry, this.#acquireEdgeLook(kind).normal)
    line.name = `edge:${edge.id}`
    line.userData['edgeId'] = edge.id
    this.#edgeGroup.add(line)
    const entry: EdgeEntry = { edge, line, kind, state: 'normal' }
    this.#placeEdge(entry)
    return entry
  }

  #updateEdge(entry: EdgeEntry, edge: GraphEdge): boolean {
    const old = entry.edge
    const same =
      old.label === edge.label &&
      old.source === edge.source &&
      old.target === edge.target &&
      old.contested === edge.contested &&
      old.scheduled === edge.scheduled &&
      old.factIds.length === edge.factIds.length &&
      old.factIds.every((id, i) => edge.factIds[i] === id)
    entry.edge = edge
    if (same) return false
    const kind = edgeKind(edge)
    if (kind !== entry.kind) {
      this.#acquireEdgeLook(kind)
      this.#edgeLooks.release(`edge:${entry.kind}`)
      entry.kind = kind
    }
    this.#placeEdge(entry)
    return true
  }

  #removeEdge(entry: EdgeEntry): void {
    entry.line.removeFromParent()
    entry.line.geometry.dispose()
    this.#edgeLooks.release(`edge:${entry.kind}`)
  }

  #placeEdge(entry: EdgeEntry): void {
    const a = this.#nodes.get(entry.edge.source)?.group.position
    const b = this.#nodes.get(entry.edge.target)?.group.position
    if (a === undefined || b === undefined) return
    const geometry = entry.line.geometry
    const position = geometry.getAttribute('position')
    position.setXYZ(0, a.x, a.y, a.z)
    position.setXYZ(1, b.x, b.y, b.z)
    position.needsUpdate = true
    geometry.computeBoundingSphere()
    if (entry.kind === 'contested') entry.line.computeLineDistances()
  }

  #applyStates(): void {
    const focus = this.#focus
    const near = focus === null ? undefined : this.#adjacent.get(focus)
    for (const [id, entry] of this.#nodes) {
      entry.state = focus === null ? 'normal' : id === focus ? 'focus' : near?.has(id) ? 'neighbour' : 'dimmed'
      const look = this.#nodeLooks.peek(entry.lookKey)
      if (look === undefined) continue
      const dim = entry.state === 'dimmed'
      entry.core.material = dim ? look.coreDim : look.core
      entry.glow.material = dim ? look.glowDim : look.glow
      entry.group.scale.setScalar(entry.state === 'focus' ? FOCUS_SCALE : 1)
    }
    for (const entry of this.#edges.values()) {
      const touches = entry.edge.source === focus || entry.edge.target === focus
      entry.state = focus === null ? 'normal' : touches ? 'focus' : 'dimmed'
      const look = this.#edgeLooks.peek(`edge:${entry.kind}`)
      if (look !== undefined) entry.line.material = look[entry.state]
    }
  }
}
