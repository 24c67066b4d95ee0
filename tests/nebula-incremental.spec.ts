/**
 * The nebula after a change reads only what changed: the store keeps each entity's row count between projections
 * and recounts the entities of rows added or changed since, and the graph verb's namer learns only the entities added
 * since. Both must answer exactly as a projection made from nothing would, through writes that reorder the ranking,
 * a merge that moves rows between entities, a forget, and a cleared library whose entity ids start over.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { entityNamer, GrowingEntityNamer } from '../src/graph-entity-names.ts'
import type { GraphPayload } from '../src/graph-types.ts'
import { GraphStore, type NebulaRead } from '../src/store/graph-store.ts'
import { DRIVERS } from './helpers/store.ts'
import { storesOf } from './helpers/vectors.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

describe('the growing entity namer', () => {
  it('answers as a namer built over every key at once, whichever order the keys arrive in', () => {
    const keys = ['billing api', 'auth', 'auth gateway', '支付', 'ledger', 'ana lopez', 'ops']
    const values = [
      'billing-api',
      'Auth Gateway service',
      'auth',
      '支付服务',
      'the ledger',
      'Ana López',
      'ops team',
      'nothing known',
      'billing api v2',
    ]
    const whole = entityNamer(new Set(keys))
    const growing = new GrowingEntityNamer()
    growing.add(keys.slice(0, 3))
    growing.add(keys.slice(2))
    growing.add(['auth'])
    for (const value of values) {
      for (const own of ['', 'auth']) assert.equal(growing.name(value, own), whole(value, own), `${value} (own ${own})`)
    }
    assert.equal(growing.name('billing-api', ''), 'billing api', 'a namer that can fail')
  })
})

for (const driver of DRIVERS) {
  describe(`the nebula read after changes (${driver})`, () => {
    let v: VerbHarness
    beforeEach(() => {
      v = verbHarness(driver)
    })
    afterEach(() => v.dispose())

    const write = (subject: string, property: string, value: string): void => {
      const answer = v.h.memory.write(
        { subject, property, value, evidence: 'observed', origin: 'tool', multi: true },
        v.h.config,
      )
      assert.ok(answer.kind === 'saved' || answer.kind === 'duplicate', JSON.stringify(answer))
    }
    const read = (store: GraphStore): NebulaRead => store.nebula('current', 6, 4, entityNamer(store.entityKeys()))
    const shape = (nebula: NebulaRead): unknown => ({
      entities: nebula.entities.map((entity) => entity.key),
      rows: nebula.rows.map((row) => row.id),
      totals: nebula.totals,
    })

    it('ranks and reads as a fresh read would after every kind of change', async () => {
      const kept = storesOf(v.h.memory).graph
      const check = (label: string): void => {
        const fresh = new GraphStore(storesOf(v.h.memory).db)
        assert.deepEqual(shape(read(kept)), shape(read(fresh)), label)
      }
      for (let i = 0; i < 12; i += 1) {
        for (let j = 0; j <= i % 4; j += 1) write(`service ${i}`, 'depends on', `service ${(i + j + 1) % 12}`)
      }
      check('first read')
      check('unchanged')
      // Rows added to the least-ranked subjects lift them into the admitted six.
      for (let j = 0; j < 5; j += 1) write('service 0', 'owner', `team ${j}`)
      for (let j = 0; j < 6; j += 1) write('newcomer', 'region', `eu-${j}`)
      check('after writes')
      // A merge moves every row of one subject to another.
      await v.ok('subject-rename', v.fence({ entityKey: 'service 4', to: 'service 1' }))
      check('after a merge')
      const fact = v.h.memory.searchLexical({ query: 'newcomer region', limit: 5, asOf: undefined }, v.h.config)
      assert.ok(fact.outcome === 'ok')
      for (const row of v.h.db().all(`SELECT id FROM facts WHERE subject = 'newcomer' AND status = 'active' LIMIT 4`)) {
        v.h.memory.forgetById(Number(row['id']))
      }
      check('after forgetting')
      const first = await v.call('wipe', v.fence())
      const token = first.ok ? undefined : first.details?.['confirmToken']
      await v.ok('wipe', v.fence({ confirmToken: token }))
      check('after clearing')
      for (let j = 0; j < 3; j += 1) write('fresh start', 'uses', `tool ${j}`)
      check('after clearing and writing again')
    })

    it('draws the relations of a library cleared and written again, its entity ids starting over', async () => {
      write('alpha', 'depends on', 'beta')
      write('beta', 'owner', 'ops')
      const before = (await v.ok('graph', {})) as unknown as GraphPayload
      assert.ok(
        before.edges.some((edge) => edge.source.endsWith('alpha') && edge.target.endsWith('beta')),
        JSON.stringify(before.edges),
      )
      const first = await v.call('wipe', v.fence())
      await v.ok('wipe', v.fence({ confirmToken: first.ok ? undefined : first.details?.['confirmToken'] }))
      // Two new subjects take the ids alpha and beta had: the namer must know gamma and delta, not alpha and beta.
      write('gamma', 'depends on', 'delta')
      write('delta', 'owner', 'ops')
      const after = (await v.ok('graph', {})) as unknown as GraphPayload
      assert.ok(
        after.edges.some((edge) => edge.source.endsWith('gamma') && edge.target.endsWith('delta')),
        JSON.stringify(after.edges),
      )
    })
  })
}
