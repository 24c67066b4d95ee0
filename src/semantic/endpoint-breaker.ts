/**
 * The shell around one endpoint's breaker (breaker.ts): it holds the state for the endpoint in force, reads the
 * clock, runs or skips a call, and settles the state with the call's result. A skipped call is answered at once as a
 * `cooling_down` failure, so the caller degrades as for any failure. When the endpoint's identity changes (another
 * URL or model) the breaker starts closed: a new endpoint owes nothing for the old one's failures.
 */
import {
  admitCall,
  CLOSED,
  DEFAULT_BREAKER_POLICY,
  outcomeOf,
  settleCall,
  type BreakerPolicy,
  type BreakerState,
} from './breaker.ts'
import type { EndpointFailure, EndpointFailureCode } from './types.ts'

/** A breaker's state as status shows it: `open` carries when it is tried again. Nothing here contains a key. */
export interface BreakerReport {
  readonly state: 'closed' | 'open' | 'trying' | 'off'
  /** ISO instant the cooling period ends (open only). */
  readonly until: string | null
  /** The current cooling period, ms (0 while closed). */
  readonly coolingMs: number
  /** The endpoint's failures since its last answer. */
  readonly consecutiveFailures: number
  /** The last failure counted, masked as every endpoint message is. */
  readonly lastError: { readonly code: EndpointFailureCode; readonly message: string; readonly at: string } | null
}

/** One endpoint's breaker. */
export class EndpointBreaker {
  private readonly what: string
  private readonly now: () => number
  private readonly policy: BreakerPolicy | 'off'
  private identity: string | undefined
  private state: BreakerState = CLOSED

  /**
   * @param what - the endpoint as messages name it: "embedding endpoint", "rerank endpoint".
   * @param now - epoch-ms clock.
   * @param policy - when to open and for how long; `off` lets every call through (the bench's "before" figure).
   */
  constructor(what: string, now: () => number, policy: BreakerPolicy | 'off' = DEFAULT_BREAKER_POLICY) {
    this.what = what
    this.now = now
    this.policy = policy
  }

  /**
   * Run a call unless the endpoint is cooling down.
   * @param identity - the endpoint in force (its fingerprint); another than last time starts a closed breaker.
   * @param run - the call (the gateways never throw; if it does, the error passes through and counts as nothing).
   * @returns the call's result, or a `cooling_down` failure when it was skipped.
   */
  async call<T extends { readonly ok: true } | EndpointFailure>(
    identity: string,
    run: () => Promise<T>,
  ): Promise<T | EndpointFailure> {
    const policy = this.policy
    if (policy === 'off') return run()
    this.follow(identity)
    const decision = admitCall(this.state, this.now())
    this.state = decision.state
    if (decision.admission === 'skip') return this.skipped()
    let result: T | undefined
    try {
      result = await run()
      return result
    } finally {
      // Settled whatever happens, so a trial never stays under way; a call that threw says nothing either way. The
      // identity may have changed while the call ran: its result says nothing about the new endpoint.
      if (this.identity === identity) {
        const outcome = result === undefined ? { kind: 'inconclusive' as const } : outcomeOf(result, this.now())
        this.state = settleCall(this.state, outcome, this.now(), policy)
      }
    }
  }

  /**
   * The breaker as status shows it.
   * @param identity - the endpoint in force; another than the breaker's reads as closed with nothing counted.
   * @returns the report.
   */
  report(identity: string): BreakerReport {
    if (this.policy === 'off')
      return { state: 'off', until: null, coolingMs: 0, consecutiveFailures: 0, lastError: null }
    const state = this.identity === identity ? this.state : CLOSED
    const lastError =
      state.lastError === null
        ? null
        : {
            code: state.lastError.code,
            message: state.lastError.message,
            at: new Date(state.lastError.at).toISOString(),
          }
    return {
      state: state.kind,
      until: state.kind === 'open' ? new Date(state.until).toISOString() : null,
      coolingMs: state.kind === 'closed' ? 0 : state.coolingMs,
      consecutiveFailures: state.failures,
      lastError,
    }
  }

  private follow(identity: string): void {
    if (this.identity === identity) return
    this.identity = identity
    this.state = CLOSED
  }

  /** The answer to a skipped call: why, and when the endpoint is tried again. */
  private skipped(): EndpointFailure {
    const state = this.state
    const failures = `it failed ${state.failures} time${state.failures === 1 ? '' : 's'} in a row${state.lastError === null ? '' : ` (last: ${state.lastError.code})`}`
    const when =
      state.kind === 'open'
        ? `; it is tried again after ${new Date(state.until).toISOString()}`
        : '; one trial call to it is under way'
    return {
      ok: false,
      code: 'cooling_down',
      message: `skipped the ${this.what} without a call while it cools down: ${failures}${when}`,
    }
  }
}
