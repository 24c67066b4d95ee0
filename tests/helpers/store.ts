/**
 * Store test helpers: throwaway directories, a FactMemory opened on a real SQLite file with a chosen driver and a
 * fake clock, a second read connection for inspecting rows, and a terse write shortcut.
 */
import { createHash } from 'node:crypto'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { configWith, resolveConfig, type Config, type ResolvedConfig } from '../../src/config.ts'
import { FactMemory, type WriteAnswer } from '../../src/fact-memory.ts'
import type { DriverName, Row, SqlValue } from '../../src/store/connection.ts'
import { Database, STORE_FILE, type StatementObserver } from '../../src/store/database.ts'
import { defaultMigrationsDir, readMigrations } from '../../src/store/migrate.ts'
import type { Fact, FactInput } from '../../src/types.ts'
import type { FakeClock } from './fake-clock.ts'

/**
 * Both SQLite bindings, for specs where storage behaviour can differ between them (they bundle different SQLite
 * versions, hand back blobs and rows in different shapes, and back up through different APIs): the store and its
 * modules, migrations, the binding choice, the full-text index and ranking, the vector store, the exchange.
 */
export const DRIVERS = ['better-sqlite3', 'node:sqlite'] as const satisfies readonly DriverName[]

/**
 * The binding the plugin opens first (`auto`), alone: for specs where the store is incidental, their behaviour
 * above the SQL (verbs, tools, extraction passes, search and recall rendering, the semantic channels), so both
 * bindings would run the same statements to the same end.
 */
export const ONE_DRIVER = ['better-sqlite3'] as const satisfies readonly DriverName[]

/**
 * A fresh, empty temporary directory.
 * @param prefix - a label for the directory name.
 * @returns its absolute path.
 */
/**
 * A key as the store makes them (SHA-256, 64 hex digits), from a test's own label: rows a test writes by SQL carry
 * keys of the stored shape.
 */
export function hexKey(label: string): string {
  return createHash('sha256').update(label).digest('hex')
}

