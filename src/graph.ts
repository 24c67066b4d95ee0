/**
 * Pure graph projection: current fact rows and the known entities in, a budgeted node and edge set out (the
 * nebula, or the one-hop tree around an entity), clustered around its hubs. No database, no DOM, nothing
 * kept between calls: the same rows always give the same payload, and a fact that leaves the rows leaves the graph.
 */
import {
  GRAPH_LIMITS,
  type GraphEdge,
  type GraphNode,
  type GraphPayload,
  type GraphScope,
  type GraphView,
} from './graph-types.ts'
import { clusterDrawing } from './graph-clusters.ts'
import { entityNamer, foldValue } from './graph-entity-names.ts'
import { canonicalPredicate, sha256 } from './text/normalize.ts'
import type { Evidence, FactStatus } from './types.ts'

/** One fact as the projection reads it (the store hands over current rows only). */
export interface GraphFactRow {
  readonly id: number
  /** Canonical key of the subject's entity. */
  readonly entityKey: string
  readonly property: string
  readonly value: string
  readonly status: FactStatus
  readonly evidence: Evidence
  /** ISO UTC instant the value was last observed. */
  readonly observedAt: string
  /** A conflict row, or an active row of a slot with an open conflict group. */
  readonly contested: boolean
  /** A credential's value is never projected. */
  readonly credential: boolean
  /** The value's sensitivity (email, phone, id_number), if any: the page never shows such a value in a label. */
  readonly sensitivity?: string | null | undefined
  /** The slot's qualifiers (env=staging), if any. */
  readonly qualifiers?: Readonly<Record<string, string>> | undefined
}

/** A node and edge budget. */
export interface GraphLimits {
  readonly nodes: number
  readonly edges: number
  readonly entities: number
}

/** What to project. */
export interface GraphOptions {
  readonly view: GraphView
  readonly scope: GraphScope
  /** The tree's centre, as an entity key; the tree is empty without one, the nebula ignores it. */
  readonly center?: string | undefined
  /** The store generation the rows were read at. */
  readonly generation: number
  /** The budget; defaults to {@link GRAPH_LIMITS} for the view. */
  readonly limits?: GraphLimits | undefined
  /**
   * The entity keys the budget may admit, when the store chose them (the nebula at scale); any other entity a
   * value names is left out, as an entity the budget did not admit.
   */
  readonly admissible?: ReadonlySet<string> | undefined
  /** Entities and facts in scope in the whole store, when the rows are not all of them; else counted from the rows. */
  readonly totals?: { readonly entities: number; readonly facts: number } | undefined
}

/** Evidence rank, 0 strongest, as in EVIDENCE_ORDER. */
const EVIDENCE_RANK: Readonly<Record<Evidence, number>> = {
  explicit_user: 0,
  confirmed_user: 1,
  observed: 2,
  unverified: 3,
}

interface NodeAcc {
  /** The entity key, or null for a value. */
  readonly entityKey: string | null
  /** The folded value of a value node (its identity, hashed into its id). */
  readonly folded: string
  label: string
  labelFact: number
  /** For a value: the sensitivity of a fact behind it (the first seen), which the page's labels withhold. */
  sensitivity: string | undefined
  /** Edges touching the node before the budget. */
  degree: number
  /** For an entity: its outgoing edges by target node index (then by predicate along `next`). */
  out: Map<number, EdgeAcc> | undefined
}

interface EdgeAcc {
  /** Node indexes. */
  readonly source: number
  readonly target: number
  readonly predicate: string
  /** True when the target is an entity. */
  readonly relation: boolean
  label: string
  /** The lowest supporting fact id: names the label and breaks ties (each fact backs exactly one edge). */
  firstFact: number
  /** Every supporting fact id, once there is more than one. */
  factIds: number[] | undefined
  /** Best evidence rank among the supporting facts. */
  evidence: number
  /** Latest observation among the supporting facts. */
  observedAt: string
  contested: boolean
  scheduled: boolean
  /** The qualifiers every supporting fact shares, or undefined when they differ or there are none. */
  qualifiers: Readonly<Record<string, string>> | undefined
  /** The next edge between the same two nodes with another predicate. */
  next: EdgeAcc | undefined
}

/** Every node and edge the rows project to, before the budget. */
interface FullGraph {
  readonly nodes: NodeAcc[]
  readonly edges: EdgeAcc[]
  /** Rows projected onto an edge. */
  readonly facts: number
}

