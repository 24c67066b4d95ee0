/**
 * Pure tokenization for the full-text channel: ASCII and other alphabetic text becomes words, CJK runs become
 * overlapping bigrams, so "数据库端口" and "database port" are both searchable with one FTS5 table.
 */

/** Scripts written without spaces; their runs are split into overlapping bigrams. */
/** The katakana long-vowel mark ー is script Common, yet belongs inside a kana run. */
const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC]/u
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC]+/gu
const WORD = /[\p{L}\p{N}]+/gu

/**
 * English function words dropped from queries and the index: they carry no signal in short claims and would make
 * an OR query touch most of the table.
 */
const STOPWORDS = new Set([
  'a',
  'an',
  'the',
  'and',
  'or',
  'but',
  'of',
  'to',
  'in',
  'on',
  'at',
  'by',
  'for',
  'with',
  'from',
  'as',
  'is',
  'are',
  'was',
  'were',
  'be',
  'been',
  'being',
  'it',
  'its',
  'this',
  'that',
  'these',
  'those',
  'what',
  'which',
  'who',
  'whom',
  'whose',
  'when',
  'where',
  'why',
  'how',
  'do',
  'does',
  'did',
  'has',
  'have',
  'had',
  'i',
  'me',
  'my',
  'we',
  'our',
  'you',
  'your',
  'he',
  'him',
  'his',
  'she',
  'her',
  'they',
  'them',
  'their',
  'there',
  'here',
  'not',
  'no',
  'so',
  'if',
  'than',
  'then',
  'about',
  'into',
  'over',
  'can',
  'could',
  'would',
  'should',
  'will',
  'shall',
  'may',
  'might',
  'any',
  'some',
  'all',
  'just',
  'also',
  'very',
  'up',
  'out',
])

/**
 * Words that frame a question rather than name what it is about ("what kind of art", "how many pets", "would she
 * likely go"). They are dropped from queries only, never from the index. Measured on LoCoMo's rendered answers
 * (scripts/bench-locomo.ts): dropping them gains about half a point of evidence recall@10, because each one otherwise
 * matches unrelated facts that happen to use the word.
 */
const QUESTION_FRAME_WORDS = new Set([
  'kind',
  'kinds',
  'type',
  'types',
  'sort',
  'way',
  'ways',
  'likely',
  'many',
  'much',
  'long',
  'often',
  'ever',
  'get',
  'go',
  'make',
  'say',
  'think',
  'feel',
  'like',
  'do',
])

/** An English possessive ("Melanie's", "Melanie’s"): its "s" is not a word of its own. */
const POSSESSIVE = /(\p{L})['’]s\b/gu

/**
 * Split text into search terms: lower-cased words outside CJK runs (stopwords and the "s" of possessives removed) and
 * bigrams inside them (a lone CJK character stays a unigram). Order follows the text; duplicates are kept. English
 * inflection is folded by FTS5's porter tokenizer, which stems both the indexed terms and the query's, so the
 * terms here stay whole words (a second stemmer in front of it was measured and gained nothing).
 * @param text - any text.
 * @returns the terms.
 */
export function searchTerms(text: string): string[] {
  const folded = text.normalize('NFKC').toLowerCase()
  const terms: string[] = []
  let last = 0
  for (const match of folded.matchAll(CJK_RUN)) {
    pushWords(folded.slice(last, match.index), terms)
    pushBigrams(match[0], terms)
    last = match.index + match[0].length
  }
  pushWords(folded.slice(last), terms)
  return terms
}

/**
 * The text stored in the FTS5 column for a fact: its terms joined by spaces, so FTS5's own tokenizer sees exactly
 * the terms chosen here.
 * @param parts - subject, property, value and qualifier text.
 * @returns the indexable text.
 */
export function indexText(parts: readonly string[]): string {
  return parts.flatMap((part) => searchTerms(part)).join(' ')
}

/**
 * The distinct search terms of a query, capped so a pasted essay cannot become a huge query.
 * @param query - user or model text.
 * @param maxTerms - the most terms kept, in order of first appearance.
 * @returns distinct terms.
 */
export function queryTerms(query: string, maxTerms: number): string[] {
  return [...new Set(searchTerms(query))].slice(0, maxTerms)
}

/**
 * The distinct search terms of a question the model asks, without its question-frame words (unless nothing else is
 * left). A person's filter on the library page keeps every word typed (`queryTerms`).
 * @param question - model text.
 * @param maxTerms - the most terms kept, in order of first appearance.
 * @returns distinct terms.
 */
export function questionTerms(question: string, maxTerms: number): string[] {
  const terms = [...new Set(searchTerms(question))]
  const content = terms.filter((term) => !QUESTION_FRAME_WORDS.has(term))
  return (content.length > 0 ? content : terms).slice(0, maxTerms)
}

/**
 * Join terms into a safe FTS5 expression: each a quoted string, joined by OR.
 * @param terms - search terms.
 * @returns the expression (empty string for no terms).
 */
export function orExpression(terms: readonly string[]): string {
  return terms.map((term) => `"${term.replaceAll('"', '""')}"`).join(' OR ')
}

/**
 * Join terms into a safe FTS5 expression that requires every term (a filter, not a ranking).
 * @param terms - search terms.
 * @returns the expression.
 */
export function andExpression(terms: readonly string[]): string {
  return terms.map((term) => `"${term.replaceAll('"', '""')}"`).join(' AND ')
}

/**
 * Build a safe FTS5 MATCH expression: distinct terms, each a quoted string, joined by OR.
 * @param query - user or model text.
 * @param maxTerms - cap on the number of terms.
 * @returns the expression, or `undefined` when the query has no searchable term.
 */
export function ftsMatchExpression(query: string, maxTerms: number): string | undefined {
  const distinct = queryTerms(query, maxTerms)
  return distinct.length === 0 ? undefined : orExpression(distinct)
}

/**
 * The runs of CJK text (Han, kana, Hangul) in a text, in order.
 * @param text - any text.
 * @returns the runs.
 */
export function cjkRuns(text: string): string[] {
  return text.match(CJK_RUN) ?? []
}

/**
 * A text with each CJK run replaced by a space, leaving its words in other scripts apart.
 * @param text - any text.
 * @returns the text without CJK.
 */
export function withoutCjk(text: string): string {
  return text.replace(CJK_RUN, ' ')
}

/**
 * A text with English possessives reduced to their owner ("Melanie's" → "Melanie").
 * @param text - any text.
 * @returns the text.
 */
export function dropPossessives(text: string): string {
  return text.replace(POSSESSIVE, '$1')
}

/**
 * Whether a text contains any CJK character.
 * @param text - any text.
 * @returns true when at least one Han, kana or Hangul character occurs.
 */
export function hasCjk(text: string): boolean {
  return CJK_CHAR.test(text)
}

function pushWords(segment: string, terms: string[]): void {
  for (const match of dropPossessives(segment).matchAll(WORD)) {
    const word = match[0]
    if (!STOPWORDS.has(word)) terms.push(word)
  }
}

function pushBigrams(run: string, terms: string[]): void {
  const chars = [...run]
  if (chars.length === 1) {
    terms.push(run)
    return
  }
  for (let i = 0; i + 1 < chars.length; i += 1) terms.push(`${chars[i]}${chars[i + 1]}`)
}
