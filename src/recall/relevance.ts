/**
 * Pure relevance of a stored fact to a user's message, for the floor of per-turn recall. A message is not a search
 * query: it is long, and it arrives on every turn whether or not the library knows anything about it. So a fact is
 * judged by the share of the message's most telling words it carries.
 *
 * A term weighs its inverse document frequency in the library, scaled by how telling it is in the language at large
 * (text/word-weights.ts: "please", "tell" and "一下" weigh little, "migration" and "数据库" a lot). A term the library
 * has never indexed takes the rarest term's frequency, so a rare word about something the library does not know keeps
 * a common word it shares with a fact from passing for a match, while a common word of no content ("fails", "帮我")
 * does not. A term inside a member of the software lexicon (lexicon/) is content whatever its frequency in general
 * text ("test" in "run the tests", "提交" in "提交信息"), so it weighs at least {@link CONCEPT_FLOOR} of its frequency.
 * Only the message's {@link TELLING_TERMS} heaviest terms make up the whole, so a long message is not diluted by its
 * length.
 *
 * A fact carries a term in full when its own words hold it; at {@link CUE_SHARE} when only its cues do (the phrases
 * the writer said later requests would use); and at {@link BRIDGE_SHARE} when the term lies in a lexicon concept the
 * fact's words hold through another member ("psql" for a fact about the "database"; "测试" for "test") — at the
 * product of both when only its cues hold that concept. Terms compare in the form the full-text index holds them
 * (Porter stems, diacritics folded), as a MATCH compares them.
 */
import { findConcepts, lexiconTerms, SOFTWARE_LEXICON, type Lexicon } from '../lexicon/lexicon.ts'
import { indexForm } from '../text/porter.ts'
import { languageWeight } from '../text/word-weights.ts'

/** How many of the message's heaviest known terms make up the whole a fact's share is taken of. */
export const TELLING_TERMS = 5
/** The least share of its weight a term keeps when it lies inside a lexicon member of the message. */
export const CONCEPT_FLOOR = 0.8
/** The share of a term's weight a fact carries through its cues alone. */
export const CUE_SHARE = 0.7
/** The share of a term's weight a fact carries through another member of the term's concept. */
export const BRIDGE_SHARE = 0.6

/** The message's terms with their weights, ready to judge facts against. */
export interface MessageTerms {
  /** Index form → weight, for every term of the message. */
  readonly weights: ReadonlyMap<string, number>
  /** The index forms the library holds (document frequency > 0): only those can be a fact's own words. */
  readonly known: ReadonlySet<string>
  /** The weight of the message's {@link TELLING_TERMS} heaviest terms together; 0 for no terms or an empty library. */
  readonly whole: number
  /** Index form → the lexicon concepts whose members cover it in the message. */
  readonly concepts: ReadonlyMap<string, ReadonlySet<string>>
  readonly lexicon: Lexicon
}

/**
 * Weigh a message's terms.
 * @param terms - the message's search terms, as search plans them (`questionTerms`), in the message's order.
 * @param documentCounts - how many indexed facts hold each term (as the full-text index counts them).
 * @param indexed - how many facts the index holds.
 * @param text - the message itself, read for lexicon members whole (a member may hold a word the search leaves out of
 *   a question, "go" in "go语言", "type" in "type safety"); the terms alone when absent.
 * @param lexicon - the concept lexicon; the shipped one by default.
 * @returns the weights and their whole.
 */
export function weighMessage(
  terms: readonly string[],
  documentCounts: ReadonlyMap<string, number>,
  indexed: number,
  text?: string,
  lexicon: Lexicon = SOFTWARE_LEXICON,
): MessageTerms {
  const weights = new Map<string, number>()
  const known = new Set<string>()
  const concepts = new Map<string, Set<string>>()
  if (indexed <= 0) return { weights, known, whole: 0, concepts, lexicon }
  const forms = terms.map(indexForm)
  const sequence = text === undefined ? forms : lexiconTerms(text)
  for (const hit of findConcepts(lexicon, sequence)) {
    for (const position of hit.positions) {
      const form = sequence[position] ?? ''
      const held = concepts.get(form) ?? new Set<string>()
      held.add(hit.concept)
      concepts.set(form, held)
    }
  }
  for (const [index, term] of terms.entries()) {
    const documents = documentCounts.get(term) ?? 0
    const form = forms[index] ?? term
    const language = documents > 0 ? Math.sqrt(languageWeight(term, true)) : languageWeight(term, false)
    const share = concepts.has(form) ? Math.max(language, CONCEPT_FLOOR) : language
    const weight = Math.log(1 + indexed / Math.max(1, documents)) * share
    weights.set(form, Math.max(weights.get(form) ?? 0, weight))
    if (documents > 0) known.add(form)
  }
  const whole = [...weights.values()]
    .sort((a, b) => b - a)
    .slice(0, TELLING_TERMS)
    .reduce((sum, weight) => sum + weight, 0)
  return { weights, known, whole, concepts, lexicon }
}

