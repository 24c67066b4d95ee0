/**
 * The apply plan: what a store must do to its rows so that the subjects it holds read as the merged outcome
 * (`merge.ts`) of every record it keeps. Given the merged state of the records that name some subjects, every
 * statement those records make, and the store's rows of those subjects, it says per slot which rows to insert, which
 * to move to another status (with evidence, pin and devices), and which to forget. The rules, all set-wise so the
 * plan's result does not depend on the order records arrived in:
 * - a merged current value has exactly one current row, active or a conflict side as the merge says;
 * - each way a value left its slot (superseded, retired, expired) has a history row; folded counts as superseded and
 *   moved as retired, the store's own names for them;
 * - a value a tombstone blocks is forgotten, whatever row holds it, and never inserted; a forget made under a name
 *   linked to the one in force by aliases (`forgottenAsNamed`) blocks the value under that name too;
 * - a row held under a name since renamed away (a subject, property or project) whose value the outcome keeps under
 *   the name in force moves there, as the rename moved it on the device that made it: the old name keeps nothing, so
 *   every device answers a look-up of the old name alike; a value stated under two names that now lead to one slot,
 *   or that alias records (overridden or undone since) renamed into one kept slot, also has a superseded row there (a
 *   store may have held both, and a merge supersedes the twin it moves);
 * - a row held under a name a rename led to that no statement of its value names, now that the rename is undone or
 *   taken back, moves to the one slot its statements lead to, as a store that never applied the rename holds it (the
 *   slot of an undone statement's trace when the outcome keeps the value nowhere);
 * - a value a record stated that the outcome keeps nowhere (an undone statement) leaves a retired row under the name
 *   it was stated with, and under the name in force when that was renamed since, whether or not the store had
 *   applied it before the undo or the rename arrived; so does a value an undone record put back or ended, or that a
 *   record in force ended in an undone statement, that the outcome keeps current with no history (a store that
 *   applied those records before the undo may hold that history row beside);
 * - a row whose value no record names (a credential, history older than sync) is left alone.
 * Pure: no clock, no store.
 */
import type { Evidence, FactStatus } from '../types.ts'
import type { EndStatus, FactRow, SlotRef } from './change-record.ts'
import { claimId, slotId, type MergedState } from './merge.ts'

/** A row as the store holds it, named the way records name values. */
export interface StoredRow {
  readonly id: number
  /** The slot under the store's canonical keys. */
  readonly slot: SlotRef
  /** Canonical value key. */
  readonly value: string
  readonly status: FactStatus
  readonly evidence: Evidence
  readonly pinnedAt: string | null
  readonly multi: boolean
  /** Devices whose statements of the value stand (empty: none recorded). */
  readonly devices: readonly string[]
}

/** A value stated by a record: a write, a move's arrival, a put-back. */
export interface Statement {
  /** The slot as the record names it. */
  readonly slot: SlotRef
  /** The same slot under the names in force. */
  readonly canonical: SlotRef
  readonly value: string
  readonly row: FactRow
}

/** A value in a slot (under the names in force) that an undone record put back as history or ended. */
export interface UndoneEnd {
  readonly slot: SlotRef
  readonly value: string
}

/** A status a synced row can take. */
export type PlannedStatus = 'active' | 'conflict' | 'superseded' | 'retired' | 'expired'

/** Where a row must end up; an absent field keeps what the row has. */
export interface RowTarget {
  readonly status: PlannedStatus
  readonly evidence?: Evidence
  readonly pinnedAt?: string | null
  readonly multi?: boolean
  readonly devices?: readonly string[]
}

/** One step on the store's rows. */
export type RowAction =
  | {
      readonly kind: 'insert'
      readonly slot: SlotRef
      readonly row: FactRow
      readonly target: RowTarget
      /** True for a trace under a name renamed away: inserted under that name, not the one in force. */
      readonly asNamed: boolean
    }
  | { readonly kind: 'update'; readonly row: StoredRow; readonly target: RowTarget }
  | { readonly kind: 'forget'; readonly row: StoredRow }

