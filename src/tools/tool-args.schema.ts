/**
 * zod schemas for the arguments of the three memory tools, and the one function that turns a failed parse into a
 * sentence the model can act on. Unknown fields, wrong types, oversized text and control characters are refused.
 */
import { z } from 'zod'
import { cuesField, dateField, nameField, qualifiersField, textField } from '../text/fields.schema.ts'

/** Arguments of memory_search. */
export const searchArgs = z.strictObject({
  query: nameField(1000).meta({
    description: 'What to look for: words, a subject, or an identifier such as a port or path.',
  }),
  limit: z
    .number()
    .int('must be a whole number')
    .min(1)
    .max(10)
    .optional()
    .meta({ description: 'Most matching facts (default from settings, 5).' }),
  as_of: dateField
    .optional()
    .meta({ description: 'Optional date (YYYY-MM-DD) or ISO timestamp: answer with the values current then.' }),
})

/** Arguments of memory_write. */
export const writeArgs = z.strictObject({
  subject: nameField(200).meta({
    description: 'The stable entity the fact is about: a project, service, person, tool or "user".',
  }),
  property: nameField(200).meta({ description: 'The attribute, e.g. "port", "preferred editor", "deploy target".' }),
  value: textField(4000)
    .refine((value) => value.trim() !== '', 'must not be empty')
    .meta({ description: 'The value, short and self-contained.' }),
  evidence: z
    .enum(['explicit_user', 'observed', 'unverified', 'inferred'])
    .optional()
    .meta({ description: 'How you know it (default observed).' }),
  quote: textField(2000).optional().meta({
    description:
      'The exact words the fact comes from, a sentence that holds the value (not "yes"); required for explicit_user.',
  }),
  scope: nameField(100).optional().meta({
    description:
      '"project": this session\'s codebase (its repository); "global" (default): everywhere. Another word is kept as a free-text label.',
  }),
  qualifiers: qualifiersField
    .optional()
    .meta({ description: 'Optional qualifiers that split a slot, e.g. {"env": "staging"}.' }),
  cues: cuesField.optional().meta({
    description:
      'Optional: up to 8 short phrases, English and Chinese, a later request needing this fact would use (e.g. ["run the tests", "跑测试"]).',
  }),
  confidence: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .meta({ description: 'Your confidence; below 0.6 the fact is queued for review.' }),
  multi: z
    .boolean()
    .optional()
    .meta({ description: 'True when the property legitimately holds several values at once (e.g. languages spoken).' }),
  valid_from: dateField
    .optional()
    .meta({ description: 'Optional date (YYYY-MM-DD) from which the value holds; a future date schedules it.' }),
  valid_to: dateField.optional().meta({ description: 'Optional date after which the value no longer holds.' }),
})

/** memory_forget's fields, each optional: the parameters the model is shown (forgetArgs says which go together). */
const forgetFields = {
  fact_id: z
    .number()
    .int('must be a whole number')
    .positive('must be positive')
    .max(Number.MAX_SAFE_INTEGER)
    .meta({ description: 'The id of one fact to forget.' }),
  subject: nameField(200).meta({ description: 'Forget every fact of this subject (instead of fact_id).' }),
  property: nameField(200).meta({ description: 'With subject: forget only this property.' }),
}

/** The shape memory_forget's parameters show: every field optional, nothing else allowed. */
export const forgetShape = z.strictObject({
  fact_id: forgetFields.fact_id.optional(),
  subject: forgetFields.subject.optional(),
  property: forgetFields.property.optional(),
})

/** Arguments of memory_forget: one fact by id, or a subject with an optional property. */
export const forgetArgs = z.union(
  [
    z.strictObject({ fact_id: forgetFields.fact_id }),
    z.strictObject({ subject: forgetFields.subject, property: forgetFields.property.optional() }),
  ],
  { error: 'pass either {fact_id} or {subject, property?}, not both and not neither' },
)

/**
 * A tool's parameters as the model is shown them: the JSON Schema of its zod arguments (draft 7, without `$schema`),
 * so the contract is stated once. Refinements that JSON Schema cannot say (no control characters, a real date) are
 * checked when the call is parsed.
 * @param schema - the tool's argument object.
 * @returns the parameters object.
 */
export function toolParameters(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(schema, {
    target: 'draft-7',
    io: 'input',
    unrepresentable: 'any',
    // `propertyNames` is left out: function-calling APIs do not all take it, and the parse checks qualifier names.
    override: ({ jsonSchema }) => {
      delete jsonSchema.propertyNames
    },
  })
  return parameters
}

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
    if (issue.code === 'unrecognized_keys')
      return `unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((key) => `"${key}"`).join(', ')}`
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
