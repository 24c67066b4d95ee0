/**
 * EditStore: reversible edits made from the page (value edits, expiries, conflict resolutions, applied
 * proposals). Each edit runs inside one transaction that snapshots the affected slots before and after, and
 * records what it created and what it changed, with the revision it left (and a row's text when a fold rewrote it),
 * plus the trail the work reports: sources it moved between facts and the keys of facts it moved to another entity.
 * `restore` undoes an edit exactly, and
 * refuses when any of those rows has moved since.
 */
import type { Evidence, FactStatus } from '../types.ts'
import { evidenceRank } from '../rules/write-policy.ts'
import { movedAliases, undoAliases, type AliasChange } from './alias-rows.ts'
import { numberOrNull, textOrNull } from './connection.ts'
import type { Database } from './database.ts'
import { reindexFact, restoreRowText, rowTexts, type RowText } from './fact-folds.ts'
import { INSTANT, instantColumn, KEY, keyColumn, keyPlaceholders, placeholders } from './fact-rows.ts'
import { afterForget, beforeForget, undoForget, type ForgetSnapshot } from './forget-edits.ts'
import { SyncRecorder } from './sync-recorder.ts'
import { recordUndo, rowsById } from './sync-undo.ts'

/**
 * What kind of edit. A forget is stored under the kind column's 'update' with its snapshot as the `changed` object
 * (the column's CHECK predates forgetting from the page), and read back as 'forget'.
 */
export type EditKind = 'update' | 'expire' | 'resolve' | 'apply' | 'forget' | 'rename' | 'import'

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
  /** Absent in edits recorded before edits could move a fact to another slot or make a slot multi-valued. */
  readonly slotKey?: string
  readonly claimKey?: string
  readonly multi?: boolean
}

/** The recorded state of one conflict group. */
interface GroupState {
  readonly id: number
  readonly status: 'open' | 'closed'
  readonly closedAt: string | null
  readonly settledBy: number | null
  /** Absent in edits recorded before a group could move with its facts to another slot. */
  readonly slotKey?: string
}

/** Who a fact is about, where it holds, and how it is keyed and indexed: what moving it to another entity or scope changes. */
export interface FactIdentity {
  readonly entityId: number
  readonly subject: string
  /** Absent in edits recorded before a fact's property could be renamed; an undo then leaves the property as it is. */
  readonly property?: string
  readonly predicateKey?: string
  /** Absent in edits recorded before a fact could move to another scope; an undo then leaves the scope as it is. */
  readonly scope?: string
  readonly slotKey: string
  readonly claimKey: string
  /** Carried by edits recorded while the evidence key was stored; unread, since the key is derived from the row. */
  readonly evidenceKey?: string
  /**
   * Carried by edits recorded before the full-text index stopped keeping a copy of its terms; unread, since an undo
   * derives the index entries from the restored row.
   */
  readonly terms?: string
  readonly identifiers?: readonly string[]
  /** Set only by a rename that changed how its subject is shown: the entity's display name before it. */
  readonly entityDisplay?: string
}

/**
 * A fact's identity as it stands, for an edit that moves it to record before the move.
 * @param db - the open database, inside the edit's transaction.
 * @param factId - the fact.
 * @returns its identity.
 */
export function identityOf(db: Database, factId: number): FactIdentity {
  const row = db.get(
    `SELECT entity_id, subject, property, predicate_key, scope, ${keyColumn('slot_key')}, ${keyColumn('claim_key')}
    FROM facts WHERE id = ?`,
    factId,
  )
  if (row === undefined) throw new Error(`fact ${factId} vanished inside its own transaction`)
  return {
    entityId: Number(row['entity_id']),
    subject: String(row['subject']),
    property: String(row['property']),
    predicateKey: String(row['predicate_key']),
    scope: String(row['scope']),
    slotKey: String(row['slot_key']),
    claimKey: String(row['claim_key']),
  }
}

/** What tracked work did besides changing rows' states, for the undo to take back. */
export interface EditTrail {
  /** Sources moved to another fact, with the fact each came from. */
  readonly sources: readonly { readonly id: number; readonly from: number }[]
  /** Facts moved to another entity, with their identity before the move. */
  readonly identities: readonly { readonly factId: number; readonly before: FactIdentity }[]
  /** Alias rows the work recorded, repointed or removed, in order; none by default. */
  readonly aliases?: readonly AliasChange[]
}

