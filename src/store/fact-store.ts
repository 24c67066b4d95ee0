/**
 * FactStore: synchronous writes of facts, their sources, identifiers, full-text terms, conflict groups, tombstones
 * and write-time proposals, on top of FactReader's reads. Writes follow the slot rules of `write-policy.ts`; every
 * write is one transaction. Knows nothing of tools, routes, ranking or the model.
 */
import type { PreparedWrite } from '../fact-input.ts'
import { findRestatement, type RestatementRow, type Statement } from '../review/near-duplicate.ts'
import { sha256 } from '../text/normalize.ts'
import { CURRENT_STATUSES, type Evidence, type Fact, type FactId, type FactStatus, type ProposedRow } from '../types.ts'
import { decideWrite, evidenceRank, restatementApplies, type Restatement, type SlotRow, type WriteDecision } from '../write-policy.ts'
import { numberOrNull } from './connection.ts'
import { foldRow, priorClaimKeys } from './fact-folds.ts'
import { recordProject } from './project-rows.ts'
import { projectScope } from '../project/project-ref.ts'
import { FactReader } from './fact-reader.ts'
import { FACT_COLUMNS, placeholders, toFact } from './fact-rows.ts'
import { clearVectorRows } from './vector-store.ts'

/** The result of one write. */
export type WriteResult =
  | { readonly kind: 'saved'; readonly fact: Fact; readonly superseded: readonly Fact[]; readonly retired: readonly Fact[] }
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

