/**
 * When the next sync round runs: the pure policy behind the sync service (sync-service.ts). Rounds run at start, a
 * short while after the last write (debounced, with a longest wait so a steady trickle of writes still syncs), on a
 * timer measured from the last round, on request ("Sync now"), and never two at once: a request made during a round
 * runs one more round right after it. A failed round is retried after a backoff that doubles per failure, with
 * jitter, up to a cap; while failing, writes and the timer wait for the retry (a request still runs at once), and a
 * success resets it. Every function returns a new state; nothing here reads a clock or a random source.
 */

/** The schedule's tunables, in milliseconds. */
export interface SchedulePolicy {
  /** Quiet time after the last write before a round runs. */
  readonly debounceMs: number
  /** Longest a write waits for a round while writes keep coming. */
  readonly maxWaitMs: number
  /** Time between rounds when nothing else asks for one; 0: no timer. */
  readonly intervalMs: number
  /** First retry after a failure. */
  readonly backoffBaseMs: number
  /** Longest retry wait. */
  readonly backoffCapMs: number
  /** Share of a retry wait taken off at random (0 to 1), so machines that failed together retry apart. */
  readonly jitter: number
}

/** The defaults a DSH user gets: a write reaches the folder within seconds, a quiet library syncs every 5 minutes. */
export const DEFAULT_SCHEDULE: SchedulePolicy = {
  debounceMs: 3_000,
  maxWaitMs: 30_000,
  intervalMs: 5 * 60_000,
  backoffBaseMs: 5_000,
  backoffCapMs: 15 * 60_000,
  jitter: 0.5,
}

/** Where the schedule stands. Instants are epoch milliseconds. */
export interface ScheduleState {
  /** A round is in flight. */
  readonly running: boolean
  /** A round was asked for (start, "Sync now", stop) and has not started yet. */
  readonly requested: boolean
  /** First and last write noted since the last round started; null when none. */
  readonly firstWriteAt: number | null
  readonly lastWriteAt: number | null
  /** When the last round ended; null before the first. */
  readonly lastRoundAt: number | null
  /** Failed rounds in a row. */
  readonly failures: number
  /** When the next retry is due while failing; null when the last round succeeded. */
  readonly retryAt: number | null
}

/** The state of a service that has not run a round yet: the first round is requested (sync at start). */
export const INITIAL_SCHEDULE: ScheduleState = {
  running: false,
  requested: true,
  firstWriteAt: null,
  lastWriteAt: null,
  lastRoundAt: null,
  failures: 0,
  retryAt: null,
}

/**
 * A write was made.
 * @param state - the schedule.
 * @param now - the write's instant.
 * @returns the schedule with the write noted.
 */
export function noteWrite(state: ScheduleState, now: number): ScheduleState {
  return { ...state, firstWriteAt: state.firstWriteAt ?? now, lastWriteAt: now }
}

/**
 * A round was asked for: it runs as soon as no round is in flight.
 * @param state - the schedule.
 * @returns the schedule with the request noted.
 */
export function requestRound(state: ScheduleState): ScheduleState {
  return { ...state, requested: true }
}

/**
 * A round starts: the writes and the request noted so far are what it carries.
 * @param state - the schedule (no round in flight).
 * @returns the schedule with the round in flight.
 */
export function roundStarted(state: ScheduleState): ScheduleState {
  return { ...state, running: true, requested: false, firstWriteAt: null, lastWriteAt: null }
}

/**
 * A round ended.
 * @param state - the schedule.
 * @param now - the instant it ended.
 * @param ok - whether it succeeded.
 * @param policy - the tunables.
 * @param random - a number in [0, 1) for the jitter.
 * @returns the schedule with no round in flight, its backoff grown or reset.
 */
export function roundFinished(
  state: ScheduleState,
  now: number,
  ok: boolean,
  policy: SchedulePolicy,
  random: number,
): ScheduleState {
  if (ok) return { ...state, running: false, lastRoundAt: now, failures: 0, retryAt: null }
  const failures = state.failures + 1
  return { ...state, running: false, lastRoundAt: now, failures, retryAt: now + backoffDelay(failures, policy, random) }
}

/**
 * The wait before retrying after `failures` failed rounds in a row: the base doubled per failure past the first, capped,
 * less a random share of up to `jitter`.
 * @param failures - failed rounds in a row (1 or more).
 * @param policy - the tunables.
 * @param random - a number in [0, 1).
 * @returns milliseconds, between (1 - jitter) and 1 times the capped wait.
 */
export function backoffDelay(failures: number, policy: SchedulePolicy, random: number): number {
  const exponent = Math.min(Math.max(0, failures - 1), 40)
  const capped = Math.min(policy.backoffCapMs, policy.backoffBaseMs * 2 ** exponent)
  return Math.round(capped * (1 - policy.jitter * Math.min(Math.max(random, 0), 1)))
}

/**
 * When the next round is due.
 * @param state - the schedule.
 * @param policy - the tunables.
 * @returns the instant (one in the past means now), or null while a round is in flight or nothing is due.
 */
export function nextRoundAt(state: ScheduleState, policy: SchedulePolicy): number | null {
  if (state.running) return null
  if (state.requested) return Number.NEGATIVE_INFINITY
  if (state.retryAt !== null) return state.retryAt
  const due: number[] = []
  if (state.firstWriteAt !== null && state.lastWriteAt !== null) {
    due.push(Math.min(state.lastWriteAt + policy.debounceMs, state.firstWriteAt + policy.maxWaitMs))
  }
  if (policy.intervalMs > 0 && state.lastRoundAt !== null) due.push(state.lastRoundAt + policy.intervalMs)
  return due.length === 0 ? null : Math.min(...due)
}