/** A row held under a name since renamed away, to move under the names in force before any slot's steps run. */
export interface Relocation {
  readonly row: StoredRow
  /** The slot under the names in force. */
  readonly to: SlotRef
}

/** The steps for one slot. */
export interface SlotPlan {
  readonly slot: SlotRef
  /** Whether the slot is contested after the steps (its current rows form one open conflict group). */
  readonly conflict: boolean
  /** Ordered so that no step meets two active rows in a single-valued slot: rows leave before others arrive. */
  readonly actions: readonly RowAction[]
}

const CURRENT: ReadonlySet<FactStatus> = new Set(['active', 'scheduled', 'conflict'])

/** What applying must do: rows to move under the names in force first, then each slot's steps. */
export interface ApplyPlan {
  readonly relocations: readonly Relocation[]
  readonly slots: readonly SlotPlan[]
}

/** What the records say beyond the merged state, each part empty (nothing renamed, undone or forgotten) by default. */
export interface PlanContext {
  /** A slot under the names in force (the aliases of the same records). */
  readonly canonical?: (slot: SlotRef) => SlotRef
  /** A slot under every alias that was ever in force, removed ones too (the names in force when none was removed). */
  readonly everCanonical?: (slot: SlotRef) => SlotRef
  /** Whether alias records (in force or not, one or a chain) renamed a subject, property or project `from` to `to`. */
  readonly renamedInto?: (kind: 'entity' | 'predicate' | 'project', from: string, to: string) => boolean
  /** Whether an alias record (in force or not) renamed a subject, property or project key to another. */
  readonly renamedAway?: (kind: 'entity' | 'predicate' | 'project', from: string) => boolean
  /** Values undone records put back as history or ended, and values a record in force ended in an undone statement. */
  readonly undoneEnds?: readonly UndoneEnd[]
  /** Claims (`claimId`) of forgets in force under the names aliases link to theirs, other than the one in force. */
  readonly forgottenAsNamed?: readonly string[]
}

/**
 * Plan the steps that bring the store's rows to the merged outcome.
 * @param merged - the merged state of every record naming the subjects at hand.
 * @param statements - every value those records state, undone ones included.
 * @param rows - the store's non-forgotten rows of those subjects (credentials left out).
 * @param context - renames, undos and forgets under old names the records hold.
 * @returns the rows to move under the names in force (a current one leaves the current set as it moves; the slot's
 *   steps place it), and per slot with a current value, a row to move or a forget, its steps, sorted by slot id.
 */