/** Synchronous writes over facts and their satellites, under the slot rules. */
export class FactStore extends FactReader {
  /**
   * Write one prepared fact under the slot rules, in one transaction.
   * @param write - the prepared write.
   * @param now - the current ISO instant.
   * @returns what happened; a tombstoned claim or evidence is refused before any row is created.
   */
  write(write: PreparedWrite, now: string): WriteResult {
    return this.db.transaction(() => {
      const verdict = this.classify(write)
      if (verdict.kind === 'tombstoned') return { kind: 'refused', code: 'tombstoned', message: verdict.message } as const
      const result = this.apply(write, verdict.decision, now)
      if (write.project !== null && result.kind !== 'proposed' && result.kind !== 'refused') recordProject(this.db, write.project, now)
      return result
    })
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
  classify(write: PreparedWrite, staged: readonly StagedRow[] = [], stagedFacts = staged.length): Classification {
    const tomb = this.db.get(
      `SELECT kind, created_at FROM tombstones WHERE (kind = 'claim' AND key = ?) OR (kind = 'evidence' AND key = ?) LIMIT 1`,
      write.claimKey, write.evidenceKey)
    if (tomb !== undefined) {
      return {
        kind: 'tombstoned',
        message: `this ${String(tomb['kind'])} was forgotten at the user's request (${String(tomb['created_at']).slice(0, 10)}); it cannot be written back`,
      }
    }
    const slot: SlotRow[] = [...this.slotRows(write.slotKey), ...staged]
    return { kind: 'decided', decision: decideWrite(write, slot, this.restatementOf(write, slot, staged, stagedFacts)) }
  }

  /**
   * The near-duplicate gate: the current row of the slot, in the write's scope, that the write restates in other
   * words. Asked only where a restatement may stand for a duplicate (any slot, not an exact-only write) and
   * no row holds the same claim; a credential is never compared. IDF comes from the full-text index's document counts.
   */
  private restatementOf(write: PreparedWrite, slot: readonly SlotRow[], staged: readonly StagedRow[], stagedFacts: number): Restatement | undefined {
    if (write.sensitivity === 'credential' || !restatementApplies(write) || slot.some((row) => row.claimKey === write.claimKey)) return undefined
    const rows: RestatementRow[] = [
      ...this.restatementRows(write.slotKey, write.scope).map((row) => ({ id: row.id, statement: row })),
      ...staged.filter((row) => row.scope === write.scope && !row.credential).map((row) => ({ id: row.id, statement: row.statement })),
    ]
    if (rows.length === 0) return undefined
    const match = findRestatement({ subject: write.subject, property: write.property, value: write.value }, rows, {
      currentFacts: this.currentFactCount() + stagedFacts,
      statistics: (words) => ({ documents: this.indexedFactCount(), frequency: this.termDocumentCounts(words) }),
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
  restoreHistory(write: PreparedWrite, status: 'superseded' | 'retired' | 'expired', validTo: string | null, now: string):
    { kind: 'restored'; fact: Fact } | { kind: 'duplicate'; factId: number } | { kind: 'tombstoned'; message: string } {
    return this.db.transaction(() => {
      const verdict = this.classify(write)
      if (verdict.kind === 'tombstoned') return verdict
      const existing = this.db.get('SELECT id FROM facts WHERE claim_key = ? AND valid_from = ? AND status = ?', write.claimKey, write.validFrom, status)
      if (existing !== undefined) return { kind: 'duplicate', factId: Number(existing['id']) } as const
      const id = this.insertFact(write, status, write.multi, null, now)
      this.db.run('UPDATE facts SET valid_to = ? WHERE id = ?', validTo, id)
      if (write.project !== null) recordProject(this.db, write.project, now)
      const [fact] = this.getFacts([id])
      if (fact === undefined) throw new Error(`fact ${id} vanished inside its own transaction`)
      return { kind: 'restored', fact } as const
    })
  }

  /**
   * Whether a past value (claim, start and history status) is already stored.
   * @returns true when such a row exists.
   */
  hasHistory(claimKey: string, validFrom: string, status: FactStatus): boolean {
    return this.db.get('SELECT 1 AS found FROM facts WHERE claim_key = ? AND valid_from = ? AND status = ?', claimKey, validFrom, status) !== undefined
  }

  /**
   * Forget one fact: mark it forgotten, drop it from the indexes, tombstone its claim and evidence.
   * @param id - the fact id.
   * @param now - the current ISO instant.
   * @returns the forgotten facts (empty when the id names no live fact).
   */
  forgetById(id: number, now: string): Fact[] {
    return this.db.transaction(() => {
      const row = this.db.get(`SELECT ${FACT_COLUMNS} FROM facts WHERE id = ? AND status <> 'forgotten'`, id)
      if (row === undefined) return []
      return this.forgetRows([toFact(row)], now)
    })
  }

  /**
   * Forget every live fact of a subject, or of one property of it.
   * @param entityKey - canonical subject.
   * @param predicateKey - canonical property, or undefined for the whole subject.
   * @param now - the current ISO instant.
   * @param projectKey - undefined (the default): facts of every scope; null or a key: another project's facts are
   *   left alone (null: every project's).
   * @returns the forgotten facts.
   */
  forgetBySubject(entityKey: string, predicateKey: string | undefined, now: string, projectKey?: string | null): Fact[] {
    return this.db.transaction(() => {
      const rows = this.db.all(
        `SELECT ${FACT_COLUMNS} FROM facts f
          WHERE entity_id = (SELECT id FROM entities WHERE entity_key = ?) AND status <> 'forgotten'
            AND (? IS NULL OR predicate_key = ?)
            AND (? = 0 OR substr(scope, 1, 8) <> 'project:' OR scope IS ?)`,
        entityKey, predicateKey ?? null, predicateKey ?? null,
        projectKey === undefined ? 0 : 1, projectKey === undefined || projectKey === null ? null : projectScope(projectKey))
      return this.forgetRows(rows.map(toFact), now)
    })
  }

  /**
   * Promote scheduled facts whose start has come and retire facts whose end has passed. A conflict group an expiry
   * leaves with nothing to settle closes in the same transaction, as it does when the user expires a side.
   * @param now - the current ISO instant.
   * @returns how many rows changed each way.
   */
  advance(now: string): { promoted: number; expired: number } {
    return this.db.transaction(() => {
      // Promote first, so a scheduled value whose window has already closed is expired in the same pass.
      const due = this.db.all(
        `SELECT ${FACT_COLUMNS} FROM facts WHERE status = 'scheduled' AND valid_from <= ? ORDER BY valid_from, id`, now).map(toFact)
      for (const fact of due) this.promote(fact, now)
      // Without statistics the planner would walk facts_by_status over every active row.
      const groups = this.db.all(
        `SELECT DISTINCT conflict_group_id FROM facts INDEXED BY facts_ending_by_valid_to
          WHERE status IN ('active', 'conflict') AND valid_to IS NOT NULL AND valid_to <= ? AND conflict_group_id IS NOT NULL`, now)
        .map((row) => Number(row['conflict_group_id']))
      const expired = this.db.run(
        `UPDATE facts INDEXED BY facts_ending_by_valid_to SET status = 'expired', revision = revision + 1, updated_at = ?
          WHERE status IN ('active', 'conflict') AND valid_to IS NOT NULL AND valid_to <= ?`, now, now).changes
      for (const groupId of groups) this.closeGroupIfMoot(groupId, now)
      return { promoted: due.length, expired }
    })
  }

  /**
   * Expire a current fact now (a user's "this no longer holds"): status expired, valid_to stamped.
   * @param id - the fact id.
   * @param now - ISO instant.
   * @returns the expired fact, or undefined when it is not current.
   */
  expireFact(id: number, now: string): Fact | undefined {
    return this.db.transaction(() => {
      const [fact] = this.getFacts([id])
      if (fact === undefined || !CURRENT_STATUSES.includes(fact.status)) return undefined
      this.db.run(`UPDATE facts SET status = 'expired', valid_to = ?, revision = revision + 1, updated_at = ? WHERE id = ?`,
        fact.status === 'scheduled' ? fact.validFrom : now, now, id)
      if (fact.conflictGroupId !== null) this.closeGroupIfMoot(fact.conflictGroupId, now)
      return this.getFacts([id])[0]
    })
  }

  /**
   * Correct when a current fact holds, on its own row (the value is unchanged, so no new row), and let the slot
   * follow the new window as the maintenance pass would: a scheduled start that has come promotes the row under the
   * slot rules, an end already passed expires it, and a conflict group that leaves with nothing to settle closes.
   * The value a current row replaced in its slot ends where the row now starts (never before it began itself).
   * @param id - the fact id.
   * @param validFrom - the new start (ISO instant); a current row's start cannot move past now.
   * @param validTo - the new end (ISO instant, later than the start), or null for an open end.
   * @param now - ISO instant.
   * @returns the fact as it now stands, or why not.
   */
  reviseWindow(id: number, validFrom: string, validTo: string | null, now: string):
    { ok: true; fact: Fact } | { ok: false; reason: 'not_current' | 'start_ahead' } {
    return this.db.transaction(() => {
      const [fact] = this.getFacts([id])
      if (fact === undefined || !CURRENT_STATUSES.includes(fact.status)) return { ok: false, reason: 'not_current' } as const
      if (fact.status !== 'scheduled' && validFrom > now) return { ok: false, reason: 'start_ahead' } as const
      this.db.run('UPDATE facts SET valid_from = ?, valid_to = ?, revision = revision + 1, updated_at = ? WHERE id = ?', validFrom, validTo, now, id)
      if (fact.status === 'scheduled') {
        const [revised] = this.getFacts([id])
        if (revised !== undefined && validFrom <= now) this.promote(revised, now)
      } else if (validFrom !== fact.validFrom) {
        this.db.run(`UPDATE facts SET valid_to = max(?, valid_from), revision = revision + 1, updated_at = ?
          WHERE slot_key = ? AND status = 'superseded' AND superseded_by = ?`, validFrom, now, fact.slotKey, id)
      }
      const [started] = this.getFacts([id])
      if (started !== undefined && validTo !== null && validTo <= now && (started.status === 'active' || started.status === 'conflict')) {
        this.db.run(`UPDATE facts SET status = 'expired', revision = revision + 1, updated_at = ? WHERE id = ?`, now, id)
        if (started.conflictGroupId !== null) this.closeGroupIfMoot(started.conflictGroupId, now)
      }
      const [revised] = this.getFacts([id])
      if (revised === undefined) throw new Error(`fact ${id} vanished inside its own transaction`)
      return { ok: true, fact: revised } as const
    })
  }

  /**
   * Settle an open conflict group on the user's choice: the kept row becomes the current value (its evidence
   * raised to at least confirmed_user), the other active row is superseded by it, the other contested rows are
   * retired, and the group closes.
   * @param groupId - the open group.
   * @param keepId - the row the user chose; must be a current member of the group.
   * @param now - ISO instant.
   * @returns the kept fact, or why not.
   */
  resolveGroup(groupId: number, keepId: number, now: string): { ok: true; kept: Fact } | { ok: false; reason: 'group_not_open' | 'not_a_member' } {
    return this.db.transaction(() => {
      const group = this.db.get('SELECT slot_key, status FROM conflict_groups WHERE id = ?', groupId)
      if (group === undefined || group['status'] !== 'open') return { ok: false, reason: 'group_not_open' } as const
      const slot = this.slotRows(String(group['slot_key']))
      const keeper = slot.find((row) => row.id === keepId && row.status !== 'scheduled')
      if (keeper === undefined) return { ok: false, reason: 'not_a_member' } as const
      const others = slot.filter((row) => row.id !== keepId && row.status !== 'scheduled')
      this.supersede(others.filter((row) => row.status === 'active' && !row.multi).map((row) => row.id), keepId, now)
      this.retire(others.filter((row) => row.status === 'conflict').map((row) => row.id), now)
      this.closeGroups([groupId], keepId, now)
      const evidence: Evidence = evidenceRank(keeper.evidence) <= evidenceRank('confirmed_user') ? keeper.evidence : 'confirmed_user'
      this.db.run(`UPDATE facts SET status = 'active', evidence = ?, evidence_rank = ?, revision = revision + 1, updated_at = ? WHERE id = ?`,
        evidence, evidenceRank(evidence), now, keepId)
      const [kept] = this.getFacts([keepId])
      if (kept === undefined) throw new Error(`fact ${keepId} vanished inside its own transaction`)
      return { ok: true, kept } as const
    })
  }

  /**
   * Mark a current row superseded by a row in another slot (an edit that renamed its subject or property).
   * @param id - the old row.
   * @param by - the new row.
   * @param now - ISO instant.
   */
  supersedeAcrossSlots(id: number, by: number, now: string): void {
    this.db.transaction(() => {
      const [fact] = this.getFacts([id])
      if (fact === undefined || !CURRENT_STATUSES.includes(fact.status)) return
      this.supersede([id], by, now)
      if (fact.conflictGroupId !== null) this.closeGroupIfMoot(fact.conflictGroupId, now)
    })
  }

  /**
   * Rebuild the full-text and identifier indexes from the facts themselves.
   * @param entriesOf - computes a fact's index entries.
   * @returns how many facts were indexed.
   */
  rebuildIndexes(entriesOf: (fact: Fact) => { terms: string; identifiers: readonly string[] }): number {
    return this.db.transaction(() => {
      this.db.run('DELETE FROM facts_fts')
      this.db.run('DELETE FROM fact_identifiers')
      let indexed = 0
      let after = 0
      for (;;) {
        const batch = this.db.all(`SELECT ${FACT_COLUMNS} FROM facts WHERE id > ? AND status <> 'forgotten' ORDER BY id LIMIT 1000`, after).map(toFact)
        if (batch.length === 0) return indexed
        for (const fact of batch) {
          const entries = entriesOf(fact)
          this.db.run('INSERT INTO facts_fts (rowid, terms) VALUES (?, ?)', fact.id, entries.terms)
          for (const ident of entries.identifiers) this.db.run('INSERT OR IGNORE INTO fact_identifiers (ident, fact_id) VALUES (?, ?)', ident, fact.id)
          indexed += 1
          after = fact.id
        }
      }
    })
  }

  /**
   * Clear everything the user knows as their memory: facts, entities, sources, indexes, conflict groups,
   * proposals, the known projects, the edit log, the recall ledger (it names facts) and every fact vector (bumping the version of each space that held one, so an in-memory
   * scan index sees the change), in one transaction. Settings, operation receipts, store metadata and tombstones (hashes of claims the
   * user asked to forget, holding no text) stay.
   * @returns how many facts and proposals were removed.
   */
  wipe(): { facts: number; proposals: number } {
    return this.db.transaction(() => {
      const facts = Number(this.db.get('SELECT count(*) AS n FROM facts')?.['n'] ?? 0)
      const proposals = Number(this.db.get('SELECT count(*) AS n FROM proposals')?.['n'] ?? 0)
      this.db.run('UPDATE tombstones SET fact_id = NULL')
      clearVectorRows(this.db)
      for (const table of ['fact_edits', 'fact_sources', 'fact_identifiers', 'facts_fts', 'facts', 'conflict_groups', 'entities', 'proposals', 'projects', 'recall_log'] as const) {
        this.db.run(`DELETE FROM ${table}`)
      }
      return { facts, proposals }
    })
  }

  private slotRows(slotKey: string): SlotRow[] {
    return this.db.all(
      `SELECT id, claim_key, status, evidence, multi, conflict_group_id, value, scope, sensitivity FROM facts
        WHERE slot_key = ? AND status IN ('active', 'scheduled', 'conflict') ORDER BY id`, slotKey)
      .map((row) => ({
        id: Number(row['id']) as FactId,
        claimKey: String(row['claim_key']),
        status: row['status'] as FactStatus,
        evidence: row['evidence'] as Evidence,
        multi: Number(row['multi']) === 1,
        conflictGroupId: numberOrNull(row['conflict_group_id']),
        value: String(row['value']),
        scope: String(row['scope']),
        sensitive: row['sensitivity'] !== null,
      }))
  }

  private apply(write: PreparedWrite, decision: WriteDecision, now: string): WriteResult {
    switch (decision.kind) {
      case 'propose':
        return this.propose(write, decision.reason, now)
      case 'duplicate': {
        const upgraded = decision.upgradeTo !== undefined
        if (upgraded) {
          this.db.run(`UPDATE facts SET evidence = ?, evidence_rank = ?, revision = revision + 1, updated_at = ? WHERE id = ?`,
            decision.upgradeTo, evidenceRank(decision.upgradeTo), now, decision.factId)
        }
        this.db.run('UPDATE facts SET observed_at = ? WHERE id = ? AND observed_at < ?', now, decision.factId, now)
        this.addSource(decision.factId, write, now)
        if (decision.promoteNow) {
          this.db.run(`UPDATE facts SET valid_from = ?, revision = revision + 1, updated_at = ? WHERE id = ?`, write.validFrom, now, decision.factId)
          const [scheduled] = this.getFacts([decision.factId])
          if (scheduled !== undefined) this.promote(scheduled, now)
        }
        let superseded: Fact[] = []
        let retired: Fact[] = []
        if (decision.settle !== undefined) {
          // The old value leaves the current set first, so the one-active-per-slot index never sees two.
          superseded = this.supersede(decision.settle.supersede, decision.factId, now)
          retired = this.retire(decision.settle.retire, now)
          this.closeGroups(decision.settle.closeGroups, decision.factId, now)
          this.db.run(`UPDATE facts SET status = 'active', revision = revision + 1, updated_at = ?
            WHERE id = ? AND status = 'conflict'`, now, decision.factId)
        }
        const [fact] = this.getFacts([decision.factId])
        if (fact === undefined) throw new Error(`fact ${decision.factId} vanished inside its own transaction`)
        return { kind: 'duplicate', fact, upgraded, settled: decision.settle !== undefined, superseded, retired, restatement: decision.restatement ?? null }
      }
      case 'fold': {
        const [target] = this.getFacts([decision.factId])
        if (target === undefined) throw new Error(`fact ${decision.factId} vanished inside its own transaction`)
        foldRow(this.db, target, write, decision.takesValue, decision.upgradeTo, now)
        this.addSource(decision.factId, write, now)
        const [fact] = this.getFacts([decision.factId])
        if (fact === undefined) throw new Error(`fact ${decision.factId} vanished inside its own transaction`)
        return { kind: 'folded', fact, prior: decision.takesValue ? target.value : write.value, tookValue: decision.takesValue }
      }
      case 'insert': {
        // Superseded and retired rows leave the current set first, so the unique indexes see one current value.
        const supersededIds = decision.supersede
        this.db.run(`UPDATE facts SET status = 'superseded', valid_to = ?, revision = revision + 1, updated_at = ?
          WHERE id IN (${placeholders(supersededIds.length)})`, now, now, ...supersededIds)
        const retired = this.retire(decision.retire, now)
        let groupId: number | null = decision.joinGroup ?? null
        if (decision.conflict !== undefined) {
          groupId = decision.conflict.groupId ?? this.db.run(
            `INSERT INTO conflict_groups (slot_key, status, opened_at) VALUES (?, 'open', ?)`, write.slotKey, now).lastInsertRowid
          this.db.run(`UPDATE facts SET conflict_group_id = ?, revision = revision + 1, updated_at = ?
            WHERE id IN (${placeholders(decision.conflict.against.length)})`, groupId, now, ...decision.conflict.against)
        }
        const id = this.insertFact(write, decision.status, decision.multi, groupId, now)
        if (supersededIds.length > 0) {
          this.db.run(`UPDATE facts SET superseded_by = ? WHERE id IN (${placeholders(supersededIds.length)})`, id, ...supersededIds)
        }
        if (decision.multi) {
          // A row that turns multi-valued is a new revision, so a card proposed against it is stale.
          this.db.run(`UPDATE facts SET multi = 1, revision = revision + 1, updated_at = ? WHERE slot_key = ? AND status = 'active' AND multi = 0`, now, write.slotKey)
        }
        this.closeGroups(decision.closeGroups, id, now)
        const [fact] = this.getFacts([id])
        if (fact === undefined) throw new Error(`fact ${id} vanished inside its own transaction`)
        if (decision.status === 'conflict') {
          return { kind: 'conflict', fact, rivals: this.getFacts(decision.conflict?.against ?? []) }
        }
        return { kind: 'saved', fact, superseded: this.getFacts(supersededIds), retired }
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
        ORDER BY status = 'pending' DESC, id DESC LIMIT 1`, fingerprint)
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
      const current = last['status'] === 'applied' ? this.slotRows(write.slotKey).find((row) => row.claimKey === write.claimKey) : undefined
      if (current !== undefined) {
        return this.apply(write, { kind: 'duplicate', factId: current.id, upgradeTo: undefined, settle: undefined, promoteNow: false }, now)
      }
    }
    // The proposal remembers the slot as it stood, so applying it later can tell whether the slot moved.
    const targets = this.db.all(`SELECT id, revision FROM facts WHERE slot_key = ? AND status IN ('active', 'scheduled', 'conflict')
      ORDER BY id`, write.slotKey).map((row) => ({ factId: Number(row['id']), revision: Number(row['revision']) }))
    const row: ProposedRow = {
      subject: write.subject, property: write.property, value: write.value, qualifiers: write.qualifiers,
      scope: write.scope, evidence: write.evidence, confidence: write.confidence, quote: write.quote,
      multi: write.multi, validFrom: write.validFrom, validTo: write.validTo, targets,
    }
    const id = this.db.run(
      `INSERT INTO proposals (fingerprint, kind, status, reason, rows, session_id, turn, created_at, updated_at)
        VALUES (?, 'add_fact', 'pending', ?, ?, ?, ?, ?, ?)`,
      fingerprint, reason, JSON.stringify([row]), write.anchor?.sessionId ?? null, write.anchor?.turn ?? null, now, now).lastInsertRowid
    return { kind: 'proposed', proposalId: id, existing: false, reason }
  }

  private insertFact(write: PreparedWrite, status: FactStatus, multi: boolean, groupId: number | null, now: string): FactId {
    this.db.run('INSERT OR IGNORE INTO entities (entity_key, display, created_at) VALUES (?, ?, ?)', write.entityKey, write.subject, now)
    const entityId = Number(this.db.get('SELECT id FROM entities WHERE entity_key = ?', write.entityKey)?.['id'])
    const id = this.db.run(
      `INSERT INTO facts (entity_id, subject, property, predicate_key, qualifiers, scope, value, slot_key, claim_key,
          evidence_key, multi, status, evidence, evidence_rank, confidence, sensitivity, model_use_allowed, observed_at,
          recorded_at, valid_from, valid_to, conflict_group_id, origin, session_id, turn, quote, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      entityId, write.subject, write.property, write.predicateKey, JSON.stringify(write.qualifiers), write.scope,
      write.value, write.slotKey, write.claimKey, write.evidenceKey, multi ? 1 : 0, status, write.evidence,
      evidenceRank(write.evidence), write.confidence, write.sensitivity, write.modelUseAllowed ? 1 : 0, now, now,
      write.validFrom, write.validTo, groupId, write.origin, write.anchor?.sessionId ?? null,
      write.anchor?.turn ?? null, write.quote, now).lastInsertRowid as FactId
    this.db.run('INSERT INTO facts_fts (rowid, terms) VALUES (?, ?)', id, write.terms)
    for (const ident of write.identifiers) {
      this.db.run('INSERT OR IGNORE INTO fact_identifiers (ident, fact_id) VALUES (?, ?)', ident, id)
    }
    this.addSource(id, write, now)
    return id
  }

  private addSource(factId: number, write: PreparedWrite, now: string): void {
    this.db.run(
      `INSERT INTO fact_sources (fact_id, origin, evidence, session_id, turn, quote, observed_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      factId, write.origin, write.evidence, write.anchor?.sessionId ?? null, write.anchor?.turn ?? null, write.quote, now)
  }

  private supersede(ids: readonly number[], by: number, now: string): Fact[] {
    if (ids.length === 0) return []
    this.db.run(`UPDATE facts SET status = 'superseded', superseded_by = ?, valid_to = ?, revision = revision + 1, updated_at = ?
      WHERE id IN (${placeholders(ids.length)})`, by, now, now, ...ids)
    return this.getFacts(ids)
  }

  private retire(ids: readonly number[], now: string): Fact[] {
    if (ids.length === 0) return []
    this.db.run(`UPDATE facts SET status = 'retired', valid_to = ?, revision = revision + 1, updated_at = ?
      WHERE id IN (${placeholders(ids.length)})`, now, now, ...ids)
    return this.getFacts(ids)
  }

  private closeGroups(groupIds: readonly number[], settledBy: number, now: string): void {
    if (groupIds.length === 0) return
    this.db.run(`UPDATE conflict_groups SET status = 'closed', closed_at = ?, settled_by = ?
      WHERE status = 'open' AND id IN (${placeholders(groupIds.length)})`, now, settledBy, ...groupIds)
  }

  private promote(fact: Fact, now: string): void {
    const slot = this.slotRows(fact.slotKey).filter((row) => row.id !== fact.id)
    const decision = decideWrite(
      { claimKey: fact.claimKey, evidence: fact.evidence, confidence: 1, inferred: false, multi: fact.multi, scheduled: false },
      slot.filter((row) => row.status !== 'scheduled'))
    if (decision.kind === 'duplicate') {
      // The scheduled value is already current: the scheduled row folds into it.
      this.db.run(`UPDATE facts SET status = 'superseded', superseded_by = ?, valid_to = ?, revision = revision + 1, updated_at = ? WHERE id = ?`,
        decision.factId, now, now, fact.id)
      return
    }
    if (decision.kind !== 'insert') return
    // The replaced value ends where the new one starts, but never before it began itself.
    this.db.run(`UPDATE facts SET status = 'superseded', superseded_by = ?, valid_to = max(?, valid_from), revision = revision + 1, updated_at = ?
      WHERE id IN (${placeholders(decision.supersede.length)})`, fact.id, fact.validFrom, now, ...decision.supersede)
    this.retire(decision.retire, now)
    let groupId: number | null = decision.joinGroup ?? null
    if (decision.conflict !== undefined) {
      groupId = decision.conflict.groupId ?? this.db.run(
        `INSERT INTO conflict_groups (slot_key, status, opened_at) VALUES (?, 'open', ?)`, fact.slotKey, now).lastInsertRowid
      this.db.run(`UPDATE facts SET conflict_group_id = ?, revision = revision + 1, updated_at = ?
        WHERE id IN (${placeholders(decision.conflict.against.length)})`, groupId, now, ...decision.conflict.against)
    }
    this.db.run(`UPDATE facts SET status = ?, multi = ?, conflict_group_id = ?, revision = revision + 1, updated_at = ? WHERE id = ?`,
      decision.status === 'scheduled' ? 'active' : decision.status, decision.multi ? 1 : 0, groupId, now, fact.id)
    this.closeGroups(decision.closeGroups, fact.id, now)
  }

  private forgetRows(facts: readonly Fact[], now: string): Fact[] {
    for (const fact of facts) {
      this.db.run(`UPDATE facts SET status = 'forgotten', valid_to = coalesce(valid_to, ?), revision = revision + 1, updated_at = ?
        WHERE id = ?`, now, now, fact.id)
      this.db.run('DELETE FROM facts_fts WHERE rowid = ?', fact.id)
      this.db.run('DELETE FROM fact_identifiers WHERE fact_id = ?', fact.id)
      const evidenceKey = String(this.db.get('SELECT evidence_key FROM facts WHERE id = ?', fact.id)?.['evidence_key'])
      this.db.run(`INSERT OR IGNORE INTO tombstones (kind, key, fact_id, created_at) VALUES ('claim', ?, ?, ?)`, fact.claimKey, fact.id, now)
      this.db.run(`INSERT OR IGNORE INTO tombstones (kind, key, fact_id, created_at) VALUES ('evidence', ?, ?, ?)`, evidenceKey, fact.id, now)
      // The prior lines a fold kept are the same recurring fact: forgetting the row forgets them too.
      for (const claimKey of priorClaimKeys(fact)) {
        this.db.run(`INSERT OR IGNORE INTO tombstones (kind, key, fact_id, created_at) VALUES ('claim', ?, ?, ?)`, claimKey, fact.id, now)
      }
      // A conflict group left with fewer than two current rows has nothing left to settle.
      if (fact.conflictGroupId !== null) this.closeGroupIfMoot(fact.conflictGroupId, now)
    }
    return this.getFacts(facts.map((fact) => fact.id))
  }

  protected closeGroupIfMoot(groupId: number, now: string): void {
    const current = Number(this.db.get(
      `SELECT count(*) AS n FROM facts WHERE conflict_group_id = ? AND status IN ('active', 'conflict')`, groupId)?.['n'] ?? 0)
    const conflicts = Number(this.db.get(
      `SELECT count(*) AS n FROM facts WHERE conflict_group_id = ? AND status = 'conflict'`, groupId)?.['n'] ?? 0)
    if (current < 2 || conflicts === 0) {
      this.db.run(`UPDATE conflict_groups SET status = 'closed', closed_at = ? WHERE id = ? AND status = 'open'`, now, groupId)
      this.db.run(`UPDATE facts SET status = 'active', revision = revision + 1, updated_at = ? WHERE conflict_group_id = ? AND status = 'conflict'
        AND NOT EXISTS (SELECT 1 FROM facts a WHERE a.slot_key = facts.slot_key AND a.status = 'active' AND a.multi = 0)`, now, groupId)
    }
  }
}

export { toFact } from './fact-rows.ts'
export type { ChannelHit, StoreCounts, Visibility } from './fact-reader.ts'
