/**
 * One SQLite connection behind a small synchronous interface, served by better-sqlite3 or, when its native
 * binding cannot load, by the built-in node:sqlite. Statements are cached per SQL text; all values are bound.
 */
import { createRequire } from 'node:module'
import type BetterSqlite3 from 'better-sqlite3'
import type * as NodeSqlite from 'node:sqlite'
import { messageOf } from '../errors.ts'

/** Which SQLite binding serves the connection. */
export type DriverName = 'better-sqlite3' | 'node:sqlite'

/** How to choose the binding: `auto` prefers better-sqlite3 and falls back to node:sqlite. */
export type DriverChoice = DriverName | 'auto'

/** A value SQLite can bind. */
export type SqlValue = string | number | bigint | null | Uint8Array

/** A row as returned by either driver. */
export type Row = Record<string, unknown>

/**
 * @param value - a nullable TEXT column.
 * @returns its text, or null for NULL.
 */
export function textOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value)
}

/**
 * @param value - a nullable INTEGER or REAL column.
 * @returns its number, or null for NULL.
 */
export function numberOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value)
}

/** A prepared statement. */
export interface Statement {
  run(...params: SqlValue[]): { changes: number; lastInsertRowid: number }
  get(...params: SqlValue[]): Row | undefined
  all(...params: SqlValue[]): Row[]
}

/** A synchronous SQLite connection. */
export interface Connection {
  readonly driver: DriverName
  /** Why better-sqlite3 was not used, when the fallback serves the connection. */
  readonly fallbackReason: string | undefined
  exec(sql: string): void
  prepare(sql: string): Statement
  close(): void
  /** Copy a consistent snapshot of the database to `path` (online backup). */
  backup(path: string): Promise<void>
  /** Register a deterministic SQL function of one argument on this connection (the store's own, see database.ts). */
  defineFunction(name: string, fn: (value: unknown) => SqlValue): void
}

/** Loads the better-sqlite3 constructor; injectable so tests can simulate a missing binding. */
export type BetterSqliteLoader = () => typeof BetterSqlite3

const requireFromHere = createRequire(import.meta.url)

/** The default loader: require the package from this module's location. */
export const loadBetterSqlite: BetterSqliteLoader = () => requireFromHere('better-sqlite3') as typeof BetterSqlite3

/**
 * Open a connection to a database file.
 * @param path - the database file path, or `:memory:`.
 * @param choice - which binding to use; `auto` falls back to node:sqlite when better-sqlite3 cannot load.
 * @param loader - how to load better-sqlite3.
 * @returns the open connection.
 * @throws when the chosen binding cannot open the file (a missing binding under `auto` is not an error).
 */
export function openConnection(
  path: string,
  choice: DriverChoice = 'auto',
  loader: BetterSqliteLoader = loadBetterSqlite,
): Connection {
  if (choice === 'node:sqlite') return openNodeSqlite(path, undefined)
  let Database: typeof BetterSqlite3
  try {
    Database = loader()
    // The native binding loads with the first database; probe with one in memory so a file error is not mistaken
    // for a binding error.
    new Database(':memory:').close()
  } catch (error) {
    if (choice === 'better-sqlite3') throw error
    return openNodeSqlite(path, describeLoadFailure(error))
  }
  return wrapBetterSqlite(new Database(path))
}

function describeLoadFailure(error: unknown): string {
  const message = messageOf(error)
  return message.split('\n')[0] ?? 'better-sqlite3 could not load'
}

function wrapBetterSqlite(db: BetterSqlite3.Database): Connection {
  const cache = new Map<string, Statement>()
  return {
    driver: 'better-sqlite3',
    fallbackReason: undefined,
    exec: (sql) => {
      db.exec(sql)
    },
    prepare(sql) {
      let statement = cache.get(sql)
      if (statement === undefined) {
        const prepared = db.prepare(sql)
        const returnsRows = prepared.reader
        statement = {
          run: (...params) => {
            const result = prepared.run(...params)
            return { changes: result.changes, lastInsertRowid: Number(result.lastInsertRowid) }
          },
          get: (...params) => (returnsRows ? (prepared.get(...params) as Row | undefined) : undefined),
          all: (...params) => (returnsRows ? (prepared.all(...params) as Row[]) : []),
        }
        cache.set(sql, statement)
      }
      return statement
    },
    close: () => {
      cache.clear()
      if (db.open) db.close()
    },
    backup: async (path) => {
      await db.backup(path)
    },
    defineFunction: (name, fn) => {
      db.function(name, { deterministic: true }, fn)
    },
  }
}

function openNodeSqlite(path: string, fallbackReason: string | undefined): Connection {
  const sqlite = process.getBuiltinModule('node:sqlite') as typeof NodeSqlite | undefined
  if (sqlite === undefined) throw new Error('neither better-sqlite3 nor node:sqlite is available in this runtime')
  const db = new sqlite.DatabaseSync(path)
  const cache = new Map<string, Statement>()
  let open = true
  return {
    driver: 'node:sqlite',
    fallbackReason,
    exec: (sql) => {
      db.exec(sql)
    },
    prepare(sql) {
      let statement = cache.get(sql)
      if (statement === undefined) {
        const prepared = db.prepare(sql)
        statement = {
          run: (...params) => {
            const result = prepared.run(...params)
            return { changes: Number(result.changes), lastInsertRowid: Number(result.lastInsertRowid) }
          },
          get: (...params) => prepared.get(...params) as Row | undefined,
          all: (...params) => prepared.all(...params) as Row[],
        }
        cache.set(sql, statement)
      }
      return statement
    },
    close: () => {
      cache.clear()
      if (open) db.close()
      open = false
    },
    backup: async (target) => {
      await sqlite.backup(db, target)
    },
    defineFunction: (name, fn) => {
      db.function(name, { deterministic: true }, fn)
    },
  }
}
