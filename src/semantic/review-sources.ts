/** Which extra candidate legs the near-duplicate review gets from the semantic channels for a configuration. */
import type { ResolvedConfig } from '../config.ts'
import type { CandidateSource } from '../review/sweep-candidates.ts'
import type { OpenStores } from '../store/store-set.ts'
import { embeddingSettings } from './settings.ts'
import { vectorSource } from './vector-leg.ts'

/**
 * The vector leg, when an embedding channel is configured and its space holds vectors; otherwise none.
 * @param config - the live configuration.
 * @param stores - the open stores.
 * @returns the legs beyond the lexical one.
 */
export function vectorSources(config: ResolvedConfig, stores: OpenStores): readonly CandidateSource[] {
  const settings = embeddingSettings(config)
  if (!settings.configured) return []
  const space = stores.vectors.space(settings.fingerprint)
  if (space === undefined) return []
  return [
    vectorSource(
      stores.vectors,
      space,
      config.consolidateCosineFloor,
      () =>
        new Promise((resolve) => {
          setImmediate(resolve)
        }),
    ),
  ]
}
