/**
 * What the query-time legs keep between searches, one set per plugin instance: a breaker per endpoint (embedding,
 * rerank), so a dead endpoint is skipped instead of waited on, and the query embeddings of recent messages. The
 * background vector sweep and calibration call their endpoints without them: a sweep has its own budget and retries,
 * and calibration is a person asking for it.
 */
import type { BreakerPolicy } from './breaker.ts'
import { EndpointBreaker, type BreakerReport } from './endpoint-breaker.ts'
import { QueryEmbeddingCache } from './query-embedding-cache.ts'

/** The breakers and the cache of one plugin instance. */
export interface QueryGuards {
  readonly embedding: EndpointBreaker
  readonly rerank: EndpointBreaker
  readonly queryEmbeddings: QueryEmbeddingCache
}

/** The breakers as status shows them, for the endpoints in force (null: the channel is off). */
export interface BreakerReports {
  readonly embedding: BreakerReport | null
  readonly rerank: BreakerReport | null
}

/** How the guards are built; the defaults are the plugin's. */
export interface QueryGuardOptions {
  /** The breakers' policy; `off` lets every call through (for the bench's figure without them). */
  readonly breaker?: BreakerPolicy | 'off'
  /** The most query embeddings kept (0 keeps none). */
  readonly cacheSize?: number
}

/**
 * Fresh guards: both breakers closed, the cache empty.
 * @param now - epoch-ms clock.
 * @param options - policy and cache size.
 * @returns the guards.
 */
export function queryGuards(now: () => number, options: QueryGuardOptions = {}): QueryGuards {
  return {
    embedding: new EndpointBreaker('embedding endpoint', now, options.breaker),
    rerank: new EndpointBreaker('rerank endpoint', now, options.breaker),
    queryEmbeddings: new QueryEmbeddingCache(options.cacheSize),
  }
}
