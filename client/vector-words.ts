/**
 * The settings card's words for the embedding channel, pure so Node can test them: whether the saved settings
 * configure an embedding model (the rule of src/semantic/settings.ts `embeddingSettings`), the vector part of the
 * live counts, and what one "Rebuild vectors" sweep did.
 */
import type { VerbAnswer } from './api.ts'
import { countOf } from './format.ts'

/** The vector counts status reports for the embedding channel (the parts the card reads). */
export type VectorCounts = Pick<NonNullable<VerbAnswer<'index-vectors'>['coverage']>, 'current' | 'stale' | 'missing'>

/**
 * Whether the saved settings configure an embedding model: a source other than `none`, a base URL and a model,
 * blanks and trailing slashes not counting.
 * @param value - the plugin's saved settings, as the host's settings scope holds them.
 * @returns true when the embedding channel is on.
 */
export function embeddingConfigured(value: Readonly<Record<string, unknown>>): boolean {
  const source = value['embeddingSource']
  const baseUrl =
    typeof value['embeddingBaseUrl'] === 'string' ? value['embeddingBaseUrl'].trim().replace(/\/+$/u, '') : ''
  const model = typeof value['embeddingModel'] === 'string' ? value['embeddingModel'].trim() : ''
  return source !== undefined && source !== 'none' && baseUrl !== '' && model !== ''
}

/**
 * The vector part of the card's counts.
 * @param vectors - the embedding channel's coverage, or null without one.
 * @returns "120 facts with current vectors (3 waiting)", or null without an embedding channel.
 */
export function vectorCount(vectors: VectorCounts | null): string | null {
  if (vectors === null) return null
  const waiting = vectors.stale + vectors.missing
  return `${countOf(vectors.current, 'fact')} with current vectors${waiting === 0 ? '' : ` (${waiting} waiting)`}`
}

/**
 * What a Rebuild vectors sweep did.
 * @param data - the index-vectors answer (`sweep` and `coverage`).
 * @returns one or two sentences: "Vectors: 2 facts embedded. 2 facts now have current vectors."
 */
export function rebuiltWords(data: {
  readonly sweep: Pick<VerbAnswer<'index-vectors'>['sweep'], 'embedded' | 'rechecked' | 'pruned'>
  readonly coverage: VectorCounts | null
}): string {
  const { embedded, pruned } = data.sweep
  const coverage = data.coverage
  const done =
    embedded === 0 && pruned === 0
      ? 'Vectors: nothing to embed.'
      : `Vectors: ${countOf(embedded, 'fact')} embedded${pruned === 0 ? '' : `, ${pruned} removed`}.`
  const left =
    coverage === null
      ? ''
      : ` ${countOf(coverage.current, 'fact')} now ${coverage.current === 1 ? 'has a current vector' : 'have current vectors'}.`
  return `${done}${left}`
}
