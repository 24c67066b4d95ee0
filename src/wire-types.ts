/**
 * Wire types of the management routes that the page reads: the JSON views of facts, conflict groups, proposal
 * cards, the activity digest and per-session counts. Types only, inferred from the schemas of src/wire.schema.ts
 * (where each field is documented), imported type-only by the handlers and by client/.
 */
import type * as wire from './wire.schema.ts'
import type { WireOf } from './wire.schema.ts'

/** A fact as the routes return it; a credential's value and quote are always masked. */
export type FactView = WireOf<typeof wire.factViewSchema>
/** The kinds of scope. */
export type ScopeKind = WireOf<typeof wire.scopeKindSchema>
/** A scope the store holds facts in, as the library's scope filter lists it. */
export type ScopeWire = WireOf<typeof wire.scopeWireSchema>
/** One recorded observation of a fact. */
export type SourceView = WireOf<typeof wire.sourceViewSchema>
/** An open conflict group: its slot and its current sides. */
export type ConflictGroupWire = WireOf<typeof wire.conflictGroupWireSchema>
/** One row of an add_fact card. */
export type ProposalRowWire = WireOf<typeof wire.proposalRowWireSchema>
/** A fact as a review card names it; a credential's value is masked. */
export type CardFactWire = WireOf<typeof wire.cardFactWireSchema>
/** A merge row: keep the keeper, retire the loser, move its sources. */
export type MergeRowWire = WireOf<typeof wire.mergeRowWireSchema>
/** A retire row: a fact that only restates its property. */
export type RetireRowWire = WireOf<typeof wire.retireRowWireSchema>
/** A fold row: a pipeline's older runs fold into its newest. */
export type FoldRowWire = WireOf<typeof wire.foldRowWireSchema>
/** An entity as an alias row names it. */
export type EntityNameWire = WireOf<typeof wire.entityNameWireSchema>
/** An alias row: the fragment's facts move to the canonical entity. */
export type AliasRowWire = WireOf<typeof wire.aliasRowWireSchema>
/** A proposal card, with the rows of its kind. */
export type ProposalCardWire = WireOf<typeof wire.proposalCardWireSchema>
/** The activity digest: what arrived since the review queue was last marked as seen. */
export type ActivityWire = WireOf<typeof wire.activityWireSchema>
/** Counts of one conversation turn. */
export type TurnCountsWire = WireOf<typeof wire.turnCountsWireSchema>
/** Counts of one conversation. */
export type SessionCountsWire = WireOf<typeof wire.sessionCountsWireSchema>
/** One session's place in the queue, as the queue route shows it. */
export type QueueEntry = WireOf<typeof wire.queueEntrySchema>
/** A subject a library text filter named by an old name (an alias a rename or merge left). */
export type AliasMatchWire = WireOf<typeof wire.aliasMatchWireSchema>
