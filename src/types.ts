/** Domain types shared by the store, the policies, retrieval and the tools. Types only. */

declare const factIdBrand: unique symbol
/** Row id of a fact. */
export type FactId = number & { readonly [factIdBrand]: true }

/** How much the store trusts a value, strongest first. */
export type Evidence = 'explicit_user' | 'confirmed_user' | 'observed' | 'unverified'

/** Evidence levels in rank order, strongest first. */
export const EVIDENCE_ORDER: readonly Evidence[] = ['explicit_user', 'confirmed_user', 'observed', 'unverified']

/**
 * Lifecycle of a fact row.
 * - `active`: the current value of its slot (single-valued slots hold at most one).
 * - `scheduled`: becomes current at `validFrom`, which lies in the future.
 * - `conflict`: an untrusted contradiction of the active value, waiting to be settled.
 * - `superseded`: replaced by a trusted newer value (`supersededBy`), kept for history.
 * - `retired`: taken out of the current set by a decision rather than by time: a conflict rival dropped when the slot
 *   was settled, a row an undo took back, or a row an accepted health-check card found to say nothing.
 * - `expired`: its `validTo` has passed.
 * - `forgotten`: removed at the user's request; tombstoned.
 */
export type FactStatus = 'active' | 'scheduled' | 'conflict' | 'superseded' | 'retired' | 'expired' | 'forgotten'

/** Statuses that still describe the present or the future. */
export const CURRENT_STATUSES: readonly FactStatus[] = ['active', 'scheduled', 'conflict']

/** What kind of sensitive data a value carries. */
export type Sensitivity = 'credential' | 'email' | 'phone' | 'id_number'

/** Which path a fact or source came through. */
export type Origin = 'tool' | 'import' | 'rule' | 'extract' | 'proposal' | 'page'

/** Where in a conversation a write happened. */
export interface Anchor {
  /** The DSH session id. */
  readonly sessionId: string
  /** The turn number inside that session, when known. */
  readonly turn: number | null
}

/** One stored fact row as the rest of the plugin sees it. */
export interface Fact {
  readonly id: FactId
  readonly subject: string
  readonly entityKey: string
  readonly property: string
  readonly predicateKey: string
  readonly qualifiers: Readonly<Record<string, string>>
  /** `global`, a free-text label, or a project's scope text (`project:<key>`). */
  readonly scope: string
  /** The name of the project a project-scoped fact belongs to (never its path); null for other scopes. */
  readonly projectName: string | null
  readonly value: string
  readonly slotKey: string
  readonly claimKey: string
  readonly multi: boolean
  readonly status: FactStatus
  readonly evidence: Evidence
  readonly confidence: number
  readonly sensitivity: Sensitivity | null
  readonly modelUseAllowed: boolean
  /** ISO UTC instant this value was last observed. */
  readonly observedAt: string
  /** ISO UTC instant the row was written (transaction time). */
  readonly recordedAt: string
  /** ISO UTC instant the value became (or becomes) valid. */
  readonly validFrom: string
  /** ISO UTC instant the value stopped being valid, if it has. */
  readonly validTo: string | null
  readonly supersededBy: FactId | null
  readonly conflictGroupId: number | null
  readonly revision: number
  readonly origin: Origin
  readonly sessionId: string | null
  readonly turn: number | null
  readonly quote: string | null
  /** How many writes folded into this row (a recurring line written on other days); 0 when none did. */
  readonly foldedCount: number
  /** The last values the folds displaced or absorbed, newest last (at most 20). */
  readonly foldedFrom: readonly string[]
  /**
   * ISO UTC instant the user pinned this row from the page, or null. A pin leads the directory while the row is
   * active; it never moves to another row (a superseding value starts unpinned).
   */
  readonly pinnedAt: string | null
  /**
   * Short phrases a later request needing this fact would use ("run the tests", "跑测试"), at most 8: searched in a
   * channel of their own below the fact's own words, never shown to the model as part of the value.
   */
  readonly cues: readonly string[]
}

/** One row of a proposal card: a value to write, and the facts (with revisions) it was proposed against. */
export interface ProposedRow {
  readonly subject: string
  readonly property: string
  readonly value: string
  readonly qualifiers: Readonly<Record<string, string>>
  readonly scope: string
  readonly evidence: Evidence
  readonly confidence: number
  readonly quote: string | null
  readonly multi: boolean
  readonly validFrom: string
  readonly validTo: string | null
  readonly targets: readonly { readonly factId: number; readonly revision: number }[]
  /** The write's cues, when it had any: accepting the card writes them with the fact. */
  readonly cues?: readonly string[] | undefined
}

