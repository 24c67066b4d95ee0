/**
 * Pure slot rules: given a candidate value and the current rows of its slot, decide whether it is a duplicate, a
 * fold of a recurring line, a proposal, a scheduled value, a replacement, a contradiction, or a settlement. No
 * database, no clock. A duplicate is the same claim key, or, in a slot that holds several values, a row the
 * near-duplicate gate found the candidate to restate (src/rules/near-duplicate.ts).
 */
import { foldVerdict } from './fold.ts'
import { EVIDENCE_ORDER, type Evidence, type FactId, type FactStatus } from '../types.ts'

/** Candidates below this confidence become proposals instead of facts. */
export const PROPOSAL_CONFIDENCE_FLOOR = 0.6

/** The candidate as the policy sees it. */
export interface PolicyCandidate {
  readonly claimKey: string
  readonly evidence: Evidence
  readonly confidence: number
  /** Below this confidence the candidate becomes a proposal; defaults to {@link PROPOSAL_CONFIDENCE_FLOOR}. */
  readonly confidenceFloor?: number
  readonly inferred: boolean
  readonly multi: boolean
  /** True when the value only becomes valid in the future. */
  readonly scheduled: boolean
  /**
   * False for values that state what a file believes rather than what anyone affirmed (imports): such a value never
   * replaces a current one, a difference is always a conflict. Defaults to true.
   */
  readonly mayReplace?: boolean
  /** Whether the value may fold into a row holding the same line on another day; defaults to false. */
  readonly mayFold?: boolean
  /** The value, its scope and its sensitivity, which the fold reads; a candidate without a value never folds. */
  readonly value?: string
  readonly scope?: string
  readonly sensitivity?: string | null
  /** When the value holds from (ISO UTC): a line dated more than a day after it is a plan and does not fold. */
  readonly validFrom?: string
  /**
   * True when only the same claim key is a duplicate and the near-duplicate gate is skipped: a person's own edit of a
   * value, and a backup restored as it was. Defaults to false.
   */
  readonly exactOnly?: boolean
}

/** A current row of the slot (active, scheduled or conflict). */
export interface SlotRow {
  readonly id: FactId
  readonly claimKey: string
  readonly status: FactStatus
  readonly evidence: Evidence
  readonly multi: boolean
  readonly conflictGroupId: number | null
  readonly value: string
  readonly scope: string
  /** Whether the row holds personal data or a credential. */
  readonly sensitive: boolean
}

/** A current row of the slot that the candidate restates in other words, as the near-duplicate gate found it. */
export interface Restatement {
  readonly factId: FactId
  /** The gate's IDF-weighted cosine, 0.72 to 1. */
  readonly similarity: number
}

/** What to do with a candidate. */
export type WriteDecision =
  | { readonly kind: 'propose'; readonly reason: 'inferred' | 'low_confidence' }
  | {
      readonly kind: 'duplicate'
      readonly factId: FactId
      /** The stronger evidence to record on the existing row, when the candidate brings one. */
      readonly upgradeTo: Evidence | undefined
      /** When the candidate is the user's own statement of a contested value: settle the slot on this row. */
      readonly settle: SlotSettlement | undefined
      /** The duplicate is scheduled but the candidate says the value holds now: it takes effect now. */
      readonly promoteNow: boolean
      /** Present when the row is a restatement the gate found rather than the same claim key. */
      readonly restatement?: Restatement
    }
  | {
      /** The candidate is the row's recurring line on another day: the row is updated in place, never duplicated. */
      readonly kind: 'fold'
      readonly factId: FactId
      /**
       * The candidate's date is not earlier than the row's, so the row takes the candidate's value (and its quote);
       * otherwise the row keeps its newer value and records the candidate's among its prior values.
       */
      readonly takesValue: boolean
      /** The stronger evidence the row takes with the candidate's value, when the candidate brings one. */
      readonly upgradeTo: Evidence | undefined
    }
  | {
      readonly kind: 'insert'
      readonly status: 'active' | 'scheduled' | 'conflict'
      /** Rows the new value replaces (stamped superseded, pointing at the new row). */
      readonly supersede: readonly FactId[]
      /** Open conflict rivals dropped because the user settled the slot. */
      readonly retire: readonly FactId[]
      /** Conflict bookkeeping for an untrusted contradiction. */
      readonly conflict: { readonly groupId: number | null; readonly against: readonly FactId[] } | undefined
      /** Conflict groups closed by this write. */
      readonly closeGroups: readonly number[]
      /** An open conflict group the new active row takes part in (its rivals are still unsettled). */
      readonly joinGroup: number | undefined
      /** Whether the new row belongs to a multi-valued slot. */
      readonly multi: boolean
    }

