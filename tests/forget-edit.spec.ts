/**
 * Forgetting from the page (fact-forget) and putting a past value back (fact-put-back), through the real verb table
 * on a real store, one SQLite binding: the fence (stale generation refused, a replayed operation id answered from
 * its receipt), the same tombstones memory_forget writes, an undo that gives every table back row for row, an undo
 * refused once a new value stands in the slot, and an export and import that keep the tombstones.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { Database } from '../src/store/database.ts'
import type { Fact } from '../src/types.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'
import { indexedTerms } from './helpers/fts-terms.ts'
import { instantColumn } from '../src/store/fact-rows.ts'
import { ONE_DRIVER } from './helpers/store.ts'

/** Every table a forget or its undo writes, each row in full, in a fixed order. */
function tables(db: Database): Record<string, unknown[]> {
  return {
    facts: db.all('SELECT * FROM facts ORDER BY id'),
    conflict_groups: db.all('SELECT * FROM conflict_groups ORDER BY id'),
    tombstones: db.all('SELECT * FROM tombstones ORDER BY id'),
    facts_fts: [...indexedTerms(db.path)],
    fact_identifiers: db.all('SELECT * FROM fact_identifiers ORDER BY fact_id, ident'),
    fact_sources: db.all('SELECT * FROM fact_sources ORDER BY id'),
    entities: db.all('SELECT * FROM entities ORDER BY id'),
    directory_counts: db.all('SELECT * FROM directory_counts'),
    // A counter left at zero and an absent one say the same.
    fact_counts: db.all('SELECT * FROM fact_counts WHERE n <> 0 ORDER BY status, evidence'),
  }
}

