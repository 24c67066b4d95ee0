/**
 * The merge core: the library that the change records of every device describe, as plain data. The outcome is a
 * function of the set of records, never of the order they arrived in, so every device that has read every log holds
 * the same library (current values, conflicts, history, tombstones, pins, aliases). The rules, all set-wise:
 * - a record undone by a `restore` counts as never made;
 * - names resolve through the aliases (for one old name, the alias latest in the total order holds);
 * - the same value in a slot is the same fact, whichever devices stated it;
 * - a statement is ended by a record that names its value in `ends` and was made after seeing it
 *   (`happenedBefore`): a correction ends what its machine had seen; a statement its machine had not seen stands,
 *   even of the same value (a laptop that restated the old value offline disagrees with the correction: a conflict);
 * - a tombstone from any device takes its claim (any project) out of the library and blocks every statement of it;
 *   with an alias removed, a forget blocks its claim where the alias had led too (a device may have read the alias
 *   before its removal), and an import's bare tombstones block the claims whose keys they carry, under any name
 *   alias records link to the one stated, and then under all of those names;
 * - an alias removed still holds for the statements its device had seen (the facts it moved stay), not for later
 *   or concurrent ones; the latest spelling of a name (`display`) holds;
 * - in a single-valued slot, two or more values still standing are one conflict: the strongest evidence is shown
 *   as the active side, then a correction over a plain statement, then the earliest; never a silent winner;
 * - a value's evidence is the strongest of its standing statements and of the settles in force that kept it;
 * - a pin holds per value, the latest pin record in the total order deciding.
 * Pure: no clock, no file, no store.
 */
import { evidenceRank } from '../rules/write-policy.ts'
import type { Evidence } from '../types.ts'
import { claimKeyOf } from '../text/normalize.ts'
import { aliasRecordsOf, linkedNames } from './linked-names.ts'
import {
  compareRecords,
  happenedBefore,
  type AliasChange,
  type ChangeRecord,
  type DisplayChange,
  type RecordBase,
  type EndStatus,
  type FactRow,
  type SlotRef,
  type TombstoneKey,
  type ValueEnd,
} from './change-record.ts'

/** A value standing in its slot. */
export interface MergedValue {
  readonly value: string
  /** `active`, or `conflict` for the other sides of a contested single-valued slot. */
  readonly status: 'active' | 'conflict'
  /** The strongest evidence any standing statement of the value carries. */
  readonly evidence: Evidence
  /** The row to show: from the strongest, then earliest, standing statement. */
  readonly row: FactRow
  /** The devices whose statements of the value stand, sorted (a conflict names the machine each side came from). */
  readonly devices: readonly string[]
  /** The operations of those statements, sorted. */
  readonly ops: readonly string[]
  /** The pin instant, or null. */
  readonly pinnedAt: string | null
}

/** A value that left the current set, and the record that ended it (null: put back from an export as history). */
export interface MergedHistory {
  readonly value: string
  readonly status: EndStatus
  readonly by: string | null
}

/** One slot of the merged library. */
export interface MergedSlot {
  /** The slot under its canonical names (aliases applied). */
  readonly slot: SlotRef
  readonly multi: boolean
  /** Standing values: the active one first, then the conflict sides, each group by value. */
  readonly current: readonly MergedValue[]
  /** True when a single-valued slot holds more than one standing value. */
  readonly conflict: boolean
  /** Ended values, sorted by value, status and ending record. */
  readonly history: readonly MergedHistory[]
  /** Values of the slot blocked by a tombstone, sorted. */
  readonly forgotten: readonly string[]
}

/** An alias in force. */
export interface MergedAlias {
  readonly aliasKind: AliasChange['aliasKind']
  readonly entity: string | null
  readonly from: string
  readonly to: string
  readonly display: string
}

/**
 * How a subject, or one subject's property, is shown: the latest live `display` record of it, else the spelling the
 * earliest undone one replaced.
 */
export interface MergedDisplay {
  readonly nameKind: DisplayChange['nameKind']
  /** The subject's entity key, as the record names it. */
  readonly entity: string
  /** The property's predicate key (null for a subject), as the record names it. */
  readonly predicate: string | null
  readonly display: string
}

