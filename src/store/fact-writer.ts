/**
 * FactWriter: the fact store's write path — classify a prepared write (the tombstone check, the slot decision and the
 * near-duplicate gate), apply the decision (insert, supersede, retire, fold, conflict, propose), and put back past
 * values from an export. Writes follow the slot rules of `rules/write-policy.ts`; every write is one transaction. It
 * reads through the FactReader and moves slots through the FactSlots it is given.
 */
import type { PreparedWrite } from '../fact-input.ts'
import { findRestatement, type RestatementRow, type Statement } from '../rules/near-duplicate.ts'
import { sha256 } from '../text/normalize.ts'
import type { Fact, FactId, FactStatus, ProposedRow } from '../types.ts'
import {
  decideWrite,
  evidenceRank,
  restatementApplies,
  type Restatement,
  type SlotRow,
  type WriteDecision,
} from '../rules/write-policy.ts'
import { canonicalWrite } from './alias-rows.ts'
import { addCues, storeCues } from './fact-cues.ts'
import { foldRow } from './fact-folds.ts'
import { recordProject } from './project-rows.ts'
import type { Database } from './database.ts'
import type { FactReader } from './fact-reader.ts'
import type { FactSlots } from './fact-slots.ts'
import { INSTANT, KEY, placeholders } from './fact-rows.ts'
import { declinedAddition } from './proposal-changes.ts'
import type { SyncRecorder } from './sync-recorder.ts'
import { findTombstone, tombstoneMessage } from './tombstones.ts'

/** The result of one write. */
export type WriteResult =
  | {
      readonly kind: 'saved'
      readonly fact: Fact
      readonly superseded: readonly Fact[]
      readonly retired: readonly Fact[]
    }
  | { readonly kind: 'conflict'; readonly fact: Fact; readonly rivals: readonly Fact[] }
  | {
      readonly kind: 'duplicate'
      readonly fact: Fact
      readonly upgraded: boolean
      readonly settled: boolean
      readonly superseded: readonly Fact[]
      readonly retired: readonly Fact[]
      /** Set when the write restated this fact in other words (the near-duplicate gate) rather than repeating its claim. */
      readonly restatement: Restatement | null
    }
  | {
      /** The value was the row's recurring line on another day: the row was updated in place. */
      readonly kind: 'folded'
      readonly fact: Fact
      /** The value this fold added to the row's history: its former value, or the write's own when it was older. */
      readonly prior: string
      /** Whether the row took the write's value (false: the write's date was earlier than the row's). */
      readonly tookValue: boolean
    }
  | { readonly kind: 'proposed'; readonly proposalId: number; readonly existing: boolean; readonly reason: string }
  | { readonly kind: 'refused'; readonly code: 'tombstoned' | 'refused'; readonly message: string }

/** What a write would do, decided without writing. */
export type Classification =
  | { readonly kind: 'tombstoned'; readonly message: string }
  | { readonly kind: 'decided'; readonly decision: WriteDecision }

/** A row an earlier write of a dry-run batch would create, with what the near-duplicate gate reads of it. */
export interface StagedRow extends SlotRow {
  readonly scope: string
  readonly statement: Statement
  /** A credential is compared only exactly. */
  readonly credential: boolean
}

/** The write path over facts and their satellites, under the slot rules. */
export class FactWriter {
  private readonly db: Database
  private readonly reader: FactReader
  private readonly slots: FactSlots
  private readonly recorder: SyncRecorder

  /**
   * @param db - the open, migrated database.
   * @param reader - the reads over the same database.
   * @param slots - the slot transitions over the same database.
   * @param recorder - appends the write's sync record in its transaction while sync records changes.
   */
  constructor(db: Database, reader: FactReader, slots: FactSlots, recorder: SyncRecorder) {
    this.db = db
    this.reader = reader
    this.slots = slots
    this.recorder = recorder
  }

