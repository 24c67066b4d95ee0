/**
 * The extraction verbs: queue (what is running, waiting and parked, and the recent passes), extract-run (one pass
 * with the exact text it sent), extract (one-off extraction of a text) and extract-retry (read a parked range again).
 * Like extract, extract-retry is a run-triggering verb, not a fenced edit: it writes facts through the write rules
 * as extraction does and edits no row a page is holding, so it takes no generation or operation id; a second ask
 * while the range is being read joins that retry, and a range already read again is not found.
 */
import { retriesOnItsOwn } from '../extract/retry.ts'
import type { ExtractRun } from '../store/extract-store.ts'
import { ok, refuse, verb } from './verb.ts'
import { EXTRACT_TEXT_MAX } from './wire.schema.ts'

/** Passes the page lists as "Recently finished". */
const RECENT_DEFAULT = 10

/** queue: the live queue, the parked ranges and the recent passes (without their text). */
export const queueVerb = verb('queue', {
  run(body, context) {
    const { config } = context
    const ledger = context.stores.extract
    const recent = ledger.recent(body.limit ?? RECENT_DEFAULT)
    return ok({
      autoCapture: config.autoCapture,
      autoExtract: config.autoExtract,
      model:
        config.llmSource === 'custom'
          ? `custom: ${config.llmModel === '' ? '(no model set)' : config.llmModel}`
          : "the session's own model",
      delayMs: config.extractDelayMs,
      running: context.extraction?.entries() ?? [],
      parked: ledger.pending().map((range) => ({ ...range, retriesOnItsOwn: retriesOnItsOwn(range) })),
      recent: recent.map(summary),
      lastRun: recent[0] === undefined ? null : { ...summary(recent[0]), snapshot: snapshotOf(recent[0]) },
    })
  },
})

/** extract-run: one pass, with the text it sent (capped at 20,000 characters). */
export const extractRunVerb = verb('extract-run', {
  run(body, context) {
    const run = context.stores.extract.run(body.id)
    return run === undefined ? refuse('not_found', `no extraction run has id ${body.id}`) : ok({ run })
  },
})

/** extract: `{text, dryRun?}` — read facts out of a text with the extraction model; they land as observed. */
export const extractVerb = verb('extract', {
  bodyLimit: EXTRACT_TEXT_MAX * 4 + 1024,
  async run(body, context) {
    const extraction = context.extraction
    if (extraction === undefined) return refuse('unavailable', 'automatic capture does not run in this host')
    const answer = await extraction.extractText(body.text, { dryRun: body.dryRun ?? false })
    if (!answer.ok) return refuse(answer.code, answer.message)
    const { ok: _ok, ...found } = answer
    return ok({ ...found, generation: context.stores.db.generation() })
  },
})

/**
 * extract-retry: `{id}` — read a parked range again now, from the session's events. Answers how it ended (`resolved`
 * with the fact and proposal ids that landed, or `failed` with the error that keeps it parked) and the range as it
 * now stands; `not_found` for no such range or one already read again, `unavailable` where no capture service runs.
 */
export const extractRetryVerb = verb('extract-retry', {
  async run(body, context) {
    const extraction = context.extraction
    if (extraction === undefined) return refuse('unavailable', 'automatic capture does not run in this host')
    const answer = await extraction.retryParked(body.id)
    if (!answer.ok) return refuse(answer.code, answer.message)
    return ok({ outcome: answer.outcome, range: answer.range ?? null, generation: context.stores.db.generation() })
  },
})

/** What a pass actually processed: its fixed range (end exclusive), how much text, and the hash of that text. */
function snapshotOf(run: ExtractRun): {
  startSeq: number | null
  endSeq: number | null
  messageCount: number
  chars: number
  textSha256: string | null
} {
  return {
    startSeq: run.startSeq,
    endSeq: run.endSeq,
    messageCount: run.messageCount,
    chars: run.chars,
    textSha256: run.textSha256,
  }
}

/** A run as the list shows it. */
function summary(run: ExtractRun): Omit<ExtractRun, 'textSent'> {
  const { textSent: _text, ...rest } = run
  return rest
}