/** The merged library. */
export interface MergedState {
  /** Slots with anything in them, sorted by slot id. */
  readonly slots: readonly MergedSlot[]
  /** Forgotten claims without their project, as slot-id-like texts, sorted. */
  readonly tombstones: readonly string[]
  /** The store's tombstone keys the live forgets carry, sorted, without repeats. */
  readonly storeTombstones: readonly TombstoneKey[]
  /** Aliases in force, sorted by kind, subject and old name. */
  readonly aliases: readonly MergedAlias[]
  /** Names shown under another spelling of their key, sorted by kind, subject and property. */
  readonly displays: readonly MergedDisplay[]
}

/** A statement of a value in a slot, or a record that only ends values there. */
interface SlotEvent {
  readonly record: ChangeRecord
  readonly order: number
  readonly statement: { readonly value: string; readonly row: FactRow } | null
  readonly ends: readonly ValueEnd[]
}

/**
 * The records to apply, once each, in the order they apply: by clock, then operation id. Every record comes after
 * the records its device had seen. An operation id met twice keeps the copy whose JSON text sorts first.
 * @param records - records of every device, in any order, repeats allowed.
 * @returns the records in application order.
 */
export function applicationOrder(records: Iterable<ChangeRecord>): ChangeRecord[] {
  const byOp = new Map<string, ChangeRecord>()
  for (const record of records) {
    const held = byOp.get(record.op)
    if (held === undefined || (held !== record && JSON.stringify(record) < JSON.stringify(held)))
      byOp.set(record.op, record)
  }
  return [...byOp.values()].sort(compareRecords)
}

/**
 * Merge the records of every device into one library.
 * @param records - records in any order, repeats allowed.
 * @returns the merged library; the same for every order of the same records.
 */
export function mergeRecords(records: Iterable<ChangeRecord>): MergedState {
  const ordered = applicationOrder(records)
  const undone = new Set(ordered.flatMap((record) => (record.kind === 'restore' ? record.undoes : [])))
  const live = ordered.filter((record) => record.kind === 'restore' || !undone.has(record.op))
  const names = resolveNames(live)
  // With an alias removed, the names every alias ever led to (removals left out).
  const ever = live.some((record) => record.kind === 'unalias')
    ? resolveNames(live.filter((record) => record.kind !== 'unalias')).slot
    : undefined
  const displays = new Map<string, MergedDisplay>()
  // A spelling belongs to the key it respells, as named: a rename since moves the rows to a name of its own spelling.
  const showName = (record: DisplayChange, display: string): void => {
    const { nameKind, entity, predicate } = record
    displays.set(`${nameKind}\u0000${entity}\u0000${predicate ?? ''}`, { nameKind, entity, predicate, display })
  }
  // A respelling undone puts back the spelling it replaced, unless a live one holds (the earliest undone one decides).
  for (const record of [...ordered].reverse())
    if (record.kind === 'display' && undone.has(record.op)) showName(record, record.before)
  const canonical = names.slot

  const tombstones = new Set<string>()
  const storeTombstones = new Map<string, TombstoneKey>()
  const events = new Map<string, SlotEvent[]>()
  const pins = new Map<string, string | null>()
  const putBack = new Map<string, MergedHistory[]>()
  const slotOf = new Map<string, SlotRef>()
  // Claim keys an import's bare tombstones block (they name no slot or value: statements are checked by key).
  const bareClaims = new Set<string>()
  const add = (slot: SlotRef, event: SlotEvent): void => {
    const id = slotId(slot)
    slotOf.set(id, slot)
    const list = events.get(id) ?? []
    list.push(event)
    events.set(id, list)
  }

  live.forEach((record, order) => {
    switch (record.kind) {
      case 'write':
        add(canonical(record.slot, record), {
          record,
          order,
          statement: { value: record.value, row: record.row },
          ends: record.ends,
        })
        break
      case 'supersede':
      case 'settle':
        add(canonical(record.slot, record), { record, order, statement: null, ends: record.ends })
        break
      case 'move':
        add(canonical(record.slot, record), {
          record,
          order,
          statement: null,
          ends: [{ value: record.value, as: 'moved' }],
        })
        add(canonical(record.to, record), {
          record,
          order,
          statement: { value: record.value, row: record.row },
          ends: [],
        })
        break
      case 'forget':
        tombstones.add(claimId(canonical(record.slot, record), record.value))
        // A store that read the alias before its removal blocked the claim where the alias led: so does every store.
        if (ever !== undefined) tombstones.add(claimId(ever(record.slot), record.value))
        for (const key of record.tombstones) storeTombstones.set(`${key.kind}:${key.key}`, key)
        break
      case 'tombstone':
        for (const key of record.tombstones) {
          storeTombstones.set(`${key.kind}:${key.key}`, key)
          if (key.kind === 'claim') bareClaims.add(key.key)
        }
        break
      case 'pin':
        pins.set(`${slotId(canonical(record.slot, record))}\u0000${record.value}`, record.pinnedAt)
        break
      case 'display':
        // The latest spelling of a name holds, as the latest pin of a value does.
        showName(record, record.display)
        break
      case 'put_back': {
        const slot = canonical(record.slot, record)
        const id = slotId(slot)
        slotOf.set(id, slot)
        putBack.set(id, [...(putBack.get(id) ?? []), { value: record.value, status: record.status, by: null }])
        break
      }
      case 'alias':
      case 'unalias':
      case 'restore':
        break
    }
  })
  const bare = (slot: SlotRef, value: string): boolean =>
    bareClaims.has(claimKeyOf(slot.entity, slot.predicate, slot.qualifiers, value))
  // A statement whose claim a bare tombstone names under any name alias records link to the one it was stated with
  // (its name in force among them; aliases in force or not, statements undone or not) is forgotten like one a forget
  // names, under every one of those names: a store that read some of the records held it under any of them, and the
  // set only grows as records arrive, so every store blocks the same claims whatever order it read them in.
  if (bareClaims.size > 0) {
    const underLinkedNames = linkedNames(aliasRecordsOf(ordered))
    for (const record of ordered) {
      if (record.kind !== 'write' && record.kind !== 'put_back' && record.kind !== 'move') continue
      const named = underLinkedNames(record.kind === 'move' ? record.to : record.slot)
      if (!named.some((slot) => bare(slot, record.value))) continue
      for (const slot of named) tombstones.add(claimId(slot, record.value))
    }
  }

  const slots: MergedSlot[] = []
  for (const id of [...slotOf.keys()].sort()) {
    const slot = slotOf.get(id) as SlotRef
    const merged = mergeSlot(
      slot,
      events.get(id) ?? [],
      putBack.get(id) ?? [],
      (value) => tombstones.has(claimId(slot, value)),
      (value) => pins.get(`${id}\u0000${value}`) ?? null,
    )
    if (merged.current.length + merged.history.length + merged.forgotten.length > 0) slots.push(merged)
  }
  // A claim a bare tombstone blocks is forgotten like one a forget names, wherever a store holds it.
  for (const merged of slots) for (const value of merged.forgotten) tombstones.add(claimId(merged.slot, value))
  return {
    slots,
    tombstones: [...tombstones].sort(),
    storeTombstones: [...storeTombstones.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, key]) => key),
    aliases: names.aliases,
    displays: [...displays.entries()].sort(([a], [b]) => compareText(a, b)).map(([, display]) => display),
  }
}

