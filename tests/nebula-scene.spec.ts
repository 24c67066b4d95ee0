// Proves, in Node without WebGL, that the nebula layout is deterministic, cools down and keeps clusters apart, and
// that the scene's keyed data join creates, updates, removes and disposes three.js objects, reveals exactly a
// node's neighbours, draws contested and scheduled edges apart from confirmed ones, and frees everything on dispose.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  type BufferGeometry,
  LineBasicMaterial,
  LineDashedMaterial,
  type Material,
  type Mesh,
  Sprite,
  Texture,
  type Object3D,
} from 'three'
import { GRAPH_LIMITS, type GraphEdge, type GraphNode, type GraphPayload } from '../src/graph-types.ts'
import { createForceLayout, runForceLayout, type Positions, type Vec3 } from '../client/nebula/layout.ts'
import { edgeKind, nodeRadius, type NebulaPalette } from '../client/nebula/scene-looks.ts'
import { NebulaScene } from '../client/nebula/scene.ts'

const PALETTE: NebulaPalette = {
  background: '#151517',
  edge: '#cfd3d6',
  star: '#adb2b8',
  contested: '#f59e0b',
  clusters: ['#679efe', '#22c55e', '#a66bfe'],
}

function node(id: string, cluster = 0, degree = 1, factCount = 1): GraphNode {
  return {
    id,
    kind: id.startsWith('e:') ? 'entity' : 'value',
    label: id.slice(2),
    entityKey: id.startsWith('e:') ? id.slice(2) : null,
    factCount,
    degree,
    cluster,
    hub: false,
  }
}

function edge(
  source: string,
  target: string,
  flags: { contested?: boolean; scheduled?: boolean; label?: string } = {},
): GraphEdge {
  const label = flags.label ?? 'rel'
  return {
    id: `${source}|${label}|${target}`,
    source,
    target,
    label,
    factIds: [1],
    contested: flags.contested ?? false,
    scheduled: flags.scheduled ?? false,
  }
}

function payload(
  nodes: readonly GraphNode[],
  edges: readonly GraphEdge[],
  scope: 'current' | 'all' = 'all',
): GraphPayload {
  return {
    view: 'nebula',
    scope,
    center: null,
    nodes,
    edges,
    clusters: [],
    omitted: { nodes: 0, edges: 0, entities: 0, facts: 0 },
    limits: GRAPH_LIMITS.nebula,
    generation: 1,
  }
}

/** Trees of the given sizes, one cluster each; extra links inside a cluster until `edgesPerNode` is met. */
function forest(sizes: readonly number[], edgesPerNode = 1): GraphPayload {
  const nodes: GraphNode[] = []
  const edges: GraphEdge[] = []
  let seed = 7
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed / 2147483648
  }
  for (const [cluster, size] of sizes.entries()) {
    const ids = Array.from({ length: size }, (_, i) => `${i % 3 === 0 ? 'e' : 'v'}:c${cluster}-${i}`)
    const local: GraphEdge[] = []
    for (let i = 1; i < size; i++) local.push(edge(ids[Math.floor(random() ** 2 * i)] ?? '', ids[i] ?? ''))
    while (local.length < size * edgesPerNode - 1 && size > 2) {
      const a = Math.floor(random() * size)
      const b = Math.floor(random() * size)
      if (a !== b) local.push(edge(ids[a] ?? '', ids[b] ?? '', { label: `r${local.length}` }))
    }
    const degree = new Map<string, number>()
    for (const e of local) for (const end of [e.source, e.target]) degree.set(end, (degree.get(end) ?? 0) + 1)
    for (const id of ids) nodes.push(node(id, cluster, degree.get(id) ?? 0))
    edges.push(...local)
  }
  return payload(nodes, edges)
}

function distance(a: Vec3, b: Vec3): number {
  return Math.hypot(a.x - b.x, a.y - b.y, a.z - b.z)
}

function at(positions: Positions, id: string): Vec3 {
  const position = positions.get(id)
  assert.ok(position !== undefined, `no position for ${id}`)
  return position
}

