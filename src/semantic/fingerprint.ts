/**
 * Pure: the fingerprints that say which vectors and which calibration belong to the configuration in force. An
 * embedding fingerprint covers everything that changes what a vector means (provider, base URL, model, the
 * configured dimension, the normalization and the input template); a rerank fingerprint covers what changes what
 * a score means (provider, base URL, model, declared score mode). Change any of them and the old vectors or the old
 * calibration simply stop applying.
 */
import { canonicalJson } from '../text/canonical-json.ts'
import { sha256 } from '../text/normalize.ts'
import { INPUT_TEMPLATE } from './input-text.ts'
import type { RerankScoreMode } from './types.ts'

/** Vectors are stored and compared L2-normalized: cosine is their dot product. */
export const NORMALIZATION = 'l2'

/** The embedding settings a fingerprint covers. */
export interface EmbeddingIdentity {
  readonly provider: string
  readonly baseUrl: string
  readonly model: string
  /** The configured dimension; 0 means "what the provider returns". */
  readonly dim: number
}

/** The rerank settings a fingerprint covers. */
export interface RerankIdentity {
  readonly provider: string
  readonly baseUrl: string
  readonly model: string
  readonly scoreMode: RerankScoreMode
}

/**
 * The embedding fingerprint.
 * @param identity - provider, base URL (trailing slashes ignored), model and configured dimension.
 * @returns `emb-` and 16 hex digits of a SHA-256 over the canonical identity with normalization and template.
 */
export function embeddingFingerprint(identity: EmbeddingIdentity): string {
  return `emb-${sha256(
    canonicalJson({
      kind: 'embedding',
      provider: identity.provider,
      baseUrl: trimBase(identity.baseUrl),
      model: identity.model.trim(),
      dim: identity.dim,
      normalization: NORMALIZATION,
      template: INPUT_TEMPLATE,
    }),
  ).slice(0, 16)}`
}

/**
 * The rerank fingerprint.
 * @param identity - provider, base URL (trailing slashes ignored), model and declared score mode.
 * @returns `rr-` and 16 hex digits of a SHA-256 over the canonical identity.
 */
export function rerankFingerprint(identity: RerankIdentity): string {
  return `rr-${sha256(
    canonicalJson({
      kind: 'rerank',
      provider: identity.provider,
      baseUrl: trimBase(identity.baseUrl),
      model: identity.model.trim(),
      scoreMode: identity.scoreMode,
    }),
  ).slice(0, 16)}`
}

/**
 * A base URL without its trailing slashes and surrounding blanks.
 * @param baseUrl - as configured.
 * @returns the trimmed URL.
 */
export function trimBase(baseUrl: string): string {
  return baseUrl.trim().replace(/\/+$/u, '')
}
