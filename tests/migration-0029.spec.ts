/**
 * Migration 0029 (applying sync records), both drivers: a store version 28 left, holding own and received records,
 * comes out with every record filed by the subjects it names (a move under both; an alias, which 0029 filed under '*',
 * under its old and new name once 0032 has run), an apply mark at 0 and empty name and device tables; records kept afterwards are filed by the triggers; and running the
 * migration again over the migrated store (its version set back) changes nothing.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Database } from '../src/store/database.ts'
import { defaultMigrationsDir, readMigrations } from '../src/store/migrate.ts'
import { DRIVERS, openAtVersion, removeDir, tempDir } from './helpers/store.ts'
import { SimDevice, slot } from './helpers/sync-devices.ts'

const now = '2026-03-01T09:00:00.000Z'
const LATEST = readMigrations(defaultMigrationsDir()).length

/** What the migration leaves: the index, the apply mark and the row counts of its tables. */
function applyState(db: Database): unknown {
  return {
    filed: db
      .all('SELECT entity, op FROM sync_record_entities ORDER BY entity, op')
      .map((row) => `${String(row['entity'])} ${String(row['op'])}`),
    mark: db.get('SELECT own_seq FROM sync_apply')?.['own_seq'],
    names: db.get('SELECT count(*) AS n FROM sync_peer_names')?.['n'],
    devices: db.get('SELECT count(*) AS n FROM sync_fact_devices')?.['n'],
  }
}

for (const driver of DRIVERS) {
  describe(`migration 0029: applying sync records (${driver})`, () => {
    it('is migration 29', () => {
      assert.ok(readMigrations(defaultMigrationsDir()).some((entry) => entry.name === '0029-sync-apply.sql'))
    })

    it('files the records a version 28 store kept by subject, keeps filing new ones, and runs again harmlessly', () => {
      const root = tempDir()
      try {
        const desktop = new SimDevice('desktop', Date.parse(now))
        const write = desktop.write(slot('billing api'), '7801')
        const move = desktop.move(slot('shop web', 'owner'), 'ops', 'proj')
        const alias = desktop.rename('shop web', 'storefront')
        const { db: old, dataDir } = openAtVersion(root, 28, driver, () => now)
        for (const record of [write, move, alias])
          old.run(
            'INSERT INTO sync_received (op, device, hlc, record) VALUES (?, ?, ?, ?)',
            record.op,
            record.device,
            record.hlc,
            JSON.stringify(record),
          )
        old.run(
          "INSERT INTO sync_own_records (op, hlc, kind, record) VALUES ('aaaa.own-000001', 'h', 'write', ?)",
          JSON.stringify({ ...write, op: 'aaaa.own-000001', slot: slot('editor', 'preferred') }),
        )
        old.close()

        const expected = {
          filed: [
            'billing api desktop:000001',
            'editor aaaa.own-000001',
            `shop web ${move.op}`,
            `shop web ${alias.op}`,
            `storefront ${alias.op}`,
          ],
          mark: 0,
          names: 0,
          devices: 0,
        }
        let db = Database.open({ dataDir, driver, now: () => now })
        try {
          assert.equal(Number(db.get('PRAGMA user_version')?.['user_version']), LATEST)
          assert.deepEqual(applyState(db), expected)
          db.run('PRAGMA user_version = 28')
        } finally {
          db.close()
        }
        db = Database.open({ dataDir, driver, now: () => now })
        try {
          assert.deepEqual(applyState(db), expected, 'running again changes nothing')
          const later = desktop.move(slot('billing api'), '7801', 'proj')
          db.ledger(() =>
            db.run(
              'INSERT INTO sync_received (op, device, hlc, record) VALUES (?, ?, ?, ?)',
              later.op,
              later.device,
              later.hlc,
              JSON.stringify(later),
            ),
          )
          assert.deepEqual(
            db.all('SELECT entity FROM sync_record_entities WHERE op = ?', later.op).map((row) => row['entity']),
            ['billing api'],
            'a move within one subject is filed once',
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
