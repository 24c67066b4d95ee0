/**
 * The extraction queue: per session, strictly FIFO; across sessions, parallel. A turn/end only enqueues and returns.
 * A pass waits out the merge window (extractDelayMs), and another turn/end inside that window folds into the same
 * pass; a turn/end that arrives while a pass runs or waits for a retry waits behind it. A failed pass is retried
 * after 1, 5 and 30 minutes (extractRetryMs scales them); when the third retry fails too, its range is parked and the
 * session moves on.
 */
import type { Clock } from '../clock.ts'
import { messageOf } from '../errors.ts'
import type { QueueEntry } from '../wire-types.ts'

export type { QueueEntry }

/** How much longer each retry of a failed pass waits than the first (extractRetryMs): 1, 5 and 30 times. */
export const RETRY_FACTORS: readonly number[] = [1, 5, 30]

/** Waits before each retry of a failed pass at the default extractRetryMs of a minute. */
export const RETRY_LADDER_MS: readonly number[] = retryLadder(60_000)

/**
 * The waits before each retry of a failed pass.
 * @param firstMs - the wait before the first retry (extractRetryMs).
 * @returns one wait per retry; when all of them failed the range is parked.
 */
export function retryLadder(firstMs: number): number[] {
  return RETRY_FACTORS.map((factor) => factor * Math.max(0, firstMs))
}

/** What a pass is asked to do. */
export interface PassRequest {
  readonly sessionId: string
  /** The exclusive end of the range: the seq of the turn/end that triggered it. */
  readonly endSeq: number
  /** 1 for the first try, then one more per retry. */
  readonly attempt: number
  readonly trigger: 'turn' | 'flush'
  /** Aborted when the queue stops (the plugin unloads or extraction is switched off). */
  readonly signal: AbortSignal
}

/** How a pass ended; `answered` when the model answered it (parked ranges are then worth retrying). */
export type PassResult =
  | { readonly kind: 'done'; readonly answered?: boolean }
  /** The range was longer than one pass covers: run again right away for the rest. */
  | { readonly kind: 'more'; readonly answered?: boolean }
  | { readonly kind: 'failed'; readonly error: string }

/** What the queue needs. */
export interface QueueDeps {
  readonly clock: Clock
  /** The merge window, read when a turn/end arrives. */
  readonly delayMs: () => number
  /** The wait before the first retry of a failed pass (later ones wait 5 and 30 times as long), read at each failure. */
  readonly retryMs: () => number
  /** Run one pass; it must not throw (a throw is treated as a failure). */
  readonly runPass: (request: PassRequest) => Promise<PassResult>
  /** Persist a range that failed every attempt, and move the session past it. */
  readonly park: (request: PassRequest, error: string) => void
}

interface Waiting {
  readonly kind: 'debounce' | 'retry'
  endSeq: number
  readonly attempt: number
  readonly trigger: 'turn' | 'flush'
  readonly dueAt: number
  readonly cancel: () => void
}

interface SessionLine {
  running: { readonly endSeq: number; readonly attempt: number; readonly startedAt: number } | undefined
  waiting: Waiting | undefined
  /** The furthest end seq that arrived while the session was busy. */
  backlog: number | undefined
  lastError: string | null
  settled: Promise<void>
}

/** The queue of all sessions. */
export class ExtractionQueue {
  private readonly deps: QueueDeps
  private readonly lines = new Map<string, SessionLine>()
  private controller = new AbortController()

  /** @param deps - clock, merge window, retry wait, the pass runner and the parking step. */
  constructor(deps: QueueDeps) {
    this.deps = deps
  }

  /**
   * A turn ended: queue the range up to `endSeq`. Returns at once.
   * @param sessionId - the session.
   * @param endSeq - the turn/end's seq.
   */
  enqueue(sessionId: string, endSeq: number): void {
    const line = this.line(sessionId)
    if (line.waiting?.kind === 'debounce') {
      line.waiting.endSeq = Math.max(line.waiting.endSeq, endSeq)
      return
    }
    if (line.running !== undefined || line.waiting !== undefined) {
      line.backlog = Math.max(line.backlog ?? endSeq, endSeq)
      return
    }
    this.wait(sessionId, line, { kind: 'debounce', endSeq, attempt: 1, trigger: 'turn' }, this.deps.delayMs())
  }

  /** Start every pass that is waiting out its merge window now (the plugin is about to unload). */
  flush(): void {
    for (const sessionId of [...this.lines.keys()]) this.flushSession(sessionId)
  }

  /**
   * Start one session's pass now if it is waiting out its merge window (the user is pausing memory there).
   * @param sessionId - the session.
   */
  flushSession(sessionId: string): void {
    const line = this.lines.get(sessionId)
    if (line?.waiting?.kind !== 'debounce') return
    const { endSeq } = line.waiting
    line.waiting.cancel()
    line.waiting = undefined
    this.start(sessionId, line, endSeq, 1, 'flush')
  }

