/**
 * zod schemas for the arguments of the three memory tools, and the one function that turns a failed parse into a
 * sentence the model can act on. Unknown fields, wrong types, oversized text and control characters are refused.
 */
import { z } from 'zod'

/** Control characters other than tab and line breaks. */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/u
/** Any control character, line breaks included: names are one line. */
const ANY_CONTROL = /[\u0000-\u001F\u007F-\u009F]/u

const name = (max: number) => z.string()
  .max(max, `at most ${max} characters`)
  .refine((text) => text.trim() !== '', 'must not be empty')
  .refine((text) => !ANY_CONTROL.test(text), 'must not contain control characters or line breaks')

const text = (max: number) => z.string()
  .max(max, `at most ${max} characters`)
  .refine((value) => !CONTROL.test(value), 'must not contain control characters')

const dateText = z.string().max(40, 'at most 40 characters')
  .refine((value) => /^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/u.test(value.trim()), 'must be YYYY-MM-DD or an ISO timestamp')

/** Arguments of memory_search. */
export const searchArgs = z.strictObject({
  query: name(1000),
  limit: z.number().int('must be a whole number').min(1).max(10).optional(),
  as_of: dateText.optional(),
})

/** Arguments of memory_write. */
export const writeArgs = z.strictObject({
  subject: name(200),
  property: name(200),
  value: text(4000).refine((value) => value.trim() !== '', 'must not be empty'),
  evidence: z.enum(['explicit_user', 'observed', 'unverified', 'inferred']).optional(),
  quote: text(2000).optional(),
  scope: name(100).optional(),
  qualifiers: z.record(name(100), name(300))
    .refine((record) => Object.keys(record).length <= 8, 'at most 8 qualifiers').optional(),
  confidence: z.number().min(0).max(1).optional(),
  multi: z.boolean().optional(),
  valid_from: dateText.optional(),
  valid_to: dateText.optional(),
})

/** Arguments of memory_forget: one fact by id, or a subject with an optional property. */
export const forgetArgs = z.union([
  z.strictObject({ fact_id: z.number().int('must be a whole number').positive('must be positive').max(Number.MAX_SAFE_INTEGER) }),
  z.strictObject({ subject: name(200), property: name(200).optional() }),
], { error: 'pass either {fact_id} or {subject, property?}, not both and not neither' })

export type SearchArgs = z.infer<typeof searchArgs>
export type WriteArgs = z.infer<typeof writeArgs>
export type ForgetArgs = z.infer<typeof forgetArgs>

/** A parse that succeeded, or the sentence explaining why not. */
export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string }

/**
 * Parse tool arguments.
 * @param schema - the tool's schema.
 * @param args - what the model sent.
 * @returns the typed arguments, or one sentence naming every problem by field.
 */
export function parseArgs<T>(schema: z.ZodType<T>, args: unknown): Parsed<T> {
  const result = schema.safeParse(args, { reportInput: true })
  if (result.success) return { ok: true, value: result.data }
  const problems = result.error.issues.slice(0, 6).map((issue) => {
    if (issue.code === 'unrecognized_keys') return `unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((key) => `"${key}"`).join(', ')}`
    const field = issue.path.length === 0 ? 'arguments' : issue.path.map(String).join('.')
    if (issue.code === 'invalid_type') {
      if (issue.input === undefined) return `${field}: is required`
      if (issue.expected === 'int') return `${field}: must be a whole number`
      return `${field}: expected ${issue.expected}, got ${describeType(issue.input)}`
    }
    return `${field}: ${issue.message}`
  })
  return { ok: false, message: `invalid arguments — ${problems.join('; ')}` }
}

function describeType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value
}
