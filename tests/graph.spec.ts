/**
 * Proves projectGraph over plain rows: which rows become edges in which scope, values naming entities, edges
 * merging facts, stable ids and determinism, the budgets with their omitted counts, clusters, and the tree.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { entityNamer } from '../src/graph-entity-names.ts'
import { projectGraph, type GraphFactRow, type GraphOptions } from '../src/graph.ts'
import type { GraphEdge, GraphNode, GraphPayload } from '../src/graph-types.ts'
import { canonicalEntity } from '../src/text/normalize.ts'

const NOW = '2026-03-01T09:00:00.000Z'

/** Rows with ids in call order; everything but subject, property and value defaults to a plain active fact. */
function rowMaker(): (
  entityKey: string,
  property: string,
  value: string,
  extra?: Partial<GraphFactRow>,
) => GraphFactRow {
  let next = 0
  return (entityKey, property, value, extra = {}) => {
    next += 1
    return {
      id: next,
      entityKey,
      property,
      value,
      status: 'active',
      evidence: 'observed',
      observedAt: NOW,
      contested: false,
      credential: false,
      ...extra,
    }
  }
}

/** Entities for the rows' subjects (display = key) plus any extra keys. */
function entitiesOf(rows: readonly GraphFactRow[], extra: readonly string[] = []): Map<string, string> {
  return new Map([...rows.map((row) => row.entityKey), ...extra].map((key) => [key, key]))
}

const nebula = (scope: 'current' | 'all' = 'current', extra: Partial<GraphOptions> = {}): GraphOptions => ({
  view: 'nebula',
  scope,
  generation: 7,
  ...extra,
})

function node(payload: GraphPayload, id: string): GraphNode {
  const found = payload.nodes.find((candidate) => candidate.id === id)
  assert.ok(found, `no node ${id} in ${payload.nodes.map((n) => n.id).join(', ')}`)
  return found
}

function edgesFrom(payload: GraphPayload, source: string): GraphEdge[] {
  return payload.edges.filter((edge) => edge.source === source)
}

const labelOf = (payload: GraphPayload, id: string): string => node(payload, id).label

