/**
 * Pure cluster rule for the nebula: which drawn nodes share a cluster, and what each cluster is called. A cluster is
 * held together by real links only, one subject's fact naming another subject; a shared value ("prod", a city, a
 * team name that is no subject) is a meeting point drawn as edges, never a reason to group two subjects. Subjects
 * linked to no other subject stand together in one neutral group called "Unlinked", so nothing reads as if their
 * facts belonged to someone. No state, no DOM: the same drawing always gives the same clusters.
 */
import type { GraphCluster } from './graph-types.ts'

/** A hub needs at least this many drawn edges (and twice the mean degree). */
const HUB_MIN_DEGREE = 3
/** At most this many hubs: the page's palette has one hue each, and more for what the hubs do not reach. */
const MAX_HUBS = 8
/** The neutral group's name. */
export const UNLINKED_LABEL = 'Unlinked'

/** What the rule reads of the drawing. */
export interface ClusterInput {
  /** Drawn node indexes. */
  readonly nodes: readonly number[]
  /** Drawn edges by node index; `relation` when both ends are subjects. */
  readonly edges: readonly { readonly source: number; readonly target: number; readonly relation: boolean }[]
  readonly idOf: (index: number) => string
  readonly labelOf: (index: number) => string
  /** Drawn edges touching each node. */
  readonly degree: ReadonlyMap<number, number>
  readonly isEntity: (index: number) => boolean
}

/** Each node's cluster index, the hubs, and the clusters in index order. */
export interface ClusterResult {
  readonly cluster: Map<number, number>
  readonly hubs: Set<number>
  readonly clusters: GraphCluster[]
}

/**
 * Clusters the drawing.
 * - Hubs: subjects by degree (ties by id) with at least HUB_MIN_DEGREE edges and twice the mean degree, at most
 *   MAX_HUBS. Values are never hubs.
 * - Each subject linked to a hub, over subject→subject links only, joins the nearest hub, breadth first from all
 *   hubs at once (hubs in rank order, neighbours in id order): a tie goes to the bigger hub. The cluster is called
 *   by its hub's name.
 * - Linked subjects no hub reaches: their linked components, largest first (ties by smallest id), each a cluster of
 *   its own (colours may repeat past the palette; clusters are never merged), called by the member with the most
 *   links (then the most edges, then the smallest id).
 * - Subjects with no link to another subject: one group, last, called UNLINKED_LABEL.
 * - A value joins the lowest-numbered cluster among the subjects it is a value of.
 * @returns each node's cluster (numbered 0.. in the order above) and the clusters described.
 */
export function clusterDrawing(input: ClusterInput): ClusterResult {
  const { nodes, idOf, isEntity } = input
  const compareIds = (a: number, b: number): number => compare(idOf(a), idOf(b))
  const links = new Map<number, number[]>()
  const owners = new Map<number, number[]>()
  for (const edge of input.edges) {
    if (edge.relation) {
      if (edge.source === edge.target) continue
      links.set(edge.source, [...(links.get(edge.source) ?? []), edge.target])
      links.set(edge.target, [...(links.get(edge.target) ?? []), edge.source])
    } else {
      owners.set(edge.target, [...(owners.get(edge.target) ?? []), edge.source])
    }
  }
  for (const list of links.values()) list.sort(compareIds)
  const degreeOf = (index: number): number => input.degree.get(index) ?? 0
  const linksOf = (index: number): number => new Set(links.get(index) ?? []).size
  const subjects = nodes.filter(isEntity)
  const threshold = Math.max(HUB_MIN_DEGREE, Math.ceil((4 * input.edges.length) / Math.max(1, nodes.length)))
  const hubs = subjects
    .filter((index) => degreeOf(index) >= threshold)
    .sort((a, b) => degreeOf(b) - degreeOf(a) || compareIds(a, b))
    .slice(0, MAX_HUBS)

  const cluster = new Map<number, number>()
  const walk = (starts: readonly number[], label: (start: number) => number): number[] => {
    const queue = [...starts]
    for (const start of starts) cluster.set(start, label(start))
    for (let at = 0; at < queue.length; at += 1) {
      const from = queue[at] as number
      for (const next of links.get(from) ?? []) {
        if (cluster.has(next)) continue
        cluster.set(next, cluster.get(from) ?? 0)
        queue.push(next)
      }
    }
    return queue
  }
  const clusters: GraphCluster[] = []
  const members = walk(hubs, (hub) => hubs.indexOf(hub))
  hubs.forEach((hub, index) => {
    clusters.push({
      index,
      kind: 'linked',
      label: input.labelOf(hub),
      subjects: members.filter((m) => cluster.get(m) === index).length,
    })
  })

  // Linked subjects no hub reached: their components, found from each subject in id order, then ordered.
  const components: number[][] = []
  const unlinked: number[] = []
  for (const start of [...subjects].sort(compareIds)) {
    if (cluster.has(start)) continue
    if (linksOf(start) === 0) {
      unlinked.push(start)
      continue
    }
    components.push(walk([start], () => -1))
  }
  components.sort((a, b) => b.length - a.length || compareIds(smallest(a, compareIds), smallest(b, compareIds)))
  for (const component of components) {
    const index = clusters.length
    for (const member of component) cluster.set(member, index)
    const named = [...component].sort(
      (a, b) => linksOf(b) - linksOf(a) || degreeOf(b) - degreeOf(a) || compareIds(a, b),
    )[0] as number
    clusters.push({ index, kind: 'linked', label: input.labelOf(named), subjects: component.length })
  }
  if (unlinked.length > 0) {
    const index = clusters.length
    for (const subject of unlinked) cluster.set(subject, index)
    clusters.push({ index, kind: 'unlinked', label: UNLINKED_LABEL, subjects: unlinked.length })
  }

  for (const index of nodes) {
    if (cluster.has(index)) continue
    const own = (owners.get(index) ?? []).map((owner) => cluster.get(owner)).filter((c): c is number => c !== undefined)
    let at = own.length === 0 ? undefined : Math.min(...own)
    if (at === undefined) {
      // A value no drawn subject holds cannot happen; it would stand in the neutral group.
      at = clusters.find((c) => c.kind === 'unlinked')?.index
      if (at === undefined) {
        at = clusters.length
        clusters.push({ index: at, kind: 'unlinked', label: UNLINKED_LABEL, subjects: 0 })
      }
    }
    cluster.set(index, at)
  }
  return { cluster, hubs: new Set(hubs), clusters }
}

function smallest(members: readonly number[], order: (a: number, b: number) => number): number {
  return members.reduce((min, m) => (order(m, min) < 0 ? m : min))
}

/** Code-unit order, the same in every locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
