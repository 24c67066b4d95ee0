/**
 * Pure: which semantic channels the live configuration turns on, with their endpoints' identities and
 * fingerprints. A channel is configured when its source is not `none` and both its base URL and model are set;
 * otherwise it is off, with the reason status shows (a source chosen without a URL is a half-finished setup, not an
 * error).
 */
import type { ResolvedConfig } from '../config.ts'
import {
  embeddingFingerprint,
  rerankFingerprint,
  trimBase,
  type EmbeddingIdentity,
  type RerankIdentity,
} from './fingerprint.ts'
import type { EmbeddingEndpoint, RerankEndpoint, RerankScoreMode } from './types.ts'

/** The budget of the query embedding inside the query's deadline. */
export const QUERY_EMBED_BUDGET_MS = 800
/** The budget of the rerank inside the query's deadline. */
export const RERANK_BUDGET_MS = 1500

/** The embedding channel as configured. */
export type EmbeddingSettings =
  | {
      readonly configured: true
      readonly identity: EmbeddingIdentity
      readonly fingerprint: string
      /** The credential name of its key (host credential store, then environment). */
      readonly keyName: string
      readonly intervalMs: number
    }
  | { readonly configured: false; readonly reason: string }

/** The rerank channel as configured. */
export type RerankSettings =
  | {
      readonly configured: true
      readonly identity: RerankIdentity
      readonly fingerprint: string
      readonly keyName: string
      readonly scoreMode: RerankScoreMode
    }
  | { readonly configured: false; readonly reason: string }

/**
 * The embedding channel of a configuration.
 * @param config - the live configuration.
 * @returns its identity and fingerprint, or why it is off.
 */
export function embeddingSettings(config: ResolvedConfig): EmbeddingSettings {
  if (config.embeddingSource === 'none') return { configured: false, reason: 'embeddingSource is none' }
  const baseUrl = trimBase(config.embeddingBaseUrl)
  const model = config.embeddingModel.trim()
  if (baseUrl === '' || model === '')
    return {
      configured: false,
      reason: `embeddingSource is ${config.embeddingSource}, but embeddingBaseUrl or embeddingModel is empty`,
    }
  const identity = { provider: config.embeddingSource, baseUrl, model, dim: config.embeddingDim }
  return {
    configured: true,
    identity,
    fingerprint: embeddingFingerprint(identity),
    keyName: config.embeddingApiKeyEnv,
    intervalMs: config.vectorIndexIntervalMs,
  }
}

/**
 * The rerank channel of a configuration.
 * @param config - the live configuration.
 * @returns its identity and fingerprint, or why it is off.
 */
export function rerankSettings(config: ResolvedConfig): RerankSettings {
  if (config.rerankSource === 'none') return { configured: false, reason: 'rerankSource is none' }
  const baseUrl = trimBase(config.rerankBaseUrl)
  const model = config.rerankModel.trim()
  if (baseUrl === '' || model === '')
    return {
      configured: false,
      reason: `rerankSource is ${config.rerankSource}, but rerankBaseUrl or rerankModel is empty`,
    }
  const identity = { provider: config.rerankSource, baseUrl, model, scoreMode: config.rerankScoreMode }
  return {
    configured: true,
    identity,
    fingerprint: rerankFingerprint(identity),
    keyName: config.rerankApiKeyEnv,
    scoreMode: config.rerankScoreMode,
  }
}

/**
 * A base URL as status and the page may show it: scheme, host, port and path, never the user info, query or
 * fragment, where a key is sometimes written.
 * @param baseUrl - as configured.
 * @returns the shown URL, or `(not a URL)` when it does not parse.
 */
export function shownUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl)
    return `${url.protocol}//${url.host}${url.pathname}`.replace(/\/+$/u, '')
  } catch {
    return '(not a URL)'
  }
}

/**
 * The embedding endpoint of a configured channel, with its key.
 * @param settings - the configured channel.
 * @param apiKey - its key, if any.
 * @param dim - the dimension to expect: the configured one unless a space already fixed another.
 * @returns what the gateway calls.
 */
export function embeddingEndpoint(
  settings: Extract<EmbeddingSettings, { configured: true }>,
  apiKey: string | undefined,
  dim = settings.identity.dim,
): EmbeddingEndpoint {
  return { baseUrl: settings.identity.baseUrl, model: settings.identity.model, apiKey, dim }
}

/**
 * The rerank endpoint of a configured channel, with its key.
 * @param settings - the configured channel.
 * @param apiKey - its key, if any.
 * @returns what the gateway calls.
 */
export function rerankEndpoint(
  settings: Extract<RerankSettings, { configured: true }>,
  apiKey: string | undefined,
): RerankEndpoint {
  return { baseUrl: settings.identity.baseUrl, model: settings.identity.model, apiKey }
}
