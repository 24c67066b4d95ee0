/** ProposalStore: the review queue's rows — cards of one or more proposed rows, with status and revision. */
import type { ProposedRow } from '../types.ts'
import type { Database } from './database.ts'
import { numberOrNull, type Row, textOrNull } from './connection.ts'

/** Lifecycle of a proposal card. */
export type ProposalStatus = 'pending' | 'applied' | 'rejected' | 'stale'

/** Kinds of change a card proposes. */
export type ProposalKind = 'add_fact' | 'merge' | 'retire' | 'fold' | 'alias'

/** One proposal card. */
export interface Proposal {
  readonly id: number
  readonly fingerprint: string
  readonly kind: ProposalKind
  readonly status: ProposalStatus
  readonly reason: string
  readonly revision: number
  readonly rows: readonly ProposedRow[]
  readonly sessionId: string | null
  readonly turn: number | null
  readonly createdAt: string
  readonly updatedAt: string
  readonly decidedAt: string | null
}

const COLUMNS = 'id, fingerprint, kind, status, reason, revision, rows, session_id, turn, created_at, updated_at, decided_at'

/** Synchronous CRUD over proposal cards. */
export class ProposalStore {
  private readonly db: Database

  /** @param db - an open, migrated database. */
  constructor(db: Database) {
    this.db = db
  }

  /**
   * Cards, newest first.
   * @param status - one status, or undefined for all.
   * @param beforeId - cursor: cards with a smaller id.
   * @param limit - page size.
   * @returns the cards and whether more follow.
   */
  list(status: ProposalStatus | undefined, beforeId: number | undefined, limit: number): { proposals: Proposal[]; more: boolean } {
    const rows = this.db.all(
      `SELECT ${COLUMNS} FROM proposals WHERE (? IS NULL OR status = ?) AND (? IS NULL OR id < ?) ORDER BY id DESC LIMIT ?`,
      status ?? null, status ?? null, beforeId ?? null, beforeId ?? null, limit + 1)
    return { proposals: rows.slice(0, limit).map(toProposal), more: rows.length > limit }
  }

  /** One card, or undefined. */
  get(id: number): Proposal | undefined {
    const row = this.db.get(`SELECT ${COLUMNS} FROM proposals WHERE id = ?`, id)
    return row === undefined ? undefined : toProposal(row)
  }

  /**
   * Decide a card.
   * @param id - the card.
   * @param status - its new status.
   * @param now - ISO instant.
   */
  setStatus(id: number, status: ProposalStatus, now: string): void {
    this.db.run(`UPDATE proposals SET status = ?, updated_at = ?, decided_at = CASE WHEN ? = 'pending' THEN NULL ELSE ? END WHERE id = ?`,
      status, now, status, now, id)
  }

  /**
   * Replace a card's rows as a new revision.
   * @param id - the card.
   * @param rows - the new rows.
   * @param now - ISO instant.
   * @returns the new revision.
   */
  revise(id: number, rows: readonly ProposedRow[], now: string): number {
    this.db.run('UPDATE proposals SET rows = ?, revision = revision + 1, updated_at = ? WHERE id = ?', JSON.stringify(rows), now, id)
    return Number(this.db.get('SELECT revision FROM proposals WHERE id = ?', id)?.['revision'] ?? 0)
  }

  /**
   * Put an applied card back in the queue (its application was undone), unless the same change has been queued
   * again on a fresh card since: the queue holds one card per change, so the applied card then stays as it is.
   * @param id - the card.
   * @param now - ISO instant.
   */
  reopen(id: number, now: string): void {
    this.db.run(`UPDATE proposals SET status = 'pending', decided_at = NULL, updated_at = ? WHERE id = ? AND status = 'applied'
      AND NOT EXISTS (SELECT 1 FROM proposals queued WHERE queued.fingerprint = proposals.fingerprint AND queued.status = 'pending')`, now, id)
  }
}

function toProposal(row: Row): Proposal {
  return {
    id: Number(row['id']),
    fingerprint: String(row['fingerprint']),
    kind: row['kind'] as ProposalKind,
    status: row['status'] as ProposalStatus,
    reason: String(row['reason']),
    revision: Number(row['revision']),
    rows: JSON.parse(String(row['rows'])) as ProposedRow[],
    sessionId: textOrNull(row['session_id']),
    turn: numberOrNull(row['turn']),
    createdAt: String(row['created_at']),
    updatedAt: String(row['updated_at']),
    decidedAt: textOrNull(row['decided_at']),
  }
}
