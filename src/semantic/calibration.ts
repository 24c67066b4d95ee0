/**
 * Pure: rerank calibration. From scored labeled pairs it finds the score threshold that lets the reranker filter
 * (a score at or above the threshold counts as relevant), or says why there is none; and it decides, from the
 * calibration record in force, whether a rerank may filter at all (only one on the user's own pairs does).
 */

/** Fewest relevant pairs a calibration is computed from. */
export const MIN_RELEVANT = 20
/** Fewest irrelevant pairs a calibration is computed from. */
export const MIN_IRRELEVANT = 20
/** Lowest precision a threshold may have: of the pairs it keeps, at least this share are relevant. */
export const MIN_PRECISION = 0.95
/** Lowest recall the chosen threshold may have: it keeps at least this share of the relevant pairs. */
export const MIN_RECALL = 0.8

/** One pair as the reranker scored it. */
export interface ScoredPair {
  /** A finite score. */
  readonly score: number
  readonly relevant: boolean
}

/** A threshold with what it achieves over the scored pairs. */
export interface ThresholdQuality {
  /** Scores at or above it count as relevant. */
  readonly threshold: number
  /** Relevant pairs kept / all pairs kept. */
  readonly precision: number
  /** Relevant pairs kept / all relevant pairs. */
  readonly recall: number
}

/** Why no calibration came out. */
export type CalibrationRefusal = 'too_few_pairs' | 'no_threshold'

/** What calibrating found. */
export type CalibrationResult =
  | (ThresholdQuality & { readonly ok: true; readonly relevant: number; readonly irrelevant: number })
  | {
      readonly ok: false
      readonly reason: CalibrationRefusal
      /** A sentence a person can act on. */
      readonly message: string
      readonly relevant: number
      readonly irrelevant: number
      /** With `no_threshold`: the threshold that came closest (see {@link calibrate}). */
      readonly best?: ThresholdQuality
    }

/**
 * Whether a set of labeled pairs is large enough to calibrate from.
 * @param relevant - relevant pairs.
 * @param irrelevant - irrelevant pairs.
 * @returns undefined when it is, else the sentence that says how many are missing.
 */
export function pairShortfall(relevant: number, irrelevant: number): string | undefined {
  if (relevant >= MIN_RELEVANT && irrelevant >= MIN_IRRELEVANT) return undefined
  return `calibration needs at least ${MIN_RELEVANT} relevant and ${MIN_IRRELEVANT} irrelevant pairs; got ${relevant} relevant and ${irrelevant} irrelevant`
}

/**
 * Find the calibration threshold. Every distinct score is a candidate threshold. Among the candidates whose
 * precision is at least {@link MIN_PRECISION}, the one with the highest recall is chosen (ties: the higher
 * threshold); it is refused (`no_threshold`) when its recall is below {@link MIN_RECALL}, or when no candidate
 * reaches the precision. `best` is then the chosen candidate, or, when none reaches the precision, the candidate
 * with the highest precision (ties: the higher recall, then the higher threshold). Fewer than {@link MIN_RELEVANT}
 * relevant or {@link MIN_IRRELEVANT} irrelevant pairs are refused as `too_few_pairs` before any threshold is tried.
 * @param scored - the pairs with their scores; order does not matter.
 * @returns the threshold with its precision and recall and the pair counts, or the refusal.
 */
export function calibrate(scored: readonly ScoredPair[]): CalibrationResult {
  const relevant = scored.filter((pair) => pair.relevant).length
  const irrelevant = scored.length - relevant
  const shortfall = pairShortfall(relevant, irrelevant)
  if (shortfall !== undefined) return { ok: false, reason: 'too_few_pairs', message: shortfall, relevant, irrelevant }
  const candidates = thresholdQualities(scored, relevant)
  const precise = candidates.filter((candidate) => candidate.precision >= MIN_PRECISION)
  const chosen = pickBest(precise, (a, b) => a.recall - b.recall || a.threshold - b.threshold)
  if (chosen !== undefined && chosen.recall >= MIN_RECALL) return { ok: true, ...chosen, relevant, irrelevant }
  const best =
    chosen ??
    pickBest(candidates, (a, b) => a.precision - b.precision || a.recall - b.recall || a.threshold - b.threshold)
  const message =
    chosen === undefined
      ? `no threshold reaches ${percent(MIN_PRECISION)} precision (the best reaches ${percent(best?.precision ?? 0)})`
      : `the threshold with ${percent(MIN_PRECISION)} precision keeps only ${percent(chosen.recall)} of the relevant pairs; ${percent(MIN_RECALL)} recall is needed`
  return best === undefined
    ? { ok: false, reason: 'no_threshold', message, relevant, irrelevant }
    : { ok: false, reason: 'no_threshold', message, relevant, irrelevant, best }
}

/** Whether a rerank may filter, and where. */
export type RerankDecision =
  | { readonly filter: true; readonly threshold: number }
  | { readonly filter: false; readonly reason: 'rerank_uncalibrated' }

/**
 * Decide what a rerank may do under the calibration in force for its fingerprint. Only a calibration on the user's
 * own pairs filters: the library's proxy pairs (a fact against an unrelated one) are trivially separable, so their
 * threshold says little about the near misses of real questions.
 * @param calibration - the current calibration record of the rerank fingerprint, or undefined when there is none.
 * @returns filter at its threshold (drop results scoring below it), or only order (`rerank_uncalibrated`).
 */
export function rerankDecision(
  calibration: { readonly threshold: number; readonly pairSource: 'supplied' | 'library' } | undefined,
): RerankDecision {
  return calibration?.pairSource === 'supplied'
    ? { filter: true, threshold: calibration.threshold }
    : { filter: false, reason: 'rerank_uncalibrated' }
}

/** Precision and recall at every distinct score, highest score first. */
function thresholdQualities(scored: readonly ScoredPair[], relevantTotal: number): ThresholdQuality[] {
  const sorted = [...scored].sort((a, b) => b.score - a.score)
  const out: ThresholdQuality[] = []
  let kept = 0
  let keptRelevant = 0
  for (let i = 0; i < sorted.length; i += 1) {
    const pair = sorted[i] as ScoredPair
    kept += 1
    if (pair.relevant) keptRelevant += 1
    // A threshold keeps every pair with an equal score, so it is measured after the last of a run of equal scores.
    if (i + 1 < sorted.length && (sorted[i + 1] as ScoredPair).score === pair.score) continue
    out.push({ threshold: pair.score, precision: keptRelevant / kept, recall: keptRelevant / relevantTotal })
  }
  return out
}

function pickBest(
  candidates: readonly ThresholdQuality[],
  compare: (a: ThresholdQuality, b: ThresholdQuality) => number,
): ThresholdQuality | undefined {
  let best: ThresholdQuality | undefined
  for (const candidate of candidates) if (best === undefined || compare(candidate, best) > 0) best = candidate
  return best
}

function percent(share: number): string {
  return `${Math.round(share * 1000) / 10}%`
}