  /**
   * Write one prepared fact under the slot rules, in one transaction.
   * @param write - the prepared write.
   * @param now - the current ISO instant.
   * @returns what happened; a claim or evidence forgotten in any scope is refused before any row is created.
   */
  write(given: PreparedWrite, now: string): WriteResult {
    return this.db.transaction(() => {
      const write = this.canonical(given)
      const verdict = this.classify(write)
      if (verdict.kind === 'tombstoned')
        return { kind: 'refused', code: 'tombstoned', message: verdict.message } as const
      const result = this.apply(write, verdict.decision, now)
      if (write.project !== null && result.kind !== 'proposed' && result.kind !== 'refused')
        recordProject(this.db, write.project, now)
      this.recordForSync(result, now)
      return result
    })
  }

  /**
   * A prepared write under its canonical names: a subject or property that is a lasting alias (a rename, a merge,
   * an accepted alias card) reads as the entity or property it names, keys recomputed. `write`, `classify` and
   * `restoreHistory` apply it first, so every write path lands on the canonical names; a caller that keys its own
   * bookkeeping by slot or claim (an import's dry run) applies it up front.
   * @param write - the prepared write.
   * @returns the write under its canonical names (the same object when it names no alias).
   */
  canonical(write: PreparedWrite): PreparedWrite {
    return canonicalWrite(this.db, write)
  }

  /**
   * Classify a prepared write without writing anything: the tombstone check and the slot decision `write` makes
   * (`write` runs exactly this before applying). For a dry run of a batch, `staged` adds the rows the batch's
   * earlier writes would have put into this slot.
   * @param write - the prepared write.
   * @param staged - current rows of the same slot that earlier writes of the batch would create; none by default.
   * @param stagedFacts - how many current rows the batch's earlier writes would create in all slots (for the
   *   near-duplicate gate's 12-fact floor); the same slot's by default.
   * @returns tombstoned (with the sentence `write` refuses with), or the decision.
   */
  classify(given: PreparedWrite, staged: readonly StagedRow[] = [], stagedFacts = staged.length): Classification {
    const write = this.canonical(given)
    const tomb = findTombstone(this.db, write)
    if (tomb !== undefined) return { kind: 'tombstoned', message: tombstoneMessage(tomb) }
    const slot: SlotRow[] = [...this.slots.slotRows(write.slotKey), ...staged]
    return { kind: 'decided', decision: decideWrite(write, slot, this.restatementOf(write, slot, staged, stagedFacts)) }
  }

  /**
   * The near-duplicate gate: the current row of the slot, in the write's scope, that the write restates in other
   * words. Asked only where a restatement may stand for a duplicate (any slot, not an exact-only write) and
   * no row holds the same claim; a credential is never compared. IDF comes from the full-text index's document counts.
   */
  private restatementOf(
    write: PreparedWrite,
    slot: readonly SlotRow[],
    staged: readonly StagedRow[],
    stagedFacts: number,
  ): Restatement | undefined {
    if (
      write.sensitivity === 'credential' ||
      !restatementApplies(write) ||
      slot.some((row) => row.claimKey === write.claimKey)
    )
      return undefined
    const rows: RestatementRow[] = [
      ...this.reader.restatementRows(write.slotKey, write.scope).map((row) => ({ id: row.id, statement: row })),
      ...staged
        .filter((row) => row.scope === write.scope && !row.credential)
        .map((row) => ({ id: row.id, statement: row.statement })),
    ]
    if (rows.length === 0) return undefined
    const match = findRestatement({ subject: write.subject, property: write.property, value: write.value }, rows, {
      currentFacts: this.reader.currentFactCount() + stagedFacts,
      statistics: (words) => ({
        documents: this.reader.indexedFactCount(),
        frequency: this.reader.termDocumentCounts(words),
      }),
    })
    return match === undefined ? undefined : { factId: match.id as FactId, similarity: match.score.cosine }
  }

