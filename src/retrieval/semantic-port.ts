/**
 * The seam through which the optional semantic channels join a search, defined here so that retrieval depends on
 * nothing above it: the vector channel contributes one more ranking to the fusion, the reranker reorders (and, when
 * calibrated, filters) the fused pool. Both are budgeted by whoever implements them, and both report a failure as
 * a degradation the answer names instead of failing the search.
 */
import type { Visibility } from '../store/fact-store.ts'
import type { Fact } from '../types.ts'
import type { Ranking } from './fuse.ts'

/**
 * Why a semantic channel did not contribute: an endpoint's failure (timeout, cancelled, unreachable, http_error,
 * bad_response, wrong_dimension, score_out_of_range), the endpoint skipped without a call while it cools down after
 * repeated failures (cooling_down), no time left in the query (deadline), or nothing it may be
 * sent (nothing_sendable: every candidate was a sensitive fact), or a failure on this side (internal: the store or
 * the key lookup).
 */
export type DegradationCode =
  | 'timeout'
  | 'cancelled'
  | 'unreachable'
  | 'http_error'
  | 'bad_response'
  | 'wrong_dimension'
  | 'score_out_of_range'
  | 'cooling_down'
  | 'deadline'
  | 'nothing_sendable'
  | 'internal'

/** A semantic channel that did not contribute, and why, in words the answer shows. */
export interface Degradation {
  readonly channel: 'vector' | 'rerank'
  readonly code: DegradationCode
  readonly reason: string
}

/** What the vector channel did for one query. */
export type VectorOutcome =
  /** It ran: its ranking joins the fusion; `lacking` tells which found facts have no current vector. */
  | {
      readonly kind: 'ran'
      readonly ranking: Ranking
      readonly lacking: (factIds: readonly number[]) => ReadonlySet<number>
    }
  /**
   * No fact has a vector of the fingerprint in force yet: the endpoint was not asked; `lacking` tells which found
   * facts could have one (a sensitive or hidden fact never gets one, so it never lacks one).
   */
  | { readonly kind: 'empty'; readonly lacking: (factIds: readonly number[]) => ReadonlySet<number> }
  | { readonly kind: 'degraded'; readonly degradation: Degradation }

/** What the reranker did for one pool. */
export type RerankOutcome =
  /**
   * Scores for the candidates sent, checked against the declared score mode; `pairSource` is where the pairs of the
   * calibration record in force came from (null: none), and `threshold` is set only when they were the user's own:
   * library proxy pairs are trivially separable, so their threshold orders but never filters.
   */
  | {
      readonly kind: 'ran'
      readonly scores: ReadonlyMap<number, number>
      readonly threshold: number | undefined
      readonly pairSource: 'supplied' | 'library' | null
    }
  | { readonly kind: 'degraded'; readonly degradation: Degradation }

/** The semantic legs of one search; each is absent when its channel is not configured. */
export interface SemanticLegs {
  /**
   * Embed the query and rank the facts with current vectors.
   * @param query - the query as asked.
   * @param visibility - model visibility, or undefined for the user's own views.
   * @param deadline - epoch ms the whole query must end by.
   */
  readonly vector?:
    | ((query: string, visibility: Visibility | undefined, deadline: number) => Promise<VectorOutcome>)
    | undefined
  /**
   * Score the pool's facts against the query.
   * @param query - the query as asked.
   * @param facts - the pool's facts, in fused order.
   * @param deadline - epoch ms the whole query must end by.
   */
  readonly rerank?: ((query: string, facts: readonly Fact[], deadline: number) => Promise<RerankOutcome>) | undefined
}
