// Proves, in Node, that the nebula keeps its places and colours across refreshes: the same input gives the same
// positions, a layout that keeps an earlier one moves only what a change reaches, clusters are known by identity
// (not by their rank index), and each cluster's colour and largest entity are chosen from that identity.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { GRAPH_LIMITS, type GraphEdge, type GraphNode, type GraphPayload } from '../src/graph-types.ts'
import { createForceLayout, runForceLayout, type ForceLayout, type Positions } from '../client/nebula/layout.ts'
import { assignClusterColours, clusterKeys, largestEntities } from '../client/nebula/cluster-identity.ts'

function node(id: string, cluster: number, extra: Partial<GraphNode> = {}): GraphNode {
  const entity = id.startsWith('e:')
  return {
    id,
    kind: entity ? 'entity' : 'value',
    label: id.slice(2),
    entityKey: entity ? id.slice(2) : null,
    factCount: 1,
    degree: 1,
    cluster,
    hub: false,
    ...extra,
  }
}

function edge(source: string, target: string, label = 'rel'): GraphEdge {
  return { id: `${source}|${label}|${target}`, source, target, label, factIds: [1], contested: false, scheduled: false }
}

function payload(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): GraphPayload {
  return {
    view: 'nebula',
    scope: 'current',
    center: null,
    nodes,
    edges,
    clusters: [],
    omitted: { nodes: 0, edges: 0, entities: 0, facts: 0 },
    limits: GRAPH_LIMITS.nebula,
    generation: 1,
  }
}

/** Three hubs with `size` subjects each, every subject with two values of its own; a hub per cluster. */
function library(size = 12): GraphPayload {
  const nodes: GraphNode[] = []
  const edges: GraphEdge[] = []
  for (const [cluster, hub] of ['e:billing', 'e:payments', 'e:platform'].entries()) {
    nodes.push(node(hub, cluster, { hub: true, degree: size, factCount: size }))
    for (let s = 0; s < size; s += 1) {
      const subject = `e:${hub.slice(2)}-${s}`
      nodes.push(node(subject, cluster, { degree: 3, factCount: 3 }))
      edges.push(edge(subject, hub, 'uses'))
      for (const p of ['port', 'zone']) {
        nodes.push(node(`v:${subject}-${p}`, cluster))
        edges.push(edge(subject, `v:${subject}-${p}`, p))
      }
    }
  }
  return payload(nodes, edges)
}

function settle(layout: ForceLayout): Positions {
  while (layout.tick(16));
  return layout.positions()
}

/** Ids of the nodes whose position differs at all between two layouts. */
function moved(before: Positions, after: Positions): string[] {
  return [...before]
    .filter(([id, at]) => {
      const now = after.get(id)
      return now === undefined || now.x !== at.x || now.y !== at.y || now.z !== at.z
    })
    .map(([id]) => id)
    .sort()
}

/** The payload with cluster indexes permuted, as the server does when hub ranks change. */
function renumbered(graph: GraphPayload, order: readonly number[]): GraphPayload {
  return payload(
    graph.nodes.map((n) => ({ ...n, cluster: order[n.cluster] ?? n.cluster })),
    graph.edges,
  )
}

