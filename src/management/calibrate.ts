/**
 * The calibrate verb: builds the rerank calibration record that lets the reranker filter search results (a record
 * from the user's own pairs) or marks it as ordering only (a record from library proxy pairs).
 *
 * Where the labeled pairs come from:
 * - `{pairs: [{query, document, relevant}, …]}`: the user supplies them (`pairSource: "supplied"`);
 * - `{}`: they are derived from the user's own library (`pairSource: "library"`): for up to {@link LIBRARY_QUERIES}
 *   active, model-usable, non-sensitive facts spread over the library, the query "<subject> <property>" is paired
 *   with that fact's text (relevant) and with the text of a fact of another subject and another property
 *   (irrelevant). This is a proxy: it shows the reranker tells the fact asked about from an unrelated one, not how
 *   it judges near misses, so its threshold never filters: the reranker only orders; supply pairs to filter.
 *
 * Every pair is scored by the reranker in force (one call per distinct query), and the scores are calibrated: at
 * least 20 relevant and 20 irrelevant pairs, a threshold with precision >= 95% and recall >= 80%. The run is
 * recorded under the rerank fingerprint, calibrated or refused, and answered with its precision, recall and
 * threshold or why it refused. A refused run never replaces an earlier calibration. Without a reranker the verb is
 * refused as `unavailable`; a failed rerank call is refused with the endpoint's reason and records nothing. Not
 * fenced: the record is bookkeeping and never moves the store generation.
 */
import { calibrate, MIN_RELEVANT, pairShortfall, type CalibrationResult } from '../semantic/calibration.ts'
import { LIBRARY_QUERIES, libraryPairs } from '../semantic/calibration-pairs.ts'
import { scorePairs } from '../semantic/score-pairs.ts'
import type { LabeledPair } from '../semantic/types.ts'
import { PAIR_FACTS_MAX, type CalibrationEntry, type PairSource } from '../store/calibration-store.ts'
import { ok, refuse, verb, type VerbOutcome } from './verb.ts'
import type { VerbAnswer } from './verb-contract.ts'
import { CALIBRATION_PAIRS_MAX, CALIBRATION_TEXT_MAX } from './wire.schema.ts'

/** What to set for a reranker. */
const RERANK_KEYS =
  'set rerankSource to "json", rerankBaseUrl and rerankModel (and the key under rerankApiKeyEnv if the endpoint needs one)'

/** calibrate: score labeled pairs, find the threshold, record the outcome. */
export const calibrateVerb = verb('calibrate', {
  // Every supplied character may take 4 bytes on the wire (a JSON escape or a 4-byte UTF-8 sequence), plus framing.
  bodyLimit: CALIBRATION_PAIRS_MAX * (2 * CALIBRATION_TEXT_MAX * 4 + 256),
  async run(body, context) {
    const port = context.semantic?.rerank() ?? { unavailable: 'no reranker runs in this host' }
    if ('unavailable' in port)
      return refuse('unavailable', `rerank calibration needs a reranker: ${port.unavailable}; ${RERANK_KEYS}`)
    const pairSource: PairSource = body.pairs === undefined ? 'library' : 'supplied'
    const pairs: readonly LabeledPair[] =
      body.pairs ?? libraryPairs(context.stores.calibrations.pairFacts(PAIR_FACTS_MAX), { queries: LIBRARY_QUERIES })
    const relevant = pairs.filter((pair) => pair.relevant).length
    const shortfall = pairShortfall(relevant, pairs.length - relevant)
    let result: CalibrationResult
    if (shortfall !== undefined) {
      const hint =
        pairSource === 'library'
          ? `library pairs take one query per subject · property of the current, non-sensitive facts that have a fact of another subject and property to contrast with; ${MIN_RELEVANT} such facts are needed and ${relevant} were found, or supply pairs`
          : 'supply more pairs'
      result = {
        ok: false,
        reason: 'too_few_pairs',
        message: `${shortfall}: ${hint}`,
        relevant,
        irrelevant: pairs.length - relevant,
      }
    } else {
      const scored = await scorePairs(pairs, (query, documents, signal) => port.score(query, documents, signal))
      if (!scored.ok) {
        return refuse('unavailable', `the reranker failed, nothing was recorded: ${scored.message}`, {
          reason: scored.code,
        })
      }
      result = calibrate(scored.scored)
    }
    const entry = toEntry(result, port.fingerprint, pairSource, context.now())
    context.stores.calibrations.record(entry)
    return answer(entry, result)
  },
})

function toEntry(
  result: CalibrationResult,
  fingerprint: string,
  pairSource: PairSource,
  createdAt: string,
): CalibrationEntry {
  const quality = result.ok ? result : result.best
  return {
    fingerprint,
    outcome: result.ok ? 'calibrated' : 'refused',
    pairSource,
    relevant: result.relevant,
    irrelevant: result.irrelevant,
    threshold: quality?.threshold ?? null,
    precision: quality?.precision ?? null,
    recall: quality?.recall ?? null,
    reason: result.ok ? null : result.reason,
    createdAt,
  }
}

function answer(entry: CalibrationEntry, result: CalibrationResult): VerbOutcome<VerbAnswer<'calibrate'>> {
  const { fingerprint, outcome, pairSource, relevant, irrelevant, precision, recall, threshold } = entry
  const common = { outcome, fingerprint, pairSource, relevant, irrelevant, precision, recall, threshold }
  if (result.ok) {
    // Easy proxy pairs say little about near misses, so a record from them orders search results but never filters them.
    const proxy =
      pairSource === 'library'
        ? '; the pairs were derived from your library (a fact against an unrelated one), a proxy for real questions: the reranker orders with it and filters nothing; supply pairs of your own to let it filter'
        : ''
    return ok({
      ...common,
      message: `calibrated: scores at or above ${result.threshold} count as relevant (precision ${share(result.precision)}, recall ${share(result.recall)}, ${relevant} relevant and ${irrelevant} irrelevant pairs)${proxy}`,
    })
  }
  return ok({ ...common, reason: result.reason, message: `not calibrated: ${result.message}` })
}

function share(value: number): string {
  return `${Math.round(value * 1000) / 10}%`
}