/** A slot under the names in force: for the statement of a record when `by` is given, else for a statement made now. */
export type CanonicalSlot = (slot: SlotRef, by?: RecordBase) => SlotRef

/**
 * The canonical form of a slot under the aliases the records hold (restores applied), as `mergeRecords` names slots.
 * @param records - records in any order, repeats allowed.
 * @returns the slot under the names in force: for a record's statement (`by`), through the aliases that held for
 *   it (an alias removed since still holds for what its device had seen); without `by`, the aliases in force now.
 */
export function canonicalSlots(records: Iterable<ChangeRecord>): CanonicalSlot {
  const ordered = applicationOrder(records)
  const undone = new Set(ordered.flatMap((record) => (record.kind === 'restore' ? record.undoes : [])))
  return resolveNames(ordered.filter((record) => record.kind === 'restore' || !undone.has(record.op))).slot
}

/**
 * A slot's identity as text.
 * @param slot - canonical keys.
 * @returns a JSON array text, unique per slot.
 */
export function slotId(slot: SlotRef): string {
  return JSON.stringify([slot.entity, slot.predicate, slot.qualifiers, slot.project])
}

/**
 * A claim without its project: what a tombstone blocks in every scope (`MergedState.tombstones` holds these).
 * @returns a JSON array text, unique per claim.
 */
export function claimId(slot: SlotRef, value: string): string {
  return JSON.stringify([slot.entity, slot.predicate, slot.qualifiers, value])
}

