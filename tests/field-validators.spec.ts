/**
 * One set of field validators at every boundary that takes a fact from outside: the model's tool arguments, the
 * page's route bodies and an import file's lines give the same verdict on the same text (control characters, C1
 * included, line breaks in one-line names, empty names, bad dates, qualifier counts).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { z } from 'zod'
import { recordSchema } from '../src/exchange/record.schema.ts'
import { factAddBody, factUpdateBody } from '../src/management/wire.schema.ts'
import { writeArgs } from '../src/tools/tool-args.schema.ts'

const FENCE = { expectedGeneration: 0, operationId: 'op-fields-1' }

/** Each boundary's verdict on a fact whose `field` is `value`, the rest valid. */
function verdicts(field: 'subject' | 'value' | 'qualifiers' | 'validFrom', value: unknown): Record<string, boolean> {
  const base = { subject: 'billing-api', property: 'port', value: '7801' }
  const accepts = (schema: z.ZodType, body: unknown): boolean => schema.safeParse(body).success
  const toolField = field === 'validFrom' ? 'valid_from' : field
  return {
    tool: accepts(writeArgs, { ...base, [toolField]: value }),
    route:
      field === 'validFrom' || field === 'qualifiers'
        ? accepts(factUpdateBody, { ...FENCE, id: 1, [field]: value })
        : accepts(factAddBody, { ...FENCE, ...base, [field]: value }),
    file: accepts(recordSchema, { ...base, [field]: value }),
  }
}

const same = (verdict: Record<string, boolean>, expected: boolean, what: string): void => {
  assert.deepEqual(verdict, { tool: expected, route: expected, file: expected }, what)
}

describe('one set of field validators for tools, routes and files', () => {
  it('refuses C0, DEL and C1 control characters in a name and a value alike', () => {
    for (const char of ['\u0007', '\u007F', '\u0085', '\u009B']) {
      same(verdicts('subject', `billing${char}api`), false, `subject with U+${char.codePointAt(0)?.toString(16)}`)
      same(verdicts('value', `78${char}01`), false, `value with U+${char.codePointAt(0)?.toString(16)}`)
    }
  })

  it('takes a line break in a value but not in a name, and refuses an empty name', () => {
    same(verdicts('value', 'line one\nline two'), true, 'a two-line value')
    same(verdicts('subject', 'billing\napi'), false, 'a two-line subject')
    same(verdicts('subject', '   '), false, 'a blank subject')
  })

  it('gives the same verdict on dates and on qualifiers', () => {
    same(verdicts('validFrom', '2026-03-01'), true, 'a day')
    same(verdicts('validFrom', '2026-03-01T09:30:00Z'), true, 'an instant')
    same(verdicts('validFrom', 'next tuesday'), false, 'words')
    same(verdicts('validFrom', '2026-02-30T99:99'), false, 'a date that is no date')
    same(verdicts('qualifiers', { env: 'staging' }), true, 'one qualifier')
    same(
      verdicts('qualifiers', Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, 'v']))),
      false,
      'nine qualifiers',
    )
    same(verdicts('qualifiers', { env: 'stag\u0085ing' }), false, 'a qualifier with a C1 character')
  })
})
