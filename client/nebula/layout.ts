/**
 * Pure, deterministic 3D force layout for the nebula: the same payload and options give the same positions, each
 * cluster is pulled toward its own centre (hubs nearest it) inside a sphere that no other cluster's sphere touches,
 * and the simulation stops for good once it has cooled (alpha), converged, or used its tick or time budget. Given an
 * earlier layout's memory it keeps every place a change does not reach: only changed nodes and their neighbours move.
 * No three.js and no DOM.
 */
import type { GraphPayload } from '../../src/graph-types.ts'
import { placeClusters, type ClusterSphere, type FixedSphere } from './cluster-spheres.ts'
import { clusterKeys } from './cluster-identity.ts'
import { inBall, seededRandom, hashString } from './seeds.ts'

export { hashString, seededRandom } from './seeds.ts'

/** A point in layout space. */
export interface Vec3 {
  readonly x: number
  readonly y: number
  readonly z: number
}

/** Positions keyed by node id. */
export type Positions = ReadonlyMap<string, Vec3>

/** Why a layout stopped iterating. */
export type LayoutStop = 'alpha' | 'converged' | 'ticks' | 'time'

/** Tunables; every field has a default. */
export interface LayoutOptions {
  /** Rest length of a link, which also sets the scale of everything else. Default 30. */
  readonly linkDistance?: number
  /** Hard tick budget. Default 300. */
  readonly maxTicks?: number
  /** Budget of compute time summed over all ticks, in milliseconds. Default 4000. Only this stop depends on the machine. */
  readonly maxMs?: number
  /** Stop once alpha falls below this. Default 0.001. */
  readonly alphaMin?: number
  /** Starting alpha: 1 for a cold start, lower to settle a warm start gently. Default 1. */
  readonly alpha?: number
  /** Stop once no node moves farther than this fraction of `linkDistance` in one tick. Default 0.002. */
  readonly settle?: number
  /** Positions from an earlier layout; nodes found here start where they were. */
  readonly initial?: Positions
  /**
   * An earlier layout to keep (see `ForceLayout.memory`): a node whose cluster and edges are unchanged, and that no
   * changed node links to, stays exactly where it was; kept clusters keep their spheres; only the rest moves.
   */
  readonly keep?: LayoutMemory
  /** Clock for the time budget. Default `performance.now`. */
  readonly now?: () => number
}

/** What a later layout needs to keep this one's places. */
export interface LayoutMemory {
  readonly positions: Positions
  /** Per node id: its cluster's identity and its edges, so a later layout can tell what changed. */
  readonly signatures: ReadonlyMap<string, string>
  /** Cluster spheres by cluster identity (see cluster-identity.ts). */
  readonly spheres: ReadonlyMap<string, FixedSphere>
}

/** A running simulation. Methods advance it; reading never does. */
export interface ForceLayout {
  /** Node ids in layout order (sorted, so input order never matters). */
  readonly ids: readonly string[]
  /** Radius of a sphere around the origin that holds every cluster's sphere. */
  readonly radius: number
  readonly alpha: number
  readonly ticks: number
  /** Null while running, otherwise why it stopped. */
  readonly stopped: LayoutStop | null
  /**
   * Advances up to `count` ticks, stopping early when a stop condition is met.
   * @param count - ticks to run at most (default 1)
   * @returns true while the layout is still running
   */
  tick(count?: number): boolean
  /** @returns a fresh map of the current positions */
  positions(): Map<string, Vec3>
  /**
   * @param cluster - a cluster index from the payload
   * @returns the centre and radius of the cluster's sphere, or undefined for an unknown cluster
   */
  clusterSphere(cluster: number): { readonly centre: Vec3; readonly radius: number } | undefined
  /** Ids of the nodes that move (all of them without `keep`). */
  readonly free: ReadonlySet<string>
  /** @returns what a later layout needs to keep the current places */
  memory(): LayoutMemory
}

/** What `runForceLayout` returns. */
export interface LayoutResult {
  readonly positions: Map<string, Vec3>
  readonly ticks: number
  readonly stop: LayoutStop
  readonly radius: number
}

const REPULSION = 0.5
const VELOCITY_KEEP = 0.6
const GRAVITY = 0.1
const WALL = 0.25
/** How much longer than the link distance a contested relation rests. */
const CONTESTED_STRETCH = 2.5

class Simulation implements ForceLayout {
  readonly ids: readonly string[]
  readonly radius: number
  alpha: number
  ticks = 0
  stopped: LayoutStop | null = null

