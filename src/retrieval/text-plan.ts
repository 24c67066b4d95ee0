/**
 * Pure planning of the BM25 query. Ranking cost grows with every document a term matches, so a query made of
 * common words ("which port do we use for the api") can touch a third of the store. When the terms together
 * match more than `candidateCap` documents, the rarest terms whose document counts fit under the cap become the
 * "narrow" set and the rest "broad"; the store then ranks two cheap queries,
 *   (narrow) AND (broad)   and   (narrow) NOT (broad),
 * whose BM25 scores equal those of the full OR query (both expressions hold every phrase once), and merges them.
 * What is given up: documents containing only broad terms are not ranked. BM25 reads the document count of every
 * phrase in an expression by walking its posting list, so the second query is ranked as (narrow) alone among the
 * facts the first does not match: a fact without a broad term scores the same either way, and the broad terms' long
 * lists are walked once rather than twice.
 *
 * FTS5 ranks every document an expression matches before it keeps the best, so an expression whose rarest term alone
 * matches more than the cap ("port" in a library of a million facts, where a fifth of them hold it) still costs a
 * pass over that term's whole posting list: 250 ms for 200,000 documents. Such a plan carries a `window`, the
 * expression whose newest `candidateCap` matches are the only ones ranked; the store finds where they start (a walk
 * of `candidateCap` rowids from the end) and ranks within it, with the same BM25 scores. The window is then the rarest
 * word alone, and a plan of several words also carries `older`: the facts holding that word and another of the
 * question, ranked at any age (the newest `candidateCap` of them, a bound a library of 100,000 facts never reaches),
 * so an old fact that holds more of a question's common words than the newer ones still heads the ranking. What is
 * given up: an old fact holding the rarest word and no other word of the question. Its score comes from its length
 * alone, and the newest `candidateCap` facts holding that word already hold the shortest ones, which rank before it
 * on a tie (newer first); it outranks them only by being shorter or by repeating the word. A library where no term
 * matches more than the cap plans no window, and its answers are exactly as before.
 *
 * BM25 also counts, once per ranked statement, every document each phrase of the expression matches: a walk of the
 * whole posting list, about 12 ms for a word 200,000 facts hold ("服务" in a million facts whose Chinese subjects all
 * end in it), paid again by every statement that holds it. A broad word held by more than `hugeAbove` facts is
 * therefore left out of the ranked expressions and counts as a flat bonus instead: its BM25 weight for one occurrence
 * in a fact of average length, ln((N − n + 0.5) / (n + 0.5)), added to each ranked fact that holds it (tested without
 * ranking it). Only a broad word is: the facts ranked are those holding a narrow word either way, so they are the same
 * ones. The score gives up that word's share of the length normalisation and of a repeated occurrence, small beside
 * the rarer words' weights, and its n is the planner's count, estimated past 10,000 (see `termDocumentCounts`). A
 * library where no word passes `hugeAbove` plans no bonus, and its answers are exactly as before; none can in a
 * library of fewer facts. The subject channel does the same for a name held by few facts (see channels.ts); a name's
 * facts past a few hundred would each be tested for the word, which costs more than its count.
 */
import { orExpression } from '../text/tokenize.ts'

/** Facts a word must be held by before it ranks as a flat bonus rather than inside BM25 (see above). */
export const HUGE_TERM_DOCUMENTS = 50_000

/** A word scored outside BM25: `weight` added to every ranked fact that holds it. */
export interface TermBonus {
  readonly term: string
  readonly weight: number
}

/** How to run the text channel. */
export type TextPlan =
  | { readonly kind: 'none' }
  | {
      readonly kind: 'single'
      readonly match: string
      readonly window?: RankWindow
      readonly bonus?: readonly TermBonus[]
      /** With a window: the facts holding the windowed word and a bonus word, ranked by `match` at any age. */
      readonly older?: RankWindow
    }
  | {
      readonly kind: 'split'
      readonly withBroad: string
      readonly withoutBroad: string
      readonly narrow: readonly string[]
      readonly broad: readonly string[]
      /** The narrow terms alone: `withoutBroad` is ranked as this among the facts `withBroad` does not match (see below). */
      readonly narrowOnly: string
      /** Only `withoutBroad` is ranked within it; `withBroad` is ranked within `older`. */
      readonly window?: RankWindow
      /** With a window: `withBroad`, ranked at any age (its newest matches up to the cap). */
      readonly older?: RankWindow
      /** Words left out of every expression above and added to each ranked fact holding them; absent when none. */
      readonly bonus?: readonly TermBonus[]
    }

