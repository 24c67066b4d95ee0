/**
 * What the store must provide for sync: the interface a sync round (`sync-round.ts`) drives. The store keeps a stable
 * device id and name, stamps every change with the clock and appends its record inside the change's own transaction
 * (so a change and its record commit together or not at all), keeps every record it has read from other devices, and
 * applies them through its own write rules to the outcome `merge.ts` computes. A port reads and keeps the cursor of
 * one sync target (`SyncLogStore.forTarget`). Types only.
 */
import type { ChangeRecord } from './change-record.ts'
import type { Cursor } from './sync-folder.ts'

/** This device as the other devices see it. */
export interface DeviceIdentity {
  /** Stable, created once per store: lowercase letters, digits and dashes. */
  readonly id: string
  /** Readable name (the host name by default), shown beside conflicts that came from this device. */
  readonly name: string
}

/** What applying other devices' records did. */
export interface Received {
  /** Records not seen before. */
  readonly fresh: number
  /** Slots whose outcome changed (for the page and the debounce). */
  readonly changedSlots: number
  /** Values the write gates refused (a credential), one sentence each, masked. */
  readonly refused: readonly string[]
}

/** The store side of sync. Every method is synchronous and runs in its own transaction. */
export interface SyncLogPort {
  /** This device. */
  device(): DeviceIdentity
  /** This device's whole log, in clock order, sensitive rows already left out unless the user opted in (compaction). */
  ownLog(): readonly ChangeRecord[]
  /**
   * This device's records with a clock after `hlc` (every one when null), in clock order, sensitive rows left out as
   * in `ownLog`: what a round seals, read without reading what is sealed already; at most `limit` of them when given.
   */
  ownLogAfter(hlc: string | null, limit?: number): readonly ChangeRecord[]
  /** How many own records wait to be sealed (after the published watermark), kept as records come, not counted. */
  pending(): number
  /**
   * False while a change is still committing in slices (a large import): its records may yet roll back, so a round
   * neither receives, seals nor compacts then (the store's own writes are refused meanwhile anyway).
   */
  settled(): boolean
  /** The clock of the last own record sealed into a segment; null before the first. */
  publishedThrough(): string | null
  /** Remember that every own record up to `hlc` is sealed (called after the segment is renamed into place). */
  markPublished(hlc: string): void
  /** Per other device, the last sequence number read cleanly. */
  cursor(): Cursor
  /**
   * Keep and apply records of other devices, and store the new cursor, in one transaction: a crash before it
   * commits leaves both as they were, so the same files are read again. Idempotent by operation id. `names` are the
   * other devices' readable names (their device.json), kept to name the machine a conflict came from.
   */
  receive(records: readonly ChangeRecord[], cursor: Cursor, names?: Readonly<Record<string, string>>): Received
}
