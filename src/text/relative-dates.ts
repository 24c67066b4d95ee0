/**
 * Pure: where a text names a date relative to today, and which calendar days it means. English, case-insensitive
 * and whole-word: `today`, `yesterday`, `the day before yesterday`, `this week`, `last week`, `this month`,
 * `last month`, `N days ago`, `N weeks ago` (N in digits up to 999, or `a`/`an`/`one` to `twenty`, `thirty`).
 * Chinese: 今天/今日, 昨天/昨日, 前天, 大前天, 本周/这周/这个星期/本星期, 上周/上个星期/上星期, 本月/这个月,
 * 上个月/上月, N天前 (also N天以前, N天之前), N周前, N个星期前 (N in digits or Chinese numerals up to 九十九).
 * Vague counts ("a few days ago", "几天前") and a count without "ago" ("3 days") are not read.
 *
 * The days they mean, each a span of local calendar dates in the store's calendar, never reaching past today:
 * - a day back (`today`, `yesterday`, `N days ago`, 三天前): that one calendar day;
 * - `this week` (本周): Monday of the current ISO week (weeks start on Monday) up to the end of today;
 * - `last week` (上周), `N weeks ago` (N周前): the whole Monday-to-Sunday week N weeks before the current one, so
 *   `a week ago` is last week;
 * - `this month` (本月): the first of the month up to the end of today; `last month` (上个月): the previous
 *   calendar month.
 * A weekday after 上星期 or 这周 ("上星期五") is not read: the span is that whole week.
 */
import { overlapsAny } from './spans.ts'

/** A span of whole local calendar dates, as `YYYY-MM-DD`: start ≤ date < end. */
export interface CalendarSpan {
  readonly start: string
  readonly end: string
  /** The calendar unit the span was named by. */
  readonly precision: 'day' | 'week' | 'month'
}

/** One relative date a text names. */
export interface RelativeMention {
  /** Where the mention starts, in UTF-16 units of the text as given. */
  readonly index: number
  readonly length: number
  readonly unit: 'day' | 'week' | 'month'
  /** How many units back from the current one: 0 is today, this week or this month. */
  readonly ago: number
}

type Reading = Pick<RelativeMention, 'unit' | 'ago'>

interface Pattern {
  readonly regex: RegExp
  /** The reading of a match, or undefined when its count is not a number this module reads. */
  readonly reading: (match: RegExpExecArray) => Reading | undefined
}

const ENGLISH_COUNTS: Readonly<Record<string, number>> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
}
const ENGLISH_COUNT = `(\\d{1,3}|${Object.keys(ENGLISH_COUNTS).join('|')})`
const CHINESE_DIGITS: Readonly<Record<string, number>> = {
  一: 1,
  二: 2,
  两: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
}
const CHINESE_COUNT = '((?<!\\d)\\d{1,3}|(?<![一二两三四五六七八九十百千万零〇])[一二两三四五六七八九十]{1,3})'

const fixed = (unit: Reading['unit'], ago: number) => (): Reading => ({ unit, ago })
const counted =
  (unit: Reading['unit'], count: (text: string) => number | undefined) =>
  (match: RegExpExecArray): Reading | undefined => {
    const ago = count(match[1] ?? '')
    return ago === undefined || ago < 1 ? undefined : { unit, ago }
  }

