/**
 * The near-duplicate review's shell: its timer and the sweeps a person asks for. The timer starts
 * {@link FIRST_LOOK_MS} after `start`, then looks at the clock every {@link LOOK_EVERY_MS}, and sweeps when
 * `consolidateIntervalMs` has passed since the last sweep; the last sweep's time lives here, in memory. Sweeps never
 * overlap. A sweep a person asks for runs in the background ({@link SweepService.beginNow}): the ask is answered at
 * once, {@link SweepService.progress} tells how far the sweep under way has come and
 * {@link SweepService.lastAsked} what the last asked sweep found. Timers come from the Clock seam (the system clock's are unref'd, so they never keep a headless run alive)
 * and `stop` cancels them and aborts a sweep under way.
 */
import type { Clock } from '../clock.ts'
import type { ResolvedConfig } from '../config.ts'
import { messageOf } from '../errors.ts'
import type { ExtractionModel } from '../host/model-client.ts'
import type { SweepEntry } from '../store/review-store.ts'
import type { OpenStores } from '../store/store-set.ts'
import { decideRun, FIRST_LOOK_MS, LOOK_EVERY_MS, type RunDecision } from './schedule.ts'
import { sweepBudget } from './sweep-plan.ts'
import type { CandidateSource } from './sweep-candidates.ts'
import { runSweep, type SweepTally } from './sweep-run.ts'

/** What the service needs, each read when used. */
export interface SweepServiceDeps {
  readonly clock: Clock
  readonly logger: { warn(format: string, ...args: unknown[]): void }
  /** The open stores, or undefined while the store is closed. */
  readonly stores: () => OpenStores | undefined
  /** The live settings, or undefined before the first configuration. */
  readonly config: () => ResolvedConfig | undefined
  /** The extraction model, as the capture service resolves it outside a session. */
  readonly model: (config: ResolvedConfig) => Promise<ExtractionModel | { readonly unavailable: string }>
  /** Candidate legs beyond the lexical one for a configuration (the vector leg while vectors exist). */
  readonly sources?: ((config: ResolvedConfig, stores: OpenStores) => readonly CandidateSource[]) | undefined
}

/** The answer to a person's request for a sweep. */
export type AskedSweep =
  | { readonly ran: true; readonly sweep: SweepEntry }
  | { readonly ran: false; readonly reason: 'disabled' | 'running' | 'no_store' }

/** A sweep under way: how it was asked for, when it started, its call budget and how far it has come. */
export interface SweepProgress extends SweepTally {
  readonly trigger: 'asked' | 'timer'
  readonly startedAt: string
  readonly budget: number
}

/** The answer to a person's ask, given at once: the sweep it started, or why none started. */
export type BegunSweep =
  | { readonly begun: true; readonly progress: SweepProgress }
  | { readonly begun: false; readonly reason: 'running'; readonly progress: SweepProgress | undefined }
  | { readonly begun: false; readonly reason: 'disabled' | 'no_store' }

/** How the last sweep a person asked for ended: its ledger entry, or the error that stopped it. */
export interface AskedOutcome {
  readonly startedAt: string
  readonly sweep: SweepEntry | null
  readonly error: string | null
}

/** The review's timer and sweeps. */
export class SweepService {
  private readonly deps: SweepServiceDeps
  private lastRunAt: number | undefined
  private running: Promise<SweepEntry | undefined> | undefined
  private underWay: SweepProgress | undefined
  private askedOutcome: AskedOutcome | undefined
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
    const wanted = config?.enabled === true && config.autoConsolidate && config.consolidateIntervalMs > 0
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
    this.cancelTimers.push(
      this.deps.clock.after(FIRST_LOOK_MS, () => {
        void this.look()
        this.cancelTimers.push(
          this.deps.clock.every(LOOK_EVERY_MS, () => {
            void this.look()
          }),
        )
      }),
    )
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
    const begun = this.beginNow()
    if (!begun.begun) return { ran: false, reason: begun.reason }
    const sweep = await this.running
    return sweep === undefined ? { ran: false, reason: 'no_store' } : { ran: true, sweep }
  }

  /**
   * Start a sweep a person asked for, with triple the budget, and answer at once: the sweep goes on in the
   * background, its progress in {@link progress} and its outcome, once it ends, in {@link lastAsked}.
   * @returns the sweep it started, the one already under way, or why none started.
   */
  beginNow(): BegunSweep {
    const decision = this.decide(true)
    if (!decision.run) {
      return decision.reason === 'running'
        ? { begun: false, reason: 'running', progress: this.underWay }
        : { begun: false, reason: 'disabled' }
    }
    if (this.deps.stores() === undefined || this.deps.config() === undefined)
      return { begun: false, reason: 'no_store' }
    void this.sweep(true)
    const progress = this.underWay
    return progress === undefined ? { begun: false, reason: 'no_store' } : { begun: true, progress }
  }

  /** The sweep under way (asked for or the timer's), or undefined when none runs. */
  progress(): SweepProgress | undefined {
    return this.underWay
  }

  /** How the last sweep a person asked for ended, or undefined before one ended since `start`. */
  lastAsked(): AskedOutcome | undefined {
    return this.askedOutcome
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
    const trigger = forced ? 'asked' : 'timer'
    const budget = sweepBudget(config.consolidateMaxPairs, forced)
    const startedAt = new Date(this.lastRunAt).toISOString()
    const begun: SweepProgress = { trigger, startedAt, budget, planned: 0, asked: 0, proposals: 0 }
    this.underWay = begun
    let failure: string | null = null
    const run = runSweep(
      {
        stores,
        model: () => this.deps.model(config),
        now: () => new Date(this.deps.clock.now()).toISOString(),
        signal,
        sources: this.deps.sources?.(config, stores),
        onProgress: (tally) => {
          this.underWay = { ...begun, ...tally }
        },
      },
      { trigger, budget },
    ).catch((error: unknown) => {
      failure = messageOf(error)
      this.deps.logger.warn('near-duplicate sweep failed: %s', failure)
      return undefined
    })
    this.running = run
    try {
      const sweep = await run
      if (forced)
        this.askedOutcome = {
          startedAt,
          sweep: sweep ?? null,
          error: sweep === undefined ? (failure ?? 'the sweep did not run') : null,
        }
      return sweep
    } finally {
      this.running = undefined
      this.underWay = undefined
    }
  }
}
