/**
 * The reranker in force as calibration calls it: the rerank gateway for the live configuration, each answer
 * checked against the declared score mode (an out-of-range score fails the call, it is never calibrated on), and
 * the rerank fingerprint the record is kept under; and the one checked rerank call that search makes too.
 */
import type { ResolvedConfig } from '../config.ts'
import { maskCredentials } from '../text/privacy.ts'
import { rerankDocuments } from './rerank-gateway.ts'
import { checkScores } from './score-mode.ts'
import { rerankEndpoint, rerankSettings } from './settings.ts'
import type { CallLimits, EndpointAccess, RerankAnswer, RerankEndpoint, RerankPort, RerankScoreMode } from './types.ts'

/** How long one calibration call may take (a batch of documents for one query). */
export const CALIBRATION_CALL_TIMEOUT_MS = 30_000

/**
 * The reranker of a configuration.
 * @param access - keys and fetch.
 * @param config - the live configuration.
 * @returns the port, or why there is none.
 */
export function rerankPort(
  access: EndpointAccess,
  config: ResolvedConfig,
): RerankPort | { readonly unavailable: string } {
  const settings = rerankSettings(config)
  if (!settings.configured) return { unavailable: settings.reason }
  return {
    fingerprint: settings.fingerprint,
    async score(query, documents, signal) {
      // Supplied documents are any text: masked here, as factText masks a fact's.
      return checkedRerank(
        rerankEndpoint(settings, await access.key(settings.keyName)),
        settings.scoreMode,
        query,
        documents.map((document) => maskCredentials(document)),
        { timeoutMs: CALIBRATION_CALL_TIMEOUT_MS, signal },
        access.fetch,
      )
    },
  }
}

/**
 * One rerank call as both calibration and search make it: credentials in the query masked before it leaves, every
 * score checked against the declared score mode (one out of range fails the whole call).
 * @param endpoint - the endpoint, key resolved.
 * @param scoreMode - the declared score range.
 * @param query - the query as asked.
 * @param documents - the texts to score, already as they may leave the machine (factText, or masked by the caller).
 * @param limits - budget and signal.
 * @param fetchImpl - the fetch to use.
 * @returns one checked score per document, or the failure.
 */
export async function checkedRerank(
  endpoint: RerankEndpoint,
  scoreMode: RerankScoreMode,
  query: string,
  documents: readonly string[],
  limits: CallLimits,
  fetchImpl: typeof fetch,
): Promise<RerankAnswer> {
  const answer = await rerankDocuments(endpoint, maskCredentials(query), documents, limits, fetchImpl)
  if (!answer.ok) return answer
  const checked = checkScores(answer.scores, scoreMode)
  return checked.ok ? answer : checked
}
