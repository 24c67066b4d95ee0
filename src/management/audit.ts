/**
 * The audit verb: `{force: true}` runs the health check now and answers what it found and queued; `{summary: true}`
 * (and `{}`) reads the ledger of past runs. Not fenced: a run creates proposals, never edits a row a page holds.
 */
import type { AuditRun } from '../store/audit-store.ts'
import { auditSentence } from '../review/audit-words.ts'
import { ok, refuse, verb } from './verb.ts'

/** Runs the summary lists by default. */
const SUMMARY_DEFAULT = 10

/** audit: run the health check now, or read its ledger. */
export const auditVerb = verb('audit', {
  run(body, context) {
    const settings = { autoAudit: context.config.autoAudit, intervalMs: context.config.auditIntervalMs }
    if (body.force === true) {
      if (context.audit === undefined) return refuse('unavailable', 'the health check does not run in this host')
      const outcome = context.audit.runNow()
      if (!outcome.ran) {
        if (outcome.reason === 'disabled')
          return refuse('unavailable', 'the health check is switched off (autoAudit: false)', {
            reason: outcome.reason,
          })
        if (outcome.reason === 'running')
          return refuse('refused', 'a health check is already running', { reason: outcome.reason })
        return refuse('unavailable', 'the store is not open', { reason: outcome.reason })
      }
      if (outcome.run.error !== null)
        return refuse('internal_error', auditSentence(outcome.run), { run: wire(outcome.run) })
      return ok({
        ran: true,
        run: wire(outcome.run),
        message: auditSentence(outcome.run),
        generation: context.stores.db.generation(),
        ...settings,
      })
    }
    const runs = context.stores.audit.runs(body.limit ?? SUMMARY_DEFAULT)
    return ok({
      ...settings,
      total: context.stores.audit.runCount(),
      runs: runs.map(wire),
      lastRun: runs[0] === undefined ? null : wire(runs[0]),
    })
  },
})

/** A run as the wire carries it, with its sentence. */
function wire(run: AuditRun): AuditRun & { readonly message: string } {
  return { ...run, message: auditSentence(run) }
}
