/**
 * Pure Porter stemming as the full-text index applies it: the facts_fts table's tokenizer is FTS5's
 * `porter unicode61 remove_diacritics 2`, so a term the plugin indexes ("approvals") is stored as its stem ("approv").
 * `indexForm` gives a search term the form the index holds, so code that compares terms outside SQLite (the
 * near-duplicate gate) counts "approvals" and "approved" as one token, as a MATCH does. tests/porter.spec.ts checks
 * every form against what FTS5 itself stores, on both SQLite bindings.
 */

/** FTS5 leaves tokens shorter than this unstemmed. */
const MIN_STEMMED = 3
/** FTS5 leaves tokens longer than this unstemmed. */
const MAX_STEMMED = 64
const ASCII_WORD = /^[a-z0-9]+$/u
const LATIN_WORD = /^[\p{Script=Latin}\p{N}\p{M}]+$/u
const COMBINING_MARK = /\p{M}/gu

/** One suffix rule: the suffix, whether the stem before it qualifies, and what replaces it. */
type Rule = readonly [suffix: string, condition: ((stem: string) => boolean) | null, replacement: string]

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
 * Porter's stemmer (1980) in the variant FTS5 ships: a `y` after the first letter counts as a vowel when asking
 * whether a stem holds one, step 2 has "logi" → "log" and "bli" → "ble", a suffix matches only a longer word, and
 * among the rules of one step that end in the same two letters the first that matches decides, whether or not its
 * condition holds.
 * @param word - a lower-case ASCII word (letters and digits).
 * @returns its stem; words under 3 or over 64 characters come back unchanged.
 */
