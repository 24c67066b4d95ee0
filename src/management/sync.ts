/**
 * The sync-now verb: one sync round now (the page's "Sync now"), or right after the round in flight, answering what
 * it did with its problems in words and closed codes, and the status after it. Not fenced by generation: a round
 * edits no row a page holds in hand (what it receives is applied through the store's own write rules); the request
 * fence (loopback host, same origin) guards it like every verb. While sync is off or its settings are wrong it is
 * refused as unavailable, saying why.
 */
import { classifyProblem } from '../sync/sync-status.ts'
import { ok, refuse, verb } from './verb.ts'

export const syncNowVerb = verb('sync-now', {
  async run(_body, context) {
    if (context.sync === undefined) return refuse('unavailable', 'sync does not run in this host')
    const outcome = await context.sync.syncNow()
    if (!outcome.ran) return refuse('unavailable', outcome.reason)
    const { report, status } = outcome
    return ok({
      round: {
        ok: report.ok,
        sent: report.sent,
        received: report.received,
        compacted: report.compacted,
        devices: report.devices.map((entry) => ({ id: entry.device, name: entry.name })),
        problems: report.problems.map(classifyProblem),
      },
      status,
    })
  },
})
