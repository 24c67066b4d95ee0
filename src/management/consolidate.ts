/**
 * The consolidate verb: one sweep of the near-duplicate review now (`{force: true}`, triple the budget), or the
 * ledger of past sweeps (`{summary: true}`). A forced sweep runs in the background: the verb answers at once with the
 * sweep it started (`begun: true`), or, while one is under way, with that one and a sentence saying so
 * (`begun: false`); the summary carries the sweep under way (`running`) and how the last asked one ended
 * (`lastAsked`), which is what the settings card polls. Not fenced: a sweep creates cards and remembers verdicts, it overwrites
 * no row a page holds. With `autoConsolidate: false` the review is off and a sweep is refused; the ledger of sweeps
 * already run still reads.
 */
import { ok, refuse, verb } from './verb.ts'

export const consolidateVerb = verb('consolidate', {
  async run(body, context) {
    const review = context.stores.review
    if ('summary' in body) {
      const last = context.review?.lastSweepAt()
      const asked = context.review?.lastAsked()
      return ok({
        running: context.review?.progress() ?? null,
        lastAsked: asked ?? null,
        enabled: context.config.autoConsolidate,
        intervalMs: context.config.consolidateIntervalMs,
        maxPairs: context.config.consolidateMaxPairs,
        lastSweepAt: last === undefined ? null : new Date(last).toISOString(),
        total: review.sweepCount(),
        sweeps: review.sweeps(body.limit ?? 20),
      })
    }
    if (!context.config.autoConsolidate) {
      return refuse(
        'unavailable',
        'the near-duplicate review is off (autoConsolidate is false): turn it on to run a sweep',
      )
    }
    if (context.review === undefined)
      return refuse('unavailable', 'the near-duplicate review is not running in this host')
    const asked = context.review.beginNow()
    if (asked.begun) return ok({ begun: true, running: asked.progress })
    if (asked.reason === 'running') {
      const under = asked.progress
      const far =
        under === undefined
          ? ''
          : ` (${String(under.asked)} of ${String(under.planned)} ${under.planned === 1 ? 'pair' : 'pairs'} asked so far)`
      return ok({
        begun: false,
        running: under ?? null,
        message: `a near-duplicate sweep is already running${far}; its outcome shows when it ends`,
      })
    }
    if (asked.reason === 'disabled')
      return refuse('unavailable', 'the near-duplicate review is off (autoConsolidate is false)')
    return refuse('unavailable', 'the store is not open')
  },
})
