/**
 * The graph projection's wire types, shared by the `graph` route (src/graph.ts) and the page's nebula and tree
 * views (client/). Types only. The graph is a projection of current facts, never a second truth source: every
 * edge carries the ids of the facts behind it.
 */

/** Which picture to draw. */
export type GraphView = 'nebula' | 'tree'

/** Which relations: current ones only, or also contested ones (labelled as such). */
export type GraphScope = 'current' | 'all'

/** One node: an entity (a subject) or a value that names no entity. */
export interface GraphNode {
  /** Stable id: `e:<entityKey>` for an entity, `v:<hash>` for a value node. */
  readonly id: string
  readonly kind: 'entity' | 'value'
  /** What a person reads: the subject as written, or the value. */
  readonly label: string
  /** For entities: the canonical key (use it to ask for the entity or a one-hop tree). */
  readonly entityKey: string | null
  /** Facts about or pointing at this node within the projection. */
  readonly factCount: number
  /** Edges touching this node within the projection. */
  readonly degree: number
  /**
   * Cluster index: a hub and the subjects linked to it share one (0 is the hub with the most edges); after the hubs'
   * come the linked groups no hub reaches, then the neutral group of unlinked subjects (see `GraphPayload.clusters`).
   */
  readonly cluster: number
  /** The entity its cluster is built around (always labelled on the page). */
  readonly hub: boolean
  /**
   * For a value behind a sensitive fact: its kind (email, phone, id_number). The page never shows such a value in a
   * hover or a label (client/format.ts `glanceLabel`), as the Markdown export withholds it.
   */
  readonly sensitivity?: string
}

/** One relation: subject → value, labelled by the property, backed by one or more facts. */
export interface GraphEdge {
  /** Stable id derived from source, target and property. */
  readonly id: string
  readonly source: string
  readonly target: string
  /** The property (several facts with one property between the same nodes share an edge). */
  readonly label: string
  /** The facts behind the edge; opening the edge lists them. */
  readonly factIds: readonly number[]
  /** True when a supporting fact is contested: shown only in the `all` scope, never as confirmed. */
  readonly contested: boolean
  /** True when every supporting fact is scheduled (not current yet). */
  readonly scheduled: boolean
  /** The qualifiers every supporting fact shares (env=staging), when there are some. */
  readonly qualifiers?: Readonly<Record<string, string>>
}

/**
 * One cluster as a person reads it. Clusters are held together by real links (a fact naming another subject); a
 * shared value never groups two subjects.
 */
export interface GraphCluster {
  /** The nodes' `cluster` index. */
  readonly index: number
  /**
   * `linked`: a hub or a linked group, called by the subject its members link to. `unlinked`: the neutral group of
   * subjects with no link to another subject, called "Unlinked", never after one of them.
   */
  readonly kind: 'linked' | 'unlinked'
  readonly label: string
  /** How many subjects it holds. */
  readonly subjects: number
}

/**
 * What the budget left out. `entities` and `facts` count the whole store in scope; `nodes` and `edges` count what
 * the rows the store read would have drawn (for the nebula, the admitted entities' rows: a lower bound).
 */
export interface GraphOmitted {
  readonly nodes: number
  readonly edges: number
  /** Entities with a current fact in scope that are not drawn. */
  readonly entities: number
  /** Current facts in scope that no drawn edge shows. */
  readonly facts: number
}

/** The graph route's answer. */
export interface GraphPayload {
  readonly view: GraphView
  readonly scope: GraphScope
  /** For the tree: the entity at the centre. */
  readonly center: GraphNode | null
  readonly nodes: readonly GraphNode[]
  readonly edges: readonly GraphEdge[]
  /** Every cluster a node is in, by index. */
  readonly clusters: readonly GraphCluster[]
  readonly omitted: GraphOmitted
  /** The budget that applied. */
  readonly limits: { readonly nodes: number; readonly edges: number; readonly entities: number }
  readonly generation: number
}

/** Budgets from the specification. */
export const GRAPH_LIMITS = {
  nebula: { nodes: 600, edges: 1200, entities: 300 },
  tree: { nodes: 100, edges: 200, entities: 100 },
} as const
