/**
 * The graph projection's wire types, shared by the `graph` route (src/graph.ts) and the page's nebula and tree
 * views (client/), inferred from the schemas of src/wire.schema.ts (where each field is documented). The graph is a
 * projection of current facts, never a second truth source: every edge carries the ids of the facts behind it.
 */
import type * as wire from './wire.schema.ts'
import type { WireOf } from './wire.schema.ts'

/** Which picture to draw. */
export type GraphView = WireOf<typeof wire.graphViewSchema>
/** Which relations: current ones only, or also contested ones (labelled as such). */
export type GraphScope = WireOf<typeof wire.graphScopeSchema>
/** One node: an entity (a subject) or a value that names no entity. */
export type GraphNode = WireOf<typeof wire.graphNodeSchema>
/** One relation: subject → value, labelled by the property, backed by one or more facts. */
export type GraphEdge = WireOf<typeof wire.graphEdgeSchema>
/** One cluster as a person reads it. */
export type GraphCluster = WireOf<typeof wire.graphClusterSchema>
/** What the budget left out. */
export type GraphOmitted = WireOf<typeof wire.graphOmittedSchema>
/** The graph route's answer. */
export type GraphPayload = WireOf<typeof wire.graphPayloadSchema>

/** Budgets from the specification. */
export const GRAPH_LIMITS = {
  nebula: { nodes: 600, edges: 1200, entities: 300 },
  tree: { nodes: 100, edges: 200, entities: 100 },
} as const