/** The forms in the order they claim text: "the day before yesterday" before "yesterday", 三天前 before 前天. */
const PATTERNS: readonly Pattern[] = [
  { regex: /\b(?:the\s+)?day\s+before\s+yesterday\b/giu, reading: fixed('day', 2) },
  { regex: /\btoday\b/giu, reading: fixed('day', 0) },
  { regex: /\byesterday\b/giu, reading: fixed('day', 1) },
  { regex: /\bthis\s+week\b/giu, reading: fixed('week', 0) },
  { regex: /\blast\s+week\b/giu, reading: fixed('week', 1) },
  { regex: /\bthis\s+month\b/giu, reading: fixed('month', 0) },
  { regex: /\blast\s+month\b/giu, reading: fixed('month', 1) },
  { regex: new RegExp(`\\b${ENGLISH_COUNT}\\s+days?\\s+ago\\b`, 'giu'), reading: counted('day', englishCount) },
  { regex: new RegExp(`\\b${ENGLISH_COUNT}\\s+weeks?\\s+ago\\b`, 'giu'), reading: counted('week', englishCount) },
  { regex: new RegExp(`${CHINESE_COUNT}\\s*天[以之]?前`, 'gu'), reading: counted('day', chineseCount) },
  { regex: new RegExp(`${CHINESE_COUNT}\\s*(?:周|个?星期)[以之]?前`, 'gu'), reading: counted('week', chineseCount) },
  { regex: /今[天日]/gu, reading: fixed('day', 0) },
  { regex: /昨[天日]/gu, reading: fixed('day', 1) },
  { regex: /大前天/gu, reading: fixed('day', 3) },
  { regex: /前天/gu, reading: fixed('day', 2) },
  // 周期 is "a cycle": 本周期 is the current cycle, not this week.
  { regex: /(?:本|这个?)(?:周(?!期)|星期)/gu, reading: fixed('week', 0) },
  { regex: /上(?:周(?!期)|个?星期)/gu, reading: fixed('week', 1) },
  { regex: /(?:本|这个?)月/gu, reading: fixed('month', 0) },
  { regex: /上个?月/gu, reading: fixed('month', 1) },
]

/**
 * The relative dates a text names, in the order they appear. Overlapping forms keep the first that claimed the text.
 * @param text - the text (callers that fold width do so first; indexes refer to the text as given).
 * @returns the mentions.
 */
export function relativeDateMentions(text: string): RelativeMention[] {
  const found: RelativeMention[] = []
  for (const { regex, reading } of PATTERNS) {
    for (const match of text.matchAll(regex)) {
      const index = match.index ?? 0
      const length = match[0].length
      if (overlapsAny(found, index, length)) continue
      const read = reading(match as RegExpExecArray)
      if (read !== undefined) found.push({ index, length, ...read })
    }
  }
  return found.sort((a, b) => a.index - b.index)
}

/**
 * The calendar dates a relative mention means, read against today (see the module comment).
 * @param mention - the unit and how many back.
 * @param today - today's local date, `YYYY-MM-DD`.
 * @returns the span, or undefined when today is not a date or the span falls outside the years 1900 to 2999.
 */
export function relativeSpan(mention: Reading, today: string): CalendarSpan | undefined {
  const parts = /^(\d{4})-(\d{2})-(\d{2})$/u.exec(today)
  if (parts === null) return undefined
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])]
  const at = (y: number, m: number, d: number): Date => new Date(Date.UTC(y, m - 1, d))
  const now = at(year, month, day)
  if (now.getUTCFullYear() !== year || now.getUTCMonth() !== month - 1 || now.getUTCDate() !== day) return undefined
  const tomorrow = at(year, month, day + 1)
  let start: Date
  let end: Date
  switch (mention.unit) {
    case 'day':
      start = at(year, month, day - mention.ago)
      end = at(year, month, day - mention.ago + 1)
      break
    case 'week': {
      const monday = day - ((now.getUTCDay() + 6) % 7)
      start = at(year, month, monday - 7 * mention.ago)
      end = mention.ago === 0 ? tomorrow : at(year, month, monday - 7 * mention.ago + 7)
      break
    }
    case 'month':
      start = at(year, month - mention.ago, 1)
      end = mention.ago === 0 ? tomorrow : at(year, month - mention.ago + 1, 1)
      break
  }
  if (start.getUTCFullYear() < 1900 || end.getUTCFullYear() > 2999) return undefined
  return { start: isoDate(start), end: isoDate(end), precision: mention.unit }
}

function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10)
}

function englishCount(text: string): number | undefined {
  return /^\d+$/u.test(text) ? Number(text) : ENGLISH_COUNTS[text.toLowerCase()]
}

/** Digits, or a Chinese numeral from 一 to 九十九 (十, 十三, 二十, 二十三); anything else is not a count. */
function chineseCount(text: string): number | undefined {
  if (/^\d+$/u.test(text)) return Number(text)
  const tens = /^([一二两三四五六七八九]?)十([一二三四五六七八九]?)$/u.exec(text)
  if (tens === null) return text.length === 1 ? CHINESE_DIGITS[text] : undefined
  const high = tens[1] === undefined || tens[1] === '' ? 1 : CHINESE_DIGITS[tens[1]]
  const low = tens[2] === undefined || tens[2] === '' ? 0 : CHINESE_DIGITS[tens[2]]
  return high === undefined || low === undefined ? undefined : high * 10 + low
}
