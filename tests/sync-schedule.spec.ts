/**
 * The sync schedule's pure policy: a round is due at start and on request at once; after writes once they pause,
 * but no later than the longest wait; on the timer from the last round; while failing only at the retry, whose wait
 * doubles with jitter up to a cap and resets on success; and never while a round is in flight.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  backoffDelay,
  DEFAULT_SCHEDULE,
  INITIAL_SCHEDULE,
  nextRoundAt,
  noteWrite,
  requestRound,
  roundFinished,
  roundStarted,
  type ScheduleState,
} from '../src/sync/sync-schedule.ts'

const P = DEFAULT_SCHEDULE
const T0 = Date.parse('2026-03-01T09:00:00.000Z')

/** A schedule whose first round ended at T0, successfully. */
function settled(): ScheduleState {
  return roundFinished(roundStarted(INITIAL_SCHEDULE), T0, true, P, 0)
}

describe('the sync schedule', () => {
  it('runs the first round at once, and none while one is in flight', () => {
    assert.equal(nextRoundAt(INITIAL_SCHEDULE, P), Number.NEGATIVE_INFINITY)
    const running = roundStarted(INITIAL_SCHEDULE)
    assert.equal(nextRoundAt(running, P), null)
    assert.equal(nextRoundAt(noteWrite(running, T0), P), null)
    // A request during the round runs one more round right after it.
    const asked = requestRound(running)
    assert.equal(nextRoundAt(roundFinished(asked, T0, true, P, 0), P), Number.NEGATIVE_INFINITY)
  })

  it('waits for writes to pause, but never longer than the longest wait', () => {
    let state = settled()
    assert.equal(nextRoundAt(state, P), T0 + P.intervalMs)
    state = noteWrite(state, T0 + 1_000)
    assert.equal(nextRoundAt(state, P), T0 + 1_000 + P.debounceMs)
    state = noteWrite(state, T0 + 2_000)
    assert.equal(nextRoundAt(state, P), T0 + 2_000 + P.debounceMs)
    for (let at = 4_000; at <= 40_000; at += 2_000) state = noteWrite(state, T0 + at)
    assert.equal(nextRoundAt(state, P), T0 + 1_000 + P.maxWaitMs)
    // The writes a round starts with are its own; the next round waits for new ones or the timer.
    const after = roundFinished(roundStarted(state), T0 + 31_500, true, P, 0)
    assert.equal(nextRoundAt(after, P), T0 + 31_500 + P.intervalMs)
  })

  it('has no timer when the interval is 0', () => {
    assert.equal(nextRoundAt(settled(), { ...P, intervalMs: 0 }), null)
  })

  it('retries a failure after a wait that doubles, with jitter, up to a cap, and resets on success', () => {
    const waits = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 60].map((failures) => backoffDelay(failures, P, 0))
    assert.deepEqual(waits.slice(0, 5), [5_000, 10_000, 20_000, 40_000, 80_000])
    assert.ok(waits.every((wait) => wait <= P.backoffCapMs))
    assert.equal(waits.at(-1), P.backoffCapMs)
    // Jitter takes up to half off, never more, never adds.
    assert.equal(backoffDelay(3, P, 0.999_999), 10_000)
    for (const random of [0, 0.25, 0.5, 0.75, 0.999]) {
      const wait = backoffDelay(3, P, random)
      assert.ok(wait > 10_000 - 1 && wait <= 20_000, `${random}: ${wait}`)
    }

    let state = settled()
    const failedAt: number[] = []
    let now = T0
    for (let round = 0; round < 4; round += 1) {
      state = roundFinished(roundStarted(state), now, false, P, 0)
      failedAt.push(now)
      now = nextRoundAt(state, P) as number
    }
    assert.equal(state.failures, 4)
    assert.deepEqual(
      failedAt.slice(1).map((at, index) => at - (failedAt[index] as number)),
      [5_000, 10_000, 20_000],
    )
    // While failing, writes wait for the retry; a request does not.
    const writing = noteWrite(state, now - 1)
    assert.equal(nextRoundAt(writing, P), state.retryAt)
    assert.equal(nextRoundAt(requestRound(writing), P), Number.NEGATIVE_INFINITY)
    const healed = roundFinished(roundStarted(writing), now, true, P, 0)
    assert.equal(healed.failures, 0)
    assert.equal(healed.retryAt, null)
    assert.equal(nextRoundAt(healed, P), now + P.intervalMs)
  })
})