function mergeSlot(
  slot: SlotRef,
  events: readonly SlotEvent[],
  putBack: readonly MergedHistory[],
  forgotten: (value: string) => boolean,
  pinOf: (value: string) => string | null,
): MergedSlot {
  const enders = events.filter((event) => event.ends.length > 0)
  const history = new Map<string, MergedHistory>()
  const standing: SlotEvent[] = []
  const blocked = new Set<string>()
  for (const event of events) {
    if (event.statement === null) continue
    const { value } = event.statement
    if (forgotten(value)) {
      blocked.add(value)
      continue
    }
    const ender = enders.find(
      (other) =>
        other !== event && other.ends.some((end) => end.value === value) && happenedBefore(event.record, other.record),
    )
    if (ender === undefined) {
      standing.push(event)
      continue
    }
    const status = ender.ends.find((end) => end.value === value)?.as ?? 'superseded'
    history.set(`${value}\u0000${status}\u0000${ender.record.op}`, { value, status, by: ender.record.op })
  }
  for (const entry of putBack) {
    if (forgotten(entry.value)) blocked.add(entry.value)
    else history.set(`${entry.value}\u0000${entry.status}\u0000`, entry)
  }

  const byValue = new Map<string, SlotEvent[]>()
  for (const event of standing) {
    const value = (event.statement as { value: string }).value
    byValue.set(value, [...(byValue.get(value) ?? []), event])
  }
  const multi = standing.some((event) => event.statement?.row.multi === true)
  // The strongest evidence a settle in force gave each kept value.
  const settled = new Map<string, Evidence>()
  for (const event of events) {
    const { record } = event
    if (record.kind !== 'settle' || record.evidence === undefined) continue
    const held = settled.get(record.keep)
    if (held === undefined || evidenceRank(record.evidence) < evidenceRank(held))
      settled.set(record.keep, record.evidence)
  }
  const values = [...byValue.entries()].map(([value, heads]) =>
    standingValue(value, heads, pinOf(value), settled.get(value)),
  )
  values.sort(
    (a, b) => a.rank - b.rank || (a.corrected === b.corrected ? 0 : a.corrected ? -1 : 1) || a.first - b.first,
  )
  const conflict = !multi && values.length > 1
  const [lead, ...rest] = values.map((entry) => entry.merged)
  const current =
    lead === undefined
      ? []
      : multi
        ? [lead, ...rest].sort(byValueText)
        : [lead, ...rest.map((value) => ({ ...value, status: 'conflict' as const })).sort(byValueText)]
  return {
    slot,
    multi,
    current,
    conflict,
    history: [...history.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, entry]) => entry),
    forgotten: [...blocked].sort(),
  }
}

function standingValue(
  value: string,
  heads: readonly SlotEvent[],
  pinnedAt: string | null,
  settled: Evidence | undefined,
): { merged: MergedValue; rank: number; corrected: boolean; first: number } {
  const rowOf = (event: SlotEvent): FactRow => (event.statement as { row: FactRow }).row
  const evidenceOf = (event: SlotEvent): Evidence => rowOf(event).evidence ?? 'observed'
  const best = [...heads].sort(
    (a, b) => evidenceRank(evidenceOf(a)) - evidenceRank(evidenceOf(b)) || a.order - b.order,
  )[0] as SlotEvent
  // A settle that kept the value raised its evidence where it was made; it counts while the value stands.
  const stated = evidenceOf(best)
  const evidence = settled !== undefined && evidenceRank(settled) < evidenceRank(stated) ? settled : stated
  return {
    merged: {
      value,
      status: 'active',
      evidence,
      row: rowOf(best),
      devices: [...new Set(heads.map((event) => event.record.device))].sort(),
      ops: heads.map((event) => event.record.op).sort(),
      pinnedAt,
    },
    rank: evidenceRank(evidence),
    corrected: heads.some((event) => event.ends.length > 0),
    first: Math.min(...heads.map((event) => event.order)),
  }
}

function byValueText(a: MergedValue, b: MergedValue): number {
  return a.value < b.value ? -1 : a.value > b.value ? 1 : 0
}

/**
 * One old name's aliases, in eras cut by its removals: each era holds the alias latest in the total order before the
 * removal that closes it (none when no alias came in between); the last era is open.
 */
interface Era {
  /** The removal that closed the era; null for the open one. */
  readonly until: RecordBase | null
  alias: AliasChange | undefined
}

/**
 * The alias that holds for a statement under one old name: that of the first era whose removal had seen the
 * statement (what the alias had led there stays there), else that of the open era.
 */
