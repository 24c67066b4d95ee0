/**
 * What status says about the semantic channels: for each, whether it is configured (or why not) and its
 * fingerprint; for the embedding channel the vectors that are current, stale (an older revision or another
 * fingerprint) and missing, the facts never embedded (sensitive or hidden from the model), and the last sweep of
 * that fingerprint with its error, and what this process holds of them in memory for the scan (`inMemory`: the vectors
 * and bytes, null before a search or the warm start loaded them); for the reranker its score mode and calibration state (calibrated on the user's
 * pairs, proxy when calibrated on the library's pairs and so ordering only, refused with the reason, or uncalibrated).
 * For each configured channel, `breaker`: its endpoint's query-time breaker (closed, open until an instant, trying,
 * or off), the failures in a row and the last error; null where this host runs no searches.
 * Nothing here contains a key.
 */
import type { ResolvedConfig } from '../config.ts'
import { embeddingSettings, rerankSettings, shownUrl } from '../semantic/settings.ts'
import { readSweepRecord } from '../semantic/sweep-record.schema.ts'
import type { OpenStores } from '../store/store-set.ts'
import type { SemanticView, VectorsView } from './verb.ts'
import type { semanticStatusSchema } from './answers.schema.ts'
import type { WireOf } from '../wire.schema.ts'

/** What a calibration from the library's proxy pairs does, as status says it. */
const PROXY_NOTE =
  'calibrated on proxy pairs from the library only; it orders, it does not filter: supply pairs of your own to calibrate for filtering'

/**
 * The semantic block of status.
 * @param config - the live configuration.
 * @param stores - the open stores, if any.
 * @param vectors - the vector channel's services, if this host runs them.
 * @param semantic - the query-time services (the breakers), if this host runs them.
 * @returns a JSON-ready object.
 */
export function semanticStatus(
  config: ResolvedConfig,
  stores: OpenStores | undefined,
  vectors: VectorsView | undefined,
  semantic?: SemanticView | undefined,
): WireOf<typeof semanticStatusSchema> {
  const embedding = embeddingSettings(config)
  const rerank = rerankSettings(config)
  // The last sweep of the fingerprint in force, by whichever process shares the file (a one-shot run's included); a
  // sweep of another model is no report on this one.
  const stored = embedding.configured ? readSweepRecord(stores?.vectors.lastSweep(embedding.fingerprint)) : undefined
  const swept = stored ?? vectors?.last()
  const last = embedding.configured && swept?.fingerprint === embedding.fingerprint ? swept : null
  const space = embedding.configured ? stores?.vectors.space(embedding.fingerprint) : undefined
  type Status = WireOf<typeof semanticStatusSchema>
  const embeddingBlock: Status['embedding'] = embedding.configured
    ? {
        configured: true,
        source: embedding.identity.provider,
        baseUrl: shownUrl(embedding.identity.baseUrl),
        model: embedding.identity.model,
        fingerprint: embedding.fingerprint,
        dim: space?.dim ?? embedding.identity.dim,
        intervalMs: embedding.intervalMs,
        keyName: embedding.keyName,
        // Before the first sweep there is no space: every eligible fact is missing (ids start at 1, so 0 matches none).
        vectors: stores === undefined ? null : stores.vectors.coverage(space?.id ?? 0),
        lastSweep: last,
        error: last?.error ?? null,
        inMemory: vectors?.held?.() ?? null,
        breaker: semantic?.breaker?.('embedding', embedding.fingerprint) ?? null,
      }
    : { configured: false, reason: embedding.reason }
  let rerankBlock: Status['rerank'] = { configured: false, reason: rerank.configured ? '' : rerank.reason }
  if (rerank.configured) {
    const current = stores?.calibrations.current(rerank.fingerprint)
    const latest = stores?.calibrations.latest(rerank.fingerprint)
    rerankBlock = {
      configured: true,
      source: rerank.identity.provider,
      baseUrl: shownUrl(rerank.identity.baseUrl),
      model: rerank.identity.model,
      scoreMode: rerank.scoreMode,
      fingerprint: rerank.fingerprint,
      keyName: rerank.keyName,
      calibration:
        current === undefined
          ? latest !== undefined
            ? { state: 'refused', ...latest }
            : { state: 'uncalibrated' }
          : current.pairSource === 'library'
            ? { state: 'proxy', ...current, note: PROXY_NOTE }
            : { state: 'calibrated', ...current },
      breaker: semantic?.breaker?.('rerank', rerank.fingerprint) ?? null,
    }
  }
  return { embedding: embeddingBlock, rerank: rerankBlock }
}
