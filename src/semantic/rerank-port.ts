/**
 * The reranker in force as calibration calls it: the rerank gateway for the live configuration, each answer
 * checked against the declared score mode (an out-of-range score fails the call, it is never calibrated on), and
 * the rerank fingerprint the record is kept under.
 */
import type { ResolvedConfig } from '../config.ts'
import { maskCredentials } from '../text/privacy.ts'
import { rerankDocuments } from './rerank-gateway.ts'
import { checkScores } from './score-mode.ts'
import type { EndpointAccess } from './search-legs.ts'
import { rerankSettings } from './settings.ts'
import type { RerankPort } from './types.ts'

/** How long one calibration call may take (a batch of documents for one query). */
export const CALIBRATION_CALL_TIMEOUT_MS = 30_000

/**
 * The reranker of a configuration.
 * @param access - keys and fetch.
 * @param config - the live configuration.
 * @returns the port, or why there is none.
 */
export function rerankPort(access: EndpointAccess, config: ResolvedConfig): RerankPort | { readonly unavailable: string } {
  const settings = rerankSettings(config)
  if (!settings.configured) return { unavailable: settings.reason }
  return {
    fingerprint: settings.fingerprint,
    async score(query, documents, signal) {
      const answer = await rerankDocuments(
        { baseUrl: settings.identity.baseUrl, model: settings.identity.model, apiKey: await access.key(settings.keyName) },
        maskCredentials(query), documents.map((document) => maskCredentials(document)), { timeoutMs: CALIBRATION_CALL_TIMEOUT_MS, signal }, access.fetch)
      if (!answer.ok) return answer
      const checked = checkScores(answer.scores, settings.scoreMode)
      return checked.ok ? answer : checked
    },
  }
}