describe('projectGraph: which facts become edges', () => {
  it('turns a value that names another known entity into an entity→entity edge, and any other value into a value node', () => {
    const row = rowMaker()
    const rows = [
      row('billing api', 'database', 'Postgres'),
      row('billing api', 'owner', 'team payments'),
      row('billing api', 'depends on', 'Auth-Service'),
      row('postgres', 'version', '16'),
      row('auth', 'port', '7000'),
    ]
    const payload = projectGraph(rows, entitiesOf(rows), nebula())
    const out = edgesFrom(payload, 'e:billing api')
    assert.equal(out.find((edge) => edge.label === 'database')?.target, 'e:postgres')
    // "Auth-Service" canonicalizes to the key "auth" (role word dropped), so it names that entity.
    assert.equal(canonicalEntity('Auth-Service'), 'auth')
    assert.equal(out.find((edge) => edge.label === 'depends on')?.target, 'e:auth')
    const owner = out.find((edge) => edge.label === 'owner')
    assert.match(owner?.target ?? '', /^v:[0-9a-f]{16}$/u)
    assert.equal(labelOf(payload, owner?.target ?? ''), 'team payments')
    assert.equal(node(payload, 'e:postgres').kind, 'entity')
    assert.equal(node(payload, 'e:postgres').entityKey, 'postgres')
    assert.equal(node(payload, owner?.target ?? '').entityKey, null)
  })

  it('keeps a value naming an unknown entity, or the subject itself, as a value node', () => {
    const row = rowMaker()
    const rows = [row('billing api', 'database', 'mysql'), row('billing api', 'alias', 'Billing-API')]
    const payload = projectGraph(rows, entitiesOf(rows), nebula())
    assert.equal(payload.edges.length, 2)
    assert.ok(payload.edges.every((edge) => edge.target.startsWith('v:')))
    assert.equal(payload.nodes.filter((n) => n.kind === 'entity').length, 1)
  })

  it('draws active facts, marks an edge scheduled only when every fact behind it is scheduled', () => {
    const row = rowMaker()
    const rows = [
      row('release', 'version', '2.0', { status: 'scheduled' }),
      row('release', 'channel', 'stable'),
      row('release', 'channel', 'stable', { status: 'scheduled' }),
    ]
    const payload = projectGraph(rows, entitiesOf(rows), nebula())
    assert.equal(payload.edges.find((edge) => edge.label === 'version')?.scheduled, true)
    const channel = payload.edges.find((edge) => edge.label === 'channel')
    assert.equal(channel?.scheduled, false)
    assert.deepEqual(channel?.factIds, [2, 3])
    assert.ok(payload.edges.every((edge) => !edge.contested))
  })

  it('shows contested facts only in the all scope, marked contested, and never history or credentials', () => {
    const row = rowMaker()
    const rows = [
      row('billing api', 'port', '7801', { contested: true }),
      row('billing api', 'port', '7900', { status: 'conflict' }),
      row('billing api', 'host', 'db1', { status: 'superseded' }),
      row('billing api', 'host', 'db2', { status: 'retired' }),
      row('billing api', 'host', 'db3', { status: 'expired' }),
      row('billing api', 'host', 'db4', { status: 'forgotten' }),
      row('billing api', 'api key', 'sk-live-4f9a8b7c6d5e4f3a2b1c', { credential: true }),
      row('billing api', 'email', 'ops@example.com'),
      row('billing api', 'region', 'eu-west-1'),
    ]
    const current = projectGraph(rows, entitiesOf(rows), nebula('current'))
    assert.deepEqual(current.edges.map((edge) => edge.label).sort(), ['email', 'region'])
    assert.equal(
      labelOf(current, current.edges.find((edge) => edge.label === 'email')?.target ?? ''),
      'ops@example.com',
    )
    const all = projectGraph(rows, entitiesOf(rows), nebula('all'))
    assert.deepEqual(all.edges.map((edge) => [edge.label, edge.factIds, edge.contested]).sort(), [
      ['email', [8], false],
      ['port', [1], true],
      ['port', [2], true],
      ['region', [9], false],
    ])
    for (const payload of [current, all]) {
      const text = JSON.stringify(payload)
      assert.doesNotMatch(text, /sk-live|db[1-4]/u)
      assert.ok(payload.edges.every((edge) => !edge.factIds.includes(7)))
    }
  })

  it('merges the facts of one property between the same two nodes into one edge listing all their ids', () => {
    const row = rowMaker()
    const rows = [
      row('billing api', 'Port', '7801'),
      row('billing api', 'port', '7801', { evidence: 'explicit_user' }),
      row('billing api', 'test port', '7801'),
      row('orders api', 'port', '7801'),
    ]
    const payload = projectGraph(rows, entitiesOf(rows), nebula())
    const billing = edgesFrom(payload, 'e:billing api')
    assert.deepEqual(billing.map((edge) => [edge.label, edge.factIds]).sort(), [
      ['Port', [1, 2]],
      ['test port', [3]],
    ])
    // One value node for 7801, shared by both entities: one cluster.
    const target = billing[0]?.target ?? ''
    assert.equal(edgesFrom(payload, 'e:orders api')[0]?.target, target)
    assert.equal(node(payload, target).factCount, 4)
    assert.equal(node(payload, target).degree, 3)
    assert.equal(node(payload, 'e:billing api').factCount, 3)
    assert.equal(node(payload, 'e:billing api').degree, 2)
    assert.deepEqual(new Set(payload.nodes.map((n) => n.cluster)), new Set([0]))
  })

  it('folds values that differ only in case, width or spacing into one node labelled by the oldest fact', () => {
    const row = rowMaker()
    const rows = [
      row('a', 'env', 'Prod  Cluster'),
      row('b', 'env', 'ｐｒｏｄ cluster'),
      row('c', 'env', 'prod cluster'),
    ]
    const payload = projectGraph(rows, entitiesOf(rows), nebula())
    const values = payload.nodes.filter((n) => n.kind === 'value')
    assert.equal(values.length, 1)
    assert.equal(values[0]?.label, 'Prod  Cluster')
  })
})

