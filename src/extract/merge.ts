/**
 * Pure merge of the candidates a pass's segments produced: identical claims fold locally for free, and only a slot
 * whose segments disagree asks for one extra model call, whose answer may only recombine the candidates it was given.
 */
import {
  canonicalEntity,
  canonicalPredicate,
  canonicalQualifiers,
  canonicalValue,
  claimKeyOf,
  slotKeyOf,
} from '../text/normalize.ts'
import { isProjectWord, PROJECT_SCOPE_WORD } from '../project/project-ref.ts'
import { parseAnswer, type AnswerRefusal } from './answer.schema.ts'
import { buildMergeUserMessage, MERGE_SYSTEM_PROMPT } from './prompt.ts'
import type { Candidate, ModelPrompt } from './types.ts'

/** The outcome of the local merge. */
export interface LocalMerge {
  /** Every distinct claim once, in first-seen order, with the highest confidence seen and the first quote. */
  readonly candidates: readonly Candidate[]
  /** The members of `candidates` whose slot holds different values from different segments: the merge call's input. */
  readonly contested: readonly Candidate[]
  /** True when `contested` is not empty (and the merge call is worth making). */
  readonly needsModelMerge: boolean
  /** How many candidates folded into an identical earlier one. */
  readonly folded: number
}

/** Why a merge answer was discarded whole. */
export type MergeRefusal = AnswerRefusal | 'invalid_fact' | 'empty' | 'too_many' | 'invented'

/** A merge answer that only recombines the given candidates, or why it was discarded. */
export type MergeVerdict =
  | { readonly ok: true; readonly candidates: readonly Candidate[] }
  | { readonly ok: false; readonly reason: MergeRefusal; readonly detail: string }

/**
 * Merge the candidates of a pass locally.
 * Identity is the claim key (canonical subject, property, qualifiers and value), so "Billing Service" · "Port" ·
 * "8123" and "billing" · "port" · "8123" fold into the first of them. A slot (canonical subject, property and
 * qualifiers) is contested when it holds two or more values that came from two or more segments, unless every
 * candidate in it is `multi`. Values that disagree inside one segment are left alone: the model already read them
 * together, and the write rules handle a slot conflict.
 * @param perSegment - the candidates each segment produced, in segment order.
 * @returns the folded candidates and the contested ones.
 */
export function mergeLocally(perSegment: readonly (readonly Candidate[])[]): LocalMerge {
  const claims = new Map<string, { candidate: Candidate; slot: string }>()
  const slots = new Map<string, { claims: Set<string>; segments: Set<number>; allMulti: boolean }>()
  let folded = 0
  perSegment.forEach((candidates, segment) => {
    for (const candidate of candidates) {
      const { claim, slot } = keysOf(candidate)
      const seen = claims.get(claim)
      if (seen === undefined) claims.set(claim, { candidate, slot })
      else {
        folded += 1
        if (candidate.confidence > seen.candidate.confidence)
          seen.candidate = { ...seen.candidate, confidence: candidate.confidence }
      }
      const group = slots.get(slot) ?? { claims: new Set<string>(), segments: new Set<number>(), allMulti: true }
      group.claims.add(claim)
      group.segments.add(segment)
      group.allMulti &&= candidate.multi === true
      slots.set(slot, group)
    }
  })
  const isContested = (slot: string): boolean => {
    const group = slots.get(slot)
    return group !== undefined && group.claims.size > 1 && group.segments.size > 1 && !group.allMulti
  }
  const entries = [...claims.values()]
  const contested = entries.filter((entry) => isContested(entry.slot)).map((entry) => entry.candidate)
  return {
    candidates: entries.map((entry) => entry.candidate),
    contested,
    needsModelMerge: contested.length > 0,
    folded,
  }
}

/**
 * The candidates of a pass after a valid merge answer: the uncontested ones unchanged, then the merged ones.
 * @param local - the local merge.
 * @param merged - the candidates of an accepted merge answer.
 * @returns the candidates to hand to the write rules.
 */
export function applyMerge(local: LocalMerge, merged: readonly Candidate[]): Candidate[] {
  const contested = new Set(local.contested)
  return [...local.candidates.filter((candidate) => !contested.has(candidate)), ...merged]
}

/**
 * The merge call for contested candidates.
 * @param candidates - the candidates to consolidate (usually `LocalMerge.contested`), in conversation order.
 * @returns the system prompt and user message.
 */
export function buildMergeRequest(candidates: readonly Candidate[]): ModelPrompt {
  return { system: MERGE_SYSTEM_PROMPT, user: buildMergeUserMessage(candidates) }
}

/**
 * Check a merge answer against the candidates it was given. Every field of every returned fact must equal, after
 * trimming, the same field of some given candidate (subject from a given subject, value from a given value, quote
 * from a given quote, and so on; `qualifiers` as a whole set; `multi: true` only if some candidate had it), and its
 * confidence may not exceed the highest given confidence. The answer may not be empty nor longer than the input.
 * One invented string, or one invalid fact, discards the whole answer.
 * @param given - the candidates sent to the merge call.
 * @param answerText - the model's answer.
 * @returns the recombined candidates, or why the answer was discarded.
 */
