/**
 * Pure: the circuit breaker of one query-time endpoint (embedding or rerank). State and the clock's reading go in, a
 * decision and the next state come out. Closed, every call goes through; after `failuresToOpen` failures in a row it
 * opens and every call is skipped for a cooling period; when the period ends one call is let through as a trial
 * ("trying"): its answer closes the breaker, its failure opens it again for twice the period (up to `maxCoolingMs`).
 * Only the endpoint's own failures count (no answer in time, unreachable, an HTTP error); an answer in a wrong shape
 * shows the endpoint alive and closes it; a call cancelled by its caller says nothing either way.
 */
import type { EndpointFailureCode } from './types.ts'

/** When a breaker opens and how long it stays open. */
export interface BreakerPolicy {
  /** Failures in a row that open it (at least 1). */
  readonly failuresToOpen: number
  /** The first cooling period, ms. */
  readonly baseCoolingMs: number
  /** The longest cooling period, ms: doubling stops here. */
  readonly maxCoolingMs: number
}

/** The policy the plugin runs with: three failures in a row, then 30 s, 60 s, 120 s … up to 10 minutes. */
export const DEFAULT_BREAKER_POLICY: BreakerPolicy = { failuresToOpen: 3, baseCoolingMs: 30_000, maxCoolingMs: 600_000 }

/** The last failure a breaker counted. */
export interface BreakerError {
  readonly code: EndpointFailureCode
  readonly message: string
  /** Epoch ms. */
  readonly at: number
}

/** One endpoint's breaker. `failures` counts the endpoint's failures since its last answer. */
export type BreakerState =
  | { readonly kind: 'closed'; readonly failures: number; readonly lastError: BreakerError | null }
  /** Skipping every call until `until` (epoch ms); `coolingMs` is the period that ends there. */
  | {
      readonly kind: 'open'
      readonly failures: number
      readonly until: number
      readonly coolingMs: number
      readonly lastError: BreakerError | null
    }
  /** One trial call is under way; every other call is skipped until it settles. */
  | {
      readonly kind: 'trying'
      readonly failures: number
      readonly coolingMs: number
      readonly lastError: BreakerError | null
    }

/** A breaker that has seen nothing. */
export const CLOSED: BreakerState = { kind: 'closed', failures: 0, lastError: null }

/** What a call's result says about the endpoint. */
export type CallOutcome =
  | { readonly kind: 'answered' }
  | { readonly kind: 'failed'; readonly error: BreakerError }
  /** Cancelled by the caller: neither an answer nor the endpoint's failure. */
  | { readonly kind: 'inconclusive' }

/** Whether a call may be made: `call` (closed), `trial` (the one call after a cooling period), `skip` (cooling). */
export type Admission = 'call' | 'trial' | 'skip'

/**
 * Decide whether a call goes out now.
 * @param state - the breaker.
 * @param now - epoch ms.
 * @returns the decision, and the state after it (a trial moves an open breaker to trying).
 */
export function admitCall(
  state: BreakerState,
  now: number,
): { readonly admission: Admission; readonly state: BreakerState } {
  if (state.kind === 'closed') return { admission: 'call', state }
  if (state.kind === 'trying' || now < state.until) return { admission: 'skip', state }
  return {
    admission: 'trial',
    state: { kind: 'trying', failures: state.failures, coolingMs: state.coolingMs, lastError: state.lastError },
  }
}

/**
 * Take a call's outcome into account.
 * @param state - the breaker as it is now (other calls may have moved it since this one was admitted).
 * @param outcome - what the call showed.
 * @param now - epoch ms.
 * @param policy - when to open and for how long.
 * @returns the next state: an answer closes; a failure counts and opens at the threshold, after a trial for twice
 *   the last period (capped); an inconclusive trial leaves the breaker open with its period over, so the next call is
 *   a trial again.
 */
export function settleCall(
  state: BreakerState,
  outcome: CallOutcome,
  now: number,
  policy: BreakerPolicy,
): BreakerState {
  if (outcome.kind === 'answered') return { kind: 'closed', failures: 0, lastError: state.lastError }
  if (outcome.kind === 'inconclusive') {
    return state.kind === 'trying'
      ? { kind: 'open', failures: state.failures, until: now, coolingMs: state.coolingMs, lastError: state.lastError }
      : state
  }
  const failures = state.failures + 1
  const lastError = outcome.error
  switch (state.kind) {
    case 'closed': {
      if (failures < Math.max(1, policy.failuresToOpen)) return { kind: 'closed', failures, lastError }
      const coolingMs = Math.min(policy.baseCoolingMs, policy.maxCoolingMs)
      return { kind: 'open', failures, until: now + coolingMs, coolingMs, lastError }
    }
    case 'trying': {
      const coolingMs = Math.min(state.coolingMs * 2, policy.maxCoolingMs)
      return { kind: 'open', failures, until: now + coolingMs, coolingMs, lastError }
    }
    // A call admitted before the breaker opened failed late: it counts, the period stands.
    case 'open':
      return { ...state, failures, lastError }
  }
}

/**
 * What a call's result says about the endpoint.
 * @param result - the call's answer or failure.
 * @param now - epoch ms, stamped on a failure.
 * @returns answered for any answer, a wrong-shaped one included (the endpoint is up); failed for no answer in time,
 *   no connection or an HTTP error; inconclusive when the caller cancelled it.
 */
export function outcomeOf(
  result: { readonly ok: true } | { readonly ok: false; readonly code: EndpointFailureCode; readonly message: string },
  now: number,
): CallOutcome {
  if (result.ok) return { kind: 'answered' }
  switch (result.code) {
    case 'timeout':
    case 'unreachable':
    case 'http_error':
      return { kind: 'failed', error: { code: result.code, message: result.message, at: now } }
    case 'cancelled':
    case 'cooling_down':
      return { kind: 'inconclusive' }
    case 'bad_response':
    case 'wrong_dimension':
    case 'score_out_of_range':
      return { kind: 'answered' }
  }
}
