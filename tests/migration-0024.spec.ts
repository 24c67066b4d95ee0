/**
 * Smaller pages (migration 0024): a new store is made at 2 KiB pages with full-text leaves that fit one; an existing
 * store at 4 KiB pages is copied, then rewritten at 2 KiB once the migrations commit, keeping every row, every indexed
 * term and every answer; while another connection holds the file open it migrates and keeps its pages; and a write
 * to a store at 2 KiB appends fewer WAL bytes than the same write at 4 KiB.
 */
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import Sqlite from 'better-sqlite3'
import { openConnection, type Connection, type Row } from '../src/store/connection.ts'
import { Database, STORE_FILE } from '../src/store/database.ts'
import { defaultMigrationsDir, pageSizeOf, readMigrations, type Migration } from '../src/store/migrate.ts'
import { memorySearchTool } from '../src/tools/memory-search.ts'
import { indexedTerms } from './helpers/fts-terms.ts'
import { PLAN_EMBEDDING, seedEveryKind } from './helpers/hot-paths.ts'
import { DRIVERS, removeDir, tempDir, write } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

const MIGRATIONS = readMigrations(defaultMigrationsDir())
const LATEST = MIGRATIONS.length
const SMALL_PAGES = MIGRATIONS.find((migration) => migration.name.endsWith('-small-pages.sql'))
if (SMALL_PAGES === undefined) throw new Error('no small-pages migration')
const BEFORE = SMALL_PAGES.version - 1

/** What the model is asked and shown on the seeded store. */
const SEARCHES: readonly Record<string, unknown>[] = [
  { query: 'billing-api port' },
  { query: 'which editor does the user use' },
  { query: '支付服务的端口' },
  { query: 'piano jazz', limit: 10 },
  { query: 'release freeze', includeHistory: true },
  { query: 'docs.example.com setup' },
]

/** A store file's page size, journal mode and full-text leaf size, read on a connection of its own. */
function layout(path: string): { pageSize: number; journal: string; pgsz: number | null; integrity: string } {
  const db = new Sqlite(path, { readonly: true })
  try {
    const pgsz = db.prepare(`SELECT v FROM facts_fts_config WHERE k = 'pgsz'`).pluck().get() as number | undefined
    return {
      pageSize: Number(db.pragma('page_size', { simple: true })),
      journal: String(db.pragma('journal_mode', { simple: true })),
      pgsz: pgsz === undefined ? null : Number(pgsz),
      integrity: String(db.pragma('integrity_check', { simple: true })),
    }
  } finally {
    db.close()
  }
}

/** Every row of every ordinary table but the full-text index's own (its segments are rewritten), as sorted JSON. */
function rowsOf(path: string): Record<string, string[]> {
  const db = new Sqlite(path, { readonly: true })
  try {
    const tables = db
      .prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'
      AND name NOT LIKE 'facts_fts_%' AND name NOT LIKE 'fact_cues_fts_%' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
      .pluck()
      .all() as string[]
    // A column later migrations add holds nothing on a migrated row (0025's cues), and is left out.
    const own = (row: Row): Row =>
      Object.fromEntries(Object.entries(row).filter(([column, value]) => !(column === 'cues' && value === null)))
    return Object.fromEntries(
      tables.map((table) => [
        table,
        (db.prepare(`SELECT * FROM "${table}"`).all() as Row[]).map((row) => JSON.stringify(own(row))).sort(),
      ]),
    )
  } finally {
    db.close()
  }
}

/** The rendered memory_search answers to {@link SEARCHES}. */
async function answers(v: VerbHarness): Promise<(string | undefined)[]> {
  const tool = memorySearchTool({ memory: v.h.memory, config: () => v.h.config })
  const texts: (string | undefined)[] = []
  for (const args of SEARCHES) {
    const value = await tool.execute(args, { callId: 'call-1', signal: new AbortController().signal, agent: undefined })
    texts.push(tool.output.render(args, value as never)[0]?.text)
  }
  return texts
}

/**
 * Turn a closed store of today's schema into the store the version before 0024 wrote: 4 KiB pages, FTS5's default
 * leaf size, and its schema version. 0024 changes no table, so what is left is that version's file exactly.
 */
function asVersionBefore(path: string): void {
  const db = new Sqlite(path)
  try {
    // FTS5's default leaf size, named (its shadow tables cannot be written directly), and its segments rewritten at it.
    db.exec(
      `INSERT INTO facts_fts (facts_fts, rank) VALUES ('pgsz', 4050); INSERT INTO facts_fts (facts_fts) VALUES ('optimize')`,
    )
    db.pragma('journal_mode = DELETE')
    db.pragma('page_size = 4096')
    db.exec('VACUUM')
    db.pragma('journal_mode = WAL')
    db.pragma(`user_version = ${BEFORE}`)
    // What later migrations made goes too, so they apply again: 0025's cues.
    db.exec('DROP TABLE fact_cues_fts; ALTER TABLE facts DROP COLUMN cues')
  } finally {
    db.close()
  }
}

describe('pageSizeOf', () => {
  const migration = (version: number, sql: string): Migration => ({
    version,
    name: `${String(version).padStart(4, '0')}-m.sql`,
    sql,
  })
  it('reads the newest migration that names a page size, and none when none does', () => {
    assert.equal(pageSizeOf([migration(1, 'CREATE TABLE a (x);')]), undefined)
    assert.equal(
      pageSizeOf([
        migration(1, '-- page size: 1024\nSELECT 1;'),
        migration(2, 'SELECT 2;'),
        migration(3, '-- note\n-- page size: 2048\n'),
      ]),
      2048,
    )
    assert.equal(pageSizeOf([migration(1, '-- the page size: 2048 is a comment, not a line of its own')]), undefined)
  })
  it('is 2 KiB for the shipped migrations, and named by no migration before 0024', () => {
    assert.equal(pageSizeOf(MIGRATIONS), 2048)
    assert.equal(pageSizeOf(MIGRATIONS.filter((entry) => entry.version <= BEFORE)), undefined)
  })
})

