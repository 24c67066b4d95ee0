/**
 * The endpoint breaker's pure core on a fake clock: it opens after the failures in a row the policy names, skips
 * while it cools down, lets exactly one trial through when the period ends, closes on the trial's answer and opens
 * again for twice the period (up to the cap) on its failure; an answer in a wrong shape counts as an answer, a
 * cancelled call as nothing.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  admitCall,
  CLOSED,
  outcomeOf,
  settleCall,
  type BreakerPolicy,
  type BreakerState,
  type CallOutcome,
} from '../src/semantic/breaker.ts'
import { FakeClock } from './helpers/fake-clock.ts'

const POLICY: BreakerPolicy = { failuresToOpen: 3, baseCoolingMs: 1_000, maxCoolingMs: 3_000 }

/** A breaker driven on a fake clock, as the gateway shell drives it. */
function driven(policy = POLICY): {
  clock: FakeClock
  admit: () => string
  settle: (outcome: CallOutcome) => void
  state: () => BreakerState
} {
  const clock = new FakeClock()
  let state: BreakerState = CLOSED
  return {
    clock,
    admit() {
      const decision = admitCall(state, clock.now())
      state = decision.state
      return decision.admission
    },
    settle(outcome) {
      state = settleCall(state, outcome, clock.now(), policy)
    },
    state: () => state,
  }
}

const failed = (at = 0): CallOutcome => ({
  kind: 'failed',
  error: { code: 'timeout', message: 'no answer within 600 ms', at },
})
const answered: CallOutcome = { kind: 'answered' }

describe('the endpoint breaker', () => {
  it('stays closed below the threshold, and an answer resets the count', () => {
    const b = driven()
    for (let round = 0; round < 3; round += 1) {
      assert.equal(b.admit(), 'call')
      b.settle(failed())
      assert.equal(b.admit(), 'call')
      b.settle(failed())
      assert.equal(b.admit(), 'call')
      b.settle(answered)
      assert.equal(b.state().failures, 0)
    }
    assert.equal(b.state().kind, 'closed')
    assert.equal(b.state().lastError?.code, 'timeout', 'the last error is kept for status after the answer')
  })

  it('opens at the threshold and skips every call until the period ends, then lets exactly one trial through', () => {
    const b = driven()
    for (let n = 0; n < 3; n += 1) {
      assert.equal(b.admit(), 'call')
      b.settle(failed())
    }
    const opened = b.state()
    assert.equal(opened.kind, 'open')
    assert.equal(opened.kind === 'open' ? opened.until : 0, b.clock.now() + 1_000)
    assert.equal(b.admit(), 'skip')
    b.clock.advance(999)
    assert.equal(b.admit(), 'skip')
    b.clock.advance(1)
    assert.equal(b.admit(), 'trial')
    assert.equal(b.state().kind, 'trying')
    assert.equal(b.admit(), 'skip', 'a second call waits for the trial to settle')
    b.settle(answered)
    assert.deepEqual(b.state(), { kind: 'closed', failures: 0, lastError: opened.lastError })
    assert.equal(b.admit(), 'call')
  })

  it('a failed trial opens it for twice the period, capped, and an answer after a trial starts again from the base', () => {
    const b = driven()
    for (let n = 0; n < 3; n += 1) b.settle(failed())
    const periods: number[] = []
    for (let n = 0; n < 4; n += 1) {
      const state = b.state()
      assert.equal(state.kind, 'open')
      if (state.kind !== 'open') return
      periods.push(state.coolingMs)
      b.clock.advance(state.coolingMs)
      assert.equal(b.admit(), 'trial')
      b.settle(failed(b.clock.now()))
    }
    assert.deepEqual(periods, [1_000, 2_000, 3_000, 3_000])
    assert.equal(b.state().failures, 7)
    const state = b.state()
    b.clock.advance(state.kind === 'open' ? state.coolingMs : 0)
    assert.equal(b.admit(), 'trial')
    b.settle(answered)
    for (let n = 0; n < 3; n += 1) b.settle(failed())
    const reopened = b.state()
    assert.equal(reopened.kind === 'open' ? reopened.coolingMs : -1, 1_000)
  })

  it('a cancelled trial leaves it open with its period over, so the next call is a trial again', () => {
    const b = driven()
    for (let n = 0; n < 3; n += 1) b.settle(failed())
    b.clock.advance(1_000)
    assert.equal(b.admit(), 'trial')
    b.settle({ kind: 'inconclusive' })
    assert.equal(b.state().kind, 'open')
    assert.equal(b.admit(), 'trial')
  })

  it('a late failure of a call admitted before it opened counts without moving the period', () => {
    const b = driven()
    for (let n = 0; n < 3; n += 1) b.settle(failed())
    const until = (b.state() as { until: number }).until
    b.clock.advance(500)
    b.settle(failed())
    assert.equal(b.state().failures, 4)
    assert.equal((b.state() as { until: number }).until, until)
  })

  it('reads an answer in a wrong shape as an answer, a cancellation as nothing, and no answer, no connection or an HTTP error as failures', () => {
    assert.deepEqual(outcomeOf({ ok: true }, 5), { kind: 'answered' })
    for (const code of ['bad_response', 'wrong_dimension', 'score_out_of_range'] as const)
      assert.equal(outcomeOf({ ok: false, code, message: '' }, 5).kind, 'answered', code)
    for (const code of ['cancelled', 'cooling_down'] as const)
      assert.equal(outcomeOf({ ok: false, code, message: '' }, 5).kind, 'inconclusive', code)
    for (const code of ['timeout', 'unreachable', 'http_error'] as const) {
      assert.deepEqual(outcomeOf({ ok: false, code, message: 'm' }, 5), {
        kind: 'failed',
        error: { code, message: 'm', at: 5 },
      })
    }
  })

  it('opens on the first failure when the policy says one', () => {
    const b = driven({ ...POLICY, failuresToOpen: 1 })
    b.settle(failed())
    assert.equal(b.admit(), 'skip')
  })
})
