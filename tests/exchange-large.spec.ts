/**
 * Large imports on a real store, both SQLite bindings: the size cap said in words, lines repeated within one file
 * counted as repeated rather than already stored, and reading, checking and previewing a file in slices that hand the
 * event loop back to other routes.
 */
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { IMPORT_FILE_LIMIT } from '../src/management/import.ts'
import { count, writeFact } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

/** A file of `lines` distinct facts, one line each. */
const manyFacts = (lines: number): string =>
  Array.from({ length: lines }, (_, i) => `${JSON.stringify({ subject: `host-${i % 400}`, property: `port ${Math.floor(i / 400)}`, value: String(7000 + i) })}\n`).join('')

for (const driver of ['better-sqlite3', 'node:sqlite'] as const) {
  describe(`large imports (${driver})`, () => {
    let v: VerbHarness

    beforeEach(() => { v = verbHarness(driver) })
    afterEach(() => v.dispose())

    it('refuses a file above 16 MB with its size and the limit in words, from the data directory or inline, writing nothing', async () => {
      assert.equal(IMPORT_FILE_LIMIT, 16 * 1024 * 1024)
      mkdirSync(join(v.h.dataDir, 'exports'), { recursive: true })
      const line = `${JSON.stringify({ subject: 'padding', property: 'note', value: 'x'.repeat(1000) })}\n`
      writeFileSync(join(v.h.dataDir, 'exports', 'big.jsonl'), line.repeat(Math.ceil(17.2 * 1024 * 1024 / line.length)))
      const generation = v.generation()
      const fromDisk = await v.call('import', { mode: 'preview', path: 'exports/big.jsonl' })
      assert.equal(fromDisk.ok, false)
      assert.match(!fromDisk.ok ? fromDisk.message : '', /^the file exports\/big\.jsonl is 17\.2 MB; imports take up to 16 MB\./u)
      const inline = line.repeat(Math.ceil(16.5 * 1024 * 1024 / line.length))
      const fromPage = await v.call('import', { mode: 'commit', content: inline, token: 'x'.repeat(43), ...v.fence() })
      assert.equal(fromPage.ok, false)
      assert.match(!fromPage.ok ? fromPage.message : '', /^the file is 16\.5 MB; imports take up to 16 MB\./u)
      assert.equal(v.generation(), generation)
      assert.equal(count(v.h.db(), 'SELECT count(*) AS n FROM facts'), 0)
    })

    it('counts lines repeated within one file as repeated, not already stored, in the preview and the commit', async () => {
      const stored = writeFact(v.h.memory, v.h.config, { subject: 'billing-api', property: 'port', value: '7801' })
      const line = (value: string): string => `${JSON.stringify({ subject: 'billing-api', property: value === '7801' ? 'port' : 'owner', value })}\n`
      const content = line('7801') + line('team blue') + line('team blue') + line('7801') + line('team blue')
      const preview = await v.ok('import', { mode: 'preview', content })
      assert.deepEqual(preview['counts'], { new: 1, duplicate: 2, repeated: 2, conflict: 0, tombstoned: 0, invalid: 0 })
      const rows = preview['records'] as { line: number; class: string; sameAsLine?: number; factId?: number }[]
      assert.deepEqual(rows.map((row) => [row.line, row.class, row.sameAsLine ?? row.factId ?? null]),
        [[1, 'duplicate', stored.id], [2, 'new', null], [3, 'repeated', 2], [4, 'duplicate', stored.id], [5, 'repeated', 2]])
      const commit = await v.ok('import', { mode: 'commit', content, token: preview['token'], ...v.fence() })
      assert.deepEqual(commit['counts'], preview['counts'])
      assert.deepEqual(commit['duplicateIds'], [stored.id, stored.id], 'only rows stored before the import are already stored')
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
      const previewTurns = await turnsDuring(async () => { token = (await v.ok('import', { mode: 'preview', content }))['token'] })
      assert.ok(previewTurns > 1, `other work ran ${previewTurns} times during the preview`)
      const commitTurns = await turnsDuring(() => v.ok('import', { mode: 'commit', content, token, ...v.fence() }))
      assert.ok(commitTurns > 1, `other work ran ${commitTurns} times during the commit`)
      assert.equal(count(v.h.db(), `SELECT count(*) AS n FROM facts WHERE status = 'active'`), 4000)
    })
  })
}
