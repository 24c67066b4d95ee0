/**
 * Upgrading a store from before pins: migration 0017 leaves every fact a store of the previous version holds unpinned,
 * and the pin column then takes an instant and refuses text that is not one.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Database } from '../src/store/database.ts'
import { defaultMigrationsDir, readMigrations } from '../src/store/migrate.ts'
import { PinStore } from '../src/store/pin-store.ts'
import { DRIVERS, hexKey, openAtVersion, removeDir, tempDir } from './helpers/store.ts'
import { instantColumn } from '../src/store/fact-rows.ts'

const now = '2026-03-01T09:00:00.000Z'
const FACT = `INSERT INTO facts (entity_id, subject, property, predicate_key, value, scope, slot_key, claim_key, evidence_key, status,
    evidence, evidence_rank, observed_at, recorded_at, valid_from, origin, updated_at)
  VALUES (1, 'dev server', ?, ?, ?, 'global', ?, ?, ?, ?, 'observed', 2, ?, ?, ?, 'tool', ?)`

for (const driver of DRIVERS) {
  describe(`migration 0017 (${driver})`, () => {
    it('leaves the facts of an older store unpinned, and the column then holds a pin and refuses junk', () => {
      const root = tempDir()
      try {
        const migration = readMigrations(defaultMigrationsDir()).find((entry) => entry.name.endsWith('-fact-pins.sql'))
        assert.ok(migration !== undefined)
        const { db: old, dataDir } = openAtVersion(root, migration.version - 1, driver, () => now)
        old.run(`INSERT INTO entities (entity_key, display, created_at) VALUES ('dev server', 'dev server', ?)`, now)
        for (const [property, status] of [
          ['port', 'active'],
          ['host', 'superseded'],
        ] as const) {
          old.run(
            FACT,
            property,
            property,
            `${property} value`,
            hexKey(`slot-${property}`),
            hexKey(`claim-${property}`),
            hexKey(`ev-${property}`),
            status,
            now,
            now,
            now,
            now,
          )
        }
        old.close()

        const upgraded = Database.open({ dataDir, driver, now: () => now })
        try {
          assert.deepEqual(
            upgraded.all('SELECT property, pinned_at FROM facts ORDER BY id').map((row) => ({ ...row })),
            [
              { property: 'port', pinned_at: null },
              { property: 'host', pinned_at: null },
            ],
          )
          const pins = new PinStore(upgraded)
          const generation = upgraded.generation()
          assert.deepEqual(pins.setPin(1, now), { ok: true, before: null, after: now })
          assert.equal(upgraded.generation(), generation + 1, 'a pin is a change to the memory')
          assert.equal(upgraded.get(`SELECT ${instantColumn('pinned_at')} FROM facts WHERE id = 1`)?.['pinned_at'], now)
          // Since 0021 the pin is an instant in epoch milliseconds: text that is no instant is refused outright.
          assert.throws(
            () => upgraded.run('UPDATE facts SET pinned_at = ? WHERE id = 2', 'x'),
            /cannot store TEXT value in INTEGER column/u,
          )
          assert.deepEqual(pins.setPin(99, now), { ok: false, reason: 'not_found' })
        } finally {
          upgraded.close()
        }
      } finally {
        removeDir(root)
      }
    })
  })
}
