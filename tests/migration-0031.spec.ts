/**
 * Migration 0031 (record kinds for alias removal, display renames and an import's bare tombstones), both drivers: a
 * store version 30 left, holding own records of every older kind (sensitive and not, before and after the published
 * watermark), comes out with every row as it was (seq, op, clock, kind, keys, marks, record), the pending count and
 * the subject index untouched, both triggers filing and counting new records, and the three new kinds accepted where
 * version 30 refused them; running the migration again over the migrated store (its version set back) changes nothing.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { SqlValue } from '../src/store/connection.ts'
import { Database } from '../src/store/database.ts'
import { defaultMigrationsDir, readMigrations } from '../src/store/migrate.ts'
import { DRIVERS, openAtVersion, removeDir, tempDir } from './helpers/store.ts'

const now = '2026-03-01T09:00:00.000Z'
const LATEST = readMigrations(defaultMigrationsDir()).length
const OLD_KINDS = ['write', 'supersede', 'settle', 'forget', 'pin', 'alias', 'move', 'put_back', 'restore']

/** Every row of the own log and what hangs off it. */
function logState(db: Pick<Database, 'all' | 'get'>): unknown {
  return {
    rows: db
      .all(
        `SELECT seq, op, hlc, kind, lower(hex(slot_key)) AS slot, lower(hex(claim_key)) AS claim, sensitive,
          sensitive_ends, record FROM sync_own_records ORDER BY seq`,
      )
      .map((row) => ({ ...row })),
    pending: { ...db.get('SELECT plain, sensitive FROM sync_pending') },
    filed: db
      .all('SELECT entity, op FROM sync_record_entities ORDER BY entity, op')
      .map((row) => `${String(row['entity'])} ${String(row['op'])}`),
  }
}

function insertOwn(db: { run: (sql: string, ...params: SqlValue[]) => unknown }, n: number, kind: string): void {
  const op = `aaaa.own-${String(n).padStart(6, '0')}`
  const record = kind === 'write' ? { op, kind, slot: { entity: `svc ${n}` } } : { op, kind }
  db.run(
    `INSERT INTO sync_own_records (op, hlc, kind, slot_key, claim_key, sensitive, sensitive_ends, record)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    op,
    `17723556000${String(n).padStart(2, '0')}-000000-aaaa`,
    kind,
    kind === 'write' ? Buffer.from(`slot-${n}`) : null,
    kind === 'write' ? Buffer.from(`claim-${n}`) : null,
    n % 4 === 0 ? 1 : 0,
    n % 3 === 0 ? JSON.stringify([`value ${n}`]) : null,
    JSON.stringify(record),
  )
}

for (const driver of DRIVERS) {
  describe(`migration 0031: the record kinds of alias removal, display renames and bare tombstones (${driver})`, () => {
    it('is migration 31', () => {
      assert.ok(readMigrations(defaultMigrationsDir()).some((entry) => entry.name === '0031-sync-record-kinds.sql'))
    })

    it('keeps every own record, accepts the new kinds, and runs again harmlessly', () => {
      const root = tempDir()
      try {
        const { db: old, dataDir } = openAtVersion(root, 30, driver, () => now)
        OLD_KINDS.forEach((kind, index) => insertOwn(old, index + 1, kind))
        insertOwn(old, 10, 'write')
        old.run("UPDATE sync_device SET published_through = '1772355600004-000000-aaaa' WHERE id = 1")
        old.run('UPDATE sync_pending SET plain = 4, sensitive = 2 WHERE id = 1')
        assert.throws(() => insertOwn(old, 11, 'unalias'), /CHECK/u, 'version 30 refuses the new kinds')
        const before = logState(old) as { filed: string[] }
        old.close()
        // Migration 0032, run after it, takes the restore (own record 9) out of the subject index: restores are filed
        // by what they undo. Everything else stays as it was.
        const kept = { ...before, filed: before.filed.filter((entry) => entry !== '* aaaa.own-000009') }

        let db = Database.open({ dataDir, driver, now: () => now })
        try {
          assert.equal(Number(db.get('PRAGMA user_version')?.['user_version']), LATEST)
          assert.deepEqual(logState(db), kept, 'every row, the pending count and the index as they were')
          db.ledger(() => db.run('PRAGMA user_version = 30'))
        } finally {
          db.close()
        }
        db = Database.open({ dataDir, driver, now: () => now })
        try {
          assert.deepEqual(logState(db), kept, 'running again changes nothing')
          db.ledger(() => {
            insertOwn(db, 11, 'unalias')
            insertOwn(db, 12, 'display')
            insertOwn(db, 13, 'tombstone')
            insertOwn(db, 14, 'write')
          })
          assert.throws(() => db.ledger(() => insertOwn(db, 15, 'wipe')), /CHECK/u, 'the kinds stay closed')
          const after = logState(db) as { rows: { kind: string }[]; pending: unknown; filed: string[] }
          assert.deepEqual(
            after.rows.slice(-4).map((row) => row.kind),
            ['unalias', 'display', 'tombstone', 'write'],
          )
          assert.deepEqual(after.pending, { plain: 7, sensitive: 3 }, 'the count trigger counts new records')
          assert.ok(after.filed.includes('svc 14 aaaa.own-000014'), 'the filing trigger files new records')
          assert.ok(after.filed.includes('* aaaa.own-000011'))
        } finally {
          db.close()
        }
      } finally {
        removeDir(root)
      }
    })
  })
}