/**
 * Whether a row may produce an edge in a scope: active and scheduled rows always, contested rows (status
 * `conflict`, or flagged) only in `all`; credentials and every other status never.
 * @param row - a fact row.
 * @param scope - current or all.
 * @returns true when the row is projected.
 */
export function isProjected(row: GraphFactRow, scope: GraphScope): boolean {
  if (row.credential) return false
  if (row.status !== 'active' && row.status !== 'scheduled' && row.status !== 'conflict') return false
  return scope === 'all' || !(row.contested || row.status === 'conflict')
}

/**
 * Project rows onto the graph.
 * - Every projected row is an edge from its subject's entity to the entity its value names (its canonical form is
 *   another known entity's key), or else to a value node (values equal after case, width and space folding share
 *   one node). Facts with one property between the same two nodes share an edge, which lists all their ids.
 * - The tree keeps only edges touching the centre; the centre is always a node.
 * - The budget admits entities by degree (the centre first, ties by id), at most `limits.entities` of them, and
 *   only those in `admissible` when the store chose them; then
 *   edges between admitted entities, then value edges, each best evidence first, then most recently observed,
 *   then oldest fact. Value edges are admitted in two passes, the first capped per entity at a fair share of the
 *   value-node slots, so one fat entity cannot take them all. What did not fit is counted in `omitted` (entities
 *   and facts against `totals` when given).
 * - Clusters are hubs with the subjects linked to them, then linked groups, then the unlinked (see clusterDrawing).
 * @param rows - fact rows, each id once, read once (a stream will do); rows not projected in the scope are skipped.
 * @param entities - known entities: canonical key → display name.
 * @param options - view, scope, centre, generation and budget.
 * @returns the payload, deterministic for the same input.
 */
export function projectGraph(
  rows: Iterable<GraphFactRow>,
  entities: ReadonlyMap<string, string>,
  options: GraphOptions,
): GraphPayload {
  const limits = options.limits ?? GRAPH_LIMITS[options.view]
  const base = {
    view: options.view,
    scope: options.scope,
    limits: { nodes: limits.nodes, edges: limits.edges, entities: limits.entities },
    generation: options.generation,
  }
  const centerKey = options.view === 'tree' ? options.center : undefined
  if (options.view === 'tree' && centerKey === undefined) {
    return {
      ...base,
      center: null,
      nodes: [],
      edges: [],
      clusters: [],
      omitted: { nodes: 0, edges: 0, entities: 0, facts: 0 },
    }
  }

  const graph = collect(rows, entities, options.scope, centerKey)
  const center = centerKey === undefined ? undefined : graph.nodes.findIndex((node) => node.entityKey === centerKey)
  const chosen = choose(graph, limits, center, options.admissible)

  const ids = new Map<number, string>(chosen.nodes.map((index) => [index, publicNodeId(graph.nodes[index])]))
  const idOf = (index: number): string => ids.get(index) ?? ''
  const degree = new Map<number, number>()
  const factCount = new Map<number, number>()
  for (const edge of chosen.edges) {
    for (const end of [edge.source, edge.target]) {
      degree.set(end, (degree.get(end) ?? 0) + 1)
      factCount.set(end, (factCount.get(end) ?? 0) + (edge.factIds?.length ?? 1))
    }
  }
  const { cluster, hubs, clusters } = clusterDrawing({
    nodes: chosen.nodes,
    edges: chosen.edges,
    idOf,
    labelOf: (index) => graph.nodes[index]?.label ?? '',
    degree,
    isEntity: (index) => graph.nodes[index]?.entityKey !== null,
  })
  const nodes: GraphNode[] = chosen.nodes
    .flatMap((index) => {
      const node = graph.nodes[index]
      if (node === undefined) return []
      return [
        {
          id: idOf(index),
          kind: node.entityKey === null ? ('value' as const) : ('entity' as const),
          label: node.label,
          entityKey: node.entityKey,
          factCount: factCount.get(index) ?? 0,
          degree: degree.get(index) ?? 0,
          cluster: cluster.get(index) ?? 0,
          hub: hubs.has(index),
          ...(node.sensitivity === undefined ? {} : { sensitivity: node.sensitivity }),
        },
      ]
    })
    .sort((a, b) => a.cluster - b.cluster || compare(a.id, b.id))
  const edges: GraphEdge[] = chosen.edges
    .map((edge) => ({
      id: edgeId(idOf(edge.source), edge.predicate, idOf(edge.target)),
      source: idOf(edge.source),
      target: idOf(edge.target),
      label: edge.label,
      factIds: edge.factIds === undefined ? [edge.firstFact] : [...edge.factIds].sort((a, b) => a - b),
      contested: edge.contested,
      scheduled: edge.scheduled,
      ...(edge.qualifiers === undefined ? {} : { qualifiers: edge.qualifiers }),
    }))
    .sort((a, b) => compare(a.id, b.id))

  const entityTotal =
    options.totals?.entities ?? graph.nodes.reduce((sum, node) => sum + (node.entityKey === null ? 0 : 1), 0)
  const entityShown = nodes.reduce((sum, node) => sum + (node.kind === 'entity' ? 1 : 0), 0)
  const factTotal = options.totals?.facts ?? graph.facts
  const factShown = edges.reduce((sum, edge) => sum + edge.factIds.length, 0)
  const centerId = centerKey === undefined ? undefined : entityId(centerKey)
  return {
    ...base,
    center: centerId === undefined ? null : (nodes.find((node) => node.id === centerId) ?? null),
    nodes,
    edges,
    clusters,
    omitted: {
      nodes: graph.nodes.length - nodes.length,
      edges: graph.edges.length - edges.length,
      entities: Math.max(0, entityTotal - entityShown),
      facts: Math.max(0, factTotal - factShown),
    },
  }
}

