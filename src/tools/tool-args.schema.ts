/**
 * zod schemas for the arguments of the three memory tools, and the one function that turns a failed parse into a
 * sentence the model can act on. Unknown fields, wrong types, oversized text and control characters are refused.
 */
import { z } from 'zod'
import { cuesField, dateField, nameField, qualifiersField, textField } from '../text/fields.schema.ts'

/** Arguments of memory_search. */
export const searchArgs = z.strictObject({
  query: nameField(1000),
  limit: z.number().int('must be a whole number').min(1).max(10).optional(),
  as_of: dateField.optional(),
})

/** Arguments of memory_write. */
export const writeArgs = z.strictObject({
  subject: nameField(200),
  property: nameField(200),
  value: textField(4000).refine((value) => value.trim() !== '', 'must not be empty'),
  evidence: z.enum(['explicit_user', 'observed', 'unverified', 'inferred']).optional(),
  quote: textField(2000).optional(),
  scope: nameField(100).optional(),
  qualifiers: qualifiersField.optional(),
  cues: cuesField.optional(),
  confidence: z.number().min(0).max(1).optional(),
  multi: z.boolean().optional(),
  valid_from: dateField.optional(),
  valid_to: dateField.optional(),
})

/** Arguments of memory_forget: one fact by id, or a subject with an optional property. */
export const forgetArgs = z.union([
  z.strictObject({ fact_id: z.number().int('must be a whole number').positive('must be positive').max(Number.MAX_SAFE_INTEGER) }),
  z.strictObject({ subject: nameField(200), property: nameField(200).optional() }),
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
