/**
 * What the change records say, read without the store: the aliases out of force, the forgets and bare tombstones in
 * force or undone with every name their claims were blocked under, the renames (sources and chains) the records
 * make, the values undone records put back or ended, and every value the records state. Pure functions of a record
 * set: the same set gives the same answer in any order, which is what the applier (store/sync-applier.ts) needs for
 * every store to converge.
 */
import type { Statement, UndoneEnd } from './apply-plan.ts'
import {
  compareRecords,
  happenedBefore,
  type AliasChange,
  type ChangeRecord,
  type ForgetChange,
  type SlotRef,
  type TombstoneKey,
} from './change-record.ts'
import { aliasRecordsOf, linkedNames, reachedFrom } from './linked-names.ts'
import { slotId, type CanonicalSlot, type MergedAlias } from './merge.ts'
import { claimKeyOf } from '../text/normalize.ts'

/** A forget (or an import's bare tombstone) undone on its device: what it blocked and the keys it carried. */
export interface UndoneForget {
  /** The claim under every name it was blocked under (slot and canonical value). */
  readonly claims: readonly { readonly slot: SlotRef; readonly value: string }[]
  /** The tombstone keys the forget carried. */
  readonly keys: readonly TombstoneKey[]
}

/** The aliases the records name that are not in force, latest first, as the merge names aliases. */
export function removedAliases(records: readonly ChangeRecord[]): MergedAlias[] {
  return records
    .filter((record): record is AliasChange => record.kind === 'alias')
    .sort((a, b) => compareRecords(b, a))
    .map(({ aliasKind, entity, from, to, display }) => ({ aliasKind, entity, from, to, display }))
}

/**
 * The claims the forgets in force block under names other than the one in force: under every subject and property
 * name an alias record (in force or not) links to the name the forget was made under. A claim forgotten under a name
 * since renamed away stays blocked there; a name the forget's subject passed through while records were half read (a
 * rename read before the rename that overrode it or took it back) held the claim's tombstone on a store that read the
 * forget then, so every store holds it; and a value stated under an old name of the forgotten claim is that claim.
 */
export function forgetsUnderLinkedNames(
  records: readonly ChangeRecord[],
  canonical: CanonicalSlot,
): Pick<Statement, 'slot' | 'value'>[] {
  return forgetsOf(records, true).flatMap((forget) => {
    const inForce = slotId(canonical(forget.slot, forget))
    return claimsUnderLinkedNames(forget, records).filter((claim) => slotId(claim.slot) !== inForce)
  })
}

/** The forgets undone on their device, each with its claim under every linked name and the keys it carried. */
export function undoneForgets(records: readonly ChangeRecord[]): UndoneForget[] {
  return forgetsOf(records, false).map((forget) => ({
    claims: claimsUnderLinkedNames(forget, records),
    keys: forget.tombstones,
  }))
}

/**
 * The bare tombstones undone on their device, each with the keys it carried and the claims it blocked: every value a
 * record states (undone or not) whose claim under a name linked to the one stated one of its keys names, under every
 * linked name, as the merge blocks them.
 */
export function undoneBareTombstones(records: readonly ChangeRecord[]): UndoneForget[] {
  const undone = new Set(records.flatMap((record) => (record.kind === 'restore' ? record.undoes : [])))
  const underLinkedNames = linkedNames(aliasRecordsOf(records))
  return records.flatMap((record): UndoneForget[] => {
    if (record.kind !== 'tombstone' || !undone.has(record.op)) return []
    const keys = new Set(record.tombstones.filter((key) => key.kind === 'claim').map((key) => key.key))
    const claims = statementsOf(records, (slot) => slot).flatMap(({ slot, value }) => {
      const named = underLinkedNames(slot)
      const carried = named.some((each) => keys.has(claimKeyOf(each.entity, each.predicate, each.qualifiers, value)))
      return carried ? named.map((each) => ({ slot: each, value })) : []
    })
    return [{ claims, keys: record.tombstones }]
  })
}

/** The forgets in force (`live`), or those a restore undoes. */
function forgetsOf(records: readonly ChangeRecord[], live: boolean): ForgetChange[] {
  const undone = new Set(records.flatMap((record) => (record.kind === 'restore' ? record.undoes : [])))
  return records.filter((record): record is ForgetChange => record.kind === 'forget' && undone.has(record.op) !== live)
}

