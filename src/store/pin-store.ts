/**
 * PinStore: the user's pins. A pin is the instant on one fact row (`facts.pinned_at`); setting or clearing it is a
 * change to the user's memory, so it moves the generation like any edit. The row's revision does not move: a pin
 * changes what leads the directory, not the fact, so an edit recorded before the pin still undoes exactly.
 */
import type { Database } from './database.ts'
import { INSTANT, instantColumn } from './fact-rows.ts'
import { textOrNull } from './connection.ts'
import { SyncRecorder } from './sync-recorder.ts'

/** What a pin change found and left. */
export type PinChange =
  | { readonly ok: true; readonly before: string | null; readonly after: string | null }
  | { readonly ok: false; readonly reason: 'not_found' }

/** Synchronous writes of pins; reads go through the fact columns (`Fact.pinnedAt`). */
export class PinStore {
  private readonly db: Database
  private readonly recorder: SyncRecorder

  /** @param db - an open, migrated database. */
  constructor(db: Database) {
    this.db = db
    this.recorder = new SyncRecorder(db)
  }

  /**
   * Set a row's pin instant, or clear it. Runs in the caller's transaction when there is one.
   * @param factId - the fact row.
   * @param pinnedAt - ISO UTC instant of the pin, or null to unpin.
   * @returns the instant before and after, or `not_found` when no row (or only a forgotten one) has the id.
   */
  setPin(factId: number, pinnedAt: string | null): PinChange {
    return this.db.transaction(() => {
      const row = this.db.get(
        `SELECT ${instantColumn('pinned_at')} FROM facts WHERE id = ? AND status <> 'forgotten'`,
        factId,
      )
      if (row === undefined) return { ok: false, reason: 'not_found' } as const
      const before = textOrNull(row['pinned_at'])
      if (before !== pinnedAt) {
        this.db.run(`UPDATE facts SET pinned_at = ${INSTANT} WHERE id = ?`, pinnedAt, factId)
        // The record's clock reads the pin instant; an unpin carries none, so it reads the wall clock.
        this.recorder.recordPin(factId, pinnedAt, pinnedAt ?? new Date().toISOString())
      }
      return { ok: true, before, after: pinnedAt } as const
    })
  }
}