/** Rank only the newest `newest` facts `match` matches (the rest are not ranked). */
export interface RankWindow {
  readonly match: string
  readonly newest: number
}

/**
 * BM25's weight for one occurrence of a word in a fact of average length: FTS5's inverse document frequency,
 * ln((N − n + 0.5) / (n + 0.5)), floored at 1e-6 as FTS5 floors it for a word at least half the facts hold.
 * @param documentCount - facts holding the word (n).
 * @param documents - facts in the index (N).
 * @returns the weight.
 */
export function bm25Weight(documentCount: number, documents: number): number {
  const weight = Math.log((documents - documentCount + 0.5) / (documentCount + 0.5))
  return weight > 0 ? weight : 1e-6
}

/**
 * Every word held by more than `hugeAbove` facts, as a bonus with its weight.
 * @param terms - distinct terms.
 * @param documentCounts - how many indexed facts each term matches (a term missing is held by none).
 * @param documents - facts in the index (N).
 * @param hugeAbove - the document count above which a word is a bonus.
 * @returns the bonuses, in query order.
 */
export function hugeTermBonuses(
  terms: readonly string[],
  documentCounts: ReadonlyMap<string, number>,
  documents: number,
  hugeAbove: number,
): TermBonus[] {
  return terms
    .filter((term) => (documentCounts.get(term) ?? 0) > hugeAbove)
    .map((term) => ({ term, weight: bm25Weight(documentCounts.get(term) ?? 0, documents) }))
}

/**
 * Plan the text channel.
 * @param terms - distinct query terms.
 * @param documentCounts - how many indexed facts each term matches.
 * @param candidateCap - the most documents worth ranking in one query.
 * @param documents - facts in the index (N); words held by more than `hugeAbove` of them rank as a flat bonus.
 * @param hugeAbove - see {@link HUGE_TERM_DOCUMENTS}.
 * @returns the plan; terms that match nothing are left out (they cannot change any score).
 */
export function planTextQuery(
  terms: readonly string[],
  documentCounts: ReadonlyMap<string, number>,
  candidateCap: number,
  documents: number,
  hugeAbove = HUGE_TERM_DOCUMENTS,
): TextPlan {
  const present = terms.filter((term) => (documentCounts.get(term) ?? 0) > 0)
  if (present.length === 0) return { kind: 'none' }
  const total = present.reduce((sum, term) => sum + (documentCounts.get(term) ?? 0), 0)
  if (total <= candidateCap) return { kind: 'single', match: orExpression(present) }
  if (present.length === 1)
    return {
      kind: 'single',
      match: orExpression(present),
      window: { match: orExpression(present), newest: candidateCap },
    }
  const byRarity = [...present].sort(
    (a, b) => (documentCounts.get(a) ?? 0) - (documentCounts.get(b) ?? 0) || (a < b ? -1 : 1),
  )
  const narrow: string[] = []
  let covered = 0
  for (const term of byRarity) {
    const count = documentCounts.get(term) ?? 0
    if (narrow.length > 0 && covered + count > candidateCap) break
    narrow.push(term)
    covered += count
  }
  const narrowExpression = `(${orExpression(narrow)})`
  // The rarest term is always narrow; alone, it may still match more than the cap.
  const windowed = covered > candidateCap
  const window = windowed ? { window: { match: narrowExpression, newest: candidateCap } } : {}
  // Only a broad word becomes a bonus: the facts holding a narrow word are ranked with or without it.
  const beyond = byRarity.slice(narrow.length)
  const bonus = hugeTermBonuses(beyond, documentCounts, documents, hugeAbove)
  const broad = beyond.filter((term) => (documentCounts.get(term) ?? 0) <= hugeAbove)
  const withBonus = bonus.length === 0 ? {} : { bonus }
  // The facts holding the windowed word and another word of the question are ranked whatever their age.
  const older = (match: string): { older?: RankWindow } => (windowed ? { older: { match, newest: candidateCap } } : {})
  if (broad.length === 0) {
    const holdingBonus =
      bonus.length === 0 ? {} : older(`${narrowExpression} AND (${orExpression(bonus.map((word) => word.term))})`)
    return { kind: 'single', match: orExpression(narrow), ...window, ...withBonus, ...holdingBonus }
  }
  const broadExpression = `(${orExpression(broad)})`
  const withBroad = `${narrowExpression} AND ${broadExpression}`
  return {
    kind: 'split',
    withBroad,
    withoutBroad: `${narrowExpression} NOT ${broadExpression}`,
    narrowOnly: narrowExpression,
    narrow,
    broad,
    ...window,
    ...older(withBroad),
    ...withBonus,
  }
}
