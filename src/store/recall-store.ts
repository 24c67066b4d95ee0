/**
 * RecallStore: the ledger of per-turn recall — which facts each user message was given, what the block cost in
 * characters and time — for the turn's card and for status. It is bookkeeping, not memory: writing it changes no fact,
 * so it never moves the generation, and a page's next edit is not refused as stale because a turn recalled something.
 */
import type { Database } from './database.ts'
import { placeholders } from './fact-rows.ts'

/** Rows the ledger keeps; older ones are pruned as new ones arrive. */
export const RECALL_LOG_KEEP = 5000

/** One recall as logged. */
export interface RecallRecord {
  readonly sessionId: string
  readonly turn: number | null
  /** The block's message id in the session; null when nothing was recalled. */
  readonly messageId: string | null
  readonly recalledAt: string
  readonly factIds: readonly number[]
  readonly chars: number
  readonly elapsedMs: number
  readonly channels: readonly string[]
  readonly degraded: readonly string[]
}

/** What recent recalls cost, per user message. */
export interface RecallCost {
  /** Recalls in the sample (the latest ones). */
  readonly turns: number
  /** Of those, how many added a block. */
  readonly withBlock: number
  readonly factsPerTurn: number
  readonly charsPerTurn: number
  /** The 95th percentile of the time a recall took, in ms. */
  readonly p95Ms: number
  /** When the latest recall ran, or null. */
  readonly lastAt: string | null
}

/** Synchronous reads and ledger writes of per-turn recall. */
export class RecallStore {
  private readonly db: Database

  /** @param db - an open, migrated database. */
  constructor(db: Database) {
    this.db = db
  }

  /**
   * Log one recall (and prune the ledger to its last {@link RECALL_LOG_KEEP} rows); never bumps the generation.
   * @param record - the recall.
   */
  record(record: RecallRecord): void {
    this.db.ledger(() => {
      const { lastInsertRowid } = this.db.run(
        `INSERT INTO recall_log (session_id, turn, message_id, recalled_at, fact_ids, chars, elapsed_ms, channels, degraded)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        record.sessionId,
        record.turn,
        record.messageId,
        record.recalledAt,
        JSON.stringify(record.factIds),
        Math.max(0, Math.round(record.chars)),
        Math.max(0, record.elapsedMs),
        JSON.stringify(record.channels),
        JSON.stringify(record.degraded),
      )
      this.db.run('DELETE FROM recall_log WHERE id <= ?', lastInsertRowid - RECALL_LOG_KEEP)
    })
  }

  /**
   * The facts recalled per turn of some sessions, in turn order (a turn that recalled twice lists both, once each).
   * @param sessionIds - the sessions.
   * @returns session id → turn → fact ids; turns that recalled nothing are left out.
   */
  recalledByTurn(sessionIds: readonly string[]): Map<string, Map<number | null, number[]>> {
    const out = new Map<string, Map<number | null, number[]>>()
    if (sessionIds.length === 0) return out
    for (const row of this.db.all(
      `SELECT session_id, turn, fact_ids FROM recall_log WHERE session_id IN (${placeholders(sessionIds.length)}) AND chars > 0 ORDER BY id`,
      ...sessionIds,
    )) {
      const sessionId = String(row['session_id'])
      const turn = row['turn'] === null ? null : Number(row['turn'])
      const bySession = out.get(sessionId) ?? new Map<number | null, number[]>()
      out.set(sessionId, bySession)
      const ids = bySession.get(turn) ?? []
      for (const id of JSON.parse(String(row['fact_ids'])) as number[]) if (!ids.includes(id)) ids.push(id)
      bySession.set(turn, ids)
    }
    return out
  }

  /**
   * The facts earlier blocks of a session listed, of those blocks still in the model's view.
   * @param sessionId - the session.
   * @param messageIds - ids of the session's recall messages in its current model history.
   * @returns the fact ids they listed.
   */
  recalledInView(sessionId: string, messageIds: readonly string[]): Set<number> {
    const ids = new Set<number>()
    for (let start = 0; start < messageIds.length; start += 400) {
      const part = messageIds.slice(start, start + 400)
      for (const row of this.db.all(
        `SELECT fact_ids FROM recall_log WHERE message_id IN (${placeholders(part.length)}) AND session_id = ?`,
        ...part,
        sessionId,
      )) {
        for (const id of JSON.parse(String(row['fact_ids'])) as number[]) ids.add(id)
      }
    }
    return ids
  }

  /**
   * What the latest recalls cost.
   * @param sample - how many of the latest recalls to average.
   * @returns the averages; zeros when nothing was recalled yet.
   */
  cost(sample: number): RecallCost {
    const rows = this.db.all(
      `SELECT recalled_at, fact_ids, chars, elapsed_ms FROM recall_log ORDER BY id DESC LIMIT ?`,
      sample,
    )
    const turns = rows.length
    if (turns === 0) return { turns: 0, withBlock: 0, factsPerTurn: 0, charsPerTurn: 0, p95Ms: 0, lastAt: null }
    const facts = rows.reduce((sum, row) => sum + (JSON.parse(String(row['fact_ids'])) as unknown[]).length, 0)
    const chars = rows.reduce((sum, row) => sum + Number(row['chars']), 0)
    const times = rows.map((row) => Number(row['elapsed_ms'])).sort((a, b) => a - b)
    return {
      turns,
      withBlock: rows.filter((row) => Number(row['chars']) > 0).length,
      factsPerTurn: round(facts / turns),
      charsPerTurn: Math.round(chars / turns),
      p95Ms: round(times[Math.min(turns - 1, Math.floor(0.95 * turns))] ?? 0),
      lastAt: String(rows[0]?.['recalled_at'] ?? '') || null,
    }
  }
}

function round(value: number): number {
  return Math.round(value * 10) / 10
}