/** How a duplicate settles a contested slot. */
export interface SlotSettlement {
  readonly supersede: readonly FactId[]
  readonly retire: readonly FactId[]
  readonly closeGroups: readonly number[]
}

/**
 * Rank of an evidence level: 0 is strongest.
 * @param evidence - the level.
 * @returns its index in {@link EVIDENCE_ORDER}.
 */
export function evidenceRank(evidence: Evidence): number {
  return EVIDENCE_ORDER.indexOf(evidence)
}

/**
 * Whether a restatement may stand for a claim-key duplicate: in every slot, never for an exact-only write (a page
 * edit, a restored backup). A re-worded current value ("deploys from main every Friday afternoon" / "… after review")
 * is the same statement in a single-valued slot as in a multi-valued one: taken as a different value it would
 * supersede the user's wording, or stand against it as a conflict, over words alone. What a real change looks like
 * (7801 / 7802, piano / guitar, a negation on one side) the gate itself keeps apart, so such a change still
 * supersedes or conflicts.
 * @param candidate - the value to write.
 * @returns true when the gate may answer for this write.
 */
export function restatementApplies(candidate: PolicyCandidate): boolean {
  return candidate.exactOnly !== true
}

/**
 * Decide a write. The caller has already refused tombstoned and credential values.
 * @param candidate - the value to write.
 * @param slot - the slot's current rows (active, scheduled, conflict).
 * @param restatement - the row the near-duplicate gate found the candidate to restate, if any; it counts as the
 *   duplicate only where {@link restatementApplies} and no row holds the same claim key.
 * @returns the decision; never touches storage.
 */
export function decideWrite(
  candidate: PolicyCandidate,
  slot: readonly SlotRow[],
  restatement?: Restatement,
): WriteDecision {
  if (candidate.inferred) return { kind: 'propose', reason: 'inferred' }
  if (candidate.confidence < (candidate.confidenceFloor ?? PROPOSAL_CONFIDENCE_FLOOR))
    return { kind: 'propose', reason: 'low_confidence' }

  const openGroups = distinct(slot.filter((row) => row.status === 'conflict').map((row) => row.conflictGroupId))
  const exact = slot.find((row) => row.claimKey === candidate.claimKey)
  const restated =
    exact === undefined && restatement !== undefined && restatementApplies(candidate)
      ? slot.find((row) => row.id === restatement.factId)
      : undefined
  const duplicate = exact ?? restated
  if (duplicate !== undefined) {
    const stronger =
      evidenceRank(candidate.evidence) < evidenceRank(duplicate.evidence) ? candidate.evidence : undefined
    const settles = candidate.evidence === 'explicit_user' && openGroups.length > 0 && duplicate.status !== 'scheduled'
    return {
      kind: 'duplicate',
      factId: duplicate.id,
      upgradeTo: stronger,
      settle: settles ? settlementAround(duplicate, slot, openGroups) : undefined,
      promoteNow: duplicate.status === 'scheduled' && !candidate.scheduled,
      ...(restated === undefined || restatement === undefined ? {} : { restatement }),
    }
  }

  const fold = openGroups.length === 0 ? foldTarget(candidate, slot) : undefined
  if (fold !== undefined) return fold

  if (candidate.scheduled) return plainInsert('scheduled', candidate.multi)
  if (multiValued(candidate, slot)) return plainInsert('active', true)

  const active = slot.find((row) => row.status === 'active')
  const rivals = slot.filter((row) => row.status === 'conflict').map((row) => row.id)

  if (candidate.evidence === 'explicit_user') {
    return {
      kind: 'insert',
      status: 'active',
      supersede: active === undefined ? [] : [active.id],
      retire: rivals,
      conflict: undefined,
      closeGroups: openGroups,
      joinGroup: undefined,
      multi: false,
    }
  }

  if (active === undefined) {
    if (rivals.length === 0) return plainInsert('active', false)
    return {
      kind: 'insert',
      status: 'conflict',
      supersede: [],
      retire: [],
      conflict: { groupId: openGroups[0] ?? null, against: rivals },
      closeGroups: [],
      joinGroup: undefined,
      multi: false,
    }
  }

  const trusted = candidate.mayReplace !== false && evidenceRank(candidate.evidence) <= evidenceRank(active.evidence)
  if (trusted) {
    return {
      kind: 'insert',
      status: 'active',
      supersede: [active.id],
      retire: [],
      conflict: undefined,
      closeGroups: [],
      joinGroup: openGroups[0],
      multi: false,
    }
  }
  return {
    kind: 'insert',
    status: 'conflict',
    supersede: [],
    retire: [],
    conflict: { groupId: openGroups[0] ?? null, against: [active.id] },
    closeGroups: [],
    joinGroup: undefined,
    multi: false,
  }
}

