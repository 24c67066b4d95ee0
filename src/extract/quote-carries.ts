/**
 * Pure rule for the user's own statement: a quote counts as explicit_user evidence only when it carries the
 * statement, that is, it is a sentence rather than a word ("yes", "ok", "好的"), and the value stands in it. The tool
 * path, the extraction path and the rule path all ask this one function; where the quote occurs is their own check.
 */
import { extractIdentifiers } from '../text/identifiers.ts'
import { indexForm } from '../text/porter.ts'
import { cjkRuns, searchTerms, withoutCjk } from '../text/tokenize.ts'
import { foldForAnchor } from './anchor.ts'

/** Characters a quote of words needs, with at least {@link QUOTE_MIN_WORDS} words. */
export const QUOTE_MIN_CHARS = 6

/** Words a quote needs (each CJK character counts as a word). */
export const QUOTE_MIN_WORDS = 2

/** CJK characters that make a quote long enough on their own. */
export const QUOTE_MIN_CJK = 4

/** Terms beyond which a value is long: then its identifiers and most of its words must be in the quote. */
const SHORT_VALUE_TERMS = 4

/** Why a quote does not carry the statement. */
export type QuoteShortfall = 'short_quote' | 'value_not_in_quote'

/** Whether a quote carries the statement of its value. */
export type QuoteVerdict = { readonly carries: true } | { readonly carries: false; readonly reason: QuoteShortfall }

/**
 * Whether `quote` carries the statement `value` makes. The quote must hold at least {@link QUOTE_MIN_CHARS}
 * characters and {@link QUOTE_MIN_WORDS} words, or {@link QUOTE_MIN_CJK} CJK characters. The value must stand in it,
 * compared as the full-text index compares terms (`searchTerms`, then `indexForm`: case, diacritics and English
 * inflection folded, CJK as bigrams): a value of up to four terms with every term, a longer value with every
 * identifier (`extractIdentifiers`) and more than half of its distinct terms. A value with no terms at all (only
 * stopwords or punctuation) must occur in the quote as written, up to case and spacing.
 * @param quote - the words offered as the user's.
 * @param value - the value the write states.
 * @returns carries, or why not.
 */
export function quoteCarries(quote: string, value: string): QuoteVerdict {
  if (!longEnough(foldForAnchor(quote))) return { carries: false, reason: 'short_quote' }
  return valueInQuote(quote, value) ? { carries: true } : { carries: false, reason: 'value_not_in_quote' }
}

/**
 * The sentence a memory_write answer gives for a shortfall.
 * @param reason - why the quote does not carry the statement.
 * @returns the note's text.
 */
export function shortfallNote(reason: QuoteShortfall): string {
  return reason === 'short_quote'
    ? `the quote is too short to carry a statement (explicit_user needs at least ${QUOTE_MIN_CHARS} characters and ${QUOTE_MIN_WORDS} words, or ${QUOTE_MIN_CJK} Chinese characters, of the user's own words)`
    : "the value does not stand in the quote (explicit_user needs the user's words that state it)"
}

function longEnough(folded: string): boolean {
  const cjk = cjkRuns(folded).join('').length
  if (cjk >= QUOTE_MIN_CJK) return true
  const words = [...withoutCjk(folded).matchAll(/[\p{L}\p{N}]+/gu)].length + cjk
  return [...folded].length >= QUOTE_MIN_CHARS && words >= QUOTE_MIN_WORDS
}

function valueInQuote(quote: string, value: string): boolean {
  const valueTerms = [...new Set(searchTerms(value).map(indexForm))]
  if (valueTerms.length === 0) return squash(value) !== '' && squash(quote).includes(squash(value))
  const quoteTerms = new Set(searchTerms(quote).map(indexForm))
  const held = valueTerms.filter((term) => quoteTerms.has(term)).length
  if (valueTerms.length <= SHORT_VALUE_TERMS) return held === valueTerms.length
  const quoteText = quote.normalize('NFKC').toLowerCase()
  return extractIdentifiers(value).every((id) => quoteText.includes(id)) && held * 2 > valueTerms.length
}

function squash(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '')
}
