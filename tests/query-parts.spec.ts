/**
 * The pure parts a search reads out of a query: the dates it names (as windows of the store's calendar), the
 * stretches that may name a subject, its question terms (possessives and question-frame words), and the shared rank
 * that equal channel scores get in fusion.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { fuseRankings } from '../src/retrieval/fuse.ts'
import { subjectCandidates } from '../src/retrieval/subject-names.ts'
import { queryDates, queryDateWindows } from '../src/text/query-dates.ts'
import { queryTerms, questionTerms, searchTerms } from '../src/text/tokenize.ts'

const day = (windows: readonly { start: string; end: string }[]): string[][] =>
  windows.map((window) => [window.start, window.end])

describe('queryDateWindows', () => {
  it('reads a day written in the ways people write one', () => {
    const june3 = [['2023-06-03T00:00:00.000Z', '2023-06-04T00:00:00.000Z']]
    for (const query of [
      'what did Maria start, as mentioned on 3 June, 2023?',
      'on June 3, 2023',
      'June 3rd 2023',
      'the 3rd of June 2023',
      'on 2023-06-03',
      '2023/6/3',
      '2023年6月3日做了什么',
    ]) {
      assert.deepEqual(day(queryDateWindows(query, 'UTC')), june3, query)
    }
  })

  it('reads a month with its year as the whole month, December into January', () => {
    assert.deepEqual(day(queryDateWindows('What did John do in August 2023?', 'UTC')), [
      ['2023-08-01T00:00:00.000Z', '2023-09-01T00:00:00.000Z'],
    ])
    assert.deepEqual(day(queryDateWindows('as of December, 2023', 'UTC')), [
      ['2023-12-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z'],
    ])
    assert.deepEqual(day(queryDateWindows('2023年12月', 'UTC')), [
      ['2023-12-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z'],
    ])
    assert.equal(queryDateWindows('in August 2023', 'UTC')[0]?.precision, 'month')
  })

  it('keeps the most precise reading of one mention and every distinct mention, in order', () => {
    const windows = queryDateWindows('between 11 August 2023 and August 15, 2023', 'UTC')
    assert.deepEqual(
      windows.map((window) => [window.start.slice(0, 10), window.precision]),
      [
        ['2023-08-11', 'day'],
        ['2023-08-15', 'day'],
      ],
    )
  })

  it("means the store zone's calendar day", () => {
    assert.deepEqual(day(queryDateWindows('on 2026-11-24', 'Asia/Shanghai')), [
      ['2026-11-23T16:00:00.000Z', '2026-11-24T16:00:00.000Z'],
    ])
  })

  it('names no window for a month or day without its year, a bare year, a number or an impossible date', () => {
    for (const query of [
      'When did Melanie go camping in June?',
      'what happened in 2023',
      'the api runs on port 2023',
      'May I ask about the 3rd?',
      'on 31 February 2023',
      'version 2023-13-01',
      'in Movember 2023',
    ]) {
      assert.deepEqual(queryDateWindows(query, 'UTC'), [], query)
    }
  })

  it('hands back the query without the date it read, so its numbers are not taken for identifiers', () => {
    assert.equal(queryDates('port 8123 on 3 June, 2023?', 'UTC').rest.replace(/\s+/gu, ' '), 'port 8123 on ?')
  })
})

describe('subjectCandidates', () => {
  it('offers every run of up to four words, folded as subjects are', () => {
    const candidates = subjectCandidates('What port does the Billing-API service use?')
    assert.ok(candidates.includes('billing api'), candidates.join(' | '))
    assert.ok(candidates.includes('what port does the'))
    assert.ok(!candidates.includes('what port does the billing'), 'five words is longer than a name')
  })

  it('drops a possessive and finds names inside Chinese text and beside it', () => {
    assert.ok(subjectCandidates("What is Caroline's relationship status?").includes('caroline'))
    const zh = subjectCandidates('支付服务的端口是多少')
    assert.ok(zh.includes('支付'), 'a CJK role suffix is folded as in canonicalEntity')
    assert.ok(subjectCandidates('billing-api的端口').includes('billing api'))
  })

  it('offers at most 200 candidates however long the query', () => {
    assert.equal(subjectCandidates(Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ')).length, 200)
  })
})

describe('question terms', () => {
  it('reads a possessive as its owner alone', () => {
    assert.deepEqual(searchTerms("Melanie's kids and Caroline’s art"), ['melanie', 'kids', 'caroline', 'art'])
  })

  it('drops the words that frame a question from questions only, and keeps them when nothing else is left', () => {
    assert.deepEqual(questionTerms('What kind of art does Caroline make?', 32), ['art', 'caroline'])
    assert.deepEqual(
      queryTerms('What kind of art does Caroline make?', 32),
      ['kind', 'art', 'caroline', 'make'],
      'a filter keeps every word typed',
    )
    assert.deepEqual(questionTerms('how many kinds', 32), ['many', 'kinds'])
  })
})

describe('fusion of equal channel scores', () => {
  it('gives ids with equal scores one shared rank, so they fuse to the same score', () => {
    const fused = fuseRankings([{ channel: 'bm25', ids: [3, 7, 9], scores: [2.5, 2.5, 1] }])
    assert.deepEqual(
      fused.map((entry) => [entry.id, entry.score, entry.bestRank]),
      [
        [7, 1 / 61, 1],
        [3, 1 / 61, 1],
        [9, 1 / 63, 3],
      ],
    )
  })

  it('ranks every id on its own without scores', () => {
    assert.deepEqual(
      fuseRankings([{ channel: 'bm25', ids: [3, 7] }]).map((entry) => entry.bestRank),
      [1, 2],
    )
  })
})
