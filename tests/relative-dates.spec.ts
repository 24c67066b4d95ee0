/**
 * Relative dates in a query, read against a fixed now in a store zone that is not UTC: the English and Chinese forms
 * as people write them, each as the window of local time it means (a day, an ISO week from Monday, a calendar month,
 * never past today), across a daylight-saving change, a month and a year boundary and a Monday; the forms that must
 * not be read; and the query's rest without them, so their numbers are not taken for identifiers.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { extractIdentifiers } from '../src/text/identifiers.ts'
import { queryDates, queryDateWindows } from '../src/text/query-dates.ts'
import { relativeDateMentions, relativeSpan } from '../src/text/relative-dates.ts'

const LA = 'America/Los_Angeles'
const SHANGHAI = 'Asia/Shanghai'
/** Tuesday 10 March 2026, 20:30 in Los Angeles (PDT since Sunday 8 March); already Wednesday 11 March in UTC. */
const LA_TUESDAY_EVENING = '2026-03-11T03:30:00.000Z'
/** Monday 2 March 2026, 01:00 in Shanghai; still Sunday 1 March in UTC. */
const SHANGHAI_MONDAY_NIGHT = Date.parse('2026-03-01T17:00:00.000Z')
/** Sunday 1 March 2026, 23:30 in Los Angeles (PST); already Monday 2 March in UTC. */
const LA_MARCH_FIRST_NIGHT = '2026-03-02T07:30:00.000Z'

type Span = [start: string, end: string, precision: string]
const spans = (query: string, timeZone: string, now: number | string): Span[] =>
  queryDateWindows(query, timeZone, now).map((window) => [window.start, window.end, window.precision])

/** Local midnights in Los Angeles in March 2026: PST (UTC-8) up to the 8th, PDT (UTC-7) from the 9th. */
const laMidnight = (day: number): string => `2026-03-${String(day).padStart(2, '0')}T0${day <= 8 ? 8 : 7}:00:00.000Z`
const laDay = (day: number): Span => [laMidnight(day), laMidnight(day + 1), 'day']

function assertReadings(
  table: readonly (readonly [query: string, expected: Span])[],
  timeZone: string,
  now: number | string,
): void {
  for (const [query, expected] of table) assert.deepEqual(spans(query, timeZone, now), [expected], query)
}

