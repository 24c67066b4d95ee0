/**
 * The one-hop tree's centre field, DOM-free: from entering the field until leaving it, its text is the user's, so no
 * read that lands meanwhile writes into it (not even into an empty field before the first key); Escape puts the
 * centre back; once the user has left, the field shows the subject asked for until its tree is drawn. The browser
 * half is in page-nebula-browser.spec.ts.
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

  it('makes the text the user finds on entering the field theirs, so a centre landing before the first key is not shown', () => {
    const entered = draftAfter({ kind: 'focus', text: '' }, '')
    assert.equal(entered, '')
    assert.equal(
      centreFieldText({ draft: entered, drawn: 'billing-api', asked: undefined, askedIsDrawn: true }),
      '',
      'the default centre landed after the user entered the empty field',
    )
    assert.equal(draftAfter({ kind: 'focus', text: 'billing-api' }, 'billing-api'), 'billing-api')
  })

  it('keeps the draft through keystrokes and Enter, puts the centre back at Escape, and ends it on leaving the field', () => {
    assert.equal(draftAfter({ kind: 'input', text: 'Bob' }, 'billing-api'), 'Bob')
    assert.equal(draftAfter({ kind: 'input', text: '' }, 'billing-api'), '')
    assert.equal(
      draftAfter({ kind: 'commit', text: 'Wang Fang' }, '王芳'),
      'Wang Fang',
      'after Enter the field keeps what was typed while the user stays in it',
    )
    assert.equal(draftAfter({ kind: 'put-back' }, 'billing-api'), 'billing-api')
    assert.equal(draftAfter({ kind: 'leave' }, 'billing-api'), undefined)
  })
})
