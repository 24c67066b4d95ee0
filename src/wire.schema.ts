/**
 * zod schemas of the views the management routes answer with and the page reads: facts, scopes, sources, conflict
 * groups, proposal cards, the activity digest and per-session counts, the extraction queue, the graph. The types of
 * src/wire-types.ts and src/graph-types.ts are inferred from these, so the wire has one description; the verb
 * contract (src/management/verb-contract.ts) builds each verb's answer from them. Imports zod only.
 */
import { z } from 'zod'

const count = z.number().int().min(0)
const id = z.number().int().positive()
const qualifiers = z.record(z.string(), z.string())

/** The kinds of scope. */
export const scopeKindSchema = z.enum(['global', 'project', 'label'])

/** A fact as the routes return it; a credential's value and quote are always masked. */
export const factViewSchema = z.strictObject({
  id,
  subject: z.string(),
  entityKey: z.string(),
  property: z.string(),
  qualifiers,
  /** The stored scope text: what a filter or a move names, never shown (a project's holds its path). */
  scope: z.string(),
  /** Which kind of scope: the global one, a project's, or a free-text label. */
  scopeKind: scopeKindSchema,
  /** What a person reads for the scope: `global`, the project's name, or the label. */
  scopeName: z.string(),
  value: z.string(),
  masked: z.boolean(),
  status: z.string(),
  evidence: z.string(),
  confidence: z.number(),
  sensitivity: z.string().nullable(),
  modelUseAllowed: z.boolean(),
  multi: z.boolean(),
  validFrom: z.string(),
  validTo: z.string().nullable(),
  observedAt: z.string(),
  recordedAt: z.string(),
  supersededBy: id.nullable(),
  conflictGroupId: id.nullable(),
  revision: count,
  origin: z.string(),
  sessionId: z.string().nullable(),
  turn: count.nullable(),
  quote: z.string().nullable(),
  /** How many writes of the same line on other days folded into this row (seen foldedCount + 1 times). */
  foldedCount: count,
  /** The phrases a later request needing the fact would use; empty for a credential. */
  cues: z.array(z.string()),
  /** The row's last prior lines, newest last; empty for a credential. */
  foldedFrom: z.array(z.string()),
  /** When the user pinned this row (it then leads the directory while current), or null. */
  pinnedAt: z.string().nullable(),
})

/** A scope the store holds facts in, as the library's scope filter lists it. */
export const scopeWireSchema = z.strictObject({
  /** The stored scope text, to filter by or move to. */
  scope: z.string(),
  kind: scopeKindSchema,
  /** `global`, the project's name, or the label. */
  name: z.string(),
  /** Facts in it that are not forgotten. */
  facts: count,
})

/** One recorded observation of a fact. */
export const sourceViewSchema = z.strictObject({
  origin: z.string(),
  evidence: z.string(),
  sessionId: z.string().nullable(),
  turn: count.nullable(),
  quote: z.string().nullable(),
  observedAt: z.string(),
})

/** An open conflict group: its slot and its current sides. */
export const conflictGroupWireSchema = z.strictObject({
  id,
  openedAt: z.string(),
  subject: z.string(),
  property: z.string(),
  qualifiers,
  rows: z.array(factViewSchema),
  /**
   * The sides that came from other machines through sync, with those machines' names and the note a line shows for
   * them (` (from home desktop)`, worded on the server so the page and `memory_search` say the same); this machine's
   * own sides are absent.
   */
  fromDevices: z.array(z.strictObject({ factId: id, devices: z.array(z.string()).min(1), note: z.string().min(1) })),
})

/** One row of an add_fact card. */
export const proposalRowWireSchema = z.strictObject({
  index: count,
  subject: z.string(),
  property: z.string(),
  value: z.string(),
  qualifiers,
  evidence: z.string(),
  confidence: z.number(),
  quote: z.string().nullable(),
  /** The facts the row was proposed against, at the revision it saw them (empty for an empty slot). */
  targets: z.array(z.strictObject({ factId: id, revision: count })),
  stale: z.boolean(),
})

/** A fact as a review card names it; a credential's value is masked. */
export const cardFactWireSchema = z.strictObject({
  id,
  subject: z.string(),
  property: z.string(),
  value: z.string(),
  status: z.string(),
})

/** What every row of a review card carries: its place and whether its facts changed since the card was made. */
const reviewRow = { index: count, stale: z.boolean() }

