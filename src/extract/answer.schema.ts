/**
 * zod schema of the extraction model's answer and the one parser that turns its text into candidates. The answer is
 * JSON, optionally wrapped in one ```json fence; prose around it is refused rather than salvaged. A malformed answer
 * is refused whole; within a well-formed answer each fact is checked on its own, so one bad fact is reported as
 * invalid without discarding its siblings.
 */
import { z } from 'zod'
import { cuesField, dateField, nameField, textField } from '../text/fields.schema.ts'
import type { Candidate } from './types.ts'

/** The most facts one answer may carry; a longer list is refused as runaway output. */
export const MAX_ANSWER_FACTS = 50
/** Caps on the fields of one fact, in UTF-16 code units (the same as memory_write's arguments). */
export const FACT_FIELD_CAPS = {
  subject: 200,
  property: 200,
  value: 4000,
  quote: 2000,
  scope: 100,
  qualifierKey: 100,
  qualifierValue: 300,
  qualifiers: 8,
} as const

/** A field that must say something. */
const filledText = (max: number) => textField(max).refine((value) => value.trim() !== '', 'must not be empty')

/** One fact as the model writes it (snake_case, the wire shape the prompt asks for). */
export interface AnswerFact {
  subject: string
  property: string
  value: string
  quote: string
  confidence: number
  /** `"project"`: the fact holds only in the session's project (its repository); any other word is a free-text label. */
  scope?: string | undefined
  qualifiers?: Record<string, string> | undefined
  /** Up to 8 short phrases, English and Chinese, a later request needing the fact would use. */
  cues?: string[] | undefined
  valid_from?: string | undefined
  valid_to?: string | undefined
  multi?: boolean | undefined
}

/** One fact of the answer; unknown fields are refused. */
export const answerFactSchema = z.strictObject({
  subject: nameField(FACT_FIELD_CAPS.subject),
  property: nameField(FACT_FIELD_CAPS.property),
  value: filledText(FACT_FIELD_CAPS.value),
  quote: filledText(FACT_FIELD_CAPS.quote),
  confidence: z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1'),
  scope: nameField(FACT_FIELD_CAPS.scope).optional(),
  qualifiers: z
    .record(nameField(FACT_FIELD_CAPS.qualifierKey), nameField(FACT_FIELD_CAPS.qualifierValue))
    .refine(
      (record) => Object.keys(record).length <= FACT_FIELD_CAPS.qualifiers,
      `at most ${FACT_FIELD_CAPS.qualifiers} qualifiers`,
    )
    .optional(),
  cues: cuesField.optional(),
  valid_from: dateField.optional(),
  valid_to: dateField.optional(),
  multi: z.boolean().optional(),
}) satisfies z.ZodType<AnswerFact>

/** The answer's envelope: a `facts` list and nothing else. Each item is checked by {@link answerFactSchema}. */
export const answerEnvelopeSchema = z.strictObject({
  facts: z.array(z.unknown()).max(MAX_ANSWER_FACTS, `at most ${MAX_ANSWER_FACTS} facts`),
})

/** Why an answer was refused whole. */
export type AnswerRefusal = 'not_json' | 'not_an_answer'

/** A fact of an accepted answer that failed its own check: its position in `facts` and the problems found. */
export interface InvalidFact {
  readonly index: number
  readonly problem: string
}

/** The parsed answer: candidates in answer order plus the facts refused individually; or why the whole answer was refused. */
export type ParsedAnswer =
  | { readonly ok: true; readonly candidates: readonly Candidate[]; readonly invalid: readonly InvalidFact[] }
  | { readonly ok: false; readonly reason: AnswerRefusal; readonly detail: string }

/** One fence around the whole answer: ```json … ``` (language tag optional). */
const FENCE = /^```[ \t]*(?:json)?[ \t]*(?:\r?\n)?([\s\S]*?)\s*```$/iu

/**
 * Parse the model's answer text.
 * Accepted: a JSON object `{"facts": [...]}`, alone or inside exactly one ```json fence. A `null` optional field
 * counts as absent. Strings are trimmed; snake_case fields become the camelCase {@link Candidate}.
 * @param answer - the model's text, as received.
 * @returns the candidates and any individually invalid facts, or the refusal of the whole answer.
 */
export function parseAnswer(answer: string): ParsedAnswer {
  const trimmed = answer.trim()
  const body = FENCE.exec(trimmed)?.[1] ?? trimmed
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch (error) {
    return { ok: false, reason: 'not_json', detail: error instanceof Error ? error.message : 'unparseable' }
  }
  const envelope = answerEnvelopeSchema.safeParse(json)
  if (!envelope.success) return { ok: false, reason: 'not_an_answer', detail: describeIssues(envelope.error) }
  const candidates: Candidate[] = []
  const invalid: InvalidFact[] = []
  envelope.data.facts.forEach((item, index) => {
    const fact = answerFactSchema.safeParse(withoutNulls(item))
    if (fact.success) candidates.push(toCandidate(fact.data))
    else invalid.push({ index, problem: describeIssues(fact.error) })
  })
  return { ok: true, candidates, invalid }
}

/**
 * The wire form of a candidate, as the prompts show candidates to the model (snake_case, absent fields omitted).
 * @param candidate - a candidate.
 * @returns the fact in the answer's own shape.
 */
export function toAnswerFact(candidate: Candidate): AnswerFact {
  return {
    subject: candidate.subject,
    property: candidate.property,
    value: candidate.value,
    quote: candidate.quote,
    confidence: candidate.confidence,
    ...(candidate.scope === undefined ? {} : { scope: candidate.scope }),
    ...(candidate.qualifiers === undefined ? {} : { qualifiers: { ...candidate.qualifiers } }),
    ...(candidate.cues === undefined ? {} : { cues: [...candidate.cues] }),
    ...(candidate.validFrom === undefined ? {} : { valid_from: candidate.validFrom }),
    ...(candidate.validTo === undefined ? {} : { valid_to: candidate.validTo }),
    ...(candidate.multi === undefined ? {} : { multi: candidate.multi }),
  }
}

function toCandidate(fact: AnswerFact): Candidate {
  const qualifiers =
    fact.qualifiers === undefined
      ? undefined
      : Object.fromEntries(Object.entries(fact.qualifiers).map(([key, value]) => [key.trim(), value.trim()]))
  return {
    subject: fact.subject.trim(),
    property: fact.property.trim(),
    value: fact.value.trim(),
    quote: fact.quote.trim(),
    confidence: fact.confidence,
    ...(fact.scope === undefined ? {} : { scope: fact.scope.trim() }),
    ...(qualifiers === undefined ? {} : { qualifiers }),
    ...(fact.cues === undefined ? {} : { cues: fact.cues.map((cue) => cue.trim()) }),
    ...(fact.valid_from === undefined ? {} : { validFrom: fact.valid_from.trim() }),
    ...(fact.valid_to === undefined ? {} : { validTo: fact.valid_to.trim() }),
    ...(fact.multi === undefined ? {} : { multi: fact.multi }),
  }
}

/** A plain object without its `null` fields (an explicit null means "not given"); anything else unchanged. */
function withoutNulls(item: unknown): unknown {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return item
  return Object.fromEntries(Object.entries(item).filter(([, value]) => value !== null))
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 6)
    .map((issue) => {
      if (issue.code === 'unrecognized_keys')
        return `unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((key) => `"${key}"`).join(', ')}`
      const field = issue.path.length === 0 ? 'answer' : issue.path.map(String).join('.')
      return `${field}: ${issue.message}`
    })
    .join('; ')
}
