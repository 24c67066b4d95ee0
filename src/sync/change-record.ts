/**
 * The change records one device appends to its sync log, one closed kind per kind of change to the library. Every
 * record carries an operation id (applying it twice is applying it once), its device, its hybrid logical clock and
 * `seen`: per device, the clock of the last record of that device this device had applied when it made the change
 * (a version vector). `seen` is what tells a correction from a concurrent statement (`merge.ts`). Values are named
 * by slot and canonical value key, never by row id, so the same claim on two machines is the same fact. Types and
 * pure helpers only; the zod schema is `change-record.schema.ts`.
 */
import type { ImportRecord } from '../exchange/record.schema.ts'
import type { Evidence } from '../types.ts'

/** The format name of a change record stream. */
export const CHANGE_FORMAT = 'dsh-fact-memory.changes'

/** The record format version this plugin writes and reads. */
export const CHANGE_FORMAT_VERSION = 1

/**
 * A slot by its canonical keys (text/normalize.ts): subject, property, qualifier set, and the project a
 * project-scoped fact belongs to (null for global and labelled facts).
 */
export interface SlotRef {
  readonly entity: string
  readonly predicate: string
  readonly qualifiers: string
  readonly project: string | null
}

/**
 * A fact row in full, as an export writes it (exchange/jsonl.ts), with its value always present: what a device
 * needs to write the row it does not have.
 */
export type FactRow = ImportRecord & { readonly value: string }

/** How a value left the current set. */
export type EndStatus = 'superseded' | 'retired' | 'expired' | 'folded' | 'moved'

/** A value of the record's slot that the change took out of the current set, as its device decided. */
export interface ValueEnd {
  /** Canonical value key (text/normalize.ts canonicalValue). */
  readonly value: string
  readonly as: EndStatus
}

/** A tombstone key as the store keeps it (store/tombstones.ts). */
export interface TombstoneKey {
  readonly kind: 'claim' | 'evidence'
  readonly key: string
}

/** What every record carries. */
export interface RecordBase {
  /** Operation id, unique across devices. */
  readonly op: string
  readonly device: string
  /** The record's clock (hlc.ts formatHlc). */
  readonly hlc: string
  /** Per other device, the clock of its last record applied here when the change was made (contiguous: no gap before it). */
  readonly seen: Readonly<Record<string, string>>
}

/**
 * A value stated in a slot: a new row, a repeat of a current value (its evidence may rise), a fold, or an
 * explicit restatement that settles the slot. `ends` are the current values this write replaced or retired on its
 * device, decided there by the write rules (rules/write-policy.ts).
 */
export interface WriteChange extends RecordBase {
  readonly kind: 'write'
  readonly slot: SlotRef
  readonly value: string
  readonly row: FactRow
  readonly ends: readonly ValueEnd[]
}

/** A value ended without a new one: an expiry, a card that retired a row, a merge card's loser. */
export interface SupersedeChange extends RecordBase {
  readonly kind: 'supersede'
  readonly slot: SlotRef
  readonly ends: readonly ValueEnd[]
  /** The value that took over, when there is one (a merge card's keeper). */
  readonly by: string | null
}

/** The user settled a contested slot on a value already there: the rivals are retired. */
export interface SettleChange extends RecordBase {
  readonly kind: 'settle'
  readonly slot: SlotRef
  readonly keep: string
  readonly ends: readonly ValueEnd[]
  /**
   * The kept value's evidence after settling (the user's choice raises it to at least confirmed_user): it counts for
   * the value while it stands. Absent in records written before it was carried.
   */
  readonly evidence?: Evidence
}

/** The user forgot a value: its tombstones travel with it and block the claim on every device. */
export interface ForgetChange extends RecordBase {
  readonly kind: 'forget'
  readonly slot: SlotRef
  readonly value: string
  readonly tombstones: readonly TombstoneKey[]
}

/** The user pinned a value (an instant) or unpinned it (null). */
export interface PinChange extends RecordBase {
  readonly kind: 'pin'
  readonly slot: SlotRef
  readonly value: string
  readonly pinnedAt: string | null
}

