/**
 * zod schemas of what a proposal card stores in `proposals.rows`, read back at the store boundary. An add_fact card
 * stores a bare JSON array of proposed rows; a card of a review kind (merge, retire, fold, alias) stores
 * `{batch, rows, struck?}`: batch places the card in a longer list (n of m) or is null, and struck keeps the keys of
 * rows the user struck out (proposal-prune), so a sweep does not propose them again.
 */
import { z } from 'zod'
import {
  EVIDENCE_ORDER,
  type AliasRow,
  type CardBatch,
  type CardRows,
  type Evidence,
  type FactRef,
  type FoldRow,
  type MergeRow,
  type ProposalKind,
  type ProposedRow,
  type RetireRow,
} from '../types.ts'

const factRef = z.strictObject({
  factId: z.number().int().positive(),
  revision: z.number().int().min(0),
}) satisfies z.ZodType<FactRef>

const evidence = z.enum(EVIDENCE_ORDER as [Evidence, ...Evidence[]])

const proposedRow = z.strictObject({
  subject: z.string(),
  property: z.string(),
  value: z.string(),
  qualifiers: z.record(z.string(), z.string()),
  scope: z.string(),
  evidence,
  confidence: z.number(),
  quote: z.string().nullable(),
  multi: z.boolean(),
  validFrom: z.string(),
  validTo: z.string().nullable(),
  targets: z.array(factRef),
  cues: z.array(z.string()).optional(),
}) satisfies z.ZodType<ProposedRow>

const mergeRow = z.strictObject({ keeper: factRef, loser: factRef }) satisfies z.ZodType<MergeRow>
const retireRow = z.strictObject({ fact: factRef }) satisfies z.ZodType<RetireRow>
const foldRow = z.strictObject({ survivor: factRef, runs: z.array(factRef).min(1) }) satisfies z.ZodType<FoldRow>
const aliasRow = z.strictObject({
  fragment: z.string().min(1),
  canonical: z.string().min(1),
  facts: z.array(factRef).min(1),
}) satisfies z.ZodType<AliasRow>

const batch = z
  .strictObject({ index: z.number().int().min(1), count: z.number().int().min(2) })
  .refine((value) => value.index <= value.count, 'index beyond count') satisfies z.ZodType<CardBatch>

const envelope = <R extends z.ZodType>(row: R) =>
  z.strictObject({
    batch: batch.nullable(),
    rows: z.array(row),
    struck: z.array(z.string().min(1)).optional(),
  })

const SCHEMAS = {
  merge: envelope(mergeRow),
  retire: envelope(retireRow),
  fold: envelope(foldRow),
  alias: envelope(aliasRow),
}

/** A card's stored rows, read back. */
export type StoredRows<K extends ProposalKind> =
  | {
      readonly ok: true
      readonly rows: readonly CardRows[K][]
      readonly batch: CardBatch | null
      readonly struck: readonly string[]
    }
  | { readonly ok: false; readonly problem: string }

/**
 * Read a card's stored rows.
 * @param kind - the card's kind, which decides the shape.
 * @param text - the stored JSON.
 * @returns the rows and the batch, or why they cannot be read.
 */
export function parseStoredRows<K extends ProposalKind>(kind: K, text: string): StoredRows<K> {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { ok: false, problem: 'the stored rows are not JSON' }
  }
  if (kind === 'add_fact') {
    const parsed = z.array(proposedRow).safeParse(json)
    return parsed.success
      ? { ok: true, rows: parsed.data as unknown as CardRows[K][], batch: null, struck: [] }
      : { ok: false, problem: z.prettifyError(parsed.error) }
  }
  const parsed = SCHEMAS[kind as Exclude<ProposalKind, 'add_fact'>].safeParse(json)
  return parsed.success
    ? {
        ok: true,
        rows: parsed.data.rows as unknown as CardRows[K][],
        batch: parsed.data.batch,
        struck: parsed.data.struck ?? [],
      }
    : { ok: false, problem: z.prettifyError(parsed.error) }
}

/**
 * The JSON a card stores for its rows.
 * @param kind - the card's kind.
 * @param rows - its rows.
 * @param cardBatch - its place in a longer list (review kinds only).
 * @param struck - keys of rows the user struck out (review kinds only).
 * @returns the text for `proposals.rows`.
 */
export function storedRowsText<K extends ProposalKind>(
  kind: K,
  rows: readonly CardRows[K][],
  cardBatch: CardBatch | null,
  struck: readonly string[] = [],
): string {
  if (kind === 'add_fact') return JSON.stringify(rows)
  return JSON.stringify(
    struck.length === 0 ? { batch: cardBatch, rows } : { batch: cardBatch, rows, struck: [...new Set(struck)] },
  )
}
