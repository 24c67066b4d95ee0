/**
 * Pure: which of two near-duplicate facts a merge keeps. The model only says whether two statements are the same;
 * it never picks the keeper, so the same pair always yields the same proposal. The rule, in order: the stronger
 * evidence (the user's own words outrank what was observed), then the earlier first observation (the fact recorded
 * first is the original), then the lower id. Seeing either fact again later leaves the choice as it was, unless it
 * brings stronger evidence.
 */
import { evidenceRank } from './write-policy.ts'
import type { Evidence } from '../types.ts'

/** What the rule reads of a fact. */
export interface KeeperCandidate {
  readonly id: number
  readonly evidence: Evidence
  /** ISO UTC instant the fact was first observed; unlike the latest observation, it never moves. */
  readonly firstObservedAt: string
}

/** A merge's two sides. */
export interface MergeSides<T extends KeeperCandidate> {
  readonly keeper: T
  readonly loser: T
}

/**
 * Decide the keeper of a pair, whichever order it is given in.
 * @param a - one fact.
 * @param b - the other.
 * @returns the keeper and the fact it absorbs.
 */
export function chooseKeeper<T extends KeeperCandidate>(a: T, b: T): MergeSides<T> {
  const order =
    evidenceRank(a.evidence) - evidenceRank(b.evidence) ||
    (a.firstObservedAt < b.firstObservedAt ? -1 : a.firstObservedAt > b.firstObservedAt ? 1 : 0) ||
    a.id - b.id
  return order <= 0 ? { keeper: a, loser: b } : { keeper: b, loser: a }
}
