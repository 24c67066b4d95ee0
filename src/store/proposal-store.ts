/**
 * ProposalStore: the review queue's rows — cards of one or more proposed rows, with status and revision — and the
 * creation of the cards that change stored facts (merge, retire, fold, alias), which the review sweeps call. Rows
 * are read back through `proposal-rows.schema.ts`; a card whose rows cannot be read is listed with none. Every change
 * to a card re-indexes the changes it holds (`proposal-changes.ts`), which is what the sweeps read; decided cards are
 * pruned by age and count before each batch of review cards.
 */
import {
  batchRows,
  cardFingerprint,
  CARD_ROW_LIMIT,
  REVIEW_REASONS,
  rowKey,
  rowProblem,
} from '../rules/proposal-cards.ts'
import type {
  AliasRow,
  CardBatch,
  CardRows,
  FactRef,
  FoldRow,
  MergeRow,
  ProposalKind,
  ProposedRow,
  RetireRow,
  ReviewKind,
} from '../types.ts'
import type { Database } from './database.ts'
import { numberOrNull, type Row, textOrNull } from './connection.ts'
import { ensureIndexed, indexCard, knownChanges, pruneDecided } from './proposal-changes.ts'
import { parseStoredRows, storedRowsText } from './proposal-rows.schema.ts'

export type { ProposalKind } from '../types.ts'

/** Lifecycle of a proposal card. */
export type ProposalStatus = 'pending' | 'applied' | 'rejected' | 'stale'

/** What every card carries, whatever its kind. */
interface CardBase {
  readonly id: number
  readonly fingerprint: string
  readonly status: ProposalStatus
  readonly reason: string
  readonly revision: number
  /** Where the card sits in a longer list (n of m), or null. */
  readonly batch: CardBatch | null
  /** Why the stored rows could not be read (the card then lists none), or null. */
  readonly unreadable: string | null
  readonly sessionId: string | null
  readonly turn: number | null
  readonly createdAt: string
  readonly updatedAt: string
  readonly decidedAt: string | null
}

/** A card of one kind, with that kind's rows. */
export type ProposalOf<K extends ProposalKind> = CardBase & { readonly kind: K; readonly rows: readonly CardRows[K][] }

/** One proposal card. */
export type Proposal = { [K in ProposalKind]: ProposalOf<K> }[ProposalKind]

/** What proposing a list of review rows did. */
export interface ProposedCards {
  /** The cards created, in order. */
  readonly cards: readonly { readonly id: number; readonly batch: CardBatch | null; readonly rows: number }[]
  /** Rows (by index in the list) not queued because a pending card already holds the same change. */
  readonly queued: readonly { readonly row: number; readonly proposalId: number }[]
  /** Rows not queued because the user declined the same change before: rejected its card, or struck it from one. */
  readonly declined: readonly { readonly row: number; readonly proposalId: number }[]
  /** Rows that make no sense (a fact merged into itself, a change listed twice, …), with why. */
  readonly invalid: readonly { readonly row: number; readonly problem: string }[]
}

const COLUMNS =
  'id, fingerprint, kind, status, reason, revision, rows, session_id, turn, created_at, updated_at, decided_at'

/** Synchronous CRUD over proposal cards. */
export class ProposalStore {
  private readonly db: Database

  /**
   * @param db - an open, migrated database; the index of held changes is filled if the store predates it
   *   (bookkeeping: it never moves the generation).
   */
  constructor(db: Database) {
    this.db = db
    ensureIndexed(db)
  }

  /**
   * Delete decided cards past their keep (see `proposal-changes.ts`); what the user declined stays remembered.
   * @param now - ISO instant.
   * @returns how many cards went.
   */
  pruneDecided(now: string): number {
    return this.db.ledger(() => pruneDecided(this.db, now))
  }