describe('projectGraph: what a label may show', () => {
  it('marks a value behind a sensitive fact with its kind, and gives an edge the qualifiers its facts share', () => {
    const row = rowMaker()
    const rows = [
      row('王芳', 'phone', '+86 138 0000 0000', { sensitivity: 'phone' }),
      row('billing api', 'port', '7802', { qualifiers: { env: 'staging' } }),
      row('billing api', 'port', '17801', { qualifiers: { env: 'dev' } }),
      row('orders api', 'port', '7802', { qualifiers: { env: 'prod' } }),
      row('orders api', 'port', '7802', { qualifiers: { env: 'dev' } }),
    ]
    const payload = projectGraph(rows, entitiesOf(rows), nebula())
    const phone = payload.nodes.find((n) => n.label === '+86 138 0000 0000')
    assert.equal(phone?.sensitivity, 'phone')
    assert.equal(payload.nodes.find((n) => n.label === '17801')?.sensitivity, undefined)
    const ports = edgesFrom(payload, 'e:billing api')
      .map((edge) => edge.qualifiers)
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
    assert.deepEqual(ports, [{ env: 'dev' }, { env: 'staging' }])
    // Two facts behind one edge with different qualifiers: the edge names none.
    assert.equal(edgesFrom(payload, 'e:orders api')[0]?.qualifiers, undefined)
  })
})

describe('entityNamer', () => {
  it('names exactly the entities canonicalEntity names, whatever the case, width, separators, marks or script', () => {
    let seed = 42
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
      return seed / 2_147_483_648
    }
    const PIECES = [
      'kaka',
      'Kaka',
      'KAKA',
      'api',
      'API',
      'lo',
      'x',
      '7801',
      ' ',
      '  ',
      '-',
      '_',
      '.',
      ',',
      ':',
      '|',
      '\t',
      '·',
      '・',
      '\u3000',
      'plugin',
      'Service',
      'repo',
      '服务',
      '插件',
      '项目',
      '数据',
      '支付',
      '数',
      'e\u0301',
      'é',
      '=\u0338',
      '≠',
      '=',
      'ｋａｋａ',
      'Ａ',
      'ﬁ',
      'ß',
      'İ',
      'ñ',
      'n\u0303',
      'カタ',
      '한국',
      'Ⅻ',
      '①',
      '/',
      '+',
      '#',
    ]
    const text = (): string =>
      Array.from({ length: 1 + Math.floor(random() * 5) }, () => PIECES[Math.floor(random() * PIECES.length)]).join('')
    const values = Array.from({ length: 6000 }, text)
    const keys = new Map<string, string>()
    for (const value of values) {
      const key = canonicalEntity(random() < 0.3 ? value : text())
      if (key !== '') keys.set(key, key)
    }
    const namer = entityNamer(keys)
    let named = 0
    for (const value of values) {
      const canonical = canonicalEntity(value)
      for (const own of ['kaka', canonical]) {
        const expected = canonical !== own && keys.has(canonical) ? canonical : undefined
        assert.equal(namer(value, own), expected, JSON.stringify({ value, own }))
        if (expected !== undefined) named += 1
      }
    }
    assert.ok(named > 500, `only ${named} values named an entity`)
  })
})