export function planApply(
  merged: MergedState,
  statements: readonly Statement[],
  rows: readonly StoredRow[],
  context: PlanContext = {},
): ApplyPlan {
  const canonical = context.canonical ?? ((slot: SlotRef) => slot)
  const everCanonical = context.everCanonical ?? canonical
  const renamedInto = context.renamedInto ?? (() => false)
  const renamedAway = context.renamedAway ?? (() => false)
  const undoneEnds = context.undoneEnds ?? []
  const tombstoned = new Set([...merged.tombstones, ...(context.forgottenAsNamed ?? [])])
  const rowsByKey = new Map<string, StoredRow[]>()
  const slots = new Map<string, SlotRef>()
  // Values the outcome keeps in a slot, current or as history: a row renamed away from them moves there.
  const kept = new Set<string>()
  const keptCurrent = new Set<string>()
  for (const entry of merged.slots) for (const value of entry.current) keptCurrent.add(keyOf(entry.slot, value.value))
  for (const entry of merged.slots)
    for (const value of [...entry.current.map((each) => each.value), ...entry.history.map((each) => each.value)])
      kept.add(keyOf(entry.slot, value))
  // Per value, the slots its statements name (as stated and under the names in force).
  const namedSlots = new Map<string, Set<string>>()
  for (const statement of statements) {
    const names = namedSlots.get(statement.value) ?? new Set<string>()
    namedSlots.set(statement.value, names.add(slotId(statement.slot)).add(slotId(statement.canonical)))
  }
  /**
   * Whether a rename could have moved a statement's slot to the held one: they differ only in names that alias records
   * renamed the statement's names to (a value stated under another subject that was never renamed there is not it).
   */
  const renamedFrom = (stated: SlotRef, held: SlotRef): boolean =>
    stated.qualifiers === held.qualifiers &&
    (stated.entity !== held.entity || stated.predicate !== held.predicate || stated.project !== held.project) &&
    (stated.entity === held.entity || renamedInto('entity', stated.entity, held.entity)) &&
    (stated.predicate === held.predicate || renamedInto('predicate', stated.predicate, held.predicate)) &&
    // A project's key moves to another key; a global statement never moves into a project by a rename.
    (stated.project === held.project ||
      (stated.project !== null && held.project !== null && renamedInto('project', stated.project, held.project)))
  /** Where a held row belongs when it is not where it is: under the names in force, or back from a rename undone. */
  const homeOf = (held: StoredRow): SlotRef | undefined => {
    // A row where the outcome keeps its value stays (a statement made under a name after its alias was removed).
    if (kept.has(keyOf(held.slot, held.value))) return undefined
    const named = canonical(held.slot)
    if (kept.has(keyOf(named, held.value))) return slotId(named) === slotId(held.slot) ? undefined : named
    // A row whose alias was removed since: a row under the old name goes where the alias that held for its
    // statements led, and one an alias had led here (read before its removal) goes back where its statements stand.
    const led = new Map<string, SlotRef>()
    for (const statement of statements)
      if (
        statement.value === held.value &&
        (slotId(statement.slot) === slotId(held.slot) || slotId(everCanonical(statement.slot)) === slotId(held.slot)) &&
        kept.has(keyOf(statement.canonical, statement.value))
      )
        led.set(slotId(statement.canonical), statement.canonical)
    // Two names led here: a current row goes where the value is current, a history row where it is history.
    const alike = [...led.values()].filter(
      (slot) => keptCurrent.has(keyOf(slot, held.value)) === CURRENT.has(held.status),
    )
    if (led.size === 1) return [...led.values()][0]
    if (alike.length === 1) return alike[0]
    // A row a rename moved under a name no record of its value leads to any longer (the rename was undone or taken
    // back) returns to the one kept slot its statements lead to, where the stores that never applied the rename hold it;
    // with none kept, to the one slot where a statement the outcome keeps nowhere (undone) leaves its trace.
    if (namedSlots.get(held.value)?.has(slotId(held.slot)) === true) return undefined
    const homes = new Map<string, SlotRef>()
    const traces = new Map<string, SlotRef>()
    for (const statement of statements)
      if (statement.value === held.value && renamedFrom(statement.slot, held.slot))
        (kept.has(keyOf(statement.canonical, statement.value)) ? homes : traces).set(
          slotId(statement.canonical),
          statement.canonical,
        )
    if (homes.size === 1) return [...homes.values()][0]
    return homes.size === 0 && traces.size === 1 ? [...traces.values()][0] : undefined
  }
  const relocations: Relocation[] = []
  for (const held of rows) {
    const home = homeOf(held)
    const row =
      home === undefined ? held : { ...held, slot: home, status: CURRENT.has(held.status) ? 'retired' : held.status }
    if (home !== undefined) relocations.push({ row: held, to: home })
    const key = keyOf(row.slot, row.value)
    rowsByKey.set(key, [...(rowsByKey.get(key) ?? []), row])
    slots.set(slotId(row.slot), row.slot)
  }

  /** Per slot id and value: the current target, the history statuses wanted, and a row to insert from. */
  interface Wanted {
    current?: RowTarget & { readonly row: FactRow }
    readonly history: Set<PlannedStatus>
    source?: FactRow
    trace: boolean
    asNamed: boolean
  }
  const wanted = new Map<string, Wanted>()
  const want = (slot: SlotRef, value: string): Wanted => {
    const key = keyOf(slot, value)
    slots.set(slotId(slot), slot)
    let entry = wanted.get(key)
    if (entry === undefined) {
      entry = { history: new Set(), trace: false, asNamed: false }
      wanted.set(key, entry)
    }
    return entry
  }
  const contested = new Set<string>()
  for (const entry of merged.slots) {
    if (entry.conflict) contested.add(slotId(entry.slot))
    for (const value of entry.current)
      want(entry.slot, value.value).current = {
        status: value.status,
        evidence: value.evidence,
        pinnedAt: value.pinnedAt,
        multi: entry.multi,
        devices: value.devices,
        row: value.row,
      }
    for (const past of entry.history) want(entry.slot, past.value).history.add(storeStatus(past.status))
  }
  // The names each kept value was stated under: stated under two names that now lead to one slot, a store may have
  // held it twice, and one row moves onto the other (as the rename that merged them ends the twin where it is made).
  const namedAs = new Map<string, Set<string>>()
  // The first statement by its JSON text gives a history row its fields, the same on every device.
  for (const statement of [...statements].sort((a, b) => compare(JSON.stringify(a), JSON.stringify(b)))) {
    const canonicalKey = keyOf(statement.canonical, statement.value)
    namedAs.set(canonicalKey, (namedAs.get(canonicalKey) ?? new Set()).add(slotId(statement.slot)))
    // A store that applied an alias before its removal merged the names it joined: the twin's history stays.
    const everKey = keyOf(everCanonical(statement.slot), statement.value)
    if (everKey !== canonicalKey) namedAs.set(everKey, (namedAs.get(everKey) ?? new Set()).add(slotId(statement.slot)))
    const inForce = slotId(statement.slot) === slotId(statement.canonical)
    if (inForce) {
      const entry = want(statement.slot, statement.value)
      entry.source ??= statement.row
      if (entry.current === undefined && entry.history.size === 0) entry.trace = true
    } else if (!kept.has(keyOf(statement.canonical, statement.value))) {
      const entry = want(statement.slot, statement.value)
      entry.source ??= statement.row
      entry.trace = true
      entry.asNamed = true
      // A store that read the rename before the undo held it under the name in force: a trace stays there too.
      want(statement.canonical, statement.value).trace = true
    }
    const entry = wanted.get(keyOf(statement.canonical, statement.value))
    if (entry !== undefined) entry.source ??= statement.row
  }

  // A current value an undone record put back or ended, with no history kept: a store that applied the record before
  // the undo may hold a history row of it beside the current one, so every store keeps one retired trace.
  for (const end of undoneEnds) {
    const entry = wanted.get(keyOf(end.slot, end.value))
    if (entry?.current !== undefined && entry.history.size === 0) entry.trace = true
  }

  // A store that read an alias before a later one overrode it (or before its undo) merged the names it joined there:
  // a statement counts under every kept slot alias records renamed its names to, so that twin's history stays too.
  // Only a statement under a name an alias record renamed can have been renamed into another slot.
  const statementsOf = new Map<string, Statement[]>()
  for (const statement of statements) {
    const { entity, predicate, project } = statement.slot
    const renamed =
      renamedAway('entity', entity) ||
      renamedAway('predicate', predicate) ||
      (project !== null && renamedAway('project', project))
    if (!renamed) continue
    const list = statementsOf.get(statement.value) ?? []
    list.push(statement)
    statementsOf.set(statement.value, list)
  }
  for (const entry of merged.slots)
    for (const value of new Set([...entry.current, ...entry.history].map((each) => each.value)))
      for (const statement of statementsOf.get(value) ?? [])
        if (renamedFrom(statement.slot, entry.slot)) {
          const key = keyOf(entry.slot, value)
          namedAs.set(key, (namedAs.get(key) ?? new Set()).add(slotId(statement.slot)))
        }

  for (const [key, names] of namedAs) {
    const entry = wanted.get(key)
    if (names.size > 1 && kept.has(key) && entry !== undefined) entry.history.add('superseded')
  }

  const plans = new Map<string, RowAction[]>()
  const add = (slot: SlotRef, action: RowAction): void => {
    const id = slotId(slot)
    plans.set(id, [...(plans.get(id) ?? []), action])
  }
  for (const key of new Set([...wanted.keys(), ...rowsByKey.keys()])) {
    const held = rowsByKey.get(key) ?? []
    const entry = wanted.get(key)
    const [idText, value] = JSON.parse(key) as [string, string]
    const slot = slots.get(idText) as SlotRef
    if (tombstoned.has(claimId(slot, value))) {
      for (const row of held) add(slot, { kind: 'forget', row })
      continue
    }
    if (entry === undefined) continue
    for (const action of planValue(slot, held, entry, entry.source)) add(slot, action)
  }

  const result: SlotPlan[] = []
  for (const id of [...new Set([...plans.keys(), ...contested])].sort()) {
    const actions = plans.get(id) ?? []
    result.push({ slot: slots.get(id) as SlotRef, conflict: contested.has(id), actions: ordered(actions) })
  }
  return { relocations, slots: result }
}