export function porterStem(word: string): string {
  if (word.length < MIN_STEMMED || word.length > MAX_STEMMED || !ASCII_WORD.test(word)) return word
  let w = step1a(word)
  const afterB = applyStep(w, STEP_1B)
  if (afterB.fired && afterB.word !== w && afterB.removing) {
    w = afterB.word
    const tidied = applyStep(w, STEP_1B2)
    if (tidied.word !== w) {
      w = tidied.word
    } else {
      const last = w.at(-1) ?? ''
      if (!isVowelLetter(last, false) && !'lsz'.includes(last) && last === w.at(-2)) w = w.slice(0, -1)
      else if (measureIs(w, 1) && endsCvc(w)) w = `${w}e`
    }
  } else {
    w = afterB.word
  }
  if (w.endsWith('y') && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`
  w = applyStep(w, STEP_2).word
  w = applyStep(w, STEP_3).word
  w = applyStep(w, STEP_4).word
  if (w.endsWith('e')) {
    const stem = w.slice(0, -1)
    if (measureAbove(stem, 1) || (measureIs(stem, 1) && !endsCvc(stem))) w = stem
  }
  if (w.length > 1 && w.endsWith('ll') && measureAbove(w.slice(0, -1), 1)) w = w.slice(0, -1)
  return w
}

/** SSES → SS, IES → I, SS → SS, S → (the IES rule needs a letter before it, SSES two). */
function step1a(word: string): string {
  if (!word.endsWith('s')) return word
  if (word.endsWith('es')) {
    const n = word.length
    if ((n > 4 && word.endsWith('sses')) || (n > 3 && word.endsWith('ies'))) return word.slice(0, -2)
    return word.slice(0, -1)
  }
  return word.endsWith('ss') ? word : word.slice(0, -1)
}

const mGt0 = (stem: string): boolean => measureAbove(stem, 0)
const mGt1 = (stem: string): boolean => measureAbove(stem, 1)
const mGt1AndSOrT = (stem: string): boolean => (stem.endsWith('s') || stem.endsWith('t')) && measureAbove(stem, 1)

/** Step 1b: the rules that remove (ED, ING) lead on to the tidy-up of 1b2; EED → EE does not. */
const STEP_1B: readonly Rule[] = [['eed', mGt0, 'ee'], ['ed', hasVowel, ''], ['ing', hasVowel, '']]
const STEP_1B2: readonly Rule[] = [['at', null, 'ate'], ['bl', null, 'ble'], ['iz', null, 'ize']]
const STEP_2: readonly Rule[] = [
  ['ational', mGt0, 'ate'], ['tional', mGt0, 'tion'], ['enci', mGt0, 'ence'], ['anci', mGt0, 'ance'], ['izer', mGt0, 'ize'],
  ['logi', mGt0, 'log'], ['bli', mGt0, 'ble'], ['alli', mGt0, 'al'], ['entli', mGt0, 'ent'], ['eli', mGt0, 'e'],
  ['ousli', mGt0, 'ous'], ['ization', mGt0, 'ize'], ['ation', mGt0, 'ate'], ['ator', mGt0, 'ate'], ['alism', mGt0, 'al'],
  ['iveness', mGt0, 'ive'], ['fulness', mGt0, 'ful'], ['ousness', mGt0, 'ous'], ['aliti', mGt0, 'al'], ['iviti', mGt0, 'ive'],
  ['biliti', mGt0, 'ble'],
]
const STEP_3: readonly Rule[] = [
  ['icate', mGt0, 'ic'], ['ative', mGt0, ''], ['alize', mGt0, 'al'], ['iciti', mGt0, 'ic'], ['ical', mGt0, 'ic'], ['ful', mGt0, ''],
  ['ness', mGt0, ''],
]
const STEP_4: readonly Rule[] = [
  ['al', mGt1, ''], ['ance', mGt1, ''], ['ence', mGt1, ''], ['er', mGt1, ''], ['ic', mGt1, ''], ['able', mGt1, ''], ['ible', mGt1, ''],
  ['ant', mGt1, ''], ['ement', mGt1, ''], ['ment', mGt1, ''], ['ent', mGt1, ''], ['ion', mGt1AndSOrT, ''], ['ou', mGt1, ''],
  ['ism', mGt1, ''], ['ate', mGt1, ''], ['iti', mGt1, ''], ['ous', mGt1, ''], ['ive', mGt1, ''], ['ize', mGt1, ''],
]

/**
 * Apply one step: among the rules whose suffix ends in the word's last two letters, the first whose suffix the word
 * ends with (and is longer than) decides; it rewrites the word when its condition holds on the stem before it.
 */
function applyStep(word: string, rules: readonly Rule[]): { word: string; fired: boolean; removing: boolean } {
  const key = word.at(-2)
  for (const [suffix, condition, replacement] of rules) {
    if (suffix.at(-2) !== key) continue
    if (word.length <= suffix.length || !word.endsWith(suffix)) continue
    const stem = word.slice(0, -suffix.length)
    if (condition !== null && !condition(stem)) return { word, fired: false, removing: false }
    return { word: stem + replacement, fired: true, removing: replacement === '' }
  }
  return { word, fired: false, removing: false }
}

/** a, e, i, o, u, and y when the letter before it is a consonant. */
function isVowelLetter(letter: string, previousIsConsonant: boolean): boolean {
  return 'aeiou'.includes(letter) || (previousIsConsonant && letter === 'y')
}

/** Whether the stem holds a vowel; here a y counts as one anywhere but first. */
function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i += 1) if (isVowelLetter(stem[i] ?? '', i > 0)) return true
  return false
}

/** The number of vowel-consonant sequences m in [C](VC)^m[V]. */
function measure(stem: string): number {
  let m = 0
  let consonant = false
  let sawVowel = false
  for (let i = 0; i < stem.length; i += 1) {
    const isConsonant: boolean = !isVowelLetter(stem[i] ?? '', i === 0 ? false : consonant)
    if (!isConsonant) sawVowel = true
    else if (sawVowel && !consonant) m += 1
    consonant = isConsonant
  }
  return m
}

function measureAbove(stem: string, m: number): boolean {
  return measure(stem) > m
}

function measureIs(stem: string, m: number): boolean {
  return measure(stem) === m
}

/** *o: the stem ends consonant-vowel-consonant, the last consonant not w, x or y. */
function endsCvc(stem: string): boolean {
  const last = stem.at(-1) ?? ''
  if (stem.length < 3 || 'wxy'.includes(last)) return false
  const kinds: boolean[] = []
  let consonant = false
  for (let i = 0; i < stem.length; i += 1) {
    consonant = !isVowelLetter(stem[i] ?? '', i === 0 ? false : consonant)
    kinds.push(consonant)
  }
  return kinds.at(-3) === true && kinds.at(-2) === false && kinds.at(-1) === true
}
