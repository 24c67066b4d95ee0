/**
 * One sync round for one device: bring the transport up to date (git: pull), read what the other devices added after
 * the cursor and hand it to the store, seal this device's new records as one segment, compact its own log past a
 * bound, and publish (git: commit and push). Never throws for a transport failure: the round reports it in words and
 * the next round starts over; nothing is lost because the store is the source of this device's records and the
 * cursor moves only with what the store committed.
 */
import type { GitRemote } from './git-remote.ts'
import type { RoundHold } from './round-hold.ts'
import { compactLog, type SyncFolder } from './sync-folder.ts'
import type { SyncLogPort } from './sync-log-port.ts'

/** Where a round syncs to. */
export type RoundTarget =
  | { readonly kind: 'folder'; readonly folder: SyncFolder }
  | { readonly kind: 'git'; readonly folder: SyncFolder; readonly remote: GitRemote }

/** What a round did, for status and the page. */
export interface RoundReport {
  /** Records read from other devices that were new here. */
  readonly received: number
  /** Own records sealed this round. */
  readonly sent: number
  /** Whether this device's segments were compacted into a snapshot. */
  readonly compacted: boolean
  /** Other devices in the folder. */
  readonly devices: readonly { readonly device: string; readonly name: string }[]
  /** Sentences for files that could not be read, or a transport failure; empty for a clean round. */
  readonly problems: readonly string[]
  /** False when the transport failed (the round is retried with backoff); damaged files alone do not fail it. */
  readonly ok: boolean
}

/** Round settings. */
export interface RoundOptions {
  /** Compact this device's log once it has more segments than this. */
  readonly compactAfterSegments: number
  /** Test-only (round-hold.ts): awaited once a new segment is sealed, before it is noted as published. */
  readonly hold?: RoundHold
}

/**
 * Run one round.
 * @param port - the store side.
 * @param target - the folder, or the git remote and its working copy.
 * @param options - see {@link RoundOptions}.
 * @returns what happened.
 */
export async function runSyncRound(
  port: SyncLogPort,
  target: RoundTarget,
  options: RoundOptions,
): Promise<RoundReport> {
  const problems: string[] = []
  let online = true
  if (target.kind === 'git') {
    const pulled = await target.remote.pull()
    if (!pulled.ok) {
      online = false
      problems.push(pulled.error.message)
    }
  }
  const { folder } = target
  if (target.kind === 'git' && !(await target.remote.isCloned())) {
    // Nothing to read, and nowhere to seal: the records stay in the store until a clone succeeds.
    return { received: 0, sent: 0, compacted: false, devices: [], problems, ok: false }
  }
  let devices: RoundReport['devices'] = []
  let received = 0
  let sent = 0
  let compacted = false
  try {
    devices = await folder.others()
    const names = new Map(devices.map((entry) => [entry.device, entry.name]))
    const read = await folder.readPending(port.cursor(), (device) => names.get(device) ?? device)
    problems.push(...read.problems)
    const got = port.receive(read.records, read.cursor, Object.fromEntries(names))
    received = got.fresh
    problems.push(...got.refused)

    const sealed = [port.publishedThrough(), await folder.ownHighWater()]
      .filter((hlc): hlc is string => hlc !== null)
      .sort()
      .at(-1)
    const fresh = port.ownLog().filter((record) => sealed === undefined || record.hlc > sealed)
    const segment = await folder.append(fresh)
    const last = fresh.at(-1)
    if (segment !== undefined) await options.hold?.wait('sealed')
    if (segment !== undefined && last !== undefined) port.markPublished(last.hlc)
    else if (sealed !== undefined && sealed !== port.publishedThrough()) port.markPublished(sealed)
    sent = segment === undefined ? 0 : fresh.length

    if ((await folder.ownSegmentCount()) > options.compactAfterSegments)
      compacted = (await folder.compact(compactLog(port.ownLog()))) !== undefined
  } catch (error) {
    // A full disk, a share that went away, a folder made read-only: the round fails in words; what was not sealed
    // stays in the store and the next round sends it.
    const code = (error as NodeJS.ErrnoException).code
    const why =
      code === 'ENOSPC'
        ? "the sync folder's disk is full"
        : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? 'the sync folder cannot be written'
          : `the sync folder failed (${code ?? (error as Error).message})`
    return {
      received,
      sent,
      compacted,
      devices,
      problems: [...problems, `${why}; nothing was lost, the next round tries again`],
      ok: false,
    }
  }

  if (target.kind === 'git' && online) {
    const published = await target.remote.publish(`sync: ${port.device().name}`)
    if (!published.ok) {
      online = false
      problems.push(published.error.message)
    }
  }
  return { received, sent, compacted, devices, problems, ok: online }
}
