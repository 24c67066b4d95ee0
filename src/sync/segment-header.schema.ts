/** zod schema for a segment file's header line (segment-format.ts), strict, format and version checked exactly. */
import { z } from 'zod'
import { SEGMENT_FORMAT, SEGMENT_FORMAT_VERSION, type SegmentHeader } from './segment-header.ts'

const hlc = z.string().regex(/^\d{13}-\d{6}-[a-z0-9][a-z0-9-]{0,63}$/u, 'must be a clock reading')
const base64 = z.string().regex(/^[A-Za-z0-9+/]{1,200}={0,2}$/u, 'must be base64')

/** The header line. */
export const segmentHeaderSchema = z.strictObject({
  format: z.literal(SEGMENT_FORMAT, `must be "${SEGMENT_FORMAT}"`),
  version: z.literal(SEGMENT_FORMAT_VERSION, `this plugin reads version ${SEGMENT_FORMAT_VERSION}`),
  kind: z.enum(['segment', 'snapshot']),
  device: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/u, 'must be a device id'),
  seq: z.number().int().min(1),
  firstHlc: hlc.nullable(),
  lastHlc: hlc.nullable(),
  count: z.number().int().min(0),
  bodySha256: z.string().regex(/^[0-9a-f]{64}$/u, 'must be 64 lowercase hex digits'),
  cipher: z
    .strictObject({
      alg: z.literal('aes-256-gcm'),
      kdf: z.literal('scrypt+hkdf-sha256'),
      n: z
        .number()
        .int()
        .min(2)
        .max(2 ** 22),
      r: z.number().int().min(1).max(32),
      p: z.number().int().min(1).max(16),
      kdfSalt: base64,
      salt: base64,
      iv: base64,
      tag: base64,
    })
    .nullable(),
}) satisfies z.ZodType<SegmentHeader>

/**
 * Validate a header line's JSON value.
 * @param value - the parsed line.
 * @returns the header, or the problems in one sentence.
 */
export function parseSegmentHeader(
  value: unknown,
): { readonly ok: true; readonly header: SegmentHeader } | { readonly ok: false; readonly reason: string } {
  const result = segmentHeaderSchema.safeParse(value)
  if (result.success) return { ok: true, header: result.data }
  return {
    ok: false,
    reason: result.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.map(String).join('.') || 'header'}: ${issue.message}`)
      .join('; '),
  }
}
