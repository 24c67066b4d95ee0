/**
 * Instants stored as epoch milliseconds (migration 0021), on both drivers: what `INSTANT` binds is exactly
 * `Date.parse` of the ISO text, and what `instantColumn` reads back is exactly `Date.prototype.toISOString` of it, for
 * every millisecond of a day boundary, second and year edge and a sweep of random instants across the years a date
 * argument may name (0000-9999); text that is no date binds NULL, so a NOT NULL column refuses it.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Database } from '../src/store/database.ts'
import { INSTANT, instantColumn } from '../src/store/fact-rows.ts'
import { mulberry32 } from '../scripts/bench-corpus.ts'
import { DRIVERS, removeDir, tempDir } from './helpers/store.ts'

/** The instants checked: edges of days, seconds and years, then random ones from year 0 to 9999. */
function instants(): number[] {
  const edges = [
    '0000-01-01T00:00:00.000Z',
    '0999-12-31T23:59:59.999Z',
    '1969-12-31T23:59:59.999Z',
    '1970-01-01T00:00:00.000Z',
    '1970-01-01T00:00:00.001Z',
    '2000-02-29T12:00:00.500Z',
    '2026-11-29T12:00:00.000Z',
    '2026-12-31T23:59:59.999Z',
    '9999-12-31T23:59:59.999Z',
  ].map((text) => Date.parse(text))
  const random = mulberry32(20)
  const low = Date.parse('0000-01-01T00:00:00.000Z')
  const high = Date.parse('9999-12-31T23:59:59.999Z')
  const sweep = Array.from({ length: 20_000 }, () => Math.floor(low + random() * (high - low)))
  // Every millisecond around a second boundary, where rounding would show first.
  const second = Date.parse('2026-06-01T08:00:00.000Z')
  const around = Array.from({ length: 2_001 }, (_, i) => second - 1_000 + i)
  return [...edges, ...sweep, ...around]
}

for (const driver of DRIVERS) {
  describe(`instants as epoch milliseconds (${driver})`, () => {
    let dir: string
    let db: Database
    before(() => {
      dir = tempDir()
      db = Database.open({ dataDir: dir, driver, now: () => '2026-11-29T12:00:00.000Z' })
    })
    after(() => {
      db.close()
      removeDir(dir)
    })

    it('binds ISO text as the milliseconds Date.parse reads, and reads them back as toISOString writes them', () => {
      const all = instants()
      for (let at = 0; at < all.length; at += 500) {
        const chunk = all.slice(at, at + 500)
        const texts = chunk.map((ms) => new Date(ms).toISOString())
        for (const [index, text] of texts.entries()) {
          const row = db.get(`SELECT ${INSTANT} AS ms, typeof(${INSTANT}) AS kind`, text, text)
          assert.equal(row?.['kind'], 'integer', text)
          assert.equal(Number(row?.['ms']), chunk[index], text)
        }
        const read = db
          .all(`SELECT ${instantColumn('value', 'iso')} FROM json_each(?)`, JSON.stringify(chunk))
          .map((row) => String(row['iso']))
        assert.deepEqual(read, texts)
      }
    })

    it('reads other date text SQLite understands as the instant it names, NULL as NULL, and no date as NULL', () => {
      const ms = (text: string | null) => db.get(`SELECT ${INSTANT} AS ms`, text)?.['ms'] ?? null
      assert.equal(Number(ms('2026-03-01')), Date.parse('2026-03-01T00:00:00.000Z'))
      assert.equal(Number(ms('2026-03-01T10:00:00+02:00')), Date.parse('2026-03-01T08:00:00.000Z'))
      assert.equal(ms(null), null)
      assert.equal(ms('not a date'), null)
      assert.equal(db.get(`SELECT ${instantColumn('NULL', 'iso')}`)?.['iso'], null)
    })
  })
}
