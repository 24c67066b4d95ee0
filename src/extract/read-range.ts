/**
 * One model read of a fixed range: plan the segments one pass covers, ask the model, land what it found, and log
 * the pass. Shared by a turn's pass and the retry of a parked range; neither the cursor nor a parked range is
 * touched here, so each caller decides what a read or a failure moves.
 */
import { isoNow, type Clock } from '../clock.ts'
import type { ResolvedConfig } from '../config.ts'
import type { FactMemory } from '../fact-memory.ts'
import type { ExtractionModel } from '../host/model-client.ts'
import type { ExtractRunRecord, ExtractStore, ExtractTrigger } from '../store/extract-store.ts'
import type { ProjectRef } from '../types.ts'
import { landCandidates } from './land.ts'
import { readCandidates } from './read-candidates.ts'
import { loggedText, planPass } from './segments.ts'
import { narrowSnapshot } from './snapshot.ts'
import type { Snapshot } from './types.ts'

/** Who asks for the read, as the log records it. */
export interface ReadRequest {
  readonly sessionId: string
  readonly trigger: ExtractTrigger
  readonly attempt: number
  readonly signal: AbortSignal
}

/** What a read works with. */
export interface ReadContext {
  readonly memory: FactMemory
  readonly config: ResolvedConfig
  readonly model: ExtractionModel
  readonly clock: Clock
  readonly project: ProjectRef | null
  readonly ledger: ExtractStore
}

/** Notes the logged pass carries besides the model's own. */
export interface ReadNotes {
  /** Said first when the read succeeds. */
  readonly read: string | null
  /** Said when it fails. */
  readonly failed: string | null
}

/** How a read ended. */
export type RangeRead =
  | {
      readonly ok: true
      /** The first seq the read did not cover (the snapshot's end when nothing is left). */
      readonly coveredEndSeq: number
      /** Whether messages beyond one pass's segments are left for another read. */
      readonly remaining: boolean
      readonly factIds: readonly number[]
      readonly proposalIds: readonly number[]
    }
  | { readonly ok: false; readonly error: string; readonly aborted: boolean }

/**
 * Read the first segments of a snapshot with the model, land the candidates and log the pass.
 * @param request - the session, the trigger and attempt to log, and the cancel signal.
 * @param snapshot - the fixed range, already taken from the session's events (it holds at least one message).
 * @param context - store, configuration, model, clock, the session's project and the ledger.
 * @param notes - what the logged pass says besides the model's notes.
 * @returns what was covered and landed, or why the read failed (an aborted read is not logged).
 */
export async function readRange(
  request: ReadRequest,
  snapshot: Snapshot,
  context: ReadContext,
  notes: ReadNotes,
): Promise<RangeRead> {
  const started = context.clock.now()
  const { config, ledger } = context
  const plan = planPass(snapshot.messages, {
    maxChars: config.extractMaxChars,
    chunksPerPass: config.extractChunksPerPass,
    endSeq: snapshot.endSeq,
  })
  const read = narrowSnapshot(snapshot, plan.coveredEndSeq)
  const covered = {
    ...baseRecord(request, read, started),
    chunkCount: plan.segments.length,
    textSent: loggedText(plan.segments),
    model: context.model.name,
  }
  const finish = (record: Partial<ExtractRunRecord>): void => {
    ledger.record({
      ...covered,
      ...record,
      finishedAt: isoNow(context.clock),
      durationMs: context.clock.now() - started,
    })
  }
  const outcome = await readCandidates(plan.segments, {
    model: context.model,
    merge: config.extractMerge,
    timeZone: config.displayTimeZone,
    now: context.clock.now(),
    signal: request.signal,
    sessionId: request.sessionId,
  })
  if (request.signal.aborted) return { ok: false, error: 'the pass was cancelled', aborted: true }
  if (!outcome.ok) {
    finish({ decision: 'failed', error: outcome.error, note: notes.failed })
    return { ok: false, error: outcome.error, aborted: false }
  }
  const landing = landCandidates(
    outcome.candidates,
    {
      origin: 'extract',
      messages: read.messages,
      sessionId: request.sessionId,
      usersWords: true,
      project: context.project,
    },
    context.memory,
    config,
  )
  finish({
    decision: 'extracted',
    written: landing.factIds.length,
    review: landing.proposalIds.length,
    refused: landing.refused,
    factIds: landing.factIds,
    proposalIds: landing.proposalIds,
    note: [notes.read, ...outcome.notes].filter((note) => note !== null).join('; ') || null,
  })
  return {
    ok: true,
    coveredEndSeq: plan.coveredEndSeq,
    remaining: plan.remaining,
    factIds: landing.factIds,
    proposalIds: landing.proposalIds,
  }
}

/**
 * The log line of a pass over a snapshot before anything is known of its outcome.
 * @param request - the session, trigger and attempt.
 * @param snapshot - what the pass covers.
 * @param started - epoch ms it started.
 * @returns a record to complete with the decision and its finish.
 */
export function baseRecord(
  request: Omit<ReadRequest, 'signal'>,
  snapshot: Snapshot,
  started: number,
): Omit<ExtractRunRecord, 'finishedAt' | 'durationMs'> {
  return {
    sessionId: request.sessionId,
    trigger: request.trigger,
    decision: 'skipped',
    startSeq: snapshot.startSeq,
    endSeq: snapshot.endSeq,
    turns: snapshot.turns,
    messageCount: snapshot.messages.length,
    chunkCount: 0,
    chars: snapshot.chars,
    textSha256: snapshot.textHash,
    textSent: null,
    model: null,
    attempt: request.attempt,
    written: 0,
    review: 0,
    refused: [],
    factIds: [],
    proposalIds: [],
    note: null,
    error: null,
    startedAt: new Date(started).toISOString(),
  }
}
