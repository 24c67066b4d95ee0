/**
 * The nebula as a pure three.js scene object: a starfield, one glowing node per graph node and one line per edge,
 * kept in step with a GraphPayload by a keyed data join. Geometries and materials come from value-keyed,
 * reference-counted caches and are disposed when their last user goes, or on `dispose()`. Contested edges are
 * dashed in the warning colour, scheduled edges faint. No renderer and no DOM, so it runs in Node.
 */
import {
  BufferGeometry,
  Color,
  Float32BufferAttribute,
  Group,
  Line,
  Mesh,
  type MeshBasicMaterial,
  type Points,
  type PointsMaterial,
  Scene,
  type SphereGeometry,
  Sprite,
  type SpriteMaterial,
  SRGBColorSpace,
  type Object3D,
} from 'three'
import type { GraphEdge, GraphNode, GraphPayload } from '../../src/graph-types.ts'
import { joinByKey, sameEdge, sameNode, type JoinReport } from './keyed-join.ts'
import type { Positions, Vec3 } from './layout.ts'
import { RefCache } from './ref-cache.ts'
import {
  createEdgeLook,
  createGlowTexture,
  createNodeLook,
  createSphere,
  createStars,
  edgeKind,
  FOCUS_SCALE,
  GLOW_SCALE,
  nodeRadius,
  paintEdgeLook,
  paintNodeLook,
  type EdgeKind,
  type EdgeLook,
  type EdgeMaterial,
  type EdgeState,
  type NebulaPalette,
  type NodeLook,
  type NodeState,
} from './scene-looks.ts'

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
  readonly #nodeLooks = new RefCache<NodeLook>((look) => {
    for (const m of Object.values(look) as (MeshBasicMaterial | SpriteMaterial)[]) m.dispose()
  })
  readonly #edgeLooks = new RefCache<EdgeLook>((look) => {
    for (const m of Object.values(look) as EdgeMaterial[]) m.dispose()
  })
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
    const nodes = joinByKey(this.#nodes, nextNodes, {
      add: (node) => this.#addNode(node),
      update: (entry, node) => this.#updateNode(entry, node),
      remove: (entry) => this.#removeNode(entry),
    })
    const nextEdges = new Map(
      payload.edges.filter((e) => nextNodes.has(e.source) && nextNodes.has(e.target)).map((e) => [e.id, e]),
    )
    const edges = joinByKey(this.#edges, nextEdges, {
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
   * Recolours every cached material in place, so a theme change needs no rebuild.
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
    for (const [key, look] of this.#edgeLooks.entries())
      this.#paintEdgeLook(look, key.slice('edge:'.length) as EdgeKind)
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
    return this.#geometries.acquire(`sphere:${radius}`, () => createSphere(radius))
  }

  #acquireNodeLook(key: string): NodeLook {
    return this.#nodeLooks.acquire(key, () => {
      const look = createNodeLook(this.#glowTexture)
      this.#paintNodeLook(look, Number(key.slice('node:'.length)))
      return look
    })
  }

  #paintNodeLook(look: NodeLook, slot: number): void {
    paintNodeLook(look, this.#palette, slot, this.#dark)
  }

  #acquireEdgeLook(kind: EdgeKind): EdgeLook {
    return this.#edgeLooks.acquire(`edge:${kind}`, () => {
      const look = createEdgeLook(kind)
      this.#paintEdgeLook(look, kind)
      return look
    })
  }

  #paintEdgeLook(look: EdgeLook, kind: EdgeKind): void {
    paintEdgeLook(look, this.#palette, kind)
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
    entry.node = node
    if (sameNode(old, node)) return false
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
    entry.edge = edge
    if (sameEdge(old, edge)) return false
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
