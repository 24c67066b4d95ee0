/**
 * Pure: the stretches of a query that could name a stored subject, as canonical subject keys to look up. A query
 * names its subject in passing ("what did Melanie paint", "billing-api 的端口"), so every run of one to four words
 * is a candidate, and inside CJK text every run of two to eight characters; each is folded the way subjects are
 * (canonicalEntity), so "the billing-api service" finds the subject written as "Billing API".
 */
import { canonicalEntity } from '../text/normalize.ts'
import { cjkRuns, dropPossessives, withoutCjk } from '../text/tokenize.ts'

/** Longest name, in words, looked for. */
const MAX_NAME_WORDS = 4
/** Longest CJK name, in characters, looked for. */
const MAX_CJK_NAME_CHARS = 8
/** Most candidates one query produces (the lookup is one indexed IN list). */
const MAX_CANDIDATES = 200

/**
 * Candidate subject keys a query may name, in order of appearance.
 * @param query - the query text.
 * @returns distinct canonical keys, at most 200.
 */
export function subjectCandidates(query: string): string[] {
  const folded = dropPossessives(query.normalize('NFKC').toLowerCase())
  const words = withoutCjk(folded)
    .split(/[^\p{L}\p{N}_\-.]+/u)
    .map((word) => word.replace(/^[-_.]+|[-_.]+$/gu, ''))
    .filter((word) => word !== '')
  const keys = new Set<string>()
  const add = (text: string): void => {
    const key = canonicalEntity(text)
    if (key !== '') keys.add(key)
  }
  for (let start = 0; start < words.length; start += 1) {
    for (let n = 1; n <= MAX_NAME_WORDS && start + n <= words.length; n += 1)
      add(words.slice(start, start + n).join(' '))
  }
  for (const run of cjkRuns(folded)) {
    const chars = [...run]
    for (let start = 0; start < chars.length; start += 1) {
      for (let n = 2; n <= MAX_CJK_NAME_CHARS && start + n <= chars.length; n += 1)
        add(chars.slice(start, start + n).join(''))
    }
  }
  return [...keys].slice(0, MAX_CANDIDATES)
}