/** Build every node and edge the rows project to; the tree keeps the edges touching its centre, and the centre. */
function collect(
  rows: Iterable<GraphFactRow>,
  entities: ReadonlyMap<string, string>,
  scope: GraphScope,
  centerKey: string | undefined,
): FullGraph {
  const nodes: NodeAcc[] = []
  const entityNodes = new Map<string, number>()
  const valueNodes = new Map<string, number>()
  const edges: EdgeAcc[] = []
  const predicates = new Map<string, string>()
  const namer = entityNamer(entities)
  const entityNode = (key: string): number => {
    let at = entityNodes.get(key)
    if (at === undefined) {
      at = nodes.length
      entityNodes.set(key, at)
      nodes.push({
        entityKey: key,
        folded: '',
        label: entities.get(key) ?? key,
        labelFact: 0,
        sensitivity: undefined,
        degree: 0,
        out: undefined,
      })
    }
    return at
  }
  const valueNode = (value: string, fact: number, sensitivity: string | undefined): number => {
    const folded = foldValue(value)
    let at = valueNodes.get(folded)
    if (at === undefined) {
      at = nodes.length
      valueNodes.set(folded, at)
      nodes.push({ entityKey: null, folded, label: value, labelFact: fact, sensitivity, degree: 0, out: undefined })
    } else {
      const node = nodes[at]
      if (node !== undefined) node.sensitivity ??= sensitivity
      if (node !== undefined && fact < node.labelFact) {
        node.label = value
        node.labelFact = fact
      }
    }
    return at
  }
  if (centerKey !== undefined) entityNode(centerKey)
  let facts = 0
  for (const row of rows) {
    if (!isProjected(row, scope)) continue
    const named = namer(row.value, row.entityKey)
    if (centerKey !== undefined && row.entityKey !== centerKey && named !== centerKey) continue
    facts += 1
    const source = entityNode(row.entityKey)
    const target = named === undefined ? valueNode(row.value, row.id, row.sensitivity ?? undefined) : entityNode(named)
    const qualifiers =
      row.qualifiers !== undefined && Object.keys(row.qualifiers).length > 0 ? row.qualifiers : undefined
    let predicate = predicates.get(row.property)
    if (predicate === undefined) {
      predicate = canonicalPredicate(row.property)
      predicates.set(row.property, predicate)
    }
    const rank = EVIDENCE_RANK[row.evidence]
    const contested = row.contested || row.status === 'conflict'
    const from = nodes[source] as NodeAcc
    from.out ??= new Map()
    let edge = from.out.get(target)
    while (edge !== undefined && edge.predicate !== predicate) edge = edge.next
    if (edge === undefined) {
      const created: EdgeAcc = {
        source,
        target,
        predicate,
        relation: named !== undefined,
        label: row.property,
        firstFact: row.id,
        factIds: undefined,
        evidence: rank,
        observedAt: row.observedAt,
        contested,
        scheduled: row.status === 'scheduled',
        qualifiers,
        next: from.out.get(target),
      }
      from.out.set(target, created)
      edges.push(created)
      from.degree += 1
      const to = nodes[target]
      if (to !== undefined) to.degree += 1
      continue
    }
    edge.factIds ??= [edge.firstFact]
    edge.factIds.push(row.id)
    if (row.id < edge.firstFact) {
      edge.firstFact = row.id
      edge.label = row.property
    }
    if (rank < edge.evidence) edge.evidence = rank
    if (row.observedAt > edge.observedAt) edge.observedAt = row.observedAt
    edge.contested ||= contested
    edge.scheduled &&= row.status === 'scheduled'
    if (
      edge.qualifiers !== undefined &&
      JSON.stringify(sortedPairs(edge.qualifiers)) !== JSON.stringify(sortedPairs(qualifiers ?? {}))
    )
      edge.qualifiers = undefined
  }
  return { nodes, edges, facts }
}

