/**
 * Pure: where a text spells out a calendar date, and which date. Written forms read: `2026-11-24`, `2026/11/24`,
 * `2026年11月24日` (or `号`), `24 Nov 2026`, `24th of November, 2026`, `Nov 24, 2026`, and months with their year
 * (`November 2026`, `2026年11月`, `2026-11`); on request also an ISO timestamp (`2026-11-24T02:00:13Z`), read as
 * the one date it names. A month or a day needs its year. Forms whose reading is a guess are never read: `20261124`
 * (as often a build number or an id), `2026.11.24` (a calendar version), `11/24/2026` and `24.11.2026` (day and
 * month order differ between countries).
 */
import { overlapsAny } from './spans.ts'

/** One date a text spells out. */
export interface DateMention {
  /** Where the mention starts, in UTF-16 units of the text as given. */
  readonly index: number
  readonly length: number
  readonly year: number
  readonly month: number
  /** The day of the month; undefined when the mention names a whole month. */
  readonly day: number | undefined
  /** The time of day of a timestamp, as written (`02:00:13Z`), or undefined. */
  readonly time: string | undefined
  /** Whether the calendar holds it: a year from 1900 to 2999, a month that exists, a day that month has, a time of day. */
  readonly valid: boolean
}

/** Which optional forms to read. */
export interface MentionForms {
  /** Read an ISO timestamp as one mention (off: its date part is not read either, being glued to the time). */
  readonly timestamps?: boolean
}

/** The English month names, January first, lower case: the one list every reader of month names takes. */
export const MONTH_NAMES: readonly string[] = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
]
const MONTH =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)'
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?'
const YEAR = '(\\d{4})'

type Parts = readonly [
  year: string | undefined,
  month: string | undefined,
  day: string | undefined,
  time: string | undefined,
]

interface Pattern {
  readonly regex: RegExp
  readonly parts: (match: RegExpExecArray) => Parts
}

const TIMESTAMP: Pattern = {
  regex: /\b(\d{4})-(\d{2})-(\d{2})T(\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)\b/gu,
  parts: (m) => [m[1], m[2], m[3], m[4]],
}

/** The forms in the order they claim text: a mention another one already covers is not read again. */
const PATTERNS: readonly Pattern[] = [
  { regex: /\b(\d{4})-(\d{2})-(\d{2})\b/gu, parts: (m) => [m[1], m[2], m[3], undefined] },
  { regex: /\b(\d{4})\/(\d{1,2})\/(\d{1,2})\b/gu, parts: (m) => [m[1], m[2], m[3], undefined] },
  { regex: /(\d{4})\s*年\s*(\d{1,2})\s*月(?:\s*(\d{1,2})\s*[日号])?/gu, parts: (m) => [m[1], m[2], m[3], undefined] },
  {
    regex: new RegExp(`\\b${DAY}(?:\\s+of)?\\s+${MONTH}\\.?,?\\s+${YEAR}\\b`, 'giu'),
    parts: (m) => [m[3], monthNumber(m[2]), m[1], undefined],
  },
  {
    regex: new RegExp(`\\b${MONTH}\\.?\\s+${DAY},?\\s+${YEAR}\\b`, 'giu'),
    parts: (m) => [m[3], monthNumber(m[1]), m[2], undefined],
  },
  {
    regex: new RegExp(`\\b${MONTH}\\.?,?\\s+(?:of\\s+)?${YEAR}\\b`, 'giu'),
    parts: (m) => [m[2], monthNumber(m[1]), undefined, undefined],
  },
  { regex: /\b(\d{4})-(\d{2})\b(?!-\d)/gu, parts: (m) => [m[1], m[2], undefined, undefined] },
]

/**
 * The dates a text spells out, in the order they appear. Overlapping mentions keep the first form that claimed the
 * text, so "3 June 2023" is one day, not also the month "June 2023". A mention the calendar does not hold
 * ("31 February 2023") still takes its span, marked not valid, so no less precise reading is made of it.
 * @param text - the text (callers that fold width or case do so first; indexes refer to the text as given).
 * @param forms - optional forms to read.
 * @returns the mentions.
 */
export function dateMentions(text: string, forms: MentionForms = {}): DateMention[] {
  const found: DateMention[] = []
  for (const { regex, parts } of forms.timestamps === true ? [TIMESTAMP, ...PATTERNS] : PATTERNS) {
    for (const match of text.matchAll(regex)) {
      const index = match.index ?? 0
      const length = match[0].length
      if (overlapsAny(found, index, length)) continue
      const [year, month, day, time] = parts(match as RegExpExecArray)
      const mention = {
        index,
        length,
        year: Number(year),
        month: Number(month),
        day: day === undefined ? undefined : Number(day),
        time,
      }
      found.push({ ...mention, valid: holds(mention) })
    }
  }
  return found.sort((a, b) => a.index - b.index)
}

function monthNumber(name: string | undefined): string | undefined {
  if (name === undefined) return undefined
  const index = MONTH_NAMES.findIndex((month) => month.startsWith(name.toLowerCase().slice(0, 3)))
  return index < 0 ? undefined : String(index + 1)
}

function holds(mention: Omit<DateMention, 'valid'>): boolean {
  const { year, month, day, time } = mention
  if (!Number.isInteger(year) || year < 1900 || year > 2999 || !(month >= 1 && month <= 12)) return false
  if (day !== undefined) {
    const date = new Date(Date.UTC(year, month - 1, day))
    if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return false
  }
  if (time === undefined) return true
  const [hours, minutes, seconds] = time.split(/[:Z+-]/u).map(Number)
  return hours !== undefined && hours < 24 && minutes !== undefined && minutes < 60 && (seconds ?? 0) < 61
}
