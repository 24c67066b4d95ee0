/**
 * zod schema of what migration 0026 hands fm_unscoped_tombstone_key: one tombstone and the row it was written for,
 * read back at the store boundary (the JSON is built by SQL from stored columns).
 */
import { z } from 'zod'
import type { StoredTombstone } from './tombstones.ts'

const storedTombstone = z.strictObject({
  kind: z.enum(['claim', 'evidence']),
  key: z.string(),
  entityKey: z.string(),
  predicateKey: z.string(),
  qualifiers: z.record(z.string(), z.string()),
  value: z.string(),
  quote: z.string().nullable(),
  scope: z.string(),
  foldedFrom: z.array(z.string()),
}) satisfies z.ZodType<StoredTombstone>

/**
 * Read the JSON text of a tombstone and its row.
 * @param text - JSON text.
 * @returns the tombstone and its row.
 * @throws when the text is not JSON of that shape (the migration that asked fails, and the file is left as it was).
 */
export function parseStoredTombstone(text: string): StoredTombstone {
  return storedTombstone.parse(JSON.parse(text))
}
