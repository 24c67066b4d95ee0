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
 * of `candidateCap` rowids from the end) and ranks within it, with the same BM25 scores. What is given up: older
 * facts holding only that common term. A library where no term matches more than the cap plans no window, and its
 * answers are exactly as before.
 */
import { orExpression } from '../text/tokenize.ts'

/** How to run the text channel. */
export type TextPlan =
  | { readonly kind: 'none' }
  | { readonly kind: 'single'; readonly match: string; readonly window?: RankWindow }
  | {
    readonly kind: 'split'; readonly withBroad: string; readonly withoutBroad: string; readonly narrow: readonly string[]; readonly broad: readonly string[]
    /** The narrow terms alone: `withoutBroad` is ranked as this among the facts `withBroad` does not match (see below). */
    readonly narrowOnly: string
    readonly window?: RankWindow
  }

/** Rank only the newest `newest` facts `match` matches (the rest are not ranked). */
export interface RankWindow {
  readonly match: string
  readonly newest: number
}

/**
 * Plan the text channel.
 * @param terms - distinct query terms.
 * @param documentCounts - how many indexed facts each term matches.
 * @param candidateCap - the most documents worth ranking in one query.
 * @returns the plan; terms that match nothing are left out (they cannot change any score).
 */
export function planTextQuery(terms: readonly string[], documentCounts: ReadonlyMap<string, number>, candidateCap: number): TextPlan {
  const present = terms.filter((term) => (documentCounts.get(term) ?? 0) > 0)
  if (present.length === 0) return { kind: 'none' }
  const total = present.reduce((sum, term) => sum + (documentCounts.get(term) ?? 0), 0)
  if (total <= candidateCap) return { kind: 'single', match: orExpression(present) }
  if (present.length === 1) return { kind: 'single', match: orExpression(present), window: { match: orExpression(present), newest: candidateCap } }
  const byRarity = [...present].sort((a, b) => (documentCounts.get(a) ?? 0) - (documentCounts.get(b) ?? 0) || (a < b ? -1 : 1))
  const narrow: string[] = []
  let covered = 0
  for (const term of byRarity) {
    const count = documentCounts.get(term) ?? 0
    if (narrow.length > 0 && covered + count > candidateCap) break
    narrow.push(term)
    covered += count
  }
  const broad = byRarity.slice(narrow.length)
  const narrowExpression = `(${orExpression(narrow)})`
  const broadExpression = `(${orExpression(broad)})`
  return {
    kind: 'split',
    withBroad: `${narrowExpression} AND ${broadExpression}`,
    withoutBroad: `${narrowExpression} NOT ${broadExpression}`,
    narrowOnly: narrowExpression,
    narrow,
    broad,
    // The rarest term is always narrow; alone, it may still match more than the cap.
    ...(covered > candidateCap ? { window: { match: narrowExpression, newest: candidateCap } } : {}),
  }
}
