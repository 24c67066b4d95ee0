/**
 * Pure: do rerank scores fit the declared score mode? `unit_interval` scores are finite and within [0, 1]; `logit`
 * and `native` scores are finite. One score outside invalidates the whole rerank, so the check answers for the
 * list, naming the first offender.
 */
import type { EndpointFailure, RerankScoreMode } from './types.ts'

/** What each mode admits, as messages say it. */
const RANGE: Readonly<Record<RerankScoreMode, string>> = {
  unit_interval: 'a finite number from 0 to 1',
  logit: 'a finite number',
  native: 'a finite number',
}

/**
 * Check a rerank's scores against the declared mode.
 * @param scores - one score per document, in document order.
 * @param mode - rerankScoreMode.
 * @returns ok, or `score_out_of_range` naming the first offending score, its document index and the mode.
 */
export function checkScores(scores: readonly number[], mode: RerankScoreMode): { readonly ok: true } | EndpointFailure {
  const offender = scores.findIndex((score) => !fits(score, mode))
  if (offender === -1) return { ok: true }
  return {
    ok: false,
    code: 'score_out_of_range',
    message: `rerank score ${String(scores[offender])} for document ${offender} is outside the declared score mode ${mode} (${RANGE[mode]}): the whole rerank is invalid`,
  }
}

function fits(score: number, mode: RerankScoreMode): boolean {
  if (!Number.isFinite(score)) return false
  return mode !== 'unit_interval' || (score >= 0 && score <= 1)
}
