/**
 * Large imports on a real store, both SQLite bindings: the size cap said in words, lines repeated within one file
 * counted as repeated rather than already stored, reading, checking, previewing and committing a file in slices that
 * hand the event loop back to other routes (a commit stays one transaction: others read on, their writes are refused
 * as busy), and the commit's Undo taking back exactly what the import did.
 */
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { IMPORT_FILE_LIMIT } from '../src/management/import.ts'
import type { Database } from '../src/store/database.ts'
import { count, DRIVERS, write, writeFact } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

/** The store's own connection, the one the verbs write through. */
const storeDb = (v: VerbHarness): Database => {
  const opened = v.h.memory.storeSet()
  if (!('stores' in opened)) throw new Error('the store is not open')
  return opened.stores.db
}

/** A file of `lines` distinct facts, one line each. */
const manyFacts = (lines: number): string =>
  Array.from(
    { length: lines },
    (_, i) =>
      `${JSON.stringify({ subject: `host-${i % 400}`, property: `port ${Math.floor(i / 400)}`, value: String(7000 + i) })}\n`,
  ).join('')

for (const driver of DRIVERS) {
  describe(`large imports (${driver})`, () => {
    let v: VerbHarness

    beforeEach(() => {
      v = verbHarness(driver)
    })
    afterEach(() => v.dispose())

    it('refuses a file above 16 MB with its size and the limit in words, from the data directory or inline, writing nothing', async () => {
      assert.equal(IMPORT_FILE_LIMIT, 16 * 1024 * 1024)
      mkdirSync(join(v.h.dataDir, 'exports'), { recursive: true })
      const line = `${JSON.stringify({ subject: 'padding', property: 'note', value: 'x'.repeat(1000) })}\n`
      writeFileSync(
        join(v.h.dataDir, 'exports', 'big.jsonl'),
        line.repeat(Math.ceil((17.2 * 1024 * 1024) / line.length)),
      )
      const generation = v.generation()
      const fromDisk = await v.call('import', { mode: 'preview', path: 'exports/big.jsonl' })
      assert.equal(fromDisk.ok, false)
      assert.match(
        !fromDisk.ok ? fromDisk.message : '',
        /^the file exports\/big\.jsonl is 17\.2 MB; imports take up to 16 MB\./u,
      )
      const inline = line.repeat(Math.ceil((16.5 * 1024 * 1024) / line.length))
      const fromPage = await v.call('import', { mode: 'commit', content: inline, token: 'x'.repeat(43), ...v.fence() })
      assert.equal(fromPage.ok, false)
      assert.match(!fromPage.ok ? fromPage.message : '', /^the file is 16\.5 MB; imports take up to 16 MB\./u)
      assert.equal(v.generation(), generation)
      assert.equal(count(v.h.db(), 'SELECT count(*) AS n FROM facts'), 0)
    })

    it('counts lines repeated within one file as repeated, not already stored, in the preview and the commit', async () => {
      const stored = writeFact(v.h.memory, v.h.config, { subject: 'billing-api', property: 'port', value: '7801' })
      const line = (value: string): string =>
        `${JSON.stringify({ subject: 'billing-api', property: value === '7801' ? 'port' : 'owner', value })}\n`
      const content = line('7801') + line('team blue') + line('team blue') + line('7801') + line('team blue')
      const preview = await v.ok('import', { mode: 'preview', content })
      assert.deepEqual(preview['counts'], { new: 1, duplicate: 2, repeated: 2, conflict: 0, tombstoned: 0, invalid: 0 })
      const rows = preview['records'] as { line: number; class: string; sameAsLine?: number; factId?: number }[]
      assert.deepEqual(
        rows.map((row) => [row.line, row.class, row.sameAsLine ?? row.factId ?? null]),
        [
          [1, 'duplicate', stored.id],
          [2, 'new', null],
          [3, 'repeated', 2],
          [4, 'duplicate', stored.id],
          [5, 'repeated', 2],
        ],
      )
      const commit = await v.ok('import', { mode: 'commit', content, token: preview['token'], ...v.fence() })
      assert.deepEqual(commit['counts'], preview['counts'])
      assert.deepEqual(
        commit['duplicateIds'],
        [stored.id, stored.id],
        'only rows stored before the import are already stored',
      )
    })

    it('hands the event loop back while it reads and previews a large file, and while a commit reads it', async () => {
      const content = manyFacts(4000)
      const turnsDuring = async (work: () => Promise<unknown>): Promise<number> => {
        let turns = 0
        let running = true
        const tick = (): void => {
          if (!running) return
          turns += 1
          setTimeout(tick, 0)
        }
        setTimeout(tick, 0)
        await work()
        running = false
        return turns
      }
      let token: unknown
      const previewTurns = await turnsDuring(async () => {
        token = (await v.ok('import', { mode: 'preview', content }))['token']
      })
      assert.ok(previewTurns > 1, `other work ran ${previewTurns} times during the preview`)
      const commitTurns = await turnsDuring(() => v.ok('import', { mode: 'commit', content, token, ...v.fence() }))
      assert.ok(commitTurns > 1, `other work ran ${commitTurns} times during the commit`)
      assert.equal(count(v.h.db(), `SELECT count(*) AS n FROM facts WHERE status = 'active'`), 4000)
    })

    it('commits as one transaction in slices: reads answer meanwhile, writes are refused as busy and change nothing', async () => {
      const content = manyFacts(3000)
      const token = (await v.ok('import', { mode: 'preview', content }))['token']
      const generation = v.generation()
      const probe = v.h.db()
      const commit = v.ok('import', { mode: 'commit', content, token, ...v.fence() })
      let settled = false
      void commit.then(() => {
        settled = true
      })
      const db = storeDb(v)
      while (!db.busy && !settled)
        await new Promise((resolve) => {
          setImmediate(resolve)
        })
      assert.ok(!settled, 'the commit handed the event loop back while its transaction was open')
      const status = await v.call('status', {})
      assert.equal(status.ok, true, 'a read answers while the commit runs')
      assert.ok(!settled, 'and answers before the commit ends')
      assert.equal(
        count(probe, 'SELECT count(*) AS n FROM facts'),
        0,
        'another connection sees nothing of the import before its end',
      )
      const refused = write(v.h.memory, v.h.config, { subject: 'pager', property: 'rota', value: 'weekly' })
      assert.equal(refused.kind, 'unavailable')
      assert.equal(refused.kind === 'unavailable' && refused.code, 'busy')
      assert.match(
        refused.kind === 'unavailable' ? refused.message : '',
        /taking in a large import; nothing was changed/u,
      )
      // Thrown as a closed code; the route shell answers it as 503 (host-exchange.spec.ts).
      await assert.rejects(
        v.call('fact-add', {
          subject: 'pager',
          property: 'rota',
          value: 'weekly',
          expectedGeneration: generation,
          operationId: v.op(),
        }),
        (error: unknown) => error instanceof Error && 'code' in error && error.code === 'busy',
      )
      assert.ok(!settled)
      const answer = await commit
      assert.equal((answer['counts'] as { new: number }).new, 3000)
      assert.equal(answer['generation'], generation + 1, 'one commit, one generation')
      assert.equal(v.generation(), generation + 1)
      assert.equal(
        count(v.h.db(), `SELECT count(*) AS n FROM facts WHERE value = 'weekly'`),
        0,
        'the refused writes left nothing',
      )
      assert.equal(
        write(v.h.memory, v.h.config, { subject: 'pager', property: 'rota', value: 'weekly' }).kind,
        'saved',
        'and may be made now',
      )
    })

    it('rolls the whole commit back when it fails half way, leaving the store as it was', async () => {
      const db = storeDb(v)
      writeFact(v.h.memory, v.h.config, { subject: 'kept', property: 'note', value: 'before' })
      const generation = v.generation()
      let seenMeanwhile = ''
      await assert.rejects(
        db.transactionInSlices(async (slice) => {
          slice(() => db.run(`UPDATE facts SET value = 'changed' WHERE subject = 'kept'`))
          await new Promise((resolve) => {
            setImmediate(resolve)
          })
          // Another turn reads the directory meanwhile: one connection, so it sees the slice's row.
          seenMeanwhile = v.h.memory.directory(v.h.config, null)
          slice(() => {
            slice(() => db.get('SELECT 1 AS one'))
            db.run(`UPDATE facts SET value = 'changed twice' WHERE subject = 'kept'`)
          })
          slice(() => {
            throw new Error('half way')
          })
        }),
        /half way/u,
      )
      assert.match(seenMeanwhile, /changed/u)
      assert.equal(db.busy, false)
      assert.equal(count(db, `SELECT count(*) AS n FROM facts WHERE value = 'before'`), 1)
      assert.equal(v.generation(), generation)
      assert.doesNotMatch(
        v.h.memory.directory(v.h.config, null),
        /changed/u,
        'no directory read during the transaction outlives it',
      )
    })

    it('is undone whole: what it added goes, conflicts included, sources it added to stored facts go, what it forgot comes back', async () => {
      const port = writeFact(v.h.memory, v.h.config, {
        subject: 'billing-api',
        property: 'port',
        value: '7801',
        evidence: 'observed',
      })
      const owner = writeFact(v.h.memory, v.h.config, { subject: 'billing-api', property: 'owner', value: 'team blue' })
      const sourcesBefore = count(v.h.db(), 'SELECT count(*) AS n FROM fact_sources')
      const line = (record: Record<string, unknown>): string => `${JSON.stringify(record)}\n`
      const content =
        line({ subject: 'billing-api', property: 'port', value: '7802' }) +
        line({ subject: 'billing-api', property: 'owner', value: 'team blue' }) +
        line({ subject: 'billing-api', property: 'region', value: 'eu-west-1' }) +
        line({ subject: 'bill-api', aliasOf: 'billing-api' })
      const preview = await v.ok('import', { mode: 'preview', content })
      assert.deepEqual(preview['counts'], { new: 1, duplicate: 1, repeated: 0, conflict: 1, tombstoned: 0, invalid: 0 })
      const commit = await v.ok('import', { mode: 'commit', content, token: preview['token'], ...v.fence() })
      assert.equal(count(v.h.db(), `SELECT count(*) AS n FROM conflict_groups WHERE status = 'open'`), 1)
      assert.equal(count(v.h.db(), `SELECT count(*) AS n FROM facts WHERE value = 'eu-west-1'`), 1)
      assert.equal(count(v.h.db(), `SELECT count(*) AS n FROM aliases`), 1)
      const undone = await v.ok('fact-restore', v.fence({ editId: (commit['undo'] as { editId: number }).editId }))
      assert.equal(undone['kind'], 'import')
      const current = v.h
        .db()
        .all(`SELECT id, value, status FROM facts WHERE status IN ('active', 'conflict') ORDER BY id`)
        .map((row) => ({ ...row }))
      assert.deepEqual(current, [
        { id: port.id, value: '7801', status: 'active' },
        { id: owner.id, value: 'team blue', status: 'active' },
      ])
      assert.equal(count(v.h.db(), `SELECT count(*) AS n FROM conflict_groups WHERE status = 'open'`), 0)
      assert.equal(
        count(v.h.db(), 'SELECT count(*) AS n FROM fact_sources WHERE fact_id IN (?, ?)', port.id, owner.id),
        sourcesBefore,
      )
      assert.equal(count(v.h.db(), `SELECT count(*) AS n FROM aliases`), 0)
      const again = await v.call('fact-restore', v.fence({ editId: (commit['undo'] as { editId: number }).editId }))
      assert.equal(!again.ok && again.code, 'refused', 'an import is undone once')
    })
  })
}