/** The steps for one value of one slot. */
function planValue(
  slot: SlotRef,
  held: readonly StoredRow[],
  wanted: {
    readonly current?: RowTarget & { readonly row: FactRow }
    readonly history: ReadonlySet<PlannedStatus>
    readonly trace: boolean
    readonly asNamed: boolean
  },
  source: FactRow | undefined,
): RowAction[] {
  const { current, trace, asNamed } = wanted
  const history = [...wanted.history].sort()
  const actions: RowAction[] = []
  const free = [...held].sort((a, b) => a.id - b.id)
  const take = (prefer: (row: StoredRow) => boolean): StoredRow | undefined => {
    const index = free.findIndex(prefer)
    const at = index >= 0 ? index : 0
    return free.splice(at, 1)[0]
  }
  const place = (target: RowTarget, row: StoredRow | undefined, from: FactRow | undefined): void => {
    if (row !== undefined) {
      if (differs(row, target)) actions.push({ kind: 'update', row, target })
    } else if (from !== undefined) actions.push({ kind: 'insert', slot, row: from, target, asNamed })
  }
  const wants = history.length === 0 && trace ? (['retired'] as PlannedStatus[]) : history
  if (current !== undefined) {
    const { row: from, ...target } = current
    place(target, take((row) => CURRENT.has(row.status)) ?? undefined, from)
  }
  for (const status of wants) {
    const row = free.length === 0 ? undefined : take((each) => each.status === status)
    place({ status }, row, source)
  }
  // Rows left over: a current one leaves the current set, a history row takes a way the value left that is wanted
  // (rows are never deleted, so a second row of the same value and status stands for the same past).
  const fallback = wants[0] ?? 'retired'
  for (const row of free)
    if (CURRENT.has(row.status) || (wants.length > 0 && !wants.includes(row.status as PlannedStatus)))
      actions.push({ kind: 'update', row, target: { status: fallback } })
  return actions
}

