/**
 * Upgrading a version-3 store: the run log's rows from before masking (a refused credential in clear, secrets in the
 * text a pass sent) end up masked once the store opens, and everything else about them stays.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { FactMemory } from '../src/fact-memory.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { DRIVERS, openAtVersion, removeDir, tempDir } from './helpers/store.ts'

const now = '2026-03-01T09:00:00.000Z'
const PASSWORD = 'Tr0ub4dor&3'
const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'

for (const driver of DRIVERS) {
  describe(`migration 0004 (${driver})`, () => {
    it('masks the credentials of run-log rows written before it, in the refused list and the text sent, once the store opens', () => {
      const root = tempDir()
      try {
        const { db: old, dataDir } = openAtVersion(root, 3, driver, () => now)
        const refused = [
          { reason: 'credential', subject: 'staging db', property: 'password', value: PASSWORD },
          { reason: 'quote_not_in_input', subject: 'deploy', property: 'token', value: TOKEN },
          { reason: 'duplicate', subject: 'billing-api', property: 'port', value: '7801' },
        ]
        const text = `USER: the staging db password is ${PASSWORD}, the deploy token is ${TOKEN}, billing-api runs on port 7801`
        old.run(
          `INSERT INTO extract_runs (session_id, trigger, decision, text_sent, refused, written, started_at, finished_at)
          VALUES ('session-1', 'turn', 'extracted', ?, ?, 1, ?, ?)`,
          text,
          JSON.stringify(refused),
          now,
          now,
        )
        old.close()

        const memory = new FactMemory({ clock: new FakeClock(now), driver })
        memory.open(dataDir)
        try {
          const opened = memory.storeSet()
          if (!('stores' in opened)) throw new Error('the upgraded store did not open')
          const row = opened.stores.db.get('SELECT refused, text_sent FROM extract_runs') ?? {}
          for (const secret of [PASSWORD, TOKEN])
            assert.equal(JSON.stringify(row).includes(secret), false, `the row still holds ${secret}`)
          const [run] = opened.stores.extract.recent(1)
          assert.deepEqual(
            run?.refused.map((entry) => [
              entry.reason,
              entry.subject,
              entry.property,
              entry.value === PASSWORD || entry.value === TOKEN,
            ]),
            [
              ['credential', 'staging db', 'password', false],
              ['quote_not_in_input', 'deploy', 'token', false],
              ['duplicate', 'billing-api', 'port', false],
            ],
          )
          assert.equal(run?.refused[2]?.value, '7801', 'an ordinary value stays')
          assert.match(
            String(row['text_sent']),
            /^USER: the staging db password is .+, the deploy token is .+, billing-api runs on port 7801$/u,
          )
          assert.equal(run?.written, 1)
        } finally {
          memory.close()
        }
      } finally {
        removeDir(root)
      }
    })
  })
}