export function validateMergeAnswer(given: readonly Candidate[], answerText: string): MergeVerdict {
  const parsed = parseAnswer(answerText)
  if (!parsed.ok) return { ok: false, reason: parsed.reason, detail: parsed.detail }
  const firstInvalid = parsed.invalid[0]
  if (firstInvalid !== undefined)
    return { ok: false, reason: 'invalid_fact', detail: `facts[${firstInvalid.index}]: ${firstInvalid.problem}` }
  if (parsed.candidates.length === 0 && given.length > 0)
    return { ok: false, reason: 'empty', detail: 'the answer dropped every candidate' }
  if (parsed.candidates.length > given.length) {
    return {
      ok: false,
      reason: 'too_many',
      detail: `${parsed.candidates.length} facts from ${given.length} candidates`,
    }
  }
  const allowed = allowedFields(given)
  for (const [index, fact] of parsed.candidates.entries()) {
    const field = inventedField(fact, allowed)
    if (field !== undefined)
      return { ok: false, reason: 'invented', detail: `facts[${index}].${field} is not taken from any candidate` }
  }
  return { ok: true, candidates: parsed.candidates }
}

/** The values each field of a merged fact may take. */
interface AllowedFields {
  readonly subject: ReadonlySet<string>
  readonly property: ReadonlySet<string>
  readonly value: ReadonlySet<string>
  readonly quote: ReadonlySet<string>
  readonly scope: ReadonlySet<string>
  readonly qualifiers: ReadonlySet<string>
  /** Every cue some candidate gave: a merged fact's cues are each one of them. */
  readonly cues: ReadonlySet<string>
  readonly validFrom: ReadonlySet<string>
  readonly validTo: ReadonlySet<string>
  readonly multi: boolean
  readonly confidence: number
}

function allowedFields(given: readonly Candidate[]): AllowedFields {
  const set = (pick: (candidate: Candidate) => string | undefined): Set<string> =>
    new Set(
      given.flatMap((candidate) => {
        const value = pick(candidate)
        return value === undefined ? [] : [value.trim()]
      }),
    )
  return {
    subject: set((candidate) => candidate.subject),
    property: set((candidate) => candidate.property),
    value: set((candidate) => candidate.value),
    quote: set((candidate) => candidate.quote),
    scope: set((candidate) => candidate.scope),
    qualifiers: set((candidate) =>
      candidate.qualifiers === undefined ? undefined : qualifierText(candidate.qualifiers),
    ),
    cues: new Set(given.flatMap((candidate) => (candidate.cues ?? []).map((cue) => cue.trim()))),
    validFrom: set((candidate) => candidate.validFrom),
    validTo: set((candidate) => candidate.validTo),
    multi: given.some((candidate) => candidate.multi === true),
    confidence: Math.max(0, ...given.map((candidate) => candidate.confidence)),
  }
}

/** The first field of a merged fact not taken from the given candidates, or undefined when none is. */
function inventedField(fact: Candidate, allowed: AllowedFields): string | undefined {
  const fromGiven = (set: ReadonlySet<string>, value: string | undefined): boolean =>
    value === undefined || set.has(value.trim())
  if (!fromGiven(allowed.subject, fact.subject)) return 'subject'
  if (!fromGiven(allowed.property, fact.property)) return 'property'
  if (!fromGiven(allowed.value, fact.value)) return 'value'
  if (!fromGiven(allowed.quote, fact.quote)) return 'quote'
  if (!fromGiven(allowed.scope, fact.scope)) return 'scope'
  if (fact.qualifiers !== undefined && !allowed.qualifiers.has(qualifierText(fact.qualifiers))) return 'qualifiers'
  if ((fact.cues ?? []).some((cue) => !allowed.cues.has(cue.trim()))) return 'cues'
  if (!fromGiven(allowed.validFrom, fact.validFrom)) return 'valid_from'
  if (!fromGiven(allowed.validTo, fact.validTo)) return 'valid_to'
  if (fact.multi === true && !allowed.multi) return 'multi'
  if (fact.confidence > allowed.confidence) return 'confidence'
  return undefined
}

/** A qualifier set as exact text: pairs trimmed and sorted by key, nothing folded. */
function qualifierText(qualifiers: Readonly<Record<string, string>>): string {
  const pairs = Object.entries(qualifiers)
    .map(([key, value]) => [key.trim(), value.trim()] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return JSON.stringify(pairs)
}

function keysOf(candidate: Candidate): { claim: string; slot: string } {
  const entity = canonicalEntity(candidate.subject)
  const predicate = canonicalPredicate(candidate.property)
  const qualifiers = canonicalQualifiers(candidate.qualifiers)
  // Every candidate of a pass comes from one session, so a project-scoped one is keyed by the marker alone.
  const project = isProjectWord(candidate.scope) ? PROJECT_SCOPE_WORD : null
  return {
    claim: claimKeyOf(entity, predicate, qualifiers, canonicalValue(candidate.value), project),
    slot: slotKeyOf(entity, predicate, qualifiers, project),
  }
}
