/**
 * MemoryRuntime: the live state of one applied plugin. It resolves configuration changes (from the composition or
 * the settings service) into actions — reopen the store when the data directory moves, register or withdraw the
 * tools with the master switch, restart the maintenance timer, start the health check's timer, start or stop sync
 * (SyncSupervisor) — and undoes all of it on stop.
 */
import type { Clock } from './clock.ts'
import { resolveConfig, type Config, type HomeLocator, type ResolvedConfig } from './config.ts'
import { messageOf } from './errors.ts'
import { FactMemory, type FactMemoryOptions } from './fact-memory.ts'
import type { LoggerView } from './host/ports.ts'
import { AuditService } from './review/audit-service.ts'
import type { Stopped } from './sync/sync-service.ts'
import { SyncSupervisor, type SyncSupervisorDeps } from './sync/sync-supervisor.ts'
import { readSyncSettings } from './sync/sync-settings.ts'
import { TeamMemory, type TeamMemoryDeps } from './team/team-memory.ts'

/** What the runtime needs from its surroundings. */
export interface RuntimeDeps {
  readonly clock: Clock
  /** Where DSH_HOME and the user's home are, read when a config is resolved. */
  readonly home: () => HomeLocator
  readonly logger: LoggerView
  /** Register the model-facing tools; returns their disposer. */
  readonly registerTools: () => () => void
  /** Store options beyond the clock (driver choice, migrations). */
  readonly store?: Omit<FactMemoryOptions, 'clock'>
  /** A credential by name (the host credential store, then the environment): the sync passphrase. */
  readonly resolveCredential?: (name: string) => Promise<string | undefined>
  /** Sync's schedule, git timeout and round hold, for tests; the defaults (and no hold) otherwise. */
  readonly sync?: Pick<SyncSupervisorDeps, 'policy' | 'gitTimeoutMs' | 'hold'>
  /** Team memory's schedule, for tests; the defaults otherwise. */
  readonly team?: Pick<TeamMemoryDeps, 'policy'>
}

/** The live plugin state. */
export class MemoryRuntime {
  /** The store service. */
  readonly memory: FactMemory
  /** The health check: its timer runs while the plugin is enabled; the `audit` verb asks it for a run. */
  readonly audit: AuditService
  /** Sync between machines: runs while `syncTarget` names a folder or a git remote. */
  readonly sync: SyncSupervisor
  /** Team memory: rounds in the repository folder of each project the user shares, whatever `syncTarget` says. */
  readonly team: TeamMemory
  private readonly deps: RuntimeDeps
  private resolved: ResolvedConfig | undefined
  private withdrawTools: (() => void) | undefined
  private stopTimer: (() => void) | undefined
  private timerInterval = 0

  /** @param deps - clock, home, logger and the tool registrar. */
  constructor(deps: RuntimeDeps) {
    this.deps = deps
    this.memory = new FactMemory({ clock: deps.clock, ...deps.store })
    this.audit = new AuditService({
      clock: deps.clock,
      config: () => this.resolved,
      stores: () => {
        const opened = this.memory.stores()
        return 'stores' in opened ? opened.stores : undefined
      },
      warn: (message) => this.deps.logger.warn('%s', message),
    })
    const resolve = deps.resolveCredential ?? (() => Promise.resolve(undefined))
    const openStores = () => {
      const opened = this.memory.stores()
      return 'stores' in opened ? opened.stores : undefined
    }
    this.team = new TeamMemory({
      clock: deps.clock,
      logger: deps.logger,
      ...deps.team,
      store: () => {
        const stores = openStores()
        return stores === undefined ? undefined : { log: stores.sync, team: stores.team }
      },
      syncOn: () => this.resolved !== undefined && readSyncSettings(this.resolved).kind === 'on',
    })
    this.sync = new SyncSupervisor({
      clock: deps.clock,
      logger: deps.logger,
      ...deps.sync,
      // Team memory writes its folders from the same log: recording stays on while a project is shared.
      keepsRecording: () => (openStores()?.team.shared().length ?? 0) > 0,
      resolveCredential: async (name) => {
        const value = await resolve(name)
        return value === undefined ? undefined : { value }
      },
      store: () => {
        const opened = this.memory.stores()
        if (!('stores' in opened)) return undefined
        const { sync, meta, dataDir } = opened.stores
        return {
          log: sync,
          dataDir,
          lastTarget: () => meta.get('sync_target') ?? '',
          rememberTarget: (target) => {
            meta.set('sync_target', target)
          },
        }
      },
    })
    // Every committed change passes here; sync only notes it (a round follows once changes pause).
    this.memory.onChange(() => {
      this.sync.noteChange()
      this.team.noteChange()
    })
  }

