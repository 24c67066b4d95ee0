/** The words and counts around per-turn recall: the turn card's opening, the settings card's line, and recall folded into a conversation's counts. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { recallCostLine, turnCardParts } from '../client/recall-words.ts'
import { withRecalls } from '../src/management/session-recalls.ts'

describe("the turn card's opening", () => {
  it('says what was recalled first, then what was written; a turn that only recalled says only that', () => {
    assert.deepEqual(turnCardParts(1, 3), ['3 facts recalled', 'this turn wrote 1 fact'])
    assert.deepEqual(turnCardParts(0, 1), ['1 fact recalled'])
    assert.deepEqual(turnCardParts(2, 0), ['this turn wrote 2 facts'])
    assert.deepEqual(turnCardParts(0, 0), ['this turn wrote 0 facts'])
  })
})

describe("the settings card's line on recall", () => {
  const base = { on: true, budgetChars: 1200, maxFacts: 6, recent: null }
  it('names the setting, and the recent cost once there is one', () => {
    assert.equal(
      recallCostLine(base),
      'Per-turn recall: up to 6 facts and 1,200 characters with each message; nothing recalled yet.',
    )
    assert.equal(
      recallCostLine({
        ...base,
        recent: { turns: 40, withBlock: 12, factsPerTurn: 0.9, charsPerTurn: 310, p95Ms: 7.5 },
      }),
      'Per-turn recall: up to 6 facts and 1,200 characters with each message; over the last 40 messages it added 0.9 facts and 310 characters on average (a block on 12 of 40), 95% within 7.5 ms.',
    )
    assert.match(recallCostLine({ ...base, on: false }), /^Per-turn recall is off \(recallBudgetTokens is 0\)/u)
  })
})

describe("recall folded into a conversation's counts", () => {
  const written = {
    sessionId: 's1',
    facts: 1,
    pending: 0,
    unsettled: 0,
    lastAt: '2026-03-01T09:00:00.000Z',
    turns: [{ turn: 2, facts: 1, pending: 0, unsettled: 0, factIds: [7] }],
  }
  it('adds the recalled facts to the turn that wrote, and a turn of its own to one that only recalled', () => {
    const merged = withRecalls(
      [written],
      new Map([
        [
          's1',
          new Map<number | null, number[]>([
            [1, [3, 4]],
            [2, [5]],
          ]),
        ],
      ]),
      ['s1'],
    )
    assert.deepEqual(
      merged[0]?.turns.map((turn) => [turn.turn, turn.facts, turn.recalled, turn.recalledIds]),
      [
        [1, 0, 2, [3, 4]],
        [2, 1, 1, [5]],
      ],
    )
  })
  it('lists an asked conversation that only recalled, and none that was not asked', () => {
    const recalled = new Map([
      ['s2', new Map<number | null, number[]>([[1, [9]]])],
      ['s3', new Map<number | null, number[]>([[1, [8]]])],
    ])
    const merged = withRecalls([], recalled, ['s2'])
    assert.deepEqual(
      merged.map((session) => [session.sessionId, session.facts, session.turns[0]?.recalled]),
      [['s2', 0, 1]],
    )
  })
})
