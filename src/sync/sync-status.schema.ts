/**
 * The sync status the page and the `status` verb show, as a zod schema and its type: the target, this device, the
 * devices seen, the last round, what is pending, the current problems in words with closed codes, and when the next
 * round runs. Instants are ISO UTC text; clocks are hybrid logical clock text (hlc.ts).
 */
import { z } from 'zod'

const iso = z.string().max(40)
const hlc = z.string().max(120)
const deviceId = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/u)

/** Closed codes of a sync problem. */
export const syncProblemCodes = [
  'settings',
  'unreachable',
  'target_full',
  'target_unwritable',
  'passphrase',
  'damaged_file',
  'clock_skew',
  'failed',
] as const

/** One problem, in words. */
export const syncProblemSchema = z.strictObject({
  code: z.enum(syncProblemCodes),
  message: z.string().max(600),
})

/** Another device seen in the sync target. */
export const syncPeerSchema = z.strictObject({
  id: deviceId,
  name: z.string().min(1).max(200),
  /** The clock of its newest record applied here; null when none yet. */
  lastRecordClock: hlc.nullable(),
  /** That record's time on its own clock. */
  lastRecordAt: iso.nullable(),
  /** When a round here last found it in the target. */
  lastSeenAt: iso.nullable(),
})

/** What the last round did. */
export const syncRoundSchema = z.strictObject({
  startedAt: iso,
  finishedAt: iso,
  /** ok: clean; partial: done, some files skipped; failed: the target could not be reached or written. */
  outcome: z.enum(['ok', 'partial', 'failed']),
  sent: z.number().int().nonnegative(),
  received: z.number().int().nonnegative(),
  compacted: z.boolean(),
})

/** The sync status. */
export const syncStatusSchema = z.strictObject({
  /** off: no target set; on: rounds run; invalid: the settings are wrong (see problems). */
  state: z.enum(['off', 'on', 'invalid']),
  /** The target as it may be shown (URLs masked); null when off. */
  target: z.strictObject({ kind: z.enum(['folder', 'git']), where: z.string().max(1000) }).nullable(),
  /** Whether files are sealed with a passphrase. */
  encrypted: z.boolean(),
  device: z.strictObject({ id: deviceId, name: z.string().min(1).max(200) }),
  devices: z.array(syncPeerSchema),
  lastRound: syncRoundSchema.nullable(),
  /** Own records not yet sealed into the target. */
  pending: z.number().int().nonnegative(),
  /** The current problems; empty when all is well. */
  problems: z.array(syncProblemSchema),
  running: z.boolean(),
  /** Failed rounds in a row. */
  failures: z.number().int().nonnegative(),
  /** When the next round is due; null when none is (sync off, or stopped). */
  nextRoundAt: iso.nullable(),
})

/** The sync status, as the page and `status` read it. */
export type SyncStatus = z.infer<typeof syncStatusSchema>
/** One problem. */
export type SyncProblem = z.infer<typeof syncProblemSchema>
/** A device seen. */
export type SyncPeer = z.infer<typeof syncPeerSchema>
/** The last round. */
export type SyncRoundSummary = z.infer<typeof syncRoundSchema>
