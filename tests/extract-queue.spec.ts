/**
 * The extraction queue with a fake clock and a scripted pass runner: the merge window, folding, FIFO per session,
 * parallel sessions, the 1/5/30-minute retry ladder and parking, remainders, flush on unload, and stop.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, it } from 'node:test'
import { ExtractionQueue, RETRY_LADDER_MS, type PassRequest, type PassResult } from '../src/extract/queue.ts'
import { FakeClock } from './helpers/fake-clock.ts'

const DELAY = 5000

/** A pass runner whose passes finish when the test says so. */
class ScriptedRunner {
  readonly started: PassRequest[] = []
  readonly parked: { request: PassRequest; error: string }[] = []
  private readonly pending: ((result: PassResult) => void)[] = []
  /** When set, passes settle at once with this result. */
  auto: PassResult | undefined

  run = (request: PassRequest): Promise<PassResult> => {
    this.started.push(request)
    if (this.auto !== undefined) return Promise.resolve(this.auto)
    return new Promise((resolve) => this.pending.push(resolve))
  }

  /** Settle the oldest running pass. */
  finish(result: PassResult = { kind: 'done' }): void {
    const next = this.pending.shift()
    if (next === undefined) throw new Error('no pass is running')
    next(result)
  }

  get running(): number {
    return this.pending.length
  }
}