describe('relative dates in English', () => {
  it("reads the days back from today in the store zone's calendar, not UTC's", () => {
    assertReadings(
      [
        ['what did we change today', laDay(10)],
        ['what did we change yesterday', laDay(9)],
        ['the day before yesterday', laDay(8)],
        ['day before yesterday', laDay(8)],
        ['Yesterday', laDay(9)],
        ['TODAY', laDay(10)],
      ],
      LA,
      LA_TUESDAY_EVENING,
    )
  })

  it('reads "N days ago" with N in digits or words as that one calendar day', () => {
    assertReadings(
      [
        ['a day ago', laDay(9)],
        ['one day ago', laDay(9)],
        ['1 day ago', laDay(9)],
        ['two days ago', laDay(8)],
        ['3 days ago', laDay(7)],
        ['Three Days Ago', laDay(7)],
        ['what broke ten days ago?', ['2026-02-28T08:00:00.000Z', '2026-03-01T08:00:00.000Z', 'day']],
        ['30 days ago', ['2026-02-08T08:00:00.000Z', '2026-02-09T08:00:00.000Z', 'day']],
      ],
      LA,
      LA_TUESDAY_EVENING,
    )
  })

  it('reads this week from Monday up to the end of today, and last week as the whole week before, across the clock change', () => {
    assertReadings(
      [
        ['this week', [laMidnight(9), laMidnight(11), 'week']],
        ['last week', [laMidnight(2), laMidnight(9), 'week']],
        ['a week ago', [laMidnight(2), laMidnight(9), 'week']],
        ['1 week ago', [laMidnight(2), laMidnight(9), 'week']],
        ['two weeks ago', ['2026-02-23T08:00:00.000Z', laMidnight(2), 'week']],
      ],
      LA,
      LA_TUESDAY_EVENING,
    )
    const [lastWeek] = queryDateWindows('last week', LA, LA_TUESDAY_EVENING)
    assert.equal(
      (Date.parse(lastWeek?.end ?? '') - Date.parse(lastWeek?.start ?? '')) / 3_600_000,
      167,
      'the week the clocks went forward is an hour short',
    )
  })

  it('reads this month up to the end of today and last month as the calendar month before, on the 1st of March', () => {
    assertReadings(
      [
        ['this month', [laMidnight(1), laMidnight(2), 'month']],
        ['last month', ['2026-02-01T08:00:00.000Z', laMidnight(1), 'month']],
        ['today', laDay(1)],
        ['yesterday', ['2026-02-28T08:00:00.000Z', laMidnight(1), 'day']],
      ],
      LA,
      LA_MARCH_FIRST_NIGHT,
    )
    assert.deepEqual(spans('last month', 'UTC', '2026-01-15T12:00:00.000Z'), [
      ['2025-12-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 'month'],
    ])
  })

  it('reads this week on a Monday as that Monday alone', () => {
    assertReadings(
      [
        ['this week', ['2026-03-01T16:00:00.000Z', '2026-03-02T16:00:00.000Z', 'week']],
        ['last week', ['2026-02-22T16:00:00.000Z', '2026-03-01T16:00:00.000Z', 'week']],
      ],
      SHANGHAI,
      SHANGHAI_MONDAY_NIGHT,
    )
  })

  it('reads a possessive as the date itself', () => {
    assertReadings(
      [
        ["what failed in today's build", laDay(10)],
        ["yesterday's deploy", laDay(9)],
        ["this week's releases", [laMidnight(9), laMidnight(11), 'week']],
      ],
      LA,
      LA_TUESDAY_EVENING,
    )
  })

  it('reads no date from a count without "ago", "ago" without a count, a vague count, or a word that only contains one', () => {
    for (const query of [
      'days ago',
      'weeks ago',
      'a few days ago',
      'many days ago',
      '3 days',
      'every 2 weeks',
      'a weekday',
      'this weekday',
      'todays',
      'yesterdays',
      'monthly',
      'last weekend',
      '0 days ago',
      '1000 days ago',
    ]) {
      assert.deepEqual(queryDateWindows(query, LA, LA_TUESDAY_EVENING), [], query)
    }
  })
})

describe('relative dates in Chinese', () => {
  it('reads 今天, 昨天, 前天 and N天前 with digits or Chinese numerals as one calendar day', () => {
    const shanghaiDay = (month: number, day: number): Span => {
      const start = Date.UTC(2026, month - 1, day) - 8 * 3_600_000
      return [new Date(start).toISOString(), new Date(start + 86_400_000).toISOString(), 'day']
    }
    assertReadings(
      [
        ['今天部署了什么', shanghaiDay(3, 2)],
        ['今日', shanghaiDay(3, 2)],
        ['昨天改了什么', shanghaiDay(3, 1)],
        ['昨日', shanghaiDay(3, 1)],
        ['前天', shanghaiDay(2, 28)],
        ['大前天', shanghaiDay(2, 27)],
        ['三天前', shanghaiDay(2, 27)],
        ['3天前', shanghaiDay(2, 27)],
        ['３ 天前', shanghaiDay(2, 27)],
        ['两天以前', shanghaiDay(2, 28)],
        ['十天前', shanghaiDay(2, 20)],
        ['十二天之前', shanghaiDay(2, 18)],
        ['二十天前', shanghaiDay(2, 10)],
        ['二十三天前', shanghaiDay(2, 7)],
        ['三天前天气很好', shanghaiDay(2, 27)],
      ],
      SHANGHAI,
      SHANGHAI_MONDAY_NIGHT,
    )
  })

  it('reads 本周 and its other spellings up to the end of today, 上周 and N周前 as whole weeks, across the clock change', () => {
    const thisWeek: Span = [laMidnight(9), laMidnight(11), 'week']
    const lastWeek: Span = [laMidnight(2), laMidnight(9), 'week']
    assertReadings(
      [
        ['本周', thisWeek],
        ['这周', thisWeek],
        ['这个星期', thisWeek],
        ['本星期', thisWeek],
        ['这周改了什么', thisWeek],
        ['上周', lastWeek],
        ['上个星期', lastWeek],
        ['上星期', lastWeek],
        ['上星期五', lastWeek],
        ['一周前', lastWeek],
        ['两周前', ['2026-02-23T08:00:00.000Z', laMidnight(2), 'week']],
        ['2个星期前', ['2026-02-23T08:00:00.000Z', laMidnight(2), 'week']],
        ['三个星期前', ['2026-02-16T08:00:00.000Z', '2026-02-23T08:00:00.000Z', 'week']],
      ],
      LA,
      LA_TUESDAY_EVENING,
    )
  })

  it("reads 本月 and 上个月 on the 1st of March, in Shanghai's calendar", () => {
    const now = Date.parse('2026-02-28T17:00:00.000Z')
    assertReadings(
      [
        ['本月', ['2026-02-28T16:00:00.000Z', '2026-03-01T16:00:00.000Z', 'month']],
        ['这个月', ['2026-02-28T16:00:00.000Z', '2026-03-01T16:00:00.000Z', 'month']],
        ['上个月', ['2026-01-31T16:00:00.000Z', '2026-02-28T16:00:00.000Z', 'month']],
        ['上月', ['2026-01-31T16:00:00.000Z', '2026-02-28T16:00:00.000Z', 'month']],
      ],
      SHANGHAI,
      now,
    )
  })

  it('reads no date from 周期, a vague count, a count without 前, or a numeral past 九十九 (never its last part alone)', () => {
    for (const query of [
      '本周期的发布',
      '上周期',
      '几天前',
      '三天',
      '每两周',
      '星期五',
      '一百二十天前',
      '三百天前',
      '两千天前',
    ]) {
      assert.deepEqual(queryDateWindows(query, SHANGHAI, SHANGHAI_MONDAY_NIGHT), [], query)
    }
  })
})

describe('relative dates beside absolute ones', () => {
  it('reads both kinds in the order they appear, each window once', () => {
    assert.deepEqual(spans('between 2026-03-01 and yesterday', LA, LA_TUESDAY_EVENING), [laDay(1), laDay(9)])
    assert.deepEqual(spans('today, 今天 and 2026-03-10', LA, LA_TUESDAY_EVENING), [laDay(10)])
  })

  it('reads no relative date without a now, as before', () => {
    assert.deepEqual(queryDateWindows('what did we change yesterday', LA), [])
    assert.deepEqual(queryDateWindows('what did we change yesterday', LA, 'not an instant'), [])
    assert.equal(queryDates('port 8123 12 days ago', LA).rest, 'port 8123 12 days ago')
  })

  it('hands back the query without the relative dates, so their numbers are not taken for identifiers', () => {
    const english = queryDates('port 8123 12 days ago', LA, LA_TUESDAY_EVENING).rest
    assert.equal(english.replace(/\s+/gu, ' ').trim(), 'port 8123')
    assert.deepEqual(extractIdentifiers(english), ['8123'])
    assert.equal(queryDates('12天前 端口 7801', SHANGHAI, SHANGHAI_MONDAY_NIGHT).rest.trim(), '端口 7801')
  })
})

describe('relativeSpan', () => {
  it('counts calendar days, weeks from Monday and months across a year boundary', () => {
    assert.deepEqual(relativeSpan({ unit: 'week', ago: 0 }, '2026-01-01'), {
      start: '2025-12-29',
      end: '2026-01-02',
      precision: 'week',
    })
    assert.deepEqual(relativeSpan({ unit: 'week', ago: 1 }, '2026-01-04'), {
      start: '2025-12-22',
      end: '2025-12-29',
      precision: 'week',
    })
    assert.deepEqual(relativeSpan({ unit: 'day', ago: 1 }, '2024-03-01'), {
      start: '2024-02-29',
      end: '2024-03-01',
      precision: 'day',
    })
    assert.deepEqual(relativeSpan({ unit: 'month', ago: 1 }, '2026-03-31'), {
      start: '2026-02-01',
      end: '2026-03-01',
      precision: 'month',
    })
  })

  it('names no span for a today that is not a calendar date', () => {
    assert.equal(relativeSpan({ unit: 'day', ago: 0 }, '2026-02-30'), undefined)
    assert.equal(relativeSpan({ unit: 'day', ago: 0 }, 'today'), undefined)
  })

  it('reports where each mention is, so the caller can blank it', () => {
    assert.deepEqual(relativeDateMentions('ran 3 days ago, 上周也跑过'), [
      { index: 4, length: 10, unit: 'day', ago: 3 },
      { index: 16, length: 2, unit: 'week', ago: 1 },
    ])
  })
})
