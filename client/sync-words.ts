/**
 * The Sync panel's words, pure: the sync status (status's `sync`, sync-status.schema.ts) and a "Sync now" round put
 * as sentences a person reads: where memory syncs to and whether it is encrypted, this device, the devices seen with
 * the last change of each, what waits to be sent, the last and next rounds, and the problems in words.
 */
import type { VerbAnswer } from './api.ts'
import { countOf, formatAge, formatInstant } from './format.ts'

/** The sync status as status and sync-now answer it. */
export type SyncStatusWire = VerbAnswer<'sync-now'>['status']
/** What one "Sync now" round did. */
export type SyncRoundWire = VerbAnswer<'sync-now'>['round']

/** Plain labels of the problem codes. */
const PROBLEM_LABELS: Readonly<Record<SyncStatusWire['problems'][number]['code'], string>> = {
  settings: 'Settings',
  unreachable: 'Cannot reach the target',
  target_full: 'Target is full',
  target_unwritable: 'Cannot write to the target',
  passphrase: 'Passphrase',
  damaged_file: 'Damaged file',
  clock_skew: 'Clock',
  failed: 'Failed',
}

/**
 * The panel's first line: off, the settings error, or where memory syncs to and how.
 * @param status - the sync status.
 * @returns the sentence.
 */
export function syncStateWords(status: SyncStatusWire): string {
  if (status.state === 'off')
    return 'Sync is off. Set a sync target above: a folder a file-sync tool keeps in step, or a private git remote.'
  if (status.state === 'invalid') return 'Sync is not running: its settings need a fix (see below).'
  const target = status.target
  const where =
    target === null
      ? 'the target'
      : target.kind === 'git'
        ? `the git remote ${target.where}`
        : `the folder ${target.where}`
  const how = status.encrypted ? 'encrypted with your passphrase' : 'in plain files (no passphrase set)'
  return status.failures > 0
    ? `Trying to sync with ${where}, ${how}; the last rounds failed (see the problems below).`
    : `Syncing with ${where}, ${how}.`
}

/**
 * This device, as the other devices name it.
 * @param status - the sync status.
 * @returns the sentence.
 */
export function thisDeviceWords(status: SyncStatusWire): string {
  return `This device: ${status.device.name} (${status.device.id})`
}

/**
 * One device seen: its name, its newest change applied here, and when a round last found it.
 * @param peer - the device.
 * @param timeZone - the display zone.
 * @param now - epoch ms.
 * @returns the line.
 */
export function peerWords(peer: SyncStatusWire['devices'][number], timeZone: string, now: number): string {
  const change =
    peer.lastRecordAt === null ? 'no changes received yet' : `last change ${formatInstant(peer.lastRecordAt, timeZone)}`
  const seen = peer.lastSeenAt === null ? '' : `, last synced ${formatAge(peer.lastSeenAt, now)}`
  return `${peer.name} (${peer.id}): ${change}${seen}`
}

/**
 * What waits, how the last round went and when the next one runs.
 * @param status - the sync status (state on).
 * @param timeZone - the display zone.
 * @param now - epoch ms.
 * @returns the sentences, one per part.
 */
export function roundWords(status: SyncStatusWire, timeZone: string, now: number): string[] {
  const lines = [
    status.pending === 0
      ? 'Every change here has been sent.'
      : `${countOf(status.pending, 'change')} waiting to be sent.`,
  ]
  const last = status.lastRound
  if (last === null) lines.push(status.running ? 'The first round is running.' : 'No round has run yet.')
  else {
    const how =
      last.outcome === 'failed'
        ? 'failed'
        : `${last.outcome === 'partial' ? 'done, some files skipped' : 'done'}: sent ${countOf(last.sent, 'change')}, received ${countOf(last.received, 'change')}`
    lines.push(`Last round ${formatAge(last.finishedAt, now)} (${formatInstant(last.finishedAt, timeZone)}), ${how}.`)
  }
  if (status.failures > 0) lines.push(`${countOf(status.failures, 'failed round')} in a row; it retries by itself.`)
  if (status.running) lines.push('A round is running now.')
  else if (status.nextRoundAt !== null) {
    const seconds = Math.round((new Date(status.nextRoundAt).getTime() - now) / 1000)
    lines.push(
      seconds <= 1
        ? 'Next round: now.'
        : `Next round in ${seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`} (${formatInstant(status.nextRoundAt, timeZone)}).`,
    )
  }
  return lines
}

/**
 * A problem with its plain label.
 * @param problem - code and sentence.
 * @returns "Label: sentence".
 */
export function problemWords(problem: SyncStatusWire['problems'][number]): string {
  return `${PROBLEM_LABELS[problem.code]}: ${problem.message}`
}

/**
 * What a "Sync now" round did, for the status line.
 * @param round - the round.
 * @returns the sentence.
 */
export function syncNowWords(round: SyncRoundWire): string {
  if (!round.ok) return 'Sync failed; the problems above say why. Nothing was lost: it retries by itself.'
  const did = `Synced: sent ${countOf(round.sent, 'change')}, received ${countOf(round.received, 'change')}`
  return round.problems.length === 0 ? `${did}.` : `${did}; ${countOf(round.problems.length, 'file')} skipped.`
}
