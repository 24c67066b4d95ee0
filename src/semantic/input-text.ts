/**
 * Pure: the text a fact is embedded as, and reranked as. One template for both, so a vector and a rerank score read
 * the same words: "subject · property (qualifier: value, …): value". The template's name is part of the embedding
 * fingerprint: changing the template retires the vectors built with the old one.
 */
import { sha256 } from '../text/normalize.ts'
import { maskCredentials } from '../text/privacy.ts'

/** The template's name, covered by the embedding fingerprint. */
export const INPUT_TEMPLATE = 'subject-property-qualifiers-value/1'

/** The parts of a fact the text is built from. */
export interface EmbeddableFact {
  readonly subject: string
  readonly property: string
  readonly qualifiers: Readonly<Record<string, string>>
  readonly value: string
}

/**
 * The text of a fact, as it may leave the machine: anything in it that looks like a credential is masked (a fact
 * judged sensitive is never sent at all; this covers a token in a qualifier, which the write path does not judge).
 * @param fact - subject, property, qualifiers and value.
 * @returns one line; qualifiers in key order.
 */
export function factText(fact: EmbeddableFact): string {
  const qualifiers = Object.keys(fact.qualifiers)
    .sort()
    .map((key) => `${key}: ${fact.qualifiers[key] ?? ''}`)
  const head =
    qualifiers.length === 0
      ? `${fact.subject} · ${fact.property}`
      : `${fact.subject} · ${fact.property} (${qualifiers.join(', ')})`
  return maskCredentials(`${head}: ${fact.value}`)
}

/**
 * The hash a stored vector remembers its text by, so a fact whose text did not change keeps its vector.
 * @param text - the fact's text.
 * @returns hex SHA-256.
 */
export function textHash(text: string): string {
  return sha256(text)
}