/** The words a fact's text holds, as relevance reads them: index forms, and the lexicon concepts they hold. */
export interface TextWords {
  readonly forms: ReadonlySet<string>
  readonly concepts: ReadonlySet<string>
}

/** A fact's own words and its cues', read once (see FactWordsCache). */
export interface FactWords {
  readonly own: TextWords
  readonly cues: TextWords | undefined
}

/**
 * Read a fact's words: each text on its own (a lexicon member never spans two fields).
 * @param factText - the fact's own searchable text (subject, property, value, qualifier values).
 * @param cues - the fact's cues.
 * @param lexicon - the concept lexicon; the shipped one by default.
 * @returns its words.
 */
export function factWords(
  factText: readonly string[],
  cues: readonly string[] = [],
  lexicon: Lexicon = SOFTWARE_LEXICON,
): FactWords {
  return { own: wordsOf(factText, lexicon), cues: cues.length === 0 ? undefined : wordsOf(cues, lexicon) }
}

/**
 * A fact's relevance to the message: the weight of the message's terms the fact carries (in full, through its cues,
 * or through a lexicon concept), as a share of the message's whole, at most 1.
 * @param message - the weighed message.
 * @param factText - the fact's own searchable text (subject, property, value, qualifier values), or its words read.
 * @param cues - the fact's cues (unread when `factText` is its words).
 * @returns 0 to 1; 0 when the message shares nothing with the fact.
 */
export function relevanceOf(
  message: MessageTerms,
  factText: readonly string[] | FactWords,
  cues: readonly string[] = [],
): number {
  if (message.whole <= 0) return 0
  const words = Array.isArray(factText) ? factWords(factText, cues, message.lexicon) : (factText as FactWords)
  const own = words.own
  const cued = words.cues
  let weight = 0
  for (const [form, termWeight] of message.weights) {
    if (own.forms.has(form) && message.known.has(form)) weight += termWeight
    else if (cued?.forms.has(form) === true) weight += termWeight * CUE_SHARE
    else {
      const concepts = message.concepts.get(form)
      if (concepts === undefined) continue
      if ([...concepts].some((concept) => own.concepts.has(concept))) weight += termWeight * BRIDGE_SHARE
      else if (cued !== undefined && [...concepts].some((concept) => cued.concepts.has(concept)))
        weight += termWeight * BRIDGE_SHARE * CUE_SHARE
    }
  }
  return Math.min(1, weight / message.whole)
}

/** The index forms some texts hold, and the lexicon concepts they hold (each text read on its own). */
function wordsOf(texts: readonly string[], lexicon: Lexicon): TextWords {
  const forms = new Set<string>()
  const concepts = new Set<string>()
  for (const text of texts) {
    const terms = lexiconTerms(text)
    for (const term of terms) forms.add(term)
    for (const hit of findConcepts(lexicon, terms)) concepts.add(hit.concept)
  }
  return { forms, concepts }
}

/**
 * The words of recently judged facts, by their text and cues: a project's facts are weighed against every message of
 * a session in it, and reading them is most of the cost. Keyed by the text itself, so an edited row, a cue added by a
 * repeat or another store's row of the same id is read afresh. Bounded; the oldest entry leaves first.
 */
export class FactWordsCache {
  private readonly entries = new Map<string, FactWords>()
  private readonly capacity: number

  /** @param capacity - the most facts kept. */
  constructor(capacity = 4096) {
    this.capacity = capacity
  }

  /**
   * A fact's words, read once for each text it has.
   * @param fact - the fact's text and cues.
   * @returns its words.
   */
  wordsOf(fact: { readonly text: readonly string[]; readonly cues: readonly string[] }): FactWords {
    const key = `${fact.text.join('\u0001')}\u0000${fact.cues.join('\u0001')}`
    const known = this.entries.get(key)
    if (known !== undefined) return known
    const words = factWords(fact.text, fact.cues)
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next().value
      if (oldest !== undefined) this.entries.delete(oldest)
    }
    this.entries.set(key, words)
    return words
  }
}
