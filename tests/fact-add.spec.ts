/**
 * Adding a fact from the page (fact-add), through the real verb table on a real store, one SQLite binding: the
 * user's own statement (explicit_user, origin page) through the one write path, the fence (stale generation refused,
 * a replayed operation id answered from its receipt), the privacy scan (a credential refused and nothing stored,
 * personal data stored sensitive), a tombstoned claim refused, a superseded value named, and the undo.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { Database } from '../src/store/database.ts'
import type { Fact } from '../src/types.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'
import { ONE_DRIVER } from './helpers/store.ts'

/** What a refused add must leave alone: every fact, source, edit and receipt. */
function counts(db: Database): Record<string, number> {
  const n = (sql: string): number => Number(db.get(sql)?.['n'])
  return {
    facts: n('SELECT count(*) AS n FROM facts'),
    operations: n('SELECT count(*) AS n FROM operations'),
    sources: n('SELECT count(*) AS n FROM fact_sources'),
    edits: n('SELECT count(*) AS n FROM fact_edits'),
    proposals: n('SELECT count(*) AS n FROM proposals'),
    generation: db.generation(),
  }
}

/** Every row but its revision and update instant (which an undo bumps), for comparing before and after an undo. */
function rows(db: Database, except: readonly number[] = []): unknown[] {
  return db
    .all(
      'SELECT id, subject, property, value, status, evidence, valid_from, valid_to, superseded_by, conflict_group_id, multi, scope FROM facts ORDER BY id',
    )
    .filter((row) => !except.includes(Number(row['id'])))
}

