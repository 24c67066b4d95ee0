/**
 * PauseStore: the sessions the user paused memory in, and whether the model has been told of the latest pause or
 * resume. Bookkeeping outside the user's memory (writes never move the generation). The paused set is read once and
 * kept in memory, so the per-request checks cost no query.
 */
import type { Database } from './database.ts'

/** The change the model has yet to be told of in a session. */
export type UntoldPause = 'paused' | 'resumed'

/** Synchronous reads and writes of paused sessions. */
export class PauseStore {
  private readonly db: Database
  private readonly paused = new Set<string>()
  private readonly untold = new Map<string, UntoldPause>()

  /** @param db - an open, migrated database. */
  constructor(db: Database) {
    this.db = db
    for (const row of db.all('SELECT session_id, state, told FROM session_pauses')) {
      const id = String(row['session_id'])
      const state = row['state'] === 'paused' ? 'paused' : 'resumed'
      if (state === 'paused') this.paused.add(id)
      if (Number(row['told']) === 0) this.untold.set(id, state)
    }
  }

  /** Whether memory is paused in a session. */
  isPaused(sessionId: string): boolean {
    return this.paused.has(sessionId)
  }

  /** Every paused session, in no order. */
  pausedSessions(): string[] {
    return [...this.paused]
  }

  /**
   * Pause or resume memory in a session. Asking for the state it is already in changes nothing.
   * @param sessionId - the session.
   * @param paused - the state wanted.
   * @param now - ISO instant.
   * @returns whether the state changed.
   */
  set(sessionId: string, paused: boolean, now: string): boolean {
    if (this.paused.has(sessionId) === paused) return false
    const state: UntoldPause = paused ? 'paused' : 'resumed'
    // A resume the model was never told to expect needs no word: the pause it would undo was not told either.
    const silent = !paused && this.untold.get(sessionId) === 'paused'
    this.db.ledger(() => {
      if (silent) this.db.run('DELETE FROM session_pauses WHERE session_id = ?', sessionId)
      else {
        this.db.run(
          `INSERT INTO session_pauses (session_id, state, changed_at, told) VALUES (?, ?, ?, 0)
          ON CONFLICT (session_id) DO UPDATE SET state = excluded.state, changed_at = excluded.changed_at, told = 0`,
          sessionId,
          state,
          now,
        )
      }
    })
    if (paused) this.paused.add(sessionId)
    else this.paused.delete(sessionId)
    if (silent) this.untold.delete(sessionId)
    else this.untold.set(sessionId, state)
    return true
  }

  /** The change the model has yet to be told of in a session, or undefined. */
  untoldChange(sessionId: string): UntoldPause | undefined {
    return this.untold.get(sessionId)
  }

  /**
   * Record that the model was told of the latest change (a told resume leaves no row).
   * @param sessionId - the session.
   */
  markTold(sessionId: string): void {
    const change = this.untold.get(sessionId)
    if (change === undefined) return
    this.db.ledger(() => {
      if (change === 'resumed') this.db.run('DELETE FROM session_pauses WHERE session_id = ?', sessionId)
      else this.db.run('UPDATE session_pauses SET told = 1 WHERE session_id = ?', sessionId)
    })
    this.untold.delete(sessionId)
  }
}
