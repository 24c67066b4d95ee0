/**
 * SyncSupervisor: keeps one sync service (sync-service.ts) in line with the settings in force and the store that is
 * open. A valid `syncTarget` turns the store's recording on and starts a service on it, with the passphrase resolved
 * from the host credential store; an empty one stops the service and the recording; a change of target, passphrase,
 * interval or store stops the old service (its last round within a bound) before the new one starts, so two services
 * never share a store. The passphrase is read per round, so one stored from the settings card applies at once. A new target receives a fresh snapshot of the library. `noteChange()` is what every committed
 * change calls: it only tells the service, and never while a round's own receiving is the change.
 */
import type { Clock } from '../clock.ts'
import { openRoundTarget } from './open-round-target.ts'
import type { RoundHold } from './round-hold.ts'
import { SegmentCipher } from './segment-cipher.ts'
import type { ResolveCredential, SyncCipherRead } from './sync-passphrase.ts'
import type { SyncLogPort } from './sync-log-port.ts'
import type { RoundReport } from './sync-round.ts'
import { DEFAULT_SCHEDULE, type SchedulePolicy } from './sync-schedule.ts'
import { DEFAULT_ROUND_OPTIONS, SyncService, type Stopped } from './sync-service.ts'
import { readDeviceName, readSyncSettings, type SyncConfig, type SyncSettings } from './sync-settings.ts'
import type { SyncStatus } from './sync-status.schema.ts'
import { idleSyncStatus } from './sync-status.ts'
import { withinBound } from './within-bound.ts'

/** The store's sync log as the supervisor drives it: the port, and recording switched on and off. */
export interface SyncLogControl extends SyncLogPort {
  /** Turn recording on; the library is written as records first, in slices that yield the event loop. A no-op when on. */
  enableSync(now: string, pause?: () => Promise<void>): Promise<unknown>
  /** Stop recording; the log stays. */
  disableSync(): void
  /** Whether sensitive values may leave the machine. */
  setIncludeSensitive(allowed: boolean): void
  /** The port whose read cursor is that of one target (as shown). */
  forTarget(target: string): SyncLogPort
  /** Name this device (null: follow the host name). */
  setDeviceName(name: string | null): void
  /** The store's receive; `beforeCommit` runs inside its transaction, after the records are applied. */
  receive(
    records: Parameters<SyncLogPort['receive']>[0],
    cursor: Parameters<SyncLogPort['receive']>[1],
    names?: Parameters<SyncLogPort['receive']>[2],
    target?: string,
    beforeCommit?: () => void,
  ): ReturnType<SyncLogPort['receive']>
}

/** The open store, as sync needs it. */
export interface SyncStoreView {
  readonly log: SyncLogControl
  /** The plugin's data directory (the git working copy lives under it). */
  readonly dataDir: string
  /** The target the store last synced to (empty: none), kept across restarts. */
  lastTarget(): string
  rememberTarget(target: string): void
}

/** What the supervisor needs. */
export interface SyncSupervisorDeps {
  readonly clock: Clock
  /** The open store, or undefined while none is. */
  readonly store: () => SyncStoreView | undefined
  /** The host credential store, then the environment. */
  readonly resolveCredential: ResolveCredential
  readonly logger: { info(format: string, ...args: unknown[]): void; warn(format: string, ...args: unknown[]): void }
  /** Tunables for tests; the defaults a user gets otherwise. */
  readonly policy?: Partial<SchedulePolicy>
  readonly gitTimeoutMs?: number
  /** Whether recording must stay on with no sync target (team memory writes from the same log); false by default. */
  readonly keepsRecording?: () => boolean
  /** Test-only: where rounds may be held (round-hold.ts); none for every user. */
  readonly hold?: RoundHold
}

/** Thrown between snapshot slices when the start it belongs to is no longer wanted. */
class SnapshotInterrupted extends Error {}

/** Longest a superseded service's last round may take when the settings change (the store stays open meanwhile). */
const SWITCH_BOUND_MS = 5_000

/** What "Sync now" answers: the round's report, or why no round can run. */
export type SyncNowOutcome =
  | { readonly ran: true; readonly report: RoundReport; readonly status: SyncStatus }
  | { readonly ran: false; readonly reason: string }