/** One changed row of an edit. */
interface ChangedRow {
  readonly before: RowState
  readonly revision: number
  /** Sources that belonged to this row before the edit moved them. */
  readonly sources?: readonly number[]
  /** The row's identity before the edit moved it to another entity. */
  readonly identity?: FactIdentity
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
  readonly changed: readonly ChangedRow[]
  /** Conflict groups the edit changed (before = null: the edit opened it). */
  readonly groups: readonly { readonly id: number; readonly before: GroupState | null }[]
  /** Alias rows the edit changed, in order, each before and after. */
  readonly aliases: readonly AliasChange[]
  /** A forget's snapshot (then created, changed and groups are empty). */
  readonly forget?: ForgetSnapshot
  /** What an import did besides its rows: see ImportTrail. */
  readonly imported?: ImportTrail
}

/** What an import's undo takes back besides the rows it created and changed. */
export interface ImportTrail {
  /** The forget edit its tombstones made, undone with it (after its rows, so nothing it forgot meets them). */
  readonly forgetEdit: number | null
  /** The range (from, through] of source rows it added; those on facts it did not create are deleted by the undo. */
  readonly sources: readonly [number, number]
}

/** What the work inside a tracked edit reports. */
export interface TrackedWork<T> {
  readonly result: T
  /** Rows the work inserted. */
  readonly created: readonly number[]
  /** Sources and identities the work moved; none by default. */
  readonly trail?: EditTrail
}

/** Why a restore was refused. */
export type RestoreRefusal =
  | { readonly kind: 'not_found' }
  | { readonly kind: 'already_undone' }
  | { readonly kind: 'moved'; readonly factIds: readonly number[] }
  /** An alias the edit recorded or changed was changed since (removed, or repointed by a later rename). */
  | { readonly kind: 'aliases_moved'; readonly aliasIds: readonly number[] }

/** Synchronous tracking and undo of page edits. */
export class EditStore {
  private readonly db: Database
  private readonly recorder: SyncRecorder