/** A fact at the revision a proposal saw it. */
export interface FactRef {
  readonly factId: number
  readonly revision: number
}

/** A merge row: the keeper stays, the loser is retired as superseded by it and its sources move to it. */
export interface MergeRow {
  readonly keeper: FactRef
  readonly loser: FactRef
}

/** A retire row: a fact that only restates its own property leaves the current set. */
export interface RetireRow {
  readonly fact: FactRef
}

/** A fold row: a pipeline's older runs are folded into its newest run, the survivor. */
export interface FoldRow {
  readonly survivor: FactRef
  readonly runs: readonly FactRef[]
}

/** An alias row: every fact of the fragment entity moves to the canonical entity. */
export interface AliasRow {
  /** Entity key of the fragment. */
  readonly fragment: string
  /** Entity key of the canonical entity. */
  readonly canonical: string
  /** Every fact of the fragment that was not forgotten, at the revisions the proposal saw. */
  readonly facts: readonly FactRef[]
}

/** Where one card of a longer list sits: card `index` of `count` (1-based). */
export interface CardBatch {
  readonly index: number
  readonly count: number
}

/** The rows each kind of proposal card holds. */
export interface CardRows {
  readonly add_fact: ProposedRow
  readonly merge: MergeRow
  readonly retire: RetireRow
  readonly fold: FoldRow
  readonly alias: AliasRow
}

/** Kinds of change a card proposes. */
export type ProposalKind = keyof CardRows

/** The kinds that change facts already stored instead of writing a new one. */
export type ReviewKind = Exclude<ProposalKind, 'add_fact'>

/** One project: a stable key (the root's canonical path) and the name people read (the root's folder name). */
/** A project a forget by subject left alone, and how many live facts of the subject it holds. */
export interface ProjectFactCount {
  readonly projectKey: string
  readonly projectName: string
  readonly facts: number
}

export interface ProjectRef {
  readonly key: string
  readonly name: string
  /**
   * Whether the locator found a repository (`.git`) at the key; false for a working directory outside one (a home
   * folder, say), whose name is nothing a statement is known to mean. Absent where a project comes from a stored key.
   */
  readonly repository?: boolean
  /**
   * The repository root's folder key (its canonical path), when the key is the repository's identity: what versions
   * before repository keys stored a project under, and what a store written by one is moved from.
   */
  readonly folderKey?: string
}

/** A fact as a caller asks to store it, before normalization and policy. */
export interface FactInput {
  readonly subject: string
  readonly property: string
  readonly value: string
  readonly evidence: Evidence
  readonly quote?: string | undefined
  /** A free-text label, `global` (the default), or a project's scope text (`project:<key>`). */
  readonly scope?: string | undefined
  /**
   * The project a project-scoped write belongs to: the scope becomes its scope text and `scope` is ignored. Its name
   * is what a project the store does not know yet is called (a known project keeps its name).
   */
  readonly project?: ProjectRef | undefined
  readonly qualifiers?: Readonly<Record<string, string>> | undefined
  /** Phrases a later request needing the fact would use (at most 8 are kept; see Fact.cues). */
  readonly cues?: readonly string[] | undefined
  readonly confidence?: number | undefined
  /** Below this confidence the value becomes a proposal (extraction passes extractConfidenceMin); defaults to 0.6. */
  readonly confidenceFloor?: number | undefined
  readonly multi?: boolean | undefined
  /** ISO UTC instant the value becomes valid; defaults to now. */
  readonly validFrom?: string | undefined
  /** ISO UTC instant the value stops being valid. */
  readonly validTo?: string | undefined
  /** Marks an inferred value: it becomes a proposal, never a fact. */
  readonly inferred?: boolean | undefined
  /**
   * Only the same claim is a duplicate: the near-duplicate gate is skipped (a backup restored as it was). A person's
   * edit from the page (origin page) is always exact-only. Defaults to false.
   */
  readonly exactOnly?: boolean | undefined
  readonly origin: Origin
  readonly anchor?: Anchor | undefined
}
