/**
 * Pure: the concept lexicon for software work, compiled for matching. A concept is a group of words people use for
 * one thing, in English and Chinese, with abbreviations and the tools of its kind (db, database, postgres, psql, 数据库).
 * Each member is held as the terms the full-text index holds for it (English words stemmed, Chinese as character
 * pairs), so a member matches a text where its terms occur in a row, the way a phrase query matches: "run the tests"
 * matches "Run tests", "测试" matches inside "帮我跑一下测试". A message and a fact that hold members of one concept are
 * bridged: per-turn recall credits the fact for the message's words that concept covers, and search ranks the other
 * members as a channel of their own, in both cases below an exact match (see retrieval/channels.ts and recall/).
 */
import { indexForm } from '../text/porter.ts'
import { searchTerms } from '../text/tokenize.ts'
import { CONCEPT_GROUPS, LEXICON_VERSION } from './concepts.data.ts'

/** One compiled member of a concept. */
export interface Member {
  /** The member as written in the data. */
  readonly text: string
  /** Its index-form terms, in order. */
  readonly terms: readonly string[]
  /** Its search terms as written (lower-cased, unstemmed), in order: what a MATCH phrase is built from. */
  readonly surface: readonly string[]
  readonly concept: string
}

/** Where a concept's member occurs in a text's terms. */
export interface ConceptHit {
  readonly concept: string
  /** The positions of the text's terms the member covers. */
  readonly positions: readonly number[]
}

/** The compiled lexicon. */
export interface Lexicon {
  readonly version: string
  /** Concept id → its members. */
  readonly members: ReadonlyMap<string, readonly Member[]>
  /** First term → the members that begin with it, longest first. */
  readonly byFirstTerm: ReadonlyMap<string, readonly Member[]>
}

/**
 * The index-form terms of a text, in order, as the lexicon compares them.
 * @param text - any text.
 * @returns its terms (duplicates kept).
 */
export function lexiconTerms(text: string): string[] {
  return searchTerms(text).map(indexForm)
}

/**
 * Compile concept groups. A member with no searchable term (only stopwords) is left out.
 * @param groups - id and members of each concept.
 * @param version - the data's version.
 * @returns the lexicon.
 */
export function compileLexicon(
  groups: readonly { readonly id: string; readonly members: readonly string[] }[],
  version: string,
): Lexicon {
  const members = new Map<string, Member[]>()
  const byFirstTerm = new Map<string, Member[]>()
  for (const group of groups) {
    const own: Member[] = members.get(group.id) ?? []
    for (const text of group.members) {
      const surface = searchTerms(text)
      const terms = surface.map(indexForm)
      const first = terms[0]
      if (first === undefined || own.some((member) => sameTerms(member.terms, terms))) continue
      const member: Member = { text, terms, surface, concept: group.id }
      own.push(member)
      const starting = byFirstTerm.get(first) ?? []
      starting.push(member)
      byFirstTerm.set(first, starting)
    }
    members.set(group.id, own)
  }
  for (const list of byFirstTerm.values()) list.sort((a, b) => b.terms.length - a.terms.length)
  return { version, members, byFirstTerm }
}

/** The shipped lexicon. */
export const SOFTWARE_LEXICON: Lexicon = compileLexicon(CONCEPT_GROUPS, LEXICON_VERSION)

/**
 * Every occurrence of every concept's members in a sequence of terms.
 * @param lexicon - the lexicon.
 * @param terms - a text's index-form terms (`lexiconTerms`).
 * @returns the hits, in text order; a concept can occur more than once.
 */
export function findConcepts(lexicon: Lexicon, terms: readonly string[]): ConceptHit[] {
  const hits: ConceptHit[] = []
  for (let start = 0; start < terms.length; start += 1) {
    const candidates = lexicon.byFirstTerm.get(terms[start] ?? '')
    if (candidates === undefined) continue
    for (const member of candidates) {
      if (member.terms.every((term, offset) => terms[start + offset] === term)) {
        hits.push({ concept: member.concept, positions: member.terms.map((_, offset) => start + offset) })
      }
    }
  }
  return hits
}

/**
 * The concepts a text holds.
 * @param lexicon - the lexicon.
 * @param text - any text.
 * @returns concept ids.
 */
export function conceptsOf(lexicon: Lexicon, text: string): Set<string> {
  return new Set(findConcepts(lexicon, lexiconTerms(text)).map((hit) => hit.concept))
}

/**
 * The members of the given concepts that a text does not already hold: what a search for the text also looks for.
 * Each concept's members come in the data's order, concepts in the order given.
 * @param lexicon - the lexicon.
 * @param concepts - concept ids, in the order they occur.
 * @param held - the text's own terms (index form).
 * @param max - the most members returned.
 * @returns distinct members.
 */
export function bridgedMembers(
  lexicon: Lexicon,
  concepts: readonly string[],
  held: ReadonlySet<string>,
  max: number,
): Member[] {
  const out: Member[] = []
  const seen = new Set<string>()
  for (const concept of concepts) {
    for (const member of lexicon.members.get(concept) ?? []) {
      const key = member.terms.join(' ')
      if (seen.has(key) || member.terms.every((term) => held.has(term))) continue
      seen.add(key)
      out.push(member)
      if (out.length >= max) return out
    }
  }
  return out
}

function sameTerms(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((term, index) => term === b[index])
}
