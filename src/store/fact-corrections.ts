/**
 * FactCorrections: the fact store's time and conflict corrections — advance scheduled and ended facts, expire one
 * now, revise a window or cues, settle a conflict group, supersede across slots — and its maintenance (rebuild the
 * indexes, wipe). Each is one transaction; it reads through the FactReader and moves slots through the FactSlots it
 * is given.
 */
import { CURRENT_STATUSES, type Evidence, type Fact } from '../types.ts'
import { evidenceRank } from '../rules/write-policy.ts'
import { reindexCues, storeCues } from './fact-cues.ts'
import type { Database } from './database.ts'
import type { FactReader } from './fact-reader.ts'
import type { FactSlots } from './fact-slots.ts'
import { FACT_COLUMNS, INSTANT, KEY, keyColumn, toFact } from './fact-rows.ts'
import { clearVectorRows } from './vector-store.ts'
import type { SyncRecorder } from './sync-recorder.ts'

/** Corrections of stored facts over time, conflict settling and index maintenance. */
export class FactCorrections {
  private readonly db: Database
  private readonly reader: FactReader
  private readonly slots: FactSlots
  private readonly recorder: SyncRecorder

  /**
   * @param db - the open, migrated database.
   * @param reader - the reads over the same database.
   * @param slots - the slot transitions over the same database.
   * @param recorder - appends the sync record of a user's expiry, settle or cross-slot supersede in its transaction.
   */
  constructor(db: Database, reader: FactReader, slots: FactSlots, recorder: SyncRecorder) {
    this.db = db
    this.reader = reader
    this.slots = slots
    this.recorder = recorder
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
      // The scheduled run of the state index (it leaves the current facts out, so the statement names its condition):
      // a range of valid_from up to now would hold nearly every fact.
      const due = this.db
        .all(
          `SELECT ${FACT_COLUMNS} FROM facts INDEXED BY facts_by_status_id WHERE status = 'scheduled' AND status <> 'active'
          AND valid_from <= ${INSTANT} ORDER BY facts.valid_from, id`,
          now,
        )
        .map(toFact)
      for (const fact of due) this.slots.promote(fact, now)
      // Without statistics the planner would walk facts_by_status over every active row.
      const groups = this.db
        .all(
          `SELECT DISTINCT conflict_group_id FROM facts INDEXED BY facts_ending_by_valid_to
          WHERE status IN ('active', 'conflict') AND valid_to IS NOT NULL AND valid_to <= ${INSTANT} AND conflict_group_id IS NOT NULL`,
          now,
        )
        .map((row) => Number(row['conflict_group_id']))
      const expired = this.db.run(
        `UPDATE facts INDEXED BY facts_ending_by_valid_to SET status = 'expired', revision = revision + 1, updated_at = ${INSTANT}
          WHERE status IN ('active', 'conflict') AND valid_to IS NOT NULL AND valid_to <= ${INSTANT}`,
        now,
        now,
      ).changes
      for (const groupId of groups) this.slots.closeGroupIfMoot(groupId, now)
      return { promoted: due.length, expired }
    })
  }

  /**
   * Record a row written in the same transaction as the user's confirmation rather than their own statement (a past
   * value put back from the page), and its source with it. Its revision stays, since nobody has seen the row yet.
   * @param id - the fact id.
   * @param now - ISO instant.
   */
  markConfirmedByUser(id: number, now: string): void {
    this.db.run(
      `UPDATE facts SET evidence_rank = ?, updated_at = ${INSTANT} WHERE id = ?`,
      evidenceRank('confirmed_user'),
      now,
      id,
    )
    this.db.run('UPDATE fact_sources SET evidence_rank = ? WHERE fact_id = ?', evidenceRank('confirmed_user'), id)
  }

  /**
   * Expire a current fact now (a user's "this no longer holds"): status expired, valid_to stamped.
   * @param id - the fact id.
   * @param now - ISO instant.
   * @returns the expired fact, or undefined when it is not current.
   */
  expireFact(id: number, now: string): Fact | undefined {
    return this.db.transaction(() => {
      const [fact] = this.reader.getFacts([id])
      if (fact === undefined || !CURRENT_STATUSES.includes(fact.status)) return undefined
      this.db.run(
        `UPDATE facts SET status = 'expired', valid_to = ${INSTANT}, revision = revision + 1, updated_at = ${INSTANT} WHERE id = ?`,
        fact.status === 'scheduled' ? fact.validFrom : now,
        now,
        id,
      )
      if (fact.conflictGroupId !== null) this.slots.closeGroupIfMoot(fact.conflictGroupId, now)
      this.recorder.recordSupersede([{ fact, as: 'expired' }], null, now)
      return this.reader.getFacts([id])[0]
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
  reviseWindow(
    id: number,
    validFrom: string,
    validTo: string | null,
    now: string,
  ): { ok: true; fact: Fact } | { ok: false; reason: 'not_current' | 'start_ahead' } {
    return this.db.transaction(() => {
      const [fact] = this.reader.getFacts([id])
      if (fact === undefined || !CURRENT_STATUSES.includes(fact.status))
        return { ok: false, reason: 'not_current' } as const
      if (fact.status !== 'scheduled' && validFrom > now) return { ok: false, reason: 'start_ahead' } as const
      this.db.run(
        `UPDATE facts SET valid_from = ${INSTANT}, valid_to = ${INSTANT}, revision = revision + 1, updated_at = ${INSTANT} WHERE id = ?`,
        validFrom,
        validTo,
        now,
        id,
      )
      if (fact.status === 'scheduled') {
        const [revised] = this.reader.getFacts([id])
        if (revised !== undefined && validFrom <= now) this.slots.promote(revised, now)
      } else if (validFrom !== fact.validFrom) {
        this.db.run(
          `UPDATE facts SET valid_to = max(${INSTANT}, valid_from), revision = revision + 1, updated_at = ${INSTANT}
          WHERE slot_key = ${KEY} AND status = 'superseded' AND superseded_by = ?`,
          validFrom,
          now,
          fact.slotKey,
          id,
        )
      }
      const [started] = this.reader.getFacts([id])
      if (
        started !== undefined &&
        validTo !== null &&
        validTo <= now &&
        (started.status === 'active' || started.status === 'conflict')
      ) {
        this.db.run(
          `UPDATE facts SET status = 'expired', revision = revision + 1, updated_at = ${INSTANT} WHERE id = ?`,
          now,
          id,
        )
        if (started.conflictGroupId !== null) this.slots.closeGroupIfMoot(started.conflictGroupId, now)
      }
      const [revised] = this.reader.getFacts([id])
      if (revised === undefined) throw new Error(`fact ${id} vanished inside its own transaction`)
      return { ok: true, fact: revised } as const
    })
  }

  /**
   * Replace a current row's cues (the user's edit from the page): a new revision, the cue index rewritten.
   * @param id - the row.
   * @param cues - its new cues (none clears them).
   * @param now - ISO instant.
   * @returns the row, or undefined when it is no longer current.
   */
  reviseCues(id: number, cues: readonly string[], now: string): Fact | undefined {
    return this.db.transaction(() => {
      const [fact] = this.reader.getFacts([id])
      if (fact === undefined || !CURRENT_STATUSES.includes(fact.status)) return undefined
      storeCues(this.db, id, cues)
      this.db.run(`UPDATE facts SET revision = revision + 1, updated_at = ${INSTANT} WHERE id = ?`, now, id)
      return this.reader.getFacts([id])[0]
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
  resolveGroup(
    groupId: number,
    keepId: number,
    now: string,
  ): { ok: true; kept: Fact } | { ok: false; reason: 'group_not_open' | 'not_a_member' } {
    return this.db.transaction(() => {
      const group = this.db.get(`SELECT ${keyColumn('slot_key')}, status FROM conflict_groups WHERE id = ?`, groupId)
      if (group === undefined || group['status'] !== 'open') return { ok: false, reason: 'group_not_open' } as const
      const slot = this.slots.slotRows(String(group['slot_key']))
      const keeper = slot.find((row) => row.id === keepId && row.status !== 'scheduled')
      if (keeper === undefined) return { ok: false, reason: 'not_a_member' } as const
      const others = slot.filter((row) => row.id !== keepId && row.status !== 'scheduled')
      const superseded = others.filter((row) => row.status === 'active' && !row.multi).map((row) => row.id)
      const retired = others.filter((row) => row.status === 'conflict').map((row) => row.id)
      const rivals = this.reader.getFacts([...superseded, ...retired])
      this.slots.supersede(superseded, keepId, now)
      this.slots.retire(retired, now)
      this.slots.closeGroups([groupId], keepId, now)
      const evidence: Evidence =
        evidenceRank(keeper.evidence) <= evidenceRank('confirmed_user') ? keeper.evidence : 'confirmed_user'
      this.db.run(
        `UPDATE facts SET status = 'active', evidence_rank = ?, revision = revision + 1, updated_at = ${INSTANT} WHERE id = ?`,
        evidenceRank(evidence),
        now,
        keepId,
      )
      const [kept] = this.reader.getFacts([keepId])
      if (kept === undefined) throw new Error(`fact ${keepId} vanished inside its own transaction`)
      this.recorder.recordSettle(
        kept,
        rivals.map((fact) => ({ fact, as: superseded.includes(fact.id) ? 'superseded' : 'retired' })),
        now,
      )
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
      const [fact] = this.reader.getFacts([id])
      if (fact === undefined || !CURRENT_STATUSES.includes(fact.status)) return
      this.slots.supersede([id], by, now)
      if (fact.conflictGroupId !== null) this.slots.closeGroupIfMoot(fact.conflictGroupId, now)
      this.recorder.recordSupersede([{ fact, as: 'superseded' }], null, now)
    })
  }

  /**
   * Rebuild the full-text, cue and identifier indexes from the facts themselves.
   * @param entriesOf - computes a fact's index entries.
   * @returns how many facts were indexed.
   */
  rebuildIndexes(entriesOf: (fact: Fact) => { terms: string; identifiers: readonly string[] }): number {
    return this.db.transaction(() => {
      this.db.run('DELETE FROM facts_fts')
      this.db.run('DELETE FROM fact_cues_fts')
      this.db.run('DELETE FROM fact_identifiers')
      let indexed = 0
      let after = 0
      for (;;) {
        const batch = this.db
          .all(`SELECT ${FACT_COLUMNS} FROM facts WHERE id > ? AND status <> 'forgotten' ORDER BY id LIMIT 1000`, after)
          .map(toFact)
        if (batch.length === 0) return indexed
        for (const fact of batch) {
          const entries = entriesOf(fact)
          this.db.run('INSERT INTO facts_fts (rowid, terms) VALUES (?, ?)', fact.id, entries.terms)
          if (fact.cues.length > 0) reindexCues(this.db, fact.id)
          for (const ident of entries.identifiers)
            this.db.run('INSERT OR IGNORE INTO fact_identifiers (ident, fact_id) VALUES (?, ?)', ident, fact.id)
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
      for (const table of [
        'fact_edits',
        'fact_sources',
        'fact_identifiers',
        'facts_fts',
        'fact_cues_fts',
        'facts',
        'conflict_groups',
        'entities',
        'proposals',
        'proposal_changes',
        'projects',
        'recall_log',
        'aliases',
      ] as const) {
        this.db.run(`DELETE FROM ${table}`)
      }
      return { facts, proposals }
    })
  }
}
