/**
 * One-off extraction of a text (the `extract` route): the model path without a conversation. The text is nobody's
 * statement, so what lands is observed evidence, anchored to no session; a dry run answers what would be written
 * and writes nothing. Every run is logged like a pass, with trigger `manual`. The answer holds no credential in clear,
 * in any field, whether its candidate was refused, stored or only listed.
 */
import { isoNow, type Clock } from '../clock.ts'
import type { ResolvedConfig } from '../config.ts'
import type { FactMemory } from '../fact-memory.ts'
import { sha256 } from '../text/normalize.ts'
import { MASK, maskCredentials, maskQualifiers, scanPrivacy } from '../text/privacy.ts'
import { maskRefusal, type RefusedCandidate } from '../store/extract-store.ts'
import { checkCandidate, landCandidates } from './land.ts'
import type { ExtractionModel } from '../host/model-client.ts'
import { readCandidates } from './read-candidates.ts'
import { loggedText, planPass } from './segments.ts'
import type { Candidate, ConversationMessage } from './types.ts'

/** Segments a one-off extraction may use. */
export const MANUAL_MAX_SEGMENTS = 4

/** What a one-off extraction answers. */
export type ManualExtraction =
  | {
      readonly ok: true
      readonly runId: number
      readonly model: string
      readonly candidates: readonly Candidate[]
      readonly factIds: readonly number[]
      readonly proposalIds: readonly number[]
      readonly refused: readonly RefusedCandidate[]
      readonly notes: readonly string[]
    }
  | { readonly ok: false; readonly code: 'unavailable' | 'refused'; readonly message: string }

/** What a one-off extraction needs. */
export interface ManualDeps {
  readonly memory: FactMemory
  readonly config: ResolvedConfig
  readonly model: ExtractionModel | { readonly unavailable: string }
  readonly clock: Clock
  readonly signal: AbortSignal
}

/**
 * Extract facts from a text.
 * @param text - the text (already validated for size).
 * @param dryRun - answer without writing.
 * @param deps - store, configuration, model, clock and cancel signal.
 * @returns the candidates and what landed, or why nothing could run.
 */
export async function extractText(text: string, dryRun: boolean, deps: ManualDeps): Promise<ManualExtraction> {
  if ('unavailable' in deps.model) return { ok: false, code: 'unavailable', message: deps.model.unavailable }
  const opened = deps.memory.stores()
  if (!('stores' in opened)) return { ok: false, code: 'unavailable', message: opened.unavailable.message }
  const messages: ConversationMessage[] = [{ role: 'user', seq: 0, turn: null, text }]
  const plan = planPass(messages, {
    maxChars: deps.config.extractMaxChars,
    chunksPerPass: MANUAL_MAX_SEGMENTS,
    endSeq: 1,
  })
  if (plan.remaining) {
    return {
      ok: false,
      code: 'refused',
      message: `the text needs more than ${MANUAL_MAX_SEGMENTS} segments of extractMaxChars (${deps.config.extractMaxChars}) characters; send a shorter text`,
    }
  }
  const started = deps.clock.now()
  const read = await readCandidates(plan.segments, {
    model: deps.model,
    merge: deps.config.extractMerge,
    timeZone: deps.config.displayTimeZone,
    now: started,
    signal: deps.signal,
  })
  const base = {
    sessionId: null,
    trigger: 'manual' as const,
    startSeq: null,
    endSeq: null,
    turns: [],
    messageCount: 1,
    chunkCount: plan.segments.length,
    chars: text.length,
    textSha256: sha256(text),
    textSent: loggedText(plan.segments),
    model: deps.model.name,
    attempt: 1,
    startedAt: new Date(started).toISOString(),
  }
  const ledger = opened.stores.extract
  if (!read.ok) {
    ledger.record({
      ...base,
      decision: 'failed',
      written: 0,
      review: 0,
      refused: [],
      factIds: [],
      proposalIds: [],
      note: null,
      error: read.error,
      finishedAt: isoNow(deps.clock),
      durationMs: deps.clock.now() - started,
    })
    return { ok: false, code: 'unavailable', message: read.error }
  }
  const landing = dryRun
    ? { factIds: [], proposalIds: [], refused: dryRunRefusals(read.candidates, messages) }
    : landCandidates(
        read.candidates,
        { origin: 'extract', messages, sessionId: null, usersWords: false, project: null },
        deps.memory,
        deps.config,
      )
  const notes = [...read.notes, ...(dryRun ? ['dry run: nothing was written'] : [])]
  const runId = ledger.record({
    ...base,
    decision: 'extracted',
    written: landing.factIds.length,
    review: landing.proposalIds.length,
    refused: landing.refused,
    factIds: landing.factIds,
    proposalIds: landing.proposalIds,
    note: notes.join('; ') || null,
    error: null,
    finishedAt: isoNow(deps.clock),
    durationMs: deps.clock.now() - started,
  })
  return maskedAnswer({
    ok: true,
    runId,
    model: deps.model.name,
    candidates: read.candidates,
    ...landing,
    refused: landing.refused.map(maskRefusal),
    notes,
  })
}

/**
 * An answer as the caller may see it: each candidate value that is a credential (judged with its property) and each
 * qualifier value that is one (judged with its key) replaced by {@link MASK}, then every string of every field masked
 * with those values known (see maskCredentials), so a secret a quote, note or other field repeats is masked too.
 */
function maskedAnswer(answer: ManualExtraction & { readonly ok: true }): ManualExtraction {
  const known = answer.candidates.flatMap((candidate) => [
    ...(isCredential(candidate.property, candidate.value) ? [candidate.value] : []),
    ...Object.entries(candidate.qualifiers ?? {}).flatMap(([key, text]) => (isCredential(key, text) ? [text] : [])),
  ])
  const candidates = answer.candidates.map(
    (candidate): Candidate => ({
      ...candidate,
      value: isCredential(candidate.property, candidate.value) ? MASK : candidate.value,
      ...(candidate.qualifiers === undefined ? {} : { qualifiers: maskQualifiers(candidate.qualifiers) }),
    }),
  )
  return maskStrings({ ...answer, candidates }, known)
}

function isCredential(property: string, value: string): boolean {
  return scanPrivacy(property, value)?.sensitivity === 'credential'
}

/** Every string inside a plain JSON value, masked with the known credentials; other values as they are. */
function maskStrings<T>(value: T, known: readonly string[]): T {
  if (typeof value === 'string') return maskCredentials(value, known) as T
  if (Array.isArray(value)) return value.map((entry: unknown) => maskStrings(entry, known)) as T
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, entry]) => [maskCredentials(key, known), maskStrings(entry, known)]),
    ) as T
  }
  return value
}

/** The local checks a dry run can report without writing: quote anchoring and the shape gate. */
function dryRunRefusals(
  candidates: readonly Candidate[],
  messages: readonly ConversationMessage[],
): RefusedCandidate[] {
  return candidates.flatMap((candidate): RefusedCandidate[] => {
    const checked = checkCandidate(candidate, messages)
    return checked.ok ? [] : [checked.refused]
  })
}