describe('nebula places across refreshes', () => {
  const graph = library()

  it('gives the same positions for the same input, cold and kept', () => {
    assert.deepEqual([...runForceLayout(graph).positions], [...runForceLayout(graph).positions])
    const first = createForceLayout(graph)
    const before = settle(first)
    const again = createForceLayout(graph, { keep: first.memory(), alpha: 0.3 })
    assert.equal(again.free.size, 0)
    assert.equal(again.stopped, 'converged')
    assert.deepEqual(moved(before, settle(again)), [])
  })

  it('adding one fact moves only the changed entity and its neighbours; other clusters keep their spheres', () => {
    const first = createForceLayout(graph)
    const before = settle(first)
    const subject = 'e:payments-4'
    const grown = payload(
      [...graph.nodes, node('v:new-value', 1)],
      [...graph.edges, edge(subject, 'v:new-value', 'owner')],
    )
    const next = createForceLayout(grown, { keep: first.memory(), alpha: 0.3 })
    const after = settle(next)
    const reach = new Set([subject, 'v:new-value', 'e:payments', `v:${subject}-port`, `v:${subject}-zone`])
    const shifted = moved(before, after)
    assert.ok(shifted.length > 0, 'the changed entity settles again')
    assert.deepEqual(
      shifted.filter((id) => !reach.has(id)),
      [],
      `moved outside the neighbourhood: ${shifted.join(', ')}`,
    )
    assert.deepEqual([...next.free].sort(), [...reach].sort())
    for (const cluster of [0, 2])
      assert.deepEqual(next.clusterSphere(cluster)?.centre, first.clusterSphere(cluster)?.centre)
    const fresh = after.get('v:new-value')
    const anchor = after.get(subject)
    assert.ok(fresh !== undefined && anchor !== undefined)
    assert.ok(
      Math.hypot(fresh.x - anchor.x, fresh.y - anchor.y, fresh.z - anchor.z) < 90,
      'the new value appears beside its subject',
    )
  })

  it('knows clusters by identity: renumbered clusters keep every place', () => {
    const first = createForceLayout(graph)
    const before = settle(first)
    const next = createForceLayout(renumbered(graph, [2, 0, 1]), { keep: first.memory(), alpha: 0.3 })
    assert.equal(next.free.size, 0)
    assert.deepEqual(moved(before, settle(next)), [])
  })

  it('keys each cluster by its hub, else its smallest id', () => {
    const keys = clusterKeys([
      node('v:a', 5),
      node('e:z', 5),
      node('e:m', 5, { hub: true }),
      node('v:b', 6),
      node('e:c', 6),
    ])
    assert.deepEqual([...keys].sort(), [
      [5, 'e:m'],
      [6, 'e:c'],
    ])
  })

  it('keeps each cluster colour by identity: renumbering, a new cluster and a removed one change no other colour', () => {
    const first = assignClusterColours(graph, 9, new Map())
    assert.equal(new Set(first.values()).size, 3, 'the three clusters have distinct colours')
    assert.deepEqual(assignClusterColours(renumbered(graph, [1, 2, 0]), 9, first), first)
    const grown = payload(
      [...graph.nodes, node('e:loner', 3), node('v:loner-note', 3)],
      [...graph.edges, edge('e:loner', 'v:loner-note')],
    )
    const withNew = assignClusterColours(grown, 9, first)
    for (const [key, slot] of first) assert.equal(withNew.get(key), slot, key)
    assert.ok(![...first.values()].includes(withNew.get('e:loner') ?? -1), 'the new cluster takes a free colour')
    const shrunk = payload(
      graph.nodes.filter((n) => n.cluster !== 0),
      graph.edges,
    )
    const without = assignClusterColours(shrunk, 9, withNew)
    for (const key of ['e:payments', 'e:platform']) assert.equal(without.get(key), first.get(key), key)
    // The same answer with no memory: a cold start is deterministic too.
    assert.deepEqual(assignClusterColours(graph, 9, new Map()), first)
  })

  it("names each cluster's largest entity by facts, a Chinese name included, values never", () => {
    const nodes = [
      node('e:王小明', 4, { factCount: 9, degree: 9 }),
      node('v:北京', 4, { factCount: 12, degree: 1 }),
      node('e:李雷', 4, { factCount: 2 }),
      node('e:billing', 0, { hub: true, factCount: 12, degree: 12 }),
      node('e:billing-1', 0, { factCount: 13, degree: 2 }),
    ]
    assert.deepEqual(
      largestEntities(payload(nodes, [])).map((n) => n.label),
      ['billing-1', '王小明'],
    )
  })
})