describe('projectGraph: ids and determinism', () => {
  it('gives entities e:<key>, values v:<hash of the folded value> and edges r:<hash>, the same in every projection', () => {
    const row = rowMaker()
    const one = [row('billing api', 'port', '7801')]
    const two = [row('orders api', 'owner', 'x'), row('billing api', 'port', '7801'), row('zeta', 'port', '7801')]
    const a = projectGraph(one, entitiesOf(one), nebula())
    const b = projectGraph(two, entitiesOf(two), nebula('all'))
    const edgeA = a.edges[0]
    assert.ok(edgeA)
    assert.match(edgeA.id, /^r:[0-9a-f]{16}$/u)
    assert.equal(edgeA.source, 'e:billing api')
    const edgeB = b.edges.find((edge) => edge.source === 'e:billing api')
    assert.equal(edgeB?.id, edgeA.id)
    assert.equal(edgeB?.target, edgeA.target)
    assert.notEqual(b.edges.find((edge) => edge.source === 'e:zeta')?.id, edgeA.id)
  })

  it('answers the same payload for the same rows in any order', () => {
    const row = rowMaker()
    const rows: GraphFactRow[] = []
    for (let i = 0; i < 400; i += 1) {
      rows.push(
        row(
          `svc ${i % 37}`,
          ['port', 'owner', 'depends on'][i % 3] ?? 'port',
          i % 3 === 2 ? `svc ${(i * 7) % 37}` : `value ${i % 53}`,
          {
            evidence: i % 4 === 0 ? 'explicit_user' : 'observed',
            observedAt: `2026-03-${String(1 + (i % 28)).padStart(2, '0')}T00:00:00.000Z`,
          },
        ),
      )
    }
    const limits = { nodes: 40, edges: 60, entities: 20 }
    const first = projectGraph(rows, entitiesOf(rows), nebula('current', { limits }))
    const shuffled = [...rows].sort((a, b) => ((a.id * 7919) % 401) - ((b.id * 7919) % 401))
    const reversedEntities = new Map([...entitiesOf(rows)].reverse())
    assert.deepEqual(projectGraph(shuffled, reversedEntities, nebula('current', { limits })), first)
    assert.equal(first.nodes.length, 40)
    assert.equal(first.generation, 7)
  })
})

