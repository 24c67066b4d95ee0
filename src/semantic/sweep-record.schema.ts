/** The stored record of a vector sweep (vector_spaces.last_sweep), validated when read back. */
import { z } from 'zod'
import type { VectorSweepResult } from './vector-sweep-run.ts'

const count = z.number().int().min(0)

const sweepRecord = z.object({
  outcome: z.enum(['swept', 'failed', 'cancelled']),
  fingerprint: z.string(),
  embedded: count,
  rechecked: count,
  pruned: count,
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  startedAt: z.string(),
  finishedAt: z.string(),
})

/**
 * Read a stored sweep record.
 * @param text - the JSON text, if any.
 * @returns the record, or undefined when there is none or it is not one (a record from another version, say).
 */
export function readSweepRecord(text: string | undefined): VectorSweepResult | undefined {
  if (text === undefined) return undefined
  try {
    const parsed = sweepRecord.safeParse(JSON.parse(text))
    return parsed.success ? (parsed.data as VectorSweepResult) : undefined
  } catch {
    return undefined
  }
}