/** A merge row: keep the keeper, retire the loser, move its sources. */
export const mergeRowWireSchema = z.strictObject({
  ...reviewRow,
  keeper: cardFactWireSchema.nullable(),
  loser: cardFactWireSchema.nullable(),
  /** How many sources the loser holds, which move to the keeper. */
  sources: count,
})

/** A retire row: a fact that only restates its property. */
export const retireRowWireSchema = z.strictObject({ ...reviewRow, fact: cardFactWireSchema.nullable() })

/** A fold row: a pipeline's older runs fold into its newest. */
export const foldRowWireSchema = z.strictObject({
  ...reviewRow,
  survivor: cardFactWireSchema.nullable(),
  /** How many runs fold into the survivor. */
  runs: count,
  /**
   * The runs themselves, in the card's order, at most FOLD_RUNS_LISTED of them (`runs` counts them all); a run that
   * is gone since the card was made is null.
   */
  runFacts: z.array(cardFactWireSchema.nullable()),
})

/** An entity as an alias row names it. */
export const entityNameWireSchema = z.strictObject({
  entityKey: z.string(),
  /** Its name as first written (the key when the entity is gone). */
  display: z.string(),
})

/** An alias row: the fragment's facts move to the canonical entity. */
export const aliasRowWireSchema = z.strictObject({
  ...reviewRow,
  fragment: entityNameWireSchema,
  canonical: entityNameWireSchema,
  /** How many facts move. */
  facts: count,
})

/** What every proposal card carries. */
const proposalCardBase = {
  id,
  status: z.string(),
  reason: z.string(),
  revision: count,
  /** The card's place in a longer list (n of m), or null. */
  batch: z.strictObject({ index: count, count }).nullable(),
  sessionId: z.string().nullable(),
  turn: count.nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  decidedAt: z.string().nullable(),
  /** Why the card's stored rows could not be read, or null. */
  unreadable: z.string().nullable(),
}

/** A proposal card, with the rows of its kind. */
export const proposalCardWireSchema = z.discriminatedUnion('kind', [
  z.strictObject({ ...proposalCardBase, kind: z.literal('add_fact'), rows: z.array(proposalRowWireSchema) }),
  z.strictObject({ ...proposalCardBase, kind: z.literal('merge'), rows: z.array(mergeRowWireSchema) }),
  z.strictObject({ ...proposalCardBase, kind: z.literal('retire'), rows: z.array(retireRowWireSchema) }),
  z.strictObject({ ...proposalCardBase, kind: z.literal('fold'), rows: z.array(foldRowWireSchema) }),
  z.strictObject({ ...proposalCardBase, kind: z.literal('alias'), rows: z.array(aliasRowWireSchema) }),
])

/** The activity digest: what arrived since the review queue was last marked as seen. */
export const activityWireSchema = z.strictObject({
  /** When the queue was last marked as seen (ISO), or null when it never was. */
  since: z.string().nullable(),
  /** Facts recorded, conflict groups opened and proposals queued since then. */
  facts: count,
  conflicts: count,
  proposals: count,
  /** Facts recorded per day (UTC) since then. */
  byDay: z.array(z.strictObject({ day: z.string(), facts: count })),
  pendingProposals: count,
  openConflictGroups: count,
})

/** Counts of one conversation turn. */
export const turnCountsWireSchema = z.strictObject({
  turn: count.nullable(),
  facts: count,
  pending: count,
  unsettled: count,
  factIds: z.array(id),
  /** Facts per-turn recall put in front of the model on this turn. */
  recalled: count,
  recalledIds: z.array(id),
})

/** Counts of one conversation. */
export const sessionCountsWireSchema = z.strictObject({
  sessionId: z.string(),
  facts: count,
  pending: count,
  unsettled: count,
  lastAt: z.string(),
  turns: z.array(turnCountsWireSchema),
  /** Turns that queued or running automatic extraction has yet to settle. */
  extractingTurns: z.array(count),
  /** Whether the user paused memory in this conversation. */
  paused: z.boolean().optional(),
})

/** One session's place in the queue, as the queue route shows it. */
export const queueEntrySchema = z.strictObject({
  sessionId: z.string(),
  state: z.enum(['running', 'debounce', 'retry']),
  endSeq: count,
  attempt: count,
  /** When a waiting pass starts (ISO); for a running one, when it started. */
  at: z.string(),
  /** The furthest turn/end waiting behind this pass, if any. */
  queuedEndSeq: count.nullable(),
  lastError: z.string().nullable(),
})

