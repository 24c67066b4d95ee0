/** Pure: split a text into the runs a search query's words match and those between them, for <mark>. */

/** One run of a text: matched by a query word or not. */
export interface MarkedRun {
  readonly text: string
  readonly hit: boolean
}

/**
 * Mark every occurrence of the query's words in a text, case-insensitively; overlapping or touching matches join
 * into one run. A query without words marks nothing.
 * @param text - the text shown.
 * @param query - what the user typed; words are split on white space.
 * @returns the runs, in order, which together spell the text.
 */
export function markMatches(text: string, query: string): MarkedRun[] {
  const words = [
    ...new Set(
      query
        .toLowerCase()
        .split(/\s+/u)
        .filter((word) => word !== ''),
    ),
  ]
  if (words.length === 0 || text === '') return [{ text, hit: false }]
  const lower = text.toLowerCase()
  // Lower-casing keeps the length for the scripts a fact holds, so offsets into `lower` are offsets into `text`.
  if (lower.length !== text.length) return [{ text, hit: false }]
  const spans: [number, number][] = []
  for (const word of words) {
    for (let at = lower.indexOf(word); at !== -1; at = lower.indexOf(word, at + 1)) spans.push([at, at + word.length])
  }
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1])
  const joined: [number, number][] = []
  for (const span of spans) {
    const last = joined.at(-1)
    if (last !== undefined && span[0] <= last[1]) last[1] = Math.max(last[1], span[1])
    else joined.push([span[0], span[1]])
  }
  const runs: MarkedRun[] = []
  let at = 0
  for (const [start, end] of joined) {
    if (start > at) runs.push({ text: text.slice(at, start), hit: false })
    runs.push({ text: text.slice(start, end), hit: true })
    at = end
  }
  if (at < text.length) runs.push({ text: text.slice(at), hit: false })
  return runs
}
