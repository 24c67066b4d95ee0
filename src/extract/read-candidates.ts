/**
 * Read candidates out of a planned pass: one model call per segment (text in, JSON out), each answer validated
 * locally, then merged across segments — locally and for free, and with one more call only when segments disagree
 * (extractMerge). A merge answer that invents anything is discarded whole and the local merge stands.
 */
import { formatDay } from '../text/dates.ts'
import { parseAnswer } from './answer.schema.ts'
import { applyMerge, buildMergeRequest, mergeLocally, validateMergeAnswer } from './merge.ts'
import type { ExtractionModel } from '../host/model-client.ts'
import { buildExtractionPrompt } from './prompt.ts'
import type { Candidate, Segment } from './types.ts'

/** Output budget of one extraction call: enough for 50 facts with quotes. */
export const EXTRACTION_MAX_TOKENS = 4096

/** What a read found. */
export type ReadOutcome =
  | {
      readonly ok: true
      readonly candidates: readonly Candidate[]
      /** Facts in an answer that failed the schema, and a merge answer that was discarded. */
      readonly notes: readonly string[]
      readonly modelCalls: number
    }
  | { readonly ok: false; readonly error: string; readonly modelCalls: number }

/** How to read. */
export interface ReadOptions {
  readonly model: ExtractionModel
  readonly merge: boolean
  readonly timeZone: string
  readonly now: number
  readonly signal: AbortSignal
  readonly sessionId?: string | undefined
}

/**
 * Call the model on every segment and merge what it found.
 * @param segments - the pass's segments, in order.
 * @param options - the model, extractMerge, the zone and instant for "today", the cancel signal.
 * @returns the merged candidates, or the first failure (a failed call or an answer that is not JSON fails the pass).
 */
export async function readCandidates(segments: readonly Segment[], options: ReadOptions): Promise<ReadOutcome> {
  const today = formatDay(new Date(options.now).toISOString(), options.timeZone)
  const perSegment: Candidate[][] = []
  const notes: string[] = []
  let modelCalls = 0
  for (const [index, segment] of segments.entries()) {
    const prompt = buildExtractionPrompt(segment, { part: index + 1, parts: segments.length, today })
    modelCalls += 1
    const answer = await options.model.complete({
      ...prompt,
      maxTokens: EXTRACTION_MAX_TOKENS,
      signal: options.signal,
      sessionId: options.sessionId,
    })
    if (!answer.ok) return { ok: false, error: answer.error, modelCalls }
    const parsed = parseAnswer(answer.text)
    if (!parsed.ok) return { ok: false, error: `the model's answer was not usable (${parsed.reason})`, modelCalls }
    for (const invalid of parsed.invalid)
      notes.push(`segment ${index + 1}: fact ${invalid.index + 1} failed the answer schema (${invalid.problem})`)
    perSegment.push([...parsed.candidates])
  }
  const local = mergeLocally(perSegment)
  if (!local.needsModelMerge || !options.merge) return { ok: true, candidates: local.candidates, notes, modelCalls }
  const request = buildMergeRequest(local.contested)
  modelCalls += 1
  const answer = await options.model.complete({
    ...request,
    maxTokens: EXTRACTION_MAX_TOKENS,
    signal: options.signal,
    sessionId: options.sessionId,
  })
  if (!answer.ok) {
    notes.push(`merge call failed (${answer.error}); the local merge stands`)
    return { ok: true, candidates: local.candidates, notes, modelCalls }
  }
  const verdict = validateMergeAnswer(local.contested, answer.text)
  if (!verdict.ok) {
    notes.push(`merge answer discarded (${verdict.reason}); the local merge stands`)
    return { ok: true, candidates: local.candidates, notes, modelCalls }
  }
  return { ok: true, candidates: applyMerge(local, verdict.candidates), notes, modelCalls }
}
