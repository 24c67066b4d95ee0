/**
 * TeamMemory: keeps one round runner (sync/sync-service.ts, the same schedule, backoff and last round at stop) per
 * project the user shares through its repository, on the open store, independent of `syncTarget`. Turning a project
 * on (`setShared`) finds its repository from a folder inside it, notes the choice in the store, turns the store's
 * recording on (the library's records are what the team folder is written from) and runs a first round at once.
 * Rounds run at start, after writes, on the sync timer and at stop; each reads the teammates' files in
 * `<root>/.fact-memory/` and writes this device's own. Never runs git: the user commits the folder with the code.
 */
import type { Clock } from '../clock.ts'
import { ProjectLocator } from '../project/project-locator.ts'
import type { SyncLogPort } from '../sync/sync-log-port.ts'
import type { RoundReport } from '../sync/sync-round.ts'
import { DEFAULT_SCHEDULE, type SchedulePolicy } from '../sync/sync-schedule.ts'
import { SyncService } from '../sync/sync-service.ts'
import type { ProjectRef } from '../types.ts'
import type { TeamShare } from '../store/team-store.ts'
import { openTeamFolder, teamFolderOf, teamPort, type TeamLogView } from './team-folder.ts'
import type { TeamProjectStatus } from './team-status.schema.ts'

/** The open store, as team memory needs it. */
export interface TeamStoreView {
  /** Recording of own changes (the sync log's). */
  readonly log: {
    enableSync(now: string, pause?: () => Promise<void>): Promise<unknown>
    disableSync(): void
  }
  readonly team: TeamLogView & {
    shared(): TeamShare[]
    shareOf(key: string): TeamShare | undefined
    share(project: ProjectRef, root: string, now: string): TeamShare
    unshare(key: string): boolean
  }
}

/** What team memory needs. */
export interface TeamMemoryDeps {
  readonly clock: Clock
  /** The open store, or undefined while none is. */
  readonly store: () => TeamStoreView | undefined
  /** Whether sync between the user's machines is on (recording then stays on when the last project is unshared). */
  readonly syncOn: () => boolean
  readonly logger: { warn(format: string, ...args: unknown[]): void }
  /** Finds a folder's project; the real locator by default. */
  readonly locate?: (folder: string) => ProjectRef
  /** Schedule tunables for tests. */
  readonly policy?: Partial<SchedulePolicy>
}

/** What turning a project on or off answered. */
export type TeamSetOutcome =
  | {
      readonly ok: true
      readonly project: { readonly key: string; readonly name: string }
      readonly root: string
      readonly folder: string
      readonly shared: boolean
      /** The round run at once when turned on; null when turned off. */
      readonly round: RoundReport | null
    }
  | { readonly ok: false; readonly code: 'invalid_path' | 'unavailable'; readonly message: string }

/** One running project. */
interface Running {
  readonly service: SyncService
  readonly store: TeamStoreView
  /** Root and interval it runs with: a change restarts it. */
  readonly shape: string
}

/** Longest a project's last round may take when it is turned off or its checkout moves. */
const SWITCH_BOUND_MS = 5_000

/** Owns the team rounds of every shared project. */
export class TeamMemory {
  private readonly deps: TeamMemoryDeps
  private readonly locate: (folder: string) => ProjectRef
  private readonly running = new Map<string, Running>()
  private enabled = false
  private intervalMs: number = DEFAULT_SCHEDULE.intervalMs
  private chain: Promise<void> = Promise.resolve()
  private receiving = false
  private stopped = false

  /** @param deps - see {@link TeamMemoryDeps}. */
  constructor(deps: TeamMemoryDeps) {
    this.deps = deps
    const locator = new ProjectLocator()
    this.locate = deps.locate ?? ((folder) => locator.locate(folder))
  }

  /**
   * Follow the configuration in force and the open store: rounds run for every shared project while the plugin is
   * enabled and a store is open. Returns at once; services start and stop in the background, in order.
   * @param config - the master switch and the sync interval; undefined stops every round.
   */
  follow(config: { readonly enabled: boolean; readonly syncIntervalMinutes: number } | undefined): void {
    if (this.stopped) return
    this.enabled = config?.enabled === true
    if (config !== undefined) this.intervalMs = config.syncIntervalMinutes * 60_000
    void this.reconcile()
  }

  /** A change was committed: each project's round follows once changes pause. Never waits, never throws. */
  noteChange(): void {
    if (this.receiving) return
    for (const { service } of this.running.values()) service.noteWrite()
  }

