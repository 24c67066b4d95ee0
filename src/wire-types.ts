/**
 * Wire types of the management routes that the page reads: the JSON views of facts, conflict groups, proposal
 * cards, the activity digest and per-session counts. Types only, imported type-only by the handlers and by client/.
 */

/** A fact as the routes return it; a credential's value and quote are always masked. */
export interface FactView {
  readonly id: number
  readonly subject: string
  readonly entityKey: string
  readonly property: string
  readonly qualifiers: Readonly<Record<string, string>>
  /** The stored scope text: what a filter or a move names, never shown (a project's holds its path). */
  readonly scope: string
  /** Which kind of scope: the global one, a project's, or a free-text label. */
  readonly scopeKind: ScopeKind
  /** What a person reads for the scope: `global`, the project's name, or the label. */
  readonly scopeName: string
  readonly value: string
  readonly masked: boolean
  readonly status: string
  readonly evidence: string
  readonly confidence: number
  readonly sensitivity: string | null
  readonly modelUseAllowed: boolean
  readonly multi: boolean
  readonly validFrom: string
  readonly validTo: string | null
  readonly observedAt: string
  readonly recordedAt: string
  readonly supersededBy: number | null
  readonly conflictGroupId: number | null
  readonly revision: number
  readonly origin: string
  readonly sessionId: string | null
  readonly turn: number | null
  readonly quote: string | null
  /** How many writes of the same line on other days folded into this row (seen foldedCount + 1 times). */
  readonly foldedCount: number
  /** The phrases a later request needing the fact would use; empty for a credential. */
  readonly cues: readonly string[]
  /** The row's last prior lines, newest last; empty for a credential. */
  readonly foldedFrom: readonly string[]
  /** When the user pinned this row (it then leads the directory while current), or null. */
  readonly pinnedAt: string | null
}

/** The kinds of scope. */
export type ScopeKind = 'global' | 'project' | 'label'

/** A scope the store holds facts in, as the library's scope filter lists it. */
export interface ScopeWire {
  /** The stored scope text, to filter by or move to. */
  readonly scope: string
  readonly kind: ScopeKind
  /** `global`, the project's name, or the label. */
  readonly name: string
  /** Facts in it that are not forgotten. */
  readonly facts: number
}

/** One recorded observation of a fact. */
export interface SourceView {
  readonly origin: string
  readonly evidence: string
  readonly sessionId: string | null
  readonly turn: number | null
  readonly quote: string | null
  readonly observedAt: string
}

/** An open conflict group: its slot and its current sides. */
export interface ConflictGroupWire {
  readonly id: number
  readonly openedAt: string
  readonly subject: string
  readonly property: string
  readonly qualifiers: Readonly<Record<string, string>>
  readonly rows: readonly FactView[]
}

/** One row of a proposal card. */
export interface ProposalRowWire {
  readonly index: number
  readonly subject: string
  readonly property: string
  readonly value: string
  readonly qualifiers: Readonly<Record<string, string>>
  readonly evidence: string
  readonly confidence: number
  readonly quote: string | null
  readonly stale: boolean
}

/** A fact as a review card names it; a credential's value is masked. */
export interface CardFactWire {
  readonly id: number
  readonly subject: string
  readonly property: string
  readonly value: string
  readonly status: string
}

/** What every row of a review card carries: its place and whether its facts changed since the card was made. */
interface ReviewRowBase {
  readonly index: number
  readonly stale: boolean
}

/** A merge row: keep the keeper, retire the loser, move its sources. */
export interface MergeRowWire extends ReviewRowBase {
  readonly keeper: CardFactWire | null
  readonly loser: CardFactWire | null
  /** How many sources the loser holds, which move to the keeper. */
  readonly sources: number
}

/** A retire row: a fact that only restates its property. */
export interface RetireRowWire extends ReviewRowBase {
  readonly fact: CardFactWire | null
}

/** A fold row: a pipeline's older runs fold into its newest. */
export interface FoldRowWire extends ReviewRowBase {
  readonly survivor: CardFactWire | null
  /** How many runs fold into the survivor. */
  readonly runs: number
  /**
   * The runs themselves, in the card's order, at most FOLD_RUNS_LISTED of them (`runs` counts them all); a run that
   * is gone since the card was made is null.
   */
  readonly runFacts: readonly (CardFactWire | null)[]
}

