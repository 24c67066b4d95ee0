/**
 * EditStore: reversible edits made from the page (value edits, expiries, conflict resolutions, applied
 * proposals). Each edit runs inside one transaction that snapshots the affected slots before and after, and
 * records what it created and what it changed, with the revision it left (and a row's text when a fold rewrote it). `restore` undoes an edit exactly, and
 * refuses when any of those rows has moved since.
 */
import type { Evidence, FactStatus } from '../types.ts'
import { evidenceRank } from '../write-policy.ts'
import { numberOrNull, textOrNull } from './connection.ts'
import type { Database } from './database.ts'
import { restoreRowText, rowTexts, type RowText } from './fact-folds.ts'
import { placeholders } from './fact-rows.ts'

/** What kind of edit. */
export type EditKind = 'update' | 'expire' | 'resolve' | 'apply'

/** The recorded state of one fact row. */
interface RowState {
  readonly id: number
  readonly status: FactStatus
  /** Absent in edits recorded before window edits existed; an undo then leaves the start as it is. */
  readonly validFrom?: string
  readonly validTo: string | null
  readonly supersededBy: number | null
  readonly conflictGroupId: number | null
  readonly evidence: Evidence
  readonly revision: number
  /** The row's text, recorded only when the edit changed it in place (a write that folded into the row). */
  readonly text?: RowText
}

/** The recorded state of one conflict group. */
interface GroupState {
  readonly id: number
  readonly status: 'open' | 'closed'
  readonly closedAt: string | null
  readonly settledBy: number | null
}

/** One recorded edit. */
export interface EditRecord {
  readonly id: number
  readonly kind: EditKind
  readonly factId: number | null
  readonly proposalId: number | null
  readonly createdAt: string
  readonly undoneAt: string | null
  /** Rows the edit inserted, with the revision it left them at. */
  readonly created: readonly { readonly id: number; readonly revision: number }[]
  /** Rows the edit changed: their prior state and the revision it left. */
  readonly changed: readonly { readonly before: RowState; readonly revision: number }[]
  /** Conflict groups the edit changed (before = null: the edit opened it). */
  readonly groups: readonly { readonly id: number; readonly before: GroupState | null }[]
}

/** What the work inside a tracked edit reports. */
export interface TrackedWork<T> {
  readonly result: T
  /** Rows the work inserted. */
  readonly created: readonly number[]
}

/** Why a restore was refused. */
export type RestoreRefusal = { readonly kind: 'not_found' } | { readonly kind: 'already_undone' } | { readonly kind: 'moved'; readonly factIds: readonly number[] }

/** Synchronous tracking and undo of page edits. */
export class EditStore {
  private readonly db: Database

  /** @param db - an open, migrated database. */
  constructor(db: Database) {
    this.db = db
  }