describe('projectGraph: budgets', () => {
  it('caps entities at 300 and nodes at 600, counting what was left out', () => {
    const row = rowMaker()
    const rows = Array.from({ length: 700 }, (_, i) =>
      row(`svc ${String(i).padStart(3, '0')}`, 'port', String(10_000 + i)),
    )
    const payload = projectGraph(rows, entitiesOf(rows), nebula())
    assert.deepEqual(payload.limits, { nodes: 600, edges: 1200, entities: 300 })
    assert.equal(payload.nodes.filter((n) => n.kind === 'entity').length, 300)
    assert.equal(payload.nodes.length, 600)
    assert.equal(payload.edges.length, 300)
    assert.deepEqual(payload.omitted, { nodes: 1400 - 600, edges: 400, entities: 400, facts: 400 })
    // Equal degree: ties go to the smaller key.
    assert.ok(payload.nodes.some((n) => n.id === 'e:svc 000'))
    assert.ok(!payload.nodes.some((n) => n.id === 'e:svc 300'))
  })

  it('limits a hub naming 400 entities by the entity cap: the hub first (highest degree), then its peers by key', () => {
    const row = rowMaker()
    const rows: GraphFactRow[] = []
    for (let i = 0; i < 400; i += 1) {
      const key = `dep ${String(i).padStart(3, '0')}`
      rows.push(row('hub', 'depends on', key))
      rows.push(row(key, 'version', `1.${i}`))
    }
    const payload = projectGraph(rows, entitiesOf(rows), nebula())
    assert.equal(payload.nodes.filter((n) => n.kind === 'entity').length, 300)
    assert.equal(node(payload, 'e:hub').degree, 299)
    assert.equal(node(payload, 'e:hub').factCount, 299)
    assert.ok(payload.nodes.some((n) => n.id === 'e:dep 298'))
    assert.ok(!payload.nodes.some((n) => n.id === 'e:dep 299'))
    // Each of the 299 dependencies shown keeps its relation and its own value: 300 entities + 299 values.
    assert.equal(payload.nodes.length, 599)
    assert.equal(payload.edges.length, 299 + 299)
    assert.deepEqual(payload.omitted, { nodes: 801 - 599, edges: 800 - 598, entities: 101, facts: 800 - 598 })
  })

  it('keeps one fat entity from taking every value slot: each entity first gets a fair share', () => {
    const row = rowMaker()
    const rows: GraphFactRow[] = []
    for (let i = 0; i < 1000; i += 1) rows.push(row('fat', 'tag', `tag ${i}`, { evidence: 'explicit_user' }))
    for (let e = 0; e < 50; e += 1)
      for (let v = 0; v < 2; v += 1) rows.push(row(`small ${e}`, 'tag', `small ${e} tag ${v}`))
    const payload = projectGraph(rows, entitiesOf(rows), nebula())
    assert.equal(payload.nodes.length, 600)
    for (let e = 0; e < 50; e += 1) assert.equal(node(payload, `e:small ${e}`).degree, 2)
    assert.equal(node(payload, 'e:fat').degree, 600 - 51 - 100)
    assert.deepEqual(payload.omitted, { nodes: 1151 - 600, edges: 1100 - 549, entities: 0, facts: 1100 - 549 })
  })

  it('admits edges by evidence strength, then recency, within the edge budget', () => {
    const row = rowMaker()
    const rows = [
      row('svc', 'a', 'old observed', { observedAt: '2026-01-01T00:00:00.000Z' }),
      row('svc', 'b', 'new observed', { observedAt: '2026-02-01T00:00:00.000Z' }),
      row('svc', 'c', 'old explicit', { evidence: 'explicit_user', observedAt: '2025-01-01T00:00:00.000Z' }),
      row('svc', 'd', 'unverified', { evidence: 'unverified', observedAt: '2026-03-01T00:00:00.000Z' }),
    ]
    const payload = projectGraph(
      rows,
      entitiesOf(rows),
      nebula('current', { limits: { nodes: 10, edges: 2, entities: 5 } }),
    )
    assert.deepEqual(payload.edges.map((edge) => edge.label).sort(), ['b', 'c'])
    assert.deepEqual(payload.omitted, { nodes: 2, edges: 2, entities: 0, facts: 2 })
  })
})

describe('projectGraph: clusters', () => {
  it('clusters by degree: each hub with the nodes nearest it, hubs by rank, and what no hub reaches last', () => {
    const row = rowMaker()
    const rows = [
      ...['a1', 'a2', 'a3', 'a4'].map((value) => row('a', 'tag', value)),
      ...['b1', 'b2', 'b3'].map((value) => row('b', 'tag', value)),
      row('m', 'uses', 'a'),
      row('m', 'uses', 'b'),
      row('m', 'tag', 'm1'),
      row('c', 'size', 'small'),
    ]
    const payload = projectGraph(rows, entitiesOf(rows), nebula())
    const clusterOf = (id: string): number => node(payload, id).cluster
    const members = (cluster: number): string[] =>
      payload.nodes
        .filter((n) => n.cluster === cluster)
        .map((n) => n.label)
        .sort()
    // a (degree 5) and b (degree 4) are hubs; m (degree 3) is a's neighbour before it could be one, and joins a.
    assert.deepEqual([clusterOf('e:a'), clusterOf('e:b'), clusterOf('e:c')], [0, 1, 2])
    assert.deepEqual(members(0), ['a', 'a1', 'a2', 'a3', 'a4', 'm', 'm1'])
    assert.deepEqual(members(1), ['b', 'b1', 'b2', 'b3'])
    assert.deepEqual(members(2), ['c', 'small'])
    assert.deepEqual(
      payload.nodes.filter((n) => n.hub).map((n) => n.id),
      ['e:a', 'e:b'],
    )
    assert.deepEqual(
      payload.nodes.map((n) => n.cluster),
      [...payload.nodes.map((n) => n.cluster)].sort((p, q) => p - q),
    )
    assert.deepEqual(projectGraph([...rows].reverse(), entitiesOf(rows), nebula()), payload)
  })

  it('splits one big component into one cluster per hub, and keeps at most eight hubs', () => {
    const row = rowMaker()
    const rows: GraphFactRow[] = []
    for (let h = 0; h < 10; h += 1) {
      for (let v = 0; v < 3 + h; v += 1) rows.push(row(`hub ${h}`, 'tag', `hub ${h} tag ${v}`))
      // Every hub names the next one: one connected component.
      rows.push(row(`hub ${h}`, 'next', `hub ${(h + 1) % 10}`))
    }
    const payload = projectGraph(rows, entitiesOf(rows), nebula())
    const hubs = payload.nodes.filter((n) => n.hub)
    assert.deepEqual(hubs.map((n) => n.label).sort(), [
      'hub 2',
      'hub 3',
      'hub 4',
      'hub 5',
      'hub 6',
      'hub 7',
      'hub 8',
      'hub 9',
    ])
    assert.deepEqual(
      hubs.map((n) => n.cluster).sort((p, q) => p - q),
      [0, 1, 2, 3, 4, 5, 6, 7],
    )
    assert.equal(node(payload, 'e:hub 9').cluster, 0)
    // hub 0 and hub 1 join the hubs nearest them; nothing is left for a ninth cluster.
    assert.equal(new Set(payload.nodes.map((n) => n.cluster)).size, 8)
  })
})

