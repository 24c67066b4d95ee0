/**
 * Migration 0030 (pending count and cursors per target), both drivers: a store version 29 left, with own records
 * before and after its published watermark (one sensitive) and cursors kept for the target it last synced to, comes
 * out with the records after the watermark counted (plain and sensitive apart) and the cursors filed under that
 * target; a record appended afterwards is counted by the trigger; and running the migration again over the migrated
 * store (its version set back) changes nothing.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Database } from '../src/store/database.ts'
import { defaultMigrationsDir, readMigrations } from '../src/store/migrate.ts'
import { DRIVERS, openAtVersion, removeDir, tempDir } from './helpers/store.ts'

const now = '2026-03-01T09:00:00.000Z'
const LATEST = readMigrations(defaultMigrationsDir()).length

/** What the migration leaves: the counts and the cursors. */
function migrated(db: Database): unknown {
  return {
    pending: { ...db.get('SELECT plain, sensitive FROM sync_pending') },
    cursors: db
      .all('SELECT target, device, seq FROM sync_cursors ORDER BY target, device')
      .map((row) => `${String(row['target'])} ${String(row['device'])} ${String(row['seq'])}`),
  }
}

function ownRecord(op: string, hlc: string, sensitive: number): readonly [string, string, number, string] {
  return [op, hlc, sensitive, JSON.stringify({ op, hlc })]
}

for (const driver of DRIVERS) {
  describe(`migration 0030: pending count and cursors per target (${driver})`, () => {
    it('is migration 30', () => {
      assert.ok(readMigrations(defaultMigrationsDir()).some((entry) => entry.name === '0030-sync-pending-cursors.sql'))
    })

    it('counts the unsealed records, files the cursors under the last target, and runs again harmlessly', () => {
      const root = tempDir()
      try {
        const { db: old, dataDir } = openAtVersion(root, 29, driver, () => now)
        for (const [op, hlc, sensitive, record] of [
          ownRecord('aaaa.own-000001', '1772355600000-000000-aaaa', 0),
          ownRecord('aaaa.own-000002', '1772355600001-000000-aaaa', 0),
          ownRecord('aaaa.own-000003', '1772355600002-000000-aaaa', 1),
          ownRecord('aaaa.own-000004', '1772355600003-000000-aaaa', 0),
        ])
          old.run(
            "INSERT INTO sync_own_records (op, hlc, kind, sensitive, record) VALUES (?, ?, 'write', ?, ?)",
            op,
            hlc,
            sensitive,
            record,
          )
        old.run("UPDATE sync_device SET published_through = '1772355600001-000000-aaaa' WHERE id = 1")
        old.run("INSERT INTO sync_peers (device, cursor, seen) VALUES ('desktop', 4, NULL), ('phone', NULL, 'x')")
        old.run("INSERT INTO store_meta (key, value) VALUES ('sync_target', '/home/me/Sync/memory')")
        old.close()

        const expected = {
          pending: { plain: 1, sensitive: 1 },
          cursors: ['/home/me/Sync/memory desktop 4'],
        }
        let db = Database.open({ dataDir, driver, now: () => now })
        try {
          assert.equal(Number(db.get('PRAGMA user_version')?.['user_version']), LATEST)
          assert.deepEqual(migrated(db), expected)
          db.ledger(() => db.run('PRAGMA user_version = 29'))
        } finally {
          db.close()
        }
        db = Database.open({ dataDir, driver, now: () => now })
        try {
          assert.deepEqual(migrated(db), expected, 'running again changes nothing')
          db.ledger(() => {
            const [op, hlc, sensitive, record] = ownRecord('aaaa.own-000005', '1772355600004-000000-aaaa', 0)
            db.run(
              "INSERT INTO sync_own_records (op, hlc, kind, sensitive, record) VALUES (?, ?, 'write', ?, ?)",
              op,
              hlc,
              sensitive,
              record,
            )
          })
          assert.deepEqual(
            migrated(db),
            { ...expected, pending: { plain: 2, sensitive: 1 } },
            'a new record is counted',
          )
        } finally {
          db.close()
        }
      } finally {
        removeDir(root)
      }
    })
  })
}
