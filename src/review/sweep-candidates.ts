/**
 * Pure: the near-duplicate sweep's candidate pairs. A candidate source (a leg) turns the facts a sweep may compare
 * into pairs, only inside one subject and one scope; the sweep asks about the union of every leg's pairs. The lexical
 * leg is here; the vector leg (embeddings at or above `consolidateCosineFloor`) is another {@link CandidateSource}.
 *
 * The lexical leg is looser than the write-time gate on one number only: it keeps pairs from a cosine of
 * {@link SWEEP_LEXICAL_COSINE} where the gate folds from 0.72. The gate merges with nobody asked, so a false positive
 * loses a fact; here the model judges each pair and a person accepts each card, so a false positive costs one call
 * and one card to reject, and the budget and the remembered distinct verdicts keep that cost bounded. The floor of
 * three shared tokens, the rare-token veto, the negation veto and the one-word exchange rule stay (scorePair applies
 * them): they describe pairs that are two facts however alike they read (7801/7802, piano/guitar, "does not want" /
 * "wants"), and asking the model about them would spend the budget on
 * answers already known. The leg scores the two values (see valueOf); the subject is shared by construction. Below 12 current facts the leg is off, as the gate is: the IDF means nothing yet.
 */
import type { ReviewFact } from '../store/review-store.ts'
import {
  countedWords,
  NEAR_DUPLICATE_MIN_FACTS,
  scorePair,
  type Statement,
  type TermStatistics,
} from '../rules/near-duplicate.ts'
import type { SweepCandidate } from './sweep-plan.ts'

/** The lexical leg's cosine floor (the gate's own is 0.72). */
export const SWEEP_LEXICAL_COSINE = 0.6

/** A candidate pair: two facts of one subject and one scope, smaller id first. */
export interface SweepPair extends SweepCandidate {
  readonly low: ReviewFact
  readonly high: ReviewFact
  /** Which leg found it. */
  readonly leg: 'lexical' | 'vector'
  /** The vector generation a distinct verdict on it is remembered under: 0 for the lexical leg. */
  readonly generation: number
}

/** What a leg can ask of the library. */
export interface CandidateLibrary {
  /** Facts currently held (active, scheduled, conflict). */
  readonly currentFacts: number
  /** Document frequencies of written words, with the index size (asked once per sweep). */
  statistics(words: readonly string[]): TermStatistics
}

/** One leg of the sweep: a source of candidate pairs. */
export interface CandidateSource {
  readonly leg: SweepPair['leg']
  /**
   * The pairs this leg proposes.
   * @param facts - the facts a sweep may compare, grouped by subject and scope.
   * @returns pairs inside one subject and one scope.
   */
  pairs(facts: readonly ReviewFact[]): Promise<SweepPair[]>
}

/**
 * The most facts of one subject and scope the lexical leg compares, the newest by id: every pair of a group is scored
 * (about 30 µs each), so a subject that gains a row a night would otherwise cost seconds per sweep.
 */
export const SWEEP_GROUP_CAP = 200

/** How many pairs the lexical leg scores between two pauses, so a sweep never holds the host's event loop for long. */
export const SCORES_PER_PAUSE = 500

/**
 * The key a pair is remembered by: its two facts and the claims compared, so a changed value is a new pair.
 * @param low - the fact with the smaller id.
 * @param high - the other.
 * @returns the key.
 */
export function pairKeyOf(low: Pick<ReviewFact, 'id' | 'claimKey'>, high: Pick<ReviewFact, 'id' | 'claimKey'>): string {
  return `${low.id}:${low.claimKey}|${high.id}:${high.claimKey}`
}

/**
 * The lexical leg over one library.
 * @param library - its size and document frequencies.
 * @param pause - awaited every {@link SCORES_PER_PAUSE} scores (the shell yields to the event loop there).
 * @returns the leg.
 */
export function lexicalSource(
  library: CandidateLibrary,
  pause: () => Promise<void> = async () => undefined,
): CandidateSource {
  return {
    leg: 'lexical',
    async pairs(facts) {
      if (library.currentFacts < NEAR_DUPLICATE_MIN_FACTS) return []
      const groups = groupOf(facts)
      if (groups.length === 0) return []
      const stats = library.statistics(countedWords(...groups.flat()))
      const pairs: SweepPair[] = []
      let scored = 0
      for (const group of groups) {
        for (let i = 0; i < group.length; i += 1) {
          for (let j = i + 1; j < group.length; j += 1) {
            scored += 1
            if (scored % SCORES_PER_PAUSE === 0) await pause()
            const [low, high] = ordered(group[i] as ReviewFact, group[j] as ReviewFact)
            const score = scorePair(statementOf(low), statementOf(high, low.property), stats)
            const alike =
              score.verdict === 'restates' ||
              (score.verdict === 'below_threshold' && score.cosine >= SWEEP_LEXICAL_COSINE)
            if (alike)
              pairs.push({
                subject: low.subjectKey,
                pairKey: pairKeyOf(low, high),
                score: score.cosine,
                low,
                high,
                leg: 'lexical',
                generation: 0,
              })
          }
        }
      }
      return pairs
    },
  }
}

/**
 * The union of every leg's pairs: a pair two legs found is asked once, with its best score.
 * @param sources - the legs.
 * @param facts - the facts a sweep may compare.
 * @returns distinct pairs.
 */
export async function candidatePairs(
  sources: readonly CandidateSource[],
  facts: readonly ReviewFact[],
): Promise<SweepPair[]> {
  const byKey = new Map<string, SweepPair>()
  for (const source of sources) {
    for (const pair of await source.pairs(facts)) {
      if (pair.low.subjectKey !== pair.high.subjectKey || pair.low.scope !== pair.high.scope) continue
      const known = byKey.get(pair.pairKey)
      if (known === undefined || pair.score > known.score) byKey.set(pair.pairKey, pair)
    }
  }
  return [...byKey.values()]
}

/**
 * Groups of two or more facts sharing subject and scope, each its newest {@link SWEEP_GROUP_CAP} (facts come in id
 * order): the pairs any leg may propose.
 * @param facts - the facts a sweep may compare, in id order.
 * @returns the groups.
 */
export function groupOf(facts: readonly ReviewFact[]): ReviewFact[][] {
  const groups = new Map<string, ReviewFact[]>()
  for (const fact of facts) {
    const key = JSON.stringify([fact.subjectKey, fact.scope])
    const list = groups.get(key) ?? []
    list.push(fact)
    groups.set(key, list)
  }
  return [...groups.values()].filter((list) => list.length > 1).map((list) => list.slice(-SWEEP_GROUP_CAP))
}

/**
 * A fact as the lexical leg scores it: its value, under one property for both sides. Inside one slot the property is
 * agreed; across slots it is what a re-phrasing changes (database / storage), and it would count as an exchanged word.
 * The model is still shown each fact's own property.
 */
function statementOf(fact: ReviewFact, property = fact.property): Statement {
  return { subject: fact.subject, property, value: fact.value }
}

function ordered(a: ReviewFact, b: ReviewFact): [ReviewFact, ReviewFact] {
  return a.id < b.id ? [a, b] : [b, a]
}
