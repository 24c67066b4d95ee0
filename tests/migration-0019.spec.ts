/**
 * Migrations 0019 (lean rows), 0021 (integer instants) and 0022 (derived columns) on a real version-18 store, both
 * drivers: tests/fixtures/store-v18.db was written by the version-18 code's own write paths and verbs
 * (tests/fixtures/make-store-v18.ts, run at commit 698fa40), and store-v18.expect.json holds what that code answered
 * on it. Opened with today's code, the store is at the latest version with an owner-only copy of the version-18 file
 * beside it; every table keeps its rows, every fact, source and conflict group reads back column for column (keys as
 * the hex they were, instants as the ISO text they were, evidence keys derived equal to the ones stored), the
 * full-text index holds the same terms, no reference is broken, memory_search and the directory answer byte for byte
 * as before, the write paths and the edits version 18 recorded still work, and a second open changes nothing. A
 * migration that fails midway leaves the file as it was, keeps the copy, and says so.
 */
import { afterEach, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Sqlite from 'better-sqlite3'
import { FactMemoryError } from '../src/errors.ts'
import { projectKeyOfScope } from '../src/project/project-ref.ts'
import { Database } from '../src/store/database.ts'
import { instantColumn } from '../src/store/fact-rows.ts'
import { defaultMigrationsDir, readMigrations } from '../src/store/migrate.ts'
import { evidenceKeyOf } from '../src/text/normalize.ts'
import { memorySearchTool } from '../src/tools/memory-search.ts'
import type { FixtureExpectations } from './fixtures/make-store-v18.ts'
import { indexedTerms, indexedTermsOf } from './helpers/fts-terms.ts'
import { DRIVERS, expectKind, removeDir, tempDir, write, type PartialFact } from './helpers/store.ts'
import { storesOf } from './helpers/vectors.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

const FIXTURE = fileURLToPath(new URL('./fixtures/store-v18.db', import.meta.url))
const EXPECT = JSON.parse(
  readFileSync(new URL('./fixtures/store-v18.expect.json', import.meta.url), 'utf8'),
) as FixtureExpectations
const LATEST = readMigrations(defaultMigrationsDir()).length
/** The columns 0019 turned from 64 hex digits into 32 bytes. */
const KEY_COLUMNS: Readonly<Record<'facts' | 'conflict_groups', readonly string[]>> = {
  facts: ['slot_key', 'claim_key', 'evidence_key'],
  conflict_groups: ['slot_key'],
}
/** The columns 0021 turned from ISO text into epoch milliseconds. */
const INSTANT_COLUMNS: Readonly<Record<'facts' | 'conflict_groups', readonly string[]>> = {
  facts: ['observed_at', 'recorded_at', 'valid_from', 'valid_to', 'updated_at', 'pinned_at'],
  conflict_groups: [],
}
const BACKUP = /^memory\.v18-backup-.+\.db$/u

type Raw = InstanceType<typeof Sqlite>
type Rows = Record<string, unknown>[]

/** Run `read` on a read-only connection of its own. */
function readOnly<T>(path: string, read: (db: Raw) => T): T {
  const db = new Sqlite(path, { readonly: true })
  try {
    return read(db)
  } finally {
    db.close()
  }
}

function columnsOf(db: Raw, table: string): string[] {
  return (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((row) => row.name)
}

/**
 * A table's rows by id; as the latest version stores them, key columns read back as lowercase hex, instants as ISO
 * text, a fact's evidence level through its virtual column and its evidence key derived from the row as the store
 * derives it (0022 keeps neither).
 */
function rowsById(db: Raw, table: 'facts' | 'conflict_groups', latest: boolean): Rows {
  const columns = columnsOf(db, table).map((name) => {
    if (latest && KEY_COLUMNS[table].includes(name)) return `lower(hex("${name}")) AS "${name}"`
    if (latest && INSTANT_COLUMNS[table].includes(name)) return instantColumn(`"${name}"`, `"${name}"`)
    return `"${name}"`
  })
  const derived = latest && table === 'facts'
  const rows = db
    .prepare(`SELECT ${[...columns, ...(derived ? ['evidence'] : [])].join(', ')} FROM ${table} ORDER BY id`)
    .all() as Rows
  if (!derived) return rows
  return rows.map((row) => ({
    ...row,
    evidence_key: evidenceKeyOf(
      row['quote'] as string | null,
      String(row['claim_key']),
      projectKeyOfScope(String(row['scope'])),
    ),
  }))
}

/**
 * A memory_search answer that keeps what version 18 answered: its outcome, its best row first, and every one of its rows
 * with the same text (numbered anew), and its channels, with only what later versions added besides: the channels of
 * the facts' cues and of the software lexicon (bridge), and what they found and lifted; and, where the query names a
 * subject by an old name, the subject channel and the row's "(matched old name …)" note.
 */
function assertKeepsAnswer(actual: string, expected: string, label: string): void {
  const parts = (text: string): { head: string[]; channels: string[]; rows: string[] } => {
    const lines = text.split('\n')
    const summary = lines.findIndex((line) => line.startsWith('memory_search '))
    const channels = /Channels: ([^.]*)\./u.exec(lines[summary] ?? '')?.[1]?.split(', ') ?? []
    const rows = lines.slice(summary + 1).map((line) => line.replace(/^\d+\. /u, ''))
    return { head: lines.slice(0, Math.max(0, summary)), channels, rows }
  }
  const raw = parts(actual)
  // The old-name note is new since version 18; the row it annotates is otherwise as it was.
  const now = { ...raw, rows: raw.rows.map((row) => row.replace(/ \(matched old name [^)]*\)/u, '')) }
  const then = parts(expected)
  assert.deepEqual(now.head, then.head, label)
  // Since old subject names find their subject (issue 32), a query naming one by an old name runs the subject channel too.
  const byOldName = raw.rows.some((row) => row.includes('(matched old name '))
  const added = (channel: string): boolean =>
    channel === 'bridge' || channel === 'cue' || (byOldName && channel === 'subject')
  assert.deepEqual(
    now.channels.filter((channel) => !added(channel) || then.channels.includes(channel)),
    then.channels,
    label,
  )
  assert.equal(now.rows[0], then.rows[0], `${label}: the best row\n${actual}`)
  for (const row of then.rows)
    assert.ok(now.rows.includes(row), `${label}: today's answer lost the row ${JSON.stringify(row)}\n${actual}`)
  if (now.rows.length > then.rows.length || now.rows.some((row, index) => row !== then.rows[index])) {
    assert.ok(
      now.channels.some((channel) => added(channel) && !then.channels.includes(channel)),
      `${label}: rows added or moved without a new channel\n${actual}`,
    )
  }
}

/** Every table's rows (the full-text index's shadow tables too), each ordered by all its columns. */
function contents(db: Raw): Record<string, Rows> {
  const tables = (
    db
      .prepare(
        `SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name`,
      )
      .all() as { name: string }[]
  ).map((row) => row.name)
  return Object.fromEntries(
    tables.map((name) => {
      const order = columnsOf(db, name)
        .map((_, index) => index + 1)
        .join(', ')
      return [name, db.prepare(`SELECT * FROM "${name}" ORDER BY ${order}`).all() as Rows]
    }),
  )
}

/** Every table's row count, as the fixture generator counts them; and every view's (0023 made two tables views). */
function tableCounts(db: Raw): Record<string, number> {
  const tables = db
    .prepare(
      `SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'facts_fts_%' ORDER BY name`,
    )
    .all() as { name: string }[]
  return Object.fromEntries(
    tables.map(({ name }) => [
      name,
      Number((db.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n),
    ]),
  )
}

function backupsIn(dataDir: string): string[] {
  return readdirSync(dataDir)
    .filter((name) => BACKUP.test(name))
    .map((name) => join(dataDir, name))
}

for (const driver of DRIVERS) {
  describe(`migration 0019 on a store version 18 wrote (${driver})`, () => {
    let v: VerbHarness
    let fixture: string
    let store: string
    beforeEach(() => {
      v = verbHarness(
        driver,
        {},
        {
          startAt: EXPECT.now,
          beforeOpen: (dataDir) => {
            copyFileSync(FIXTURE, join(dataDir, 'memory.db'))
            // The pristine copy the raw comparisons read, beside the data directory.
            fixture = join(dataDir, '..', 'fixture-v18.db')
            copyFileSync(FIXTURE, fixture)
          },
        },
      )
      store = join(v.h.dataDir, 'memory.db')
    })
    afterEach(() => {
      v.dispose()
    })

    const put = (fact: PartialFact) => {
      const answer = write(v.h.memory, v.h.config, { evidence: 'observed', origin: 'tool', ...fact })
      v.clock.advance(60_000)
      return answer
    }

    it('is the version 18 store the generator described', () => {
      assert.equal(EXPECT.schemaVersion, 18)
      readOnly(fixture, (db) => {
        assert.equal(db.pragma('user_version', { simple: true }), 18)
        assert.deepEqual(tableCounts(db), EXPECT.counts)
        const statuses = db.prepare('SELECT DISTINCT status FROM facts ORDER BY status').pluck().all()
        assert.deepEqual(statuses, ['active', 'conflict', 'expired', 'forgotten', 'retired', 'scheduled', 'superseded'])
        assert.deepEqual(db.prepare('SELECT status FROM conflict_groups ORDER BY status').pluck().all(), [
          'closed',
          'open',
        ])
      })
    })

    it('migrates to the latest version and leaves an owner-only copy of the version 18 file beside it', () => {
      assert.equal(v.h.memory.status().available, true)
      readOnly(store, (db) => {
        assert.equal(db.pragma('user_version', { simple: true }), LATEST)
        assert.equal(db.pragma('application_id', { simple: true }), 0x46414354)
        // 0024 rewrote it at 2 KiB pages once the rest had committed, and it is back in WAL mode.
        assert.equal(db.pragma('page_size', { simple: true }), 2048)
        assert.equal(db.pragma('journal_mode', { simple: true }), 'wal')
        assert.equal(db.pragma('integrity_check', { simple: true }), 'ok')
      })
      const backups = backupsIn(v.h.dataDir)
      assert.equal(backups.length, 1, `one copy beside the store: ${readdirSync(v.h.dataDir).join(', ')}`)
      const [backup] = backups as [string]
      assert.equal(statSync(backup).mode & 0o777, 0o600)
      const copied = readOnly(backup, (db) => {
        assert.equal(db.pragma('user_version', { simple: true }), 18)
        assert.equal(db.pragma('page_size', { simple: true }), 4096)
        return { facts: rowsById(db, 'facts', false), all: contents(db) }
      })
      const original = readOnly(fixture, (db) => ({ facts: rowsById(db, 'facts', false), all: contents(db) }))
      assert.equal(copied.facts.length, EXPECT.counts['facts'])
      assert.deepEqual(copied.facts, original.facts)
      assert.deepEqual(copied.all, original.all, 'every table of the copy holds what the version 18 file held')
    })

    it("keeps every table's rows, and every fact, source and conflict group column for column: keys as 32 bytes of the same hex, instants as the milliseconds of the same ISO text, evidence keys derived equal to the stored ones", () => {
      const before = readOnly(fixture, (db) => ({
        counts: tableCounts(db),
        facts: rowsById(db, 'facts', false),
        groups: rowsById(db, 'conflict_groups', false),
      }))
      const after = readOnly(store, (db) => ({
        counts: tableCounts(db),
        facts: rowsById(db, 'facts', true),
        groups: rowsById(db, 'conflict_groups', true),
        notBytes: db
          .prepare(`SELECT count(*) FROM facts WHERE typeof(slot_key) <> 'blob' OR length(slot_key) <> 32 OR typeof(claim_key) <> 'blob'
          OR length(claim_key) <> 32`)
          .pluck()
          .get(),
        groupsNotBytes: db
          .prepare(`SELECT count(*) FROM conflict_groups WHERE typeof(slot_key) <> 'blob' OR length(slot_key) <> 32`)
          .pluck()
          .get(),
        notInstants: db
          .prepare(`SELECT count(*) FROM facts WHERE typeof(observed_at) <> 'integer' OR typeof(recorded_at) <> 'integer'
          OR typeof(valid_from) <> 'integer' OR typeof(updated_at) <> 'integer' OR typeof(valid_to) NOT IN ('integer', 'null')
          OR typeof(pinned_at) NOT IN ('integer', 'null')`)
          .pluck()
          .get(),
        sources: db
          .prepare(`SELECT id, fact_id, origin, evidence, session_id, turn, quote, ${instantColumn('observed_at')},
          typeof(observed_at) AS kind FROM fact_sources ORDER BY id`)
          .all() as Rows,
      }))
      const sourcesBefore = readOnly(
        fixture,
        (db) => db.prepare('SELECT * FROM fact_sources ORDER BY id').all() as Rows,
      )
      assert.ok(sourcesBefore.length > 0)
      assert.deepEqual(
        after.sources.map(({ kind, ...row }) => {
          assert.equal(kind, 'integer')
          return row
        }),
        sourcesBefore,
      )
      assert.equal(after.notInstants, 0)
      assert.ok(
        before.facts.some((row) => row['pinned_at'] !== null) && before.facts.some((row) => row['valid_to'] !== null),
        'the fixture holds pins and ended values',
      )
      // The tables version 18 had: later migrations add their own, and the compaction drops an empty sqlite_sequence.
      const ofVersion18 = (counts: Record<string, number>): Record<string, number> =>
        Object.fromEntries(
          Object.entries(counts).filter(([name]) => name in EXPECT.counts && name !== 'sqlite_sequence'),
        )
      assert.deepEqual(ofVersion18(after.counts), ofVersion18(before.counts))
      assert.deepEqual(ofVersion18(after.counts), ofVersion18(EXPECT.counts))
      // The counters, merged into one table by 0023 and read through views with the old tables' columns.
      const counters = (db: Raw): unknown => ({
        facts: db.prepare('SELECT status, evidence, n FROM fact_counts ORDER BY status, evidence').all(),
        directory: db
          .prepare('SELECT plain, sensitive, project_plain, project_sensitive FROM directory_counts WHERE id = 1')
          .all(),
      })
      assert.deepEqual(readOnly(store, counters), readOnly(fixture, counters))
      const generation = {
        before: Number(readOnly(fixture, (db) => db.prepare('SELECT generation FROM store_state').pluck().get())),
        after: Number(
          readOnly(store, (db) => db.prepare("SELECT n FROM tallies WHERE tally = 'generation'").pluck().get()),
        ),
      }
      assert.ok(generation.before > 0)
      assert.equal(generation.after, generation.before, 'the generation goes on from the old count')
      assert.equal(after.facts.length, before.facts.length)
      // Columns later migrations added hold nothing on a migrated row: cues (0025) are NULL.
      for (const [index, row] of before.facts.entries()) {
        const { cues, ...migrated } = after.facts[index] ?? {}
        assert.equal(cues, null, `fact #${String(row['id'])} has no cues`)
        assert.deepEqual(migrated, row, `fact #${String(row['id'])}`)
      }
      assert.deepEqual(after.groups, before.groups)
      assert.equal(after.notBytes, 0)
      assert.equal(after.groupsNotBytes, 0)
    })

    it('holds the same full-text terms for every fact, and the same identifiers', () => {
      const before = indexedTerms(fixture)
      assert.equal(before.size, EXPECT.counts['facts_fts'])
      assert.deepEqual(indexedTerms(store), before)
      const identifiers = (path: string): unknown[] =>
        readOnly(path, (db) => db.prepare('SELECT ident, fact_id FROM fact_identifiers ORDER BY fact_id, ident').all())
      assert.deepEqual(identifiers(store), identifiers(fixture))
    })

    it('leaves no broken reference and the schema a fresh store has', () => {
      readOnly(store, (db) => assert.deepEqual(db.pragma('foreign_key_check'), []))
      const root = tempDir()
      try {
        const fresh = Database.open({ dataDir: root, driver, now: () => EXPECT.now })
        fresh.close()
        const objects = (path: string): unknown[] =>
          readOnly(path, (db) =>
            db
              .prepare(
                // SQLite's own tables aside: sqlite_sequence outlives the last AUTOINCREMENT table until a VACUUM drops it.
                `SELECT type, name, tbl_name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`,
              )
              .all(),
          )
        assert.deepEqual(objects(store), objects(join(root, 'memory.db')))
      } finally {
        removeDir(root)
      }
    })

    it('answers memory_search and renders the directory byte for byte as version 18 did', async () => {
      const tool = memorySearchTool({ memory: v.h.memory, config: () => v.h.config })
      for (const search of EXPECT.searches) {
        const agent =
          search.cwd === undefined
            ? undefined
            : { id: 'agent-1', session: { id: EXPECT.session, header: { cwd: search.cwd }, events: [] } }
        const value = await tool.execute(search.args, { callId: 'call-1', signal: new AbortController().signal, agent })
        const [block] = tool.output.render(search.args, value as never)
        assertKeepsAnswer(block?.text ?? '', search.text, `memory_search ${JSON.stringify(search.args)}`)
      }
      assert.equal(v.h.memory.directory(v.h.config, null), EXPECT.directory.global)
      assert.equal(v.h.memory.directory(v.h.config, EXPECT.project), EXPECT.directory.project)
    })

    it('writes, supersedes, folds, settles, forgets and undoes, renames, and undoes the edits version 18 recorded', async () => {
      const stores = storesOf(v.h.memory)
      const fresh = expectKind(
        put({ subject: 'ledger-service', property: 'owner', value: 'the platform team' }),
        'saved',
      )
      assert.match(indexedTermsOf(store, fresh.fact.id) ?? '', /ledger.*platform/u)
      const moved = expectKind(
        put({ subject: 'billing-api', property: 'port', value: '7805', evidence: 'explicit_user' }),
        'saved',
      )
      assert.deepEqual(
        moved.superseded.map((fact) => [fact.value, fact.status]),
        [['7803', 'superseded']],
      )
      const folded = expectKind(
        put({
          subject: 'backup-runner',
          property: 'last run',
          value: 'nightly backup finished 2026-03-01, 412 files',
          validFrom: '2026-03-01T03:00:00.000Z',
        }),
        'folded',
      )
      assert.equal(folded.fact.id, EXPECT.handles['foldedFactId'])
      assert.equal(folded.fact.foldedCount, 2)
      const settled = expectKind(
        put({ subject: 'staging', property: 'host', value: 'staging.internal:8443', evidence: 'explicit_user' }),
        'duplicate',
      )
      assert.equal(settled.settled, true)
      assert.deepEqual(
        readOnly(store, (db) => db.prepare(`SELECT status FROM conflict_groups ORDER BY id`).pluck().all()),
        ['closed', 'closed'],
      )

      const docs = Number(
        readOnly(store, (db) => db.prepare(`SELECT id FROM facts WHERE subject = 'docs site'`).pluck().get()),
      )
      const terms = indexedTermsOf(store, docs)
      assert.ok(terms !== undefined)
      const forgotten = await v.ok('fact-forget', v.fence({ id: docs }))
      assert.equal(indexedTermsOf(store, docs), undefined)
      await v.ok('fact-restore', v.fence({ editId: forgotten['editId'] }))
      assert.equal(indexedTermsOf(store, docs), terms)
      assert.equal(stores.facts.getFacts([docs])[0]?.status, 'active')

      const laptop = EXPECT.handles['forgottenFactId'] ?? 0
      const again = put({ subject: 'old laptop', property: 'serial', value: 'C02XK1' })
      assert.equal(
        again.kind === 'refused' ? again.code : again.kind,
        'tombstoned',
        'the tombstone version 18 wrote still refuses the claim',
      )
      await v.ok('fact-restore', v.fence({ editId: EXPECT.handles['forgetEditId'] }))
      assert.equal(stores.facts.getFacts([laptop])[0]?.status, 'active', 'the forget version 18 recorded is undone')
      assert.equal(
        readOnly(store, (db) => db.prepare('SELECT count(*) FROM tombstones WHERE fact_id = ?').pluck().get(laptop)),
        0,
      )
      assert.match(indexedTermsOf(store, laptop) ?? '', /laptop.*serial.*c02xk1/u)
      const found = await v.h.memory.search({ query: 'C02XK1', limit: 5, asOf: undefined }, v.h.config)
      assert.deepEqual(
        found.results.map((result) => result.values[0]?.id),
        [laptop],
      )

      await v.ok('fact-restore', v.fence({ editId: EXPECT.handles['renameEditId'] }))
      const deploy = readOnly(store, (db) =>
        db.prepare(`SELECT id, subject FROM facts WHERE property = 'deploy day'`).all(),
      ) as { id: number; subject: string }[]
      assert.deepEqual(
        deploy.map((row) => row.subject),
        ['Billing Svc'],
        'the rename version 18 recorded is undone',
      )

      const runtime = stores.facts.getFacts([9])[0]
      assert.equal(runtime?.subject, 'orders-api')
      await v.ok('subject-rename', v.fence({ entityKey: runtime.entityKey, to: 'orders-service' }))
      const renamed = await v.h.memory.search({ query: 'orders-api runtime', limit: 5, asOf: undefined }, v.h.config)
      assert.equal(renamed.results[0]?.subject, 'orders-service')
      assert.equal(renamed.results[0]?.values[0]?.id, 9)

      readOnly(store, (db) => {
        assert.deepEqual(db.pragma('foreign_key_check'), [])
        assert.equal(
          db
            .prepare(`SELECT count(*) FROM facts WHERE length(slot_key) <> 32 OR length(claim_key) <> 32`)
            .pluck()
            .get(),
          0,
        )
      })
    })

    it("settles, puts back, updates, moves, rebuilds the index, exports and imports, and shows the page's views on the migrated store", async () => {
      const stores = storesOf(v.h.memory)
      const conflicts = (await v.ok('conflicts', {}))['groups'] as {
        id: number
        rows: { id: number; value: string }[]
      }[]
      assert.equal(conflicts.length, 1, 'the open group version 18 left')
      const [group] = conflicts as [{ id: number; rows: { id: number; value: string }[] }]
      const keep = group.rows.find((row) => row.value === 'staging.internal:8443')
      assert.ok(keep !== undefined)
      await v.ok('resolve', v.fence({ groupId: group.id, keepFactId: keep.id }))
      assert.deepEqual((await v.ok('conflicts', {}))['groups'], [])

      const past = Number(
        readOnly(store, (db) =>
          db.prepare(`SELECT id FROM facts WHERE status = 'superseded' AND value = 'eu-west-1'`).pluck().get(),
        ),
      )
      await v.ok('fact-put-back', v.fence({ id: past }))
      const region = await v.h.memory.search({ query: 'search-service region', limit: 5, asOf: undefined }, v.h.config)
      assert.equal(region.results[0]?.values[0]?.value, 'eu-west-1')

      const owner = Number(
        readOnly(store, (db) =>
          db.prepare(`SELECT id FROM facts WHERE subject = 'billing-api' AND property = 'owner'`).pluck().get(),
        ),
      )
      const updated = Number(
        (
          (await v.ok('fact-update', v.fence({ id: owner, value: 'the payments team in Hamburg' })))['fact'] as {
            id: number
          }
        ).id,
      )
      await v.ok('fact-move', v.fence({ id: updated, scope: `project:${EXPECT.project.key}` }))
      const moved = await v.h.memory.search(
        { query: 'billing-api owner', limit: 5, asOf: undefined, project: EXPECT.project },
        v.h.config,
      )
      assert.equal(moved.results[0]?.values[0]?.value, 'the payments team in Hamburg')
      assert.equal(moved.results[0]?.project, EXPECT.project.name)

      const cards = (await v.ok('proposals', {}))['proposals'] as { id: number; revision: number }[]
      assert.equal(cards.length, 1, 'the card version 18 left pending')
      const [card] = cards as [{ id: number; revision: number }]
      await v.ok('proposal-apply', v.fence({ id: card.id, revision: card.revision }))
      const plan = await v.h.memory.search({ query: 'split the ledger', limit: 5, asOf: undefined }, v.h.config)
      assert.equal(plan.results[0]?.values[0]?.value, 'maybe split the ledger into two services')
      const declined = put({
        subject: 'draft',
        property: 'idea',
        value: 'maybe move billing to a queue',
        inferred: true,
      })
      assert.ok(
        declined.kind === 'refused' && /the user rejected this change/u.test(declined.message),
        'the card version 18 saw rejected is not queued again',
      )

      const renameEdits = readOnly(store, (db) =>
        db.prepare(`SELECT id FROM fact_edits WHERE kind = 'rename' ORDER BY id`).pluck().all(),
      ) as number[]
      await v.ok('fact-restore', v.fence({ editId: renameEdits.at(-1) }))
      const town = readOnly(store, (db) =>
        db.prepare(`SELECT property FROM facts WHERE value = 'Hamburg'`).pluck().all(),
      )
      assert.deepEqual(town, ['home town'], 'the property rename version 18 recorded is undone')

      const terms = indexedTerms(store)
      await v.ok('rebuild', v.fence({}))
      assert.deepEqual(indexedTerms(store), terms, 'a rebuild derives the same terms from the rows')

      const exported = await v.ok('export', { backup: false })
      const content = readFileSync(String(exported['path']), 'utf8')
      const preview = await v.ok('import', { mode: 'preview', content })
      const counts = preview['counts'] as Record<string, number>
      assert.equal(
        counts['new'],
        0,
        `an export of the migrated store imports as nothing new: ${JSON.stringify(counts)}`,
      )
      assert.ok((counts['duplicate'] ?? 0) > 20, `its records are all known: ${JSON.stringify(counts)}`)
      await v.ok('import', v.fence({ mode: 'commit', content, token: preview['token'] }))
      assert.deepEqual(
        readOnly(store, (db) => db.pragma('foreign_key_check')),
        [],
      )

      await v.ok('facts', {})
      await v.ok('facts', { status: 'history' })
      await v.ok('fact', { id: updated })
      await v.ok('entity', { subject: 'billing-api' })
      await v.ok('graph', {})
      await v.ok('graph', { view: 'tree', center: 'billing-api' })
      await v.ok('proposals', {})
      await v.ok('status', {})
      assert.equal(stores.facts.getFacts([updated])[0]?.scope, `project:${EXPECT.project.key}`)
    })

    it('changes nothing when opened again, and takes no second copy', () => {
      const dataDir = v.h.dataDir
      v.h.memory.close()
      const first = readOnly(store, (db) => ({
        version: db.pragma('user_version', { simple: true }),
        all: contents(db),
        terms: indexedTerms(store),
      }))
      v.h.memory.open(dataDir)
      assert.equal(v.h.memory.status().available, true)
      v.h.memory.close()
      const second = readOnly(store, (db) => ({
        version: db.pragma('user_version', { simple: true }),
        all: contents(db),
        terms: indexedTerms(store),
      }))
      assert.deepEqual(second, first)
      assert.equal(backupsIn(dataDir).length, 1)
      v.h.memory.open(dataDir)
    })
  })

  describe(`a migration from version 18 that fails midway (${driver})`, () => {
    let root: string
    let dataDir: string
    let store: string
    beforeEach(() => {
      root = tempDir()
      dataDir = join(root, 'data')
      mkdirSync(dataDir, { mode: 0o700 })
      store = join(dataDir, 'memory.db')
      copyFileSync(FIXTURE, store)
      // A claim key that is not 64 hex digits: unhex() gives NULL, and the rebuilt table refuses the row.
      const seed = new Sqlite(store)
      seed.prepare(`UPDATE facts SET claim_key = 'not-a-key' WHERE id = 5`).run()
      seed.close()
    })
    afterEach(() => {
      removeDir(root)
    })

    it('leaves the store at version 18 as it was, keeps the copy, and says which migration failed and where the copy is', () => {
      const before = readOnly(store, (db) => contents(db))
      let thrown: unknown
      try {
        Database.open({ dataDir, driver, now: () => EXPECT.now }).close()
      } catch (error) {
        thrown = error
      }
      assert.ok(thrown instanceof FactMemoryError, `a FactMemoryError, not ${String(thrown)}`)
      assert.equal(thrown.code, 'storage_unavailable')
      const backups = backupsIn(dataDir)
      assert.equal(backups.length, 1, 'the copy stays')
      const [backup] = backups as [string]
      assert.match(thrown.message, /migration 0019-lean-rows\.sql failed/u)
      assert.match(thrown.message, /claim_key/u, 'the reason names the column')
      assert.match(thrown.message, /left as it was, at schema version 18/u)
      assert.ok(thrown.message.includes(store), `the message names the store: ${thrown.message}`)
      assert.ok(thrown.message.includes(backup), `the message names the copy: ${thrown.message}`)
      readOnly(store, (db) => {
        assert.equal(db.pragma('user_version', { simple: true }), 18)
        assert.deepEqual(contents(db), before)
      })
      assert.equal(statSync(backup).mode & 0o777, 0o600)
      readOnly(backup, (db) => assert.deepEqual(contents(db), before))
    })
  })
}