for (const driver of DRIVERS) {
  describe(`migration 0024, smaller pages (${driver})`, () => {
    let root: string

    beforeEach(() => {
      root = tempDir()
    })
    afterEach(() => {
      removeDir(root)
    })

    it('makes a new store at 2 KiB pages, WAL mode, with full-text leaves that fit a page', () => {
      const db = Database.open({ dataDir: join(root, 'data'), driver, now: () => '2026-03-01T09:00:00.000Z' })
      db.close()
      assert.deepEqual(layout(join(root, 'data', STORE_FILE)), {
        pageSize: 2048,
        journal: 'wal',
        pgsz: 2000,
        integrity: 'ok',
      })
    })

    it('rewrites a store of every kind of row at 2 KiB pages: a copy first, then the same rows, terms and answers', async () => {
      const v = verbHarness(driver, PLAN_EMBEDDING)
      try {
        await seedEveryKind(v)
        const path = join(v.h.dataDir, STORE_FILE)
        const before = await answers(v)
        v.h.memory.close()
        asVersionBefore(path)
        assert.deepEqual(layout(path), { pageSize: 4096, journal: 'wal', pgsz: 4050, integrity: 'ok' })
        const rows = rowsOf(path)
        const terms = indexedTerms(path)
        v.h.memory.open(v.h.dataDir)
        assert.equal(v.h.memory.status().available, true)
        assert.deepEqual(layout(path), { pageSize: 2048, journal: 'wal', pgsz: 2000, integrity: 'ok' })
        assert.deepEqual(rowsOf(path), rows)
        assert.deepEqual(indexedTerms(path), terms)
        assert.deepEqual(await answers(v), before)
        assert.ok(before.every((text) => text !== undefined && text.length > 0))
        const copies = readdirSync(v.h.dataDir).filter((name) => name.startsWith(`memory.v${BEFORE}-backup-`))
        assert.equal(copies.length, 1)
        for (const copy of copies) assert.equal(layout(join(v.h.dataDir, copy)).pageSize, 4096)
        // The store writes and finds on its new pages.
        write(v.h.memory, v.h.config, {
          subject: 'billing-api',
          property: 'queue',
          value: 'orders-events on the shared broker',
          evidence: 'observed',
          origin: 'tool',
        })
        assert.match((await answers(v))[0] ?? '', /7803/u)
        assert.equal(layout(path).integrity, 'ok')
      } finally {
        v.dispose()
      }
    })

    it('migrates a store another connection holds open, keeping its 4 KiB pages', async () => {
      const v = verbHarness(driver, PLAN_EMBEDDING)
      let other: Connection | undefined
      try {
        await seedEveryKind(v)
        const path = join(v.h.dataDir, STORE_FILE)
        v.h.memory.close()
        asVersionBefore(path)
        const rows = rowsOf(path)
        other = openConnection(path, driver)
        assert.equal(Number(other.prepare('SELECT count(*) AS n FROM facts').get()?.['n']) > 0, true)
        v.h.memory.open(v.h.dataDir)
        assert.equal(v.h.memory.status().error, null)
        const found = layout(path)
        assert.deepEqual(
          { pageSize: found.pageSize, journal: found.journal, integrity: found.integrity },
          { pageSize: 4096, journal: 'wal', integrity: 'ok' },
        )
        assert.equal(Number(other.prepare('PRAGMA user_version').get()?.['user_version']), LATEST)
        assert.deepEqual(rowsOf(path), rows)
        assert.match((await answers(v))[0] ?? '', /7803/u)
      } finally {
        other?.close()
        v.dispose()
      }
    })

    it('appends fewer WAL bytes for the same write than a store at 4 KiB pages', () => {
      const walBytes = (dir: string, migrationsDir?: string): number => {
        const db = Database.open({
          dataDir: dir,
          driver,
          now: () => '2026-03-01T09:00:00.000Z',
          ...(migrationsDir === undefined ? {} : { migrationsDir }),
        })
        try {
          for (let i = 0; i < 200; i += 1) {
            db.run(
              `INSERT INTO entities (entity_key, display, created_at) VALUES (?, ?, 1772355600000)`,
              `service-${i}`,
              `service-${i}`,
            )
          }
          const wal = `${db.path}-wal`
          const checkpoint = openConnection(db.path, driver)
          checkpoint.exec('PRAGMA wal_checkpoint(TRUNCATE)')
          checkpoint.close()
          db.run(
            `INSERT INTO entities (entity_key, display, created_at) VALUES ('one more', 'one more', 1772355600000)`,
          )
          return existsSync(wal) ? statSync(wal).size : 0
        } finally {
          db.close()
        }
      }
      const small = walBytes(join(root, 'small'), undefined)
      const large = walBytes(join(root, 'large'), withoutSmallPages(join(root, 'migrations')))
      assert.ok(small > 0 && small < large * 0.6, `${small} bytes at 2 KiB against ${large} at 4 KiB`)
    })
  })
}

/**
 * The shipped migrations without the page size line: a store made from them takes SQLite's default pages.
 * @param dir - where to write them.
 * @returns the directory.
 */
function withoutSmallPages(dir: string): string {
  mkdirSync(dir)
  for (const migration of MIGRATIONS)
    writeFileSync(join(dir, migration.name), migration.sql.replace(/^-- page size: \d+$/mu, ''))
  return dir
}
