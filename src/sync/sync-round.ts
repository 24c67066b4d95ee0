/**
 * One sync round for one device: remove the temporary files a killed round of this device left, bring the transport
 * up to date (git: pull), read what the other devices added after the cursor and hand it to the store, seal this
 * device's new records as one segment, compact its own log past a bound, and publish (git: commit and push). Never throws for a transport failure: the round reports it in words and
 * the next round starts over; nothing is lost because the store is the source of this device's records and the
 * cursor moves only with what the store committed. It reads only the own records after the published mark, and
 * touches the store only while no change is committing in slices (`SyncLogPort.settled`).
 */
import type { GitRemote } from './git-remote.ts'
import type { RoundHold } from './round-hold.ts'
import { compactLog, type SyncFolder } from './sync-folder.ts'
import type { SyncLogPort } from './sync-log-port.ts'

/** The next turn of the event loop. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

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
  /** Most own records sealed into one segment ({@link SEAL_SLICE} by default). */
  readonly sealSlice?: number
  /** Most records of other devices handed to the store at once ({@link RECEIVE_SLICE} by default). */
  readonly receiveSlice?: number
  /** Test-only (round-hold.ts): awaited once a new segment is sealed, before it is noted as published. */
  readonly hold?: RoundHold
}

/**
 * Most records of other devices kept and applied in one transaction: a long file (the first sync of a large library,
 * a snapshot) is received in slices, the event loop handed back between them. The cursor moves with a file's last
 * slice only, so a crash part-way reads the file again and keeps what is new (keeping is idempotent by operation).
 */
export const RECEIVE_SLICE = 500

/**
 * Most own records a segment holds: a long run (the first sync of a large library) is sealed as several segments,
 * each read, sealed and published in turn, the event loop handed back while each is written.
 */
export const SEAL_SLICE = 2_000

/**
 * How old a temporary file of this device must be before a round removes it: longer than any round takes (a git call
 * times out after 60 s, a push is retried at most 4 times, a segment holds at most {@link SEAL_SLICE} records), so a
 * file another process of this device is still writing is never taken.
 */
export const STALE_TEMP_MS = 15 * 60_000

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
  // First, before git stages this device's folder: what a killed round left under a temporary name goes. A file the
  // folder cannot remove stays for the next round; it never fails this one.
  await target.folder.removeStaleTemps(Date.now() - STALE_TEMP_MS).catch(() => 0)
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
  // Each step that reads or writes the store checks, in the same tick, that no change is committing in slices: a
  // round between the slices of an import would read records that may still roll back. It then stops where it is,
  // having lost nothing (the cursor did not move, nothing was sealed); the import's commit asks for the next round.
  const unsettled = (): RoundReport => ({ received, sent, compacted, devices, problems, ok: online })
  try {
    devices = await folder.others()
    const names = new Map(devices.map((entry) => [entry.device, entry.name]))
    const named = Object.fromEntries(names)
    const receiveSlice = Math.max(1, options.receiveSlice ?? RECEIVE_SLICE)
    let kept = port.cursor()
    for await (const file of folder.pendingFiles(kept, (device) => names.get(device) ?? device)) {
      problems.push(...file.problems)
      // Every slice but a file's last keeps records under the cursor before the file; the last moves it past.
      for (let at = 0; at === 0 || at < file.records.length; at += receiveSlice) {
        if (at > 0) await nextTurn()
        if (!port.settled()) return unsettled()
        const last = at + receiveSlice >= file.records.length
        const got = port.receive(file.records.slice(at, at + receiveSlice), last ? file.cursor : kept, named)
        received += got.fresh
        problems.push(...got.refused)
      }
      kept = file.cursor
    }

    const highWater = await folder.ownHighWater()
    if (!port.settled()) return unsettled()
    const sealed = [port.publishedThrough(), highWater]
      .filter((hlc): hlc is string => hlc !== null)
      .sort()
      .at(-1)
    if (sealed !== undefined && sealed !== port.publishedThrough()) port.markPublished(sealed)
    // Only what comes after the mark is read (a quiet round reads no own record), a slice at a time: each slice is
    // one segment, published once it is in place, so a failure later in the run sends the rest next round.
    const slice = Math.max(1, options.sealSlice ?? SEAL_SLICE)
    for (let after = sealed ?? null; ; ) {
      if (!port.settled()) return unsettled()
      const fresh = port.ownLogAfter(after, slice)
      const last = fresh.at(-1)
      if (last === undefined || (await folder.append(fresh)) === undefined) break
      await options.hold?.wait('sealed')
      if (!port.settled()) return unsettled()
      port.markPublished(last.hlc)
      sent += fresh.length
      after = last.hlc
      if (fresh.length < slice) break
    }

    const segments = await folder.ownSegmentCount()
    if (segments > options.compactAfterSegments && port.settled())
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
