/**
 * Pure: the calendar dates a query names ("on 3 June, 2023", "June 3rd 2023", "in August 2023", "2026-11-24",
 * "2023年6月3日"), each as the window of local time it covers in the store's zone. A month or a day needs its year:
 * "in June" or "on the 3rd" name no window, and a bare year ("2023") is left to the word and identifier channels,
 * since it may as well be a port or a count.
 */
import { dateArgumentInstant } from './dates.ts'

/** A span of time a query names, as ISO UTC instants: start ≤ t < end. */
export interface DateWindow {
  readonly start: string
  readonly end: string
  /** How much of the calendar the query pinned down. */
  readonly precision: 'day' | 'month'
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december']
const MONTH = '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)'
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?'
const YEAR = '(\\d{4})'

/** Each pattern with how its groups map onto year, month and day. */
const PATTERNS: readonly { readonly regex: RegExp; readonly parts: (match: RegExpExecArray) => readonly [string | undefined, string | undefined, string | undefined] }[] = [
  { regex: /\b(\d{4})-(\d{2})-(\d{2})\b/gu, parts: (m) => [m[1], m[2], m[3]] },
  { regex: /\b(\d{4})\/(\d{1,2})\/(\d{1,2})\b/gu, parts: (m) => [m[1], m[2], m[3]] },
  { regex: /(\d{4})\s*年\s*(\d{1,2})\s*月(?:\s*(\d{1,2})\s*[日号])?/gu, parts: (m) => [m[1], m[2], m[3]] },
  { regex: new RegExp(`\\b${DAY}(?:\\s+of)?\\s+${MONTH}\\.?,?\\s+${YEAR}\\b`, 'giu'), parts: (m) => [m[3], monthNumber(m[2]), m[1]] },
  { regex: new RegExp(`\\b${MONTH}\\.?\\s+${DAY},?\\s+${YEAR}\\b`, 'giu'), parts: (m) => [m[3], monthNumber(m[1]), m[2]] },
  { regex: new RegExp(`\\b${MONTH}\\.?,?\\s+(?:of\\s+)?${YEAR}\\b`, 'giu'), parts: (m) => [m[2], monthNumber(m[1]), undefined] },
  { regex: /\b(\d{4})-(\d{2})\b(?!-\d)/gu, parts: (m) => [m[1], m[2], undefined] },
]

/**
 * The date windows a query names, in the order they appear, each once. Overlapping mentions keep the most precise
 * reading ("3 June 2023" is a day, not also the month "June 2023").
 * @param query - the query text.
 * @param timeZone - IANA zone whose calendar days the dates mean.
 * @returns the windows; empty when the query names no full date.
 */
export function queryDateWindows(query: string, timeZone: string): DateWindow[] {
  return queryDates(query, timeZone).windows
}

/**
 * The date windows a query names, and the query with those date expressions blanked out (so their numbers are not
 * also read as identifiers).
 * @param query - the query text.
 * @param timeZone - IANA zone whose calendar days the dates mean.
 * @returns the windows and the remaining text.
 */
export function queryDates(query: string, timeZone: string): { windows: DateWindow[]; rest: string } {
  const text = query.normalize('NFKC')
  const found: { index: number; length: number; window: DateWindow | undefined }[] = []
  for (const { regex, parts } of PATTERNS) {
    for (const match of text.matchAll(regex)) {
      const [year, month, day] = parts(match as RegExpExecArray)
      const window = windowOf(Number(year), Number(month), day === undefined ? undefined : Number(day), timeZone)
      const index = match.index ?? 0
      const overlaps = found.some((other) => index < other.index + other.length && other.index < index + match[0].length)
      // An impossible date ("31 February 2023") still takes its span, so no less precise reading is made of it.
      if (!overlaps) found.push({ index, length: match[0].length, window })
    }
  }
  const seen = new Set<string>()
  const ordered = found.sort((a, b) => a.index - b.index)
  let rest = text
  for (const entry of [...ordered].reverse()) rest = `${rest.slice(0, entry.index)} ${rest.slice(entry.index + entry.length)}`
  const windows = ordered.flatMap((entry) => (entry.window === undefined ? [] : [entry.window])).filter((window) => {
    const key = `${window.start}/${window.end}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
  return { windows, rest }
}

function monthNumber(name: string | undefined): string | undefined {
  if (name === undefined) return undefined
  const index = MONTHS.findIndex((month) => month.startsWith(name.toLowerCase().slice(0, 3)))
  return index < 0 ? undefined : String(index + 1)
}

function windowOf(year: number, month: number, day: number | undefined, timeZone: string): DateWindow | undefined {
  if (!Number.isInteger(year) || year < 1900 || year > 2999 || !(month >= 1 && month <= 12)) return undefined
  const iso = (y: number, m: number, d: number): string => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`
  if (day === undefined) {
    const start = dateArgumentInstant(iso(year, month, 1), timeZone, 'start')
    const end = dateArgumentInstant(month === 12 ? iso(year + 1, 1, 1) : iso(year, month + 1, 1), timeZone, 'start')
    return start === undefined || end === undefined ? undefined : { start, end, precision: 'month' }
  }
  const start = dateArgumentInstant(iso(year, month, day), timeZone, 'start')
  if (start === undefined) return undefined
  const next = new Date(Date.UTC(year, month - 1, day + 1))
  const end = dateArgumentInstant(iso(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate()), timeZone, 'start')
  return end === undefined ? undefined : { start, end, precision: 'day' }
}
