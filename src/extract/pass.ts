/**
 * One extraction pass over one session: a fixed range [cursor, turn/end seq), the prefilter, the model, the write
 * rules, and one line in the run log. Signal-free text leaves the cursor in place until extractFallbackTurns turns
 * or extractFallbackChars characters have gathered (then the model reads it anyway); a read range moves the cursor
 * to where the pass stopped. A failure changes nothing but the log: the queue retries the same range.
 */
import { isoNow, type Clock } from '../clock.ts'
import type { ResolvedConfig } from '../config.ts'
import { messageOf } from '../errors.ts'
import type { FactMemory } from '../fact-memory.ts'
import type { SessionEventView } from '../host/ports.ts'
import type { ExtractRunRecord, ExtractStore } from '../store/extract-store.ts'
import type { ExtractionModel } from '../host/model-client.ts'
import type { PassRequest, PassResult } from './queue.ts'
import { baseRecord, readRange } from './read-range.ts'
import { hasSignal } from './signals.ts'
import { takeSnapshot } from './snapshot.ts'
import type { Snapshot } from './types.ts'
import type { ProjectRef } from '../types.ts'

/**
 * Said of a pass started while the plugin unloads that could not reach its model (on rc.8 the host removes its model
 * adapters while plugins unload, so only a custom endpoint is reachable then).
 */
export const UNLOAD_NOTE =
  "started while the plugin was unloading and the model was out of reach; the cursor did not move, so this range is read at the session's next turn (for one-shot runs, set extractDelayMs to 0)"

/** What a pass works with. */
export interface PassContext {
  readonly memory: FactMemory
  readonly config: ResolvedConfig
  /** The session's events (seq === index), read up to the range end only. */
  readonly events: readonly SessionEventView[]
  /** The model, or why there is none. */
  readonly model: ExtractionModel | { readonly unavailable: string }
  readonly clock: Clock
  /** The session's project, where a candidate scoped `"project"` is written; null outside one. */
  readonly project: ProjectRef | null
}

/**
 * Run one pass.
 * @param request - the session, the range end, the attempt and the cancel signal.
 * @param context - store, configuration, the session's events, the model and the clock.
 * @returns done, more (the range was longer than one pass covers), or failed.
 */
export async function runPass(request: PassRequest, context: PassContext): Promise<PassResult> {
  try {
    return await passOnce(request, context)
  } catch (error) {
    // An unexpected failure is logged like any failed pass, so the run log never goes silent on it.
    const message = messageOf(error)
    const opened = context.memory.stores()
    if ('stores' in opened) {
      const now = isoNow(context.clock)
      opened.stores.extract.record({
        ...baseRecord(request, emptySnapshot(request), context.clock.now()),
        decision: 'failed',
        error: message,
        finishedAt: now,
        durationMs: 0,
      })
    }
    return { kind: 'failed', error: message }
  }
}

