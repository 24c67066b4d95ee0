/**
 * The vector sweep's shell: when it runs. With an embedding channel configured and `vectorIndexIntervalMs` above 0,
 * the first sweep comes {@link FIRST_SWEEP_MS} after the plugin loads and then one every interval; a committed
 * change to the memory (a write, a pass, an import, an edit) asks for one {@link ASKED_DELAY_MS} later, changes
 * arriving meanwhile riding along, and it reads only the facts changed since the last completed sweep began (their
 * index), so a write in a large library costs a few rows, not a scan. With the interval at 0 only `index-vectors` sweeps. Sweeps never overlap; a sweep
 * that failed silences the asked-for sweeps until the next timed or manual one, so a failing endpoint is retried on
 * the next sweep, never in a loop. Unloading flushes an asked-for sweep within a bounded wait, so a one-shot headless
 * run that wrote a fact leaves its vector for the next run.
 */
import type { Clock } from '../clock.ts'
import type { ResolvedConfig } from '../config.ts'
import { messageOf } from '../errors.ts'
import type { OpenStores } from '../store/store-set.ts'
import { embeddingSettings } from './settings.ts'
import type { EndpointAccess } from './types.ts'
import { runVectorSweep, sweepEmbedder, type VectorSweepResult } from './vector-sweep-run.ts'

/** The first timed sweep after the plugin loads. */
export const FIRST_SWEEP_MS = 15_000
/** How soon a committed change's sweep starts: changes within this window share it. */
export const ASKED_DELAY_MS = 250
/**
 * How far before the last completed sweep's start an asked-for sweep looks: it reads only the facts changed since
 * then (their index), and this margin covers a writer in another process whose clock runs a little behind.
 */
export const NARROW_MARGIN_MS = 5 * 60_000

/** What the service needs, each read when used. */
export interface VectorSweepServiceDeps {
  readonly clock: Clock
  readonly logger: { warn(format: string, ...args: unknown[]): void }
  readonly stores: () => OpenStores | undefined
  readonly config: () => ResolvedConfig | undefined
  readonly access: EndpointAccess
}

/** The answer to `index-vectors`. */
export type AskedVectorSweep =
  | { readonly ran: true; readonly sweep: VectorSweepResult }
  | { readonly ran: false; readonly reason: 'not_configured' | 'no_store'; readonly message: string }

/** The vector sweep's timers and runs. */
export class VectorSweepService {
  private readonly deps: VectorSweepServiceDeps
  private cancelTimers: (() => void)[] = []
  private cancelAsked: (() => void) | undefined
  private armedFor: string | undefined
  private running: Promise<VectorSweepResult | undefined> | undefined
  private again = false
  /** A timed sweep came while another ran: it runs, reading every fact, when that one ends. */
  private fullWanted = false
  private silenced = false
  /** When the service began: before any sweep has completed, an asked-for sweep looks at what changed since then. */
  private readonly loadedAt: number
  private abort = new AbortController()
  private lastResult: VectorSweepResult | undefined
  /** Where the last completed sweep began, for the store and fingerprint it swept: asked-for sweeps look from there. */
  private coveredFrom: { readonly key: string; readonly at: number } | undefined

  constructor(deps: VectorSweepServiceDeps) {
    this.deps = deps
    this.loadedAt = deps.clock.now()
  }

  /**
   * Arm or disarm the timer for a configuration: armed while the plugin is enabled, an embedding channel is
   * configured and the interval is above 0. A change of fingerprint or interval re-arms it (first sweep
   * {@link FIRST_SWEEP_MS} later); an unchanged one is left alone.
   * @param config - the configuration in force.
   */
  follow(config: ResolvedConfig | undefined): void {
    const settings = config === undefined || !config.enabled ? undefined : embeddingSettings(config)
    const wanted =
      settings?.configured === true && settings.intervalMs > 0
        ? `${settings.fingerprint}|${settings.intervalMs}`
        : undefined
    if (wanted === this.armedFor) return
    this.cancel()
    this.armedFor = wanted
    if (wanted === undefined || settings?.configured !== true) return
    // A sweep under way keeps its controller, so stop() still aborts it; only a stopped service gets a fresh one.
    if (this.abort.signal.aborted) this.abort = new AbortController()
    const interval = settings.intervalMs
    this.cancelTimers.push(
      this.deps.clock.after(FIRST_SWEEP_MS, () => {
        void this.timed()
        this.cancelTimers.push(
          this.deps.clock.every(interval, () => {
            void this.timed()
          }),
        )
      }),
    )
  }

  /** Whether automatic sweeps are armed. */
  get armed(): boolean {
    return this.armedFor !== undefined
  }

  /** A committed change asks for a sweep soon (only while armed and not silenced by a failure). */
  changed(): void {
    if (this.armedFor === undefined || this.silenced) return
    if (this.running !== undefined) {
      this.again = true
      return
    }
    if (this.cancelAsked !== undefined) return
    this.cancelAsked = this.deps.clock.after(ASKED_DELAY_MS, () => {
      this.cancelAsked = undefined
      void this.run(true)
    })
  }