  /**
   * Put back a past value from this store's own export: inserted as history (superseded, retired or expired) with
   * its validity window, outside the slot rules, since a past value competes with nothing current. The tombstone
   * check still applies.
   * @param write - the prepared write of the past value.
   * @param status - its recorded history status.
   * @param validTo - when it stopped holding.
   * @param now - the current ISO instant.
   * @returns the new row, the existing row when the same past value (claim, start and status) is already there, or the refusal.
   */
  restoreHistory(
    given: PreparedWrite,
    status: 'superseded' | 'retired' | 'expired',
    validTo: string | null,
    now: string,
  ):
    | { kind: 'restored'; fact: Fact }
    | { kind: 'duplicate'; factId: number }
    | { kind: 'tombstoned'; message: string } {
    return this.db.transaction(() => {
      const write = this.canonical(given)
      const verdict = this.classify(write)
      if (verdict.kind === 'tombstoned') return verdict
      const existing = this.db.get(
        `SELECT id FROM facts WHERE slot_key = ${KEY} AND status = ? AND claim_key = ${KEY} AND valid_from = ${INSTANT}`,
        write.slotKey,
        status,
        write.claimKey,
        write.validFrom,
      )
      if (existing !== undefined) return { kind: 'duplicate', factId: Number(existing['id']) } as const
      const id = this.insertFact(write, status, write.multi, null, now)
      this.db.run(`UPDATE facts SET valid_to = ${INSTANT} WHERE id = ?`, validTo, id)
      if (write.project !== null) recordProject(this.db, write.project, now)
      const [fact] = this.reader.getFacts([id])
      if (fact === undefined) throw new Error(`fact ${id} vanished inside its own transaction`)
      this.recorder.recordPutBack(fact, now)
      return { kind: 'restored', fact } as const
    })
  }

  /**
   * Whether a past value (claim, start and history status) is already stored.
   * @returns true when such a row exists.
   */
  hasHistory(slotKey: string, claimKey: string, validFrom: string, status: FactStatus): boolean {
    // Read on the slot's stretch of facts_by_slot: a claim's rows all lie in its slot.
    return (
      this.db.get(
        `SELECT 1 AS found FROM facts WHERE slot_key = ${KEY} AND status = ? AND claim_key = ${KEY} AND valid_from = ${INSTANT}`,
        slotKey,
        status,
        claimKey,
        validFrom,
      ) !== undefined
    )
  }

  /**
   * Insert one row as given, outside the slot rules: the sync applier's write path, for a row whose status the merged
   * outcome of every device's records decided (sync/merge.ts). The caller has run the gates (canonical names,
   * tombstones, credentials) and runs it inside its transaction. Nothing is recorded for sync.
   * @param write - the prepared write, under its canonical names.
   * @param status - the row's status.
   * @param multi - whether the slot is multi-valued.
   * @param now - ISO instant.
   * @returns the new row's id.
   */
  insertRow(write: PreparedWrite, status: FactStatus, multi: boolean, now: string): FactId {
    const id = this.insertFact(write, status, multi, null, now)
    if (write.project !== null) recordProject(this.db, write.project, now)
    return id
  }

  /** The write's sync record (a value stated, with what it ended), in the write's transaction; none for a card or a refusal. */
  private recordForSync(result: WriteResult, now: string): void {
    switch (result.kind) {
      case 'saved':
      case 'duplicate':
        this.recorder.recordWrite(
          result.fact,
          [
            ...result.superseded.map((fact) => ({ fact, as: 'superseded' as const })),
            ...result.retired.map((fact) => ({ fact, as: 'retired' as const })),
          ],
          now,
        )
        return
      case 'conflict':
        this.recorder.recordWrite(result.fact, [], now)
        return
      case 'folded':
        // The row's former value, when the write took its place, is now one of its prior lines.
        this.recorder.recordWrite(
          result.fact,
          result.tookValue && result.prior !== result.fact.value
            ? [{ fact: { ...result.fact, value: result.prior }, as: 'folded' }]
            : [],
          now,
        )
        return
      case 'proposed':
      case 'refused':
        return
    }
  }

