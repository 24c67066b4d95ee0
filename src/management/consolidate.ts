/**
 * The consolidate verb: one sweep of the near-duplicate review now (`{force: true}`, triple the budget), or the
 * ledger of past sweeps (`{summary: true}`). Not fenced: a sweep creates cards and remembers verdicts, it overwrites
 * no row a page holds. With `autoConsolidate: false` the review is off and a sweep is refused; the ledger of sweeps
 * already run still reads.
 */
import { ok, refuse, verb } from './verb.ts'
import { consolidateBody } from './wire.schema.ts'

export const consolidateVerb = verb({
  schema: consolidateBody,
  async run(body, context) {
    const review = context.stores.review
    if ('summary' in body) {
      const last = context.review?.lastSweepAt()
      return ok({
        enabled: context.config.autoConsolidate,
        intervalMs: context.config.consolidateIntervalMs,
        maxPairs: context.config.consolidateMaxPairs,
        lastSweepAt: last === undefined ? null : new Date(last).toISOString(),
        total: review.sweepCount(),
        sweeps: review.sweeps(body.limit ?? 20),
      })
    }
    if (!context.config.autoConsolidate) {
      return refuse('unavailable', 'the near-duplicate review is off (autoConsolidate is false): turn it on to run a sweep')
    }
    if (context.review === undefined) return refuse('unavailable', 'the near-duplicate review is not running in this host')
    const asked = await context.review.sweepNow()
    if (!asked.ran) {
      if (asked.reason === 'running') return refuse('refused', 'a near-duplicate sweep is already running; try again when it ends')
      if (asked.reason === 'disabled') return refuse('unavailable', 'the near-duplicate review is off (autoConsolidate is false)')
      return refuse('unavailable', 'the store is not open')
    }
    return ok({ sweep: asked.sweep })
  },
})
