/**
 * zod schema of memory_search's value: what the tool returns (its output schema is generated from this), what the
 * search verb answers the page with, and the type src/retrieval/render.ts builds. Imports zod only.
 */
import { z } from 'zod'

const count = z.number().int().min(0)

/** One value row of a result, as the tool returns it. */
export const searchValueRowSchema = z.strictObject({
  id: z.number().int().positive(),
  value: z.string(),
  status: z.string(),
  evidence: z.string(),
  validFrom: z.string(),
  validTo: z.string().nullable(),
  observedAt: z.string(),
  source: z.string(),
  quote: z.string().nullable(),
  sensitive: z.boolean(),
  sensitivity: z.string().nullable().describe('The kind of sensitive data: email, phone, id_number or credential.'),
  /** Found by the search (or the current value of a single-valued slot), as opposed to history shown to fill the budget. */
  matched: z.boolean(),
  /** How many writes of the same line on other days folded into this row (seen foldedCount + 1 times). */
  foldedCount: count,
  fromDevices: z
    .array(z.string())
    .describe(
      'The other machines a contested value came from through sync, by name; empty when it came from this one.',
    ),
})

/** One slot of the answer. */
export const searchValueResultSchema = z.strictObject({
  subject: z.string(),
  property: z.string(),
  qualifiers: z.record(z.string(), z.string()),
  contested: z.boolean(),
  /** Whether the slot holds many values at once (then `values` lists only those that matched). */
  multi: z.boolean(),
  values: z.array(searchValueRowSchema),
  /** Values of the slot not listed: other current values of a multi-valued slot, older rows of a single-valued one. */
  moreValues: count,
  /** Whether the text says how many more values there are (it does when the budget leaves room). */
  moreValuesShown: z.boolean(),
  project: z.string().nullable().describe('The project the fact belongs to, by name; null for global facts.'),
  otherProject: z.boolean().describe('True when that project is not the one this session works in.'),
  matchedAlias: z
    .string()
    .nullable()
    .describe("The subject's old name the query named it by (it was renamed since); null otherwise."),
})

/** A semantic channel asked but not contributing (failure, timeout, invalid scores), and why. */
export const degradationSchema = z.strictObject({
  channel: z.enum(['vector', 'rerank']),
  code: z.enum([
    'timeout',
    'cancelled',
    'unreachable',
    'http_error',
    'bad_response',
    'wrong_dimension',
    'score_out_of_range',
    'cooling_down',
    'deadline',
    'nothing_sendable',
    'internal',
  ]),
  reason: z.string(),
})

/** The canonical value of memory_search. */
export const searchValueSchema = z.strictObject({
  outcome: z.enum(['ok', 'not_found', 'needs_selection', 'refused', 'unavailable']),
  /** The query as asked, with every credential in it masked. */
  query: z.string(),
  asOf: z.string().nullable(),
  channels: z.array(z.string()),
  skipped: z.array(z.string()),
  degraded: z.array(degradationSchema),
  /**
   * The rerank's standing: `calibrated` (it filtered with a calibration record), `rerank_uncalibrated` (it only
   * ordered; nothing is settled by it), or null when no rerank ran.
   */
  rerank: z.enum(['calibrated', 'rerank_uncalibrated']).nullable(),
  /**
   * Where the pairs of the rerank's calibration record came from: `supplied` (the user's, it filters), `library`
   * (proxy pairs: the rerank stays `rerank_uncalibrated` and only orders), or null when there is none or no rerank ran.
   */
  rerankCalibration: z.enum(['supplied', 'library']).nullable(),
  /** Candidates a calibrated rerank dropped below its threshold. */
  rerankFiltered: count,
  /** Current facts in the answer with no current vector: the vector channel did not cover them. */
  unvectored: count,
  timeZone: z.string(),
  results: z.array(searchValueResultSchema),
  /** Matched facts left out to fit the budget. */
  omitted: count,
  message: z.string().nullable(),
})
