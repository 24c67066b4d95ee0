/**
 * The page's link in the URL's hash, in Node: which hashes open the page and on which tab, and which hash the URL
 * carries as the page opens, switches tabs and closes (page-browser.spec.ts follows it in a real browser).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { PageState } from '../client/app-state.ts'
import { linkedPage, pageLink } from '../client/page-link.ts'

const page = (open: boolean, tab: PageState['tab']): PageState => ({ open, tab, focusFact: null })

describe('a link to the Fact memory page', () => {
  it('opens the page on the tab it names', () => {
    assert.deepEqual(linkedPage('#fact-memory/library'), { tab: 'library' })
    assert.deepEqual(linkedPage('#fact-memory/proposals'), { tab: 'proposals' })
    assert.deepEqual(linkedPage('#fact-memory/graph'), { tab: 'graph' })
  })

  it('opens the page on its usual tab when it names none, or one the page does not have', () => {
    assert.deepEqual(linkedPage('#fact-memory'), { tab: undefined })
    assert.deepEqual(linkedPage('#fact-memory/'), { tab: undefined })
    assert.deepEqual(linkedPage('#fact-memory/settings'), { tab: undefined })
    assert.deepEqual(linkedPage('#fact-memory/%E0%A4%A'), { tab: undefined })
  })

  it('is not any other hash', () => {
    for (const hash of ['', '#', '#library', '#fact-memorial', '#other/fact-memory/library'])
      assert.equal(linkedPage(hash), null, hash)
  })
})

describe('the hash the page keeps', () => {
  it('names the open tab, and is left alone when it already does', () => {
    assert.equal(pageLink(page(true, 'library'), ''), '#fact-memory/library')
    assert.equal(pageLink(page(true, 'conflicts'), '#fact-memory/library'), '#fact-memory/conflicts')
    assert.equal(pageLink(page(true, 'graph'), '#fact-memory'), '#fact-memory/graph')
    assert.equal(pageLink(page(true, 'library'), '#fact-memory/library'), null)
  })

  it('is cleared when the page closes, and a hash that is not its own is left alone', () => {
    assert.equal(pageLink(page(false, 'library'), '#fact-memory/library'), '')
    assert.equal(pageLink(page(false, 'library'), '#fact-memory'), '')
    assert.equal(pageLink(page(false, 'library'), '#somewhere-else'), null)
    assert.equal(pageLink(page(false, 'library'), ''), null)
  })
})
