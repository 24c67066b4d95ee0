/** Pure date display: ISO UTC instants shown in the store's time zone, and as-of dates turned into instants. */

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
    formatters.set(timeZone, formatter)
  }
  return formatter
}

/**
 * Show an instant as `YYYY-MM-DD HH:mm` in a zone.
 * @param iso - ISO UTC instant.
 * @param timeZone - IANA zone.
 * @returns the local date and time.
 */
export function formatInstant(iso: string, timeZone: string): string {
  const parts = Object.fromEntries(
    formatterFor(timeZone)
      .formatToParts(new Date(iso))
      .map((part) => [part.type, part.value]),
  )
  return `${parts['year']}-${parts['month']}-${parts['day']} ${parts['hour']}:${parts['minute']}`
}

/**
 * Show an instant as `YYYY-MM-DD` in a zone.
 * @param iso - ISO UTC instant.
 * @param timeZone - IANA zone.
 * @returns the local date.
 */
export function formatDay(iso: string, timeZone: string): string {
  return formatInstant(iso, timeZone).slice(0, 10)
}

/**
 * Turn a date argument into an instant. A bare date is read in the given zone, as the start or the end of that
 * day ("as of Tuesday" includes everything recorded on Tuesday; "valid from Tuesday" starts at midnight); a full
 * timestamp is taken as written, UTC unless it carries an offset.
 * @param text - `YYYY-MM-DD` or an ISO timestamp.
 * @param timeZone - the zone a bare date is read in.
 * @param edge - which end of a bare date.
 * @returns the ISO UTC instant, or `undefined` when the text is not a date.
 */
export function dateArgumentInstant(text: string, timeZone: string, edge: 'start' | 'end'): string | undefined {
  const trimmed = text.trim()
  const day = /^(\d{4})-(\d{2})-(\d{2})$/u.exec(trimmed)
  if (day !== null) {
    const utcGuess = calendarUtc(Number(day[1]), Number(day[2]), Number(day[3]), edge)
    if (utcGuess === undefined) return undefined
    // Shift by the zone's offset at that moment so the wall-clock time is local.
    const [localDay, localTime] = formatInstant(new Date(utcGuess).toISOString(), timeZone).split(' ')
    const offsetMs = Date.parse(`${localDay}T${localTime}:00Z`) - Math.floor(utcGuess / 60_000) * 60_000
    return new Date(utcGuess - offsetMs).toISOString()
  }
  const stamp = /^(\d{4})-(\d{2})-(\d{2})[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/u.exec(trimmed)
  if (stamp === null || calendarUtc(Number(stamp[1]), Number(stamp[2]), Number(stamp[3]), 'start') === undefined)
    return undefined
  const normalized = trimmed.replace(' ', 'T')
  const parsed = Date.parse(/(?:Z|[+-]\d{2}:?\d{2})$/u.test(normalized) ? normalized : `${normalized}Z`)
  return Number.isNaN(parsed) ? undefined : new Date(parsed).toISOString()
}

/** Epoch ms of the start or end of a calendar day in UTC, or undefined when the day does not exist. */
function calendarUtc(year: number, month: number, date: number, edge: 'start' | 'end'): number | undefined {
  if (month < 1 || month > 12 || date < 1 || date > 31) return undefined
  const instant = new Date(0)
  instant.setUTCFullYear(year, month - 1, date)
  if (edge === 'end') instant.setUTCHours(23, 59, 59, 999)
  else instant.setUTCHours(0, 0, 0, 0)
  const exists =
    instant.getUTCFullYear() === year && instant.getUTCMonth() === month - 1 && instant.getUTCDate() === date
  return exists ? instant.getTime() : undefined
}
