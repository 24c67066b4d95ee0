/**
 * Numbered schema migrations: read `sql/migrations/NNNN-name.sql` in order, check the list is contiguous, refuse a
 * database from a newer version, and apply what is pending in one transaction.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { FactMemoryError } from '../errors.ts'
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
    throw new FactMemoryError('foreign_database', 'the store file is not a SQLite database; it was left untouched', { cause: error })
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
  const foreign = identity.applicationId !== 0
    ? identity.applicationId !== APPLICATION_ID
    : identity.objectCount > 0
  if (foreign) {
    throw new FactMemoryError('foreign_database',
      `${path} belongs to another application (application_id ${identity.applicationId}); it was left untouched`)
  }
  if (identity.userVersion > latest) {
    throw new FactMemoryError('store_from_newer_version',
      `${path} has schema version ${identity.userVersion}, newer than this plugin knows (${latest}); upgrade dsh-fact-memory — the file was left untouched`)
  }
}

/**
 * Apply every pending migration in one transaction and stamp the application id and version. An existing store is
 * copied first when `options.backupTo` names where; references between tables are checked whole before the commit.
 * @param db - an open connection, already checked with {@link assertOpenable}.
 * @param migrations - the full migration list.
 * @param fromVersion - the database's current version.
 * @param options - the backup's path.
 * @returns how many migrations ran.
 */
export function applyMigrations(db: Connection, migrations: readonly Migration[], fromVersion: number, options: MigrationOptions = {}): number {
  const pending = migrations.filter((migration) => migration.version > fromVersion)
  if (pending.length === 0) return 0
  if (fromVersion > 0 && options.backupTo !== undefined) {
    // A consistent copy of the store as this version found it, taken before any migration touches a page.
    db.exec(`VACUUM INTO '${options.backupTo.replaceAll("'", "''")}'`)
  }
  // A migration that rebuilds a table drops the old one, which must not cascade to the rows that refer to it; the
  // references are checked whole before the commit instead (SQLite's own procedure for changing a table).
  db.exec('PRAGMA foreign_keys = OFF')
  try {
    db.exec('BEGIN IMMEDIATE')
    try {
      for (const migration of pending) db.exec(migration.sql)
      const broken = db.prepare('PRAGMA foreign_key_check').all()
      if (broken.length > 0) throw new Error(`migration left ${broken.length} broken references (first in ${String(broken[0]?.['table'])})`)
      db.exec(`PRAGMA application_id = ${APPLICATION_ID}`)
      db.exec(`PRAGMA user_version = ${migrations.length}`)
      db.exec('COMMIT')
    } catch (error) {
      db.exec('ROLLBACK')
      throw error
    }
  } finally {
    db.exec('PRAGMA foreign_keys = ON')
  }
  // A migration that rewrote most of the file gives the space back (only when it ran on an existing store).
  if (fromVersion > 0 && pending.some((migration) => COMPACTS.test(migration.sql))) db.exec('VACUUM')
  return pending.length
}

/** How a migration asks for the file to be compacted once it has committed: a line of its own. */
const COMPACTS = /^-- compact: vacuum after$/mu

/** What applying migrations may do besides running them. */
export interface MigrationOptions {
  /**
   * Where to copy an existing store (one at version 1 or later) before the first pending migration runs; a new file
   * (`VACUUM INTO` refuses to overwrite). No copy when unset.
   */
  readonly backupTo?: string
}