  /**
   * Wait until no pass is running or due within the merge window (tests and flush on unload).
   * @returns when every running pass has settled.
   */
  async idle(): Promise<void> {
    for (;;) {
      const running = [...this.lines.values()].filter((line) => line.running !== undefined)
      if (running.length === 0) return
      await Promise.all(running.map((line) => line.settled))
    }
  }

  /** Cancel every timer and abort running passes; the queue can be used again afterwards. */
  stop(): void {
    for (const line of this.lines.values()) line.waiting?.cancel()
    this.lines.clear()
    this.controller.abort()
    this.controller = new AbortController()
  }

  /**
   * Every session with work, for the queue route.
   * @returns one entry per busy session.
   */
  entries(): QueueEntry[] {
    const iso = (ms: number): string => new Date(ms).toISOString()
    return [...this.lines].flatMap(([sessionId, line]): QueueEntry[] => {
      if (line.running !== undefined) {
        return [
          {
            sessionId,
            state: 'running',
            endSeq: line.running.endSeq,
            attempt: line.running.attempt,
            at: iso(line.running.startedAt),
            queuedEndSeq: line.backlog ?? null,
            lastError: line.lastError,
          },
        ]
      }
      if (line.waiting !== undefined) {
        return [
          {
            sessionId,
            state: line.waiting.kind,
            endSeq: line.waiting.endSeq,
            attempt: line.waiting.attempt,
            at: iso(line.waiting.dueAt),
            queuedEndSeq: line.backlog ?? null,
            lastError: line.lastError,
          },
        ]
      }
      return []
    })
  }

  /**
   * Whether a session has extraction work queued, waiting or running (the turn cards keep asking until it has none).
   * @param sessionId - the session.
   * @returns true while busy.
   */
  busy(sessionId: string): boolean {
    const line = this.lines.get(sessionId)
    return line !== undefined && (line.running !== undefined || line.waiting !== undefined)
  }

  private line(sessionId: string): SessionLine {
    let line = this.lines.get(sessionId)
    if (line === undefined) {
      line = { running: undefined, waiting: undefined, backlog: undefined, lastError: null, settled: Promise.resolve() }
      this.lines.set(sessionId, line)
    }
    return line
  }

  private wait(sessionId: string, line: SessionLine, job: Omit<Waiting, 'dueAt' | 'cancel'>, delayMs: number): void {
    const dueAt = this.deps.clock.now() + Math.max(0, delayMs)
    const cancel = this.deps.clock.after(Math.max(0, delayMs), () => {
      if (line.waiting !== waiting) return
      line.waiting = undefined
      this.start(sessionId, line, waiting.endSeq, waiting.attempt, waiting.trigger)
    })
    const waiting: Waiting = { ...job, dueAt, cancel }
    line.waiting = waiting
  }

  private start(
    sessionId: string,
    line: SessionLine,
    endSeq: number,
    attempt: number,
    trigger: 'turn' | 'flush',
  ): void {
    const signal = this.controller.signal
    line.running = { endSeq, attempt, startedAt: this.deps.clock.now() }
    line.settled = this.deps
      .runPass({ sessionId, endSeq, attempt, trigger, signal })
      .catch((error: unknown): PassResult => ({ kind: 'failed', error: messageOf(error) }))
      .then((result) => {
        // A stopped queue forgets the session: nothing of an aborted pass is rescheduled.
        if (signal.aborted || this.lines.get(sessionId) !== line) return
        line.running = undefined
        this.after(sessionId, line, { sessionId, endSeq, attempt, trigger, signal }, result)
      })
  }

  private after(sessionId: string, line: SessionLine, request: PassRequest, result: PassResult): void {
    if (result.kind === 'more') {
      this.start(sessionId, line, request.endSeq, 1, request.trigger)
      return
    }
    if (result.kind === 'failed') {
      line.lastError = result.error
      const wait = retryLadder(this.deps.retryMs())[request.attempt - 1]
      if (wait !== undefined) {
        this.wait(
          sessionId,
          line,
          { kind: 'retry', endSeq: request.endSeq, attempt: request.attempt + 1, trigger: request.trigger },
          wait,
        )
        return
      }
      this.deps.park(request, result.error)
    } else {
      line.lastError = null
    }
    const backlog = line.backlog
    line.backlog = undefined
    if (backlog !== undefined && backlog > request.endSeq) {
      // The turns that ended meanwhile already waited their turn: start at once.
      this.start(sessionId, line, backlog, 1, 'turn')
      return
    }
    if (line.waiting === undefined) this.lines.delete(sessionId)
  }
}