/** An entity as an alias row names it. */
export interface EntityNameWire {
  readonly entityKey: string
  /** Its name as first written (the key when the entity is gone). */
  readonly display: string
}

/** An alias row: the fragment's facts move to the canonical entity. */
export interface AliasRowWire extends ReviewRowBase {
  readonly fragment: EntityNameWire
  readonly canonical: EntityNameWire
  /** How many facts move. */
  readonly facts: number
}

/** What every proposal card carries. */
interface ProposalCardBase {
  readonly id: number
  readonly status: string
  readonly reason: string
  readonly revision: number
  /** The card's place in a longer list (n of m), or null. */
  readonly batch: { readonly index: number; readonly count: number } | null
  readonly sessionId: string | null
  readonly turn: number | null
  readonly createdAt: string
}

/** A proposal card, with the rows of its kind. */
export type ProposalCardWire =
  | (ProposalCardBase & { readonly kind: 'add_fact'; readonly rows: readonly ProposalRowWire[] })
  | (ProposalCardBase & { readonly kind: 'merge'; readonly rows: readonly MergeRowWire[] })
  | (ProposalCardBase & { readonly kind: 'retire'; readonly rows: readonly RetireRowWire[] })
  | (ProposalCardBase & { readonly kind: 'fold'; readonly rows: readonly FoldRowWire[] })
  | (ProposalCardBase & { readonly kind: 'alias'; readonly rows: readonly AliasRowWire[] })

/** The activity digest: what arrived since the review queue was last marked as seen. */
export interface ActivityWire {
  /** When the queue was last marked as seen (ISO), or null when it never was. */
  readonly since: string | null
  /** Facts recorded, conflict groups opened and proposals queued since then. */
  readonly facts: number
  readonly conflicts: number
  readonly proposals: number
  readonly pendingProposals: number
  readonly openConflictGroups: number
}

/** Counts of one conversation turn. */
export interface TurnCountsWire {
  readonly turn: number | null
  readonly facts: number
  readonly pending: number
  readonly unsettled: number
  readonly factIds: readonly number[]
  /** Facts per-turn recall put in front of the model on this turn. */
  readonly recalled: number
  readonly recalledIds: readonly number[]
}

/** Counts of one conversation. */
export interface SessionCountsWire {
  readonly sessionId: string
  readonly facts: number
  readonly pending: number
  readonly unsettled: number
  readonly lastAt: string
  readonly turns: readonly TurnCountsWire[]
  /** Turns that queued or running automatic extraction has yet to settle. */
  readonly extractingTurns: readonly number[]
  /** Whether the user paused memory in this conversation. */
  readonly paused?: boolean
}

/** One session's place in the queue, as the queue route shows it. */
export interface QueueEntry {
  readonly sessionId: string
  readonly state: 'running' | 'debounce' | 'retry'
  readonly endSeq: number
  readonly attempt: number
  /** When a waiting pass starts (ISO); for a running one, when it started. */
  readonly at: string
  /** The furthest turn/end waiting behind this pass, if any. */
  readonly queuedEndSeq: number | null
  readonly lastError: string | null
}

/** The part of the search verb's answer (memory_search's value) the library's question fallback reads. */
export interface QuestionSearchWire {
  readonly outcome: string
  readonly results: readonly {
    readonly subject: string
    readonly property: string
    readonly qualifiers: Readonly<Record<string, string>>
    /** The subject's old name the query named it by, or null. */
    readonly matchedAlias: string | null
    readonly values: readonly {
      readonly id: number
      readonly value: string
      readonly status: string
      readonly matched: boolean
      /** The kind of sensitive data the value is, or null. */
      readonly sensitivity: string | null
    }[]
  }[]
}

/** A subject a library text filter named by an old name (an alias a rename or merge left). */
export interface AliasMatchWire {
  /** The old name, as it was spelled. */
  readonly alias: string
  /** The subject's name now. */
  readonly subject: string
  readonly entityKey: string
}
