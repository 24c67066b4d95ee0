/**
 * Upgrading the store before the near-duplicate review: migration 0009 adds an empty verdict memory and an empty
 * ledger of sweeps to a store of the previous version, with its facts as they were; a verdict keeps its pair in id
 * order, is lexical (vector generation 0) unless told otherwise, only ever says distinct, and goes with its fact.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Database } from '../src/store/database.ts'
import { defaultMigrationsDir, readMigrations } from '../src/store/migrate.ts'
import { DRIVERS, hexKey, openAtVersion, removeDir, tempDir } from './helpers/store.ts'

const now = '2026-03-01T09:00:00.000Z'
const FACT = `INSERT INTO facts (entity_id, subject, property, predicate_key, value, slot_key, claim_key, evidence_key, status,
    evidence, evidence_rank, observed_at, recorded_at, valid_from, origin, updated_at)
  VALUES (1, 'user', ?, ?, 'plays the piano', ?, ?, ?, 'active', 'observed', 2, ?, ?, ?, 'tool', ?)`

for (const driver of DRIVERS) {
  describe(`migration 0009 (${driver})`, () => {
    it('upgrades a store of the previous version in place with an empty verdict memory and ledger', () => {
      const root = tempDir()
      try {
        const all = readMigrations(defaultMigrationsDir())
        const review = all.find((migration) => migration.name.endsWith('-review-sweep.sql'))
        assert.ok(review !== undefined)
        const { db: old, dataDir } = openAtVersion(root, review.version - 1, driver, () => now)
        old.run(`INSERT INTO entities (entity_key, display, created_at) VALUES ('user', 'user', ?)`, now)
        for (const property of ['hobbies', 'pastime'])
          old.run(
            FACT,
            property,
            property,
            hexKey(`slot-${property}`),
            hexKey(`claim-${property}`),
            hexKey(`ev-${property}`),
            now,
            now,
            now,
            now,
          )
        old.close()

        const upgraded = Database.open({ dataDir, driver, now: () => now })
        try {
          assert.equal(Number(upgraded.get('PRAGMA user_version')?.['user_version']), all.length)
          assert.equal(Number(upgraded.get('SELECT count(*) AS n FROM facts')?.['n']), 2)
          assert.equal(Number(upgraded.get('SELECT count(*) AS n FROM review_verdicts')?.['n']), 0)
          assert.equal(Number(upgraded.get('SELECT count(*) AS n FROM review_sweeps')?.['n']), 0)
          const verdict = `INSERT INTO review_verdicts (low_fact_id, high_fact_id, low_claim_key, high_claim_key, verdict, judged_at) VALUES (?, ?, 'a', 'b', ?, ?)`
          upgraded.run(verdict, 1, 2, 'distinct', now)
          assert.equal(Number(upgraded.get('SELECT vector_generation FROM review_verdicts')?.['vector_generation']), 0)
          assert.throws(() => upgraded.run(verdict, 2, 1, 'distinct', now), /CHECK/u)
          assert.throws(() => upgraded.run(verdict.replace("'a', 'b'", "'c', 'd'"), 1, 2, 'same', now), /CHECK/u)
          assert.throws(() => upgraded.run(verdict, 1, 99, 'distinct', now), /FOREIGN KEY/u)
          upgraded.run('DELETE FROM facts WHERE id = 2')
          assert.equal(
            Number(upgraded.get('SELECT count(*) AS n FROM review_verdicts')?.['n']),
            0,
            "a fact's verdicts go with it",
          )
        } finally {
          upgraded.close()
        }
      } finally {
        removeDir(root)
      }
    })
  })
}
