/**
 * The index-vectors verb: one vector sweep now (the settings card's "Rebuild vectors"), whatever
 * `vectorIndexIntervalMs` says. Not fenced: vectors are bookkeeping derived from the facts, a sweep overwrites no
 * row a page holds and never moves the generation. Without an embedding channel it is refused as unavailable, naming
 * the keys to set.
 */
import { embeddingSettings } from '../semantic/settings.ts'
import { ok, refuse, verb } from './verb.ts'

export const indexVectorsVerb = verb('index-vectors', {
  async run(_body, context) {
    const settings = embeddingSettings(context.config)
    if (!settings.configured) {
      return refuse(
        'unavailable',
        `no embedding channel is configured (${settings.reason}): set embeddingSource, embeddingBaseUrl and embeddingModel`,
      )
    }
    if (context.vectors === undefined) return refuse('unavailable', 'the vector sweep is not running in this host')
    const asked = await context.vectors.sweepNow()
    if (!asked.ran) return refuse('unavailable', asked.message)
    const space = context.stores.vectors.space(settings.fingerprint)
    const coverage = space === undefined ? null : context.stores.vectors.coverage(space.id)
    if (asked.sweep.outcome === 'failed') {
      return refuse('unavailable', `the vector sweep stopped: ${asked.sweep.error?.message ?? 'unknown reason'}`, {
        sweep: asked.sweep,
        coverage,
      })
    }
    return ok({ sweep: asked.sweep, coverage })
  },
})