/**
 * A lasting alias: a subject renamed or merged (`entity`), a property renamed within its subject (`predicate`,
 * `entity` naming the subject), or a project's key changed (`project`). Writes under the old name land on the new one.
 */
export interface AliasChange extends RecordBase {
  readonly kind: 'alias'
  readonly aliasKind: 'entity' | 'predicate' | 'project'
  /** For a property alias: the subject's entity key. */
  readonly entity: string | null
  readonly from: string
  readonly to: string
  /** The new name as people read it. */
  readonly display: string
}

/**
 * A lasting subject or property alias removed (the page's alias-remove): statements made under the old name after
 * its device removed it (and those it had not seen) are the old name's own again; what its device had seen when it
 * removed it (the facts the alias had moved) stays under the name the alias led to.
 */
export interface UnaliasChange extends RecordBase {
  readonly kind: 'unalias'
  readonly aliasKind: 'entity' | 'predicate'
  /** For a property alias: the subject's entity key. */
  readonly entity: string | null
  readonly from: string
  /** The name it led to when it was removed. */
  readonly to: string
}

/** A subject, or one subject's property, shown under another spelling of the same key (a display-only rename). */
export interface DisplayChange extends RecordBase {
  readonly kind: 'display'
  readonly nameKind: 'entity' | 'predicate'
  /** The subject's entity key. */
  readonly entity: string
  /** For a property: its predicate key; null for a subject. */
  readonly predicate: string | null
  /** The name as people read it now. */
  readonly display: string
  /** The name as its device showed it before: what an undo of this record puts back. */
  readonly before: string
}

/**
 * Tombstones an import kept for claims this store never held: bare keys (the export carries no slot or value). They
 * block the claims they name on every device, and forget a row of one where a device holds it.
 */
export interface TombstoneChange extends RecordBase {
  readonly kind: 'tombstone'
  readonly tombstones: readonly TombstoneKey[]
}

/** A value moved to another scope or project: it ends in `slot` and is written in `to`. */
export interface MoveChange extends RecordBase {
  readonly kind: 'move'
  readonly slot: SlotRef
  readonly value: string
  readonly to: SlotRef
  readonly row: FactRow
}

/** A past value put back from an export, as history: it competes with nothing current. */
export interface PutBackChange extends RecordBase {
  readonly kind: 'put_back'
  readonly slot: SlotRef
  readonly value: string
  readonly row: FactRow
  readonly status: 'superseded' | 'retired' | 'expired'
}

/** An edit undone on its device: the named operations count as never made (a forget's tombstones lift). */
export interface RestoreChange extends RecordBase {
  readonly kind: 'restore'
  readonly undoes: readonly string[]
}

/** One change record. */
export type ChangeRecord =
  | WriteChange
  | SupersedeChange
  | SettleChange
  | ForgetChange
  | PinChange
  | AliasChange
  | MoveChange
  | PutBackChange
  | RestoreChange
  | UnaliasChange
  | DisplayChange
  | TombstoneChange

/** The closed set of record kinds. */
export type ChangeKind = ChangeRecord['kind']

/** Every record kind, in documentation order. */
export const CHANGE_KINDS: readonly ChangeKind[] = [
  'write',
  'supersede',
  'settle',
  'forget',
  'pin',
  'alias',
  'move',
  'put_back',
  'restore',
  'unalias',
  'display',
  'tombstone',
]

/**
 * Whether record `a` was applied on `b`'s device before `b` was made (a happened before b).
 * @returns true when b's device had seen a.
 */
export function happenedBefore(a: RecordBase, b: RecordBase): boolean {
  if (a.device === b.device) return a.hlc < b.hlc
  const seen = b.seen[a.device]
  return seen !== undefined && a.hlc <= seen
}

/**
 * The total order records are applied in: clock text, then operation id. It extends `happenedBefore` (a change made
 * after seeing another carries a larger clock).
 * @returns negative, zero or positive.
 */
export function compareRecords(a: RecordBase, b: RecordBase): number {
  return a.hlc < b.hlc ? -1 : a.hlc > b.hlc ? 1 : a.op < b.op ? -1 : a.op > b.op ? 1 : 0
}
