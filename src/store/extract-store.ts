/**
 * ExtractStore: the extraction ledger — each session's cursor, the log of passes and the ranges parked after
 * repeated failures (until a retry reads them). Every write here is bookkeeping outside the user's memory, so it goes
 * through `Database.ledger` and never bumps the generation. The log is a diagnostic, never a home for a secret: each
 * run, and each parked range's error, is masked before it is stored.
 */
import { MASK, maskCredentials, scanPrivacy } from '../text/privacy.ts'
import { numberOrNull, type Row, textOrNull } from './connection.ts'
import type { Database } from './database.ts'

/** The longest text a run keeps of what it sent: a diagnostic, not a second copy of the chat. */
export const RUN_TEXT_CAP = 20_000
/** Runs kept in the log; older ones are pruned as new ones arrive. */
export const RUN_LOG_KEEP = 500

/** How a pass was started. */
export type ExtractTrigger = 'turn' | 'manual' | 'flush'
/** How a pass ended. */
export type ExtractDecision = 'extracted' | 'skipped' | 'failed' | 'parked'

/** A candidate that did not land, as the log shows it. */
export interface RefusedCandidate {
  readonly reason: string
  readonly subject?: string | undefined
  readonly property?: string | undefined
  readonly value?: string | undefined
}

/** One pass, as recorded. */
export interface ExtractRunRecord {
  readonly sessionId: string | null
  readonly trigger: ExtractTrigger
  readonly decision: ExtractDecision
  readonly startSeq: number | null
  readonly endSeq: number | null
  readonly turns: readonly number[]
  readonly messageCount: number
  readonly chunkCount: number
  readonly chars: number
  readonly textSha256: string | null
  /** The text sent to the model (capped when stored); null when no model was called. */
  readonly textSent: string | null
  readonly model: string | null
  readonly attempt: number
  readonly written: number
  readonly review: number
  readonly refused: readonly RefusedCandidate[]
  readonly factIds: readonly number[]
  readonly proposalIds: readonly number[]
  readonly note: string | null
  readonly error: string | null
  readonly startedAt: string
  readonly finishedAt: string
  readonly durationMs: number
}

/** A recorded pass with its id. */
export interface ExtractRun extends ExtractRunRecord {
  readonly id: number
}

/** A range parked after repeated failures. */
export interface PendingRange {
  readonly id: number
  readonly sessionId: string
  readonly startSeq: number
  readonly endSeq: number
  readonly turns: readonly number[]
  readonly textSha256: string
  readonly attempts: number
  readonly lastError: string
  readonly parkedAt: string
  readonly resolvedAt: string | null
}

const RUN_COLUMNS = `id, session_id, trigger, decision, start_seq, end_seq, turns, message_count, chunk_count, chars,
  text_sha256, text_sent, model, attempt, written, review, refused, fact_ids, proposal_ids, note, error, started_at,
  finished_at, duration_ms`

/** Synchronous access to the extraction ledger. */
export class ExtractStore {
  private readonly db: Database

  /** @param db - an open, migrated database. */
  constructor(db: Database) {
    this.db = db
  }

  /**
   * Where a session's extraction starts next.
   * @param sessionId - the session.
   * @returns the next seq, or undefined when the session was never extracted.
   */
  cursor(sessionId: string): number | undefined {
    const row = this.db.get('SELECT next_seq FROM extract_cursors WHERE session_id = ?', sessionId)
    return row === undefined ? undefined : Number(row['next_seq'])
  }

  /**
   * Move a session's cursor forward; a cursor never moves back.
   * @param sessionId - the session.
   * @param nextSeq - the first seq not yet covered.
   * @param now - ISO instant.
   */
  advance(sessionId: string, nextSeq: number, now: string): void {
    this.db.ledger(() =>
      this.db.run(
        `INSERT INTO extract_cursors (session_id, next_seq, updated_at) VALUES (?, ?, ?)
        ON CONFLICT (session_id) DO UPDATE SET next_seq = max(next_seq, excluded.next_seq), updated_at = excluded.updated_at`,
        sessionId,
        nextSeq,
        now,
      ),
    )
  }

