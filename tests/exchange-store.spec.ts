/**
 * export and import on a real store, for both SQLite bindings, called in process through their schemas: the round
 * trip, the preview classes and its token, refusals that leave the store untouched (stale token, changed file,
 * paths outside the data directory, a failure mid-commit), the import's downgrades (observed evidence, sensitive
 * values hidden from the model, conflicts instead of replacements), withheld credentials, byte-exact Chinese text,
 * and backup rotation.
 */
import assert from 'node:assert/strict'
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { Config } from '../src/config.ts'
import { EXCHANGE_FORMAT } from '../src/exchange/jsonl.ts'
import { exportVerb } from '../src/management/export.ts'
import { importVerb } from '../src/management/import.ts'
import { wipeVerb } from '../src/management/maintenance.ts'
import { createConfirmationBook } from '../src/routes/confirmations.ts'
import type { ConfirmationBook, VerbContext, VerbDefinition, VerbOutcome } from '../src/management/verb.ts'
import { VERBS } from '../src/management/verbs.ts'
import { MASK } from '../src/text/privacy.ts'
import type { Fact } from '../src/types.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { count, DRIVERS, oneRow, openMemory, writeFact, type MemoryHandle, type PartialFact } from './helpers/store.ts'

const SECOND = 1000

for (const driver of DRIVERS) {
  describe(`JSONL exchange on a real store (${driver})`, () => {
    let clock: FakeClock
    let h: MemoryHandle
    let confirmations: ConfirmationBook
    let ops = 0

    const open = (overrides: Partial<Config> = {}): void => {
      h.dispose()
      h = openMemory(driver, clock, overrides)
    }
    beforeEach(() => {
      clock = new FakeClock('2026-03-01T09:00:00.000Z')
      h = openMemory(driver, clock)
      confirmations = createConfirmationBook(clock)
    })
    afterEach(() => h.dispose())

    const context = (): VerbContext => {
      const opened = h.memory.storeSet()
      if (!('stores' in opened)) throw new Error('the store is not open')
      return {
        stores: opened.stores,
        config: h.config,
        clock,
        now: () => clock.iso(),
        credentials: undefined,
        confirmations,
        memory: {
          status: () => h.memory.status(),
          advance: () => h.memory.advance(),
          search: (ask) => h.memory.search(ask, h.config),
        },
      }
    }
    /** Validate the body with the verb's schema, as the HTTP shell does, then run it. */
    const call = async (definition: VerbDefinition, body: unknown): Promise<VerbOutcome> => {
      const parsed = definition.schema.safeParse(body)
      if (!parsed.success)
        throw new Error(`schema refused ${JSON.stringify(body).slice(0, 200)}: ${parsed.error.message}`)
      return definition.run(parsed.data, context())
    }
    const data = async (definition: VerbDefinition, body: unknown): Promise<Record<string, unknown>> => {
      const outcome = await call(definition, body)
      if (!outcome.ok) throw new Error(`refused: ${outcome.code} ${outcome.message}`)
      return outcome.data as Record<string, unknown>
    }
    const refusal = async (
      definition: VerbDefinition,
      body: unknown,
    ): Promise<{ code: string; message: string; details: unknown }> => {
      const outcome = await call(definition, body)
      if (outcome.ok) throw new Error(`expected a refusal, got ${JSON.stringify(outcome.data).slice(0, 300)}`)
      return { code: outcome.code, message: outcome.message, details: outcome.details }
    }
    const generation = (): number => h.memory.status().generation
    const fence = () => ({ expectedGeneration: generation(), operationId: `op-exchange-${(ops += 1)}` })
    const exportFile = async (
      body: Record<string, unknown> = {},
    ): Promise<Record<string, unknown> & { relativePath: string; path: string; sha: string }> => {
      const answer = await data(exportVerb, body)
      return {
        ...answer,
        relativePath: String(answer['relativePath']),
        path: String(answer['path']),
        sha: String(answer['recordsSha256']),
      }
    }
    const preview = (source: { path: string } | { content: string }) => data(importVerb, { mode: 'preview', ...source })
    const commit = async (source: { path: string } | { content: string }, token: unknown) =>
      call(importVerb, { mode: 'commit', ...source, token, ...fence() })
    const importAll = async (source: { path: string } | { content: string }): Promise<Record<string, unknown>> => {
      const seen = await preview(source)
      const outcome = await commit(source, seen['token'])
      if (!outcome.ok) throw new Error(`commit refused: ${outcome.code} ${outcome.message}`)
      return outcome.data as Record<string, unknown>
    }
    const wipe = async (): Promise<void> => {
      const first = await refusal(wipeVerb, fence())
      assert.equal(first.code, 'confirm_required')
      await data(wipeVerb, { ...fence(), confirmToken: (first.details as { confirmToken: string }).confirmToken })
    }
    const facts = (): number => count(h.db(), `SELECT count(*) AS n FROM facts WHERE status <> 'forgotten'`)
    const operations = (): number => count(h.db(), 'SELECT count(*) AS n FROM operations')
    const recordLines = (path: string): string[] => readFileSync(path, 'utf8').split('\n').slice(1, -1)
    const jsonl = (...records: Record<string, unknown>[]): string =>
      records.map((record) => JSON.stringify(record)).join('\n') + '\n'
    const factByValue = (value: string): Fact => {
      const id = Number(
        oneRow(
          h.db(),
          `SELECT id FROM facts WHERE value = ? AND status <> 'forgotten' ORDER BY id DESC LIMIT 1`,
          value,
        )['id'],
      )
      const [fact] = context().stores.facts.getFacts([id])
      if (fact === undefined) throw new Error(`no fact ${id}`)
      return fact
    }

    it('registers export and import in the verb table, import with a 17 MiB body limit', () => {
      assert.equal(VERBS['export'], exportVerb)
      assert.equal(VERBS['import'], importVerb)
      assert.equal(importVerb.bodyLimit, 17 * 1024 * 1024)
    })

    describe('export', () => {
      it("writes a manifest line, one line per non-forgotten fact, history included, then the forgotten one's tombstones, UTF-8 without BOM, LF only", async () => {
        writeFact(h.memory, h.config, {
          subject: 'billing-api',
          property: 'port',
          value: '7801',
          evidence: 'explicit_user',
        })
        clock.advance(SECOND)
        writeFact(h.memory, h.config, {
          subject: 'billing-api',
          property: 'port',
          value: '7802',
          evidence: 'explicit_user',
        })
        const gone = writeFact(h.memory, h.config, { subject: 'orders-api', property: 'owner', value: 'team blue' })
        h.memory.forgetById(gone.id)
        const answer = await exportFile({ backup: false })
        const bytes = readFileSync(answer.path)
        assert.notDeepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf])
        assert.equal(bytes.includes(0x0d), false)
        assert.equal(bytes.at(-1), 0x0a)
        assert.match(answer.relativePath, /^exports\/facts-2026-03-01T09-00-01-000Z\.jsonl$/u)
        const [manifestText, ...rest] = bytes.toString('utf8').split('\n')
        const manifest = JSON.parse(manifestText ?? '') as Record<string, unknown>
        assert.equal(manifest['format'], EXCHANGE_FORMAT)
        assert.equal(manifest['version'], 1)
        assert.equal(manifest['storeId'], h.memory.status().storeId)
        assert.equal(manifest['generation'], generation())
        assert.equal(manifest['exportedAt'], '2026-03-01T09:00:01.000Z')
        assert.equal(manifest['records'], 2, 'records counts the fact lines only')
        assert.equal(manifest['tombstones'], 2)
        assert.equal(manifest['records_sha256'], answer.sha)
        const records = rest.slice(0, -1).map((line) => JSON.parse(line) as Record<string, unknown>)
        assert.deepEqual(
          records.map((record) => [record['value'] ?? record['tombstone'], record['status'] ?? record['forgottenAt']]),
          [
            ['7801', 'superseded'],
            ['7802', 'active'],
            ['claim', '2026-03-01T09:00:01.000Z'],
            ['evidence', '2026-03-01T09:00:01.000Z'],
          ],
        )
        assert.ok(!rest.join('\n').includes('team blue'), 'a tombstone carries a hash, never what was said')
        assert.equal(answer['records'], 2)
        assert.deepEqual(
          readdirSync(join(h.dataDir, 'exports')),
          [answer.relativePath.slice('exports/'.length)],
          'no temp file is left behind',
        )
      })

      it('moves no generation, so a page holding it is not made stale', async () => {
        writeFact(h.memory, h.config)
        const before = generation()
        await exportFile()
        assert.equal(generation(), before)
      })

      it('writes a credential without its value or quote, and an import refuses that record', async () => {
        open({ refuseCredentials: false })
        writeFact(h.memory, h.config, {
          subject: 'billing-api',
          property: 'api key',
          value: 'sk-abcdefghijklmnop1234',
          quote: 'the key is sk-abcdefghijklmnop1234',
        })
        writeFact(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' })
        const answer = await exportFile({ backup: false })
        const text = readFileSync(answer.path, 'utf8')
        assert.equal(text.includes('sk-abcdefghijklmnop1234'), false)
        const credential = JSON.parse(recordLines(answer.path)[0] ?? '') as Record<string, unknown>
        assert.equal(credential['valueWithheld'], true)
        assert.equal(Object.hasOwn(credential, 'value'), false)
        assert.equal(credential['quote'], null)
        assert.equal(credential['sensitivity'], 'credential')
        const seen = await preview({ path: answer.relativePath })
        assert.deepEqual(seen['counts'], { new: 0, duplicate: 1, repeated: 0, conflict: 0, tombstoned: 0, invalid: 1 })
        const invalid = seen['invalid'] as { line: number; reason: string }[]
        assert.equal(invalid[0]?.line, 2)
        assert.match(invalid[0]?.reason ?? '', /withheld/u)
      })

      it('keeps Chinese text byte-exact through export, wipe and import', async () => {
        const value = '七千八百零一号端口（主用）🚀'
        writeFact(h.memory, h.config, {
          subject: '支付服务',
          property: '端口',
          value,
          quote: '支付服务的端口是七千八百零一号',
          qualifiers: { 环境: '生产' },
          scope: '项目甲',
        })
        const first = await exportFile({ backup: false })
        const bytes = readFileSync(first.path)
        for (const text of ['支付服务', value, '环境', '生产', '项目甲'])
          assert.ok(bytes.includes(Buffer.from(text, 'utf8')), text)
        assert.doesNotMatch(bytes.toString('utf8'), /\\u[0-9a-f]{4}/iu)
        await wipe()
        const upload = bytes.toString('utf8')
        await importAll({ content: upload })
        const restored = factByValue(value)
        assert.equal(restored.subject, '支付服务')
        assert.equal(restored.quote, '支付服务的端口是七千八百零一号')
        assert.deepEqual(restored.qualifiers, { 环境: '生产' })
        clock.advance(SECOND)
        const second = await exportFile({ backup: false })
        assert.deepEqual(
          readFileSync(second.path).subarray(readFileSync(second.path).indexOf(0x0a)),
          bytes.subarray(bytes.indexOf(0x0a)),
        )
      })

      it('takes a backup first and rotates backups to backupKeep', async () => {
        open({ backupKeep: 2 })
        writeFact(h.memory, h.config)
        const answers = []
        for (let i = 0; i < 3; i += 1) {
          answers.push(await exportFile())
          clock.advance(SECOND)
        }
        const backups = readdirSync(join(h.dataDir, 'backups')).sort()
        assert.deepEqual(backups, [
          'memory-export-2026-03-01T09-00-01-000Z.db',
          'memory-export-2026-03-01T09-00-02-000Z.db',
        ])
        assert.deepEqual(
          (answers[2]?.['backup'] as { relativePath: string }).relativePath,
          'backups/memory-export-2026-03-01T09-00-02-000Z.db',
        )
        assert.equal(readdirSync(join(h.dataDir, 'exports')).length, 3, 'exports are not rotated')
        const skipped = await exportFile({ backup: false })
        assert.equal(skipped['backup'], null)
        assert.equal(readdirSync(join(h.dataDir, 'backups')).length, 2)
      })

      it('rotates wipe and export backups together by the time they were taken, keeping the newest backupKeep', async () => {
        open({ backupKeep: 5 })
        for (let i = 0; i < 10; i += 1) {
          await wipe()
          clock.advance(SECOND)
        }
        const exports = []
        for (let i = 0; i < 3; i += 1) {
          exports.push(await exportFile())
          clock.advance(SECOND)
        }
        const backups = readdirSync(join(h.dataDir, 'backups'))
        assert.deepEqual(
          new Set(backups),
          new Set([
            'memory-wipe-2026-03-01T09-00-08-000Z.db',
            'memory-wipe-2026-03-01T09-00-09-000Z.db',
            'memory-export-2026-03-01T09-00-10-000Z.db',
            'memory-export-2026-03-01T09-00-11-000Z.db',
            'memory-export-2026-03-01T09-00-12-000Z.db',
          ]),
        )
        const last = exports[2]?.['backup'] as { path: string; relativePath: string }
        assert.equal(last.relativePath, 'backups/memory-export-2026-03-01T09-00-12-000Z.db')
        assert.ok(existsSync(last.path), 'the receipt names a file that exists')
      })

      it('never deletes the backup it has just written, even when an older one carries the same instant', async () => {
        open({ backupKeep: 1 })
        await wipe()
        const answer = await exportFile()
        const receipt = answer['backup'] as { path: string; relativePath: string }
        assert.deepEqual(readdirSync(join(h.dataDir, 'backups')), ['memory-export-2026-03-01T09-00-00-000Z.db'])
        assert.ok(existsSync(receipt.path))
      })

      it('leaves files in the backups directory alone when their name carries no time it took', async () => {
        open({ backupKeep: 1 })
        mkdirSync(join(h.dataDir, 'backups'), { recursive: true })
        writeFileSync(join(h.dataDir, 'backups', 'memory-export-before-upgrade.db'), '')
        for (let i = 0; i < 2; i += 1) {
          await exportFile()
          clock.advance(SECOND)
        }
        assert.deepEqual(readdirSync(join(h.dataDir, 'backups')).sort(), [
          'memory-export-2026-03-01T09-00-01-000Z.db',
          'memory-export-before-upgrade.db',
        ])
      })

      it('names a second export of the same instant apart instead of overwriting the first', async () => {
        writeFact(h.memory, h.config)
        const a = await exportFile({ backup: false })
        const b = await exportFile({ backup: false })
        assert.notEqual(a.relativePath, b.relativePath)
        assert.ok(existsSync(a.path) && existsSync(b.path))
      })

      it('refuses to write through an exports directory that is a symbolic link out of the data directory', async () => {
        symlinkSync(h.root, join(h.dataDir, 'exports'))
        const refused = await refusal(exportVerb, { backup: false })
        assert.equal(refused.code, 'invalid_path')
        assert.equal(
          readdirSync(h.root).some((name) => name.startsWith('facts-')),
          false,
        )
      })
    })

    describe('import', () => {
      it('restores the same facts after export and wipe, and a second export has the same records_sha256', async () => {
        const writes: PartialFact[] = [
          { subject: 'billing-api', property: 'port', value: '7801' },
          { subject: 'orders-api', property: 'owner', value: 'team blue' },
          { subject: 'orders-api', property: 'owner', value: 'team red', evidence: 'unverified' },
          { subject: 'billing-api', property: 'tag', value: 'payments', multi: true },
          { subject: 'billing-api', property: 'tag', value: 'critical', multi: true },
          { subject: 'billing-api', property: 'region', value: 'eu-west', validFrom: '2026-04-01T00:00:00.000Z' },
          {
            subject: 'billing-api',
            property: 'deadline',
            value: 'Q3',
            validTo: '2026-10-01T00:00:00.000Z',
            quote: 'due Q3',
          },
          { subject: 'billing-api', property: 'port', value: '7801' },
        ]
        for (const partial of writes) {
          writeFact(h.memory, h.config, partial)
          clock.advance(SECOND)
        }
        const first = await exportFile({ backup: false })
        const records = recordLines(first.path).map(
          (line) => JSON.parse(line) as { status: string; observedAt: string; recordedAt: string },
        )
        assert.deepEqual(
          records.map((record) => record.status),
          ['active', 'active', 'conflict', 'active', 'active', 'scheduled', 'active'],
        )
        assert.deepEqual(
          [records[0]?.recordedAt, records[0]?.observedAt],
          ['2026-03-01T09:00:00.000Z', '2026-03-01T09:00:07.000Z'],
        )
        clock.advance(60 * SECOND)
        await wipe()
        assert.equal(facts(), 0)
        clock.advance(60 * SECOND)
        const seen = await preview({ path: first.relativePath })
        assert.deepEqual(seen['counts'], { new: 6, duplicate: 0, repeated: 0, conflict: 1, tombstoned: 0, invalid: 0 })
        assert.equal(seen['untouched'], true)
        const done = await commit({ path: first.relativePath }, seen['token'])
        assert.equal(done.ok, true)
        assert.deepEqual(done.ok && done.data['counts'], {
          new: 6,
          duplicate: 0,
          repeated: 0,
          conflict: 1,
          tombstoned: 0,
          invalid: 0,
        })
        assert.equal((done.ok && (done.data['factIds'] as number[]))?.length, 7)
        assert.equal(facts(), 7)
        clock.advance(SECOND)
        const second = await exportFile({ backup: false })
        assert.equal(second.sha, first.sha)
        assert.deepEqual(recordLines(second.path), recordLines(first.path))
      })

      it('restores its own untouched export exactly: user statements, history, conflicts and personal data come back as they were', async () => {
        const writes: PartialFact[] = [
          { subject: 'billing-api', property: 'port', value: '7801', evidence: 'explicit_user' },
          { subject: 'billing-api', property: 'port', value: '7802', evidence: 'explicit_user' },
          { subject: 'billing-api', property: 'port', value: '7900', evidence: 'observed' },
          { subject: '支付服务', property: '负责人', value: '张三', evidence: 'explicit_user' },
          { subject: 'user', property: 'email', value: 'carol@example.com', evidence: 'explicit_user' },
        ]
        for (const partial of writes) {
          writeFact(h.memory, h.config, partial)
          clock.advance(SECOND)
        }
        const first = await exportFile({ backup: false })
        const statuses = recordLines(first.path).map((line) => JSON.parse(line) as { status: string; evidence: string })
        assert.deepEqual(
          statuses.map((record) => `${record.status}/${record.evidence}`),
          [
            'superseded/explicit_user',
            'active/explicit_user',
            'conflict/observed',
            'active/explicit_user',
            'active/explicit_user',
          ],
        )
        await wipe()
        const seen = await preview({ path: first.relativePath })
        assert.equal(seen['restore'], true)
        assert.deepEqual(seen['counts'], { new: 4, duplicate: 0, repeated: 0, conflict: 1, tombstoned: 0, invalid: 0 })
        await commit({ path: first.relativePath }, seen['token'])
        const second = await exportFile({ backup: false })
        assert.deepEqual(recordLines(second.path), recordLines(first.path))
        assert.equal(second.sha, first.sha)
        assert.equal(
          h.memory.searchLexical({ query: 'billing-api port', limit: 5, asOf: undefined }, h.config).outcome,
          'needs_selection',
        )
        assert.equal(
          h.memory.searchLexical({ query: 'carol@example.com', limit: 5, asOf: undefined }, h.config).outcome,
          'not_found',
        )
      })

      it('treats an edited copy of its own export as any other file: downgraded, history skipped', async () => {
        writeFact(h.memory, h.config, {
          subject: 'billing-api',
          property: 'port',
          value: '7801',
          evidence: 'explicit_user',
        })
        clock.advance(SECOND)
        writeFact(h.memory, h.config, {
          subject: 'billing-api',
          property: 'port',
          value: '7802',
          evidence: 'explicit_user',
        })
        const first = await exportFile({ backup: false })
        // Edit the value itself: a bare '7802' could also occur inside the manifest's random ids or hashes.
        const text = readFileSync(first.path, 'utf8').replace('"value":"7802"', '"value":"7803"')
        assert.notEqual(text, readFileSync(first.path, 'utf8'), 'the edit took')
        await wipe()
        const seen = await preview({ content: text })
        assert.deepEqual([seen['untouched'], seen['restore']], [false, false])
        assert.deepEqual(seen['counts'], { new: 1, duplicate: 0, repeated: 0, conflict: 0, tombstoned: 0, invalid: 1 })
        await commit({ content: text }, seen['token'])
        assert.equal(factByValue('7803').evidence, 'observed')
      })

      it("keeps the file's observation and record times on new rows, and takes the import time for missing or future ones", async () => {
        clock.advance(60 * SECOND)
        await importAll({
          content: jsonl(
            {
              subject: 'billing-api',
              property: 'port',
              value: '7801',
              observedAt: '2026-02-01T10:00:00.000Z',
              recordedAt: '2026-01-01T10:00:00.000Z',
            },
            { subject: 'billing-api', property: 'owner', value: 'team blue' },
            { subject: 'billing-api', property: 'region', value: 'eu-west', observedAt: '2027-01-01T00:00:00.000Z' },
          ),
        })
        assert.deepEqual(
          [factByValue('7801').observedAt, factByValue('7801').recordedAt],
          ['2026-02-01T10:00:00.000Z', '2026-01-01T10:00:00.000Z'],
        )
        assert.deepEqual(
          [factByValue('team blue').observedAt, factByValue('team blue').recordedAt],
          [clock.iso(), clock.iso()],
        )
        assert.equal(factByValue('eu-west').observedAt, clock.iso())
      })

      it('previews without writing anything', async () => {
        writeFact(h.memory, h.config, { value: '7801' })
        const before = generation()
        const seen = await preview({
          content: jsonl({ subject: 'billing-api', property: 'owner', value: 'team blue' }),
        })
        assert.deepEqual(seen['counts'], { new: 1, duplicate: 0, repeated: 0, conflict: 0, tombstoned: 0, invalid: 0 })
        assert.equal(seen['generation'], before)
        assert.equal(generation(), before)
        assert.equal(facts(), 1)
        assert.equal(operations(), 0)
      })

      it('lists records with their class and line number, and explains invalid lines by number', async () => {
        writeFact(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' })
        const content = [
          JSON.stringify({ subject: 'billing-api', property: 'port', value: '7801' }),
          '',
          '{"subject": "broken"',
          JSON.stringify({ subject: 'billing-api', property: 'owner', value: 'team blue' }),
          JSON.stringify({ subject: 'billing-api', property: 'owner', value: 'team blue' }),
          JSON.stringify({ subject: 'billing-api', property: 'color', value: 'green', status: 'superseded' }),
          JSON.stringify({ subject: 'billing-api', property: 'port', value: '9000', evidence: 'unverified' }),
        ].join('\n')
        const seen = await preview({ content })
        const rows = (seen['records'] as { line: number; class: string }[]).map((row) => [row.line, row.class])
        assert.deepEqual(rows, [
          [1, 'duplicate'],
          [3, 'invalid'],
          [4, 'new'],
          [5, 'repeated'],
          [6, 'invalid'],
          [7, 'conflict'],
        ])
        const invalid = seen['invalid'] as { line: number; reason: string }[]
        assert.deepEqual(
          invalid.map((entry) => entry.line),
          [3, 6],
        )
        assert.match(invalid[0]?.reason ?? '', /not valid JSON/u)
        assert.match(invalid[1]?.reason ?? '', /past value/u)
        assert.equal(seen['untouched'], null, 'a file without a manifest has nothing to check against')
      })

      it('refuses a tombstoned claim on import and keeps it forgotten', async () => {
        const forgotten = writeFact(h.memory, h.config, {
          subject: 'billing-api',
          property: 'owner',
          value: 'team blue',
        })
        writeFact(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' })
        const file = await exportFile({ backup: false })
        h.memory.forgetById(forgotten.id)
        const seen = await preview({ path: file.relativePath })
        assert.deepEqual(seen['counts'], { new: 0, duplicate: 1, repeated: 0, conflict: 0, tombstoned: 1, invalid: 0 })
        const rows = seen['records'] as { class: string; reason?: string }[]
        assert.match(rows[0]?.reason ?? '', /forgotten at the user's request/u)
        const done = await commit({ path: file.relativePath }, seen['token'])
        assert.deepEqual(done.ok && done.data['counts'], {
          new: 0,
          duplicate: 1,
          repeated: 0,
          conflict: 0,
          tombstoned: 1,
          invalid: 0,
        })
        assert.equal(
          count(h.db(), `SELECT count(*) AS n FROM facts WHERE value = 'team blue' AND status <> 'forgotten'`),
          0,
        )
      })

      it('refuses a commit as stale when the store changed after the preview, applying nothing', async () => {
        const content = jsonl({ subject: 'billing-api', property: 'owner', value: 'team blue' })
        const seen = await preview({ content })
        const previewed = Number(seen['generation'])
        writeFact(h.memory, h.config, { subject: 'orders-api', property: 'port', value: '7802' })
        const before = facts()
        const oldGeneration = await refusal(importVerb, {
          mode: 'commit',
          content,
          token: seen['token'],
          expectedGeneration: previewed,
          operationId: 'op-stale-1',
        })
        assert.equal(oldGeneration.code, 'stale')
        const newGeneration = await refusal(importVerb, { mode: 'commit', content, token: seen['token'], ...fence() })
        assert.equal(newGeneration.code, 'stale')
        assert.deepEqual(newGeneration.details, { stale: true, generation: generation() })
        assert.match(newGeneration.message, /preview the import again/u)
        assert.equal(facts(), before)
        assert.equal(operations(), 0, 'a refused commit leaves no receipt')
        const fresh = await preview({ content })
        const done = await commit({ content }, fresh['token'])
        assert.equal(done.ok, true, 'a fresh preview commits')
      })

      it('refuses a commit as stale when the file changed after the preview, applying nothing', async () => {
        const path = join(h.dataDir, 'hand.jsonl')
        writeFileSync(path, jsonl({ subject: 'billing-api', property: 'owner', value: 'team blue' }))
        const seen = await preview({ path: 'hand.jsonl' })
        appendFileSync(path, jsonl({ subject: 'billing-api', property: 'port', value: '7801' }))
        const refused = await refusal(importVerb, {
          mode: 'commit',
          path: 'hand.jsonl',
          token: seen['token'],
          ...fence(),
        })
        assert.equal(refused.code, 'stale')
        assert.equal(facts(), 0)
        const other = await refusal(importVerb, {
          mode: 'commit',
          content: readFileSync(path, 'utf8'),
          token: seen['token'],
          ...fence(),
        })
        assert.equal(other.code, 'stale', 'the token is bound to the bytes, whichever way they arrive')
        const done = await importAll({ path: 'hand.jsonl' })
        assert.deepEqual(done['counts'], { new: 2, duplicate: 0, repeated: 0, conflict: 0, tombstoned: 0, invalid: 0 })
      })

      it('refuses a forged token', async () => {
        const content = jsonl({ subject: 'billing-api', property: 'owner', value: 'team blue' })
        await preview({ content })
        const refused = await refusal(importVerb, { mode: 'commit', content, token: 'x'.repeat(43), ...fence() })
        assert.equal(refused.code, 'stale')
        assert.equal(facts(), 0)
      })

      it('downgrades imported evidence to observed, keeps unverified, and records the import as the source', async () => {
        const done = await importAll({
          content: jsonl(
            { subject: 'billing-api', property: 'port', value: '7801', evidence: 'explicit_user' },
            { subject: 'billing-api', property: 'owner', value: 'team blue', evidence: 'confirmed_user' },
            { subject: 'billing-api', property: 'region', value: 'eu-west', evidence: 'unverified' },
          ),
        })
        assert.deepEqual(done['counts'], { new: 3, duplicate: 0, repeated: 0, conflict: 0, tombstoned: 0, invalid: 0 })
        assert.deepEqual(
          ['7801', 'team blue', 'eu-west'].map((value) => [factByValue(value).evidence, factByValue(value).origin]),
          [
            ['observed', 'import'],
            ['observed', 'import'],
            ['unverified', 'import'],
          ],
        )
        const source = oneRow(
          h.db(),
          'SELECT origin, evidence FROM fact_sources WHERE fact_id = ?',
          factByValue('7801').id,
        )
        assert.deepEqual({ ...source }, { origin: 'import', evidence: 'observed' })
      })

      it('stores an imported email with modelUseAllowed false, and honours a sensitivity the file declares', async () => {
        await importAll({
          content: jsonl(
            {
              subject: 'alice',
              property: 'contact',
              value: 'alice@example.com',
              sensitivity: null,
              modelUseAllowed: true,
            },
            { subject: 'bob', property: 'desk', value: 'room 4-12', sensitivity: 'phone', modelUseAllowed: true },
          ),
        })
        const email = factByValue('alice@example.com')
        assert.equal(email.sensitivity, 'email')
        assert.equal(email.modelUseAllowed, false)
        const declared = factByValue('room 4-12')
        assert.equal(declared.sensitivity, 'phone')
        assert.equal(declared.modelUseAllowed, false)
      })

      it('refuses a credential in a file by default, and masks it in the preview when credentials may be stored', async () => {
        const content = jsonl({ subject: 'billing-api', property: 'api key', value: 'sk-abcdefghijklmnop1234' })
        const refused = await preview({ content })
        assert.deepEqual(refused['counts'], {
          new: 0,
          duplicate: 0,
          repeated: 0,
          conflict: 0,
          tombstoned: 0,
          invalid: 1,
        })
        assert.match((refused['invalid'] as { reason: string }[])[0]?.reason ?? '', /credentials are never stored/u)
        open({ refuseCredentials: false })
        const seen = await preview({ content })
        assert.deepEqual(seen['counts'], { new: 1, duplicate: 0, repeated: 0, conflict: 0, tombstoned: 0, invalid: 0 })
        assert.doesNotMatch(JSON.stringify(seen), /sk-abcdefghijklmnop1234/u)
        await commit({ content }, seen['token'])
        const stored = factByValue('sk-abcdefghijklmnop1234')
        assert.deepEqual([stored.sensitivity, stored.modelUseAllowed], ['credential', false])
      })

      it("judges a record's value apart from its quote: a quoted password is refused, and a credential only the quote holds is masked", async () => {
        const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'
        const content = jsonl(
          {
            subject: 'staging db',
            property: 'password',
            value: 'Tr0ub4dor&3',
            quote: 'the staging db password is Tr0ub4dor&3',
          },
          {
            subject: 'staging db',
            property: 'host',
            value: 'db-2',
            quote: `the staging db host is db-2, deploy with ${token}`,
          },
        )
        const seen = await preview({ content })
        assert.deepEqual(seen['counts'], { new: 1, duplicate: 0, repeated: 0, conflict: 0, tombstoned: 0, invalid: 1 })
        assert.deepEqual(
          (seen['invalid'] as { line: number; reason: string }[]).map((entry) => entry.line),
          [1],
        )
        assert.match((seen['invalid'] as { reason: string }[])[0]?.reason ?? '', /"password" names a secret/u)
        const done = await commit({ content }, seen['token'])
        assert.equal(done.ok, true)
        assert.equal(factByValue('db-2').quote, `the staging db host is db-2, deploy with ${MASK}`)
        const stored = JSON.stringify([
          h.db().all('SELECT value, quote FROM facts'),
          h.db().all('SELECT quote FROM fact_sources'),
        ])
        assert.equal(stored.includes('Tr0ub4dor'), false)
        assert.equal(stored.includes(token), false)
      })

      it('puts a contradicting record into an open conflict group instead of replacing the current value', async () => {
        const current = writeFact(h.memory, h.config, {
          subject: 'billing-api',
          property: 'port',
          value: '7801',
          evidence: 'explicit_user',
        })
        const content = jsonl({ subject: 'billing-api', property: 'port', value: '7802', evidence: 'explicit_user' })
        const seen = await preview({ content })
        assert.deepEqual(seen['counts'], { new: 0, duplicate: 0, repeated: 0, conflict: 1, tombstoned: 0, invalid: 0 })
        assert.deepEqual((seen['records'] as { against: number[] }[])[0]?.against, [current.id])
        const done = await commit({ content }, seen['token'])
        assert.deepEqual(done.ok && done.data['counts'], {
          new: 0,
          duplicate: 0,
          repeated: 0,
          conflict: 1,
          tombstoned: 0,
          invalid: 0,
        })
        const rival = factByValue('7802')
        assert.equal(rival.status, 'conflict')
        const kept = context().stores.facts.getFacts([current.id])[0]
        assert.equal(kept?.status, 'active')
        assert.equal(kept?.value, '7801')
        assert.notEqual(rival.conflictGroupId, null)
        assert.equal(kept?.conflictGroupId, rival.conflictGroupId)
        assert.equal(context().stores.facts.counts().openConflictGroups, 1)
      })

      it('adds a source to a duplicate instead of a second row', async () => {
        const fact = writeFact(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' })
        const done = await importAll({ content: jsonl({ subject: 'billing-api', property: 'port', value: '7801' }) })
        assert.deepEqual(done['duplicateIds'], [fact.id])
        assert.deepEqual(done['factIds'], [])
        assert.equal(facts(), 1)
        assert.equal(
          count(h.db(), `SELECT count(*) AS n FROM fact_sources WHERE fact_id = ? AND origin = 'import'`, fact.id),
          1,
        )
      })

      it('refuses paths that leave the data directory: traversal, absolute, and a symbolic link', async () => {
        const outside = join(h.root, 'outside.jsonl')
        writeFileSync(outside, jsonl({ subject: 'billing-api', property: 'port', value: '7801' }))
        for (const path of ['../outside.jsonl', outside, '//server/share/facts.jsonl']) {
          const refused = await refusal(importVerb, { mode: 'preview', path })
          assert.equal(refused.code, 'invalid_path', path)
        }
        symlinkSync(outside, join(h.dataDir, 'escape.jsonl'))
        assert.equal((await refusal(importVerb, { mode: 'preview', path: 'escape.jsonl' })).code, 'invalid_path')
        assert.equal(
          (await refusal(importVerb, { mode: 'commit', path: '../outside.jsonl', token: 't', ...fence() })).code,
          'invalid_path',
        )
        writeFileSync(join(h.dataDir, 'inside.jsonl'), readFileSync(outside))
        const inside = await preview({ path: join(h.dataDir, 'inside.jsonl') })
        assert.deepEqual(
          inside['counts'],
          { new: 1, duplicate: 0, repeated: 0, conflict: 0, tombstoned: 0, invalid: 0 },
          'an absolute path inside is fine',
        )
        assert.equal(facts(), 0)
      })

      it('answers not_found for a missing file and refuses a file that is not UTF-8', async () => {
        assert.equal((await refusal(importVerb, { mode: 'preview', path: 'exports/none.jsonl' })).code, 'not_found')
        writeFileSync(join(h.dataDir, 'latin1.jsonl'), Buffer.from([0x7b, 0xe9, 0x7d, 0x0a]))
        assert.equal((await refusal(importVerb, { mode: 'preview', path: 'latin1.jsonl' })).code, 'invalid_arguments')
      })

      it('refuses a manifest of another format version as a whole', async () => {
        const content = jsonl({
          format: EXCHANGE_FORMAT,
          version: 2,
          storeId: 's',
          generation: 1,
          exportedAt: '2026-03-01T09:00:00.000Z',
          records: 0,
          records_sha256: '0'.repeat(64),
        })
        const refused = await refusal(importVerb, { mode: 'preview', content })
        assert.equal(refused.code, 'invalid_arguments')
        assert.match(refused.message, /line 1 .*version 1/u)
      })

      it('reports an export edited by hand as no longer untouched, and still imports it', async () => {
        writeFact(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' })
        const file = await exportFile({ backup: false })
        await wipe()
        writeFileSync(file.path, readFileSync(file.path, 'utf8').replace('7801', '7809'))
        const seen = await preview({ path: file.relativePath })
        assert.equal(seen['untouched'], false)
        const done = await commit({ path: file.relativePath }, seen['token'])
        assert.equal(done.ok, true)
        assert.equal(factByValue('7809').status, 'active')
      })

      it('answers a repeated commit with the first receipt and writes once', async () => {
        const content = jsonl({ subject: 'billing-api', property: 'owner', value: 'team blue' })
        const seen = await preview({ content })
        const body = { mode: 'commit', content, token: seen['token'], ...fence() }
        const first = await data(importVerb, body)
        const again = await data(importVerb, body)
        assert.equal(again['replayed'], true)
        assert.deepEqual(again['factIds'], first['factIds'])
        assert.equal(facts(), 1)
      })

      it('rolls back every record when one fails mid-commit, leaving no receipt', async () => {
        h.db().run(
          `CREATE TRIGGER poison BEFORE INSERT ON facts WHEN NEW.value = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned'); END`,
        )
        const content = jsonl(
          { subject: 'billing-api', property: 'port', value: '7801' },
          { subject: 'billing-api', property: 'owner', value: 'team blue' },
          { subject: 'billing-api', property: 'note', value: 'poison' },
        )
        const seen = await preview({ content })
        const before = generation()
        await assert.rejects(commit({ content }, seen['token']), /poisoned/u)
        assert.equal(facts(), 0)
        assert.equal(count(h.db(), 'SELECT count(*) AS n FROM fact_sources'), 0)
        assert.equal(operations(), 0)
        assert.equal(generation(), before)
      })
    })
  })
}
