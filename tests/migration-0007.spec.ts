/**
 * Upgrading a version-6 store: migration 0007 gives every existing fact an empty fold record (folded_count 0,
 * folded_from []), and the columns refuse what no fold can leave behind (a negative count, text that is not a JSON
 * array, more than 20 prior values).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Database } from '../src/store/database.ts'
import { defaultMigrationsDir, readMigrations } from '../src/store/migrate.ts'
import { DRIVERS, hexKey, openAtVersion, removeDir, tempDir } from './helpers/store.ts'

const now = '2026-03-01T09:00:00.000Z'
const FACT = `INSERT INTO facts (entity_id, subject, property, predicate_key, value, slot_key, claim_key, evidence_key, status,
    evidence, evidence_rank, observed_at, recorded_at, valid_from, origin, updated_at)
  VALUES (1, 'backup', 'nightly', 'nightly', 'ok 2026-11-24', ?, ?, ?, 'active', 'observed', 2, ?, ?, ?, 'tool', ?)`

for (const driver of DRIVERS) {
  describe(`migration 0007 (${driver})`, () => {
    it('upgrades a version-6 store in place: existing facts were never folded, and a fold record holds at most 20 prior values', () => {
      const root = tempDir()
      try {
        const { db: old, dataDir } = openAtVersion(root, 6, driver, () => now)
        old.run(`INSERT INTO entities (entity_key, display, created_at) VALUES ('backup', 'backup', ?)`, now)
        old.run(FACT, hexKey('slot'), hexKey('claim-1'), hexKey('ev'), now, now, now, now)
        old.close()

        const upgraded = Database.open({ dataDir, driver, now: () => now })
        try {
          assert.equal(
            Number(upgraded.get('PRAGMA user_version')?.['user_version']),
            readMigrations(defaultMigrationsDir()).length,
          )
          const row = upgraded.get('SELECT folded_count, folded_from FROM facts')
          assert.deepEqual([Number(row?.['folded_count']), row?.['folded_from']], [0, '[]'])
          const twenty = JSON.stringify(
            Array.from({ length: 20 }, (_, i) => `ok 2026-10-${String(i + 1).padStart(2, '0')}`),
          )
          upgraded.run('UPDATE facts SET folded_count = 20, folded_from = ?', twenty)
          assert.throws(
            () =>
              upgraded.run(
                'UPDATE facts SET folded_from = ?',
                JSON.stringify([...(JSON.parse(twenty) as string[]), 'one more']),
              ),
            /CHECK/u,
          )
          assert.throws(() => upgraded.run(`UPDATE facts SET folded_from = '{"a": 1}'`), /CHECK/u)
          assert.throws(() => upgraded.run('UPDATE facts SET folded_count = -1'), /CHECK/u)
        } finally {
          upgraded.close()
        }
      } finally {
        removeDir(root)
      }
    })
  })
}