  /**
   * Log a pass (and prune the log to its last {@link RUN_LOG_KEEP} rows).
   * @param run - the pass.
   * @returns its id.
   */
  record(run: ExtractRunRecord): number {
    return this.db.ledger(() => {
      // Masked before the cap, so a cut cannot leave half a secret the patterns no longer recognise.
      const masked = maskRun(run)
      const text = masked.textSent === null ? null : masked.textSent.slice(0, RUN_TEXT_CAP)
      const { lastInsertRowid } = this.db.run(
        `INSERT INTO extract_runs (session_id, trigger, decision, start_seq, end_seq, turns, message_count, chunk_count, chars,
          text_sha256, text_sent, model, attempt, written, review, refused, fact_ids, proposal_ids, note, error, started_at,
          finished_at, duration_ms, masked) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`,
        run.sessionId,
        run.trigger,
        run.decision,
        run.startSeq,
        run.endSeq,
        JSON.stringify(run.turns),
        run.messageCount,
        run.chunkCount,
        run.chars,
        run.textSha256,
        text,
        run.model,
        run.attempt,
        run.written,
        run.review,
        JSON.stringify(masked.refused),
        JSON.stringify(run.factIds),
        JSON.stringify(run.proposalIds),
        masked.note,
        masked.error,
        run.startedAt,
        run.finishedAt,
        Math.max(0, Math.round(run.durationMs)),
      )
      this.db.run('DELETE FROM extract_runs WHERE id <= ?', lastInsertRowid - RUN_LOG_KEEP)
      return lastInsertRowid
    })
  }

  /**
   * Mask the runs logged before the log was masked (migration 0004 marks them), once: their refused candidates and
   * the text, note and error they kept go through the same masking as a new run.
   * @returns how many runs were masked.
   */
  maskOldRuns(): number {
    return this.db.ledger(() => {
      const rows = this.db.all('SELECT id, refused, text_sent, note, error FROM extract_runs WHERE masked = 0')
      for (const row of rows) {
        const masked = maskRun({
          refused: refusedOf(row['refused']),
          textSent: textOrNull(row['text_sent']),
          note: textOrNull(row['note']),
          error: textOrNull(row['error']),
        })
        this.db.run(
          'UPDATE extract_runs SET refused = ?, text_sent = ?, note = ?, error = ?, masked = 1 WHERE id = ?',
          JSON.stringify(masked.refused),
          masked.textSent,
          masked.note,
          masked.error,
          Number(row['id']),
        )
      }
      return rows.length
    })
  }

  /**
   * The newest passes, without the text they sent.
   * @param limit - how many.
   * @returns newest first.
   */
  recent(limit: number): ExtractRun[] {
    return this.db
      .all(
        `SELECT ${RUN_COLUMNS.replace('text_sent', 'NULL AS text_sent')} FROM extract_runs ORDER BY id DESC LIMIT ?`,
        limit,
      )
      .map(toRun)
  }

  /**
   * One pass with the text it sent.
   * @param id - the run id.
   * @returns the run, or undefined.
   */
  run(id: number): ExtractRun | undefined {
    const row = this.db.get(`SELECT ${RUN_COLUMNS} FROM extract_runs WHERE id = ?`, id)
    return row === undefined ? undefined : toRun(row)
  }

  /**
   * The passes of one session, oldest first, without their text (the turn cards ask whether a turn was read).
   * @param sessionId - the session.
   * @returns its runs.
   */
  forSession(sessionId: string): ExtractRun[] {
    return this.db
      .all(
        `SELECT ${RUN_COLUMNS.replace('text_sent', 'NULL AS text_sent')} FROM extract_runs WHERE session_id = ? ORDER BY id`,
        sessionId,
      )
      .map(toRun)
  }