/** What is wanted: no sync, a settings error, or a service of these settings on this store. */
type Wanted =
  | { readonly kind: 'none' }
  | { readonly kind: 'off'; readonly store: SyncStoreView }
  | { readonly kind: 'error'; readonly store: SyncStoreView; readonly message: string }
  | { readonly kind: 'on'; readonly store: SyncStoreView; readonly settings: SyncSettings; readonly key: string }

/** One service and the store it runs on. */
interface Running {
  readonly service: SyncService
  readonly store: SyncStoreView
  readonly key: string
}

/** Follows the settings; owns the sync service. */
export class SyncSupervisor {
  private readonly deps: SyncSupervisorDeps
  private wanted: Wanted = { kind: 'none' }
  private running: Running | undefined
  /** Settings applied one after another: a stop is awaited before the next start. */
  private chain: Promise<void> = Promise.resolve()
  /** Bumped per change of what is wanted: a start that finds it moved on gives up. */
  private turn = 0
  /** Why the passphrase could not be read, while it cannot. */
  private passphraseProblem: string | undefined
  /** True while a round hands received records to the store: that change is not a write to sync. */
  private receiving = false
  private stopped = false
  /** The device name last given to a store, so a settings change that keeps it writes nothing. */
  private named: { readonly log: SyncLogControl; readonly name: string | null } | undefined

  /** @param deps - see {@link SyncSupervisorDeps}. */
  constructor(deps: SyncSupervisorDeps) {
    this.deps = deps
  }

  /**
   * Bring sync in line with the settings in force and the open store. Returns at once; the service starts or stops
   * in the background, in order.
   * @param config - the sync keys of the configuration in force; undefined (or a disabled plugin) stops sync.
   */
  follow(config: (SyncConfig & { readonly enabled: boolean }) | undefined): void {
    if (this.stopped) return
    const store = config?.enabled === true ? this.deps.store() : undefined
    if (config !== undefined && store !== undefined) this.nameDevice(store.log, readDeviceName(config.syncDeviceName))
    const wanted = wantedOf(config, store)
    if (sameWanted(wanted, this.wanted)) return
    this.wanted = wanted
    this.turn += 1
    const turn = this.turn
    this.chain = this.chain
      .then(() => this.apply(wanted, turn))
      .catch((error: unknown) => {
        if (error instanceof SnapshotInterrupted) return
        this.deps.logger.warn('fact memory: sync could not start: %s', (error as Error).message)
      })
  }

  /**
   * Give the store the device name the settings ask for; the next round writes it into this device's device.json, and
   * the other machines take it from there at their next round.
   */
  private nameDevice(log: SyncLogControl, name: string | null): void {
    if (this.named?.log === log && this.named.name === name) return
    try {
      log.setDeviceName(name)
      this.named = { log, name }
    } catch (error) {
      this.deps.logger.warn('fact memory: the device name could not be kept: %s', (error as Error).message)
    }
  }

  /** A change was committed to the memory: a round follows once changes pause. Never waits, never throws. */
  noteChange(): void {
    if (!this.receiving) this.running?.service.noteWrite()
  }

  /**
   * What `status` and the page show.
   * @returns the status, or null while no store is open.
   */
  status(): SyncStatus | null {
    const wanted = this.wanted
    if (wanted.kind === 'none') return null
    try {
      const device = wanted.store.log.device()
      if (wanted.kind === 'off') return idleSyncStatus(device, { kind: 'off' })
      if (wanted.kind === 'error') return idleSyncStatus(device, { kind: 'error', message: wanted.message })
      const running = this.running
      if (running !== undefined && running.key === wanted.key) return running.service.status()
      // Starting (the passphrase is being read), or the passphrase could not be read.
      const idle = idleSyncStatus(device, { kind: 'off' })
      return {
        ...idle,
        state: 'on',
        target: { kind: wanted.settings.target.kind, where: wanted.settings.shown },
        encrypted: wanted.settings.passphraseRef !== null,
        problems: this.passphraseProblem === undefined ? [] : [{ code: 'passphrase', message: this.passphraseProblem }],
      }
    } catch {
      return null
    }
  }

