/**
 * The near-duplicate review's shell: its timer and the sweeps a person asks for. The timer starts
 * {@link FIRST_LOOK_MS} after `start`, then looks at the clock every {@link LOOK_EVERY_MS}, and sweeps when
 * `consolidateIntervalMs` has passed since the last sweep; the last sweep's time lives here, in memory. Sweeps never
 * overlap. Timers come from the Clock seam (the system clock's are unref'd, so they never keep a headless run alive)
 * and `stop` cancels them and aborts a sweep under way.
 */
import type { Clock } from '../clock.ts'
import type { ResolvedConfig } from '../config.ts'
import { messageOf } from '../errors.ts'
import type { ExtractionModel } from '../host/model-client.ts'
import type { SweepEntry } from '../store/review-store.ts'
import type { StoreSet } from '../store/store-set.ts'
import { decideRun, FIRST_LOOK_MS, LOOK_EVERY_MS, type RunDecision } from './schedule.ts'
import { sweepBudget } from './sweep-plan.ts'
import type { CandidateSource } from './sweep-candidates.ts'
import { runSweep } from './sweep-run.ts'

/** What the service needs, each read when used. */
export interface SweepServiceDeps {
  readonly clock: Clock
  readonly logger: { warn(format: string, ...args: unknown[]): void }
  /** The open stores, or undefined while the store is closed. */
  readonly stores: () => StoreSet | undefined
  /** The live settings, or undefined before the first configuration. */
  readonly config: () => ResolvedConfig | undefined
  /** The extraction model, as the capture service resolves it outside a session. */
  readonly model: (config: ResolvedConfig) => Promise<ExtractionModel | { readonly unavailable: string }>
  /** Candidate legs beyond the lexical one for a configuration (the vector leg while vectors exist). */
  readonly sources?: ((config: ResolvedConfig, stores: StoreSet) => readonly CandidateSource[]) | undefined
}

/** The answer to a person's request for a sweep. */
export type AskedSweep =
  | { readonly ran: true; readonly sweep: SweepEntry }
  | { readonly ran: false; readonly reason: 'disabled' | 'running' | 'no_store' }

/** The review's timer and sweeps. */
export class SweepService {
  private readonly deps: SweepServiceDeps
  private lastRunAt: number | undefined
  private running: Promise<SweepEntry | undefined> | undefined
  private cancelTimers: (() => void)[] = []
  private abort = new AbortController()

  constructor(deps: SweepServiceDeps) {
    this.deps = deps
  }

  /**
   * Arm or disarm the timer for a configuration: it runs while the plugin is enabled, `autoConsolidate` is on and
   * `consolidateIntervalMs` is above 0. An armed timer is left as it is (a settings change does not push the next
   * look back); one armed anew first looks {@link FIRST_LOOK_MS} later.
   * @param config - the configuration in force, or undefined for none.
   */
  follow(config: ResolvedConfig | undefined): void {
    const wanted = config !== undefined && config.enabled && config.autoConsolidate && config.consolidateIntervalMs > 0
    if (wanted && this.cancelTimers.length === 0) this.start()
    else if (!wanted) this.cancel()
  }

  /** Whether the timer is armed. */
  get armed(): boolean {
    return this.cancelTimers.length > 0
  }

  /** Start the timer (again after `stop`); the first look comes {@link FIRST_LOOK_MS} later. */
  start(): void {
    this.cancel()
    // A sweep under way keeps its controller, so stop() still aborts it; only a stopped service gets a fresh one.
    if (this.abort.signal.aborted) this.abort = new AbortController()
    this.cancelTimers.push(this.deps.clock.after(FIRST_LOOK_MS, () => {
      void this.look()
      this.cancelTimers.push(this.deps.clock.every(LOOK_EVERY_MS, () => { void this.look() }))
    }))
  }

  /**
   * Cancel the timer and abort a sweep under way.
   * @returns when the sweep under way, if any, has ended.
   */
  async stop(): Promise<void> {
    this.cancel()
    this.abort.abort(new Error('the plugin is unloading'))
    await this.running
  }

  private cancel(): void {
    for (const cancel of this.cancelTimers.splice(0)) cancel()
  }

  /**
   * One look of the timer: sweep when one is due.
   * @returns the sweep it ran, if any.
   */
  async look(): Promise<SweepEntry | undefined> {
    const decision = this.decide(false)
    if (!decision.run) return undefined
    return this.sweep(false)
  }

  /**
   * A sweep a person asked for (the settings card's button, `consolidate {force: true}`): now, with triple the budget.
   * @returns the sweep, or why none ran.
   */
  async sweepNow(): Promise<AskedSweep> {
    const decision = this.decide(true)
    if (!decision.run) return { ran: false, reason: decision.reason === 'running' ? 'running' : 'disabled' }
    if (this.deps.stores() === undefined) return { ran: false, reason: 'no_store' }
    const sweep = await this.sweep(true)
    return sweep === undefined ? { ran: false, reason: 'no_store' } : { ran: true, sweep }
  }

  /** Epoch ms of the last sweep since `start`, or undefined. */
  lastSweepAt(): number | undefined {
    return this.lastRunAt
  }

  private decide(asked: boolean): RunDecision {
    const config = this.deps.config()
    const schedule = { enabled: config?.autoConsolidate ?? false, intervalMs: config?.consolidateIntervalMs ?? 0 }
    return decideRun(schedule, this.lastRunAt, this.deps.clock.now(), this.running !== undefined, asked)
  }

  private async sweep(forced: boolean): Promise<SweepEntry | undefined> {
    const stores = this.deps.stores()
    const config = this.deps.config()
    if (stores === undefined || config === undefined) return undefined
    this.lastRunAt = this.deps.clock.now()
    const signal = this.abort.signal
    const run = runSweep({
      stores,
      model: () => this.deps.model(config),
      now: () => new Date(this.deps.clock.now()).toISOString(),
      signal,
      sources: this.deps.sources?.(config, stores),
    }, { trigger: forced ? 'asked' : 'timer', budget: sweepBudget(config.consolidateMaxPairs, forced) })
      .catch((error: unknown) => {
        this.deps.logger.warn('near-duplicate sweep failed: %s', messageOf(error))
        return undefined
      })
    this.running = run
    try {
      return await run
    } finally {
      this.running = undefined
    }
  }
}