for (const driver of ONE_DRIVER) {
  describe(`add a fact from the page (${driver})`, () => {
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

    it("records the user's own statement from the page, and the undo takes exactly that row out of the current set", async () => {
      const other = write('orders-api', 'port', '7802')
      const before = rows(db())
      const answer = await v.ok('fact-add', v.fence({ subject: 'billing-api', property: 'port', value: '7801' }))
      assert.equal(answer['outcome'], 'saved')
      const fact = answer['fact'] as { id: number; evidence: string; status: string; scope: string }
      assert.deepEqual([fact.evidence, fact.status, fact.scope], ['explicit_user', 'active', 'global'])
      assert.deepEqual(
        db()
          .all('SELECT origin, evidence FROM fact_sources WHERE fact_id = ?', fact.id)
          .map((row) => [row['origin'], row['evidence']]),
        [['page', 'explicit_user']],
      )
      assert.deepEqual(rows(db(), [fact.id]), before)
      v.clock.advance(60_000)
      await v.ok('fact-restore', v.fence({ editId: answer['editId'] }))
      assert.deepEqual(rows(db(), [fact.id]), before)
      assert.equal(db().get('SELECT status FROM facts WHERE id = ?', fact.id)?.['status'], 'retired')
      const current = db()
        .all(`SELECT id FROM facts WHERE status IN ('active', 'scheduled', 'conflict') ORDER BY id`)
        .map((row) => Number(row['id']))
      assert.deepEqual(current, [other.id])
    })

    it('names the value it supersedes, and the undo puts that value back as it was', async () => {
      const old = write('billing-api', 'port', '7801')
      const before = rows(db())
      const answer = await v.ok('fact-add', v.fence({ subject: 'billing-api', property: 'port', value: '9000' }))
      assert.equal(answer['outcome'], 'saved')
      assert.deepEqual(
        (answer['superseded'] as { id: number; value: string }[]).map((row) => [row.id, row.value]),
        [[old.id, '7801']],
      )
      assert.equal(db().get('SELECT status FROM facts WHERE id = ?', old.id)?.['status'], 'superseded')
      const added = (answer['fact'] as { id: number }).id
      await v.ok('fact-restore', v.fence({ editId: answer['editId'] }))
      assert.deepEqual(rows(db(), [added]), before)
    })

    it('keeps a second value beside the first when multi is ticked', async () => {
      write('billing-api', 'maintainer', 'alice')
      const answer = await v.ok(
        'fact-add',
        v.fence({ subject: 'billing-api', property: 'maintainer', value: 'bob', multi: true }),
      )
      assert.equal(answer['outcome'], 'saved')
      assert.deepEqual(answer['superseded'], [])
      const values = db()
        .all(`SELECT value FROM facts WHERE status = 'active' AND property = 'maintainer' ORDER BY id`)
        .map((row) => row['value'])
      assert.deepEqual(values, ['alice', 'bob'])
    })

    it('refuses a stale generation and answers a replayed operation id from its receipt, writing once', async () => {
      const generation = v.generation()
      const stale = await v.call('fact-add', {
        expectedGeneration: generation + 5,
        operationId: v.op(),
        subject: 'a',
        property: 'b',
        value: 'c',
      })
      assert.ok(!stale.ok && stale.code === 'stale')
      assert.equal(v.generation(), generation)
      const body = v.fence({ subject: 'billing-api', property: 'owner', value: 'team-billing' })
      const first = await v.ok('fact-add', body)
      const again = await v.ok('fact-add', body)
      assert.equal(again['replayed'], true)
      assert.equal(again['editId'], first['editId'])
      assert.equal(Number(db().get(`SELECT count(*) AS n FROM facts WHERE property = 'owner'`)?.['n']), 1)
      assert.equal(v.generation(), generation + 1)
    })

    it('refuses a credential with a clear message and stores nothing of it', async () => {
      const before = counts(db())
      const secret = 'sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c'
      const answer = await v.call('fact-add', v.fence({ subject: 'deploy bot', property: 'api token', value: secret }))
      assert.ok(!answer.ok && answer.code === 'credential_refused')
      assert.match(answer.message, /credential/iu)
      assert.deepEqual(counts(db()), before)
      const stored = JSON.stringify(db().all('SELECT * FROM operations'))
      assert.ok(!stored.includes('sk-live'))
    })

    it('stores personal data as sensitive and says why', async () => {
      const answer = await v.ok(
        'fact-add',
        v.fence({ subject: '小明', property: 'email', value: 'xiaoming@example.com' }),
      )
      assert.equal((answer['fact'] as { sensitivity: string | null }).sensitivity, 'email')
      assert.match(String(answer['sensitivityReason']), /email/u)
    })

    it('refuses a claim the user forgot, and changes nothing', async () => {
      const gone = write('billing-api', 'port', '7801')
      await v.ok('fact-forget', v.fence({ id: gone.id }))
      const before = counts(db())
      const answer = await v.call('fact-add', v.fence({ subject: 'billing-api', property: 'port', value: '7801' }))
      assert.ok(!answer.ok && answer.code === 'tombstoned')
      assert.deepEqual(counts(db()), before)
    })

    it('settles an open conflict on the value the user states, and answers a restatement as already stored', async () => {
      const first = write('billing-api', 'region', 'eu-west', { evidence: 'explicit_user' })
      const rival = write('billing-api', 'region', 'us-east')
      assert.equal(rival.status, 'conflict')
      const same = await v.ok('fact-add', v.fence({ subject: 'billing-api', property: 'region', value: 'eu-west' }))
      assert.equal(same['outcome'], 'duplicate')
      assert.equal((same['fact'] as { id: number }).id, first.id)
      assert.equal(db().get('SELECT status FROM facts WHERE id = ?', rival.id)?.['status'], 'retired')
      assert.notEqual(same['editId'], null)
    })

    it('refuses bad input and a project the store does not hold, changing nothing', async () => {
      const before = counts(db())
      for (const body of [
        { subject: 'a', property: 'b', value: '  ' },
        { subject: 'a', property: 'b' },
        { subject: 'a', property: 'b', value: 'c', scope: 'project:/nowhere' },
      ]) {
        const answer = await v.call('fact-add', v.fence(body))
        assert.ok(!answer.ok && answer.code === 'invalid_arguments', JSON.stringify(body))
      }
      assert.deepEqual(counts(db()), before)
    })
  })
}
