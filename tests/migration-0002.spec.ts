/** Upgrading a version-1 store: migration 0002 keeps every fact and carries old proposals into the card format. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Database } from '../src/store/database.ts'
import { defaultMigrationsDir, readMigrations } from '../src/store/migrate.ts'
import { DRIVERS, hexKey, openAtVersion, removeDir, tempDir } from './helpers/store.ts'

const now = '2026-03-01T09:00:00.000Z'

for (const driver of DRIVERS) {
  describe(`migration 0002 (${driver})`, () => {
    it('upgrades a version-1 store in place: facts stay, a pending proposal becomes a one-row card, counters start right', () => {
      const root = tempDir()
      try {
        const { db: old, dataDir } = openAtVersion(root, 1, driver, () => now)
        // Rows as a version-1 store holds them, written by SQL: today's store reads columns later migrations added.
        old.run(`INSERT INTO entities (entity_key, display, created_at) VALUES ('billing api', 'billing-api', ?)`, now)
        for (const [value, status] of [
          ['7801', 'superseded'],
          ['7802', 'active'],
        ] as const) {
          old.run(
            `INSERT INTO facts (entity_id, subject, property, predicate_key, value, slot_key, claim_key, evidence_key, status, evidence,
              evidence_rank, observed_at, recorded_at, valid_from, origin, updated_at)
            VALUES (1, 'billing-api', 'port', 'port', ?, ?, ?, ?, ?, 'explicit_user', 0, ?, ?, ?, 'tool', ?)`,
            value,
            hexKey('slot'),
            hexKey(`claim-${value}`),
            hexKey(`evidence-${value}`),
            status,
            now,
            now,
            now,
            now,
          )
        }
        old.run(
          `INSERT INTO proposals (fingerprint, kind, status, reason, payload, created_at, updated_at)
          VALUES ('fp-1', 'add_fact', 'pending', 'inferred', ?, ?, ?)`,
          JSON.stringify({ subject: 'user', property: 'mood', value: 'calm' }),
          now,
          now,
        )
        assert.equal(Number(old.get('PRAGMA user_version')?.['user_version']), 1)
        old.close()

        const upgraded = Database.open({ dataDir, driver, now: () => now })
        try {
          assert.equal(
            Number(upgraded.get('PRAGMA user_version')?.['user_version']),
            readMigrations(defaultMigrationsDir()).length,
          )
          const rows = JSON.parse(
            String(upgraded.get(`SELECT rows FROM proposals WHERE fingerprint = 'fp-1'`)?.['rows']),
          ) as unknown[]
          assert.deepEqual(rows, [{ subject: 'user', property: 'mood', value: 'calm', targets: [] }])
          const counts = upgraded
            .all('SELECT status, evidence, n FROM fact_counts ORDER BY status')
            .map((row) => [row['status'], row['evidence'], row['n']])
          assert.deepEqual(counts, [
            ['active', 'explicit_user', 1],
            ['superseded', 'explicit_user', 1],
          ])
          assert.equal(Number(upgraded.get('SELECT count(*) AS n FROM facts')?.['n']), 2)
        } finally {
          upgraded.close()
        }
      } finally {
        removeDir(root)
      }
    })
  })
}