/** Listens for three's `dispose` event on a geometry, material or texture and counts the calls. */
function watchDispose(resource: BufferGeometry | Material | Texture): () => number {
  let count = 0
  resource.addEventListener('dispose', () => {
    count++
  })
  return () => count
}

/** Every geometry, material and texture reachable from the scene graph now (three's shared sprite geometry excluded). */
function resources(root: Object3D): Set<BufferGeometry | Material | Texture> {
  const found = new Set<BufferGeometry | Material | Texture>()
  root.traverse((object) => {
    const { geometry, material } = object as Partial<Mesh>
    if (geometry !== undefined && !(object instanceof Sprite)) found.add(geometry)
    for (const m of material === undefined ? [] : Array.isArray(material) ? material : [material]) {
      found.add(m)
      const map = (m as Partial<{ map: Texture | null }>).map
      if (map !== null && map !== undefined) found.add(map)
    }
  })
  return found
}

describe('nebula layout', () => {
  const graph = forest([30, 20, 12, 4, 1], 1.3)

  it('gives the same positions for the same payload', () => {
    const first = runForceLayout(graph)
    const second = runForceLayout(graph)
    assert.equal(first.positions.size, graph.nodes.length)
    assert.deepEqual([...first.positions], [...second.positions])
    assert.equal(first.ticks, second.ticks)
  })

  it('does not depend on the order of nodes and edges in the payload', () => {
    const shuffled = payload([...graph.nodes].reverse(), [...graph.edges].reverse())
    assert.deepEqual([...runForceLayout(shuffled).positions].sort(), [...runForceLayout(graph).positions].sort())
  })

  it('seeds each node from its id: adding a node leaves every other start point the same within its cluster sphere', () => {
    const grown = payload([...graph.nodes, node('v:late', 0, 0)], graph.edges)
    const before = createForceLayout(graph)
    const after = createForceLayout(grown)
    const relative = (layout: typeof before, n: GraphNode): number[] => {
      const sphere = layout.clusterSphere(n.cluster)
      assert.ok(sphere !== undefined)
      const p = at(layout.positions(), n.id)
      return [p.x - sphere.centre.x, p.y - sphere.centre.y, p.z - sphere.centre.z].map((d) =>
        Math.round((d / sphere.radius) * 1e9),
      )
    }
    for (const n of graph.nodes) assert.deepEqual(relative(after, n), relative(before, n), n.id)
  })

  it('cools down: stops by alpha or convergence within the tick budget, then ticking changes nothing', () => {
    const layout = createForceLayout(graph)
    while (layout.tick(10));
    assert.ok(layout.stopped === 'alpha' || layout.stopped === 'converged', `stopped by ${layout.stopped}`)
    assert.ok(layout.ticks < 300, `${layout.ticks} ticks`)
    const settled = layout.positions()
    assert.equal(layout.tick(50), false)
    assert.deepEqual([...layout.positions()], [...settled])
  })

  it('stops at the tick budget and at the time budget', () => {
    const byTicks = createForceLayout(graph, { maxTicks: 5 })
    while (byTicks.tick());
    assert.deepEqual([byTicks.stopped, byTicks.ticks], ['ticks', 5])
    let clock = 0
    const byTime = createForceLayout(graph, { maxMs: 50, now: () => (clock += 5) })
    while (byTime.tick());
    assert.deepEqual([byTime.stopped, byTime.ticks], ['time', 10])
  })

  it('keeps clusters apart: every node stays in its cluster sphere and the spheres do not touch', () => {
    const layout = createForceLayout(graph)
    while (layout.tick(10));
    const positions = layout.positions()
    const clusters = [...new Set(graph.nodes.map((n) => n.cluster))]
    const spheres = clusters.map((cluster) => {
      const sphere = layout.clusterSphere(cluster)
      assert.ok(sphere !== undefined)
      return sphere
    })
    for (const n of graph.nodes) {
      const sphere = spheres[clusters.indexOf(n.cluster)]
      assert.ok(sphere !== undefined)
      assert.ok(distance(at(positions, n.id), sphere.centre) <= sphere.radius * 1.02, `${n.id} left its cluster`)
    }
    for (const [i, a] of spheres.entries()) {
      for (const b of spheres.slice(i + 1))
        assert.ok(distance(a.centre, b.centre) > a.radius + b.radius, 'cluster spheres overlap')
    }
    let nearestForeign = Infinity
    let longestEdge = 0
    for (const a of graph.nodes) {
      for (const b of graph.nodes)
        if (a.cluster !== b.cluster)
          nearestForeign = Math.min(nearestForeign, distance(at(positions, a.id), at(positions, b.id)))
    }
    for (const e of graph.edges)
      longestEdge = Math.max(longestEdge, distance(at(positions, e.source), at(positions, e.target)))
    assert.ok(nearestForeign > 10, `nodes of different clusters ${nearestForeign.toFixed(1)} apart`)
    assert.ok(nearestForeign > longestEdge * 0.2)
  })

  it('pulls the hub of a cluster nearer its centre than its leaves', () => {
    const leaves = Array.from({ length: 24 }, (_, i) => node(`v:leaf${i}`, 0, 1))
    const star = payload(
      [node('e:hub', 0, 24), ...leaves],
      leaves.map((leaf) => edge('e:hub', leaf.id)),
    )
    const layout = createForceLayout(star)
    while (layout.tick(10));
    const centre = layout.clusterSphere(0)?.centre ?? { x: 0, y: 0, z: 0 }
    const positions = layout.positions()
    const hub = distance(at(positions, 'e:hub'), centre)
    const meanLeaf = leaves.reduce((sum, leaf) => sum + distance(at(positions, leaf.id), centre), 0) / leaves.length
    assert.ok(hub < meanLeaf / 3, `hub ${hub.toFixed(1)} vs leaves ${meanLeaf.toFixed(1)}`)
  })

  it('starts known nodes where an earlier layout left them', () => {
    const initial = new Map([[graph.nodes[0]?.id ?? '', { x: 1, y: 2, z: 3 }]])
    const layout = createForceLayout(graph, { initial, alpha: 0.3 })
    assert.deepEqual(at(layout.positions(), graph.nodes[0]?.id ?? ''), { x: 1, y: 2, z: 3 })
    assert.equal(layout.alpha, 0.3)
  })

  it('handles an empty graph, a lone node and self-loops', () => {
    assert.equal(runForceLayout(payload([], [])).positions.size, 0)
    const lone = runForceLayout(payload([node('e:a', 0, 1)], [edge('e:a', 'e:a')]))
    assert.ok(Number.isFinite(at(lone.positions, 'e:a').x))
  })

  it('lays out 600 nodes and 1200 edges, the nebula budget, within 3 seconds', () => {
    const big = forest([420, 120, 40, 20], 2)
    assert.equal(big.nodes.length, GRAPH_LIMITS.nebula.nodes)
    assert.ok(big.edges.length >= 1190 && big.edges.length <= GRAPH_LIMITS.nebula.edges, `${big.edges.length} edges`)
    const started = performance.now()
    const result = runForceLayout(big)
    const elapsed = performance.now() - started
    assert.ok(elapsed < 3000, `${elapsed.toFixed(0)} ms`)
    assert.notEqual(result.stop, 'time')
    for (const position of result.positions.values()) assert.ok(Number.isFinite(position.x + position.y + position.z))
  })
})

