/**
 * zod schema for one change record read from another device's segment: strict (an unknown field is refused), each
 * kind closed, the full row validated as an export's record line is (exchange/record.schema.ts). Failures come back
 * as one sentence naming the problems by field.
 */
import { z } from 'zod'
import { recordSchema } from '../exchange/record.schema.ts'
import type { ChangeRecord } from './change-record.ts'

const DEVICE = /^[a-z0-9][a-z0-9-]{0,63}$/u
const HLC = /^\d{13}-\d{6}-[a-z0-9][a-z0-9-]{0,63}$/u

const device = z.string().regex(DEVICE, 'must be a device id (lowercase letters, digits, dashes)')
const hlc = z.string().regex(HLC, 'must be a clock reading')
const key = (max: number) => z.string().min(1, 'must not be empty').max(max, `at most ${max} characters`)
const valueKey = key(4000)

const slot = z.strictObject({
  entity: key(400),
  predicate: key(400),
  qualifiers: z.string().max(4000),
  project: key(4200).nullable(),
})

const row = recordSchema.refine((record) => record.value !== undefined, {
  message: 'a synced row carries its value',
  path: ['value'],
})

const ends = z
  .array(
    z.strictObject({
      value: valueKey,
      as: z.enum(['superseded', 'retired', 'expired', 'folded', 'moved']),
    }),
  )
  .max(1000)

const tombstones = z.array(
  z.strictObject({
    kind: z.enum(['claim', 'evidence']),
    key: z.string().regex(/^[0-9a-f]{64}$/u, 'must be 64 lowercase hex digits'),
  }),
)

const base = {
  op: z.string().regex(/^[A-Za-z0-9._:-]{8,128}$/u, 'must be an operation id'),
  device,
  hlc,
  seen: z.record(device, hlc),
}

/** One change record, any kind. */
export const changeRecordSchema = z
  .discriminatedUnion('kind', [
    z.strictObject({ ...base, kind: z.literal('write'), slot, value: valueKey, row, ends }),
    z.strictObject({ ...base, kind: z.literal('supersede'), slot, ends, by: valueKey.nullable() }),
    z.strictObject({
      ...base,
      kind: z.literal('settle'),
      slot,
      keep: valueKey,
      ends,
      evidence: z.enum(['explicit_user', 'confirmed_user', 'observed', 'unverified']).optional(),
    }),
    z.strictObject({ ...base, kind: z.literal('forget'), slot, value: valueKey, tombstones: tombstones.max(100) }),
    z.strictObject({ ...base, kind: z.literal('pin'), slot, value: valueKey, pinnedAt: z.string().max(40).nullable() }),
    z.strictObject({
      ...base,
      kind: z.literal('alias'),
      aliasKind: z.enum(['entity', 'predicate', 'project']),
      entity: key(400).nullable(),
      from: key(4200),
      to: key(4200),
      display: key(4200),
    }),
    z.strictObject({ ...base, kind: z.literal('move'), slot, value: valueKey, to: slot, row }),
    z.strictObject({
      ...base,
      kind: z.literal('put_back'),
      slot,
      value: valueKey,
      row,
      status: z.enum(['superseded', 'retired', 'expired']),
    }),
    z.strictObject({ ...base, kind: z.literal('restore'), undoes: z.array(z.string().max(128)).min(1).max(1000) }),
    z.strictObject({
      ...base,
      kind: z.literal('unalias'),
      aliasKind: z.enum(['entity', 'predicate']),
      entity: key(400).nullable(),
      from: key(4200),
      to: key(4200),
    }),
    z.strictObject({
      ...base,
      kind: z.literal('display'),
      nameKind: z.enum(['entity', 'predicate']),
      entity: key(400),
      predicate: key(400).nullable(),
      display: key(4200),
      before: key(4200),
    }),
    z.strictObject({ ...base, kind: z.literal('tombstone'), tombstones: tombstones.min(1).max(1000) }),
  ])
  .refine((record) => record.hlc.endsWith(`-${record.device}`), {
    message: "the clock must be stamped by the record's own device",
    path: ['hlc'],
  })
  .refine(
    (record) =>
      (record.kind !== 'alias' && record.kind !== 'unalias') ||
      (record.aliasKind === 'predicate') === (record.entity !== null),
    { message: 'a property alias names its subject, and only a property alias does', path: ['entity'] },
  )
  .refine((record) => record.kind !== 'display' || (record.nameKind === 'predicate') === (record.predicate !== null), {
    message: 'a property name names its property, and only a property name does',
    path: ['predicate'],
  })

/** A parsed record, or the sentence saying why the value is not one. */
export type RecordParse =
  | { readonly ok: true; readonly record: ChangeRecord }
  | { readonly ok: false; readonly reason: string }

/**
 * Validate one change record.
 * @param value - the record's JSON value.
 * @returns the record, or why not.
 */
export function parseChangeRecord(value: unknown): RecordParse {
  const result = changeRecordSchema.safeParse(value)
  if (result.success) return { ok: true, record: result.data as ChangeRecord }
  const problems = result.error.issues.slice(0, 4).map((issue) => {
    if (issue.code === 'unrecognized_keys')
      return `unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((name) => `"${name}"`).join(', ')}`
    const field = issue.path.length === 0 ? 'record' : issue.path.map(String).join('.')
    return `${field}: ${issue.message}`
  })
  return { ok: false, reason: problems.join('; ') }
}
