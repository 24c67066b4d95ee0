/**
 * Numbered schema migrations: read `sql/migrations/NNNN-name.sql` in order, check the list is contiguous, refuse a
 * database from a newer version, and apply what is pending in one transaction.
 */
import { chmodSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { FactMemoryError, messageOf } from '../errors.ts'
import type { Connection } from './connection.ts'

/** `PRAGMA application_id` of a fact-memory store: "FACT" in ASCII. */
export const APPLICATION_ID = 0x46414354

/** One migration file. */
export interface Migration {
  readonly version: number
  readonly name: string
  readonly sql: string
}

/** The migrations directory shipped with the package (src/store and lib/store sit at the same depth). */
export function defaultMigrationsDir(): string {
  return fileURLToPath(new URL('../../sql/migrations/', import.meta.url))
}

/**
 * Read the migration list.
 * @param dir - the migrations directory.
 * @returns migrations sorted by version.
 * @throws when versions are not exactly 1..N.
 */
export function readMigrations(dir: string): Migration[] {
  const migrations = readdirSync(dir)
    .filter((file) => /^\d{4}-[\w-]+\.sql$/u.test(file))
    .map((file) => ({ version: Number(file.slice(0, 4)), name: file, sql: readFileSync(`${dir}/${file}`, 'utf8') }))
    .sort((a, b) => a.version - b.version)
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(`migration list is not contiguous: expected version ${index + 1}, found ${migration.name}`)
    }
  })
  return migrations
}

/** What the identity check found in an opened file. */
export interface StoreIdentity {
  readonly applicationId: number
  readonly userVersion: number
  readonly objectCount: number
}

/**
 * Read a database's identity without writing anything.
 * @param db - an open connection.
 * @returns application id, schema version and how many schema objects exist.
 * @throws FactMemoryError `foreign_database` when the file is not a SQLite database.
 */
export function readIdentity(db: Connection): StoreIdentity {
  try {
    const applicationId = Number(db.prepare('PRAGMA application_id').get()?.['application_id'] ?? 0)
    const userVersion = Number(db.prepare('PRAGMA user_version').get()?.['user_version'] ?? 0)
    const objectCount = Number(db.prepare('SELECT count(*) AS n FROM sqlite_schema').get()?.['n'] ?? 0)
    return { applicationId, userVersion, objectCount }
  } catch (error) {
    throw new FactMemoryError('foreign_database', 'the store file is not a SQLite database; it was left untouched', {
      cause: error,
    })
  }
}

/**
 * Refuse files this version must not touch: another application's database, or a store from a newer version.
 * @param identity - what {@link readIdentity} found.
 * @param latest - the newest migration version this code knows.
 * @param path - the file, for the message.
 * @throws FactMemoryError `foreign_database` or `store_from_newer_version`.
 */
export function assertOpenable(identity: StoreIdentity, latest: number, path: string): void {
  const foreign = identity.applicationId !== 0 ? identity.applicationId !== APPLICATION_ID : identity.objectCount > 0
  if (foreign) {
    throw new FactMemoryError(
      'foreign_database',
      `${path} belongs to another application (application_id ${identity.applicationId}); it was left untouched`,
    )
  }
  if (identity.userVersion > latest) {
    throw new FactMemoryError(
      'store_from_newer_version',
      `${path} has schema version ${identity.userVersion}, newer than this plugin knows (${latest}); upgrade dsh-fact-memory — the file was left untouched`,
    )
  }
}

/**
 * Apply every pending migration in one transaction and stamp the application id and version. An existing store is
 * copied first when `options.backupTo` names where; references between tables are checked whole before the commit.
 * @param db - an open connection, already checked with {@link assertOpenable}.
 * @param migrations - the full migration list.
 * @param fromVersion - the database's current version.
 * @param options - the backup's path and the store's, for messages.
 * @returns how many migrations ran.
 * @throws FactMemoryError `storage_unavailable` when the copy or a migration fails: it names the migration and its
 *   reason, says the file was left at its version, and where the copy is.
 */