  private apply(write: PreparedWrite, decision: WriteDecision, now: string): WriteResult {
    switch (decision.kind) {
      case 'propose':
        return this.propose(write, decision.reason, now)
      case 'duplicate': {
        const upgraded = decision.upgradeTo !== undefined
        if (upgraded) {
          this.db.run(
            `UPDATE facts SET evidence_rank = ?, revision = revision + 1, updated_at = ${INSTANT} WHERE id = ?`,
            evidenceRank(decision.upgradeTo),
            now,
            decision.factId,
          )
          if (write.quote !== null) this.carryQuote(decision.factId, write)
        }
        this.db.run(
          `UPDATE facts SET observed_at = ${INSTANT} WHERE id = ? AND observed_at < ${INSTANT}`,
          now,
          decision.factId,
          now,
        )
        // A repeat may bring cues the row lacks: they are the writer's words for later requests, not a new claim.
        addCues(this.db, decision.factId, write.cues)
        this.addSource(decision.factId, write, now)
        if (decision.promoteNow) {
          this.db.run(
            `UPDATE facts SET valid_from = ${INSTANT}, revision = revision + 1, updated_at = ${INSTANT} WHERE id = ?`,
            write.validFrom,
            now,
            decision.factId,
          )
          const [scheduled] = this.reader.getFacts([decision.factId])
          if (scheduled !== undefined) this.slots.promote(scheduled, now)
        }
        let superseded: Fact[] = []
        let retired: Fact[] = []
        if (decision.settle !== undefined) {
          // The old value leaves the current set first, so the one-active-per-slot index never sees two.
          superseded = this.slots.supersede(decision.settle.supersede, decision.factId, now)
          retired = this.slots.retire(decision.settle.retire, now)
          this.slots.closeGroups(decision.settle.closeGroups, decision.factId, now)
          this.db.run(
            `UPDATE facts SET status = 'active', revision = revision + 1, updated_at = ${INSTANT}
            WHERE id = ? AND status = 'conflict'`,
            now,
            decision.factId,
          )
        }
        const [fact] = this.reader.getFacts([decision.factId])
        if (fact === undefined) throw new Error(`fact ${decision.factId} vanished inside its own transaction`)
        return {
          kind: 'duplicate',
          fact,
          upgraded,
          settled: decision.settle !== undefined,
          superseded,
          retired,
          restatement: decision.restatement ?? null,
        }
      }
      case 'fold': {
        const [target] = this.reader.getFacts([decision.factId])
        if (target === undefined) throw new Error(`fact ${decision.factId} vanished inside its own transaction`)
        foldRow(this.db, target, write, decision.takesValue, decision.upgradeTo, now)
        addCues(this.db, decision.factId, write.cues)
        this.addSource(decision.factId, write, now)
        const [fact] = this.reader.getFacts([decision.factId])
        if (fact === undefined) throw new Error(`fact ${decision.factId} vanished inside its own transaction`)
        return {
          kind: 'folded',
          fact,
          prior: decision.takesValue ? target.value : write.value,
          tookValue: decision.takesValue,
        }
      }
      case 'insert': {
        // Superseded and retired rows leave the current set first, so the unique indexes see one current value.
        const supersededIds = decision.supersede
        if (supersededIds.length > 0) {
          this.db.run(
            `UPDATE facts SET status = 'superseded', valid_to = ${INSTANT}, revision = revision + 1, updated_at = ${INSTANT}
            WHERE id IN (${placeholders(supersededIds.length)})`,
            now,
            now,
            ...supersededIds,
          )
        }
        const retired = this.slots.retire(decision.retire, now)
        let groupId: number | null = decision.joinGroup ?? null
        if (decision.conflict !== undefined) groupId = this.slots.openConflict(decision.conflict, write.slotKey, now)
        const id = this.insertFact(write, decision.status, decision.multi, groupId, now)
        if (supersededIds.length > 0) {
          this.db.run(
            `UPDATE facts SET superseded_by = ? WHERE id IN (${placeholders(supersededIds.length)})`,
            id,
            ...supersededIds,
          )
        }
        if (decision.multi) {
          // A row that turns multi-valued is a new revision, so a card proposed against it is stale.
          this.db.run(
            `UPDATE facts SET multi = 1, revision = revision + 1, updated_at = ${INSTANT} WHERE slot_key = ${KEY} AND status = 'active' AND multi = 0`,
            now,
            write.slotKey,
          )
        }
        this.slots.closeGroups(decision.closeGroups, id, now)
        const [fact] = this.reader.getFacts([id])
        if (fact === undefined) throw new Error(`fact ${id} vanished inside its own transaction`)
        if (decision.status === 'conflict') {
          return { kind: 'conflict', fact, rivals: this.reader.getFacts(decision.conflict?.against ?? []) }
        }
        return { kind: 'saved', fact, superseded: this.reader.getFacts(supersededIds), retired }
      }
    }
  }

