/**
 * The health check's shell over time: the timer that looks at the clock two minutes after it starts and then once a
 * minute, running a check when `decideRun` says one is due (`autoAudit`, `auditIntervalMs`, read live at every
 * look), and the way a person asks for one now. The last run's time lives in memory; runs never overlap. The timers
 * run on the Clock seam (the system clock's are unref'd, so they never keep a headless run alive) and end with
 * {@link AuditService.stop}.
 */
import type { Clock } from '../clock.ts'
import type { ResolvedConfig } from '../config.ts'
import { messageOf } from '../errors.ts'
import type { AuditRun } from '../store/audit-store.ts'
import type { OpenStores } from '../store/store-set.ts'
import { runAudit } from './audit-run.ts'
import { decideRun, FIRST_LOOK_MS, LOOK_EVERY_MS, type RunDecision } from './schedule.ts'

/** What the service reads of its surroundings, at each look. */
export interface AuditServiceDeps {
  readonly clock: Clock
  /** The live configuration, or undefined before there is one. */
  readonly config: () => ResolvedConfig | undefined
  /** The open stores, or undefined while the store is closed or failed. */
  readonly stores: () => OpenStores | undefined
  /** Where a run that failed is reported. */
  readonly warn: (message: string) => void
}

/** Why a run asked for now did not start. */
export type AuditRefusal = {
  readonly ran: false
  readonly reason: Exclude<RunDecision['reason'], 'first' | 'interval' | 'asked'> | 'unavailable'
}

/** The health check as the runtime owns it and the `audit` verb asks it. */
export interface AuditView {
  /** Run one check now, as a person asked; refused while the feature is off or a run is under way. */
  runNow(): { readonly ran: true; readonly run: AuditRun } | AuditRefusal
}

/** The timer and the manual run of the health check. */
export class AuditService implements AuditView {
  private readonly deps: AuditServiceDeps
  private lastRunAt: number | undefined
  private running = false
  private cancel: (() => void) | undefined

  /** @param deps - clock, live config and stores, and where failures are reported. */
  constructor(deps: AuditServiceDeps) {
    this.deps = deps
  }

  /**
   * Start the timer (its first look is {@link FIRST_LOOK_MS} away); a running timer is left as it is, so a settings
   * change does not push the next look back. The runtime runs it only while `autoAudit` is on and `auditIntervalMs`
   * is above 0; each look still reads both live.
   */
  start(): void {
    if (this.cancel !== undefined) return
    let cancelEvery: (() => void) | undefined
    const cancelFirst = this.deps.clock.after(FIRST_LOOK_MS, () => {
      this.look()
      cancelEvery = this.deps.clock.every(LOOK_EVERY_MS, () => this.look())
    })
    this.cancel = () => {
      cancelFirst()
      cancelEvery?.()
    }
  }

  /** Stop the timer. Idempotent. */
  stop(): void {
    this.cancel?.()
    this.cancel = undefined
  }

  runNow(): { readonly ran: true; readonly run: AuditRun } | AuditRefusal {
    return this.attempt(true)
  }

  /** One look of the timer; whatever goes wrong is reported, never thrown into the host's timer. */
  private look(): void {
    try {
      const outcome = this.attempt(false)
      if (outcome.ran && outcome.run.error !== null) this.deps.warn(`the health check failed: ${outcome.run.error}`)
    } catch (error) {
      this.deps.warn(`the health check failed: ${messageOf(error)}`)
    }
  }

  private attempt(asked: boolean): { readonly ran: true; readonly run: AuditRun } | AuditRefusal {
    const config = this.deps.config()
    const schedule = { enabled: config?.enabled === true && config.autoAudit, intervalMs: config?.auditIntervalMs ?? 0 }
    const decision = decideRun(schedule, this.lastRunAt, this.deps.clock.now(), this.running, asked)
    if (!decision.run) return { ran: false, reason: decision.reason }
    const stores = this.deps.stores()
    if (stores === undefined) return { ran: false, reason: 'unavailable' }
    this.running = true
    try {
      this.lastRunAt = this.deps.clock.now()
      return { ran: true, run: runAudit(stores, this.deps.clock, asked ? 'asked' : 'timer') }
    } finally {
      this.running = false
    }
  }
}