  /**
   * "Sync now": a round at once (or right after the one in flight).
   * @returns the round's report and the status after it, or why none can run.
   */
  async syncNow(): Promise<SyncNowOutcome> {
    const wanted = this.wanted
    if (wanted.kind === 'none') return { ran: false, reason: 'the store is not open' }
    if (wanted.kind === 'off')
      return { ran: false, reason: 'sync is off: set syncTarget to a folder or a git remote first' }
    if (wanted.kind === 'error') return { ran: false, reason: `sync is not running: ${wanted.message}` }
    // A start under way (the passphrase being read) is waited for.
    await this.chain
    const running = this.running
    if (running === undefined || running.key !== wanted.key)
      return { ran: false, reason: this.passphraseProblem ?? 'sync is starting; try again in a moment' }
    const report = await running.service.syncNow()
    return { ran: true, report, status: running.service.status() }
  }

  /**
   * Stop for good: the round in flight is awaited, then a last round sends what waits, within `boundMs`.
   * @param boundMs - the longest the stop waits.
   * @returns how the service's stop went, or undefined when none ran.
   */
  async stop(boundMs: number): Promise<Stopped | undefined> {
    this.stopped = true
    this.turn += 1
    const until = this.deps.clock.now() + boundMs
    // A start under way finishes first (it gives up, the turn having moved), within the bound. With no bound, no
    // timer is armed: the stop that closes the store at once leaves nothing on the clock.
    await withinBound(this.deps.clock, boundMs, this.chain)
    const running = this.running
    this.running = undefined
    this.wanted = { kind: 'none' }
    if (running === undefined) return undefined
    return running.service.stop(Math.max(0, until - this.deps.clock.now()))
  }

  /** Stop what runs unless it is what is wanted, then start what is wanted. */
  private async apply(wanted: Wanted, turn: number): Promise<void> {
    const running = this.running
    if (running !== undefined && !(wanted.kind === 'on' && running.key === wanted.key)) {
      this.running = undefined
      // The same store still open: its last round may send what waits. Another store: the old one is closed.
      const bound = wanted.kind !== 'none' && wanted.store.log === running.store.log ? SWITCH_BOUND_MS : 0
      await running.service.stop(bound)
      this.deps.logger.info('fact memory: sync stopped')
    }
    if (turn !== this.turn || this.stopped) return
    this.passphraseProblem = undefined
    if (wanted.kind === 'off') {
      if (this.deps.keepsRecording?.() !== true) wanted.store.log.disableSync()
      return
    }
    if (wanted.kind !== 'on' || this.running !== undefined) return
    const { settings, store } = wanted
    const now = new Date(this.deps.clock.now()).toISOString()
    // A target this log was never sealed into gets the library afresh: recording restarts with a new snapshot.
    const before = store.lastTarget()
    if (before !== '' && before !== settings.shown) store.log.disableSync()
    store.log.setIncludeSensitive(settings.sensitive)
    // Between slices of the snapshot: give up when the settings moved on or the plugin stops (the store may close);
    // the snapshot resumes after its last committed slice the next time sync starts.
    await store.log.enableSync(now, async () => {
      await new Promise<void>((resolve) => setImmediate(resolve))
      if (turn !== this.turn || this.stopped) throw new SnapshotInterrupted()
    })
    if (turn !== this.turn || this.stopped) return
    store.rememberTarget(settings.shown)
    const cipher = this.cipherSource(settings.passphraseRef)
    // Read once before the service starts, so the status says from the first moment whether files are encrypted.
    const first = await cipher.current()
    if (turn !== this.turn || this.stopped) return
    if (!first.ok) {
      this.passphraseProblem = first.reason
      this.deps.logger.warn('fact memory: %s', first.reason)
    }
    const log = store.log
    // The cursor is this target's: a folder or remote switched to is read from its own start.
    const bound = log.forTarget(settings.shown)
    const port: SyncLogPort = {
      ...bound,
      receive: (records, cursor, names) => {
        this.receiving = true
        try {
          const hold = this.deps.hold
          return log.receive(
            records,
            cursor,
            names,
            settings.shown,
            hold === undefined ? undefined : () => hold.block('applying'),
          )
        } finally {
          this.receiving = false
        }
      },
    }
    let failing = false
    const service = new SyncService({
      port,
      clock: this.deps.clock,
      shown: {
        kind: settings.target.kind,
        where: settings.shown,
        get encrypted(): boolean {
          return cipher.encrypted()
        },
      },
      policy: { ...DEFAULT_SCHEDULE, intervalMs: settings.intervalMs, ...this.deps.policy },
      ...(this.deps.hold === undefined ? {} : { roundOptions: { ...DEFAULT_ROUND_OPTIONS, hold: this.deps.hold } }),
      openTarget: async () => {
        const device = log.device()
        const read = await cipher.current()
        const opened = await openRoundTarget(settings.target, {
          device: device.id,
          name: device.name,
          cipher: read.ok ? read.cipher : undefined,
          dataDir: store.dataDir,
          now: new Date(this.deps.clock.now()).toISOString(),
          ...(this.deps.gitTimeoutMs === undefined ? {} : { gitTimeoutMs: this.deps.gitTimeoutMs }),
        })
        if (!opened.ok) return read.ok ? opened : { ok: false, reason: read.reason }
        if (read.ok && read.cipher !== undefined) return opened
        // A passphrase named but not read never turns an encrypted log plain (plain is chosen by clearing the
        // setting): a store that cannot be asked (a headless run, a start before it answers) lets only a device
        // whose own files are plain go on; a store that has no value stops a device whose own files are encrypted.
        const sealing = settings.passphraseRef === null ? 'plain' : await opened.target.folder.ownSealing()
        if (!read.ok && sealing !== 'plain') return { ok: false, reason: read.reason }
        if (sealing === 'encrypted') {
          return {
            ok: false,
            reason: `the sync passphrase "${settings.passphraseRef}" has no value here, and this device's files are encrypted: nothing is sent in plain files until it can be read (store it again in the settings card, or clear syncPassphraseRef to sync plain files)`,
          }
        }
        return opened
      },
      // Told once per run of failures, and once when it recovers: the status holds the rest.
      onRoundEnd: (report) => {
        if (!report.ok && !failing)
          this.deps.logger.warn('fact memory: sync to %s failed: %s', settings.shown, report.problems.join('; '))
        else if (report.ok && failing) this.deps.logger.info('fact memory: sync to %s works again', settings.shown)
        failing = !report.ok
      },
    })
    this.running = { service, store, key: wanted.key }
    service.start()
    this.deps.logger.info(
      'fact memory: sync on, to %s%s',
      settings.shown,
      cipher.encrypted() ? ' (encrypted)' : ' (plain files)',
    )
  }