  /**
   * Queue a change for the user's review, unless its last card already answers it: a pending card is the answer
   * itself, a card the user rejected refuses the change, and an applied card whose value is still current answers
   * with that fact (the write adds a source). A stale card, or an applied one whose value has since left the current
   * set, stays as history and the change gets a fresh card.
   */
  private propose(write: PreparedWrite, reason: 'inferred' | 'low_confidence', now: string): WriteResult {
    const fingerprint = sha256(JSON.stringify(['add_fact', write.claimKey]))
    const last = this.db.get(
      `SELECT id, status, coalesce(decided_at, updated_at) AS decided_at FROM proposals WHERE fingerprint = ?
        ORDER BY status = 'pending' DESC, id DESC LIMIT 1`,
      fingerprint,
    )
    // A rejected card pruned since (decided cards are kept for a while) still answers through the index.
    const declined = last === undefined ? declinedAddition(this.db, fingerprint) : undefined
    if (declined !== undefined) {
      return {
        kind: 'refused',
        code: 'refused',
        message: `the user rejected this change on ${declined.decidedAt.slice(0, 10)} (proposal #${declined.proposalId}); it is not queued again`,
      }
    }
    if (last !== undefined) {
      const lastId = Number(last['id'])
      if (last['status'] === 'pending') return { kind: 'proposed', proposalId: lastId, existing: true, reason }
      if (last['status'] === 'rejected') {
        return {
          kind: 'refused',
          code: 'refused',
          message: `the user rejected this change on ${String(last['decided_at']).slice(0, 10)} (proposal #${lastId}); it is not queued again`,
        }
      }
      const current =
        last['status'] === 'applied'
          ? this.slots.slotRows(write.slotKey).find((row) => row.claimKey === write.claimKey)
          : undefined
      if (current !== undefined) {
        return this.apply(
          write,
          { kind: 'duplicate', factId: current.id, upgradeTo: undefined, settle: undefined, promoteNow: false },
          now,
        )
      }
    }
    // The proposal remembers the slot as it stood, so applying it later can tell whether the slot moved.
    const targets = this.db
      .all(
        `SELECT id, revision FROM facts WHERE slot_key = ${KEY} AND status IN ('active', 'scheduled', 'conflict')
      ORDER BY id`,
        write.slotKey,
      )
      .map((row) => ({ factId: Number(row['id']), revision: Number(row['revision']) }))
    const row: ProposedRow = {
      subject: write.subject,
      property: write.property,
      value: write.value,
      qualifiers: write.qualifiers,
      scope: write.scope,
      evidence: write.evidence,
      confidence: write.confidence,
      quote: write.quote,
      multi: write.multi,
      validFrom: write.validFrom,
      validTo: write.validTo,
      targets,
      ...(write.cues.length === 0 ? {} : { cues: write.cues }),
    }
    const id = this.db.run(
      `INSERT INTO proposals (fingerprint, kind, status, reason, rows, session_id, turn, created_at, updated_at)
        VALUES (?, 'add_fact', 'pending', ?, ?, ?, ?, ?, ?)`,
      fingerprint,
      reason,
      JSON.stringify([row]),
      write.anchor?.sessionId ?? null,
      write.anchor?.turn ?? null,
      now,
      now,
    ).lastInsertRowid
    return { kind: 'proposed', proposalId: id, existing: false, reason }
  }