  /**
   * Turn team memory on or off for the project a folder belongs to. On: the choice is stored, recording turns on and
   * a round runs at once (its report is answered). Off: the project's last round runs, then no more; what teammates
   * said stays in the library.
   * @param folder - an absolute folder inside the repository (its root, or any folder in it).
   * @param shared - on or off.
   * @returns the project and what happened, or why not.
   */
  async setShared(folder: string, shared: boolean): Promise<TeamSetOutcome> {
    const store = this.enabled && !this.stopped ? this.deps.store() : undefined
    if (store === undefined) return { ok: false, code: 'unavailable', message: 'the fact store is not open' }
    const project = this.locate(folder)
    if (project.repository !== true)
      return {
        ok: false,
        code: 'invalid_path',
        message: `${folder} is not inside a git repository; team memory lives in a project's repository`,
      }
    const root = project.folderKey ?? project.key
    const named = { key: project.key, name: project.name }
    if (!shared) {
      store.team.unshare(project.key)
      await this.reconcile()
      if (store.team.shared().length === 0 && !this.deps.syncOn()) store.log.disableSync()
      return { ok: true, project: named, root, folder: teamFolderOf(root), shared: false, round: null }
    }
    store.team.share(project, root, new Date(this.deps.clock.now()).toISOString())
    await this.reconcile()
    const service = this.running.get(project.key)?.service
    const round = service === undefined ? null : await service.syncNow()
    return { ok: true, project: named, root, folder: teamFolderOf(root), shared: true, round }
  }

  /**
   * What `status` and the page show.
   * @returns per shared project, its folder and its last round; empty while no store is open or none is shared.
   */
  status(): TeamProjectStatus[] {
    const store = this.enabled ? this.deps.store() : undefined
    if (store === undefined) return []
    try {
      return store.team.shared().map((share) => {
        const base = {
          project: { key: share.key, name: share.name },
          root: share.root,
          folder: teamFolderOf(share.root),
          since: share.since,
        }
        const running = this.running.get(share.key)
        if (running === undefined)
          return { ...base, devices: [], lastRound: null, pending: 0, problems: [], running: false, nextRoundAt: null }
        const { devices, lastRound, pending, problems, running: busy, nextRoundAt } = running.service.status()
        return { ...base, devices, lastRound, pending, problems, running: busy, nextRoundAt }
      })
    } catch {
      // The store closed under the read: nothing to show until it opens again.
      return []
    }
  }

  /**
   * Stop for good: each project's round in flight is awaited, then a last round writes what waits, within `boundMs`.
   * @param boundMs - the longest the stop waits.
   */
  async stop(boundMs: number): Promise<void> {
    this.stopped = true
    const running = [...this.running.values()]
    this.running.clear()
    await Promise.all(running.map(({ service }) => service.stop(boundMs)))
  }

  /** Bring the running services in line with the shared projects; one reconciliation at a time. */
  private reconcile(): Promise<void> {
    this.chain = this.chain
      .then(() => this.apply())
      .catch((error: unknown) => {
        this.deps.logger.warn('fact memory: team memory could not start: %s', (error as Error).message)
      })
    return this.chain
  }

  private async apply(): Promise<void> {
    const store = this.enabled && !this.stopped ? this.deps.store() : undefined
    const wanted = new Map((store?.team.shared() ?? []).map((share) => [share.key, share]))
    for (const [key, running] of [...this.running]) {
      const share = wanted.get(key)
      const same = running.store.team === store?.team
      if (share !== undefined && same && running.shape === this.shapeOf(share)) continue
      this.running.delete(key)
      await running.service.stop(same ? SWITCH_BOUND_MS : 0)
    }
    if (store === undefined || this.stopped) return
    const fresh = [...wanted.values()].filter((share) => !this.running.has(share.key))
    if (fresh.length === 0) return
    // The team folder is written from the store's log of changes: recording must be on (a no-op when it is).
    await store.log.enableSync(new Date(this.deps.clock.now()).toISOString())
    if (this.stopped || this.deps.store()?.team !== store.team) return
    for (const share of fresh) {
      const service = this.serviceOf(store, share)
      this.running.set(share.key, { service, store, shape: this.shapeOf(share) })
      service.start()
    }
  }

  private serviceOf(store: TeamStoreView, share: TeamShare): SyncService {
    const port: SyncLogPort = teamPort(store.team, share.key, (work) => {
      this.receiving = true
      try {
        return work()
      } finally {
        this.receiving = false
      }
    })
    return new SyncService({
      port,
      clock: this.deps.clock,
      shown: { kind: 'folder', where: teamFolderOf(share.root), encrypted: false },
      policy: { ...DEFAULT_SCHEDULE, intervalMs: this.intervalMs, ...this.deps.policy },
      openTarget: () => openTeamFolder(share.root, store.team.device(), new Date(this.deps.clock.now()).toISOString()),
    })
  }

  private shapeOf(share: TeamShare): string {
    return JSON.stringify([share.root, this.intervalMs])
  }
}