  /**
   * The configuration in force.
   * @returns the resolved config.
   * @throws when called before {@link reconfigure}.
   */
  config(): ResolvedConfig {
    if (this.resolved === undefined) throw new Error('fact memory runtime used before it was configured')
    return this.resolved
  }

  /**
   * The configuration in force, if any yet.
   * @returns the resolved config, or undefined before the first {@link reconfigure}.
   */
  current(): ResolvedConfig | undefined {
    return this.resolved
  }

  /**
   * Bring the runtime in line with a configuration; the first call starts it.
   * @param config - a validated configuration.
   */
  reconfigure(config: Config): void {
    const next = resolveConfig(config, this.deps.home())
    const previous = this.resolved
    this.resolved = next
    if (!next.enabled) {
      this.withdraw()
      this.memory.close()
      this.sync.follow(next)
      this.team.follow(next)
      if (previous?.enabled !== false) this.deps.logger.info('fact memory switched off')
      return
    }
    if (this.memory.dataDir !== next.resolvedDataDir) {
      this.memory.open(next.resolvedDataDir, next.backupKeep)
      const status = this.memory.status()
      if (status.available) {
        this.deps.logger.info('fact memory store %s (driver %s)', next.resolvedDataDir, status.driver)
        if (status.fallbackReason !== null)
          this.deps.logger.warn('better-sqlite3 unavailable, using node:sqlite: %s', status.fallbackReason)
        const rekey = this.memory.lastRekey
        for (const project of rekey?.projects ?? []) {
          this.deps.logger.info(
            'fact memory: project %s moved from its folder key to its repository key %s (%d facts; copy taken first: %s)',
            project.name,
            project.to,
            project.moved,
            rekey?.backup ?? '',
          )
        }
        if (rekey?.error !== null && rekey?.error !== undefined) this.deps.logger.warn('fact memory: %s', rekey.error)
      } else {
        this.deps.logger.warn('fact memory store unavailable: %s', status.error?.message ?? 'unknown reason')
      }
    }
    if (this.withdrawTools === undefined) this.withdrawTools = this.deps.registerTools()
    if (this.stopTimer === undefined || this.timerInterval !== next.advanceIntervalMs)
      this.startTimer(next.advanceIntervalMs)
    if (next.autoAudit && next.auditIntervalMs > 0) this.audit.start()
    else this.audit.stop()
    this.sync.follow(next)
    this.team.follow(next)
  }

  /**
   * Stop sync and team memory before the store closes: the rounds in flight, then last rounds that send what waits,
   * within a bound.
   * @param boundMs - the longest it waits.
   * @returns how the stop went, or undefined when sync was not running.
   */
  async stopSync(boundMs: number): Promise<Stopped | undefined> {
    const [stopped] = await Promise.all([this.sync.stop(boundMs), this.team.stop(boundMs)])
    return stopped
  }

  /** Undo everything: tools withdrawn, timers and sync stopped, store closed. Idempotent. */
  stop(): void {
    this.withdraw()
    // A sync still running (stopSync not awaited) ends without a last round: the store closes now.
    void this.sync.stop(0)
    void this.team.stop(0)
    this.memory.close()
  }

  private withdraw(): void {
    this.withdrawTools?.()
    this.withdrawTools = undefined
    this.stopTimer?.()
    this.stopTimer = undefined
    this.timerInterval = 0
    this.audit.stop()
  }

  private startTimer(intervalMs: number): void {
    this.stopTimer?.()
    this.stopTimer = undefined
    this.timerInterval = intervalMs
    if (intervalMs <= 0) return
    this.stopTimer = this.deps.clock.every(intervalMs, () => {
      try {
        this.memory.advance()
      } catch (error) {
        this.deps.logger.warn('scheduled/expired maintenance failed: %s', messageOf(error))
      }
    })
  }
}