/** Whether a row differs from its target in anything the target sets. */
function differs(row: StoredRow, target: RowTarget): boolean {
  return (
    row.status !== target.status ||
    (target.evidence !== undefined && row.evidence !== target.evidence) ||
    (target.pinnedAt !== undefined && row.pinnedAt !== target.pinnedAt) ||
    (target.multi !== undefined && row.multi !== target.multi) ||
    (target.devices !== undefined && row.devices.join('\u0000') !== target.devices.join('\u0000'))
  )
}

/**
 * Forgets first, then rows turning multi-valued, moves out of the current set, rows turning single-valued, moves into
 * it, and inserts last (conflict sides before active).
 */
function ordered(actions: readonly RowAction[]): RowAction[] {
  const rank = (action: RowAction): number => {
    if (action.kind === 'forget') return 0
    if (action.kind === 'update' && action.row.status === action.target.status)
      return action.target.multi === true ? 0.5 : 2.5
    const status = action.target.status
    const into = status === 'active' ? 3 : status === 'conflict' ? 2 : 1
    return (action.kind === 'insert' ? 3 : 0) + into
  }
  return [...actions].sort((a, b) => rank(a) - rank(b))
}

/** The store's status for how a value left its slot. */
function storeStatus(status: EndStatus): PlannedStatus {
  return status === 'folded' ? 'superseded' : status === 'moved' ? 'retired' : status
}

function keyOf(slot: SlotRef, value: string): string {
  return JSON.stringify([slotId(slot), value])
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