  /**
   * A sweep now (`index-vectors`, the settings card's "Rebuild vectors"), whatever the interval.
   * @returns the sweep, or why none ran.
   */
  async sweepNow(): Promise<AskedVectorSweep> {
    const config = this.deps.config()
    const settings = config === undefined ? undefined : embeddingSettings(config)
    if (settings?.configured !== true)
      return {
        ran: false,
        reason: 'not_configured',
        message: settings?.configured === false ? settings.reason : 'the plugin is not configured yet',
      }
    if (this.deps.stores() === undefined)
      return { ran: false, reason: 'no_store', message: 'the fact store is not open' }
    if (this.running !== undefined) await this.running
    const sweep = await this.run()
    return sweep === undefined
      ? { ran: false, reason: 'no_store', message: 'the fact store is not open' }
      : { ran: true, sweep }
  }

  /** The last sweep's result since the plugin loaded. */
  last(): VectorSweepResult | undefined {
    return this.lastResult
  }

  /**
   * Flush on unload: an asked-for sweep still waiting starts now, and one asked for during the sweep under way starts
   * when that ends (unless a failure silenced them); this waits for the sweeps, at most `ms` in all.
   * @param ms - the longest wait.
   */
  async drain(ms: number): Promise<void> {
    const until = this.deps.clock.now() + ms
    const left = (): number => until - this.deps.clock.now()
    while (left() > 0) {
      if (this.running !== undefined) {
        await this.waitAtMost(this.running, left())
        continue
      }
      const waiting = this.cancelAsked !== undefined || (this.again && !this.silenced)
      if (!waiting) return
      this.cancelAsked?.()
      this.cancelAsked = undefined
      this.again = false
      void this.run(true)
      // A sweep that could not start (no store, no channel) leaves nothing to wait for.
      if (this.running === undefined) return
    }
  }

  /**
   * Cancel the timers and abort a sweep under way.
   * @returns when the sweep under way, if any, has ended.
   */
  async stop(): Promise<void> {
    this.cancel()
    this.armedFor = undefined
    this.abort.abort(new Error('the plugin is unloading'))
    await this.running
  }

  private cancel(): void {
    for (const cancel of this.cancelTimers.splice(0)) cancel()
    this.cancelAsked?.()
    this.cancelAsked = undefined
  }

  private async timed(): Promise<void> {
    this.silenced = false
    if (this.running === undefined) await this.run()
    else this.fullWanted = true
  }

  private async waitAtMost(work: Promise<unknown>, ms: number): Promise<void> {
    let cancel: (() => void) | undefined
    await Promise.race([
      work,
      new Promise<void>((resolve) => {
        cancel = this.deps.clock.after(ms, resolve)
      }),
    ])
    cancel?.()
  }

  /**
   * One sweep. An asked-for one (`narrow`) looks only at the facts changed since the last completed sweep began, or
   * before any, since the service began (less {@link NARROW_MARGIN_MS}), so the facts a one-shot run wrote come first
   * whatever backlog the library holds; every timed or manual one looks at every fact.
   */
  private async run(narrow = false): Promise<VectorSweepResult | undefined> {
    if (this.running !== undefined) {
      this.again = true
      return this.running
    }
    const stores = this.deps.stores()
    const config = this.deps.config()
    const settings = config === undefined ? undefined : embeddingSettings(config)
    if (stores === undefined || settings?.configured !== true) return undefined
    this.again = false
    const signal = this.abort.signal.aborted ? AbortSignal.abort() : this.abort.signal
    const access = this.deps.access
    const key = `${stores.dataDir}|${settings.fingerprint}`
    const startedAt = this.deps.clock.now()
    const from = this.coveredFrom?.key === key ? this.coveredFrom.at : this.loadedAt
    const since = narrow ? new Date(from - NARROW_MARGIN_MS).toISOString() : undefined
    if (!narrow) this.fullWanted = false
    const work = runVectorSweep({
      vectors: stores.vectors,
      settings,
      since,
      now: () => new Date(this.deps.clock.now()).toISOString(),
      signal,
      embed: sweepEmbedder(access, settings),
    }).catch((error: unknown) => {
      this.deps.logger.warn('vector sweep failed: %s', messageOf(error))
      return undefined
    })
    this.running = work
    try {
      const result = await work
      if (result !== undefined) {
        this.lastResult = result
        if (result.outcome === 'swept') this.coveredFrom = { key, at: startedAt }
        this.silenced = result.outcome === 'failed'
        if (result.outcome === 'failed')
          this.deps.logger.warn('vector sweep stopped: %s', result.error?.message ?? 'unknown reason')
      }
      return result
    } finally {
      this.running = undefined
      if (this.fullWanted && this.armedFor !== undefined) {
        this.again = false
        void this.run()
      } else if (this.again && !this.silenced && this.armedFor !== undefined) {
        this.again = false
        this.changed()
      }
    }
  }
}
