/**
 * The one-hop tree's centre field, DOM-free: a subject the user is typing outlives any read that lands meanwhile;
 * Enter, leaving the field or Escape end the draft, and after Enter the field keeps the subject until its tree is
 * drawn. The browser half is in page-nebula-browser.spec.ts.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { centreFieldText, draftAfter } from '../client/centre-field.ts'

describe('the tree centre field', () => {
  it('shows what the user is typing over the drawn centre and the one asked for', () => {
    assert.equal(
      centreFieldText({ draft: 'Bob Ma', drawn: 'billing-api', asked: undefined, askedIsDrawn: false }),
      'Bob Ma',
      'a default tree landing mid-typing leaves the draft',
    )
    assert.equal(
      centreFieldText({ draft: '', drawn: 'billing-api', asked: 'billing-api', askedIsDrawn: true }),
      '',
      'an emptied field stays empty while edited',
    )
  })

  it('shows the subject asked for while its tree is on its way, never the old centre', () => {
    assert.equal(
      centreFieldText({ draft: undefined, drawn: 'billing-api', asked: 'Bob Martinez', askedIsDrawn: false }),
      'Bob Martinez',
    )
  })

  it('shows the drawn centre once its tree is drawn, else the subject asked for, else nothing', () => {
    assert.equal(
      centreFieldText({ draft: undefined, drawn: '王芳', asked: 'Wang Fang', askedIsDrawn: true }),
      '王芳',
      'an old name asked for shows as the name the tree is drawn under',
    )
    assert.equal(
      centreFieldText({ draft: undefined, drawn: 'billing-api', asked: undefined, askedIsDrawn: true }),
      'billing-api',
    )
    assert.equal(centreFieldText({ draft: undefined, drawn: undefined, asked: 'nobody', askedIsDrawn: true }), 'nobody')
    assert.equal(centreFieldText({ draft: undefined, drawn: undefined, asked: undefined, askedIsDrawn: true }), '')
  })

  it('keeps a draft through keystrokes and ends it at Enter, on leaving the field, and at Escape', () => {
    assert.equal(draftAfter({ kind: 'input', text: 'Bob' }), 'Bob')
    assert.equal(draftAfter({ kind: 'input', text: '' }), '')
    assert.equal(draftAfter({ kind: 'commit' }), undefined)
    assert.equal(draftAfter({ kind: 'put-back' }), undefined)
  })
})
