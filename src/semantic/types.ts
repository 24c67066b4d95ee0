/**
 * The shared vocabulary of the semantic channels: what the two endpoints answer (failures are data with a closed
 * code, never throws), what an embedding or rerank endpoint is, and the labeled pairs calibration works on.
 */

/** Why a call to an embedding or rerank endpoint gave no usable answer. */
export type EndpointFailureCode =
  /** No answer within the call's budget. */
  | 'timeout'
  /** The call was cancelled (the plugin is unloading, the query's deadline passed). */
  | 'cancelled'
  /** The endpoint could not be reached (refused connection, DNS, TLS). */
  | 'unreachable'
  /** The endpoint answered with an HTTP status other than 2xx. */
  | 'http_error'
  /** The answer was not the documented shape (missing vectors, wrong count, non-numbers, duplicate indices). */
  | 'bad_response'
  /** An embedding had another dimension than the configured one, or than the vectors already stored. */
  | 'wrong_dimension'
  /** A rerank score fell outside the declared score mode's range: the whole rerank is invalid. */
  | 'score_out_of_range'
  /** No call was made: the endpoint failed repeatedly and its breaker is cooling down (see breaker.ts). */
  | 'cooling_down'

/** A failed call. */
export interface EndpointFailure {
  readonly ok: false
  readonly code: EndpointFailureCode
  /** A sentence a person can act on; never contains the key. */
  readonly message: string
}

/** The answer of an embedding call: one vector per input text, in input order. */
export type EmbedAnswer =
  | { readonly ok: true; readonly vectors: readonly Float32Array[]; readonly dim: number }
  | EndpointFailure

/** The answer of a rerank call: one score per document, aligned with the documents sent. */
export type RerankAnswer = { readonly ok: true; readonly scores: readonly number[] } | EndpointFailure

/** An OpenAI-compatible embedding endpoint: `POST <baseUrl>/embeddings`. */
export interface EmbeddingEndpoint {
  readonly baseUrl: string
  readonly model: string
  /** Bearer key, if any; never logged or returned. */
  readonly apiKey: string | undefined
  /** Expected dimension; 0 accepts what the endpoint returns (all vectors of one answer must still agree). */
  readonly dim: number
}

/** A Cohere/Jina style rerank endpoint: `POST <baseUrl>/rerank`. */
export interface RerankEndpoint {
  readonly baseUrl: string
  readonly model: string
  readonly apiKey: string | undefined
}

/** The declared range of rerank scores: 0-1, a logit (any finite real), or the provider's native finite scale. */
export type RerankScoreMode = 'unit_interval' | 'logit' | 'native'

/** How long and under what signal one call may run. */
export interface CallLimits {
  readonly timeoutMs: number
  readonly signal?: AbortSignal | undefined
}

/** One labeled (query, document) pair for rerank calibration. */
export interface LabeledPair {
  readonly query: string
  readonly document: string
  readonly relevant: boolean
}

/** A configured reranker, as calibration calls it. */
export interface RerankPort {
  /** The rerank fingerprint of the configuration in force: the record a calibration is kept under. */
  readonly fingerprint: string
  /**
   * Score documents against a query, within the call's budget. A failure is data; a success holds one finite score
   * per document, in document order, already checked against the declared score mode.
   */
  score(query: string, documents: readonly string[], signal?: AbortSignal): Promise<RerankAnswer>
}

/** What the semantic channels reach outside the store, each read when a call is made. */
export interface EndpointAccess {
  /** A key by credential name (host credential store, then environment); undefined when neither has it. */
  readonly key: (name: string) => Promise<string | undefined>
  readonly fetch: typeof fetch
  /** Epoch-ms clock. */
  readonly now: () => number
}
