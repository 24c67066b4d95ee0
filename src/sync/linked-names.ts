/**
 * Names linked by alias records: a slot under every subject name an entity alias record links to its own, and every
 * property name a property alias record of one of those subjects links to its own, either way and transitively, in
 * force or not (undone, removed, or overridden since). A store that read some of the records held a claim under any
 * of these names at some point, so a claim blocked under one is blocked under all of them: the set only grows as
 * records arrive, whatever order they arrive in. Pure.
 */
import type { AliasChange, ChangeRecord, SlotRef } from './change-record.ts'

/**
 * The alias records among some records, for {@link linkedNames}.
 * @param records - records of every kind, undone ones too.
 * @returns the subject and property alias records.
 */
export function aliasRecordsOf(records: Iterable<ChangeRecord>): AliasChange[] {
  return [...records].filter(
    (record): record is AliasChange => record.kind === 'alias' && record.aliasKind !== 'project',
  )
}

/**
 * A slot under every linked subject and property name (its own names included), the links built once.
 * @param aliases - the subject and property alias records (`aliasRecordsOf`).
 * @returns per slot as a record names it, one slot per linked subject and property name, the project and qualifiers
 *   as given.
 */
export function linkedNames(aliases: readonly AliasChange[]): (slot: SlotRef) => SlotRef[] {
  const entityLinks = linksOf(
    aliases.filter((alias) => alias.aliasKind === 'entity').map((alias) => [alias.from, alias.to] as const),
  )
  const predicateAliases = aliases.filter((alias) => alias.aliasKind === 'predicate')
  const names = new Map<string, readonly (readonly [string, string])[]>()
  return (slot) => {
    const key = `${slot.entity}\u0000${slot.predicate}`
    let pairs = names.get(key)
    if (pairs === undefined) {
      const entities = reach(slot.entity, entityLinks)
      const predicateLinks = linksOf(
        predicateAliases
          .filter((alias) => entities.has(alias.entity ?? ''))
          .map((alias) => [alias.from, alias.to] as const),
      )
      const predicates = [...reach(slot.predicate, predicateLinks)]
      pairs = [...entities].flatMap((entity) => predicates.map((predicate) => [entity, predicate] as const))
      names.set(key, pairs)
    }
    return pairs.map(([entity, predicate]) => ({ ...slot, entity, predicate }))
  }
}

/** Each name's neighbours through the pairs, either way. */
function linksOf(pairs: readonly (readonly [string, string])[]): Map<string, Set<string>> {
  const links = new Map<string, Set<string>>()
  const link = (a: string, b: string): void => {
    links.set(a, (links.get(a) ?? new Set()).add(b))
    links.set(b, (links.get(b) ?? new Set()).add(a))
  }
  for (const [a, b] of pairs) link(a, b)
  return links
}

/** The name with every name the links reach from it, transitively. */
function reach(name: string, links: ReadonlyMap<string, ReadonlySet<string>>): Set<string> {
  return new Set([name, ...reachedFrom(name, (at) => links.get(at) ?? [])])
}

/**
 * Every node reached from `start` in one step or more along `steps` (`start` itself only through a cycle back to it),
 * each walked once.
 * @param start - where the walk begins.
 * @param steps - the nodes one step from a node.
 * @returns the nodes reached.
 */
export function reachedFrom(start: string, steps: (at: string) => Iterable<string>): Set<string> {
  const reached = new Set<string>()
  const queue = [start]
  for (let at = queue.pop(); at !== undefined; at = queue.pop())
    for (const step of steps(at))
      if (!reached.has(step)) {
        reached.add(step)
        queue.push(step)
      }
  return reached
}