export function tempDir(prefix = 'fact-memory-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

/** Remove a temporary directory tree. */
export function removeDir(path: string): void {
  rmSync(path, { recursive: true, force: true })
}

/** SHA-256 of a file's bytes. */
export function fileHash(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex')
}

/** The plugin's defaults with a fixed display zone, overridden as asked and validated as the Loader would. */
export function makeConfig(root: string, overrides: Partial<Config> = {}): ResolvedConfig {
  return resolveConfig(configWith({ storeTimezone: 'UTC', ...overrides }), { dshHome: root, userHome: root })
}

/** An open FactMemory on a real store, with everything a test needs around it. */
export interface MemoryHandle {
  readonly memory: FactMemory
  config: ResolvedConfig
  readonly root: string
  readonly dataDir: string
  readonly driver: DriverName
  readonly clock: FakeClock
  /** A second connection to the same file (same driver) for reading rows; opened on first use. */
  db(): Database
  /** Replace the live configuration (same data directory). */
  reconfigure(overrides: Partial<Config>): ResolvedConfig
  /** Close both connections and remove the directory. */
  dispose(): void
}

/**
 * Open a FactMemory in a fresh temporary directory.
 * @param driver - the SQLite binding.
 * @param clock - the fake clock.
 * @param overrides - configuration overrides.
 * @param onStatement - told every statement the memory's store sends (the probe connection's are not).
 * @param beforeOpen - called with the data directory (created, empty) before the store opens: a test places a store
 *   file an older version wrote there.
 * @returns the handle; the store is open.
 */
export function openMemory(
  driver: DriverName,
  clock: FakeClock,
  overrides: Partial<Config> = {},
  onStatement?: StatementObserver,
  beforeOpen?: (dataDir: string) => void,
): MemoryHandle {
  const root = tempDir()
  let config = makeConfig(root, overrides)
  if (beforeOpen !== undefined) {
    mkdirSync(config.resolvedDataDir, { recursive: true, mode: 0o700 })
    beforeOpen(config.resolvedDataDir)
  }
  if (beforeOpen === undefined && onStatement === undefined) {
    mkdirSync(config.resolvedDataDir, { recursive: true, mode: 0o700 })
    copyStoreTemplate(driver, join(config.resolvedDataDir, STORE_FILE))
  }
  const memory = new FactMemory({ clock, driver, ...(onStatement === undefined ? {} : { onStatement }) })
  memory.open(config.resolvedDataDir, config.backupKeep)
  const status = memory.status()
  if (!status.available) {
    removeDir(root)
    throw new Error(`the store did not open: ${status.error?.code ?? '?'} ${status.error?.message ?? ''}`)
  }
  let probe: Database | undefined
  return {
    memory,
    get config() {
      return config
    },
    set config(next) {
      config = next
    },
    root,
    dataDir: config.resolvedDataDir,
    driver,
    clock,
    db() {
      probe ??= Database.open({ dataDir: config.resolvedDataDir, driver, now: () => clock.iso() })
      return probe
    },
    reconfigure(next) {
      config = makeConfig(root, { ...overrides, ...next })
      return config
    },
    dispose() {
      probe?.close()
      memory.close()
      removeDir(root)
    },
  }
}

/** The migrated empty store file per binding, built once per process (see migratedTemplate). */
const migratedTemplates = new Map<DriverName, string>()

/**
 * An empty store file that every shipped migration has run on, without the identity row an open stamps (its id and
 * creation instant); each copy draws its own sync device id (copyStoreTemplate). A store copied from it opens as a
 * new one does, with its own identity and clock, but without
 * running every migration again for each test. openMemory starts from it unless the test seeds the directory first
 * or observes the statements the open runs.
 * @param driver - the binding that builds it.
 * @returns its path.
 */
function migratedTemplate(driver: DriverName): string {
  const built = migratedTemplates.get(driver)
  if (built !== undefined) return built
  const dir = tempDir('fact-memory-template-')
  process.once('exit', () => removeDir(dir))
  const db = Database.open({ dataDir: dir, driver, now: () => new Date(0).toISOString() })
  db.ledger(() => db.run('DELETE FROM store_state'))
  db.close()
  const path = join(dir, STORE_FILE)
  migratedTemplates.set(driver, path)
  return path
}

/**
 * Copy the migrated template to a new store file, with a sync device id of its own: migration 0027 draws the id at
 * random, once per file, so copies would otherwise all be one device to sync.
 * @param driver - the binding whose template to copy.
 * @param path - the new store file.
 */
function copyStoreTemplate(driver: DriverName, path: string): void {
  copyFileSync(migratedTemplate(driver), path)
  const file = new DatabaseSync(path)
  try {
    file.exec('UPDATE sync_device SET device_id = lower(hex(randomblob(8))) WHERE id = 1')
  } finally {
    file.close()
  }
}

/** A partial fact: everything but subject/property/value/evidence/origin is optional, and those have defaults. */
export type PartialFact = Partial<FactInput>

/**
 * Write a fact with defaults for what the test does not care about.
 * @returns the write answer.
 */
export function write(memory: FactMemory, config: ResolvedConfig, partial: PartialFact = {}): WriteAnswer {
  return memory.write(
    {
      subject: 'dsh-fact-memory',
      property: 'test port',
      value: '7801',
      evidence: 'observed',
      origin: 'tool',
      ...partial,
    },
    config,
  )
}

/** Narrow a write answer to one kind, failing with the whole answer when it is another. */
export function expectKind<K extends WriteAnswer['kind']>(
  answer: WriteAnswer,
  kind: K,
): Extract<WriteAnswer, { kind: K }> {
  if (answer.kind !== kind) {
    throw new Error(`expected a "${kind}" write, got ${JSON.stringify(answer, null, 2)}`)
  }
  return answer as Extract<WriteAnswer, { kind: K }>
}

/** Write and return the stored fact (saved, conflict or duplicate). */
export function writeFact(memory: FactMemory, config: ResolvedConfig, partial: PartialFact = {}): Fact {
  const answer = write(memory, config, partial)
  if (answer.kind === 'saved' || answer.kind === 'conflict' || answer.kind === 'duplicate') return answer.fact
  throw new Error(`expected a stored fact, got ${JSON.stringify(answer, null, 2)}`)
}

/** One row by SQL, failing when there is none. */
export function oneRow(db: Database, sql: string, ...params: (string | number | null)[]): Row {
  const row = db.get(sql, ...params)
  if (row === undefined) throw new Error(`no row for ${sql} [${params.join(', ')}]`)
  return row
}

/** A single numeric value (`SELECT count(*) AS n …`). */
export function count(db: Database, sql: string, ...params: (string | number | null)[]): number {
  return Number(oneRow(db, sql, ...params)['n'])
}

/**
 * A store at an older schema version, as a spec fills it: SQL in, rows out. Today's code counts each committed change
 * in `tallies` (migration 0023), a table such a store lacks, so every write here commits as bookkeeping, uncounted.
 */
export interface OldStore {
  run(sql: string, ...params: SqlValue[]): { changes: number; lastInsertRowid: number }
  get(sql: string, ...params: SqlValue[]): Row | undefined
  all(sql: string, ...params: SqlValue[]): Row[]
  /** Run `fn` in one transaction (bookkeeping, as every write here). */
  transaction<T>(fn: () => T): T
  close(): void
}

/**
 * Open a store as an older version of the plugin left it: migrated by the shipped migrations up to `version` only.
 * @param root - a temporary directory; the store goes to `<root>/data`, the migrations it saw to `<root>/migrations-v<version>`.
 * @param version - the last migration applied.
 * @param driver - the SQLite binding.
 * @param now - the clock the database stamps with.
 * @returns the open store (close it before reopening with every migration) and its data directory.
 */
export function openAtVersion(
  root: string,
  version: number,
  driver: DriverName,
  now: () => string,
): { readonly db: OldStore; readonly dataDir: string } {
  const migrationsDir = join(root, `migrations-v${version}`)
  mkdirSync(migrationsDir)
  for (const migration of readMigrations(defaultMigrationsDir()).filter((entry) => entry.version <= version)) {
    copyFileSync(join(defaultMigrationsDir(), migration.name), join(migrationsDir, migration.name))
  }
  const dataDir = join(root, 'data')
  const db = Database.open({ dataDir, driver, now, migrationsDir })
  const store: OldStore = {
    run: (sql, ...params) => db.ledger(() => db.run(sql, ...params)),
    get: (sql, ...params) => db.get(sql, ...params),
    all: (sql, ...params) => db.all(sql, ...params),
    transaction: (fn) => db.ledger(fn),
    close: () => {
      db.close()
    },
  }
  return { db: store, dataDir }
}
