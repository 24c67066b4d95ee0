/**
 * Pure: the calendar dates a query names, each as the window of local time it covers in the store's zone. Absolute
 * dates ("on 3 June, 2023", "June 3rd 2023", "in August 2023", "2026-11-24", "2023年6月3日", see date-mentions.ts)
 * need their year: "in June" or "on the 3rd" name no window, and a bare year ("2023") is left to the word and
 * identifier channels, since it may as well be a port or a count. Dates relative to now ("yesterday", "3 days ago",
 * "last week", "上个月", "三天前", see relative-dates.ts) are read against the local calendar date of a given instant.
 */
import { dateMentions } from './date-mentions.ts'
import { dateArgumentInstant, formatDay } from './dates.ts'
import { relativeDateMentions, relativeSpan, type CalendarSpan } from './relative-dates.ts'

/** A span of time a query names, as ISO UTC instants: start ≤ t < end. */
export interface DateWindow {
  readonly start: string
  readonly end: string
  /** How much of the calendar the query pinned down. */
  readonly precision: 'day' | 'week' | 'month'
}

/**
 * The date windows a query names, in the order they appear, each once. Overlapping mentions keep the most precise
 * reading ("3 June 2023" is a day, not also the month "June 2023").
 * @param query - the query text.
 * @param timeZone - IANA zone whose calendar days the dates mean.
 * @param now - the instant relative dates are read against (epoch ms or ISO instant); without it they are not read.
 * @returns the windows; empty when the query names no full date.
 */
export function queryDateWindows(query: string, timeZone: string, now?: number | string): DateWindow[] {
  return queryDates(query, timeZone, now).windows
}

/**
 * The date windows a query names, and the query with those date expressions blanked out (so their numbers are not
 * also read as identifiers). A relative date that overlaps an absolute one is not read.
 * @param query - the query text.
 * @param timeZone - IANA zone whose calendar days the dates mean.
 * @param now - the instant relative dates are read against (epoch ms or ISO instant); without it, or when it is not
 *   an instant, they are neither read nor blanked.
 * @returns the windows and the remaining text.
 */
export function queryDates(
  query: string,
  timeZone: string,
  now?: number | string,
): { windows: DateWindow[]; rest: string } {
  const text = query.normalize('NFKC')
  const absolute = dateMentions(text).map((mention) => ({
    index: mention.index,
    length: mention.length,
    window: windowOf(mention.year, mention.month, mention.day, timeZone),
  }))
  const today = now === undefined ? undefined : localDate(now, timeZone)
  const relative =
    today === undefined
      ? []
      : relativeDateMentions(text)
          .filter(
            (mention) =>
              !absolute.some(
                (other) => mention.index < other.index + other.length && other.index < mention.index + mention.length,
              ),
          )
          .map((mention) => {
            const span = relativeSpan(mention, today)
            return {
              index: mention.index,
              length: mention.length,
              window: span === undefined ? undefined : spanWindow(span, timeZone),
            }
          })
  const found = [...absolute, ...relative].sort((a, b) => a.index - b.index)
  const seen = new Set<string>()
  let rest = text
  for (const entry of [...found].reverse())
    rest = `${rest.slice(0, entry.index)} ${rest.slice(entry.index + entry.length)}`
  const windows = found
    .flatMap((entry) => (entry.window === undefined ? [] : [entry.window]))
    .filter((window) => {
      const key = `${window.start}/${window.end}`
      if (seen.has(key)) return false
      seen.add(key)
      return true
    })
  return { windows, rest }
}

/** The local calendar date of an instant in a zone, or undefined when it is not an instant. */
function localDate(now: number | string, timeZone: string): string | undefined {
  const ms = typeof now === 'number' ? now : Date.parse(now)
  return Number.isFinite(ms) ? formatDay(new Date(ms).toISOString(), timeZone) : undefined
}

function windowOf(year: number, month: number, day: number | undefined, timeZone: string): DateWindow | undefined {
  if (!Number.isInteger(year) || year < 1900 || year > 2999 || !(month >= 1 && month <= 12)) return undefined
  const iso = (y: number, m: number, d: number): string =>
    `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`
  if (day === undefined) {
    return spanWindow(
      {
        start: iso(year, month, 1),
        end: month === 12 ? iso(year + 1, 1, 1) : iso(year, month + 1, 1),
        precision: 'month',
      },
      timeZone,
    )
  }
  const next = new Date(Date.UTC(year, month - 1, day + 1))
  return spanWindow(
    {
      start: iso(year, month, day),
      end: iso(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate()),
      precision: 'day',
    },
    timeZone,
  )
}

/** A span of local calendar dates as instants: from the start of its first date to the start of its end date. */
function spanWindow(span: CalendarSpan, timeZone: string): DateWindow | undefined {
  const start = dateArgumentInstant(span.start, timeZone, 'start')
  const end = dateArgumentInstant(span.end, timeZone, 'start')
  return start === undefined || end === undefined ? undefined : { start, end, precision: span.precision }
}
