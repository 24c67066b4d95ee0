/**
 * The speed bench's storage readings: what a store file holds by table and index (SQLite's dbstat), the WAL bytes
 * each write adds (frames counted from the -wal file's size, the WAL truncated before each write by a checkpoint on
 * a separate connection, so the writer's own connection and settings stay as they are), and the machine a run came from.
 * A benchmark helper, not part of the plugin.
 */
import { existsSync, statSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { openConnection, type Connection, type DriverName } from '../src/store/connection.ts'
import { percentiles, type Percentiles } from './bench-stats.ts'

/** One table or index's share of a file. */
export interface ObjectBytes {
  readonly name: string
  readonly bytes: number
  /** bytes ÷ the facts written. */
  readonly bytesPerFact: number
}

/** The WAL a write adds: 24 bytes of frame header and one page per page it changed. */
export interface WalPerWrite {
  readonly pageSize: number
  /** Frames a write appended, and their bytes (frames × (page size + 24)); the WAL's 32-byte header not counted. */
  readonly frames: Percentiles
  readonly bytes: Percentiles
}

/** What the bench reports about the machine and binding. */
export interface Machine {
  readonly cpus: number
  readonly cpuModel: string
  readonly memoryGb: number
  readonly node: string
  readonly platform: string
  readonly driver: DriverName
  readonly sqliteVersion: string
}

const WAL_HEADER = 32
const FRAME_HEADER = 24

/**
 * Bytes by table and index of a closed store file (FTS5's shadow tables under their own names), largest first.
 * @param path - the database file; no other connection may be writing.
 * @param facts - the denominator for bytes a fact.
 * @returns every object that holds a page.
 */
export function objectBytes(path: string, facts: number): ObjectBytes[] {
  const db = openConnection(path, 'auto')
  try {
    return db
      .prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC')
      .all()
      .map((row) => ({
        name: String(row['name']),
        bytes: Number(row['bytes']),
        bytesPerFact: Math.round(Number(row['bytes']) / Math.max(1, facts)),
      }))
  } finally {
    db.close()
  }
}

/**
 * A checkpointing connection beside a writer's: before each write it folds the WAL into the file and truncates it,
 * so the -wal file's size after the write is exactly what that write appended.
 */
export class WalMeter {
  private readonly path: string
  private readonly db: Connection
  private readonly pageSize: number

  /** @param path - the database file the writer has open. */
  constructor(path: string) {
    this.path = path
    this.db = openConnection(path, 'auto')
    this.pageSize = Number(this.db.prepare('PRAGMA page_size').get()?.['page_size'] ?? 4096)
  }

  /**
   * Measure writes one by one.
   * @param writes - each commits one write in its own transaction on the writer's connection.
   * @returns frames and bytes a write.
   * @throws when a checkpoint could not complete (another reader held the WAL).
   */
  measure(writes: readonly (() => void)[]): WalPerWrite {
    const frames: number[] = []
    for (const write of writes) {
      const row = this.db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get()
      if (Number(row?.['busy'] ?? 0) !== 0) throw new Error(`the checkpoint of ${this.path} was blocked`)
      write()
      const size = existsSync(`${this.path}-wal`) ? statSync(`${this.path}-wal`).size : 0
      frames.push(Math.max(0, size - WAL_HEADER) / (this.pageSize + FRAME_HEADER))
    }
    return {
      pageSize: this.pageSize,
      frames: percentiles(frames),
      bytes: percentiles(frames.map((count) => count * (this.pageSize + FRAME_HEADER))),
    }
  }

  /** Close the checkpointing connection (before the writer's, so the writer's close folds the WAL). */
  close(): void {
    this.db.close()
  }
}

/**
 * The machine and the binding the plugin's store opens with by default.
 * @returns the figures for the bench's JSON.
 */
export function machine(): Machine {
  const db = openConnection(':memory:', 'auto')
  try {
    return {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      memoryGb: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      driver: db.driver,
      sqliteVersion: String(db.prepare('SELECT sqlite_version() AS v').get()?.['v'] ?? ''),
    }
  } finally {
    db.close()
  }
}