  readonly #x: Float64Array
  readonly #v: Float64Array
  readonly #pull: Float64Array
  readonly #clusterOf: Int32Array
  /** 1 for a node held where `keep` had it. */
  readonly #pinned: Uint8Array
  readonly #signatures: Map<string, string>
  readonly #clusterKey: Map<number, string>
  readonly free: ReadonlySet<string>
  readonly #clusters: readonly ClusterSphere[]
  /** Links: both ends, strength, how the pull is shared, and the rest length as a multiple of the link distance. */
  readonly #links: readonly (readonly [number, number, number, number, number])[]
  readonly #linkDistance: number
  readonly #alphaMin: number
  readonly #alphaDecay: number
  readonly #maxTicks: number
  readonly #maxMs: number
  readonly #settle: number
  readonly #now: () => number
  #spentMs = 0

  constructor(payload: GraphPayload, options: LayoutOptions) {
    this.#linkDistance = options.linkDistance ?? 30
    this.#maxTicks = options.maxTicks ?? 300
    this.#maxMs = options.maxMs ?? 4000
    this.#alphaMin = options.alphaMin ?? 0.001
    this.#alphaDecay = 1 - this.#alphaMin ** (1 / 300)
    this.#settle = (options.settle ?? 0.002) * this.#linkDistance
    this.#now = options.now ?? (() => performance.now())
    this.alpha = options.alpha ?? 1

    const byId = new Map(payload.nodes.map((node) => [node.id, node]))
    const ids = [...byId.keys()].sort()
    this.ids = ids
    const n = ids.length
    const index = new Map(ids.map((id, i) => [id, i]))

    const pairs = new Map<string, [number, number]>()
    const contested = new Set<string>()
    for (const edge of payload.edges) {
      const a = index.get(edge.source)
      const b = index.get(edge.target)
      if (a === undefined || b === undefined || a === b) continue
      const [lo, hi] = a < b ? [a, b] : [b, a]
      pairs.set(`${lo} ${hi}`, [lo, hi])
      if (edge.contested) contested.add(`${lo} ${hi}`)
    }
    const linkCount = new Float64Array(n)
    for (const [a, b] of pairs.values()) {
      linkCount[a] = (linkCount[a] ?? 0) + 1
      linkCount[b] = (linkCount[b] ?? 0) + 1
    }
    this.#links = [...pairs.values()]
      .sort((p, q) => p[0] - q[0] || p[1] - q[1])
      .map(([a, b]) => {
        const ca = linkCount[a] ?? 1
        const cb = linkCount[b] ?? 1
        // A contested relation rests longer, so its dashed line reads at the framing zoom instead of hiding in its hub's glow.
        const rest = contested.has(`${a} ${b}`) ? CONTESTED_STRETCH : 1
        return [a, b, 1 / Math.min(ca, cb), ca / (ca + cb), rest] as const
      })

    const degrees = new Float64Array(n)
    const groups = new Map<number, number[]>()
    this.#clusterOf = new Int32Array(n)
    for (const [i, id] of ids.entries()) {
      const node = byId.get(id)
      degrees[i] = Math.max(node?.degree ?? 0, linkCount[i] ?? 0)
      const cluster = node?.cluster ?? 0
      const members = groups.get(cluster) ?? []
      members.push(i)
      groups.set(cluster, members)
    }
    this.#clusterKey = clusterKeys(payload.nodes)
    const incident = new Map<string, string[]>(ids.map((id) => [id, []]))
    for (const edge of payload.edges) {
      incident.get(edge.source)?.push(edge.id)
      if (edge.target !== edge.source) incident.get(edge.target)?.push(edge.id)
    }
    this.#signatures = new Map(
      ids.map((id) => [
        id,
        `${this.#clusterKey.get(byId.get(id)?.cluster ?? 0) ?? ''}|${(incident.get(id) ?? []).sort().join('|')}`,
      ]),
    )
    const keep = options.keep
    const neighbours = Array.from({ length: n }, () => [] as number[])
    for (const [a, b] of pairs.values()) {
      neighbours[a]?.push(b)
      neighbours[b]?.push(a)
    }
    this.#pinned = new Uint8Array(n)
    if (keep !== undefined) {
      const changed = ids.map(
        (id) => keep.positions.get(id) === undefined || keep.signatures.get(id) !== this.#signatures.get(id),
      )
      for (const [i, id] of ids.entries()) {
        const near = changed[i] === true || (neighbours[i] ?? []).some((j) => changed[j] === true)
        if (!near && keep.positions.has(id)) this.#pinned[i] = 1
      }
    }
    this.free = new Set(ids.filter((_, i) => this.#pinned[i] !== 1))
    const fixed = new Map<number, FixedSphere>()
    if (keep !== undefined) {
      for (const cluster of groups.keys()) {
        const sphere = keep.spheres.get(this.#clusterKey.get(cluster) ?? '')
        if (sphere !== undefined) fixed.set(cluster, sphere)
      }
    }
    this.#clusters = placeClusters(groups, degrees, this.#linkDistance, fixed)
    let extent = 0
    for (const [k, sphere] of this.#clusters.entries()) {
      for (const m of sphere.members) this.#clusterOf[m] = k
      extent = Math.max(extent, Math.hypot(...sphere.centre) + sphere.radius)
    }
    this.radius = extent

    this.#pull = new Float64Array(n)
    this.#x = new Float64Array(n * 3)
    this.#v = new Float64Array(n * 3)
    const seeded = new Uint8Array(n)
    for (const [i, id] of ids.entries()) {
      const sphere = this.#clusters[this.#clusterOf[i] ?? 0]
      if (sphere === undefined) continue
      const share = sphere.maxDegree > 0 ? (degrees[i] ?? 0) / sphere.maxDegree : 0
      this.#pull[i] = GRAVITY * (0.4 + 1.6 * share)
      const known = keep?.positions.get(id) ?? options.initial?.get(id)
      const [bx, by, bz] = inBall(seededRandom(hashString(id)))
      const spread = sphere.radius * 0.7
      seeded[i] = known === undefined ? 1 : 0
      this.#x[i * 3] = known?.x ?? sphere.centre[0] + bx * spread
      this.#x[i * 3 + 1] = known?.y ?? sphere.centre[1] + by * spread
      this.#x[i * 3 + 2] = known?.z ?? sphere.centre[2] + bz * spread
    }
    if (keep !== undefined) {
      // A new node starts beside a neighbour that kept its place, so it appears where it belongs, not across the sphere.
      for (const [i, id] of ids.entries()) {
        const anchor = seeded[i] === 1 ? (neighbours[i] ?? []).find((j) => seeded[j] === 0) : undefined
        if (anchor === undefined) continue
        const [bx, by, bz] = inBall(seededRandom(hashString(`near:${id}`)))
        const step = this.#linkDistance * 0.6
        this.#x[i * 3] = (this.#x[anchor * 3] ?? 0) + bx * step
        this.#x[i * 3 + 1] = (this.#x[anchor * 3 + 1] ?? 0) + by * step
        this.#x[i * 3 + 2] = (this.#x[anchor * 3 + 2] ?? 0) + bz * step
      }
    }
    if (this.free.size === 0) this.stopped = 'converged'
  }

  tick(count = 1): boolean {
    for (let step = 0; step < count && this.stopped === null; step++) {
      const started = this.#now()
      const moved = this.#step()
      this.#spentMs += this.#now() - started
      this.ticks++
      if (this.alpha < this.#alphaMin) this.stopped = 'alpha'
      else if (this.ticks >= 10 && moved < this.#settle) this.stopped = 'converged'
      else if (this.ticks >= this.#maxTicks) this.stopped = 'ticks'
      else if (this.#spentMs >= this.#maxMs) this.stopped = 'time'
    }
    return this.stopped === null
  }

  positions(): Map<string, Vec3> {
    const out = new Map<string, Vec3>()
    const x = this.#x
    for (const [i, id] of this.ids.entries())
      out.set(id, { x: x[i * 3] ?? 0, y: x[i * 3 + 1] ?? 0, z: x[i * 3 + 2] ?? 0 })
    return out
  }

  clusterSphere(cluster: number): { readonly centre: Vec3; readonly radius: number } | undefined {
    const sphere = this.#clusters.find((c) => c.id === cluster)
    if (sphere === undefined) return undefined
    const [x, y, z] = sphere.centre
    return { centre: { x, y, z }, radius: sphere.radius }
  }

  memory(): LayoutMemory {
    const spheres = new Map<string, FixedSphere>()
    for (const sphere of this.#clusters)
      spheres.set(this.#clusterKey.get(sphere.id) ?? '', { centre: sphere.centre, radius: sphere.radius })
    return { positions: this.positions(), signatures: new Map(this.#signatures), spheres }
  }

  /** One tick of every force, then integration; returns the largest displacement. */
  #step(): number {
    this.alpha += (0 - this.alpha) * this.#alphaDecay
    const alpha = this.alpha
    const x = this.#x
    const v = this.#v
    const strength = REPULSION * this.#linkDistance * this.#linkDistance

    for (const sphere of this.#clusters) {
      const members = sphere.members
      for (let p = 0; p < members.length; p++) {
        const i = members[p] ?? 0
        const xi = x[i * 3] ?? 0
        const yi = x[i * 3 + 1] ?? 0
        const zi = x[i * 3 + 2] ?? 0
        for (let q = p + 1; q < members.length; q++) {
          const j = members[q] ?? 0
          let dx = (x[j * 3] ?? 0) - xi
          let dy = (x[j * 3 + 1] ?? 0) - yi
          let dz = (x[j * 3 + 2] ?? 0) - zi
          let l2 = dx * dx + dy * dy + dz * dz
          if (l2 < 1e-9) {
            dx = ((i * 7 + j * 13) % 11) / 11 - 0.5
            dy = ((i * 5 + j * 3) % 7) / 7 - 0.5
            dz = 0.25
            l2 = dx * dx + dy * dy + dz * dz
          }
          const w = (strength * alpha) / Math.max(l2, 1) / Math.sqrt(l2)
          v[i * 3] = (v[i * 3] ?? 0) - dx * w
          v[i * 3 + 1] = (v[i * 3 + 1] ?? 0) - dy * w
          v[i * 3 + 2] = (v[i * 3 + 2] ?? 0) - dz * w
          v[j * 3] = (v[j * 3] ?? 0) + dx * w
          v[j * 3 + 1] = (v[j * 3 + 1] ?? 0) + dy * w
          v[j * 3 + 2] = (v[j * 3 + 2] ?? 0) + dz * w
        }
      }
    }

    for (const [a, b, linkStrength, bias, rest] of this.#links) {
      const dx = (x[b * 3] ?? 0) + (v[b * 3] ?? 0) - (x[a * 3] ?? 0) - (v[a * 3] ?? 0)
      const dy = (x[b * 3 + 1] ?? 0) + (v[b * 3 + 1] ?? 0) - (x[a * 3 + 1] ?? 0) - (v[a * 3 + 1] ?? 0)
      const dz = (x[b * 3 + 2] ?? 0) + (v[b * 3 + 2] ?? 0) - (x[a * 3 + 2] ?? 0) - (v[a * 3 + 2] ?? 0)
      const l = Math.sqrt(dx * dx + dy * dy + dz * dz) || 1e-6
      const k = ((l - this.#linkDistance * rest) / l) * alpha * linkStrength
      v[b * 3] = (v[b * 3] ?? 0) - dx * k * bias
      v[b * 3 + 1] = (v[b * 3 + 1] ?? 0) - dy * k * bias
      v[b * 3 + 2] = (v[b * 3 + 2] ?? 0) - dz * k * bias
      v[a * 3] = (v[a * 3] ?? 0) + dx * k * (1 - bias)
      v[a * 3 + 1] = (v[a * 3 + 1] ?? 0) + dy * k * (1 - bias)
      v[a * 3 + 2] = (v[a * 3 + 2] ?? 0) + dz * k * (1 - bias)
    }

    let moved = 0
    const n = this.ids.length
    for (let i = 0; i < n; i++) {
      const sphere = this.#clusters[this.#clusterOf[i] ?? 0]
      if (sphere === undefined) continue
      if (this.#pinned[i] === 1) {
        v[i * 3] = v[i * 3 + 1] = v[i * 3 + 2] = 0
        continue
      }
      const [cx, cy, cz] = sphere.centre
      const ox = cx - (x[i * 3] ?? 0)
      const oy = cy - (x[i * 3 + 1] ?? 0)
      const oz = cz - (x[i * 3 + 2] ?? 0)
      const pull = (this.#pull[i] ?? 0) * alpha
      const d = Math.sqrt(ox * ox + oy * oy + oz * oz)
      const wall = d > sphere.radius ? ((d - sphere.radius) / d) * WALL : 0
      let step2 = 0
      for (const [axis, o] of [
        [0, ox],
        [1, oy],
        [2, oz],
      ] as const) {
        const at = i * 3 + axis
        const velocity = ((v[at] ?? 0) + o * pull) * VELOCITY_KEEP
        const position = (x[at] ?? 0) + velocity + o * wall
        step2 += (position - (x[at] ?? 0)) ** 2
        v[at] = velocity
        x[at] = position
      }
      moved = Math.max(moved, Math.sqrt(step2))
    }
    return moved
  }
}

/**
 * Creates a layout that the caller advances, for example a few ticks per animation frame.
 * @param payload - the graph; nodes are grouped by `cluster`, edges become links
 * @param options - tunables and an optional warm start
 * @returns a simulation that has not ticked yet
 */
export function createForceLayout(payload: GraphPayload, options: LayoutOptions = {}): ForceLayout {
  return new Simulation(payload, options)
}

/**
 * Runs a layout until it stops.
 * @param payload - the graph
 * @param options - tunables and an optional warm start
 * @returns the final positions, ticks used, why it stopped, and the bounding radius of the cluster spheres
 */
export function runForceLayout(payload: GraphPayload, options: LayoutOptions = {}): LayoutResult {
  const layout = createForceLayout(payload, options)
  while (layout.tick(16));
  return {
    positions: layout.positions(),
    ticks: layout.ticks,
    stop: layout.stopped ?? 'converged',
    radius: layout.radius,
  }
}
