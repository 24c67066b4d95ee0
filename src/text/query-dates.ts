/**
 * Pure: the calendar dates a query names ("on 3 June, 2023", "June 3rd 2023", "in August 2023", "2026-11-24",
 * "2023年6月3日"), each as the window of local time it covers in the store's zone. A month or a day needs its year:
 * "in June" or "on the 3rd" name no window, and a bare year ("2023") is left to the word and identifier channels,
 * since it may as well be a port or a count.
 */
import { dateMentions } from './date-mentions.ts'
import { dateArgumentInstant } from './dates.ts'

/** A span of time a query names, as ISO UTC instants: start ≤ t < end. */
export interface DateWindow {
  readonly start: string
  readonly end: string
  /** How much of the calendar the query pinned down. */
  readonly precision: 'day' | 'month'
}

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
  const found = dateMentions(text).map((mention) => ({
    index: mention.index, length: mention.length, window: windowOf(mention.year, mention.month, mention.day, timeZone),
  }))
  const seen = new Set<string>()
  let rest = text
  for (const entry of [...found].reverse()) rest = `${rest.slice(0, entry.index)} ${rest.slice(entry.index + entry.length)}`
  const windows = found.flatMap((entry) => (entry.window === undefined ? [] : [entry.window])).filter((window) => {
    const key = `${window.start}/${window.end}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
  return { windows, rest }
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
