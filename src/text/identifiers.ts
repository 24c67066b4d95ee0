/**
 * Pure extraction of exact identifiers (URLs, paths, versions, ports and other numbers, package and host names)
 * for the exact-identifier channel. Identifiers are compared folded to lower case.
 */

const URL = /\b[a-z][a-z0-9+.-]*:\/\/[^\s<>"'`)\]}]+/giu
const PATH = /(?:~|\.{1,2})?\/[\w.@+-]+(?:\/[\w.@+-]+)*|\b[a-z]:\\[\w.\\ -]+|\b[\w.@+-]+(?:\/[\w.@+-]+)+/giu
const TOKEN = /[@\w][\w.@:/+-]*[\w]/gu
const TRAILING_PUNCTUATION = /[.,;:!?]+$/u

/**
 * Identifier-shaped tokens of a text: URLs and paths whole, then every token that is a number of two or more
 * digits, a version, a host:port, or a name carrying a separator or a digit (`dsh-fact-memory`, `bge-m3`,
 * `@scope/pkg`). Plain words are not identifiers.
 * @param text - any text.
 * @returns distinct folded identifiers in first-seen order.
 */
export function extractIdentifiers(text: string): string[] {
  const folded = text.normalize('NFKC').toLowerCase()
  const found = new Set<string>()
  const add = (candidate: string): void => {
    const clean = candidate.replace(TRAILING_PUNCTUATION, '')
    if (clean.length >= 2 && clean.length <= 200) found.add(clean)
  }
  for (const match of folded.matchAll(URL)) add(match[0])
  for (const match of folded.matchAll(PATH)) add(match[0])
  for (const match of folded.matchAll(TOKEN)) {
    const token = match[0]
    if (!isIdentifierShaped(token)) continue
    add(token)
    // host:port also yields its port, a version prefixed with v also its bare number.
    const port = /:(\d{2,5})$/u.exec(token)
    if (port?.[1] !== undefined) add(port[1])
    if (/^v\d+(?:\.\d+)+/u.test(token)) add(token.slice(1))
  }
  return [...found]
}

/**
 * Whether one token looks like an identifier rather than a word.
 * @param token - a folded token without spaces.
 * @returns true for numbers of 2+ digits, versions, and names with a separator or a digit among letters.
 */
export function isIdentifierShaped(token: string): boolean {
  if (/^\d{2,}$/u.test(token)) return true
  if (/^v?\d+(?:\.\d+)+(?:[-+][\w.]+)?$/u.test(token)) return true
  const hasLetter = /\p{L}/u.test(token)
  if (!hasLetter) return false
  if (/[-_./:@+]/u.test(token)) return true
  return /\d/u.test(token)
}
