/**
 * The copies a migration leaves beside the store (`memory.v<N>-backup-*.db`): the new one holds every credential
 * masked (one kept in clear with refuseCredentials off, and one an older version stored unflagged), the copies an
 * older version left are masked once the privacy rescan has run, and all of them rotate under `backupKeep`, counted
 * apart from the backups in <dataDir>/backups. A version 18 store file on both bindings, as raw bytes.
 */
import assert from 'node:assert/strict'
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, it } from 'node:test'
import { openConnection, type DriverName } from '../src/store/connection.ts'
import { PRIVACY_RULES_VERSION } from '../src/privacy-rescan.ts'
import { MASK } from '../src/text/privacy.ts'
import { DRIVERS } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

const FIXTURE = fileURLToPath(new URL('./fixtures/store-v18.db', import.meta.url))
const SECRET = 'Tr0ub4dor93xQ'
const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'
const COPY = /^memory\.v\d+-backup-.+\.db$/u
/** Copies an older version left, oldest first. */
const OLD_COPIES = ['01', '02', '03'].map((day) => `memory.v17-backup-2026-01-${day}T00-00-00-000Z.db`)

/**
 * A version 18 store holding a credential kept in clear on purpose (fact 27) and one an older version stored without
 * flagging it (fact 24), stamped as rescanned under the rules `stamp` names ('1': older, so today's rescan runs), with
 * three copies an older version left beside it.
 */
function placeStore(dataDir: string, driver: DriverName, stamp = '1'): void {
  const store = join(dataDir, 'memory.db')
  copyFileSync(FIXTURE, store)
  const db = openConnection(store, driver)
  try {
    db.prepare(
      "UPDATE facts SET property = 'password', value = ?, sensitivity = 'credential', model_use_allowed = 0 WHERE id = 27",
    ).run(SECRET)
    db.prepare('UPDATE facts SET value = ? WHERE id = 24').run(`deploy token ${TOKEN}`)
    db.prepare("UPDATE store_meta SET value = ? WHERE key = 'privacy_rules_version'").run(stamp)
    db.exec('VACUUM')
  } finally {
    db.close()
  }
  for (const name of OLD_COPIES) copyFileSync(store, join(dataDir, name))
}

function holdsInClear(path: string): boolean {
  const bytes = readFileSync(path)
  return bytes.includes(Buffer.from(SECRET)) || bytes.includes(Buffer.from(TOKEN))
}

for (const driver of DRIVERS) {
  describe(`migration copies beside the store (${driver})`, () => {
    let v: VerbHarness | undefined
    afterEach(() => {
      v?.dispose()
    })

    it('masks every credential in the new copy and in the copies an older version left, and keeps the newest backupKeep of them', () => {
      v = verbHarness(
        driver,
        { backupKeep: 2 },
        {
          beforeOpen: (dataDir) => {
            placeStore(dataDir, driver)
          },
        },
      )
      const dataDir = v.h.dataDir
      assert.equal(v.h.memory.status().available, true)
      const copies = readdirSync(dataDir)
        .filter((name) => COPY.test(name))
        .sort()
      assert.equal(copies.length, 2, `kept: ${copies.join(', ')}`)
      assert.equal(copies[0], OLD_COPIES[2], 'the newest copy an older version left stays; the two before it go')
      assert.match(copies[1] ?? '', /^memory\.v18-backup-/u)
      for (const name of copies)
        assert.equal(holdsInClear(join(dataDir, name)), false, `${name} holds a credential in clear`)
      const copy = openConnection(join(dataDir, copies[1] ?? ''), driver)
      try {
        assert.equal(
          copy.prepare('PRAGMA user_version').get()?.['user_version'],
          18,
          'still the version 18 file, to go back to',
        )
        assert.equal(copy.prepare('SELECT value FROM facts WHERE id = 27').get()?.['value'], MASK)
        assert.deepEqual(
          { ...copy.prepare('SELECT value, sensitivity FROM facts WHERE id = 24').get() },
          { value: MASK, sensitivity: 'credential' },
        )
        assert.equal(
          copy.prepare('SELECT value FROM facts WHERE id = 4').get()?.['value'],
          'Neovim with LazyVim',
          'the rest as it was',
        )
      } finally {
        copy.close()
      }
      assert.equal(existsSync(join(dataDir, 'backups')), false, 'the backups directory is counted apart and untouched')
    })

    it('masks the copy it takes before migrating even when the rescan has nothing to run, and backupKeep 0 keeps every copy', () => {
      v = verbHarness(
        driver,
        { backupKeep: 0 },
        {
          beforeOpen: (dataDir) => {
            placeStore(dataDir, driver, String(PRIVACY_RULES_VERSION))
          },
        },
      )
      const copies = readdirSync(v.h.dataDir).filter((name) => COPY.test(name))
      assert.equal(copies.length, 4)
      const taken = copies.find((name) => name.startsWith('memory.v18-'))
      assert.ok(taken !== undefined)
      assert.equal(holdsInClear(join(v.h.dataDir, taken)), false, 'the new copy holds the kept credential masked')
    })
  })
}
