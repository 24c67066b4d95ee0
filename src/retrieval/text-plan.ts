/**
 * Pure planning of the BM25 query. Ranking cost grows with every document a term matches, so a query made of
 * common words ("which port do we use for the api") can touch a third of the store. When the terms together
 * match more than `candidateCap` documents, the rarest terms whose document counts fit under the cap become the
 * "narrow" set and the rest "broad"; the store then ranks two cheap queries,
 *   (narrow) AND (broad)   and   (narrow) NOT (broad),
 * whose BM25 scores equal those of the full OR query (both expressions hold every phrase once), and merges them.
 * What is given up: documents containing only broad terms are not ranked.
 */
import { orExpression } from '../text/tokenize.ts'

/** How to run the text channel. */
export type TextPlan =
  | { readonly kind: 'none' }
  | { readonly kind: 'single'; readonly match: string }
  | { readonly kind: 'split'; readonly withBroad: string; readonly withoutBroad: string; readonly narrow: readonly string[]; readonly broad: readonly string[] }

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
  if (total <= candidateCap || present.length === 1) return { kind: 'single', match: orExpression(present) }
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
    narrow,
    broad,
  }
}