describe('projectGraph: the one-hop tree', () => {
  it('keeps the centre, its outgoing and incoming edges and their nodes, and nothing further', () => {
    const row = rowMaker()
    const rows = [
      row('billing api', 'database', 'postgres'),
      row('billing api', 'port', '7801'),
      row('orders api', 'calls', 'Billing API'),
      row('orders api', 'port', '7802'),
      row('postgres', 'version', '16'),
    ]
    const payload = projectGraph(rows, entitiesOf(rows), {
      view: 'tree',
      scope: 'current',
      center: 'billing api',
      generation: 3,
    })
    assert.equal(payload.center?.id, 'e:billing api')
    assert.equal(payload.center?.degree, 3)
    assert.deepEqual(payload.edges.map((edge) => edge.label).sort(), ['calls', 'database', 'port'])
    assert.deepEqual(
      payload.nodes
        .filter((n) => n.kind === 'entity')
        .map((n) => n.id)
        .sort(),
      ['e:billing api', 'e:orders api', 'e:postgres'],
    )
    assert.deepEqual(payload.limits, { nodes: 100, edges: 200, entities: 100 })
    assert.deepEqual(payload.omitted, { nodes: 0, edges: 0, entities: 0, facts: 0 })
  })

  it('answers a centre without relations alone, and budgets a wide one to 100 nodes', () => {
    const row = rowMaker()
    const lonely = projectGraph([], new Map([['ghost', 'Ghost']]), {
      view: 'tree',
      scope: 'current',
      center: 'ghost',
      generation: 1,
    })
    assert.deepEqual(
      lonely.nodes.map((n) => [n.id, n.label, n.degree]),
      [['e:ghost', 'Ghost', 0]],
    )
    assert.equal(lonely.center?.id, 'e:ghost')
    const rows = Array.from({ length: 150 }, (_, i) => row('wide', 'tag', `tag ${i}`))
    const wide = projectGraph(rows, entitiesOf(rows), { view: 'tree', scope: 'current', center: 'wide', generation: 1 })
    assert.equal(wide.nodes.length, 100)
    assert.equal(wide.edges.length, 99)
    assert.deepEqual(wide.omitted, { nodes: 51, edges: 51, entities: 0, facts: 51 })
    const none = projectGraph(rows, entitiesOf(rows), { view: 'tree', scope: 'current', generation: 1 })
    assert.deepEqual([none.center, none.nodes, none.edges], [null, [], []])
  })
})