for (const driver of ONE_DRIVER) {
  describe(`forget from the page (${driver})`, () => {
    let v: VerbHarness
    beforeEach(() => {
      v = verbHarness(driver)
    })
    afterEach(() => v.dispose())

    const write = (subject: string, property: string, value: string, extra: Record<string, unknown> = {}): Fact => {
      const answer = v.h.memory.write(
        { subject, property, value, evidence: 'observed', origin: 'tool', ...extra },
        v.h.config,
      )
      if (answer.kind !== 'saved' && answer.kind !== 'conflict') throw new Error(`write ${answer.kind}`)
      return answer.fact
    }
    const db = (): Database => v.h.db()

    it('forgets one fact with the tombstones memory_forget writes, and the claim cannot be written back', async () => {
      const page = write('billing-api', 'port', '7801', { quote: 'billing runs on 7801' })
      const tool = write('orders-api', 'port', '7802', { quote: 'orders runs on 7802' })
      const answer = await v.ok('fact-forget', v.fence({ id: page.id }))
      assert.deepEqual(
        (answer['forgotten'] as { id: number }[]).map((fact) => fact.id),
        [page.id],
      )
      assert.equal(v.h.memory.forgetById(tool.id).kind, 'forgotten')
      const tombs = db().all('SELECT kind, fact_id FROM tombstones ORDER BY id')
      assert.deepEqual(
        tombs.map((row) => [row['kind'], row['fact_id']]),
        [
          ['claim', page.id],
          ['evidence', page.id],
          ['claim', tool.id],
          ['evidence', tool.id],
        ],
      )
      assert.equal(db().get('SELECT status FROM facts WHERE id = ?', page.id)?.['status'], 'forgotten')
      const again = v.h.memory.write(
        { subject: 'billing-api', property: 'port', value: '7801', evidence: 'explicit_user', origin: 'tool' },
        v.h.config,
      )
      assert.equal(again.kind, 'refused')
    })

    it('refuses a stale generation and answers a replayed operation id from its receipt, forgetting once', async () => {
      const fact = write('billing-api', 'port', '7801')
      const generation = v.generation()
      const stale = await v.call('fact-forget', {
        id: fact.id,
        expectedGeneration: generation - 1,
        operationId: v.op(),
      })
      assert.ok(!stale.ok && stale.code === 'stale')
      assert.deepEqual(!stale.ok && stale.details, { stale: true, generation })
      assert.equal(db().get('SELECT status FROM facts WHERE id = ?', fact.id)?.['status'], 'active')
      const body = v.fence({ id: fact.id })
      const first = await v.ok('fact-forget', body)
      const after = v.generation()
      const tombs = tables(db()).tombstones
      const second = await v.ok('fact-forget', body)
      assert.equal(second['replayed'], true)
      assert.equal(second['editId'], first['editId'])
      assert.equal(v.generation(), after)
      assert.deepEqual(tables(db()).tombstones, tombs)
    })

    it('undoes a forget of one side of a conflict exactly: the survivor, the group and the indexes come back row for row', async () => {
      const stated = write('billing-api', 'port', '7801', { evidence: 'explicit_user' })
      const rival = write('billing-api', 'port', '7802')
      assert.equal(rival.status, 'conflict')
      const before = tables(db())
      const forgot = await v.ok('fact-forget', v.fence({ id: stated.id }))
      assert.equal(db().get('SELECT status FROM facts WHERE id = ?', rival.id)?.['status'], 'active')
      assert.equal(
        db().get('SELECT status FROM conflict_groups WHERE id = ?', rival.conflictGroupId)?.['status'],
        'closed',
      )
      v.clock.advance(60_000)
      const undone = await v.ok('fact-restore', v.fence({ editId: forgot['editId'] }))
      assert.equal(undone['kind'], 'forget')
      assert.deepEqual(tables(db()), before)
      // The claim is free again: writing it is a duplicate, not a refusal.
      assert.equal(
        v.h.memory.write(
          { subject: 'billing-api', property: 'port', value: '7801', evidence: 'observed', origin: 'tool' },
          v.h.config,
        ).kind,
        'duplicate',
      )
    })

    it('forgets a subject or one property of it, history included, and the undo gives every row back', async () => {
      write('支付服务', '端口', '7801')
      v.clock.advance(60_000)
      write('支付服务', '端口', '7901', { evidence: 'explicit_user' })
      write('支付服务', 'owner', 'team-pay')
      write('orders-api', 'port', '7802')
      const entityKey = String(db().get(`SELECT entity_key FROM entities WHERE display = '支付服务'`)?.['entity_key'])
      const before = tables(db())
      const byProperty = await v.ok('fact-forget', v.fence({ entityKey, property: '端口' }))
      assert.equal((byProperty['forgotten'] as unknown[]).length, 2)
      await v.ok('fact-restore', v.fence({ editId: byProperty['editId'] }))
      assert.deepEqual(tables(db()), before)
      const bySubject = await v.ok('fact-forget', v.fence({ entityKey }))
      assert.equal((bySubject['forgotten'] as unknown[]).length, 3)
      assert.equal(
        Number(db().get(`SELECT count(*) AS n FROM facts WHERE status <> 'forgotten' AND subject = '支付服务'`)?.['n']),
        0,
      )
      await v.ok('fact-restore', v.fence({ editId: bySubject['editId'] }))
      assert.deepEqual(tables(db()), before)
      const missing = await v.call('fact-forget', v.fence({ entityKey: 'no-such-subject' }))
      assert.ok(!missing.ok && missing.code === 'not_found')
    })

    it('keeps no value or quote in the edit it records, so a forgotten credential is not copied, and still undoes it', async () => {
      v.dispose()
      v = verbHarness(driver, { refuseCredentials: false })
      const secret = 'sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c'
      const token = write('deploy bot', 'api token', secret, {
        evidence: 'explicit_user',
        quote: `the deploy bot token is ${secret}`,
      })
      assert.equal(token.sensitivity, 'credential')
      const before = tables(db())
      const forgot = await v.ok('fact-forget', v.fence({ id: token.id }))
      const recorded = String(
        db().get('SELECT changed FROM fact_edits WHERE id = ?', Number(forgot['editId']))?.['changed'],
      )
      assert.ok(!recorded.includes(secret) && !recorded.includes('sk-live'), 'the edit holds no part of the credential')
      assert.ok(!recorded.includes('"value"') && !recorded.includes('"quote"'))
      await v.ok('fact-restore', v.fence({ editId: forgot['editId'] }))
      assert.deepEqual(tables(db()), before)
    })

    it('refuses the undo once a new value stands in the slot, naming it, and changes nothing', async () => {
      const fact = write('billing-api', 'port', '7801')
      const forgot = await v.ok('fact-forget', v.fence({ id: fact.id }))
      const newcomer = write('billing-api', 'port', '9000')
      const before = tables(db())
      const undo = await v.call('fact-restore', v.fence({ editId: forgot['editId'] }))
      assert.ok(!undo.ok && undo.code === 'refused')
      assert.deepEqual(!undo.ok && undo.details, { movedFactIds: [newcomer.id] })
      assert.deepEqual(tables(db()), before)
    })

    it('exports the tombstones, and an import into another store keeps refusing the forgotten claim', async () => {
      const kept = write('billing-api', 'owner', 'team-billing')
      const gone = write('billing-api', 'port', '7801')
      await v.ok('fact-forget', v.fence({ id: gone.id }))
      const exported = await v.ok('export', { backup: false })
      const lines = readFileSync(String(exported['path']), 'utf8')
        .split('\n')
        .slice(1, -1)
        .map((text) => JSON.parse(text) as Record<string, unknown>)
      // records counts the fact lines, as seed 000 defines it; the tombstone lines have their own count.
      assert.deepEqual([exported['records'], exported['tombstones']], [1, 2])
      assert.deepEqual(
        lines.map((line) => line['tombstone'] ?? line['value']),
        ['team-billing', 'claim', 'evidence'],
      )
      const tombs = db().all('SELECT kind, key, created_at FROM tombstones ORDER BY id')
      assert.deepEqual(
        lines.slice(1).map((line) => [line['tombstone'], line['key'], line['forgottenAt']]),
        tombs.map((row) => [row['kind'], row['key'], row['created_at']]),
      )
      assert.equal(kept.status, 'active')

      const other = verbHarness(driver)
      try {
        const content = readFileSync(String(exported['path']), 'utf8')
        const preview = await other.ok('import', { mode: 'preview', content })
        assert.equal(preview['restore'], false)
        assert.deepEqual(preview['tombstones'], { total: 2, known: 0, forgets: [], forgetsTotal: 0 })
        const committed = await other.ok('import', {
          mode: 'commit',
          content,
          token: preview['token'],
          expectedGeneration: other.generation(),
          operationId: other.op(),
        })
        assert.deepEqual(committed['tombstones'], { total: 2, added: 2 })
        assert.deepEqual(other.h.db().all('SELECT kind, key, created_at FROM tombstones ORDER BY id'), tombs)
        const again = other.h.memory.write(
          { subject: 'billing-api', property: 'port', value: '7801', evidence: 'explicit_user', origin: 'tool' },
          other.h.config,
        )
        assert.equal(again.kind, 'refused')
        // A second export of the importing store carries the same tombstone lines.
        const second = await other.ok('export', { backup: false })
        const secondLines = readFileSync(String(second['path']), 'utf8').split('\n').slice(1, -1)
        assert.deepEqual(
          secondLines.filter((line) => line.includes('"tombstone"')),
          readFileSync(String(exported['path']), 'utf8').split('\n').slice(2, -1),
        )
      } finally {
        other.dispose()
      }
    })

    it('refuses a tombstone line that is not one, naming the line, and imports the rest', async () => {
      const content = [
        JSON.stringify({ subject: 'billing-api', property: 'owner', value: 'team-billing' }),
        JSON.stringify({ tombstone: 'claim', key: 'not-a-hash', forgottenAt: '2026-01-01' }),
      ].join('\n')
      const preview = await v.ok('import', { mode: 'preview', content })
      assert.deepEqual(preview['counts'], { new: 1, duplicate: 0, repeated: 0, conflict: 0, tombstoned: 0, invalid: 1 })
      assert.match(JSON.stringify(preview['invalid']), /"line":2.*key: must be 64 lowercase hex digits/u)
    })
  })

  describe(`put a past value back (${driver})`, () => {
    let v: VerbHarness
    beforeEach(() => {
      v = verbHarness(driver)
    })
    afterEach(() => v.dispose())
    const write = (value: string): Fact => {
      const answer = v.h.memory.write(
        { subject: 'billing-api', property: 'port', value, evidence: 'explicit_user', origin: 'tool' },
        v.h.config,
      )
      if (answer.kind !== 'saved') throw new Error(`write ${answer.kind}`)
      return answer.fact
    }
    const row = (id: number) => v.h.db().get(`SELECT *, ${instantColumn('valid_to')} FROM facts WHERE id = ?`, id) ?? {}
    /** A row without what every undo moves on: its revision and when it was last touched. */
    const shape = (id: number) => {
      const { revision: _revision, updated_at: _updated, ...rest } = row(id)
      return rest
    }

    it("makes the older value current as the user's confirmed edit, supersedes the current one at that instant, and undoes both", async () => {
      const old = write('7801')
      v.clock.advance(3_600_000)
      const current = write('7802')
      v.clock.advance(3_600_000)
      const oldBefore = shape(old.id)
      const currentBefore = shape(current.id)
      const revisions = [Number(row(old.id)['revision']), Number(row(current.id)['revision'])]
      const put = await v.ok('fact-put-back', v.fence({ id: old.id }))
      const back = put['fact'] as {
        id: number
        value: string
        status: string
        evidence: string
        validFrom: string
        origin: string
      }
      assert.deepEqual(
        [back.value, back.status, back.evidence, back.origin, back.validFrom],
        ['7801', 'active', 'confirmed_user', 'page', v.clock.iso()],
      )
      assert.deepEqual(
        [row(current.id)['status'], row(current.id)['valid_to'], row(current.id)['superseded_by']],
        ['superseded', v.clock.iso(), back.id],
      )
      assert.deepEqual(shape(old.id), oldBefore, 'the past row itself stays as history')
      assert.deepEqual(
        v.h
          .db()
          .all('SELECT origin, evidence FROM fact_sources WHERE fact_id = ?', back.id)
          .map((source) => ({ ...source })),
        [{ origin: 'page', evidence: 'confirmed_user' }],
      )

      const replay = await v.ok('fact-put-back', {
        ...v.fence({ id: old.id }),
        operationId: put['operationId'],
        expectedGeneration: Number(put['generation']) - 1,
      })
      assert.equal(replay['replayed'], true)
      const stale = await v.call('fact-put-back', {
        id: current.id,
        expectedGeneration: v.generation() - 1,
        operationId: v.op(),
      })
      assert.ok(!stale.ok && stale.code === 'stale')

      v.clock.advance(60_000)
      await v.ok('fact-restore', v.fence({ editId: put['editId'] }))
      assert.deepEqual(shape(current.id), currentBefore)
      assert.deepEqual(shape(old.id), oldBefore)
      assert.equal(row(back.id)['status'], 'retired')
      assert.ok(Number(row(current.id)['revision']) > (revisions[1] ?? 0))
    })

    it('settles a contested slot when a past value is put back, and the undo reopens the contest as it was', async () => {
      const old = write('7801')
      v.clock.advance(3_600_000)
      const stated = write('7802')
      const rival = v.h.memory.write(
        { subject: 'billing-api', property: 'port', value: '7803', evidence: 'observed', origin: 'tool' },
        v.h.config,
      )
      assert.equal(rival.kind, 'conflict')
      if (rival.kind !== 'conflict') return
      const group = () => ({
        ...v.h
          .db()
          .get('SELECT status, closed_at, settled_by FROM conflict_groups WHERE id = ?', rival.fact.conflictGroupId),
      })
      const before = { stated: shape(stated.id), rival: shape(rival.fact.id), group: group() }
      assert.equal(before.group['status'], 'open')
      v.clock.advance(60_000)
      const put = await v.ok('fact-put-back', v.fence({ id: old.id }))
      const back = put['fact'] as { id: number }
      assert.deepEqual(
        [row(back.id)['status'], row(stated.id)['status'], row(rival.fact.id)['status'], group()['status']],
        ['active', 'superseded', 'retired', 'closed'],
      )
      v.clock.advance(60_000)
      await v.ok('fact-restore', v.fence({ editId: put['editId'] }))
      assert.deepEqual({ stated: shape(stated.id), rival: shape(rival.fact.id), group: group() }, before)
      assert.equal(row(back.id)['status'], 'retired')
    })

    it('refuses a value that is already current, a forgotten one and an unknown id', async () => {
      const current = write('7801')
      const refused = await v.call('fact-put-back', v.fence({ id: current.id }))
      assert.ok(!refused.ok && refused.code === 'refused')
      const missing = await v.call('fact-put-back', v.fence({ id: 999 }))
      assert.ok(!missing.ok && missing.code === 'not_found')
      const next = write('7802')
      assert.equal(row(current.id)['status'], 'superseded')
      assert.equal(v.h.memory.forgetById(current.id).kind, 'forgotten')
      const forgotten = await v.call('fact-put-back', v.fence({ id: current.id }))
      assert.ok(!forgotten.ok && forgotten.code === 'not_found')
      assert.equal(row(next.id)['status'], 'active')
    })
  })
}
