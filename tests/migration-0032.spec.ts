/**
 * Migration 0032 (aliases filed by subject, restores by what they undo), both drivers: a store version 30 left, holding
 * own and received records of every filing (a write, a subject's rename, a property's rename, a project's rename, a
 * restore), comes out with a subject's alias filed under its old and new name, a property's under its subject, a
 * project's still under '*', and the restore out of the subject index and filed by the operation it undoes; records
 * kept afterwards are filed the same way by the triggers; and running the migration again over the migrated store
 * (its version set back to 31) changes nothing.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { AliasChange, ChangeRecord } from '../src/sync/change-record.ts'
import { Database } from '../src/store/database.ts'
import { defaultMigrationsDir, readMigrations } from '../src/store/migrate.ts'
import { DRIVERS, openAtVersion, removeDir, tempDir, type OldStore } from './helpers/store.ts'
import { SimDevice, slot } from './helpers/sync-devices.ts'

const now = '2026-03-01T09:00:00.000Z'
const LATEST = readMigrations(defaultMigrationsDir()).length

/** Where the records are filed: by subject, and restores by what they undo. */
function filing(db: Database): unknown {
  return {
    subjects: db
      .all('SELECT entity, op FROM sync_record_entities ORDER BY entity, op')
      .map((row) => `${String(row['entity'])} ${String(row['op'])}`),
    undoes: db
      .all('SELECT undone, op FROM sync_record_undoes ORDER BY undone, op')
      .map((row) => `${String(row['undone'])} ${String(row['op'])}`),
  }
}

/** Keep a record as received from its device. */
function keepReceived(db: Pick<OldStore, 'run'>, record: ChangeRecord): void {
  db.run(
    'INSERT INTO sync_received (op, device, hlc, record) VALUES (?, ?, ?, ?)',
    record.op,
    record.device,
    record.hlc,
    JSON.stringify(record),
  )
}

for (const driver of DRIVERS) {
  describe(`migration 0032: aliases filed by subject (${driver})`, () => {
    it('is migration 32', () => {
      assert.ok(readMigrations(defaultMigrationsDir()).some((entry) => entry.name === '0032-sync-alias-filing.sql'))
    })

    it('files the aliases and restores a version 30 store kept, keeps filing new ones, and runs again harmlessly', () => {
      const root = tempDir()
      try {
        const desktop = new SimDevice('desktop', Date.parse(now))
        const write = desktop.write(slot('billing api'), '7801')
        const renamed = desktop.rename('shop web', 'storefront')
        const property: ChangeRecord = {
          ...(desktop.rename('x', 'y') as AliasChange),
          aliasKind: 'predicate',
          entity: 'billing api',
          from: 'port',
          to: 'listen port',
          display: 'listen port',
        }
        const project = desktop.renameProject('/home/ada/shop', 'github.com/ada/shop')
        const undo = desktop.restore([write.op])
        const { db: old, dataDir } = openAtVersion(root, 30, driver, () => now)
        for (const record of [write, renamed, property, project]) keepReceived(old, record)
        old.run(
          "INSERT INTO sync_own_records (op, hlc, kind, record) VALUES (?, ?, 'restore', ?)",
          'aaaa.own-000001',
          undo.hlc,
          JSON.stringify({ ...undo, op: 'aaaa.own-000001' }),
        )
        old.close()

        const expected = {
          subjects: [
            `* ${project.op}`,
            `billing api ${write.op}`,
            `billing api ${property.op}`,
            `shop web ${renamed.op}`,
            `storefront ${renamed.op}`,
          ],
          undoes: [`${write.op} aaaa.own-000001`],
        }
        let db = Database.open({ dataDir, driver, now: () => now })
        try {
          assert.equal(Number(db.get('PRAGMA user_version')?.['user_version']), LATEST)
          assert.deepEqual(filing(db), expected)
          db.ledger(() => db.run('PRAGMA user_version = 31'))
        } finally {
          db.close()
        }
        db = Database.open({ dataDir, driver, now: () => now })
        try {
          assert.deepEqual(filing(db), expected, 'running again changes nothing')
          const later = [desktop.rename('storefront', 'shop'), desktop.restore([renamed.op])]
          db.ledger(() => {
            for (const record of later) keepReceived(db, record)
          })
          const [again, takenBack] = later as [ChangeRecord, ChangeRecord]
          assert.deepEqual(filing(db), {
            subjects: [...expected.subjects, `shop ${again.op}`, `storefront ${again.op}`].sort(),
            undoes: [...expected.undoes, `${renamed.op} ${takenBack.op}`].sort(),
          })
        } finally {
          db.close()
        }
      } finally {
        removeDir(root)
      }
    })
  })
}
