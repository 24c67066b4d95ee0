/**
 * SyncService: the shell that runs sync rounds (sync-round.ts) when the schedule (sync-schedule.ts) says: at start,
 * a few seconds after writes, on a timer, on "Sync now", and once more at stop within a bound, so a one-shot headless
 * run sends what it wrote. One round at a time; a failed round is retried with backoff. `noteWrite()` only notes the
 * instant and may arm a timer: it never waits for, runs or fails with a round, whatever state the target is in. It
 * keeps what the status shows (sync-status.schema.ts) in memory.
 */
import type { Clock } from '../clock.ts'
import type { OpenedTarget } from './open-round-target.ts'
import {
  DEFAULT_SCHEDULE,
  INITIAL_SCHEDULE,
  nextRoundAt,
  noteWrite,
  requestRound,
  roundFinished,
  roundStarted,
  type SchedulePolicy,
  type ScheduleState,
} from './sync-schedule.ts'
import type { SyncLogPort } from './sync-log-port.ts'
import { runSyncRound, type RoundOptions, type RoundReport, type RoundTarget } from './sync-round.ts'
import type { SyncPeer, SyncProblem, SyncRoundSummary, SyncStatus } from './sync-status.schema.ts'
import { classifyProblem, foldPeers, newestClocks, skewProblems } from './sync-status.ts'
import { withinBound } from './within-bound.ts'

/** What the service needs. */
export interface SyncServiceOptions {
  /** The store side. */
  readonly port: SyncLogPort
  /** Opens the target for one round (open-round-target.ts); called per round, so a share that comes back is used again. */
  readonly openTarget: () => Promise<OpenedTarget>
  /** The target as the status shows it (URLs masked), and whether files are sealed with a passphrase. */
  readonly shown: { readonly kind: 'folder' | 'git'; readonly where: string; readonly encrypted: boolean }
  readonly clock: Clock
  readonly policy?: SchedulePolicy
  /** Numbers in [0, 1) for the backoff's jitter; Math.random by default. */
  readonly random?: () => number
  readonly roundOptions?: RoundOptions
  /** Runs one round; runSyncRound by default (a seam for tests of a round that hangs). */
  readonly runRound?: (port: SyncLogPort, target: RoundTarget, options: RoundOptions) => Promise<RoundReport>
  /** Called after every round (the page's live update); a throw in it is ignored. */
  readonly onRoundEnd?: (report: RoundReport) => void
}

/** A round's settings when none are given: compaction past 64 segments. */
export const DEFAULT_ROUND_OPTIONS: RoundOptions = { compactAfterSegments: 64 }

/** How a stop went. */
export interface Stopped {
  /** False when the bound passed first: the round in flight goes on in the background, unawaited, and no last round follows. */
  readonly finished: boolean
  /** Whether a last round ran (it does when own records wait to be sealed, or the last round failed). */
  readonly finalRound: boolean
}

const STOPPED_REPORT: RoundReport = {
  received: 0,
  sent: 0,
  compacted: false,
  devices: [],
  problems: ['sync has stopped'],
  ok: false,
}

/** Runs the rounds of one device against one target. */
export class SyncService {
  private readonly options: SyncServiceOptions
  private readonly policy: SchedulePolicy
  private state: ScheduleState = INITIAL_SCHEDULE
  private started = false
  private stopped = false
  private timerAt: number | null = null
  private cancelTimer: (() => void) | null = null
  private inFlight: Promise<RoundReport> | null = null
  private waiters: ((report: RoundReport) => void)[] = []
  private peers: SyncPeer[] = []
  private readonly skew = new Map<string, SyncProblem>()
  private last: { summary: SyncRoundSummary; problems: readonly string[] } | null = null

  /** @param options - see {@link SyncServiceOptions}. */
  constructor(options: SyncServiceOptions) {
    this.options = options
    this.policy = options.policy ?? DEFAULT_SCHEDULE
  }

  /** Begin: the first round runs on the next tick, then as the schedule says. */
  start(): void {
    if (this.started || this.stopped) return
    this.started = true
    this.arm()
  }

  /** A write was committed: a round follows once writes pause. Returns at once and never throws. */
  noteWrite(): void {
    this.state = noteWrite(this.state, this.options.clock.now())
    if (this.started && !this.stopped && !this.state.running) this.arm()
  }

  /**
   * "Sync now": run a round at once, or right after the one in flight.
   * @returns that round's report.
   */
  syncNow(): Promise<RoundReport> {
    if (this.stopped) return Promise.resolve(STOPPED_REPORT)
    this.state = requestRound(this.state)
    if (this.state.running) return new Promise((resolve) => this.waiters.push(resolve))
    return this.startRound()
  }

  /**
   * Stop: no timer fires again; the round in flight is awaited, then a last round sends what is waiting, all within
   * `boundMs` (on the service's clock).
   * @param boundMs - the longest the stop waits.
   * @returns whether it finished in time and whether a last round ran.
   */
  async stop(boundMs: number): Promise<Stopped> {
    if (this.stopped) return { finished: true, finalRound: false }
    this.stopped = true
    this.disarm()
    let finalRound = false
    // With no bound the caller closes the store at once: no last round is started on it.
    let abandoned = boundMs <= 0
    const work = (async () => {
      if (this.inFlight !== null) await this.inFlight
      // Past the bound the caller may have closed the store: no last round then.
      if (abandoned) return
      const { port } = this.options
      // A failed round may have sealed records it could not push (git): the last round tries again.
      if (this.state.failures > 0 || port.pending() > 0) {
        finalRound = true
        await this.startRound()
      }
    })()
    // No bound: nothing is awaited and no timer is armed, so a stop that closes the store at once leaves the clock bare.
    const finished = await withinBound(this.options.clock, boundMs, work)
    abandoned = !finished
    for (const waiter of this.waiters.splice(0)) waiter(STOPPED_REPORT)
    return { finished, finalRound }
  }

