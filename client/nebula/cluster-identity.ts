/**
 * Which cluster is which across refreshes: a cluster's identity is its hub's node id (the smallest member id when it
 * has no hub), not its index, which follows rank and shifts when one fact changes. Colours are kept per identity, so
 * a cluster keeps its colour while it exists; each cluster's largest entity is the one always named. Pure.
 */
import type { GraphNode, GraphPayload } from '../../src/graph-types.ts'
import { hashString } from './seeds.ts'

/**
 * @param nodes - the drawn nodes
 * @returns each cluster index's identity: its hub's id (the first by id when it has several), else its smallest id
 */
export function clusterKeys(nodes: readonly GraphNode[]): Map<number, string> {
  const hubs = new Map<number, string>()
  const smallest = new Map<number, string>()
  for (const node of nodes) {
    const least = smallest.get(node.cluster)
    if (least === undefined || node.id < least) smallest.set(node.cluster, node.id)
    const hub = hubs.get(node.cluster)
    if (node.hub && (hub === undefined || node.id < hub)) hubs.set(node.cluster, node.id)
  }
  const keys = new Map<number, string>()
  for (const [cluster, least] of smallest) keys.set(cluster, hubs.get(cluster) ?? least)
  return keys
}

/**
 * Gives each cluster a colour slot: a cluster seen before keeps its slot; a new one takes its key's hashed slot when
 * free, else the next free slot after it, else the hashed slot (more clusters than colours). New clusters are
 * served largest first, so the biggest ones get distinct colours.
 * @param payload - the drawn graph
 * @param slots - how many cluster colours the palette has (at least 1)
 * @param previous - slots given earlier, by cluster key
 * @returns the slot of every cluster key in the payload
 */
export function assignClusterColours(
  payload: GraphPayload,
  slots: number,
  previous: ReadonlyMap<string, number>,
): Map<string, number> {
  const keys = clusterKeys(payload.nodes)
  const sizes = new Map<string, number>()
  for (const node of payload.nodes) {
    const key = keys.get(node.cluster) ?? node.id
    sizes.set(key, (sizes.get(key) ?? 0) + 1)
  }
  const order = [...sizes.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([key]) => key)
  const out = new Map<string, number>()
  const taken = new Set<number>()
  for (const key of order) {
    const slot = previous.get(key)
    if (slot === undefined || slot >= slots || taken.has(slot)) continue
    out.set(key, slot)
    taken.add(slot)
  }
  for (const key of order) {
    if (out.has(key)) continue
    const preferred = hashString(key) % slots
    let slot = preferred
    for (let step = 0; step < slots; step += 1) {
      const candidate = (preferred + step) % slots
      if (!taken.has(candidate)) {
        slot = candidate
        break
      }
    }
    out.set(key, slot)
    taken.add(slot)
  }
  return out
}

/**
 * @param payload - the drawn graph
 * @returns each linked cluster's entity with the most facts (then the most edges, then the smallest id), largest
 *   first; none for the unlinked group, which is named as a group (see `unlinkedGroups`), never after a member
 */
export function largestEntities(payload: GraphPayload): GraphNode[] {
  const unlinked = new Set(
    payload.clusters.filter((cluster) => cluster.kind === 'unlinked').map((cluster) => cluster.index),
  )
  const best = new Map<number, GraphNode>()
  for (const node of payload.nodes) {
    if (node.kind !== 'entity' || unlinked.has(node.cluster)) continue
    const held = best.get(node.cluster)
    if (
      held === undefined ||
      node.factCount > held.factCount ||
      (node.factCount === held.factCount &&
        (node.degree > held.degree || (node.degree === held.degree && node.id < held.id)))
    )
      best.set(node.cluster, node)
  }
  return [...best.values()].sort((a, b) => b.factCount - a.factCount || (a.id < b.id ? -1 : 1))
}

/** The neutral group's label and members, drawn as one label at the members' centre. */
export interface GroupLabel {
  readonly key: string
  readonly text: string
  readonly members: readonly string[]
}

/**
 * @param payload - the drawn graph
 * @returns the unlinked group, if any, labelled as such with its subject count ("Unlinked · 56 subjects")
 */
export function unlinkedGroups(payload: GraphPayload): GroupLabel[] {
  return payload.clusters
    .filter((cluster) => cluster.kind === 'unlinked')
    .map((cluster) => ({
      key: `c:${cluster.index}`,
      text: `${cluster.label} · ${cluster.subjects} ${cluster.subjects === 1 ? 'subject' : 'subjects'}`,
      members: payload.nodes.filter((node) => node.cluster === cluster.index).map((node) => node.id),
    }))
}