/** A subject a library text filter named by an old name (an alias a rename or merge left). */
export const aliasMatchWireSchema = z.strictObject({
  /** The old name, as it was spelled. */
  alias: z.string(),
  /** The subject's name now. */
  subject: z.string(),
  entityKey: z.string(),
})

/** Which picture to draw. */
export const graphViewSchema = z.enum(['nebula', 'tree'])
/** Which relations: current ones only, or also contested ones (labelled as such). */
export const graphScopeSchema = z.enum(['current', 'all'])

/** One node: an entity (a subject) or a value that names no entity. */
export const graphNodeSchema = z.strictObject({
  /** Stable id: `e:<entityKey>` for an entity, `v:<hash>` for a value node. */
  id: z.string(),
  kind: z.enum(['entity', 'value']),
  /** What a person reads: the subject as written, or the value. */
  label: z.string(),
  /** For entities: the canonical key (use it to ask for the entity or a one-hop tree). */
  entityKey: z.string().nullable(),
  /** Facts about or pointing at this node within the projection. */
  factCount: count,
  /** Edges touching this node within the projection. */
  degree: count,
  /**
   * Cluster index: a hub and the subjects linked to it share one (0 is the hub with the most edges); after the hubs'
   * come the linked groups no hub reaches, then the neutral group of unlinked subjects (see `GraphPayload.clusters`).
   */
  cluster: count,
  /** The entity its cluster is built around (always labelled on the page). */
  hub: z.boolean(),
  /**
   * For a value behind a sensitive fact: its kind (email, phone, id_number). The page never shows such a value in a
   * hover or a label (client/format.ts `glanceLabel`), as the Markdown export withholds it.
   */
  sensitivity: z.string().optional(),
})

/** One relation: subject → value, labelled by the property, backed by one or more facts. */
export const graphEdgeSchema = z.strictObject({
  /** Stable id derived from source, target and property. */
  id: z.string(),
  source: z.string(),
  target: z.string(),
  /** The property (several facts with one property between the same nodes share an edge). */
  label: z.string(),
  /** The facts behind the edge; opening the edge lists them. */
  factIds: z.array(id),
  /** True when a supporting fact is contested: shown only in the `all` scope, never as confirmed. */
  contested: z.boolean(),
  /** True when every supporting fact is scheduled (not current yet). */
  scheduled: z.boolean(),
  /** The qualifiers every supporting fact shares (env=staging), when there are some. */
  qualifiers: qualifiers.optional(),
})

/**
 * One cluster as a person reads it. Clusters are held together by real links (a fact naming another subject); a
 * shared value never groups two subjects.
 */
export const graphClusterSchema = z.strictObject({
  /** The nodes' `cluster` index. */
  index: count,
  /**
   * `linked`: a hub or a linked group, called by the subject its members link to. `unlinked`: the neutral group of
   * subjects with no link to another subject, called "Unlinked", never after one of them.
   */
  kind: z.enum(['linked', 'unlinked']),
  label: z.string(),
  /** How many subjects it holds. */
  subjects: count,
})

/**
 * What the budget left out. `entities` and `facts` count the whole store in scope; `nodes` and `edges` count what
 * the rows the store read would have drawn (for the nebula, the admitted entities' rows: a lower bound).
 */
export const graphOmittedSchema = z.strictObject({
  nodes: count,
  edges: count,
  /** Entities with a current fact in scope that are not drawn. */
  entities: count,
  /** Current facts in scope that no drawn edge shows. */
  facts: count,
})

/** The graph route's answer. */
export const graphPayloadSchema = z.strictObject({
  view: graphViewSchema,
  scope: graphScopeSchema,
  /** For the tree: the entity at the centre. */
  center: graphNodeSchema.nullable(),
  nodes: z.array(graphNodeSchema),
  edges: z.array(graphEdgeSchema),
  /** Every cluster a node is in, by index. */
  clusters: z.array(graphClusterSchema),
  omitted: graphOmittedSchema,
  /** The budget that applied. */
  limits: z.strictObject({ nodes: count, edges: count, entities: count }),
  generation: count,
})

/** A value read-only all the way down: what an answer is once it has been sent. */
export type DeepReadonly<T> = T extends readonly (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T

/** The type a wire schema describes, read-only all the way down. */
export type WireOf<S extends z.ZodType> = DeepReadonly<z.output<S>>
