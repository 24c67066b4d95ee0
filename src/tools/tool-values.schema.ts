/**
 * zod schemas of what memory_write and memory_forget return (memory_search's is src/retrieval/search-value.schema.ts):
 * the tools' value types are inferred from them and their output schemas generated from them, so each tool states
 * its answer once. A refusal is a value too, with its outcome word and its message. Imports zod only.
 */
import { z } from 'zod'

const id = z.number().int().positive()

/** The canonical value of memory_write. */
export const writeValueSchema = z.strictObject({
  outcome: z.enum(['ok', 'saved', 'pending', 'conflict', 'refused', 'unavailable']),
  message: z.string(),
  factId: id.nullable(),
  proposalId: id.nullable(),
  status: z.string().nullable(),
  evidence: z.string().nullable(),
  sensitivity: z.string().nullable(),
  /** Facts this write replaced or retired. */
  replaced: z.array(z.strictObject({ id, value: z.string() })),
  /** For a conflict: the values it contradicts. */
  rivals: z.array(z.strictObject({ id, value: z.string(), evidence: z.string() })),
  /** Why the evidence was lowered, when it was. */
  note: z.string().nullable(),
})

/** One forgotten fact as the model reads it; `scope` is `global`, `label <text>` or `project <name>`, never a path. */
export const forgottenViewSchema = z.strictObject({
  id,
  subject: z.string(),
  property: z.string(),
  value: z.string(),
  scope: z.string(),
})

/** The canonical value of memory_forget. */
export const forgetValueSchema = z.strictObject({
  outcome: z.enum(['ok', 'not_found', 'refused', 'unavailable']),
  message: z.string(),
  forgotten: z.array(forgottenViewSchema),
  /** The scopes the forget could reach: the fact's own by id; by subject `global`, `labels` and the session's project. */
  reached: z.array(z.string()),
  /** Projects a subject forget left alone that still hold facts of the subject (name and count), most first. */
  untouched: z.array(z.strictObject({ project: z.string(), facts: z.number().int().min(0) })),
  /** Current facts in other scopes holding the claim a forget by id tombstoned: they stay until forgotten too. */
  sameClaimKept: z.array(z.strictObject({ id, scope: z.string() })),
})
