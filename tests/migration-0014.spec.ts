/**
 * Upgrading the store before the directory kept its project counts: migration 0014 fills them from the facts a store
 * of the previous version holds, and from then on the triggers keep them through a move between scopes.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Database } from '../src/store/database.ts'
import { defaultMigrationsDir, readMigrations } from '../src/store/migrate.ts'
import { DRIVERS, hexKey, openAtVersion, removeDir, tempDir } from './helpers/store.ts'

const now = '2026-03-01T09:00:00.000Z'
const FACT = `INSERT INTO facts (entity_id, subject, property, predicate_key, value, scope, slot_key, claim_key, evidence_key, status,
    evidence, evidence_rank, sensitivity, observed_at, recorded_at, valid_from, origin, updated_at)
  VALUES (1, 'dev server', ?, ?, ?, ?, ?, ?, ?, ?, 'observed', 2, ?, ?, ?, ?, 'tool', ?)`

for (const driver of DRIVERS) {
  describe(`migration 0014 (${driver})`, () => {
    it('fills the project counts from the facts a store of the previous version holds, and keeps them through a move', () => {
      const root = tempDir()
      try {
        const all = readMigrations(defaultMigrationsDir())
        const migration = all.find((entry) => entry.name.endsWith('-directory-project-counts.sql'))
        assert.ok(migration !== undefined)
        const { db: old, dataDir } = openAtVersion(root, migration.version - 1, driver, () => now)
        old.run(`INSERT INTO entities (entity_key, display, created_at) VALUES ('dev server', 'dev server', ?)`, now)
        const rows: [string, string, string, string | null][] = [
          ['port', 'project:/src/billing-api', 'active', null],
          ['host', 'project:/src/billing-api', 'active', 'email'],
          ['owner', 'project:/src/shop-web', 'superseded', null],
          ['region', 'global', 'active', null],
        ]
        for (const [property, scope, status, sensitivity] of rows) {
          old.run(
            FACT,
            property,
            property,
            `${property} value`,
            scope,
            hexKey(`slot-${property}`),
            hexKey(`claim-${property}`),
            hexKey(`ev-${property}`),
            status,
            sensitivity,
            now,
            now,
            now,
            now,
          )
        }
        old.close()

        const upgraded = Database.open({ dataDir, driver, now: () => now })
        try {
          const counts = (): unknown => ({
            ...upgraded.get(
              'SELECT plain, sensitive, project_plain, project_sensitive FROM directory_counts WHERE id = 1',
            ),
          })
          assert.deepEqual(counts(), { plain: 2, sensitive: 1, project_plain: 1, project_sensitive: 1 })
          upgraded.run(`UPDATE facts SET scope = 'global' WHERE property = 'port'`)
          assert.deepEqual(counts(), { plain: 2, sensitive: 1, project_plain: 0, project_sensitive: 1 })
          upgraded.run(`UPDATE facts SET scope = 'project:/src/shop-web', status = 'active' WHERE property = 'owner'`)
          assert.deepEqual(counts(), { plain: 3, sensitive: 1, project_plain: 1, project_sensitive: 1 })
        } finally {
          upgraded.close()
        }
      } finally {
        removeDir(root)
      }
    })
  })
}
