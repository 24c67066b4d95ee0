/**
 * Upgrading a version-3 store: migration 0005 keeps every proposal card as it was, lets a change whose card is closed
 * get a fresh card, and still refuses a second pending card for the same change.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Database } from '../src/store/database.ts'
import { defaultMigrationsDir, readMigrations } from '../src/store/migrate.ts'
import { DRIVERS, openAtVersion, removeDir, tempDir } from './helpers/store.ts'

const now = '2026-03-01T09:00:00.000Z'
const CARD = `INSERT INTO proposals (fingerprint, kind, status, reason, rows, created_at, updated_at, decided_at)
  VALUES (?, 'add_fact', ?, 'inferred', '[]', ?, ?, ?)`

for (const driver of DRIVERS) {
  describe(`migration 0005 (${driver})`, () => {
    it("upgrades a version-3 store in place: cards stay, a closed card's change can be queued afresh, one pending card per change", () => {
      const root = tempDir()
      try {
        const { db: old, dataDir } = openAtVersion(root, 3, driver, () => now)
        old.run(CARD, 'fp-stale', 'stale', now, now, now)
        old.run(CARD, 'fp-pending', 'pending', now, now, null)
        assert.throws(
          () => old.run(CARD, 'fp-stale', 'pending', now, now, null),
          /UNIQUE/u,
          'version 3 holds one card per change',
        )
        assert.equal(Number(old.get('PRAGMA user_version')?.['user_version']), 3)
        old.close()

        const upgraded = Database.open({ dataDir, driver, now: () => now })
        try {
          assert.equal(
            Number(upgraded.get('PRAGMA user_version')?.['user_version']),
            readMigrations(defaultMigrationsDir()).length,
          )
          const cards = upgraded
            .all('SELECT fingerprint, status, decided_at FROM proposals ORDER BY id')
            .map((row) => [row['fingerprint'], row['status'], row['decided_at']])
          assert.deepEqual(cards, [
            ['fp-stale', 'stale', now],
            ['fp-pending', 'pending', null],
          ])
          upgraded.run(CARD, 'fp-stale', 'pending', now, now, null)
          assert.throws(() => upgraded.run(CARD, 'fp-pending', 'pending', now, now, null), /UNIQUE/u)
          assert.equal(
            Number(upgraded.get(`SELECT count(*) AS n FROM proposals WHERE fingerprint = 'fp-stale'`)?.['n']),
            2,
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