function aliasFor(eras: readonly Era[] | undefined, by: RecordBase | undefined): AliasChange | undefined {
  if (eras === undefined) return undefined
  if (by !== undefined)
    for (const era of eras) if (era.until !== null && happenedBefore(by, era.until)) return era.alias
  return eras.at(-1)?.alias
}

/** The aliases in force and the canonical form of a slot under them (per statement, see {@link aliasFor}). */
function resolveNames(records: readonly ChangeRecord[]): { aliases: MergedAlias[]; slot: CanonicalSlot } {
  const erasOf = (map: Map<string, Era[]>, key: string): Era[] => {
    let eras = map.get(key)
    if (eras === undefined) {
      eras = [{ until: null, alias: undefined }]
      map.set(key, eras)
    }
    return eras
  }
  // By the total order the records already stand in: an alias joins the open era, a removal closes it.
  const entityEras = new Map<string, Era[]>()
  const projectEras = new Map<string, Era[]>()
  // Aliases in force now, per old name as recorded.
  const latest = new Map<string, AliasChange>()
  const rawKey = (kind: string, entity: string | null, from: string): string =>
    `${kind}\u0000${entity ?? ''}\u0000${from}`
  for (const record of records) {
    if (record.kind === 'alias') {
      latest.set(rawKey(record.aliasKind, record.entity, record.from), record)
      if (record.aliasKind === 'entity') (erasOf(entityEras, record.from).at(-1) as Era).alias = record
      if (record.aliasKind === 'project') (erasOf(projectEras, record.from).at(-1) as Era).alias = record
    }
    if (record.kind === 'unalias') {
      latest.delete(rawKey(record.aliasKind, record.entity, record.from))
      if (record.aliasKind === 'entity') {
        const eras = erasOf(entityEras, record.from)
        eras.splice(-1, 1, { ...(eras.at(-1) as Era), until: record }, { until: null, alias: undefined })
      }
    }
  }
  const entity = (key: string, by?: RecordBase): string => follow((name) => aliasFor(entityEras.get(name), by)?.to, key)
  const project = (key: string, by?: RecordBase): string =>
    follow((name) => aliasFor(projectEras.get(name), by)?.to, key)
  // A property alias is filed under its subject as named then; the subject resolves as the alias record's own.
  const predicateEras = new Map<string, Era[]>()
  for (const record of records) {
    if (record.kind === 'alias' && record.aliasKind === 'predicate')
      (erasOf(predicateEras, `${entity(record.entity ?? '', record)}\u0000${record.from}`).at(-1) as Era).alias = record
    if (record.kind === 'unalias' && record.aliasKind === 'predicate') {
      const eras = erasOf(predicateEras, `${entity(record.entity ?? '', record)}\u0000${record.from}`)
      eras.splice(-1, 1, { ...(eras.at(-1) as Era), until: record }, { until: null, alias: undefined })
    }
  }
  const predicate = (entityKey: string, key: string, by?: RecordBase): string =>
    follow((name) => aliasFor(predicateEras.get(`${entityKey}\u0000${name}`), by)?.to, key)
  const aliases = [...latest.values()]
    .filter((alias) => alias.from !== alias.to)
    .map((alias) => ({
      aliasKind: alias.aliasKind,
      entity: alias.entity,
      from: alias.from,
      to: alias.to,
      display: alias.display,
    }))
    .sort((a, b) => compareText(rawKey(a.aliasKind, a.entity, a.from), rawKey(b.aliasKind, b.entity, b.from)))
  return {
    aliases,
    slot: (slot, by) => {
      const entityKey = entity(slot.entity, by)
      return {
        entity: entityKey,
        predicate: predicate(entityKey, slot.predicate, by),
        qualifiers: slot.qualifiers,
        project: slot.project === null ? null : project(slot.project, by),
      }
    },
  }
}

/**
 * Follow old names to the name in force. Two devices that renamed A to B and B to A concurrently make a cycle; the
 * cycle resolves to its smallest name, so every device picks the same one.
 */
function follow(next: (key: string) => string | undefined, start: string): string {
  const path: string[] = []
  let key = start
  for (let to = next(key); to !== undefined; to = next(key)) {
    const at = path.indexOf(key)
    if (at >= 0) return [...path.slice(at)].sort()[0] as string
    path.push(key)
    key = to
  }
  return key
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
