/**
 * zod schemas for the lines of an exchange file: the manifest (format and version checked exactly) and one fact
 * record. Records are strict (an unknown or misspelt field is refused) but lenient about what a hand-written line
 * may leave out; text limits match memory_write. Failures come back as one sentence naming every problem by field.
 */
import { z } from 'zod'
import { FOLD_HISTORY } from '../rules/fold.ts'
import { cuesField, dateField, nameField, qualifiersField, scopeTextField, textField } from '../text/fields.schema.ts'
import type { Evidence, FactStatus, Sensitivity } from '../types.ts'
import {
  EXCHANGE_FORMAT,
  EXCHANGE_FORMAT_VERSION,
  type AliasRecord,
  type ExchangeManifest,
  type ExchangeTombstone,
} from './jsonl.ts'

const STATUSES = [
  'active',
  'scheduled',
  'conflict',
  'superseded',
  'retired',
  'expired',
] as const satisfies readonly FactStatus[]
const EVIDENCE = ['explicit_user', 'confirmed_user', 'observed', 'unverified'] as const satisfies readonly Evidence[]
const SENSITIVITY = ['credential', 'email', 'phone', 'id_number'] as const satisfies readonly Sensitivity[]

const sha256Text = z.string().regex(/^[0-9a-f]{64}$/u, 'must be 64 lowercase hex digits')

/** The manifest line: records hash the fact lines; the alias and tombstone lines have their own count and hash. */
export const manifestSchema = z
  .strictObject({
    format: z.literal(EXCHANGE_FORMAT, `must be "${EXCHANGE_FORMAT}"`),
    version: z.literal(EXCHANGE_FORMAT_VERSION, `this plugin reads version ${EXCHANGE_FORMAT_VERSION}`),
    storeId: z.string().max(200),
    generation: z.number().int().min(0),
    exportedAt: dateField,
    records: z.number().int().min(0),
    records_sha256: sha256Text,
    aliases: z.number().int().min(0).optional(),
    aliases_sha256: sha256Text.optional(),
    tombstones: z.number().int().min(0).optional(),
    tombstones_sha256: sha256Text.optional(),
  })
  .refine(
    (manifest) =>
      [manifest.aliases, manifest.aliases_sha256, manifest.tombstones, manifest.tombstones_sha256].every(
        (field, _, all) => (field === undefined) === (all[0] === undefined),
      ),
    {
      message:
        'carry all four of aliases, aliases_sha256, tombstones and tombstones_sha256, or none (a file written before them)',
      path: ['aliases'],
    },
  ) satisfies z.ZodType<ExchangeManifest>

/**
 * One fact record. Only subject, property and value are required; `valueWithheld: true` (a credential whose
 * value an export left out) replaces the value, and the import then refuses the record.
 */
export const recordSchema = z
  .strictObject({
    subject: nameField(200),
    property: nameField(200),
    qualifiers: qualifiersField.optional(),
    scope: scopeTextField.optional(),
    projectName: nameField(200).optional(),
    value: textField(4000)
      .refine((value) => value.trim() !== '', 'must not be empty')
      .optional(),
    valueWithheld: z.literal(true).optional(),
    status: z.enum(STATUSES).optional(),
    evidence: z.enum(EVIDENCE).optional(),
    confidence: z.number().min(0).max(1).optional(),
    sensitivity: z.enum(SENSITIVITY).nullable().optional(),
    modelUseAllowed: z.boolean().optional(),
    multi: z.boolean().optional(),
    validFrom: dateField.optional(),
    validTo: dateField.nullable().optional(),
    observedAt: dateField.nullable().optional(),
    recordedAt: dateField.nullable().optional(),
    quote: textField(2000).nullable().optional(),
    foldedCount: z.number().int().min(0).optional(),
    foldedFrom: z
      .array(textField(4000).refine((value) => value.trim() !== '', 'must not be empty'))
      .max(FOLD_HISTORY, `at most ${FOLD_HISTORY} prior values`)
      .optional(),
    /** When the user pinned the row; absent (files before pins, or an unpinned row): not pinned. */
    pinnedAt: dateField.optional(),
    /** The phrases a later request needing the fact would use; absent (files before cues, or none): no cues. */
    cues: cuesField.optional(),
  })
  .refine((record) => (record.value === undefined) !== (record.valueWithheld === undefined), {
    message: 'carry exactly one of value or valueWithheld',
    path: ['value'],
  })
  .refine((record) => (record.foldedFrom?.length ?? 0) <= (record.foldedCount ?? 0), {
    message: 'holds more prior values than foldedCount counts',
    path: ['foldedFrom'],
  })
  .refine((record) => record.projectName === undefined || record.scope?.startsWith('project:') === true, {
    message: 'only a project scope (project:<key>) has a project name',
    path: ['projectName'],
  })

/** One alias record (see AliasRecord in jsonl.ts). */
export const aliasRecordSchema = z.strictObject({
  subject: nameField(200),
  property: nameField(200).optional(),
  aliasOf: nameField(200),
}) satisfies z.ZodType<AliasRecord>

/**
 * Validate an alias line.
 * @param value - the line's JSON value.
 * @returns the alias record, or why not.
 */
export function parseAliasRecord(value: unknown): LineParse<AliasRecord> {
  const result = aliasRecordSchema.safeParse(value, { reportInput: true })
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, reason: describe(result.error.issues, 'alias') }
}

/** One tombstone line: which kind of key, the key (64 hex digits) and when it was forgotten. */
export const tombstoneSchema = z.strictObject({
  tombstone: z.enum(['claim', 'evidence']),
  key: z.string().regex(/^[0-9a-f]{64}$/u, 'must be 64 lowercase hex digits'),
  forgottenAt: dateField,
}) satisfies z.ZodType<ExchangeTombstone>

/** A record as an import reads it. */
export type ImportRecord = z.infer<typeof recordSchema>

/** A parsed line, or the sentence saying why it is not one. */
export type LineParse<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string }

/**
 * Validate a manifest line.
 * @param value - the line's JSON value.
 * @returns the manifest, or why not.
 */
export function parseManifest(value: unknown): LineParse<ExchangeManifest> {
  const result = manifestSchema.safeParse(value, { reportInput: true })
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, reason: describe(result.error.issues, 'manifest') }
}

/**
 * Validate a tombstone line.
 * @param value - the line's JSON value.
 * @returns the tombstone, or why not.
 */
export function parseTombstone(value: unknown): LineParse<ExchangeTombstone> {
  const result = tombstoneSchema.safeParse(value, { reportInput: true })
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, reason: describe(result.error.issues, 'tombstone') }
}

/**
 * Validate a record line.
 * @param value - the line's JSON value.
 * @returns the record, or why not.
 */
export function parseRecord(value: unknown): LineParse<ImportRecord> {
  const result = recordSchema.safeParse(value, { reportInput: true })
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, reason: describe(result.error.issues, 'record') }
}

function describe(issues: readonly z.core.$ZodIssue[], what: string): string {
  const problems = issues.slice(0, 6).map((issue) => {
    if (issue.code === 'unrecognized_keys')
      return `unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((key) => `"${key}"`).join(', ')}`
    const field = issue.path.length === 0 ? what : issue.path.map(String).join('.')
    if (issue.code === 'invalid_type') {
      if (issue.input === undefined) return `${field}: is required`
      if (issue.expected === 'object' && issue.path.length === 0) return `the line is not a JSON object`
      return `${field}: expected ${issue.expected}`
    }
    return `${field}: ${issue.message}`
  })
  return problems.join('; ')
}