  /**
   * Run `work` inside a transaction and record it as one reversible edit.
   * @param kind - the edit kind.
   * @param slotKeys - slots the work may touch (slots of rows it creates are added automatically).
   * @param refs - the fact and proposal the edit is about.
   * @param now - ISO instant.
   * @param work - synchronous store work; throwing rolls everything back.
   * @returns the work's result and the edit id.
   */
  tracked<T>(kind: EditKind, slotKeys: readonly string[], refs: { factId?: number; proposalId?: number }, now: string,
    work: () => TrackedWork<T>): { result: T; editId: number } {
    return this.db.transaction(() => {
      const before = this.rowStates(slotKeys)
      const textsBefore = rowTexts(this.db, [...before.keys()])
      const groupsBefore = this.groupStates(slotKeys)
      const outcome = work()
      const createdSlots = outcome.created.length === 0 ? [] : this.db.all(
        `SELECT DISTINCT slot_key FROM facts WHERE id IN (${placeholders(outcome.created.length)})`, ...outcome.created)
        .map((row) => String(row['slot_key']))
      const slots = [...new Set([...slotKeys, ...createdSlots])]
      const after = this.rowStates(slots)
      const groupsAfter = this.groupStates(slots)
      const createdSet = new Set(outcome.created)
      const textsAfter = rowTexts(this.db, [...before.keys()].filter((id) => !createdSet.has(id)))
      const rewritten = (id: number): RowText | undefined => {
        const text = textsBefore.get(id)
        return text !== undefined && textChanged(text, textsAfter.get(id)) ? text : undefined
      }
      const created = outcome.created.map((id) => ({ id, revision: after.get(id)?.revision ?? 1 }))
      const changed = [...before.values()]
        .filter((state) => !createdSet.has(state.id) && (differs(state, after.get(state.id)) || rewritten(state.id) !== undefined))
        .map((state) => {
          const text = rewritten(state.id)
          return { before: text === undefined ? state : { ...state, text }, revision: after.get(state.id)?.revision ?? state.revision }
        })
      const groups = [...groupsAfter.values()]
        .filter((group) => groupDiffers(groupsBefore.get(group.id), group))
        .map((group) => ({ id: group.id, before: groupsBefore.get(group.id) ?? null }))
      const editId = this.db.run(
        `INSERT INTO fact_edits (kind, fact_id, proposal_id, created, changed, groups, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        kind, refs.factId ?? null, refs.proposalId ?? null, JSON.stringify(created), JSON.stringify(changed), JSON.stringify(groups), now)
        .lastInsertRowid
      return { result: outcome.result, editId }
    })
  }

  /**
   * Read one edit.
   * @param id - the edit id.
   * @returns the record, or undefined.
   */
  get(id: number): EditRecord | undefined {
    const row = this.db.get('SELECT id, kind, fact_id, proposal_id, created, changed, groups, created_at, undone_at FROM fact_edits WHERE id = ?', id)
    if (row === undefined) return undefined
    return {
      id: Number(row['id']),
      kind: row['kind'] as EditKind,
      factId: numberOrNull(row['fact_id']),
      proposalId: numberOrNull(row['proposal_id']),
      createdAt: String(row['created_at']),
      undoneAt: textOrNull(row['undone_at']),
      created: JSON.parse(String(row['created'])) as EditRecord['created'],
      changed: JSON.parse(String(row['changed'])) as EditRecord['changed'],
      groups: JSON.parse(String(row['groups'])) as EditRecord['groups'],
    }
  }

  /**
   * Undo an edit: rows it created are retired, rows it changed get their prior state back, groups it closed
   * reopen and groups it opened close. Refused when a touched row's revision moved since the edit.
   * @param id - the edit id.
   * @param now - ISO instant.
   * @returns the undone record, or why not.
   */
  restore(id: number, now: string): { ok: true; edit: EditRecord } | { ok: false; refusal: RestoreRefusal } {
    return this.db.transaction(() => {
      const edit = this.get(id)
      if (edit === undefined) return { ok: false, refusal: { kind: 'not_found' } } as const
      if (edit.undoneAt !== null) return { ok: false, refusal: { kind: 'already_undone' } } as const
      const touched = [...edit.created.map((c) => ({ id: c.id, revision: c.revision })), ...edit.changed.map((c) => ({ id: c.before.id, revision: c.revision }))]
      const moved = touched.filter((entry) => {
        const row = this.db.get('SELECT revision FROM facts WHERE id = ?', entry.id)
        return row === undefined || Number(row['revision']) !== entry.revision
      }).map((entry) => entry.id)
      if (moved.length > 0) return { ok: false, refusal: { kind: 'moved', factIds: moved } } as const
      for (const created of edit.created) {
        this.db.run(`UPDATE facts SET status = 'retired', valid_to = coalesce(valid_to, ?), revision = revision + 1, updated_at = ? WHERE id = ?`,
          now, now, created.id)
      }
      // Rows that were current before the edit come back last, so the one-active-per-slot index never sees two.
      const ordered = [...edit.changed].sort((a, b) => Number(a.before.status === 'active') - Number(b.before.status === 'active'))
      for (const { before } of ordered) {
        if (before.text !== undefined) restoreRowText(this.db, before.id, before.text)
        this.db.run(`UPDATE facts SET status = ?, valid_from = coalesce(?, valid_from), valid_to = ?, superseded_by = ?, conflict_group_id = ?,
          evidence = ?, evidence_rank = ?, revision = revision + 1, updated_at = ? WHERE id = ?`,
          before.status, before.validFrom ?? null, before.validTo, before.supersededBy, before.conflictGroupId, before.evidence,
          evidenceRank(before.evidence), now, before.id)
      }
      for (const group of edit.groups) {
        if (group.before === null) this.db.run(`UPDATE conflict_groups SET status = 'closed', closed_at = ? WHERE id = ?`, now, group.id)
        else this.db.run('UPDATE conflict_groups SET status = ?, closed_at = ?, settled_by = ? WHERE id = ?',
          group.before.status, group.before.closedAt, group.before.settledBy, group.id)
      }
      this.db.run('UPDATE fact_edits SET undone_at = ? WHERE id = ?', now, id)
      return { ok: true, edit: { ...edit, undoneAt: now } } as const
    })
  }

  private rowStates(slotKeys: readonly string[]): Map<number, RowState> {
    const states = new Map<number, RowState>()
    if (slotKeys.length === 0) return states
    for (const row of this.db.all(
      `SELECT id, status, valid_from, valid_to, superseded_by, conflict_group_id, evidence, revision FROM facts
        WHERE slot_key IN (${placeholders(slotKeys.length)}) AND status <> 'forgotten'`, ...slotKeys)) {
      states.set(Number(row['id']), {
        id: Number(row['id']),
        status: row['status'] as FactStatus,
        validFrom: String(row['valid_from']),
        validTo: textOrNull(row['valid_to']),
        supersededBy: numberOrNull(row['superseded_by']),
        conflictGroupId: numberOrNull(row['conflict_group_id']),
        evidence: row['evidence'] as Evidence,
        revision: Number(row['revision']),
      })
    }
    return states
  }

  private groupStates(slotKeys: readonly string[]): Map<number, GroupState> {
    const states = new Map<number, GroupState>()
    if (slotKeys.length === 0) return states
    for (const row of this.db.all(
      `SELECT id, status, closed_at, settled_by FROM conflict_groups WHERE slot_key IN (${placeholders(slotKeys.length)})`, ...slotKeys)) {
      states.set(Number(row['id']), {
        id: Number(row['id']),
        status: row['status'] as GroupState['status'],
        closedAt: textOrNull(row['closed_at']),
        settledBy: numberOrNull(row['settled_by']),
      })
    }
    return states
  }
}

function differs(before: RowState, after: RowState | undefined): boolean {
  if (after === undefined) return true
  return before.status !== after.status || before.validFrom !== after.validFrom || before.validTo !== after.validTo
    || before.supersededBy !== after.supersededBy
    || before.conflictGroupId !== after.conflictGroupId || before.evidence !== after.evidence
}

/** Whether a row's text moved, observation time aside (a duplicate write moves only that, and changes no text). */
function textChanged(before: RowText, after: RowText | undefined): boolean {
  if (after === undefined) return false
  const { observedAt: _before, ...was } = before
  const { observedAt: _after, ...now } = after
  return JSON.stringify(was) !== JSON.stringify(now)
}

function groupDiffers(before: GroupState | undefined, after: GroupState): boolean {
  if (before === undefined) return true
  return before.status !== after.status || before.closedAt !== after.closedAt || before.settledBy !== after.settledBy
}
