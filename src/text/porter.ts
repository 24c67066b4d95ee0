/**
 * Pure Porter stemming as the full-text index applies it: the facts_fts table's tokenizer is FTS5's
 * `porter unicode61 remove_diacritics 2`, so a term the plugin indexes ("approvals") is stored as its stem ("approv").
 * `indexForm` gives a search term the form the index holds, so code that compares terms outside SQLite (the
 * near-duplicate gate) counts "approvals" and "approved" as one token, as a MATCH does. The stemmer is the `stemmer`
 * package (Porter's 1980 algorithm, as FTS5 ships it) rather than code of our own; tests/porter.spec.ts checks every
 * form against what FTS5 itself stores, on both SQLite bindings.
 */
import { stemmer } from 'stemmer'

/** FTS5 leaves tokens shorter than this unstemmed. */
const MIN_STEMMED = 3
/** FTS5 leaves tokens longer than this unstemmed. */
const MAX_STEMMED = 64
const ASCII_WORD = /^[a-z0-9]+$/u
const LATIN_WORD = /^[\p{Script=Latin}\p{N}\p{M}]+$/u
const COMBINING_MARK = /\p{M}/gu

/**
 * The form the full-text index holds for one search term: Latin letters without their diacritics (remove_diacritics),
 * then, for an ASCII word, its Porter stem. CJK bigrams and other scripts are held as written.
 * @param term - a lower-cased search term from `searchTerms`.
 * @returns the indexed form.
 */
export function indexForm(term: string): string {
  const folded = LATIN_WORD.test(term) ? term.normalize('NFD').replace(COMBINING_MARK, '').normalize('NFC') : term
  return ASCII_WORD.test(folded) ? porterStem(folded) : folded
}

/**
 * A word's Porter stem, within the lengths FTS5 stems.
 * @param word - a lower-case ASCII word (letters and digits).
 * @returns its stem; words under 3 or over 64 characters, and anything but ASCII, come back unchanged.
 */
export function porterStem(word: string): string {
  if (word.length < MIN_STEMMED || word.length > MAX_STEMMED || !ASCII_WORD.test(word)) return word
  return stemmer(word)
}