  private insertFact(
    write: PreparedWrite,
    status: FactStatus,
    multi: boolean,
    groupId: number | null,
    now: string,
  ): FactId {
    this.db.run(
      'INSERT OR IGNORE INTO entities (entity_key, display, created_at) VALUES (?, ?, ?)',
      write.entityKey,
      write.subject,
      now,
    )
    const entityId = Number(this.db.get('SELECT id FROM entities WHERE entity_key = ?', write.entityKey)?.['id'])
    const id = this.db.run(
      `INSERT INTO facts (entity_id, subject, property, predicate_key, qualifiers, scope, value, slot_key, claim_key,
          multi, status, evidence_rank, confidence, sensitivity, model_use_allowed, observed_at,
          recorded_at, valid_from, valid_to, conflict_group_id, origin, session_id, turn, quote, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ${KEY}, ${KEY}, ?, ?, ?, ?, ?, ?, ${INSTANT}, ${INSTANT}, ${INSTANT}, ${INSTANT}, ?, ?, ?, ?, ?, ${INSTANT})`,
      entityId,
      write.subject,
      write.property,
      write.predicateKey,
      JSON.stringify(write.qualifiers),
      write.scope,
      write.value,
      write.slotKey,
      write.claimKey,
      multi ? 1 : 0,
      status,
      evidenceRank(write.evidence),
      write.confidence,
      write.sensitivity,
      write.modelUseAllowed ? 1 : 0,
      now,
      now,
      write.validFrom,
      write.validTo,
      groupId,
      write.origin,
      write.anchor?.sessionId ?? null,
      write.anchor?.turn ?? null,
      write.quote,
      now,
    ).lastInsertRowid as FactId
    this.db.run('INSERT INTO facts_fts (rowid, terms) VALUES (?, ?)', id, write.terms)
    if (write.cues.length > 0) storeCues(this.db, id, write.cues)
    for (const ident of write.identifiers) {
      this.db.run('INSERT OR IGNORE INTO fact_identifiers (ident, fact_id) VALUES (?, ?)', ident, id)
    }
    this.addSource(id, write, now)
    return id
  }

  /**
   * A raise brings the words behind the row's new evidence: the row quotes them and is anchored where they were said,
   * as a direct write of them would be, and personal data in them makes the row sensitive as it would that write's.
   */
  private carryQuote(factId: number, write: PreparedWrite): void {
    this.db.run(
      `UPDATE facts SET quote = ?, session_id = ?, turn = ?, sensitivity = coalesce(sensitivity, ?),
        model_use_allowed = CASE WHEN sensitivity IS NULL AND ? IS NOT NULL THEN ? ELSE model_use_allowed END
      WHERE id = ?`,
      write.quote,
      write.anchor?.sessionId ?? null,
      write.anchor?.turn ?? null,
      write.sensitivity,
      write.sensitivity,
      write.modelUseAllowed ? 1 : 0,
      factId,
    )
  }

  private addSource(factId: number, write: PreparedWrite, now: string): void {
    this.db.run(
      `INSERT INTO fact_sources (fact_id, origin, evidence_rank, session_id, turn, quote, observed_at) VALUES (?, ?, ?, ?, ?, ?, ${INSTANT})`,
      factId,
      write.origin,
      evidenceRank(write.evidence),
      write.anchor?.sessionId ?? null,
      write.anchor?.turn ?? null,
      write.quote,
      now,
    )
  }
}
