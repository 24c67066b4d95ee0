/**
 * The sync log (migration 0027), both drivers: a fresh store and a store version 26 left, with facts in it, both come
 * out with one device row (a stable id of 16 hex digits, no name, no clock, recording off, sensitive values kept
 * local, nothing published) and empty logs; the id stays the same across reopening; the device row is one and only
 * one; and an operation id is kept once, in either log.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Database } from '../src/store/database.ts'
import { defaultMigrationsDir, readMigrations } from '../src/store/migrate.ts'
import { DRIVERS, hexKey, openAtVersion, removeDir, tempDir } from './helpers/store.ts'

const now = '2026-03-01T09:00:00.000Z'
const LATEST = readMigrations(defaultMigrationsDir()).length
const SYNC = readMigrations(defaultMigrationsDir()).find((entry) => entry.name.endsWith('-sync-log.sql'))

/** What the migration leaves in a store. */
function syncState(db: Database): unknown {
  const device = { ...db.get('SELECT * FROM sync_device') }
  return {
    device: {
      ...device,
      device_id: /^[0-9a-f]{16}$/u.test(String(device['device_id'])) ? 'hex16' : device['device_id'],
    },
    counts: ['sync_own_records', 'sync_received', 'sync_peers'].map((table) =>
      Number(db.get(`SELECT count(*) AS n FROM ${table}`)?.['n']),
    ),
  }
}

const EXPECTED = {
  device: {
    id: 1,
    device_id: 'hex16',
    name: null,
    clock: null,
    recording_since: null,
    include_sensitive: 0,
    published_through: null,
  },
  counts: [0, 0, 0],
}

for (const driver of DRIVERS) {
  describe(`migration 0027: the sync log (${driver})`, () => {
    it('is migration 27', () => {
      assert.ok(SYNC !== undefined)
      assert.equal(SYNC.version, 27)
    })

    it('gives a fresh store one device with a stable id, recording off, and empty logs', () => {
      const root = tempDir()
      try {
        let db = Database.open({ dataDir: root, driver, now: () => now })
        assert.deepEqual(syncState(db), EXPECTED)
        const id = db.get('SELECT device_id FROM sync_device')?.['device_id']
        db.close()
        db = Database.open({ dataDir: root, driver, now: () => now })
        assert.equal(
          db.get('SELECT device_id FROM sync_device')?.['device_id'],
          id,
          'the id is made once, not on each open',
        )
        assert.throws(() => db.run("INSERT INTO sync_device (id, device_id) VALUES (2, 'abc')"), /CHECK/u)
        assert.throws(() => db.run("UPDATE sync_device SET device_id = 'Not An Id'"), /CHECK/u)
        db.close()
      } finally {
        removeDir(root)
      }
    })

    it('upgrades a store version 26 left: its facts stay, a device is made, and each log keeps an operation id once', () => {
      const root = tempDir()
      try {
        assert.ok(SYNC !== undefined)
        const { db: old, dataDir } = openAtVersion(root, SYNC.version - 1, driver, () => now)
        old.run("INSERT INTO entities (entity_key, display, created_at) VALUES ('dev server', 'dev server', ?)", now)
        old.run(
          `INSERT INTO facts (entity_id, subject, property, predicate_key, value, scope, slot_key, claim_key, status, evidence_rank,
            model_use_allowed, observed_at, recorded_at, valid_from, origin, updated_at)
          VALUES (1, 'dev server', 'port', 'port', '7801', 'global', unhex(?), unhex(?), 'active', 2, 1, 1772355600000, 1772355600000, 1772355600000, 'tool', 1772355600000)`,
          hexKey('slot'),
          hexKey('claim'),
        )
        assert.equal(old.get("SELECT count(*) AS n FROM sqlite_schema WHERE name LIKE 'sync_%'")?.['n'], 0)
        old.close()

        const db = Database.open({ dataDir, driver, now: () => now })
        try {
          assert.equal(Number(db.get('PRAGMA user_version')?.['user_version']), LATEST)
          assert.deepEqual(syncState(db), EXPECTED)
          assert.equal(db.get('SELECT value FROM facts')?.['value'], '7801')
          const record = '{"kind":"write"}'
          db.run("INSERT INTO sync_own_records (op, hlc, kind, record) VALUES ('op-000001', 'h', 'write', ?)", record)
          assert.throws(
            () =>
              db.run(
                "INSERT INTO sync_own_records (op, hlc, kind, record) VALUES ('op-000001', 'h2', 'write', ?)",
                record,
              ),
            /UNIQUE/u,
          )
          assert.throws(
            () =>
              db.run(
                "INSERT INTO sync_own_records (op, hlc, kind, record) VALUES ('op-000002', 'h', 'rewrite', ?)",
                record,
              ),
            /CHECK/u,
          )
          db.run("INSERT INTO sync_received (op, device, hlc, record) VALUES ('op-000009', 'desktop', 'h', ?)", record)
          assert.equal(
            db.run(
              "INSERT OR IGNORE INTO sync_received (op, device, hlc, record) VALUES ('op-000009', 'desktop', 'h', ?)",
              record,
            ).changes,
            0,
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