  /**
   * Park a range that failed repeatedly and move the cursor past it, in one transaction.
   * @param range - the range and what went wrong.
   * @param now - ISO instant.
   * @returns the pending item's id.
   */
  park(range: Omit<PendingRange, 'id' | 'parkedAt' | 'resolvedAt'>, now: string): number {
    return this.db.ledger(() => {
      const { lastInsertRowid } = this.db.run(
        `INSERT INTO extract_pending (session_id, start_seq, end_seq, turns, text_sha256, attempts, last_error, parked_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        range.sessionId,
        range.startSeq,
        range.endSeq,
        JSON.stringify(range.turns),
        range.textSha256,
        range.attempts,
        maskCredentials(range.lastError),
        now,
      )
      this.advance(range.sessionId, range.endSeq, now)
      return lastInsertRowid
    })
  }

  /**
   * Ranges parked and not yet resolved.
   * @returns oldest first.
   */
  pending(): PendingRange[] {
    return this.db.all('SELECT * FROM extract_pending WHERE resolved_at IS NULL ORDER BY id').map(toPending)
  }

  /**
   * One parked range.
   * @param id - its id.
   * @returns the range, or undefined.
   */
  pendingById(id: number): PendingRange | undefined {
    const row = this.db.get('SELECT * FROM extract_pending WHERE id = ?', id)
    return row === undefined ? undefined : toPending(row)
  }

  /**
   * Mark a parked range as dealt with (a later retry read it).
   * @param id - its id.
   * @param now - ISO instant.
   * @returns true when the range was still parked; false when it was resolved already or never existed.
   */
  resolve(id: number, now: string): boolean {
    return this.db.ledger(
      () =>
        this.db.run('UPDATE extract_pending SET resolved_at = ? WHERE id = ? AND resolved_at IS NULL', now, id)
          .changes > 0,
    )
  }

  /**
   * Record a retry of a parked range that failed again: one more attempt and its error, and the range narrowed to
   * what is still unread (a retry that read its first segments before failing moves the start past them). The range
   * stays parked; nothing of it is dropped.
   * @param id - its id.
   * @param retry - the first seq still unread, the hash of the text from there, and the error (masked when stored).
   * @returns true when the range was still parked.
   */
  retryFailed(
    id: number,
    retry: { readonly startSeq: number; readonly textSha256: string; readonly error: string },
  ): boolean {
    return this.db.ledger(
      () =>
        this.db.run(
          `UPDATE extract_pending SET attempts = attempts + 1, last_error = ?,
        text_sha256 = CASE WHEN ? > start_seq AND ? <= end_seq THEN ? ELSE text_sha256 END,
        start_seq = CASE WHEN ? > start_seq AND ? <= end_seq THEN ? ELSE start_seq END
        WHERE id = ? AND resolved_at IS NULL`,
          maskCredentials(retry.error),
          retry.startSeq,
          retry.startSeq,
          retry.textSha256,
          retry.startSeq,
          retry.startSeq,
          retry.startSeq,
          id,
        ).changes > 0,
    )
  }
}

/**
 * A refused candidate as the log may keep it: its value masked whole when the store refused it as a credential or
 * it looks like one for its property, and any credential inside its subject, property or value masked.
 * @param entry - the refused candidate.
 * @returns its masked copy.
 */
export function maskRefusal(entry: RefusedCandidate): RefusedCandidate {
  const mask = (text: string | undefined): string | undefined =>
    text === undefined ? undefined : maskCredentials(text)
  const { value } = entry
  const secret = value !== undefined && (entry.reason === 'credential' || isCredential(entry.property, value))
  return { ...entry, subject: mask(entry.subject), property: mask(entry.property), value: secret ? MASK : mask(value) }
}

/** The parts of a run that may carry a secret, masked: each value judged a credential is masked in the text too. */
function maskRun(
  run: Pick<ExtractRunRecord, 'refused' | 'textSent' | 'note' | 'error'>,
): Pick<ExtractRunRecord, 'refused' | 'textSent' | 'note' | 'error'> {
  // Judged by the scan alone: a candidate refused for a credential in its subject may hold an ordinary value.
  const known = run.refused.flatMap((entry) =>
    entry.value !== undefined && isCredential(entry.property, entry.value) ? [entry.value] : [],
  )
  const mask = (text: string | null): string | null => (text === null ? null : maskCredentials(text, known))
  return {
    refused: run.refused.map(maskRefusal),
    textSent: mask(run.textSent),
    note: mask(run.note),
    error: mask(run.error),
  }
}

function isCredential(property: string | undefined, value: string): boolean {
  return scanPrivacy(property ?? '', value)?.sensitivity === 'credential'
}

function refusedOf(text: unknown): RefusedCandidate[] {
  const parsed: unknown = JSON.parse(String(text ?? '[]'))
  return Array.isArray(parsed) ? (parsed as RefusedCandidate[]) : []
}

function numbers(text: unknown): number[] {
  const parsed: unknown = JSON.parse(String(text ?? '[]'))
  return Array.isArray(parsed) ? parsed.filter((entry): entry is number => typeof entry === 'number') : []
}

function toRun(row: Row): ExtractRun {
  return {
    id: Number(row['id']),
    sessionId: textOrNull(row['session_id']),
    trigger: row['trigger'] as ExtractTrigger,
    decision: row['decision'] as ExtractDecision,
    startSeq: numberOrNull(row['start_seq']),
    endSeq: numberOrNull(row['end_seq']),
    turns: numbers(row['turns']),
    messageCount: Number(row['message_count']),
    chunkCount: Number(row['chunk_count']),
    chars: Number(row['chars']),
    textSha256: textOrNull(row['text_sha256']),
    textSent: textOrNull(row['text_sent']),
    model: textOrNull(row['model']),
    attempt: Number(row['attempt']),
    written: Number(row['written']),
    review: Number(row['review']),
    refused: refusedOf(row['refused']),
    factIds: numbers(row['fact_ids']),
    proposalIds: numbers(row['proposal_ids']),
    note: textOrNull(row['note']),
    error: textOrNull(row['error']),
    startedAt: String(row['started_at']),
    finishedAt: String(row['finished_at']),
    durationMs: Number(row['duration_ms']),
  }
}

function toPending(row: Row): PendingRange {
  return {
    id: Number(row['id']),
    sessionId: String(row['session_id']),
    startSeq: Number(row['start_seq']),
    endSeq: Number(row['end_seq']),
    turns: numbers(row['turns']),
    textSha256: String(row['text_sha256']),
    attempts: Number(row['attempts']),
    lastError: String(row['last_error']),
    parkedAt: String(row['parked_at']),
    resolvedAt: textOrNull(row['resolved_at']),
  }
}