  /** @param db - an open, migrated database. */
  constructor(db: Database) {
    this.db = db
    this.recorder = new SyncRecorder(db)
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
  tracked<T>(
    kind: EditKind,
    slotKeys: readonly string[],
    refs: { factId?: number; proposalId?: number },
    now: string,
    work: () => TrackedWork<T>,
  ): { result: T; editId: number } {
    return this.db.transaction(() => {
      const mark = this.recorder.lastSeq()
      const before = rowStates(this.db, slotKeys)
      const textsBefore = rowTexts(this.db, [...before.keys()])
      const groupsBefore = groupStates(this.db, slotKeys)
      const outcome = work()
      const createdSlots =
        outcome.created.length === 0
          ? []
          : this.db
              .all(
                `SELECT DISTINCT ${keyColumn('slot_key')} FROM facts WHERE id IN (${placeholders(outcome.created.length)})`,
                ...outcome.created,
              )
              .map((row) => String(row['slot_key']))
      const slots = [...new Set([...slotKeys, ...createdSlots])]
      const after = rowStates(this.db, slots)
      const groupsAfter = groupStates(this.db, slots)
      const createdSet = new Set(outcome.created)
      const textsAfter = rowTexts(
        this.db,
        [...before.keys()].filter((id) => !createdSet.has(id)),
      )
      const rewritten = (id: number): RowText | undefined => {
        const text = textsBefore.get(id)
        return text !== undefined && textChanged(text, textsAfter.get(id)) ? text : undefined
      }
      const created = outcome.created.map((id) => ({ id, revision: after.get(id)?.revision ?? 1 }))
      const trail = firstMoves(outcome.trail ?? { sources: [], identities: [] })
      const trailed = new Set([
        ...trail.sources.map((source) => source.from),
        ...trail.identities.map((entry) => entry.factId),
      ])
      const changed: ChangedRow[] = [...before.values()]
        .filter(
          (state) =>
            !createdSet.has(state.id) &&
            (trailed.has(state.id) || differs(state, after.get(state.id)) || rewritten(state.id) !== undefined),
        )
        .map((state) => {
          const text = rewritten(state.id)
          const sources = trail.sources.filter((source) => source.from === state.id).map((source) => source.id)
          const identity = trail.identities.find((entry) => entry.factId === state.id)?.before
          return {
            before: text === undefined ? state : { ...state, text },
            revision: after.get(state.id)?.revision ?? state.revision,
            ...(sources.length === 0 ? {} : { sources }),
            ...(identity === undefined ? {} : { identity }),
          }
        })
      const untracked = [...trailed].filter((id) => !before.has(id))
      if (untracked.length > 0)
        throw new Error(`tracked work moved facts outside the slots it named: ${untracked.join(', ')}`)
      const groups = changedGroups(groupsBefore, groupsAfter)
      const editId = this.db.run(
        `INSERT INTO fact_edits (kind, fact_id, proposal_id, created, changed, groups, aliases, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        kind,
        refs.factId ?? null,
        refs.proposalId ?? null,
        JSON.stringify(created),
        JSON.stringify(changed),
        JSON.stringify(groups),
        JSON.stringify(outcome.trail?.aliases ?? []),
        now,
      ).lastInsertRowid
      this.recorder.linkEdit(editId, mark)
      return { result: outcome.result, editId }
    })
  }

  /**
   * Run a forget inside a transaction and record it as one reversible edit, with the snapshot its undo needs.
   * @param slotKeys - the slots of the facts the work forgets.
   * @param factId - the fact the edit is about (the one forgotten by id), if any.
   * @param now - ISO instant.
   * @param work - the synchronous forget; throwing rolls everything back.
   * @returns the work's result and the edit id.
   */
  trackedForget<T>(
    slotKeys: readonly string[],
    factId: number | undefined,
    now: string,
    work: () => T,
  ): { result: T; editId: number } {
    return this.db.transaction(() => {
      const mark = this.recorder.lastSeq()
      const before = beforeForget(this.db, [...new Set(slotKeys)])
      const result = work()
      const snapshot = afterForget(this.db, before)
      const editId = this.db.run(
        `INSERT INTO fact_edits (kind, fact_id, proposal_id, created, changed, groups, created_at) VALUES ('update', ?, NULL, '[]', ?, '[]', ?)`,
        factId ?? null,
        JSON.stringify({ forget: snapshot }),
        now,
      ).lastInsertRowid
      this.recorder.linkEdit(editId, mark)
      return { result, editId }
    })
  }

  /**
   * Read one edit.
   * @param id - the edit id.
   * @returns the record, or undefined.
   */
  get(id: number): EditRecord | undefined {
    const row = this.db.get(
      'SELECT id, kind, fact_id, proposal_id, created, changed, groups, aliases, created_at, undone_at FROM fact_edits WHERE id = ?',
      id,
    )
    if (row === undefined) return undefined
    const changed = JSON.parse(String(row['changed'])) as
      | ChangedRow[]
      | { forget: ForgetSnapshot }
      | { import: ImportTrail & { changed: ChangedRow[] } }
    if (!Array.isArray(changed) && 'import' in changed) {
      const { changed: rows, ...imported } = changed.import
      return {
        id: Number(row['id']),
        kind: 'import',
        factId: null,
        proposalId: null,
        createdAt: String(row['created_at']),
        undoneAt: textOrNull(row['undone_at']),
        created: JSON.parse(String(row['created'])) as EditRecord['created'],
        changed: rows,
        groups: JSON.parse(String(row['groups'])) as EditRecord['groups'],
        aliases: JSON.parse(String(row['aliases'])) as EditRecord['aliases'],
        imported,
      }
    }
    if (!Array.isArray(changed)) {
      return {
        id: Number(row['id']),
        kind: 'forget',
        factId: numberOrNull(row['fact_id']),
        proposalId: null,
        createdAt: String(row['created_at']),
        undoneAt: textOrNull(row['undone_at']),
        created: [],
        changed: [],
        groups: [],
        aliases: [],
        forget: changed.forget,
      }
    }
    return {
      id: Number(row['id']),
      kind: row['kind'] as EditKind,
      factId: numberOrNull(row['fact_id']),
      proposalId: numberOrNull(row['proposal_id']),
      createdAt: String(row['created_at']),
      undoneAt: textOrNull(row['undone_at']),
      created: JSON.parse(String(row['created'])) as EditRecord['created'],
      changed,
      groups: JSON.parse(String(row['groups'])) as EditRecord['groups'],
      aliases: JSON.parse(String(row['aliases'])) as EditRecord['aliases'],
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
      const before = edit === undefined ? [] : rowsById(this.db, touchedIds(edit))
      const outcome = this.undo(id, now)
      if (outcome.ok) recordUndo(this.db, this.recorder, outcome.edit, before, now)
      return outcome
    })
  }

  /** The undo itself (see `restore`), without its sync record. */
  private undo(id: number, now: string): { ok: true; edit: EditRecord } | { ok: false; refusal: RestoreRefusal } {
    return this.db.transaction(() => {
      const edit = this.get(id)
      if (edit === undefined) return { ok: false, refusal: { kind: 'not_found' } } as const
      if (edit.undoneAt !== null) return { ok: false, refusal: { kind: 'already_undone' } } as const
      if (edit.forget !== undefined) {
        const refused = undoForget(this.db, edit.forget)
        if (refused !== undefined) return { ok: false, refusal: { kind: 'moved', factIds: refused.factIds } } as const
        this.db.run('UPDATE fact_edits SET undone_at = ? WHERE id = ?', now, id)
        return { ok: true, edit: { ...edit, undoneAt: now } } as const
      }
      const touched = [
        ...edit.created.map((c) => ({ id: c.id, revision: c.revision })),
        ...edit.changed.map((c) => ({ id: c.before.id, revision: c.revision })),
      ]
      const moved = touched
        .filter((entry) => {
          const row = this.db.get('SELECT revision FROM facts WHERE id = ?', entry.id)
          return row === undefined || Number(row['revision']) !== entry.revision
        })
        .map((entry) => entry.id)
      if (moved.length > 0) return { ok: false, refusal: { kind: 'moved', factIds: moved } } as const
      const blockers = this.identityBlockers(edit, new Set(touched.map((entry) => entry.id)))
      if (blockers.length > 0) return { ok: false, refusal: { kind: 'moved', factIds: blockers } } as const
      const aliasesMoved = movedAliases(this.db, edit.aliases)
      if (aliasesMoved.length > 0)
        return { ok: false, refusal: { kind: 'aliases_moved', aliasIds: aliasesMoved } } as const
      for (const created of edit.created) {
        this.db.run(
          `UPDATE facts SET status = 'retired', valid_to = coalesce(valid_to, ${INSTANT}), revision = revision + 1, updated_at = ${INSTANT} WHERE id = ?`,
          now,
          now,
          created.id,
        )
      }
      // Facts go back to their own entity first, so no current claim or value meets its twin in the slot it left.
      for (const { before, identity } of edit.changed)
        if (identity !== undefined) this.restoreIdentity(before.id, identity)
      for (const { before, sources } of edit.changed) {
        if (sources !== undefined && sources.length > 0) {
          this.db.run(
            `UPDATE fact_sources SET fact_id = ? WHERE id IN (${placeholders(sources.length)})`,
            before.id,
            ...sources,
          )
        }
      }
      // Rows that were current before the edit come back last, so the one-active-per-slot index never sees two.
      const ordered = [...edit.changed].sort(
        (a, b) => Number(a.before.status === 'active') - Number(b.before.status === 'active'),
      )
      for (const { before } of ordered) {
        if (before.text !== undefined) restoreRowText(this.db, before.id, before.text)
        const multi = before.multi === undefined ? null : before.multi ? 1 : 0
        this.db.run(
          `UPDATE facts SET status = ?, valid_from = coalesce(${INSTANT}, valid_from), valid_to = ${INSTANT}, superseded_by = ?, conflict_group_id = ?,
          evidence_rank = ?, multi = coalesce(?, multi), revision = revision + 1, updated_at = ${INSTANT} WHERE id = ?`,
          before.status,
          before.validFrom ?? null,
          before.validTo,
          before.supersededBy,
          before.conflictGroupId,
          evidenceRank(before.evidence),
          multi,
          now,
          before.id,
        )
      }
      for (const group of edit.groups) {
        if (group.before === null)
          this.db.run(`UPDATE conflict_groups SET status = 'closed', closed_at = ? WHERE id = ?`, now, group.id)
        else
          this.db.run(
            `UPDATE conflict_groups SET status = ?, closed_at = ?, settled_by = ?, slot_key = coalesce(${KEY}, slot_key) WHERE id = ?`,
            group.before.status,
            group.before.closedAt,
            group.before.settledBy,
            group.before.slotKey ?? null,
            group.id,
          )
      }
      undoAliases(this.db, edit.aliases)
      if (edit.imported !== undefined) {
        const refused = this.undoImportTrail(
          edit.imported,
          edit.created.map((row) => row.id),
          now,
        )
        if (refused !== undefined) return { ok: false, refusal: { kind: 'moved', factIds: refused } } as const
      }
      this.db.run('UPDATE fact_edits SET undone_at = ? WHERE id = ?', now, id)
      return { ok: true, edit: { ...edit, undoneAt: now } } as const
    })
  }

  /**
   * Take back what an import did besides its rows: the sources it added to facts it found stored, then its forget.
   * A forget already undone on its own stays undone; one whose facts have moved refuses the whole undo.
   * @returns the moved fact ids when refused (everything this undo did is then rolled back), else undefined.
   */
  private undoImportTrail(trail: ImportTrail, created: readonly number[], now: string): readonly number[] | undefined {
    const [from, through] = trail.sources
    this.db.run(
      `DELETE FROM fact_sources WHERE id > ? AND id <= ? AND fact_id NOT IN (SELECT value FROM json_each(?))`,
      from,
      through,
      JSON.stringify(created),
    )
    if (trail.forgetEdit === null) return undefined
    const forget = this.get(trail.forgetEdit)
    if (forget?.forget === undefined || forget.undoneAt !== null) return undefined
    const refused = undoForget(this.db, forget.forget)
    if (refused !== undefined) return refused.factIds
    this.db.run('UPDATE fact_edits SET undone_at = ? WHERE id = ?', now, trail.forgetEdit)
    return undefined
  }

  /**
   * Begin recording an import as one reversible edit (see ImportRecorder).
   * @returns the recorder; call it only inside the import's own transaction.
   */
  recordImport(): ImportRecorder {
    return new ImportRecorder(this.db, this.recorder)
  }

  /**
   * Current facts written since an edit into the slots its moved facts came from, which the undo would meet: one
   * holding a moved fact's claim, or the active value of a single-valued slot a moved active fact held.
   */
  private identityBlockers(edit: EditRecord, touched: ReadonlySet<number>): number[] {
    const blockers = new Set<number>()
    for (const { before, identity } of edit.changed) {
      if (identity === undefined || !['active', 'scheduled', 'conflict'].includes(before.status)) continue
      const single = before.status === 'active' && before.multi !== true
      for (const row of this.db.all(
        `SELECT id, ${keyColumn('claim_key')}, status, multi FROM facts WHERE slot_key = ${KEY} AND status IN ('active', 'scheduled', 'conflict')`,
        identity.slotKey,
      )) {
        const id = Number(row['id'])
        if (touched.has(id)) continue
        if (
          row['claim_key'] === identity.claimKey ||
          (single && row['status'] === 'active' && Number(row['multi']) === 0)
        )
          blockers.add(id)
      }
    }
    return [...blockers]
  }

  private restoreIdentity(factId: number, identity: FactIdentity): void {
    this.db.run(
      `UPDATE facts SET entity_id = ?, subject = ?, property = coalesce(?, property), predicate_key = coalesce(?, predicate_key),
      scope = coalesce(?, scope), slot_key = ${KEY}, claim_key = ${KEY} WHERE id = ?`,
      identity.entityId,
      identity.subject,
      identity.property ?? null,
      identity.predicateKey ?? null,
      identity.scope ?? null,
      identity.slotKey,
      identity.claimKey,
      factId,
    )
    if (identity.entityDisplay !== undefined)
      this.db.run('UPDATE entities SET display = ? WHERE id = ?', identity.entityDisplay, identity.entityId)
    reindexFact(this.db, factId)
  }
}

/** Every fact row an edit created, changed or forgot. */
function touchedIds(edit: EditRecord): number[] {
  return [
    ...edit.created.map((row) => row.id),
    ...edit.changed.map((row) => row.before.id),
    ...(edit.forget?.rows.map((row) => Number(row.before['id'])) ?? []),
  ]
}

/**
 * The trail reduced to where things were before the edit: a source moved twice (a merge chain: a into b, then b into
 * c) is recorded once, with the fact it first came from, and a fact's identity once, as it first was.
 */
function firstMoves(trail: EditTrail): EditTrail {
  const sources = new Map<number, { id: number; from: number }>()
  for (const source of trail.sources) if (!sources.has(source.id)) sources.set(source.id, source)
  const identities = new Map<number, EditTrail['identities'][number]>()
  for (const entry of trail.identities) if (!identities.has(entry.factId)) identities.set(entry.factId, entry)
  return { sources: [...sources.values()], identities: [...identities.values()] }
}

function differs(before: RowState, after: RowState | undefined): boolean {
  if (after === undefined) return true
  return (
    before.status !== after.status ||
    before.validFrom !== after.validFrom ||
    before.validTo !== after.validTo ||
    before.supersededBy !== after.supersededBy ||
    before.conflictGroupId !== after.conflictGroupId ||
    before.evidence !== after.evidence ||
    before.slotKey !== after.slotKey ||
    before.claimKey !== after.claimKey ||
    before.multi !== after.multi
  )
}

/** Whether a row's text moved, observation time aside (a duplicate write moves only that, and changes no text). */
function textChanged(before: RowText, after: RowText | undefined): boolean {
  if (after === undefined) return false
  const { observedAt: _before, ...was } = before
  const { observedAt: _after, ...now } = after
  return JSON.stringify(was) !== JSON.stringify(now)
}

/** The conflict groups an edit opened or changed, each with its state before (null: the edit opened it). */
function changedGroups(
  before: ReadonlyMap<number, GroupState>,
  after: ReadonlyMap<number, GroupState>,
): EditRecord['groups'] {
  return [...after.values()]
    .filter((group) => groupDiffers(before.get(group.id), group))
    .map((group) => ({ id: group.id, before: before.get(group.id) ?? null }))
}

function groupDiffers(before: GroupState | undefined, after: GroupState): boolean {
  if (before === undefined) return true
  return (
    before.status !== after.status ||
    before.closedAt !== after.closedAt ||
    before.settledBy !== after.settledBy ||
    before.slotKey !== after.slotKey
  )
}

/** Slots whose after-state one step of an import's record reads. */
const SLOTS_PER_STEP = 400

/**
 * An import recorded as one reversible edit while it runs in slices: each slot is snapshotted before the import first
 * writes to it, and at the end the rows it created, the rows and conflict groups it changed, the aliases it recorded,
 * the sources it added and the forget its tombstones made are written as one edit that `restore` undoes.
 */
export class ImportRecorder {
  private readonly db: Database
  private readonly slots = new Set<string>()
  private readonly before = new Map<number, RowState>()
  private readonly groupsBefore = new Map<number, GroupState>()
  private readonly sourcesFrom: number
  private readonly recorder: SyncRecorder
  private readonly recordsFrom: number

  constructor(db: Database, recorder: SyncRecorder) {
    this.db = db
    this.sourcesFrom = maxSourceId(db)
    this.recorder = recorder
    this.recordsFrom = recorder.lastSeq()
  }

  /**
   * Snapshot a slot before the import first writes to it (a slot seen before is left as first seen).
   * @param slotKey - the slot the next write lands in.
   */
  watch(slotKey: string): void {
    if (this.slots.has(slotKey)) return
    this.slots.add(slotKey)
    for (const [id, state] of rowStates(this.db, [slotKey])) this.before.set(id, state)
    for (const [id, state] of groupStates(this.db, [slotKey])) this.groupsBefore.set(id, state)
  }

  /**
   * Write the edit: the after-state is read a few hundred slots per step, each step run by `step` (the import's
   * slice), with `pause` between steps.
   * @returns the edit id.
   */
  async record(
    change: {
      readonly created: readonly number[]
      readonly aliases: readonly AliasChange[]
      readonly forgetEdit: number | null
    },
    now: string,
    step: <R>(work: () => R) => R,
    pause: () => Promise<void>,
  ): Promise<number> {
    const slots = [...this.slots]
    const after = new Map<number, RowState>()
    const groupsAfter = new Map<number, GroupState>()
    for (let start = 0; start < slots.length; start += SLOTS_PER_STEP) {
      const part = slots.slice(start, start + SLOTS_PER_STEP)
      step(() => {
        for (const [id, state] of rowStates(this.db, part)) after.set(id, state)
        for (const [id, state] of groupStates(this.db, part)) groupsAfter.set(id, state)
      })
      await pause()
    }
    const createdSet = new Set(change.created)
    const changed: ChangedRow[] = [...this.before.values()]
      .filter((state) => !createdSet.has(state.id) && differs(state, after.get(state.id)))
      .map((state) => ({ before: state, revision: after.get(state.id)?.revision ?? state.revision }))
    const groups = changedGroups(this.groupsBefore, groupsAfter)
    return step(() => {
      const created = change.created.map((id) => ({ id, revision: after.get(id)?.revision ?? 1 }))
      const trail: ImportTrail & { changed: ChangedRow[] } = {
        changed,
        forgetEdit: change.forgetEdit,
        sources: [this.sourcesFrom, maxSourceId(this.db)],
      }
      const editId = this.db.run(
        `INSERT INTO fact_edits (kind, fact_id, proposal_id, created, changed, groups, aliases, created_at) VALUES ('apply', NULL, NULL, ?, ?, ?, ?, ?)`,
        JSON.stringify(created),
        JSON.stringify({ import: trail }),
        JSON.stringify(groups),
        JSON.stringify(change.aliases),
        now,
      ).lastInsertRowid
      // The import is one transaction (sliced): every own record appended since it began is its own.
      this.recorder.linkEdit(editId, this.recordsFrom)
      return editId
    })
  }
}

function maxSourceId(db: Database): number {
  return Number(db.get('SELECT coalesce(max(id), 0) AS n FROM fact_sources')?.['n'] ?? 0)
}

/** The state of every row of these slots but the forgotten ones, by id. */
function rowStates(db: Database, slotKeys: readonly string[]): Map<number, RowState> {
  const states = new Map<number, RowState>()
  if (slotKeys.length === 0) return states
  for (const row of db.all(
    `SELECT id, status, ${instantColumn('valid_from')}, ${instantColumn('valid_to')}, superseded_by, conflict_group_id, evidence, revision, ${keyColumn('slot_key')},
      ${keyColumn('claim_key')}, multi FROM facts WHERE slot_key IN (${keyPlaceholders(slotKeys.length)}) AND status <> 'forgotten'`,
    ...slotKeys,
  )) {
    states.set(Number(row['id']), {
      id: Number(row['id']),
      status: row['status'] as FactStatus,
      validFrom: String(row['valid_from']),
      validTo: textOrNull(row['valid_to']),
      supersededBy: numberOrNull(row['superseded_by']),
      conflictGroupId: numberOrNull(row['conflict_group_id']),
      evidence: row['evidence'] as Evidence,
      revision: Number(row['revision']),
      slotKey: String(row['slot_key']),
      claimKey: String(row['claim_key']),
      multi: Number(row['multi']) === 1,
    })
  }
  return states
}

/** The state of every conflict group of these slots, by id. */
function groupStates(db: Database, slotKeys: readonly string[]): Map<number, GroupState> {
  const states = new Map<number, GroupState>()
  if (slotKeys.length === 0) return states
  for (const row of db.all(
    `SELECT id, status, closed_at, settled_by, ${keyColumn('slot_key')} FROM conflict_groups WHERE slot_key IN (${keyPlaceholders(slotKeys.length)})`,
    ...slotKeys,
  )) {
    states.set(Number(row['id']), {
      id: Number(row['id']),
      status: row['status'] as GroupState['status'],
      closedAt: textOrNull(row['closed_at']),
      settledBy: numberOrNull(row['settled_by']),
      slotKey: String(row['slot_key']),
    })
  }
  return states
}