  /**
   * Cards, newest first.
   * @param status - one status, or undefined for all.
   * @param beforeId - cursor: cards with a smaller id.
   * @param limit - page size.
   * @returns the cards and whether more follow.
   */
  list(
    status: ProposalStatus | undefined,
    beforeId: number | undefined,
    limit: number,
  ): { proposals: Proposal[]; more: boolean } {
    const rows = this.db.all(
      `SELECT ${COLUMNS} FROM proposals WHERE (? IS NULL OR status = ?) AND (? IS NULL OR id < ?) ORDER BY id DESC LIMIT ?`,
      status ?? null,
      status ?? null,
      beforeId ?? null,
      beforeId ?? null,
      limit + 1,
    )
    return { proposals: rows.slice(0, limit).map(toProposal), more: rows.length > limit }
  }

  /**
   * How many cards there are, on every page together.
   * @param status - one status, or undefined for all.
   * @param createdAfter - an ISO instant: count only the cards queued after it.
   * @returns the count.
   */
  count(status: ProposalStatus | undefined, createdAfter?: string): number {
    // Plain conditions (no `? IS NULL OR`), so a status count walks proposals_by_status (status, created_at).
    const where: string[] = []
    const params: string[] = []
    if (status !== undefined) {
      where.push('status = ?')
      params.push(status)
    }
    if (createdAfter !== undefined) {
      where.push('created_at > ?')
      params.push(createdAfter)
    }
    const row = this.db.get(
      `SELECT count(*) AS n FROM proposals${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`}`,
      ...params,
    )
    return Number(row?.['n'] ?? 0)
  }

  /** One card, or undefined. */
  get(id: number): Proposal | undefined {
    const row = this.db.get(`SELECT ${COLUMNS} FROM proposals WHERE id = ?`, id)
    return row === undefined ? undefined : toProposal(row)
  }

  /**
   * Queue merges of near-duplicates (the near-duplicate review): keep `keeper`, retire `loser` as superseded by it and
   * move its sources to it. The caller decides the keeper.
   * @param rows - the pairs, at the revisions the review saw.
   * @param now - ISO instant.
   * @param limit - rows per card.
   * @returns the cards created and the rows left out.
   */
  proposeMerges(rows: readonly MergeRow[], now: string, limit = CARD_ROW_LIMIT): ProposedCards {
    return this.proposeReview('merge', rows, now, limit)
  }

  /**
   * Queue retiring facts that only restate their own property (the health check).
   * @param rows - the facts, at the revisions the sweep saw.
   * @param now - ISO instant.
   * @param limit - rows per card.
   * @returns the cards created and the rows left out.
   */
  proposeRetires(rows: readonly RetireRow[], now: string, limit = CARD_ROW_LIMIT): ProposedCards {
    return this.proposeReview('retire', rows, now, limit)
  }

  /**
   * Queue folding pipelines into their newest run (the health check): one row per pipeline.
   * @param rows - each survivor with the runs it absorbs, at the revisions the sweep saw.
   * @param now - ISO instant.
   * @param limit - rows per card.
   * @returns the cards created and the rows left out.
   */
  proposeFolds(rows: readonly FoldRow[], now: string, limit = CARD_ROW_LIMIT): ProposedCards {
    return this.proposeReview('fold', rows, now, limit)
  }

  /**
   * Queue aliasing fragment entities into their canonical ones (the health check): one row per fragment, listing
   * every fact of it that was not forgotten.
   * @param rows - fragment and canonical entity keys with the fragment's facts, at the revisions the sweep saw.
   * @param now - ISO instant.
   * @param limit - rows per card.
   * @returns the cards created and the rows left out.
   */
  proposeAliases(rows: readonly AliasRow[], now: string, limit = CARD_ROW_LIMIT): ProposedCards {
    return this.proposeReview('alias', rows, now, limit)
  }

  /**
   * Queue rows of one review kind as aggregated cards of at most `limit` rows, numbered n/m when there are several,
   * in one transaction. A row whose change a pending card already holds, or that the user declined before (rejected
   * its card, or struck it from one), is left out and reported, as is a row that makes no sense.
   * @param kind - the kind.
   * @param rows - the rows, in the order the cards should list them.
   * @param now - ISO instant.
   * @param limit - rows per card.
   * @param reason - why the cards exist; the kind's usual reason unless given.
   * @returns the cards created and the rows left out.
   */
  proposeReview<K extends ReviewKind>(
    kind: K,
    rows: readonly CardRows[K][],
    now: string,
    limit = CARD_ROW_LIMIT,
    reason: string = REVIEW_REASONS[kind],
  ): ProposedCards {
    this.pruneDecided(now)
    return this.db.transaction(() => {
      const known = knownChanges(
        this.db,
        kind,
        rows.map((row) => rowKey(kind, row)),
      )
      const queued: { row: number; proposalId: number }[] = []
      const declined: { row: number; proposalId: number }[] = []
      const invalid: { row: number; problem: string }[] = []
      const seen = new Set<string>()
      const fresh: CardRows[K][] = []
      rows.forEach((row, index) => {
        const problem = rowProblem(kind, row)
        const key = rowKey(kind, row)
        if (problem !== undefined) invalid.push({ row: index, problem })
        else if (seen.has(key)) invalid.push({ row: index, problem: 'the list names this change twice' })
        else if (known.pending.has(key)) queued.push({ row: index, proposalId: known.pending.get(key) ?? 0 })
        else if (known.declined.has(key)) declined.push({ row: index, proposalId: known.declined.get(key) ?? 0 })
        else fresh.push(row)
        seen.add(key)
      })
      const cards = batchRows(fresh, limit).map(({ rows: cardRows, batch }) => {
        const id = this.db.run(
          `INSERT INTO proposals (fingerprint, kind, status, reason, rows, created_at, updated_at) VALUES (?, ?, 'pending', ?, ?, ?, ?)`,
          cardFingerprint(kind, cardRows),
          kind,
          reason,
          storedRowsText(kind, cardRows, batch),
          now,
          now,
        ).lastInsertRowid
        indexCard(this.db, id)
        return { id, batch, rows: cardRows.length }
      })
      return { cards, queued, declined, invalid }
    })
  }

  /**
   * Decide a card.
   * @param id - the card.
   * @param status - its new status.
   * @param now - ISO instant.
   */
  setStatus(id: number, status: ProposalStatus, now: string): void {
    this.db.transaction(() => {
      this.db.run(
        `UPDATE proposals SET status = ?, updated_at = ?, decided_at = CASE WHEN ? = 'pending' THEN NULL ELSE ? END WHERE id = ?`,
        status,
        now,
        status,
        now,
        id,
      )
      indexCard(this.db, id)
    })
  }

  /**
   * Replace a card's rows as a new revision; the card keeps its place in a longer list.
   * @param card - the card as read.
   * @param rows - the new rows.
   * @param now - ISO instant.
   * @param struck - keys of rows the user struck out, remembered so the same change is not proposed again.
   * @returns the new revision.
   */
  revise<K extends ProposalKind>(
    card: ProposalOf<K>,
    rows: readonly CardRows[K][],
    now: string,
    struck: readonly string[] = [],
  ): number {
    const text = storedRowsText(card.kind, rows, card.batch, [...this.struckOf(card.id), ...struck])
    return this.db.transaction(() => {
      this.db.run(
        'UPDATE proposals SET rows = ?, revision = revision + 1, updated_at = ? WHERE id = ?',
        text,
        now,
        card.id,
      )
      indexCard(this.db, card.id)
      return Number(this.db.get('SELECT revision FROM proposals WHERE id = ?', card.id)?.['revision'] ?? 0)
    })
  }

  /**
   * Point a card's rows at the revisions an undo left its facts at. The undo put those facts back exactly as the
   * card's apply found them, so a target the card saw at that revision (`from`) is standing again, at `to`; any other
   * target keeps the revision it had, and a row that was stale stays stale.
   * @param id - the card.
   * @param revisions - fact id → the revision the apply found it at, and the revision after the undo.
   * @param now - ISO instant.
   */
  retarget(
    id: number,
    revisions: ReadonlyMap<number, { readonly from: number; readonly to: number }>,
    now: string,
  ): void {
    const card = this.get(id)
    if (card === undefined || card.unreadable !== null) return
    const ref = (target: FactRef): FactRef => {
      const moved = revisions.get(target.factId)
      return moved !== undefined && moved.from === target.revision
        ? { factId: target.factId, revision: moved.to }
        : target
    }
    const text = retargeted(card, ref, this.struckOf(id))
    this.db.transaction(() => {
      this.db.run('UPDATE proposals SET rows = ?, updated_at = ? WHERE id = ?', text, now, id)
      indexCard(this.db, id)
    })
  }

  /**
   * Put an applied card back in the queue (its application was undone), unless the same change has been queued
   * again on a fresh card since: the queue holds one card per change, so the applied card then stays as it is.
   * @param id - the card.
   * @param now - ISO instant.
   * @returns whether the card is pending again.
   */
  reopen(id: number, now: string): boolean {
    return this.db.transaction(() => {
      const reopened =
        this.db.run(
          `UPDATE proposals SET status = 'pending', decided_at = NULL, updated_at = ? WHERE id = ? AND status = 'applied'
        AND NOT EXISTS (SELECT 1 FROM proposals queued WHERE queued.fingerprint = proposals.fingerprint AND queued.status = 'pending')`,
          now,
          id,
        ).changes > 0
      if (reopened) indexCard(this.db, id)
      return reopened
    })
  }

  /**
   * Of the given changes of one review kind, those a card already holds or the user declined: proposing them again
   * would make nothing. Read from the index, never from the cards.
   * @param kind - the kind.
   * @param keys - the row keys asked about (see rowKey).
   * @returns those of them held or declined.
   */
  heldChanges(kind: ReviewKind, keys: readonly string[]): Set<string> {
    const known = knownChanges(this.db, kind, keys)
    return new Set([...known.pending.keys(), ...known.declined.keys()])
  }

  private struckOf(id: number): readonly string[] {
    const row = this.db.get('SELECT kind, rows FROM proposals WHERE id = ?', id)
    if (row === undefined) return []
    const stored = parseStoredRows(row['kind'] as ProposalKind, String(row['rows']))
    return stored.ok ? stored.struck : []
  }
}

function retargeted(card: Proposal, ref: (target: FactRef) => FactRef, struck: readonly string[]): string {
  switch (card.kind) {
    case 'add_fact':
      return storedRowsText(
        'add_fact',
        card.rows.map((row): ProposedRow => ({ ...row, targets: row.targets.map(ref) })),
        null,
      )
    case 'merge':
      return storedRowsText(
        'merge',
        card.rows.map((row) => ({ keeper: ref(row.keeper), loser: ref(row.loser) })),
        card.batch,
        struck,
      )
    case 'retire':
      return storedRowsText(
        'retire',
        card.rows.map((row) => ({ fact: ref(row.fact) })),
        card.batch,
        struck,
      )
    case 'fold':
      return storedRowsText(
        'fold',
        card.rows.map((row) => ({ survivor: ref(row.survivor), runs: row.runs.map(ref) })),
        card.batch,
        struck,
      )
    case 'alias':
      return storedRowsText(
        'alias',
        card.rows.map((row) => ({ ...row, facts: row.facts.map(ref) })),
        card.batch,
        struck,
      )
  }
}

function toProposal(row: Row): Proposal {
  const kind = row['kind'] as ProposalKind
  const stored = parseStoredRows(kind, String(row['rows']))
  return {
    id: Number(row['id']),
    fingerprint: String(row['fingerprint']),
    kind,
    status: row['status'] as ProposalStatus,
    reason: String(row['reason']),
    revision: Number(row['revision']),
    rows: stored.ok ? stored.rows : [],
    batch: stored.ok ? stored.batch : null,
    unreadable: stored.ok ? null : stored.problem,
    sessionId: textOrNull(row['session_id']),
    turn: numberOrNull(row['turn']),
    createdAt: String(row['created_at']),
    updatedAt: String(row['updated_at']),
    decidedAt: textOrNull(row['decided_at']),
  } as Proposal
}