async function passOnce(request: PassRequest, context: PassContext): Promise<PassResult> {
  const started = context.clock.now()
  const opened = context.memory.stores()
  if (!('stores' in opened)) return { kind: 'failed', error: `the store is not open: ${opened.unavailable.message}` }
  const ledger = opened.stores.extract
  const { config } = context
  const { startSeq, snapshot } = rangeOf(request, ledger, context)
  const base = baseRecord(request, snapshot, started)
  const finish = (record: Partial<ExtractRunRecord>): void => {
    ledger.record({ ...base, ...record, finishedAt: isoNow(context.clock), durationMs: context.clock.now() - started })
  }

  if (snapshot.messages.length === 0) {
    ledger.advance(request.sessionId, request.endSeq, isoNow(context.clock))
    return { kind: 'done' }
  }
  const signal = snapshot.messages.some((message) => hasSignal(message.text))
  if (!signal) {
    const fallbackDue =
      config.extractFallbackTurns > 0 &&
      (snapshot.turns.length >= config.extractFallbackTurns || snapshot.chars >= config.extractFallbackChars)
    if (!fallbackDue) {
      // Prefilter only (fallback turns 0): the text is passed over for good; otherwise it waits for more turns, from
      // where it starts (a session without a cursor gets one here, so the kept text is not lost).
      ledger.advance(
        request.sessionId,
        config.extractFallbackTurns === 0 ? request.endSeq : startSeq,
        isoNow(context.clock),
      )
      finish({
        decision: 'skipped',
        note:
          config.extractFallbackTurns === 0
            ? 'no memory signal; prefilter only (extractFallbackTurns is 0), so no model was called and the text was passed over'
            : `no memory signal; no model was called. The text is kept and read anyway after ${config.extractFallbackTurns} turns or ${config.extractFallbackChars} characters (now ${snapshot.turns.length} turns, ${snapshot.chars} characters)`,
      })
      return { kind: 'done' }
    }
  }

  if ('unavailable' in context.model) {
    finish({ decision: 'failed', error: context.model.unavailable })
    return { kind: 'failed', error: context.model.unavailable }
  }
  const read = await readRange(
    request,
    snapshot,
    { ...context, model: context.model, ledger },
    {
      read: signal ? null : 'no memory signal, read after the fallback threshold',
      failed: request.trigger === 'flush' ? UNLOAD_NOTE : null,
    },
  )
  if (!read.ok) return { kind: 'failed', error: read.error }
  ledger.advance(request.sessionId, read.coveredEndSeq, isoNow(context.clock))
  return { kind: read.remaining ? 'more' : 'done', answered: true }
}

/**
 * Record a range that failed every attempt: parked with its anchors, the cursor moved past it.
 * @param request - the failed pass.
 * @param error - the last error.
 * @param context - store, configuration, events and clock.
 */
export function parkRange(request: PassRequest, error: string, context: Omit<PassContext, 'model' | 'project'>): void {
  const opened = context.memory.stores()
  if (!('stores' in opened)) return
  const ledger = opened.stores.extract
  const { startSeq, snapshot } = rangeOf(request, ledger, context)
  const now = isoNow(context.clock)
  ledger.park(
    {
      sessionId: request.sessionId,
      startSeq,
      endSeq: request.endSeq,
      turns: snapshot.turns,
      textSha256: snapshot.textHash,
      attempts: request.attempt,
      lastError: error,
    },
    now,
  )
  ledger.record({
    ...baseRecord(request, snapshot, context.clock.now()),
    decision: 'parked',
    error,
    note: `parked after ${request.attempt} attempts; the range is kept as a pending item`,
    finishedAt: now,
    durationMs: 0,
  })
}

/** The range a pass covers, from the session's cursor to the request's end, and its snapshot. */
function rangeOf(
  request: PassRequest,
  ledger: ExtractStore,
  context: Omit<PassContext, 'model' | 'project'>,
): { startSeq: number; snapshot: Snapshot } {
  const startSeq = Math.min(
    ledger.cursor(request.sessionId) ?? lastTurnStart(context.events, request.endSeq),
    request.endSeq,
  )
  const snapshot = takeSnapshot(request.sessionId, context.events, startSeq, request.endSeq, {
    includeAssistant: context.config.extractIncludeAssistant,
  })
  return { startSeq, snapshot }
}

/** Where a session without a cursor starts: the turn/start of the turn that just ended (older history is not swept up). */
function lastTurnStart(events: readonly SessionEventView[], endSeq: number): number {
  for (let seq = Math.min(endSeq, events.length) - 1; seq >= 0; seq -= 1) {
    if (events[seq]?.type === 'turn/start') return seq
  }
  return 0
}

function emptySnapshot(request: PassRequest): Snapshot {
  return {
    sessionId: request.sessionId,
    startSeq: request.endSeq,
    endSeq: request.endSeq,
    turns: [],
    messages: [],
    chars: 0,
    textHash: '',
  }
}
