/**
 * Pure pieces of the sync status (schema in sync-status.schema.ts): a round's problem sentences sorted into closed
 * codes, the devices seen folded from what rounds observed, the count of own records not yet sealed, and the status
 * while sync is off or its settings are wrong.
 */
import type { ChangeRecord } from './change-record.ts'
import { describeSkew, NOTABLE_SKEW_MS, parseHlc } from './hlc.ts'
import type { DeviceIdentity } from './sync-log-port.ts'
import type { SyncPeer, SyncProblem, SyncStatus } from './sync-status.schema.ts'

/**
 * The closed code of a problem sentence a round reported (sync-round.ts, sync-folder.ts, segment-cipher.ts,
 * git-remote.ts word them).
 * @param message - the sentence.
 * @returns the problem with its code.
 */
export function classifyProblem(message: string): SyncProblem {
  const text = message.slice(0, 600)
  if (/cannot be reached|not installed or not on PATH|did not finish in time/u.test(text))
    return { code: 'unreachable', message: text }
  if (/disk is full/u.test(text)) return { code: 'target_full', message: text }
  if (
    /cannot be written|holds other files|another format or a newer version|working copy of another remote/u.test(text)
  ) {
    return { code: 'target_unwritable', message: text }
  }
  if (/passphrase/u.test(text)) return { code: 'passphrase', message: text }
  if (/: devices\/[a-z0-9-]+\/(segments|snapshots)\//u.test(text)) return { code: 'damaged_file', message: text }
  return { code: 'failed', message: text }
}

/** What a round observed of the other devices: per device, its newest record's clock, and when it was found. */
export interface PeerSighting {
  readonly id: string
  readonly name: string
  readonly lastRecordClock: string | null
  readonly seenAt: string | null
}

/**
 * Fold a round's sightings into the devices known so far.
 * @param known - the devices as the status shows them.
 * @param sightings - what this round found.
 * @returns the devices, by id.
 */
export function foldPeers(known: readonly SyncPeer[], sightings: readonly PeerSighting[]): SyncPeer[] {
  const byId = new Map(known.map((peer) => [peer.id, peer]))
  for (const sighting of sightings) {
    const before = byId.get(sighting.id)
    const clocks = [before?.lastRecordClock, sighting.lastRecordClock].filter(
      (clock): clock is string => typeof clock === 'string',
    )
    const lastRecordClock = clocks.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).at(-1) ?? null
    const wall = lastRecordClock === null ? undefined : parseHlc(lastRecordClock)?.wall
    byId.set(sighting.id, {
      id: sighting.id,
      name: sighting.name,
      lastRecordClock,
      lastRecordAt: wall === undefined ? null : new Date(wall).toISOString(),
      lastSeenAt: sighting.seenAt ?? before?.lastSeenAt ?? null,
    })
  }
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : 1))
}

/**
 * Per other device, the clock of its newest record among `records`.
 * @param records - records read from other devices.
 * @returns device id to clock text.
 */
export function newestClocks(records: readonly ChangeRecord[]): Map<string, string> {
  const newest = new Map<string, string>()
  for (const record of records)
    if ((newest.get(record.device) ?? '') < record.hlc) newest.set(record.device, record.hlc)
  return newest
}

/**
 * A clock an hour off, in words: a device whose newest record is stamped well ahead of this machine's clock.
 * @param newest - per device, its newest record's clock (see {@link newestClocks}).
 * @param nameOf - a device's readable name.
 * @param now - this machine's clock, epoch ms.
 * @returns per device that runs notably ahead, its problem.
 */
export function skewProblems(
  newest: ReadonlyMap<string, string>,
  nameOf: (device: string) => string,
  now: number,
): Map<string, SyncProblem> {
  const problems = new Map<string, SyncProblem>()
  for (const [device, clock] of newest) {
    const wall = parseHlc(clock)?.wall
    if (wall === undefined || wall - now < NOTABLE_SKEW_MS) continue
    const message = describeSkew(nameOf(device), wall - now)
    if (message !== undefined) problems.set(device, { code: 'clock_skew', message })
  }
  return problems
}

/**
 * The status while no service runs: sync is off, or its settings cannot be used.
 * @param device - this device.
 * @param read - off, or the settings error in words (sync-settings.ts).
 * @returns the status.
 */
export function idleSyncStatus(
  device: DeviceIdentity,
  read: { readonly kind: 'off' } | { readonly kind: 'error'; readonly message: string },
): SyncStatus {
  return {
    state: read.kind === 'off' ? 'off' : 'invalid',
    target: null,
    encrypted: false,
    device: { id: device.id, name: device.name },
    devices: [],
    lastRound: null,
    pending: 0,
    problems: read.kind === 'error' ? [{ code: 'settings', message: read.message.slice(0, 600) }] : [],
    running: false,
    failures: 0,
    nextRoundAt: null,
  }
}