/** Apply the budget: entities by degree, then relation edges, then value edges with a fair first pass. */
function choose(
  graph: FullGraph,
  limits: GraphLimits,
  center: number | undefined,
  admissible: ReadonlySet<string> | undefined,
): { nodes: number[]; edges: EdgeAcc[] } {
  const ranked: number[] = []
  graph.nodes.forEach((node, at) => {
    if (node.entityKey !== null && (admissible === undefined || admissible.has(node.entityKey))) ranked.push(at)
  })
  const degree = (at: number): number => graph.nodes[at]?.degree ?? 0
  const key = (at: number): string => graph.nodes[at]?.entityKey ?? ''
  ranked.sort((a, b) => Number(b === center) - Number(a === center) || degree(b) - degree(a) || compare(key(a), key(b)))
  const admitted = new Set(ranked.slice(0, Math.max(0, Math.min(limits.entities, limits.nodes))))
  const chosenNodes = [...admitted]
  const chosenEdges: EdgeAcc[] = []
  const byStrength = (a: EdgeAcc, b: EdgeAcc): number =>
    a.evidence - b.evidence || compare(b.observedAt, a.observedAt) || a.firstFact - b.firstFact
  const relations: EdgeAcc[] = []
  const values: EdgeAcc[] = []
  for (const edge of graph.edges) {
    if (!admitted.has(edge.source)) continue
    if (!edge.relation) values.push(edge)
    else if (admitted.has(edge.target)) relations.push(edge)
  }
  for (const edge of relations.sort(byStrength)) {
    if (chosenEdges.length >= limits.edges) break
    chosenEdges.push(edge)
  }
  values.sort(byStrength)
  const valueNodes = new Set<number>()
  let slots = limits.nodes - admitted.size
  const share = Math.max(1, Math.floor(slots / Math.max(1, new Set(values.map((edge) => edge.source)).size)))
  const taken = new Map<number, number>()
  const picked = new Set<EdgeAcc>()
  for (const fair of [true, false]) {
    for (const edge of values) {
      if (chosenEdges.length >= limits.edges) break
      if (picked.has(edge) || (fair && (taken.get(edge.source) ?? 0) >= share)) continue
      const fresh = !valueNodes.has(edge.target)
      if (fresh && slots <= 0) continue
      if (fresh) {
        valueNodes.add(edge.target)
        chosenNodes.push(edge.target)
        slots -= 1
      }
      picked.add(edge)
      chosenEdges.push(edge)
      taken.set(edge.source, (taken.get(edge.source) ?? 0) + 1)
    }
  }
  return { nodes: chosenNodes, edges: chosenEdges }
}

/** The id of an entity node. */
function entityId(entityKey: string): string {
  return `e:${entityKey}`
}

/** The public id of a node: `e:<entityKey>`, or `v:` and a hash of the folded value. */
function publicNodeId(node: NodeAcc | undefined): string {
  if (node === undefined) return ''
  if (node.entityKey !== null) return entityId(node.entityKey)
  return `v:${sha256(JSON.stringify(['value', node.folded])).slice(0, 16)}`
}

/** An edge id from its ends and predicate. */
function edgeId(source: string, predicate: string, target: string): string {
  return `r:${sha256(JSON.stringify(['edge', source, predicate, target])).slice(0, 16)}`
}

/** A qualifier set as sorted pairs, so two sets compare by content. */
function sortedPairs(qualifiers: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(qualifiers).sort(([a], [b]) => compare(a, b))
}

/** Code-unit order, the same in every locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
