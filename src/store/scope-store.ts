/**
 * ScopeStore: moving a current fact to another scope (global, a free-text label, a project) on its own row, with
 * the keys a write into that scope would give it, in one transaction; the edit log undoes it from the identities it
 * reports. A single-valued fact moves with its slot's history in its scope; a multi-valued one moves alone. A move
 * never overwrites: a current value already in the target slot refuses it. It reads through the FactReader it is given.
 */
import type { FactKeys } from '../fact-input.ts'
import { CURRENT_STATUSES, type Fact, type ProjectRef } from '../types.ts'
import { identityOf, type EditTrail } from './edit-store.ts'
import { FACT_COLUMNS, INSTANT, KEY, toFact } from './fact-rows.ts'
import type { Database } from './database.ts'
import type { FactReader } from './fact-reader.ts'
import { projectNamed, recordProject, type ProjectRow } from './project-rows.ts'
import { findTombstone } from './tombstones.ts'
import type { SyncRecorder } from './sync-recorder.ts'

/** Computes a stored fact's keys as a write into another scope would (`keysUnder` of fact-input.ts, scope swapped). */
export type ScopeKeysOf = (fact: Fact, scope: string) => FactKeys

/** Where a fact moves: the scope text, and the project when it is a project's. */
export interface ScopeTarget {
  readonly scope: string
  readonly project: ProjectRef | null
}

/** Why a move did nothing. */
export type MoveRefusal =
  | { readonly reason: 'not_current' }
  | { readonly reason: 'same_scope' }
  | { readonly reason: 'contested' }
  | { readonly reason: 'tombstoned' }
  /** The target slot already holds a current value this move would meet: the fact there. */
  | { readonly reason: 'occupied'; readonly occupant: Fact }

/** What a move did. */
export type MoveOutcome =
  | { readonly ok: true; readonly fact: Fact; readonly moved: readonly Fact[]; readonly trail: EditTrail }
  | ({ readonly ok: false } & MoveRefusal)

/** Synchronous moves of facts between scopes. */
export class ScopeStore {
  private readonly db: Database
  private readonly reader: FactReader
  private readonly recorder: SyncRecorder

  /**
   * @param db - the open, migrated database.
   * @param reader - the reads over the same database.
   * @param recorder - appends a `move` record per current row moved, in the move's transaction.
   */
  constructor(db: Database, reader: FactReader, recorder: SyncRecorder) {
    this.db = db
    this.reader = reader
    this.recorder = recorder
  }

  /**
   * Move a current fact to another scope. Refused, with nothing moved, when the fact is not current, is already
   * there, is contested (settle it first), would restate a claim the user forgot (in any scope), or would meet a
   * current value in the target slot (a single-valued slot holding any, a multi-valued one holding the same value or
   * a single value).
   * @param id - the fact.
   * @param target - the scope it moves to.
   * @param keysOf - computes a row's keys in the target scope.
   * @param now - ISO instant.
   * @returns the fact as moved and every row that moved with it, or why not.
   */
  moveToScope(id: number, target: ScopeTarget, keysOf: ScopeKeysOf, now: string): MoveOutcome {
    return this.db.transaction((): MoveOutcome => {
      const [fact] = this.reader.getFacts([id])
      if (fact === undefined || !CURRENT_STATUSES.includes(fact.status)) return { ok: false, reason: 'not_current' }
      if (fact.scope === target.scope) return { ok: false, reason: 'same_scope' }
      if (fact.status === 'conflict' || (fact.conflictGroupId !== null && this.groupOpen(fact.conflictGroupId)))
        return { ok: false, reason: 'contested' }
      const rows = fact.multi ? [fact] : this.slotRowsIn(fact.slotKey, fact.scope)
      const moving = rows.map((row) => ({ row, keys: keysOf(row, target.scope) }))
      const movingIds = new Set(rows.map((row) => row.id as number))
      const current = moving.filter(({ row }) => CURRENT_STATUSES.includes(row.status))
      if (current.some(({ keys }) => findTombstone(this.db, keys) !== undefined))
        return { ok: false, reason: 'tombstoned' }
      const targetKeys = keysOf(fact, target.scope)
      const occupant = this.currentInSlot(targetKeys.slotKey).find(
        (row) =>
          !movingIds.has(row.id) &&
          (!fact.multi || !row.multi || current.some(({ keys }) => keys.claimKey === row.claimKey)),
      )
      if (occupant !== undefined) return { ok: false, reason: 'occupied', occupant }
      const identities = rows.map((row) => ({ factId: row.id as number, before: identityOf(this.db, row.id) }))
      for (const { row, keys } of moving) {
        this.db.run(
          `UPDATE facts SET scope = ?, slot_key = ${KEY}, claim_key = ${KEY}, revision = revision + 1, updated_at = ${INSTANT}
          WHERE id = ?`,
          target.scope,
          keys.slotKey,
          keys.claimKey,
          now,
          row.id,
        )
      }
      if (target.project !== null) recordProject(this.db, target.project, now)
      const moved = this.reader.getFacts(rows.map((row) => row.id))
      const movedFact = moved.find((row) => row.id === fact.id)
      if (movedFact === undefined) throw new Error(`fact ${id} vanished inside its own transaction`)
      // History rows that moved with their slot stay local, as the snapshot leaves them.
      for (const { row } of current) {
        const after = moved.find((each) => each.id === row.id)
        if (after !== undefined) this.recorder.recordMove(row, after, now)
      }
      return { ok: true, fact: movedFact, moved, trail: { sources: [], identities } }
    })
  }

  /**
   * A project the store knows, by key: a move into a project's scope names one of these.
   * @param key - the project key.
   * @returns its row, or undefined when no fact was ever written in it.
   */
  knownProject(key: string): ProjectRow | undefined {
    return projectNamed(this.db, key)
  }

  private groupOpen(groupId: number): boolean {
    return this.db.get(`SELECT 1 AS open FROM conflict_groups WHERE id = ? AND status = 'open'`, groupId) !== undefined
  }

  /** The non-forgotten rows of one slot in one scope: a single-valued value and its history. */
  private slotRowsIn(slotKey: string, scope: string): Fact[] {
    // Through the slot index by name, not the scope index every global fact shares (see FactReader.restatementRows).
    return this.db
      .all(
        `SELECT ${FACT_COLUMNS} FROM facts INDEXED BY facts_by_slot WHERE slot_key = ${KEY} AND scope = ? AND status <> 'forgotten' ORDER BY id`,
        slotKey,
        scope,
      )
      .map(toFact)
  }

  private currentInSlot(slotKey: string): Fact[] {
    return this.db
      .all(
        `SELECT ${FACT_COLUMNS} FROM facts WHERE slot_key = ${KEY} AND status IN ('active', 'scheduled', 'conflict') ORDER BY id`,
        slotKey,
      )
      .map(toFact)
  }
}
