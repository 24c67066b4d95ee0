/** The settings card's sentence for one near-duplicate sweep ("Find near-duplicates"). */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { sweepProgressWords, sweepWords, type RunningSweepWire, type SweepWire } from '../client/sweep-words.ts'

const base: SweepWire = {
  outcome: 'swept',
  candidates: 0,
  remembered: 0,
  asked: 0,
  distinct: 0,
  unanswered: 0,
  deferred: 0,
  proposalIds: [],
  note: null,
}

describe('sweepWords', () => {
  it('says what a sweep did, in one sentence', () => {
    assert.equal(sweepWords(base), 'No near-duplicates found.')
    assert.equal(
      sweepWords({ ...base, candidates: 3, asked: 3, distinct: 2, proposalIds: [7] }),
      'Asked about 3 pairs: 1 merge proposed (see Proposals), 2 distinct.',
    )
    assert.equal(
      sweepWords({ ...base, candidates: 2, remembered: 2 }),
      'Nothing new to ask: 2 pairs were judged before.',
    )
    assert.equal(
      sweepWords({
        ...base,
        outcome: 'deferred',
        candidates: 1,
        deferred: 1,
        note: 'no usable model: the host offers no model service',
      }),
      '1 pair waits for the next sweep (no usable model: the host offers no model service).',
    )
    assert.equal(
      sweepWords({ ...base, candidates: 1, asked: 1, unanswered: 1 }),
      'Asked about 1 pair: 1 without a usable answer.',
    )
  })
})

describe('sweepProgressWords', () => {
  const running: RunningSweepWire = {
    trigger: 'asked',
    startedAt: '2026-03-01T09:00:00.000Z',
    budget: 24,
    planned: 0,
    asked: 0,
    proposals: 0,
  }
  it('says what a background sweep is doing, and whose it is', () => {
    assert.equal(sweepProgressWords(running), 'Looking for near-duplicates: gathering pairs…')
    assert.equal(
      sweepProgressWords({ ...running, planned: 3, asked: 1 }),
      'Looking for near-duplicates: 1 of 3 pairs asked so far…',
    )
    assert.equal(
      sweepProgressWords({ ...running, planned: 1, asked: 1, proposals: 1 }),
      'Looking for near-duplicates: 1 of 1 pair asked, 1 merge proposed so far…',
    )
    assert.equal(
      sweepProgressWords({ ...running, trigger: 'timer', planned: 2, asked: 0 }),
      'The scheduled near-duplicate sweep is running: 0 of 2 pairs asked so far…',
    )
  })
})