/** A forget's claim under every subject and property name an alias record (in force or not) links to its own. */
function claimsUnderLinkedNames(
  forget: ForgetChange,
  records: readonly ChangeRecord[],
): Pick<Statement, 'slot' | 'value'>[] {
  return linkedNames(aliasRecordsOf(records))(forget.slot).map((slot) => ({ slot, value: forget.value }))
}

/** What an alias record renames: a subject, a property or a project key. */
export type ChangeAliasKind = AliasChange['aliasKind']

/** Whether an alias record (in force or not) renamed a subject, property or project key to another. */
export function renameSources(records: readonly ChangeRecord[]): (kind: ChangeAliasKind, from: string) => boolean {
  const sources = new Set(
    records.flatMap((record) => (record.kind === 'alias' ? [`${record.aliasKind}\u0000${record.from}`] : [])),
  )
  return (kind, from) => sources.has(`${kind}\u0000${from}`)
}

/** Whether alias records (in force or not, one or a chain) renamed a subject, property or project from a key to another. */
export function renameTargets(
  records: readonly ChangeRecord[],
): (kind: ChangeAliasKind, from: string, to: string) => boolean {
  const next = new Map<string, Set<string>>()
  for (const record of records)
    if (record.kind === 'alias') {
      const from = `${record.aliasKind}\u0000${record.from}`
      next.set(from, (next.get(from) ?? new Set()).add(`${record.aliasKind}\u0000${record.to}`))
    }
  // Per name, every name the alias records reach from it, walked once.
  const reachable = new Map<string, Set<string>>()
  return (kind, from, to) => {
    const start = `${kind}\u0000${from}`
    if (!next.has(start)) return false
    let reached = reachable.get(start)
    if (reached === undefined) {
      reached = reachedFrom(start, (at) => next.get(at) ?? [])
      reachable.set(start, reached)
    }
    return reached.has(`${kind}\u0000${to}`)
  }
}

/**
 * The values undone records put back as history or ended, under the names in force; and the values a record in force
 * ended only in an undone statement it had seen: a store that read both before the undo holds that ending's history
 * row beside the value a statement it had not seen keeps current.
 */
export function undoneEndsOf(records: readonly ChangeRecord[], canonical: CanonicalSlot): UndoneEnd[] {
  const undone = new Set(records.flatMap((record) => (record.kind === 'restore' ? record.undoes : [])))
  // The undone statements a later record could have ended: a write in its slot, a move where it arrived.
  const undoneStatements = records.flatMap((record): { record: ChangeRecord; slot: string; value: string }[] => {
    if (!undone.has(record.op)) return []
    if (record.kind === 'write') return [{ record, slot: slotId(canonical(record.slot, record)), value: record.value }]
    if (record.kind === 'move') return [{ record, slot: slotId(canonical(record.to, record)), value: record.value }]
    return []
  })
  return records.flatMap((record): UndoneEnd[] => {
    switch (record.kind) {
      case 'put_back':
      case 'move':
        return undone.has(record.op) ? [{ slot: canonical(record.slot, record), value: record.value }] : []
      case 'write':
      case 'supersede':
      case 'settle': {
        const slot = canonical(record.slot, record)
        const ended = undone.has(record.op)
          ? record.ends
          : record.ends.filter((end) =>
              undoneStatements.some(
                (statement) =>
                  statement.value === end.value &&
                  statement.slot === slotId(slot) &&
                  happenedBefore(statement.record, record),
              ),
            )
        return ended.map((end) => ({ slot, value: end.value }))
      }
      default:
        return []
    }
  })
}

/** Every value the records state (undone ones too), with its slot as named and under the names in force. */
export function statementsOf(records: readonly ChangeRecord[], canonical: CanonicalSlot): Statement[] {
  const out: Statement[] = []
  for (const record of records) {
    if (record.kind === 'write' || record.kind === 'put_back')
      out.push({ slot: record.slot, canonical: canonical(record.slot, record), value: record.value, row: record.row })
    if (record.kind === 'move')
      out.push({ slot: record.to, canonical: canonical(record.to, record), value: record.value, row: record.row })
  }
  return out
}
