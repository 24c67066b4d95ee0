/**
 * A folded row through the JSONL exchange, both SQLite bindings: the export names its fold count and prior lines,
 * restoring the store's own export brings them back exactly (a second export hashes the same), a file from
 * elsewhere may state them too, and a fold history that is not one stays out.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { Fact } from '../src/types.ts'
import { DRIVERS, expectKind, oneRow, write } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

const DAY = 24 * 60 * 60 * 1000
const nightly = (date: string): string => `nightly backup finished ${date}, 412 files`

for (const driver of DRIVERS) {
  describe(`folded rows through export and import (${driver})`, () => {
    let v: VerbHarness

    beforeEach(() => {
      v = verbHarness(driver)
      // The lines report days in late November 2026; a report names a day that has come.
      v.clock.advance(Date.parse('2026-12-01T09:00:00.000Z') - v.clock.now())
    })
    afterEach(() => v.dispose())

    const line = (value: string) =>
      write(v.h.memory, v.h.config, { subject: 'backup-runner', property: 'last run', value })
    const factByValue = (value: string): Fact => {
      const id = Number(oneRow(v.h.db(), `SELECT id FROM facts WHERE value = ? AND status <> 'forgotten'`, value)['id'])
      const opened = v.h.memory.storeSet()
      if (!('stores' in opened)) throw new Error('the store is not open')
      const [fact] = opened.stores.facts.getFacts([id])
      if (fact === undefined) throw new Error(`no fact ${id}`)
      return fact
    }
    const exportFile = async (): Promise<{ path: string; sha: string; records: Record<string, unknown>[] }> => {
      const answer = await v.ok('export', { backup: false })
      const path = String(answer['path'])
      const records = readFileSync(path, 'utf8')
        .split('\n')
        .slice(1, -1)
        .map((text) => JSON.parse(text) as Record<string, unknown>)
      return { path, sha: String(answer['recordsSha256']), records }
    }
    const importContent = async (content: string): Promise<Record<string, unknown>> => {
      const preview = await v.ok('import', { mode: 'preview', content })
      return v.ok('import', { mode: 'commit', content, token: preview['token'], ...v.fence() })
    }
    const wipe = async (): Promise<void> => {
      const first = await v.call('wipe', v.fence())
      assert.ok(!first.ok && first.code === 'confirm_required')
      await v.ok('wipe', { ...v.fence(), confirmToken: (first.details as { confirmToken: string }).confirmToken })
    }
    const foldThreeNights = (): void => {
      expectKind(line(nightly('2026-11-24')), 'saved')
      v.clock.advance(DAY)
      expectKind(line(nightly('2026-11-25')), 'folded')
      v.clock.advance(DAY)
      expectKind(line(nightly('2026-11-26')), 'folded')
    }

    it('exports a folded row with its count and prior lines, and restoring the export brings them back exactly', async () => {
      foldThreeNights()
      expectKind(write(v.h.memory, v.h.config, { subject: 'billing-api', property: 'port', value: '7801' }), 'saved')
      const first = await exportFile()
      const folded = first.records.find((record) => record['subject'] === 'backup-runner')
      assert.equal(folded?.['foldedCount'], 2)
      assert.deepEqual(folded?.['foldedFrom'], [nightly('2026-11-24'), nightly('2026-11-25')])
      const plain = first.records.find((record) => record['subject'] === 'billing-api')
      assert.ok(
        plain !== undefined && !('foldedCount' in plain) && !('foldedFrom' in plain),
        'a row never folded carries no fold fields',
      )

      await wipe()
      const restored = await importContent(readFileSync(first.path, 'utf8'))
      assert.equal(restored['restore'], true)
      const back = factByValue(nightly('2026-11-26'))
      assert.equal(back.foldedCount, 2)
      assert.deepEqual(back.foldedFrom, [nightly('2026-11-24'), nightly('2026-11-25')])
      assert.equal((await exportFile()).sha, first.sha)
    })

    it('takes the fold count and prior lines a file from elsewhere states', async () => {
      const content = `${JSON.stringify({
        subject: 'self-check',
        property: 'last result',
        value: 'self-check passed 2026-11-30',
        foldedCount: 6,
        foldedFrom: ['self-check passed 2026-11-28', 'self-check passed 2026-11-29'],
      })}\n`
      const landed = await importContent(content)
      assert.equal((landed['counts'] as Record<string, number>)['new'], 1)
      const fact = factByValue('self-check passed 2026-11-30')
      assert.equal(fact.foldedCount, 6)
      assert.deepEqual(fact.foldedFrom, ['self-check passed 2026-11-28', 'self-check passed 2026-11-29'])
    })

    it('refuses a record whose fold history holds more lines than it counts, personal data, or belongs to a sensitive value', async () => {
      const records = [
        {
          subject: 'a-job',
          property: 'run',
          value: 'job ran 2026-11-30',
          foldedCount: 1,
          foldedFrom: ['job ran 2026-11-28', 'job ran 2026-11-29'],
        },
        {
          subject: 'b-job',
          property: 'run',
          value: 'job ran 2026-11-30',
          foldedCount: 1,
          foldedFrom: ['mailed ops@example.com 2026-11-29'],
        },
        {
          subject: 'c-job',
          property: 'run',
          value: 'mailed ops@example.com 2026-11-30',
          foldedCount: 1,
          foldedFrom: ['job ran 2026-11-29'],
        },
        {
          subject: 'd-job',
          property: 'run',
          value: 'job ran 2026-11-30',
          foldedFrom: Array.from({ length: 21 }, (_, i) => `job ran 2026-10-${String(i + 1).padStart(2, '0')}`),
        },
      ]
      const preview = await v.ok('import', {
        mode: 'preview',
        content: `${records.map((record) => JSON.stringify(record)).join('\n')}\n`,
      })
      assert.deepEqual(preview['counts'], { new: 0, duplicate: 0, repeated: 0, conflict: 0, tombstoned: 0, invalid: 4 })
      const reasons = (preview['invalid'] as { line: number; reason: string }[]).map((entry) => entry.reason)
      assert.match(reasons[0] ?? '', /foldedFrom/u)
      assert.match(reasons[1] ?? '', /foldedFrom.*personal data|email/u)
      assert.match(reasons[2] ?? '', /sensitive/u)
      assert.match(reasons[3] ?? '', /foldedFrom/u)
    })
  })
}