/** Let promise callbacks run. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve))
}

describe('the extraction queue', () => {
  let clock: FakeClock
  let runner: ScriptedRunner
  let queue: ExtractionQueue
  beforeEach(() => {
    clock = new FakeClock('2026-03-01T09:00:00.000Z')
    runner = new ScriptedRunner()
    queue = new ExtractionQueue({
      clock,
      delayMs: () => DELAY,
      retryMs: () => 60_000,
      runPass: runner.run,
      park: (request, error) => runner.parked.push({ request, error }),
    })
  })

  it('returns at once, waits out the merge window, and folds a turn/end inside it into the same pass', async () => {
    queue.enqueue('s1', 10)
    assert.equal(runner.started.length, 0)
    assert.deepEqual(
      queue.entries().map((entry) => [entry.state, entry.endSeq, entry.at]),
      [['debounce', 10, '2026-03-01T09:00:05.000Z']],
    )
    clock.advance(3000)
    queue.enqueue('s1', 20)
    clock.advance(1999)
    assert.equal(runner.started.length, 0)
    clock.advance(1)
    assert.deepEqual(
      runner.started.map((request) => [request.sessionId, request.endSeq, request.attempt, request.trigger]),
      [['s1', 20, 1, 'turn']],
    )
    assert.equal(queue.busy('s1'), true)
    runner.finish()
    await settle()
    assert.equal(queue.busy('s1'), false)
    assert.deepEqual(queue.entries(), [])
  })

  it('keeps one session strictly FIFO and runs other sessions in parallel', async () => {
    queue.enqueue('s1', 10)
    queue.enqueue('s2', 7)
    clock.advance(DELAY)
    assert.deepEqual(
      runner.started.map((request) => request.sessionId),
      ['s1', 's2'],
    )
    queue.enqueue('s1', 30)
    queue.enqueue('s1', 40)
    clock.advance(DELAY * 10)
    assert.equal(runner.started.length, 2, 'the next turn of s1 waits for the unfinished pass')
    assert.equal(queue.entries().find((entry) => entry.sessionId === 's1')?.queuedEndSeq, 40)
    runner.finish()
    await settle()
    assert.deepEqual(
      runner.started.slice(2).map((request) => [request.sessionId, request.endSeq]),
      [['s1', 40]],
    )
    runner.finish()
    runner.finish()
    await settle()
    assert.deepEqual(queue.entries(), [])
  })

  it('retries after 1, 5 and 30 minutes, then parks the range and moves on to what waited behind it', async () => {
    queue.enqueue('s1', 10)
    clock.advance(DELAY)
    queue.enqueue('s1', 25)
    for (const [index, wait] of RETRY_LADDER_MS.entries()) {
      runner.finish({ kind: 'failed', error: `model down ${index + 1}` })
      await settle()
      const entry = queue.entries()[0]
      assert.deepEqual(
        [entry?.state, entry?.attempt, entry?.lastError],
        ['retry', index + 2, `model down ${index + 1}`],
      )
      clock.advance(wait - 1)
      assert.equal(runner.started.length, index + 1)
      clock.advance(1)
      assert.deepEqual(
        runner.started.map((request) => request.attempt),
        Array.from({ length: index + 2 }, (_, i) => i + 1),
      )
    }
    assert.deepEqual(
      runner.started.map((request) => request.endSeq),
      [10, 10, 10, 10],
    )
    runner.finish({ kind: 'failed', error: 'model down 4' })
    await settle()
    assert.deepEqual(
      runner.parked.map(({ request, error }) => [request.endSeq, request.attempt, error]),
      [[10, 4, 'model down 4']],
    )
    // The turn that ended meanwhile runs next, from a fresh attempt.
    assert.deepEqual(
      runner.started.slice(4).map((request) => [request.endSeq, request.attempt]),
      [[25, 1]],
    )
    runner.finish()
    await settle()
    assert.equal(queue.busy('s1'), false)
  })

  it('a pass that succeeds on a retry is not parked', async () => {
    queue.enqueue('s1', 10)
    clock.advance(DELAY)
    runner.finish({ kind: 'failed', error: 'timeout' })
    await settle()
    clock.advance(RETRY_LADDER_MS[0] ?? 0)
    runner.finish()
    await settle()
    assert.deepEqual(runner.parked, [])
    assert.equal(queue.busy('s1'), false)
  })

  it('runs again at once for the rest of a range longer than one pass covers', async () => {
    queue.enqueue('s1', 99)
    clock.advance(DELAY)
    runner.finish({ kind: 'more' })
    await settle()
    assert.deepEqual(
      runner.started.map((request) => request.endSeq),
      [99, 99],
    )
    runner.finish()
    await settle()
    assert.equal(queue.busy('s1'), false)
  })

  it('treats a runner that throws as a failed pass', async () => {
    const throwing = new ExtractionQueue({
      clock,
      delayMs: () => 0,
      retryMs: () => 60_000,
      runPass: () => Promise.reject(new Error('boom')),
      park: () => undefined,
    })
    throwing.enqueue('s1', 3)
    clock.advance(0)
    await settle()
    assert.deepEqual(
      throwing.entries().map((entry) => [entry.state, entry.lastError]),
      [['retry', 'boom']],
    )
    throwing.stop()
  })

  it('flush starts every pass still in its merge window, and idle waits for them', async () => {
    runner.auto = { kind: 'done' }
    queue.enqueue('s1', 10)
    queue.enqueue('s2', 4)
    queue.flush()
    assert.deepEqual(
      runner.started.map((request) => [request.sessionId, request.trigger]),
      [
        ['s1', 'flush'],
        ['s2', 'flush'],
      ],
    )
    await queue.idle()
    assert.deepEqual(queue.entries(), [])
    assert.equal(clock.pendingTimers, 0)
  })

  it('stop aborts running passes, cancels timers and reschedules nothing', async () => {
    queue.enqueue('s1', 10)
    queue.enqueue('s2', 4)
    clock.advance(DELAY)
    queue.enqueue('s3', 8)
    const signal = runner.started[0]?.signal
    queue.stop()
    assert.equal(signal?.aborted, true)
    assert.equal(clock.pendingTimers, 0)
    runner.finish({ kind: 'failed', error: 'aborted' })
    runner.finish()
    await settle()
    assert.deepEqual(queue.entries(), [])
    assert.equal(clock.pendingTimers, 0)
    // Usable again afterwards, with a fresh signal.
    queue.enqueue('s1', 12)
    clock.advance(DELAY)
    assert.equal(runner.started.at(-1)?.signal.aborted, false)
  })
})
