/**
 * Pure: the labeled pairs calibration derives from the user's own library when the user supplies none. For a sample
 * of facts, the query is "<subject> <property>"; its relevant document is that fact's text (as the fact is reranked,
 * see {@link factText}); its irrelevant document is the text of a fact of another subject and another property. This
 * is a proxy: it measures whether the reranker tells the fact asked about from an unrelated one, not how it judges
 * the near misses real questions meet. The same facts always give the same pairs.
 */
import type { CalibrationFact } from '../store/calibration-store.ts'
import { factText } from './input-text.ts'
import type { LabeledPair } from './types.ts'

/** A fact as pair derivation reads it (the store's row). */
export type { CalibrationFact }

/** How many queries a library calibration asks by default: each gives one relevant and one irrelevant pair. */
export const LIBRARY_QUERIES = 40

/** How pairs are derived. */
export interface LibraryPairOptions {
  /** Most queries to derive; each gives exactly one relevant and one irrelevant pair. */
  readonly queries: number
}

/**
 * Derive labeled pairs from facts. Facts are taken in id order, first at `queries` places spread evenly over the
 * list, then the rest in id order, until `queries` queries are found. A fact gives no query when its query text
 * repeats one already taken (two values of one slot) or when no fact of another subject and another property exists;
 * its irrelevant partner is the first such fact from half the list onwards, wrapping around.
 * @param facts - current, model-visible, non-sensitive facts; any order.
 * @param options - how many queries.
 * @returns the pairs, a relevant then an irrelevant one per query; fewer than asked when the facts do not allow more.
 */
export function libraryPairs(facts: readonly CalibrationFact[], options: LibraryPairOptions): LabeledPair[] {
  const sorted = [...facts].sort((a, b) => a.id - b.id)
  const pairs: LabeledPair[] = []
  const queries = new Set<string>()
  for (const index of visitOrder(sorted.length, options.queries)) {
    if (queries.size >= options.queries) break
    const fact = sorted[index] as CalibrationFact
    const query = `${fact.subject} ${fact.property}`
    if (queries.has(query)) continue
    const partner = unrelatedTo(sorted, index)
    if (partner === undefined) continue
    queries.add(query)
    pairs.push(
      { query, document: factText(fact), relevant: true },
      { query, document: factText(partner), relevant: false },
    )
  }
  return pairs
}

/** Indices 0..count-1: first `spread` of them evenly spaced, then the others ascending. */
function visitOrder(count: number, spread: number): number[] {
  const first = new Set<number>()
  const places = Math.min(count, Math.max(0, spread))
  for (let k = 0; k < places; k += 1) first.add(Math.floor((k * count) / places))
  const rest = Array.from({ length: count }, (_, i) => i).filter((i) => !first.has(i))
  return [...first, ...rest]
}

/** The first fact from half the list past `index` onwards (wrapping) with another subject and another property. */
function unrelatedTo(sorted: readonly CalibrationFact[], index: number): CalibrationFact | undefined {
  const fact = sorted[index] as CalibrationFact
  const start = index + Math.floor(sorted.length / 2)
  for (let step = 0; step < sorted.length; step += 1) {
    const other = sorted[(start + step) % sorted.length] as CalibrationFact
    if (other.entityKey !== fact.entityKey && other.predicateKey !== fact.predicateKey) return other
  }
  return undefined
}
