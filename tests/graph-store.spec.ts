/**
 * The graph verb on a real store, for both drivers: edges follow the current rows at once (forget, supersede,
 * expire, resolve), contested relations only in the `all` scope, scheduled edges marked, the one-hop tree found
 * through the full-text index, Chinese subjects, credentials never exposed, and the generation reported.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { GraphEdge, GraphNode, GraphPayload } from '../src/graph-types.ts'
import { GraphStore } from '../src/store/graph-store.ts'
import type { Fact } from '../src/types.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'
import { entityNamer } from '../src/graph-entity-names.ts'
import { DRIVERS } from './helpers/store.ts'

/** The verb's namer over every entity key of a store. */
const names = (store: GraphStore): ((value: string, own: string) => string | undefined) =>
  entityNamer(store.entityKeys())

const DAY = 86_400_000

for (const driver of DRIVERS) {
  describe(`graph verb (${driver})`, () => {
    let v: VerbHarness
    beforeEach(() => {
      v = verbHarness(driver)
    })
    afterEach(() => v.dispose())

    const write = (
      subject: string,
      property: string,
      value: string,
      extra: Record<string, unknown> = {},
      on: VerbHarness = v,
    ): Fact => {
      const answer = on.h.memory.write(
        { subject, property, value, evidence: 'observed', origin: 'tool', ...extra },
        on.h.config,
      )
      if (answer.kind !== 'saved' && answer.kind !== 'conflict' && answer.kind !== 'duplicate')
        throw new Error(`write ${answer.kind}: ${JSON.stringify(answer)}`)
      return answer.fact
    }
    const graph = async (body: Record<string, unknown> = {}, on: VerbHarness = v): Promise<GraphPayload> =>
      (await on.ok('graph', body)) as unknown as GraphPayload
    const edgesOf = (payload: GraphPayload, factId: number): GraphEdge[] =>
      payload.edges.filter((edge) => edge.factIds.includes(factId))
    const nodeOf = (payload: GraphPayload, id: string): GraphNode | undefined =>
      payload.nodes.find((node) => node.id === id)

    it('draws a value naming another entity as a relation, and drops it as soon as the fact is forgotten', async () => {
      write('Auth Service', 'port', '7000')
      const dependsOn = write('billing-api', 'depends on', 'auth service')
      const before = await graph()
      assert.deepEqual(
        edgesOf(before, dependsOn.id).map((edge) => [edge.source, edge.target, edge.label]),
        [['e:billing api', 'e:auth', 'depends on']],
      )
      assert.equal(nodeOf(before, 'e:auth')?.label, 'Auth Service')
      assert.equal(v.h.memory.forgetById(dependsOn.id).kind, 'forgotten')
      const after = await graph()
      assert.deepEqual(edgesOf(after, dependsOn.id), [])
      assert.equal(after.generation, v.generation())
      assert.ok(after.generation > before.generation)
    })

    it('points a value at an entity only while that entity has a fact that was not forgotten', async () => {
      const port = write('auth', 'port', '7000')
      const dependsOn = write('billing-api', 'depends on', 'Auth')
      assert.equal(edgesOf(await graph(), dependsOn.id)[0]?.target, 'e:auth')
      v.h.memory.forgetById(port.id)
      const after = await graph()
      assert.match(edgesOf(after, dependsOn.id)[0]?.target ?? '', /^v:/u)
      assert.equal(nodeOf(after, 'e:auth'), undefined)
    })

    it('moves an edge to the new value when a fact is superseded, and drops it when the fact expires', async () => {
      const old = write('billing-api', 'database', 'postgres')
      const fresh = write('billing-api', 'database', 'mysql', { evidence: 'explicit_user' })
      const payload = await graph({ scope: 'all' })
      assert.deepEqual(edgesOf(payload, old.id), [])
      assert.equal(edgesOf(payload, fresh.id).length, 1)
      assert.ok(!payload.nodes.some((node) => node.label === 'postgres'))
      await v.ok('fact-expire', v.fence({ id: fresh.id }))
      assert.deepEqual((await graph({ scope: 'all' })).edges, [])
    })

    it('shows a conflict only in the all scope, both sides marked contested, and the settled side after resolve', async () => {
      write('billing-api', 'owner', 'team payments')
      const stated = write('billing-api', 'port', '7801', { evidence: 'explicit_user' })
      const seen = write('billing-api', 'port', '7900')
      assert.equal(seen.status, 'conflict')
      const current = await graph()
      assert.deepEqual(
        current.edges.map((edge) => edge.label),
        ['owner'],
      )
      assert.deepEqual(edgesOf(current, stated.id), [])
      const all = await graph({ scope: 'all' })
      assert.equal(all.scope, 'all')
      assert.deepEqual(
        edgesOf(all, stated.id).map((edge) => [edge.factIds, edge.contested]),
        [[[stated.id], true]],
      )
      assert.deepEqual(
        edgesOf(all, seen.id).map((edge) => [edge.factIds, edge.contested]),
        [[[seen.id], true]],
      )
      assert.equal(all.edges.find((edge) => edge.label === 'owner')?.contested, false)

      const groups = (await v.ok('conflicts', {}))['groups'] as { id: number }[]
      await v.ok('resolve', v.fence({ groupId: groups[0]?.id, keepFactId: seen.id }))
      const settled = await graph()
      assert.deepEqual(
        edgesOf(settled, seen.id).map((edge) => edge.contested),
        [false],
      )
      assert.deepEqual(edgesOf(settled, stated.id), [])
    })

    it("marks a scheduled fact's edge scheduled until it takes effect", async () => {
      const release = write('release', 'version', '2.0', { validFrom: '2026-03-02' })
      assert.equal(release.status, 'scheduled')
      assert.deepEqual(
        edgesOf(await graph(), release.id).map((edge) => edge.scheduled),
        [true],
      )
      v.clock.advance(DAY)
      v.h.memory.advance()
      assert.deepEqual(
        edgesOf(await graph(), release.id).map((edge) => edge.scheduled),
        [false],
      )
    })

    it('answers the one-hop tree around a subject: its facts and the facts whose value names it', async () => {
      const database = write('Billing API', 'database', 'Postgres')
      write('postgres', 'version', '16')
      const calls = write('orders-api', 'calls', 'billing-api service')
      const gateway = write('edge proxy', 'routes to', 'billing api gateway')
      write('orders-api', 'port', '7802')
      const byName = await graph({ view: 'tree', center: 'billing API' })
      assert.equal(byName.view, 'tree')
      assert.equal(byName.center?.id, 'e:billing api')
      assert.equal(byName.center?.label, 'Billing API')
      assert.deepEqual(byName.edges.map((edge) => [edge.source, edge.target, edge.factIds]).sort(), [
        ['e:billing api', 'e:postgres', [database.id]],
        ['e:orders api', 'e:billing api', [calls.id]],
      ])
      assert.deepEqual(edgesOf(byName, gateway.id), [])
      assert.deepEqual(byName.nodes.map((node) => node.id).sort(), ['e:billing api', 'e:orders api', 'e:postgres'])
      assert.deepEqual(await graph({ view: 'tree', center: 'billing api' }), byName)

      // A name of stopwords only has no full-text terms: the candidates come from a scan instead.
      write('The Who', 'genre', 'rock')
      const fan = write('fan club', 'likes', 'the-who')
      assert.deepEqual(
        (await graph({ view: 'tree', center: 'the who' })).edges
          .filter((edge) => edge.target === 'e:the who')
          .map((edge) => edge.factIds),
        [[fan.id]],
      )

      const unknown = await v.call('graph', { view: 'tree', center: 'nobody' })
      assert.equal(!unknown.ok && unknown.code, 'not_found')
      const noCenter = await v.call('graph', { view: 'tree' })
      assert.equal(!noCenter.ok && noCenter.code, 'invalid_arguments')
      const stray = await v.call('graph', { view: 'nebula', center: 'billing api' })
      assert.equal(!stray.ok && stray.code, 'invalid_arguments')
      const extra = await v.call('graph', { depth: 2 })
      assert.equal(!extra.ok && extra.code, 'invalid_arguments')
    })

    it('projects Chinese subjects and values, in the nebula and in the tree', async () => {
      const owner = write('支付服务', '负责人', '张三')
      const dependsOn = write('订单服务', '依赖', '支付服务')
      const nebula = await graph()
      assert.deepEqual(
        edgesOf(nebula, dependsOn.id).map((edge) => [edge.source, edge.target, edge.label]),
        [['e:订单', 'e:支付', '依赖']],
      )
      assert.equal(nodeOf(nebula, 'e:支付')?.label, '支付服务')
      const tree = await graph({ view: 'tree', center: '支付服务' })
      assert.equal(tree.center?.id, 'e:支付')
      assert.deepEqual(
        tree.edges.flatMap((edge) => edge.factIds).sort((a, b) => a - b),
        [owner.id, dependsOn.id],
      )
      assert.ok(tree.nodes.some((node) => node.label === '张三'))
    })

    it("never exposes a credential, and shows the owner's personal data", async () => {
      const memory = verbHarness(driver, { refuseCredentials: false })
      try {
        const key = write('openai', 'api key', 'sk-live-4f9a8b7c6d5e4f3a2b1c0d9e', {}, memory)
        assert.equal(key.sensitivity, 'credential')
        const email = write('openai', 'billing email', 'ops@example.com', {}, memory)
        write('billing-api', 'llm provider', 'openai', {}, memory)
        for (const body of [
          {},
          { scope: 'all' },
          { view: 'tree', center: 'openai' },
          { view: 'tree', center: 'openai', scope: 'all' },
        ]) {
          const payload = await graph(body, memory)
          assert.doesNotMatch(JSON.stringify(payload), /sk-live|api key/u)
          assert.deepEqual(edgesOf(payload, key.id), [])
          assert.equal(
            payload.nodes.find((node) => edgesOf(payload, email.id).some((edge) => edge.target === node.id))?.label,
            'ops@example.com',
          )
        }
      } finally {
        memory.dispose()
      }
    })

    it('reads the current rows with their status and contested flag, and no other rows', async () => {
      const ports = Array.from({ length: 5 }, (_, i) =>
        write(`svc ${i}`, 'port', String(7800 + i), { evidence: 'explicit_user' }),
      )
      const rival = write('svc 0', 'port', '7900')
      write('svc 1', 'port', '7901', { evidence: 'explicit_user' })
      const release = write('release', 'version', '2.0', { validFrom: '2026-03-02' })
      const store = new GraphStore(v.h.db())
      const read = (scope: 'current' | 'all'): [number, string, boolean][] =>
        store.nebula(scope, 300, 1200, names(store)).rows.map((row) => [row.id, row.status, row.contested])
      const all = read('all')
      assert.equal(all.length, 7)
      assert.ok(!all.some(([id]) => id === ports[1]?.id))
      assert.deepEqual(
        all.filter(([, , contested]) => contested).map(([id, status]) => [id, status]),
        [
          [ports[0]?.id, 'active'],
          [rival.id, 'conflict'],
        ],
      )
      assert.deepEqual(
        all.filter(([, status]) => status === 'scheduled').map(([id]) => id),
        [release.id],
      )
      assert.deepEqual(
        read('current'),
        all.filter(([, status]) => status !== 'conflict'),
      )
    })

    it("ranks the nebula's subjects by their current facts in the store, ties by key, and reads only the rows behind them", async () => {
      const a = [
        write('alpha', 'port', '1'),
        write('alpha', 'host', 'h1', { evidence: 'explicit_user' }),
        write('alpha', 'owner', 'ann'),
      ]
      const b = [write('beta', 'port', '2'), write('beta', 'host', 'h2')]
      write('delta', 'port', '4')
      write('delta', 'host', 'h4')
      write('gamma', 'port', '3')
      // Four rows, one of them current: ranked by that one.
      for (const port of ['1', '2', '3', '4']) write('omega', 'port', port, { evidence: 'explicit_user' })
      const store = new GraphStore(v.h.db())
      assert.deepEqual(
        store.nebula('current', 5, 10, names(store)).entities.map((entity) => entity.key),
        ['alpha', 'beta', 'delta', 'gamma', 'omega'],
      )
      const two = store.nebula('current', 2, 10, names(store))
      assert.deepEqual(
        two.entities.map((entity) => entity.key),
        ['alpha', 'beta'],
      )
      assert.deepEqual(
        two.rows.map((row) => row.id),
        [...a, ...b].map((fact) => fact.id),
      )
      assert.deepEqual(two.totals, { entities: 5, facts: 9 })
      // At most `perEntity` rows of one subject, its strongest first.
      assert.deepEqual(
        store.nebula('current', 1, 1, names(store)).rows.map((row) => row.id),
        [a[1]?.id],
      )
      assert.deepEqual(store.nebula('current', 0, 10, names(store)), {
        entities: [],
        named: [],
        rows: [],
        totals: { entities: 5, facts: 9 },
      })
    })

    it('ranks a subject by the facts naming it too: a lead named by three outranks each of the three', async () => {
      for (const subject of ['ann', 'bob', 'cyd']) {
        write(subject, 'reports to', 'lead')
        write(subject, 'port', '1')
        write(subject, 'host', 'h')
      }
      write('lead', 'title', 'group lead')
      const store = new GraphStore(v.h.db())
      const read = store.nebula('current', 3, 10, names(store))
      assert.deepEqual(
        read.entities.map((entity) => entity.key),
        ['lead', 'ann', 'bob'],
      )
      assert.deepEqual(read.named, [])
      assert.ok(read.rows.every((row) => ['lead', 'ann', 'bob'].includes(row.entityKey)))
      // Admitting one: ann (three facts) beats the lead (one fact, one naming it among ann's rows), which ann names.
      const one = store.nebula('current', 1, 10, names(store))
      assert.deepEqual(
        [one.entities.map((entity) => entity.key), one.named.map((entity) => entity.key)],
        [['ann'], ['lead']],
      )
      const payload = await graph()
      assert.equal(payload.nodes.find((node) => node.id === 'e:lead')?.degree, 4)
    })

    it('draws at most 300 subjects, those with the most facts, and counts the subjects and facts it left out', async () => {
      for (let i = 0; i < 302; i += 1) write(`svc ${String(i).padStart(3, '0')}`, 'port', String(7000 + i))
      write('svc 301', 'host', 'h301')
      const payload = await graph()
      const entities = payload.nodes.filter((node) => node.kind === 'entity').map((node) => node.id)
      assert.equal(entities.length, 300)
      assert.ok(entities.includes('e:svc 301'))
      assert.ok(!entities.includes('e:svc 300'))
      assert.equal(payload.omitted.entities, 2)
      assert.equal(payload.omitted.facts, 303 - payload.edges.reduce((sum, edge) => sum + edge.factIds.length, 0))
      assert.ok(payload.omitted.facts >= 2)
    })

    it('reports the store generation it read, and re-reads the rows on every request', async () => {
      const empty = await graph()
      assert.deepEqual([empty.nodes, empty.edges, empty.center, empty.generation], [[], [], null, v.generation()])
      assert.deepEqual(empty.limits, { nodes: 600, edges: 1200, entities: 300 })
      write('billing-api', 'port', '7801')
      const next = await graph()
      assert.equal(next.generation, v.generation())
      assert.equal(next.edges.length, 1)
      assert.equal((await graph({ view: 'tree', center: 'billing-api' })).generation, v.generation())
    })
  })
}
