/**
 * The retry of a parked range. The session's events are read again from the range's anchors, [startSeq, endSeq),
 * and every message in it goes to the model (no prefilter: the range was already due), one pass's segments at a
 * time until all of it is read. A retry that reads all of it resolves the range. One that fails keeps it parked,
 * narrowed to what is still unread, with one more attempt and the new error, so nothing parked is lost. The
 * session's cursor is never touched: it moved past the range when the range was parked.
 */
import { isoNow, type Clock } from '../clock.ts'
import type { ResolvedConfig } from '../config.ts'
import type { FactMemory } from '../fact-memory.ts'
import type { ExtractionModel } from '../host/model-client.ts'
import type { SessionEventView } from '../host/ports.ts'
import type { ExtractStore, ExtractTrigger, PendingRange } from '../store/extract-store.ts'
import type { ProjectRef } from '../types.ts'
import { baseRecord, readRange } from './read-range.ts'
import { takeSnapshot } from './snapshot.ts'
import type { Snapshot } from './types.ts'

/** Why a range is retried: the user pressed Retry, or the model answered a pass again. */
export type RetryCause = 'asked' | 'answered'

/** How a retry ended. */
export type RetryOutcome =
  /** Read whole: the range is resolved, and this is what landed from it. */
  | { readonly kind: 'resolved'; readonly factIds: readonly number[]; readonly proposalIds: readonly number[] }
  /** Still parked, with the error that kept it so. */
  | { readonly kind: 'failed'; readonly error: string }

/** What a retry works with. */
export interface RetryContext {
  readonly memory: FactMemory
  readonly config: ResolvedConfig
  /** The session's events (seq === index), read from the range's start to its end, or why they cannot be read. */
  readonly events: readonly SessionEventView[] | { readonly unavailable: string }
  readonly model: ExtractionModel | { readonly unavailable: string }
  readonly clock: Clock
  readonly project: ProjectRef | null
  readonly signal: AbortSignal
}

/**
 * Retry one parked range.
 * @param range - the range as parked.
 * @param cause - why it is retried (logged with each pass).
 * @param context - store, configuration, the session's events, the model, clock, project and cancel signal.
 * @returns resolved with what landed, or failed (still parked); a cancelled retry changes nothing and says so.
 */
export async function retryRange(range: PendingRange, cause: RetryCause, context: RetryContext): Promise<RetryOutcome> {
  const opened = context.memory.stores()
  if (!('stores' in opened)) return { kind: 'failed', error: `the store is not open: ${opened.unavailable.message}` }
  const ledger = opened.stores.extract
  const trigger: ExtractTrigger = cause === 'asked' ? 'manual' : 'turn'
  const request = { sessionId: range.sessionId, trigger, attempt: range.attempts + 1, signal: context.signal }
  const note = `retry of parked range #${range.id} (${cause === 'asked' ? 'asked from the page' : 'the model answered again'})`
  const events = context.events
  let snapshot: Snapshot =
    'unavailable' in events
      ? {
          sessionId: range.sessionId,
          startSeq: range.startSeq,
          endSeq: range.endSeq,
          turns: range.turns,
          messages: [],
          chars: 0,
          textHash: range.textSha256,
        }
      : snapshotFrom(range, range.startSeq, events, context.config)
  const fail = (error: string): RetryOutcome => {
    ledger.retryFailed(range.id, { startSeq: snapshot.startSeq, textSha256: snapshot.textHash, error })
    return { kind: 'failed', error }
  }
  const log = (decision: 'failed' | 'skipped', error: string | null, extra: string | null): void => {
    const now = isoNow(context.clock)
    ledger.record({
      ...baseRecord(request, snapshot, context.clock.now()),
      decision,
      error,
      note: [note, extra].filter((part) => part !== null).join('; '),
      finishedAt: now,
      durationMs: 0,
    })
  }

  if ('unavailable' in events) {
    log('failed', events.unavailable, null)
    return fail(events.unavailable)
  }
  if (events.length < range.endSeq) {
    const error = `the conversation's log holds ${events.length} events, fewer than the range's end (seq ${range.endSeq})`
    log('failed', error, null)
    return fail(error)
  }
  if (snapshot.messages.length === 0) {
    log('skipped', null, 'the range holds no words to read, so no model was called')
    return resolve(ledger, range, context, [], [])
  }
  if ('unavailable' in context.model) {
    log('failed', context.model.unavailable, null)
    return fail(context.model.unavailable)
  }
  const factIds: number[] = []
  const proposalIds: number[] = []
  for (;;) {
    const read = await readRange(
      request,
      snapshot,
      { ...context, model: context.model, ledger },
      { read: note, failed: note },
    )
    if (!read.ok) return read.aborted ? { kind: 'failed', error: read.error } : fail(read.error)
    factIds.push(...read.factIds)
    proposalIds.push(...read.proposalIds)
    if (!read.remaining) return resolve(ledger, range, context, factIds, proposalIds)
    snapshot = snapshotFrom(range, read.coveredEndSeq, events, context.config)
  }
}

/** Attempts after which only the page's Retry reads a range again: the four of the queue and three automatic retries. */
export const AUTO_RETRY_ATTEMPTS = 7

/**
 * Whether the automatic retry still takes a range: it stops after {@link AUTO_RETRY_ATTEMPTS} attempts in all, so a
 * range the model keeps failing on is not sent again after every turn; Retry on the page always takes it.
 * @param range - a parked range.
 * @returns true while automatic retries remain.
 */
export function retriesOnItsOwn(range: PendingRange): boolean {
  return range.attempts < AUTO_RETRY_ATTEMPTS
}

function resolve(
  ledger: ExtractStore,
  range: PendingRange,
  context: RetryContext,
  factIds: readonly number[],
  proposalIds: readonly number[],
): RetryOutcome {
  ledger.resolve(range.id, isoNow(context.clock))
  return { kind: 'resolved', factIds, proposalIds }
}

function snapshotFrom(
  range: PendingRange,
  startSeq: number,
  events: readonly SessionEventView[],
  config: ResolvedConfig,
): Snapshot {
  return takeSnapshot(range.sessionId, events, startSeq, range.endSeq, {
    includeAssistant: config.extractIncludeAssistant,
  })
}