describe('nebula scene', () => {
  const base = payload(
    [
      node('e:a', 0, 3, 4),
      node('v:b', 0, 1),
      node('v:c', 0, 2),
      node('e:d', 1, 1),
      node('v:e', 1, 1),
      node('e:lone', 2, 0),
    ],
    [
      edge('e:a', 'v:b'),
      edge('e:a', 'v:c', { contested: true }),
      edge('v:c', 'e:d', { scheduled: true }),
      edge('e:d', 'v:e'),
    ],
  )
  const positionsOf = (graph: GraphPayload): Positions => runForceLayout(graph).positions

  it('creates one node group and one edge line per datum, under the scene object', () => {
    const scene = new NebulaScene({ palette: PALETTE, stars: 50 })
    const report = scene.sync(base, positionsOf(base))
    assert.deepEqual([...report.nodes.added].sort(), base.nodes.map((n) => n.id).sort())
    assert.deepEqual(report.edges.added.length, 4)
    assert.deepEqual(
      [report.nodes.updated, report.nodes.removed, report.edges.updated, report.edges.removed],
      [[], [], [], []],
    )
    assert.deepEqual(scene.stats(), {
      nodes: 6,
      edges: 4,
      geometries: new Set(base.nodes.map(nodeRadius)).size,
      nodeLooks: 3,
      edgeLooks: 3,
    })
    const group = scene.nodeObject('e:a')
    assert.ok(group !== undefined)
    assert.equal(group.parent?.parent, scene.object)
    assert.deepEqual(
      group.children.map((child) => child.type),
      ['Sprite', 'Mesh'],
    )
    scene.dispose()
  })

  it('skips edges whose ends are not in the payload', () => {
    const scene = new NebulaScene({ palette: PALETTE, stars: 0 })
    const report = scene.sync(payload([node('e:a')], [edge('e:a', 'v:gone')]), new Map())
    assert.deepEqual([report.edges.added, scene.stats().edges], [[], 0])
    scene.dispose()
  })

  it('puts nodes and both edge ends where the positions say', () => {
    const scene = new NebulaScene({ palette: PALETTE, stars: 0 })
    scene.sync(
      base,
      new Map([
        ['e:a', { x: 1, y: 2, z: 3 }],
        ['v:b', { x: -4, y: 5, z: 6 }],
      ]),
    )
    assert.deepEqual(scene.nodeObject('e:a')?.position.toArray(), [1, 2, 3])
    const line = scene.edgeObject(edge('e:a', 'v:b').id)
    assert.deepEqual([...(line?.geometry.getAttribute('position').array ?? [])], [1, 2, 3, -4, 5, 6])
    scene.setPositions(new Map([['v:b', { x: 0, y: 0, z: 0 }]]))
    assert.deepEqual([...(line?.geometry.getAttribute('position').array ?? [])], [1, 2, 3, 0, 0, 0])
    scene.dispose()
  })

  it('updates changed nodes and edges in place, and leaves unchanged ones alone', () => {
    const scene = new NebulaScene({ palette: PALETTE, stars: 0 })
    scene.sync(base, positionsOf(base))
    const group = scene.nodeObject('v:b')
    const before = (group?.children[1] as Mesh | undefined)?.geometry
    const changedNodes = base.nodes.map((n) => (n.id === 'v:b' ? { ...n, degree: 40, factCount: 30 } : n))
    const changedEdges = base.edges.map((e) => (e.target === 'v:b' ? { ...e, contested: true } : e))
    const report = scene.sync(payload(changedNodes, changedEdges), positionsOf(base))
    assert.deepEqual(report.nodes, { added: [], updated: ['v:b'], removed: [] })
    assert.deepEqual(report.edges, { added: [], updated: [edge('e:a', 'v:b').id], removed: [] })
    assert.equal(scene.nodeObject('v:b'), group, 'the same object is updated, not replaced')
    const after = (group?.children[1] as Mesh | undefined)?.geometry
    assert.notEqual(after, before)
    assert.ok(scene.edgeObject(edge('e:a', 'v:b').id)?.material instanceof LineDashedMaterial)
    scene.dispose()
  })

  it('removes nodes and edges that left the payload and disposes what only they used', () => {
    const scene = new NebulaScene({ palette: PALETTE, stars: 0 })
    scene.sync(base, positionsOf(base))
    const lone = scene.nodeObject('e:lone')
    const loneCore = lone?.children[1] as Mesh<BufferGeometry, Material> | undefined
    const loneGlow = lone?.children[0] as Sprite | undefined
    assert.ok(loneCore !== undefined && loneGlow !== undefined)
    const sharedRadius = base.nodes.some((n) => n.id !== 'e:lone' && nodeRadius(n) === nodeRadius(node('e:lone', 2, 0)))
    const loneGeometry = watchDispose(loneCore.geometry)
    const loneCoreMaterial = watchDispose(loneCore.material)
    const loneGlowMaterial = watchDispose(loneGlow.material)
    const removedLine = scene.edgeObject(edge('e:d', 'v:e').id)
    assert.ok(removedLine !== undefined)
    const removedLineGeometry = watchDispose(removedLine.geometry)
    const keptLine = scene.edgeObject(edge('e:a', 'v:b').id)
    assert.ok(keptLine !== undefined)
    const keptLineGeometry = watchDispose(keptLine.geometry)
    const keptMaterial = watchDispose(keptLine.material)

    const smaller = payload(
      base.nodes.filter((n) => n.id !== 'e:lone' && n.id !== 'v:e'),
      base.edges.filter((e) => e.target !== 'v:e'),
    )
    const report = scene.sync(smaller, positionsOf(smaller))
    assert.deepEqual([...report.nodes.removed].sort(), ['e:lone', 'v:e'])
    assert.deepEqual(report.edges.removed, [edge('e:d', 'v:e').id])
    assert.equal(lone?.parent, null)
    assert.equal(removedLine.parent, null)
    assert.equal(removedLineGeometry(), 1)
    assert.equal(loneGeometry(), sharedRadius ? 0 : 1)
    assert.equal(loneCoreMaterial(), 1, 'the last node of cluster 2 takes its materials with it')
    assert.equal(loneGlowMaterial(), 1)
    assert.deepEqual([keptLineGeometry(), keptMaterial()], [0, 0])
    assert.equal(scene.stats().nodeLooks, 2)
    scene.dispose()
  })

  it('releases a shared geometry only when its last node goes', () => {
    const scene = new NebulaScene({ palette: PALETTE, stars: 0 })
    const twins = payload([node('e:x', 0, 2), node('e:y', 0, 2)], [])
    scene.sync(twins, new Map())
    const geometry = (scene.nodeObject('e:x')?.children[1] as Mesh | undefined)?.geometry
    assert.ok(geometry !== undefined)
    assert.equal((scene.nodeObject('e:y')?.children[1] as Mesh | undefined)?.geometry, geometry)
    const disposed = watchDispose(geometry)
    scene.sync(payload([node('e:y', 0, 2)], []), new Map())
    assert.equal(disposed(), 0)
    scene.sync(payload([], []), new Map())
    assert.equal(disposed(), 1)
    assert.deepEqual(scene.stats(), { nodes: 0, edges: 0, geometries: 0, nodeLooks: 0, edgeLooks: 0 })
    scene.dispose()
  })

  it("reveals exactly a node's neighbours and their edges, and dims the rest", () => {
    const scene = new NebulaScene({ palette: PALETTE, stars: 0 })
    scene.sync(base, positionsOf(base))
    scene.highlight('v:c')
    assert.deepEqual([...scene.neighbours('v:c')].sort(), ['e:a', 'e:d'])
    const states = Object.fromEntries(base.nodes.map((n) => [n.id, scene.nodeState(n.id)]))
    assert.deepEqual(states, {
      'e:a': 'neighbour',
      'v:b': 'dimmed',
      'v:c': 'focus',
      'e:d': 'neighbour',
      'v:e': 'dimmed',
      'e:lone': 'dimmed',
    })
    const edgeStates = Object.fromEntries(base.edges.map((e) => [e.id, scene.edgeState(e.id)]))
    assert.deepEqual(edgeStates, {
      [edge('e:a', 'v:b').id]: 'dimmed',
      [edge('e:a', 'v:c').id]: 'focus',
      [edge('v:c', 'e:d').id]: 'focus',
      [edge('e:d', 'v:e').id]: 'dimmed',
    })
    const dimmed = scene.nodeObject('v:b')?.children[1] as Mesh<BufferGeometry, Material> | undefined
    const kept = scene.nodeObject('e:a')?.children[1] as Mesh<BufferGeometry, Material> | undefined
    assert.ok(dimmed !== undefined && kept !== undefined)
    assert.ok(dimmed.material.opacity < kept.material.opacity)
    assert.ok((scene.nodeObject('v:c')?.scale.x ?? 1) > 1)
    scene.highlight(null)
    assert.ok(base.nodes.every((n) => scene.nodeState(n.id) === 'normal'))
    assert.ok(base.edges.every((e) => scene.edgeState(e.id) === 'normal'))
    scene.highlight('e:nobody')
    assert.equal(scene.focused, null)
    scene.dispose()
  })

  it('keeps a highlight across a sync while its node remains, and drops it when the node goes', () => {
    const scene = new NebulaScene({ palette: PALETTE, stars: 0 })
    scene.sync(base, positionsOf(base))
    scene.highlight('e:d')
    scene.sync(base, positionsOf(base))
    assert.equal(scene.nodeState('v:e'), 'neighbour')
    scene.sync(
      payload(
        base.nodes.filter((n) => n.id !== 'e:d'),
        [],
      ),
      new Map(),
    )
    assert.equal(scene.focused, null)
    assert.equal(scene.nodeState('v:e'), 'normal')
    scene.dispose()
  })

  it('draws contested edges dashed in the warning colour, scheduled ones faint, contested before scheduled', () => {
    const scene = new NebulaScene({ palette: PALETTE, stars: 0 })
    const both = edge('e:a', 'e:d', { contested: true, scheduled: true })
    scene.sync(payload(base.nodes, [...base.edges, both]), positionsOf(base))
    const confirmed = scene.edgeObject(edge('e:a', 'v:b').id)?.material
    const contested = scene.edgeObject(edge('e:a', 'v:c').id)?.material
    const scheduled = scene.edgeObject(edge('v:c', 'e:d').id)?.material
    assert.ok(confirmed instanceof LineBasicMaterial && !(confirmed instanceof LineDashedMaterial))
    assert.ok(contested instanceof LineDashedMaterial)
    assert.equal(contested.color.getHexString(), 'f59e0b')
    assert.notEqual(confirmed.color.getHexString(), 'f59e0b')
    assert.ok(scene.edgeObject(edge('e:a', 'v:c').id)?.geometry.getAttribute('lineDistance') !== undefined)
    assert.equal(scene.edgeObject(both.id)?.material, contested, 'contested and scheduled is drawn as contested')
    assert.equal(edgeKind(both), 'contested')
    assert.ok(scheduled instanceof LineBasicMaterial && !(scheduled instanceof LineDashedMaterial))
    assert.ok(scheduled.opacity < confirmed.opacity / 2, 'scheduled edges are faint')
    assert.ok(contested.opacity > confirmed.opacity, 'contested edges stand out')
    scene.dispose()
  })

  it('recolours cached materials in place when the palette changes', () => {
    const scene = new NebulaScene({ palette: PALETTE, stars: 10 })
    scene.sync(base, positionsOf(base))
    const line = scene.edgeObject(edge('e:a', 'v:c').id)
    const material = line?.material
    scene.setPalette({
      ...PALETTE,
      background: '#ffffff',
      contested: '#dd8629',
      clusters: ['#4176e6', '#22c55e', '#8a4fff'],
    })
    assert.equal(line?.material, material)
    assert.equal(material?.color.getHexString(), 'dd8629')
    assert.equal((scene.object.background as { getHexString(): string } | null)?.getHexString(), 'ffffff')
    const core = scene.nodeObject('e:a')?.children[1] as Mesh<BufferGeometry, LineBasicMaterial> | undefined
    assert.equal(core?.material.color.getHexString(), '4176e6')
    scene.dispose()
  })

  it('disposes every geometry, material and texture once on dispose(), and refuses work afterwards', () => {
    const scene = new NebulaScene({ palette: PALETTE, stars: 100 })
    scene.sync(base, positionsOf(base))
    const seen = resources(scene.object)
    scene.highlight('v:c')
    for (const resource of resources(scene.object)) seen.add(resource)
    scene.highlight('e:a')
    for (const resource of resources(scene.object)) seen.add(resource)
    assert.ok(
      [...seen].some((r) => r instanceof Texture),
      'the glow texture is tracked',
    )
    assert.ok(seen.size >= 20, `${seen.size} resources`)
    const counters = [...seen].map((resource) => [resource, watchDispose(resource)] as const)
    scene.dispose()
    const missed = counters.filter(([, count]) => count() !== 1).map(([resource]) => `${resource.type}`)
    assert.deepEqual(missed, [])
    assert.equal(scene.object.children.length, 0)
    scene.dispose()
    assert.ok(
      counters.every(([, count]) => count() === 1),
      'a second dispose() frees nothing twice',
    )
    assert.throws(() => scene.sync(base, new Map()), /disposed/)
  })
})