/**
 * The row a candidate folds into: an active row of the same scope whose value is the candidate's line on another
 * day (see `fold.ts`), in single- and multi-valued slots alike. A fold rewrites a row in place, so it is
 * allowed only where the candidate could replace that row: never from a weaker source, an import or a scheduled
 * value (nor a line dated after the value holds from: that is a plan), never for sensitive values (their prior values would sit unmasked in the fold history), and never in a
 * contested slot (the caller leaves that to the settlement rules). Among several such rows, the newest.
 */
function foldTarget(candidate: PolicyCandidate, slot: readonly SlotRow[]): WriteDecision | undefined {
  const value = candidate.value
  if (candidate.mayFold !== true || candidate.mayReplace === false || candidate.scheduled || value === undefined)
    return undefined
  if ((candidate.sensitivity ?? null) !== null) return undefined
  let target: { readonly row: SlotRow; readonly newer: boolean } | undefined
  for (const row of slot) {
    if (row.status !== 'active' || row.sensitive || row.scope !== (candidate.scope ?? 'global')) continue
    if (evidenceRank(candidate.evidence) > evidenceRank(row.evidence)) continue
    const verdict = foldVerdict(
      row.value,
      value,
      candidate.validFrom === undefined ? {} : { writtenAt: candidate.validFrom },
    )
    if (verdict.fold && (target === undefined || row.id > target.row.id)) target = { row, newer: verdict.newer }
  }
  if (target === undefined) return undefined
  const stronger = target.newer && evidenceRank(candidate.evidence) < evidenceRank(target.row.evidence)
  return {
    kind: 'fold',
    factId: target.row.id,
    takesValue: target.newer,
    upgradeTo: stronger ? candidate.evidence : undefined,
  }
}

/** A slot holds several values when the candidate says so or a current (not merely scheduled) row is multi-valued. */
function multiValued(candidate: PolicyCandidate, slot: readonly SlotRow[]): boolean {
  return candidate.multi || slot.some((row) => row.multi && row.status !== 'scheduled')
}

function plainInsert(status: 'active' | 'scheduled', multi: boolean): WriteDecision {
  return {
    kind: 'insert',
    status,
    supersede: [],
    retire: [],
    conflict: undefined,
    closeGroups: [],
    joinGroup: undefined,
    multi,
  }
}

/** Settle a contested slot on `keeper`: the other current rows are superseded (the active one) or retired. */
function settlementAround(keeper: SlotRow, slot: readonly SlotRow[], openGroups: readonly number[]): SlotSettlement {
  const others = slot.filter((row) => row.id !== keeper.id && row.status !== 'scheduled')
  return {
    supersede: others.filter((row) => row.status === 'active' && !row.multi).map((row) => row.id),
    retire: others.filter((row) => row.status === 'conflict').map((row) => row.id),
    closeGroups: openGroups,
  }
}

function distinct(ids: readonly (number | null)[]): number[] {
  return [...new Set(ids.filter((id): id is number => id !== null))]
}
