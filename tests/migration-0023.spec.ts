/**
 * Upgrading a store whose counters were three tables: migration 0023 moves the generation, the directory's counts and
 * the counts by state and evidence into one table with the same values, keeps the old two readable as views, and from
 * then on its triggers keep them equal to a fresh count through writes, edits of state, sensitivity and scope, and
 * deletes.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Row } from '../src/store/connection.ts'
import { Database } from '../src/store/database.ts'
import { defaultMigrationsDir, readMigrations } from '../src/store/migrate.ts'
import { DRIVERS, hexKey, openAtVersion, removeDir, tempDir } from './helpers/store.ts'

const now = '2026-03-01T09:00:00.000Z'
/** Rows as plain objects (node:sqlite's have no prototype). */
const plain = (rows: Row[]): Row[] => rows.map((row) => ({ ...row }))
const FACT = `INSERT INTO facts (entity_id, subject, property, predicate_key, value, scope, slot_key, claim_key, status, evidence_rank,
    sensitivity, model_use_allowed, observed_at, recorded_at, valid_from, origin, updated_at)
  VALUES (1, 'dev server', ?, ?, ?, ?, unhex(?), unhex(?), ?, ?, ?, ?, 1772355600000, 1772355600000, 1772355600000, 'tool', 1772355600000)`

/** The counters as the views show them. */
function counters(read: (sql: string) => Row[]): unknown {
  return {
    facts: read('SELECT status, evidence, n FROM fact_counts WHERE n <> 0 ORDER BY status, evidence'),
    directory: read('SELECT plain, sensitive, project_plain, project_sensitive FROM directory_counts WHERE id = 1'),
  }
}

/** The same counts, made afresh from the facts. */
function fresh(read: (sql: string) => Row[]): unknown {
  const current = "status = 'active' AND model_use_allowed = 1"
  const project = "substr(scope, 1, 8) = 'project:'"
  return {
    facts: read(
      'SELECT status, evidence, count(*) AS n FROM facts GROUP BY status, evidence ORDER BY status, evidence',
    ),
    directory: read(`SELECT count(*) FILTER (WHERE ${current} AND sensitivity IS NULL) AS plain,
      count(*) FILTER (WHERE ${current} AND sensitivity IS NOT NULL) AS sensitive,
      count(*) FILTER (WHERE ${current} AND sensitivity IS NULL AND ${project}) AS project_plain,
      count(*) FILTER (WHERE ${current} AND sensitivity IS NOT NULL AND ${project}) AS project_sensitive FROM facts`),
  }
}

for (const driver of DRIVERS) {
  describe(`migration 0023 (${driver})`, () => {
    it('moves every counter into tallies with its value, and its triggers keep them equal to a fresh count', () => {
      const root = tempDir()
      try {
        const migration = readMigrations(defaultMigrationsDir()).find((entry) => entry.name.endsWith('-tallies.sql'))
        assert.ok(migration !== undefined)
        const { db: old, dataDir } = openAtVersion(root, migration.version - 1, driver, () => now)
        old.run(`INSERT INTO entities (entity_key, display, created_at) VALUES ('dev server', 'dev server', ?)`, now)
        const rows: [string, string, string, number, string | null, number][] = [
          ['port', 'global', 'active', 2, null, 1],
          ['host', 'project:/src/billing-api', 'active', 0, 'email', 1],
          ['owner', 'project:/src/billing-api', 'active', 2, null, 1],
          ['region', 'project:/src/shop-web', 'superseded', 2, null, 1],
          ['token', 'global', 'active', 3, 'credential', 0],
          ['phone', 'global', 'conflict', 1, 'phone', 1],
        ]
        for (const [property, scope, status, rank, sensitivity, allowed] of rows) {
          old.run(
            FACT,
            property,
            property,
            `${property} value`,
            scope,
            hexKey(`slot-${property}`),
            hexKey(`claim-${property}`),
            status,
            rank,
            sensitivity,
            allowed,
          )
        }
        old.run('UPDATE store_state SET generation = 7 WHERE id = 1')
        const before = counters((sql) => plain(old.all(sql)))
        assert.deepEqual(
          before,
          fresh((sql) => plain(old.all(sql))),
          'the old tables were right to begin with',
        )
        assert.deepEqual((before as { directory: unknown }).directory, [
          { plain: 2, sensitive: 1, project_plain: 1, project_sensitive: 1 },
        ])
        old.close()

        const upgraded = Database.open({ dataDir, driver, now: () => now })
        try {
          const read = (sql: string): Row[] => plain(upgraded.all(sql))
          assert.deepEqual(counters(read), before)
          assert.equal(upgraded.generation(), 7)
          assert.equal(
            upgraded.all(
              "SELECT name FROM sqlite_schema WHERE name IN ('fact_counts', 'directory_counts') AND type = 'table'",
            ).length,
            0,
          )
          // Every kind of change a trigger counts: a move between scopes, a new state, a new level, a sensitivity, a
          // permission, an insert and a delete.
          upgraded.run(`UPDATE facts SET scope = 'global' WHERE property = 'owner'`)
          upgraded.run(`UPDATE facts SET scope = 'project:/src/shop-web', status = 'active' WHERE property = 'region'`)
          upgraded.run(`UPDATE facts SET evidence_rank = 0 WHERE property = 'port'`)
          upgraded.run(`UPDATE facts SET sensitivity = NULL WHERE property = 'host'`)
          upgraded.run(`UPDATE facts SET model_use_allowed = 1 WHERE property = 'token'`)
          upgraded.run(`UPDATE facts SET status = 'active' WHERE property = 'phone'`)
          upgraded.run(
            FACT,
            'name',
            'name',
            'dev',
            'project:/src/billing-api',
            hexKey('slot-name'),
            hexKey('claim-name'),
            'active',
            1,
            'email',
            1,
          )
          upgraded.run(`DELETE FROM facts WHERE property = 'owner'`)
          assert.deepEqual(counters(read), fresh(read))
          assert.deepEqual(
            read('SELECT plain, sensitive, project_plain, project_sensitive FROM directory_counts WHERE id = 1'),
            [{ plain: 3, sensitive: 3, project_plain: 2, project_sensitive: 1 }],
          )
          assert.equal(upgraded.generation(), 15, 'each of the eight writes is counted once')
        } finally {
          upgraded.close()
        }
      } finally {
        removeDir(root)
      }
    })
  })
}
