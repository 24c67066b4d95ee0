/**
 * The store's database handle: opens `<dataDir>/memory.db` owner-only, refuses foreign or newer files before
 * writing a byte, sets WAL / foreign keys / synchronous=FULL, migrates, and runs nested transactions through
 * savepoints. Every committed write to the user's memory bumps the store generation; bookkeeping (see `ledger`) does
 * not. Long work (a large import's commit) runs as one transaction in slices that hand the event loop back: other
 * code reads meanwhile, and a write it attempts is refused as `busy` before it touches the file.
 */
import { chmodSync, existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { FactMemoryError } from '../errors.ts'
import {
  openConnection,
  type BetterSqliteLoader,
  type Connection,
  type DriverChoice,
  type DriverName,
  type SqlValue,
  type Row,
  loadBetterSqlite,
} from './connection.ts'
import { maskCredentialsInCopy, type CopyMasking } from './copy-masking.ts'
import {
  applyMigrations,
  assertOpenable,
  defaultMigrationsDir,
  pageSizeOf,
  readIdentity,
  readMigrations,
} from './migrate.ts'
import { parseStoredTombstone } from './stored-tombstone.schema.ts'
import { unscopedTombstoneKey } from './tombstones.ts'
import { packMagnitudes } from './vector-codec.ts'

/** The store file name inside the data directory. */
export const STORE_FILE = 'memory.db'

/**
 * Where an existing store is copied before this version migrates it: beside the store, named for the schema version
 * it had and the instant (and a count, should a copy of that instant exist), so no copy is ever overwritten.
 * @param dataDir - the store's directory.
 * @param version - the schema version it had.
 * @param now - the current ISO instant.
 * @returns the copy's path.
 */
export function migrationBackupPath(dataDir: string, version: number, now: string): string {
  const stem = join(dataDir, `memory.v${version}-backup-${now.replaceAll(/[:.]/gu, '-')}`)
  let path = `${stem}.db`
  for (let n = 2; existsSync(path); n += 1) path = `${stem}-${n}.db`
  return path
}

/** How to open a store. */
export interface OpenOptions {
  /** The data directory; created owner-only when missing. */
  readonly dataDir: string
  /** Binding choice; `auto` by default. */
  readonly driver?: DriverChoice
  /** Loader for better-sqlite3 (tests simulate a missing binding). */
  readonly loader?: BetterSqliteLoader
  /** Migrations directory; the shipped one by default. */
  readonly migrationsDir?: string
  /** ISO timestamp source for the store's creation record. */
  readonly now: () => string
  /**
   * Told the SQL text and parameters of every statement sent through `run`, `get` and `all`, before it runs (the
   * query-plan test records the hot paths' statements with it). Unset, nothing is recorded and nothing is spent.
   */
  readonly onStatement?: StatementObserver
  /** How the copy taken before a migration masks its credentials (see copy-masking.ts); left as copied when unset. */
  readonly copyMasking?: CopyMasking
}

/** Sees one statement about to run: its SQL text, as sent, and its bound parameters. */
export type StatementObserver = (sql: string, params: readonly SqlValue[]) => void

/** An open, migrated store database. */
export class Database {
  /** The file path. */
  readonly path: string
  private readonly db: Connection
  private depth = 0
  /** Set by touchGeneration: the outer transaction in progress bumps the generation at commit. */
  private touched = false
  /** The sliced transaction in progress, and whether its own slice is running now. */
  private held: { running: boolean } | undefined
  private readonly changeListeners = new Set<() => void>()
  private readonly observe: StatementObserver | undefined

  private constructor(path: string, db: Connection, observe: StatementObserver | undefined) {
    this.path = path
    this.db = db
    this.observe = observe
  }

  /**
   * Open (creating if needed) and migrate the store in `options.dataDir`.
   * @param options - where and how.
   * @returns the open database.
   * @throws FactMemoryError `foreign_database` / `store_from_newer_version` without touching the file, or
   *   `storage_unavailable` when the directory or file cannot be opened.
   */
  static open(options: OpenOptions): Database {
    try {
      mkdirSync(options.dataDir, { recursive: true, mode: 0o700 })
    } catch (error) {
      throw new FactMemoryError('storage_unavailable', `cannot create the data directory ${options.dataDir}`, {
        cause: error,
      })
    }
    const path = join(options.dataDir, STORE_FILE)
    const created = !existsSync(path)
    let db: Connection
    try {
      db = openConnection(path, options.driver ?? 'auto', options.loader ?? loadBetterSqlite)
    } catch (error) {
      throw new FactMemoryError('storage_unavailable', `cannot open ${path}`, { cause: error })
    }
    try {
      const migrations = readMigrations(options.migrationsDir ?? defaultMigrationsDir())
      const identity = readIdentity(db)
      assertOpenable(identity, migrations.length, path)
      // A new file takes the migrations' page size before its first page is written (an existing one, by migrating).
      const pageSize = pageSizeOf(migrations)
      if (identity.objectCount === 0 && pageSize !== undefined) db.exec(`PRAGMA page_size = ${pageSize}`)
      db.exec('PRAGMA journal_mode = WAL')
      db.exec('PRAGMA synchronous = FULL')
      db.exec('PRAGMA foreign_keys = ON')
      db.exec('PRAGMA busy_timeout = 5000')
      defineStoreFunctions(db)
      const backupTo = migrationBackupPath(options.dataDir, identity.userVersion, options.now())
      const masking = options.copyMasking
      const maskCopy =
        masking === undefined
          ? undefined
          : (copy: string): void => {
              maskCredentialsInCopy(copy, db.driver, 'every', masking)
            }
      applyMigrations(db, migrations, identity.userVersion, {
        backupTo,
        store: path,
        ...(maskCopy === undefined ? {} : { maskCopy }),
      })
      if (created) chmodSync(path, 0o600)
      const database = new Database(path, db, options.onStatement)
      database.ensureState(options.now())
      return database
    } catch (error) {
      db.close()
      if (error instanceof FactMemoryError) throw error
      throw new FactMemoryError('storage_unavailable', `cannot open ${path}`, { cause: error })
    }
  }

  /** Which binding serves this store. */
  get driver(): DriverName {
    return this.db.driver
  }

  /** Why the fallback binding is in use, if it is. */
  get fallbackReason(): string | undefined {
    return this.db.fallbackReason
  }

  /**
   * Run a statement that changes rows. Outside a transaction it runs in one of its own, so every committed write
   * bumps the generation, whoever issues it.
   */
  run(sql: string, ...params: SqlValue[]): { changes: number; lastInsertRowid: number } {
    this.refuseWhileHeld()
    this.observe?.(sql, params)
    if (this.depth === 0) return this.transaction(() => this.db.prepare(sql).run(...params))
    return this.db.prepare(sql).run(...params)
  }

  /** Read one row. */
  get(sql: string, ...params: SqlValue[]): Row | undefined {
    this.observe?.(sql, params)
    return this.db.prepare(sql).get(...params)
  }

  /** Read all rows. */
  all(sql: string, ...params: SqlValue[]): Row[] {
    this.observe?.(sql, params)
    return this.db.prepare(sql).all(...params)
  }

  /**
   * Run `fn` in a transaction; nested calls become savepoints. The outermost commit bumps the generation when
   * anything changed. `fn` must be synchronous: a returned promise is refused, because awaiting would commit early.
   * @param fn - the work.
   * @returns what `fn` returned.
   */
  transaction<T>(fn: () => T): T {
    return this.transact(fn, true)
  }

  /**
   * Run `fn` in a transaction of bookkeeping that is not part of the user's memory (the extraction ledger, store
   * metadata such as when the review queue was last seen): it commits like any transaction but does not bump the
   * generation, so a pass that only logged itself, or a page marking the queue as read, never makes another page's
   * next edit stale. Nested inside a transaction it is a savepoint of that transaction.
   * @param fn - the work; synchronous.
   * @returns what `fn` returned.
   */
  ledger<T>(fn: () => T): T {
    return this.transact(fn, false)
  }

  /**
   * Be told after each committed change to the user's memory (a transaction that bumped the generation). Listeners
   * run after the commit, synchronously; one that throws is ignored, it cannot undo the commit.
   * @param listener - called with no arguments.
   * @returns the unsubscriber.
   */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener)
    return () => {
      this.changeListeners.delete(listener)
    }
  }

  /**
   * Run long asynchronous work as ONE transaction that hands the event loop back between slices. The work calls
   * `slice` for each synchronous step; between steps other code runs: it reads what the transaction has written so far
   * (one connection, one view), and any write it attempts is refused with `busy` before reaching SQLite, so nothing
   * of anyone else's joins this transaction. It commits once, at the end (bumping the generation once if anything
   * changed), or rolls back whole when the work throws; a crash meanwhile loses the transaction, never a commit.
   * @param work - the steps; everything it writes must happen inside `slice`.
   * @returns what `work` resolved to.
   * @throws FactMemoryError `busy` when a transaction is already open.
   */
  async transactionInSlices<T>(work: (slice: <R>(step: () => R) => R) => Promise<T>): Promise<T> {
    this.refuseWhileHeld()
    if (this.depth > 0)
      throw new FactMemoryError(
        'busy',
        'the memory is in the middle of another change; nothing was changed, try again in a moment',
      )
    const hold = { running: false }
    const slice = <R>(step: () => R): R => {
      if (this.held !== hold) throw new Error('a slice ran after its transaction ended')
      const outer = hold.running
      hold.running = true
      try {
        return step()
      } finally {
        hold.running = outer
      }
    }
    const before = this.totalChanges()
    this.db.exec('BEGIN IMMEDIATE')
    this.depth = 1
    this.held = hold
    let bumped = false
    try {
      const result = await work(slice)
      slice(() => {
        bumped = this.totalChanges() !== before
        if (bumped) this.db.prepare("UPDATE tallies SET n = n + 1 WHERE tally = 'generation' AND part = ''").run()
      })
      this.release()
      this.db.exec('COMMIT')
      if (bumped) this.notifyChange()
      return result
    } catch (error) {
      if (this.held === hold) {
        this.release()
        this.db.exec('ROLLBACK')
      }
      throw error
    }
  }

  /** Whether a sliced transaction is open (other code sees it between slices). */
  get busy(): boolean {
    return this.held !== undefined && !this.held.running
  }

  private release(): void {
    this.depth = 0
    this.held = undefined
  }

  /** Refuse a write from outside the sliced transaction while one is open, before it reaches SQLite. */
  private refuseWhileHeld(): void {
    if (this.busy) {
      throw new FactMemoryError(
        'busy',
        'the memory is taking in a large import; nothing was changed, try again when it finishes',
      )
    }
  }

  /**
   * Count the transaction in progress as a change to the user's memory: its commit bumps the generation even when it
   * runs as a ledger (receiving sync records is bookkeeping unless applying them changed facts).
   */
  touchGeneration(): void {
    if (this.depth > 0) this.touched = true
  }

  private transact<T>(fn: () => T, bumps: boolean): T {
    this.refuseWhileHeld()
    const outer = this.depth === 0
    if (outer) this.touched = false
    const savepoint = `sp${this.depth}`
    const before = outer ? this.totalChanges() : 0
    this.db.exec(outer ? 'BEGIN IMMEDIATE' : `SAVEPOINT ${savepoint}`)
    this.depth += 1
    try {
      const result = fn()
      if (result instanceof Promise) throw new Error('transaction work must be synchronous')
      const bumped = outer && ((bumps && this.totalChanges() !== before) || this.touched)
      if (bumped) this.db.prepare("UPDATE tallies SET n = n + 1 WHERE tally = 'generation' AND part = ''").run()
      this.depth -= 1
      this.db.exec(outer ? 'COMMIT' : `RELEASE ${savepoint}`)
      if (bumped) this.notifyChange()
      return result
    } catch (error) {
      this.depth -= 1
      if (outer) this.db.exec('ROLLBACK')
      else this.db.exec(`ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`)
      throw error
    }
  }

  private notifyChange(): void {
    for (const listener of [...this.changeListeners]) {
      try {
        listener()
      } catch {
        // The change is committed; a listener's failure is its own.
      }
    }
  }

  /** The committed-write counter. */
  generation(): number {
    return Number(this.get("SELECT n FROM tallies WHERE tally = 'generation' AND part = ''")?.['n'] ?? 0)
  }

  /** The store's stable random id. */
  storeId(): string {
    return String(this.get('SELECT store_id FROM store_state WHERE id = 1')?.['store_id'] ?? '')
  }

  /**
   * Copy the store, consistent and compacted, to a new file at once (VACUUM INTO); never inside a transaction.
   * @param path - where; the file must not exist.
   */
  vacuumInto(path: string): void {
    this.refuseWhileHeld()
    if (this.depth > 0) throw new Error('a copy of the store cannot be taken inside a transaction')
    this.observe?.('VACUUM INTO ?', [path])
    this.db.prepare('VACUUM INTO ?').run(path)
  }

  /**
   * Copy the store to a new file, consistent, in the background of the event loop (SQLite's online backup).
   * @param path - where; the file must not exist.
   */
  backup(path: string): Promise<void> {
    // A copy taken from inside an open sliced transaction would hold half of it.
    if (this.held !== undefined)
      return Promise.reject(
        new FactMemoryError(
          'busy',
          'the memory is taking in a large import; no copy was taken, try again when it finishes',
        ),
      )
    return this.db.backup(path)
  }

  /** Close the connection; later calls fail. */
  close(): void {
    this.db.close()
  }

  private totalChanges(): number {
    return Number(this.db.prepare('SELECT total_changes() AS n').get()?.['n'] ?? 0)
  }

  private ensureState(now: string): void {
    this.db
      .prepare('INSERT OR IGNORE INTO store_state (id, store_id, created_at) VALUES (1, ?, ?)')
      .run(randomUUID(), now)
  }
}

/**
 * The store's own SQL functions, registered on every connection before migrations run (a migration may call them).
 * `fm_vector_magnitudes(quantized)`: the packed magnitudes of an int8 vector blob (vector-codec.ts), NULL for
 * anything else. `fm_unscoped_tombstone_key(json)`: the key a tombstone of a project-scoped row takes without the
 * project (tombstones.ts, migration 0026), from a JSON object of the tombstone and its row; a key it cannot map is
 * returned as it was, and input of another shape is an error (the migration fails and the file is left as it was).
 * @param db - the connection.
 */
function defineStoreFunctions(db: Connection): void {
  db.defineFunction('fm_vector_magnitudes', (value) => {
    if (!(value instanceof Uint8Array)) return null
    return packMagnitudes(new Int8Array(value.buffer, value.byteOffset, value.byteLength))
  })
  db.defineFunction('fm_unscoped_tombstone_key', (value) => {
    if (typeof value !== 'string') throw new TypeError('fm_unscoped_tombstone_key takes a JSON text')
    return unscopedTombstoneKey(parseStoredTombstone(value))
  })
}
