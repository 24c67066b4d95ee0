/**
 * Names linked by alias records: a slot under every subject name an entity alias record links to its own, and every
 * property name a property alias record of one of those subjects links to its own, either way and transitively, in
 * force or not (undone, removed, or overridden since). A store that read some of the records held a claim under any
 * of these names at some point, so a claim blocked under one is blocked under all of them: the set only grows as
 * records arrive, whatever order they arrive in. Pure.
 */
import type { AliasChange, ChangeRecord, SlotRef } from './change-record.ts'

/**
 * The alias records among some records, for {@link slotsUnderLinkedNames}.
 * @param records - records of every kind, undone ones too.
 * @returns the subject and property alias records.
 */
export function aliasRecordsOf(records: Iterable<ChangeRecord>): AliasChange[] {
  return [...records].filter(
    (record): record is AliasChange => record.kind === 'alias' && record.aliasKind !== 'project',
  )
}

/**
 * A slot under every linked subject and property name (its own names included).
 * @param slot - the slot as a record names it.
 * @param aliases - the subject and property alias records (`aliasRecordsOf`).
 * @returns one slot per linked subject and property name, the project and qualifiers as given.
 */
export function slotsUnderLinkedNames(slot: SlotRef, aliases: readonly AliasChange[]): SlotRef[] {
  const entities = linked(
    new Set([slot.entity]),
    aliases.filter((alias) => alias.aliasKind === 'entity').map((alias) => [alias.from, alias.to] as const),
  )
  const predicates = linked(
    new Set([slot.predicate]),
    aliases
      .filter((alias) => alias.aliasKind === 'predicate' && entities.has(alias.entity ?? ''))
      .map((alias) => [alias.from, alias.to] as const),
  )
  return [...entities].flatMap((entity) => [...predicates].map((predicate) => ({ ...slot, entity, predicate })))
}

/** The names, with every name the pairs link to them (either way, transitively). */
function linked(names: ReadonlySet<string>, pairs: readonly (readonly [string, string])[]): Set<string> {
  const links = new Map<string, Set<string>>()
  const link = (a: string, b: string): void => {
    links.set(a, (links.get(a) ?? new Set()).add(b))
    links.set(b, (links.get(b) ?? new Set()).add(a))
  }
  for (const [a, b] of pairs) link(a, b)
  const out = new Set(names)
  const queue = [...out]
  for (let next = queue.pop(); next !== undefined; next = queue.pop())
    for (const other of links.get(next) ?? [])
      if (!out.has(other)) {
        out.add(other)
        queue.push(other)
      }
  return out
}
