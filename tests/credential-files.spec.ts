/**
 * A credential kept in the store (refuseCredentials off) is masked in every file the plugin writes, whatever the
 * flags: the Markdown library (with and without includeSensitive), the JSONL export, and the backups taken before an
 * export and before "Clear everything" (checked as raw bytes on a real store file, both bindings), and the log lines
 * the host receives. Personal data stays the user's choice: includeSensitive still writes it.
 */
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, it } from 'node:test'
import { maskForFile } from '../src/text/credential-copy.ts'
import { maskedLogger } from '../src/host/masked-logger.ts'
import { openConnection } from '../src/store/connection.ts'
import { MASK } from '../src/text/privacy.ts'
import { DRIVERS } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

const SECRET = 'Tr0ub4dor93xQ'
const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'
const PROPOSED = 'Zq8Wm3Kx71Lp'

describe('maskForFile', () => {
  const fact = {
    subject: 'staging db',
    property: 'password',
    value: SECRET,
    qualifiers: { 'api key': 'Zx9Qw7Er', host: 'db.internal' },
    quote: `the staging db password is ${SECRET}`,
    sensitivity: 'credential' as const,
    foldedFrom: [`${SECRET} 2026-01-01`],
    cues: [],
  }

  it('masks a credential fact whole: value, credential qualifiers, quote and prior values; the rest stays', () => {
    const masked = maskForFile(fact)
    assert.equal(masked.value, MASK)
    assert.deepEqual(masked.qualifiers, { 'api key': MASK, host: 'db.internal' })
    assert.equal(masked.quote, `the staging db password is ${MASK}`)
    assert.deepEqual(masked.foldedFrom, [MASK])
    assert.equal(masked.subject, 'staging db')
    assert.doesNotMatch(JSON.stringify(masked), new RegExp(SECRET, 'u'))
  })

  it('leaves personal data and plain facts alone, masking only a qualifier that is a credential', () => {
    const email = {
      ...fact,
      property: 'email',
      value: 'alice@example.com',
      sensitivity: 'email' as const,
      qualifiers: {},
      quote: null,
      foldedFrom: [],
    }
    assert.equal(maskForFile(email), email)
    assert.deepEqual(maskForFile({ ...email, sensitivity: null, qualifiers: { token: TOKEN } }).qualifiers, {
      token: MASK,
    })
  })
})

describe('maskedLogger', () => {
  it('masks a credential in the format, a text argument or an error before the host logger sees it; numbers pass', () => {
    const lines: unknown[][] = []
    const logger = maskedLogger({
      info: (...args) => {
        lines.push(['info', ...args])
      },
      warn: (...args) => {
        lines.push(['warn', ...args])
      },
    })
    logger.warn(
      'the retry of parked extraction range #%d failed: %s',
      7,
      `the extraction endpoint answered HTTP 400: {"error":"bad input: password=${SECRET}"}`,
    )
    logger.warn('vector sweep failed: %s', new Error(`upstream said Bearer ${TOKEN}`))
    logger.info(`fact memory: api_key=${SECRET}`)
    assert.doesNotMatch(JSON.stringify(lines), new RegExp(`${SECRET}|${TOKEN}`, 'u'))
    assert.deepEqual(lines[0]?.slice(0, 3), ['warn', 'the retry of parked extraction range #%d failed: %s', 7])
    assert.match(String(lines[1]?.[2]), /^upstream said Bearer ••••••••$/u)
  })
})

for (const driver of DRIVERS) {
  describe(`files written with a credential kept in the store (${driver})`, () => {
    let v: VerbHarness | undefined
    afterEach(() => {
      v?.dispose()
    })

    const seed = (harness: VerbHarness): void => {
      const config = harness.h.config
      const kept = harness.h.memory.write(
        {
          subject: 'staging db',
          property: 'password',
          value: SECRET,
          qualifiers: { 'deploy token': TOKEN },
          evidence: 'explicit_user',
          origin: 'tool',
          quote: `the staging db password is ${SECRET}`,
        },
        config,
      )
      assert.equal(kept.kind, 'saved', JSON.stringify(kept))
      harness.h.memory.write(
        { subject: 'user', property: 'email', value: 'alice@example.com', evidence: 'explicit_user', origin: 'tool' },
        config,
      )
      const proposed = harness.h.memory.write(
        {
          subject: 'ci',
          property: 'deploy password',
          value: PROPOSED,
          evidence: 'observed',
          origin: 'tool',
          confidence: 0.3,
        },
        config,
      )
      assert.equal(
        proposed.kind,
        'proposed',
        'a credential the model is unsure of waits on a card, in clear in the store',
      )
      const stored = harness.h.db().get("SELECT value FROM facts WHERE property = 'password'")
      assert.equal(stored?.['value'], SECRET, 'the store keeps the credential in clear (refuseCredentials off)')
    }

    const assertClean = (path: string, what: string): void => {
      const bytes = readFileSync(path)
      for (const secret of [SECRET, TOKEN.slice(4), PROPOSED])
        assert.equal(bytes.includes(Buffer.from(secret)), false, `${what} holds ${secret} in clear`)
    }

    it('the Markdown library masks the credential, with and without includeSensitive', async () => {
      v = verbHarness(driver, { refuseCredentials: false, backupBeforeExport: false })
      seed(v)
      for (const includeSensitive of [false, true]) {
        const answer = await v.ok('export', { format: 'markdown', includeSensitive })
        assertClean(String(answer['path']), `the Markdown export (includeSensitive ${String(includeSensitive)})`)
        const text = readFileSync(String(answer['path']), 'utf8')
        if (includeSensitive) {
          assert.match(text, /alice@example\.com/u, "personal data stays the user's choice")
          assert.match(text, /- \*\*password\*\*: ••••••••/u)
        }
      }
    })

    it('the JSONL export withholds the credential', async () => {
      v = verbHarness(driver, { refuseCredentials: false, backupBeforeExport: false })
      seed(v)
      assertClean(String((await v.ok('export', { format: 'jsonl' }))['path']), 'the JSONL export')
    })

    it('the backups before an export and before "Clear everything" hold the credential masked, and still open as stores', async () => {
      v = verbHarness(driver, { refuseCredentials: false })
      seed(v)
      const exported = await v.ok('export', { format: 'jsonl' })
      const backup = (exported['backup'] as { path: string }).path
      assertClean(backup, 'the export backup')
      const copy = openConnection(backup, driver)
      try {
        const row = copy
          .prepare("SELECT value, sensitivity, model_use_allowed FROM facts WHERE property = 'password'")
          .get()
        assert.deepEqual(
          [row?.['value'], row?.['sensitivity'], Number(row?.['model_use_allowed'])],
          [MASK, 'credential', 0],
        )
        assert.equal(
          copy.prepare("SELECT value FROM facts WHERE property = 'email'").get()?.['value'],
          'alice@example.com',
        )
      } finally {
        copy.close()
      }
      const first = await v.call('wipe', v.fence())
      assert.ok(!first.ok && first.code === 'confirm_required')
      const wiped = await v.ok(
        'wipe',
        v.fence({ confirmToken: (first.details as { confirmToken: string }).confirmToken }),
      )
      assertClean((wiped['backup'] as { path: string }).path, 'the wipe backup')
      const dir = join(v.h.dataDir, 'backups')
      assert.deepEqual(
        readdirSync(dir).filter((name) => !name.endsWith('.db')),
        [],
        'no journal or temp file left beside the backups',
      )
    })
  })
}