export function applyMigrations(
  db: Connection,
  migrations: readonly Migration[],
  fromVersion: number,
  options: MigrationOptions = {},
): number {
  const pending = migrations.filter((migration) => migration.version > fromVersion)
  if (pending.length === 0) return 0
  const store = options.store ?? 'the store'
  const backupTo = fromVersion > 0 ? options.backupTo : undefined
  if (backupTo !== undefined) {
    // A consistent copy of the store as this version found it, taken before any migration touches a page.
    try {
      db.exec(`VACUUM INTO '${backupTo.replaceAll("'", "''")}'`)
      // The copy holds what the store holds: it is the user's alone from the start, whatever the migration does next.
      chmodSync(backupTo, 0o600)
    } catch (error) {
      throw new FactMemoryError(
        'storage_unavailable',
        `cannot copy ${store} to ${backupTo} before migrating it (${messageOf(error)}); it was left as it was, at schema version ${fromVersion}`,
        { cause: error },
      )
    }
    try {
      options.maskCopy?.(backupTo)
    } catch (error) {
      // A copy that could not be masked is not kept: it would hold credentials in clear.
      rmSync(backupTo, { force: true })
      throw new FactMemoryError(
        'storage_unavailable',
        `cannot mask the credentials in the copy of ${store} taken before migrating it (${messageOf(error)}); it was left as it was, at schema version ${fromVersion}`,
        { cause: error },
      )
    }
  }
  // A migration that rebuilds a table drops the old one, which must not cascade to the rows that refer to it; the
  // references are checked whole before the commit instead (SQLite's own procedure for changing a table).
  db.exec('PRAGMA foreign_keys = OFF')
  let running = `migrations ${pending[0]?.name ?? ''} to ${pending.at(-1)?.name ?? ''}`
  try {
    db.exec('BEGIN IMMEDIATE')
    try {
      for (const migration of pending) {
        running = `migration ${migration.name}`
        db.exec(migration.sql)
      }
      running = `migrations ${pending[0]?.name ?? ''} to ${pending.at(-1)?.name ?? ''}`
      const broken = db.prepare('PRAGMA foreign_key_check').all()
      if (broken.length > 0)
        throw new Error(`they left ${broken.length} broken references (first in ${String(broken[0]?.['table'])})`)
      db.exec(`PRAGMA application_id = ${APPLICATION_ID}`)
      db.exec(`PRAGMA user_version = ${migrations.length}`)
      db.exec('COMMIT')
    } catch (error) {
      db.exec('ROLLBACK')
      // The user learns which step failed and why, that nothing was changed, and where the copy is.
      const copy = backupTo === undefined ? '' : `; the copy taken before migrating is ${backupTo}`
      throw new FactMemoryError(
        'storage_unavailable',
        `${running} failed (${messageOf(error)}); ${store} was left as it was, at schema version ${fromVersion}${copy}`,
        { cause: error },
      )
    }
  } finally {
    db.exec('PRAGMA foreign_keys = ON')
  }
  if (fromVersion > 0) rewriteFile(db, pending)
  return pending.length
}

/** How a migration asks for the file to be compacted once it has committed: a line of its own. */
const COMPACTS = /^-- compact: vacuum after$/mu

/** How a migration sets the page size of the file (a new store's from the start, an existing one's once it has committed). */
const PAGE_SIZE = /^-- page size: (\d+)$/mu

/**
 * The page size the newest migration that names one asks for.
 * @param migrations - migrations in version order.
 * @returns bytes a page, or undefined when none names one (SQLite's default then holds).
 */
export function pageSizeOf(migrations: readonly Migration[]): number | undefined {
  let size: number | undefined
  for (const migration of migrations) {
    const named = PAGE_SIZE.exec(migration.sql)?.[1]
    if (named !== undefined) size = Number(named)
  }
  return size
}

/**
 * After the migrations of an existing store have committed: give the space back when one rewrote most of the file,
 * and take the page size one names. SQLite changes a file's page size only by a VACUUM outside WAL mode, which needs
 * the only connection to the file; when another holds it open, the store keeps its page size (every page size reads
 * and writes the same rows), compacted if a migration asks. A crash during the VACUUM leaves the file as the
 * migrations committed it: the rollback journal restores it.
 * @param db - the connection the migrations ran on, in WAL mode.
 * @param pending - the migrations that just ran.
 */
function rewriteFile(db: Connection, pending: readonly Migration[]): void {
  const pageSize = pageSizeOf(pending)
  const current = Number(db.prepare('PRAGMA page_size').get()?.['page_size'] ?? 0)
  if (pageSize !== undefined && pageSize !== current && leaveWal(db)) {
    try {
      db.exec(`PRAGMA page_size = ${pageSize}`)
      db.exec('VACUUM')
    } finally {
      db.exec('PRAGMA journal_mode = WAL')
    }
  } else if (pending.some((migration) => COMPACTS.test(migration.sql))) {
    db.exec('VACUUM')
  }
}

/**
 * Take the file out of WAL mode, which SQLite allows only to the one connection that has it open (it answers busy at
 * once to any other, whatever the busy timeout).
 * @param db - the connection, in WAL mode.
 * @returns whether the file is now in rollback-journal mode.
 */
function leaveWal(db: Connection): boolean {
  try {
    return String(db.prepare('PRAGMA journal_mode = DELETE').get()?.['journal_mode'] ?? '') === 'delete'
  } catch {
    // Another connection holds the file: it stays in WAL mode, at its page size.
    return false
  }
}

/** What applying migrations may do besides running them. */
export interface MigrationOptions {
  /**
   * Where to copy an existing store (one at version 1 or later) before the first pending migration runs; a new file
   * (`VACUUM INTO` refuses to overwrite), made owner-only before any migration runs, and kept whether or not they
   * succeed. No copy when unset.
   */
  readonly backupTo?: string
  /** Masks the credentials in that copy, in place, before any migration runs; a copy it fails on is removed. */
  readonly maskCopy?: (path: string) => void
  /** The store's path, for the messages of a failed copy or migration; "the store" when unset. */
  readonly store?: string
}
