/** One vector sweep over a bench's open store, as the plugin's sweep runs it, for benches whose vector leg is live. */
import type { ResolvedConfig } from '../src/config.ts'
import type { FactMemory } from '../src/fact-memory.ts'
import type { EndpointAccess } from '../src/semantic/search-legs.ts'
import { embeddingSettings } from '../src/semantic/settings.ts'
import { runVectorSweep, sweepEmbedder } from '../src/semantic/vector-sweep-run.ts'

/**
 * Embed everything written so far, so the vector leg asks the endpoint for every query.
 * @param memory - the bench's open memory.
 * @param config - its configuration, with an embedding endpoint.
 * @param access - how the endpoint is reached.
 * @param bench - the bench's name, for the errors.
 * @throws when the store is closed, no endpoint is configured, or the sweep does not finish.
 */
export async function sweepVectors(
  memory: FactMemory,
  config: ResolvedConfig,
  access: EndpointAccess,
  bench: string,
): Promise<void> {
  const opened = memory.stores()
  const settings = embeddingSettings(config)
  if (!('stores' in opened) || !settings.configured) throw new Error(`the ${bench} store has no embedding channel`)
  const result = await runVectorSweep({
    vectors: opened.stores.vectors,
    settings,
    embed: sweepEmbedder(access, settings),
    now: () => new Date().toISOString(),
    signal: new AbortController().signal,
  })
  if (result.outcome !== 'swept')
    throw new Error(`the ${bench} vector sweep ${result.outcome}: ${result.error?.message ?? ''}`)
}
