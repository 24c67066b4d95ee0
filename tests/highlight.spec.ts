/** markMatches: the runs of a library row that the search box's words match, for <mark>. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { markMatches } from '../client/highlight.ts'

const marked = (text: string, query: string): string =>
  markMatches(text, query)
    .map((run) => (run.hit ? `[${run.text}]` : run.text))
    .join('')

describe('marking the words a search matched', () => {
  it('marks every occurrence of each word, ignoring case, and spells the text back unchanged', () => {
    assert.equal(marked('Billing-API runs billing jobs', 'billing'), '[Billing]-API runs [billing] jobs')
    assert.equal(marked('port 7801', 'PORT 7801'), '[port] [7801]')
    const runs = markMatches('小明 · 住在: 杭州', '杭州')
    assert.deepEqual(runs, [
      { text: '小明 · 住在: ', hit: false },
      { text: '杭州', hit: true },
    ])
    assert.equal(runs.map((run) => run.text).join(''), '小明 · 住在: 杭州')
  })

  it('joins overlapping and touching matches into one run', () => {
    assert.equal(marked('abcdef', 'abc cde'), '[abcde]f')
    assert.equal(marked('abcdef', 'ab cd'), '[abcd]ef')
  })

  it('marks nothing for a query without words or a word the text lacks', () => {
    assert.equal(marked('billing-api', '   '), 'billing-api')
    assert.equal(marked('billing-api', 'orders'), 'billing-api')
    assert.deepEqual(markMatches('', 'x'), [{ text: '', hit: false }])
  })

  it('leaves a text alone whose lower case changes its length, rather than mark the wrong letters', () => {
    assert.equal(marked('İstanbul office', 'office'), 'İstanbul office')
  })
})