  /**
   * The passphrase, read from the credential store per round (one stored from the card applies to the next round),
   * and its cipher, kept while the passphrase stays the same (the cipher caches its derived keys).
   */
  private cipherSource(ref: string | null): {
    current(): Promise<SyncCipherRead>
    encrypted(): boolean
  } {
    let kept: { readonly passphrase: string; readonly cipher: SegmentCipher } | undefined
    let plain = ref === null
    const resolve = this.deps.resolveCredential
    return {
      async current() {
        if (ref === null) return { ok: true, cipher: undefined }
        let passphrase = ''
        try {
          passphrase = (await resolve(ref))?.value ?? ''
        } catch {
          return {
            ok: false,
            reason: `the sync passphrase "${ref}" could not be read from the credential store; nothing is synced until it can`,
          }
        }
        plain = passphrase === ''
        if (plain) {
          kept = undefined
          return { ok: true, cipher: undefined }
        }
        if (kept?.passphrase !== passphrase) kept = { passphrase, cipher: new SegmentCipher(passphrase) }
        return { ok: true, cipher: kept.cipher }
      },
      encrypted: () => !plain,
    }
  }
}

/** What the settings and the store ask for. */
function wantedOf(
  config: (SyncConfig & { readonly enabled: boolean }) | undefined,
  store: SyncStoreView | undefined,
): Wanted {
  if (config === undefined || store === undefined) return { kind: 'none' }
  const read = readSyncSettings(config)
  if (read.kind === 'off') return { kind: 'off', store }
  if (read.kind === 'error') return { kind: 'error', store, message: read.message }
  const key = JSON.stringify([read.target, read.passphraseRef, read.sensitive, read.intervalMs])
  return { kind: 'on', store, settings: read, key }
}

/** Whether two wants are the same (a settings change that touches no sync key changes nothing). */
function sameWanted(a: Wanted, b: Wanted): boolean {
  if (a.kind !== b.kind) return false
  if (a.kind === 'none' || b.kind === 'none') return true
  if (a.store.log !== b.store.log) return false
  if (a.kind === 'error' && b.kind === 'error') return a.message === b.message
  if (a.kind === 'on' && b.kind === 'on') return a.key === b.key
  return true
}
