/**
 * The keyed data join that keeps a scene in step with a payload, and what counts as a change of a node or an edge.
 * Pure: the caller supplies how an entry is added, updated and removed.
 */
import type { GraphEdge, GraphNode } from '../../src/graph-types.ts'

/** Ids touched by one join, per kind of change. */
export interface JoinReport {
  readonly added: readonly string[]
  readonly updated: readonly string[]
  readonly removed: readonly string[]
}

/**
 * Joins live entries to the next data by id: removes entries whose id is gone, adds entries for new ids, and asks
 * `update` about the rest (true when it changed something).
 * @param current - live entries by id, changed in place
 * @param next - the data to show, by id
 * @param ops - how to add, update and remove one entry
 * @returns the ids added, updated and removed
 */
export function joinByKey<D, E>(
  current: Map<string, E>,
  next: ReadonlyMap<string, D>,
  ops: { add(datum: D): E; update(entry: E, datum: D): boolean; remove(entry: E): void },
): JoinReport {
  const added: string[] = []
  const updated: string[] = []
  const removed: string[] = []
  for (const [id, entry] of current) {
    if (next.has(id)) continue
    ops.remove(entry)
    current.delete(id)
    removed.push(id)
  }
  for (const [id, datum] of next) {
    const entry = current.get(id)
    if (entry === undefined) {
      current.set(id, ops.add(datum))
      added.push(id)
    } else if (ops.update(entry, datum)) {
      updated.push(id)
    }
  }
  return { added, updated, removed }
}

/** @returns whether two versions of a node draw the same (label, kind, entity, weight and cluster) */
export function sameNode(a: GraphNode, b: GraphNode): boolean {
  return (
    a.label === b.label &&
    a.kind === b.kind &&
    a.entityKey === b.entityKey &&
    a.factCount === b.factCount &&
    a.degree === b.degree &&
    a.cluster === b.cluster
  )
}

/** @returns whether two versions of an edge draw the same and stand for the same facts */
export function sameEdge(a: GraphEdge, b: GraphEdge): boolean {
  return (
    a.label === b.label &&
    a.source === b.source &&
    a.target === b.target &&
    a.contested === b.contested &&
    a.scheduled === b.scheduled &&
    a.factIds.length === b.factIds.length &&
    a.factIds.every((id, i) => b.factIds[i] === id)
  )
}
