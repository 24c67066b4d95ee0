/**
 * Pure relevance of a stored fact to a user's message, for the floor of per-turn recall. A message is not a search
 * query: it is long, and it arrives on every turn whether or not the library knows anything about it. So a fact is
 * judged by the share of the message's most telling words it carries: each term weighs its inverse document
 * frequency, a term the library has never indexed weighs as much as the rarest one it holds (the message is about
 * something the library does not know, and a common word it shares with a fact must not pass for a match), and only
 * the message's {@link TELLING_TERMS} heaviest terms make up the whole, so a long message is not diluted by its
 * length. Terms compare in the form the full-text index holds them (Porter stems, diacritics folded), as a MATCH
 * compares them.
 */
import { indexForm } from '../text/porter.ts'
import { searchTerms } from '../text/tokenize.ts'

/** How many of the message's heaviest known terms make up the whole a fact's share is taken of. */
export const TELLING_TERMS = 5

/** The message's terms with their weights, ready to judge facts against. */
export interface MessageTerms {
  /** Index form → inverse document frequency, for the terms the library holds (document frequency > 0). */
  readonly weights: ReadonlyMap<string, number>
  /** The weight of the message's {@link TELLING_TERMS} heaviest terms together, unknown ones included; 0 for no terms or an empty library. */
  readonly whole: number
}

/**
 * Weigh a message's terms.
 * @param terms - the message's search terms, as search plans them (`questionTerms`).
 * @param documentCounts - how many indexed facts hold each term (as the full-text index counts them).
 * @param indexed - how many facts the index holds.
 * @returns the weights and their whole.
 */
export function weighMessage(terms: readonly string[], documentCounts: ReadonlyMap<string, number>, indexed: number): MessageTerms {
  const weights = new Map<string, number>()
  const all = new Map<string, number>()
  if (indexed <= 0) return { weights, whole: 0 }
  for (const term of terms) {
    const documents = documentCounts.get(term) ?? 0
    const form = indexForm(term)
    const weight = Math.log(1 + indexed / Math.max(1, documents))
    all.set(form, Math.max(all.get(form) ?? 0, weight))
    if (documents > 0) weights.set(form, Math.max(weights.get(form) ?? 0, weight))
  }
  const whole = [...all.values()].sort((a, b) => b - a).slice(0, TELLING_TERMS).reduce((sum, weight) => sum + weight, 0)
  return { weights, whole }
}

/**
 * A fact's relevance to the message: the weight of the message's known terms the fact's text carries, as a share of
 * the message's whole, at most 1.
 * @param message - the weighed message.
 * @param factText - the fact's searchable text (subject, property, value, qualifier values).
 * @returns 0 to 1; 0 when the message shares no term with the library.
 */
export function relevanceOf(message: MessageTerms, factText: readonly string[]): number {
  if (message.whole <= 0) return 0
  const carried = new Set(factText.flatMap((part) => searchTerms(part)).map(indexForm))
  let weight = 0
  for (const [form, termWeight] of message.weights) if (carried.has(form)) weight += termWeight
  return Math.min(1, weight / message.whole)
}
