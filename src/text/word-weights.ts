/**
 * Pure: how telling a search term is in the language at large, from 0.05 to 1. A library of a few hundred facts says
 * little about English or Chinese: "tell", "please", "帮我" and "一下" are rare in it or absent, yet they say nothing
 * about what a message needs, while "migration" and "数据库" say a lot. A term's share of a message's weight is
 * therefore also scaled by its Zipf value in general text (word-zipf.generated.ts, derived from SUBTLEX-US and the
 * BCC corpus by scripts/build-word-weights.ts): at or below {@link RARE_ZIPF} it keeps its whole weight, at
 * {@link COMMON_ZIPF} or above {@link COMMON_FLOOR} of it, linearly between. A word the frequency list does not hold
 * (an identifier, a tool name such as psql) is rare and keeps its whole weight. A Chinese character pair that occurs
 * inside no common word is mostly the seam between two words ("帮我" in 帮我跑一下, "下测" in 一下测试): it weighs
 * {@link SEAM_WEIGHT}, or {@link HELD_SEAM_WEIGHT} when the library holds it (a name, a coined word). A pair holding
 * one of the commonest characters (的, 一, 我, 这, 个: Zipf {@link COMMON_CHAR_ZIPF} or more in running text) is mostly
 * grammar whatever words it sits inside ("的时" of 的时候, "这边"), so it weighs no more than that character allows:
 * in full at {@link RARE_CHAR_ZIPF}, {@link COMMON_FLOOR} at {@link COMMON_CHAR_ZIPF}, linearly between.
 */
import { indexForm } from './porter.ts'
import { CHINESE_CHAR_ZIPF, CHINESE_ZIPF, ENGLISH_ZIPF } from './word-zipf.generated.ts'

/** At or above this Zipf value a term weighs {@link COMMON_FLOOR} (English "tell" is 6.3, "please" 6.1). */
export const COMMON_ZIPF = 6.5
/** At or below this Zipf value a term weighs in full (English "migration" is 3.3, Chinese "端口" 3.8). */
export const RARE_ZIPF = 3
/** The weight of the commonest terms. */
export const COMMON_FLOOR = 0.05
/** A Chinese character at or above this Zipf value holds a pair to {@link COMMON_FLOOR} (的 is 7.6, 我 6.9). */
export const COMMON_CHAR_ZIPF = 7
/** A Chinese character at or below this Zipf value does not hold its pair down (数 is 6.0, 测 5.3). */
export const RARE_CHAR_ZIPF = 6
/** A Chinese character pair found inside no common word and not held by the library. */
export const SEAM_WEIGHT = 0.1
/** Such a pair that the library holds. */
export const HELD_SEAM_WEIGHT = 0.5

const ASCII_WORD = /^[a-z0-9]+$/u
const DIGITS = /^[0-9]+$/u
const HAN = /^\p{Script=Han}+$/u

const ENGLISH = parseZipf(ENGLISH_ZIPF)
const CHINESE = parseZipf(CHINESE_ZIPF)
const CHINESE_CHARS = parseZipf(CHINESE_CHAR_ZIPF)

/**
 * A term's weight in the language at large.
 * @param term - a search term as `searchTerms` gives it (a lower-case word or a CJK character pair).
 * @param held - whether the library holds the term (a Chinese pair it holds is a word there, whatever the corpus says).
 * @returns 0.05 to 1.
 */
export function languageWeight(term: string, held: boolean): number {
  if (DIGITS.test(term)) return 1
  if (ASCII_WORD.test(term)) {
    const zipf = ENGLISH.get(indexForm(term))
    return zipf === undefined ? 1 : scaled(zipf)
  }
  if (HAN.test(term)) {
    const zipf = CHINESE.get(term)
    const asWords = zipf !== undefined ? scaled(zipf) : held ? HELD_SEAM_WEIGHT : SEAM_WEIGHT
    const commonest = Math.max(0, ...[...term].map((char) => CHINESE_CHARS.get(char) ?? 0))
    return Math.min(asWords, scaledChar(commonest))
  }
  return 1
}

/**
 * The Zipf value of a term in general text, when the frequency lists hold it at 3 or more.
 * @param term - a search term.
 * @returns the value, or undefined.
 */
export function zipfOf(term: string): number | undefined {
  if (ASCII_WORD.test(term)) return ENGLISH.get(indexForm(term))
  return CHINESE.get(term)
}

function scaledChar(zipf: number): number {
  return Math.min(1, Math.max(COMMON_FLOOR, (COMMON_CHAR_ZIPF - zipf) / (COMMON_CHAR_ZIPF - RARE_CHAR_ZIPF)))
}

function scaled(zipf: number): number {
  return Math.min(1, Math.max(COMMON_FLOOR, (COMMON_ZIPF - zipf) / (COMMON_ZIPF - RARE_ZIPF)))
}

function parseZipf(table: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const line of table.split('\n')) {
    const [zipf = '', terms = ''] = line.split('\t')
    const value = Number(zipf)
    for (const term of terms.split(' ')) if (term !== '') out.set(term, value)
  }
  return out
}