  /**
   * What the page and `status` show.
   * @returns the status (valid against syncStatusSchema).
   */
  status(): SyncStatus {
    const { port, shown, clock } = this.options
    const due = this.stopped ? null : nextRoundAt(this.state, this.policy)
    const iso = (ms: number): string => new Date(ms).toISOString()
    const problems = this.last?.problems.map(classifyProblem) ?? []
    return {
      state: 'on',
      target: { kind: shown.kind, where: shown.where },
      encrypted: shown.encrypted,
      device: port.device(),
      devices: this.peers,
      lastRound: this.last?.summary ?? null,
      pending: port.pending(),
      problems: [...problems, ...this.skew.values()],
      running: this.state.running,
      failures: this.state.failures,
      nextRoundAt: due === null ? null : iso(Math.max(due, clock.now())),
    }
  }

  /** Arm the timer for the next due round, unless an earlier timer stands (it re-arms when it fires). */
  private arm(): void {
    if (!this.started || this.stopped) return
    const { clock } = this.options
    const due = nextRoundAt(this.state, this.policy)
    if (due === null) {
      this.disarm()
      return
    }
    const at = Math.max(due, clock.now())
    if (this.timerAt !== null && this.timerAt <= at) return
    this.disarm()
    this.timerAt = at
    this.cancelTimer = clock.after(at - clock.now(), () => {
      this.timerAt = null
      this.cancelTimer = null
      this.tick()
    })
  }

  private disarm(): void {
    this.cancelTimer?.()
    this.cancelTimer = null
    this.timerAt = null
  }

  /** The timer fired: run the round if it is due, else wait for it. */
  private tick(): void {
    if (this.stopped || this.state.running) return
    const due = nextRoundAt(this.state, this.policy)
    if (due === null) return
    if (due > this.options.clock.now()) this.arm()
    else void this.startRound()
  }

  private startRound(): Promise<RoundReport> {
    const { clock } = this.options
    this.state = roundStarted(this.state)
    const waiters = this.waiters.splice(0)
    const startedAt = clock.now()
    const round = this.roundBody().then((report) => {
      const finishedAt = clock.now()
      this.state = roundFinished(this.state, finishedAt, report.ok, this.policy, (this.options.random ?? Math.random)())
      const outcome = !report.ok ? 'failed' : report.problems.length > 0 ? 'partial' : 'ok'
      this.last = {
        summary: {
          startedAt: new Date(startedAt).toISOString(),
          finishedAt: new Date(finishedAt).toISOString(),
          outcome,
          sent: report.sent,
          received: report.received,
          compacted: report.compacted,
        },
        problems: report.problems,
      }
      this.inFlight = null
      for (const waiter of waiters) waiter(report)
      // A request made during the round runs one more round right after it; anything else waits for its time.
      if (!this.stopped && this.state.requested) void this.startRound()
      else this.arm()
      try {
        this.options.onRoundEnd?.(report)
      } catch {
        // A listener's failure is not the round's.
      }
      return report
    })
    this.inFlight = round
    return round
  }

  /** One round; never rejects: an opening failure or a throw is a failed round in words. */
  private async roundBody(): Promise<RoundReport> {
    const { port, clock } = this.options
    try {
      const opened = await this.options.openTarget()
      if (!opened.ok)
        return { received: 0, sent: 0, compacted: false, devices: [], problems: [opened.reason], ok: false }
      const newest = new Map<string, string>()
      const observed: SyncLogPort = {
        device: () => port.device(),
        ownLog: () => port.ownLog(),
        ownLogAfter: (hlc, limit) => port.ownLogAfter(hlc, limit),
        pending: () => port.pending(),
        settled: () => port.settled(),
        publishedThrough: () => port.publishedThrough(),
        markPublished: (hlc) => port.markPublished(hlc),
        cursor: () => port.cursor(),
        // The other devices' names go through too: they name the machine a conflict came from.
        receive: (records, cursor, names) => {
          const received = port.receive(records, cursor, names)
          // A round hands records over in slices: the newest clock per device is over all of them.
          for (const [device, hlc] of newestClocks(records))
            if ((newest.get(device) ?? '') < hlc) newest.set(device, hlc)
          return received
        },
      }
      const run = this.options.runRound ?? runSyncRound
      const report = await run(observed, opened.target, this.options.roundOptions ?? DEFAULT_ROUND_OPTIONS)
      this.observe(report, newest, clock.now())
      return report
    } catch (error) {
      return {
        received: 0,
        sent: 0,
        compacted: false,
        devices: [],
        problems: [`the sync round failed: ${(error as Error).message}`],
        ok: false,
      }
    }
  }

  /** Note the devices a round found, their newest clocks, and any clock running well ahead. */
  private observe(report: RoundReport, newest: ReadonlyMap<string, string>, now: number): void {
    const names = new Map(report.devices.map((entry) => [entry.device, entry.name]))
    const seenAt = new Date(now).toISOString()
    this.peers = foldPeers(
      this.peers,
      report.devices.map((entry) => ({
        id: entry.device,
        name: entry.name,
        lastRecordClock: newest.get(entry.device) ?? null,
        seenAt,
      })),
    )
    for (const device of newest.keys()) this.skew.delete(device)
    for (const [device, problem] of skewProblems(newest, (id) => names.get(id) ?? id, now))
      this.skew.set(device, problem)
  }
}
