/**
 * What one near-duplicate sweep did, in one sentence for the settings card's "Find near-duplicates" button:
 * "Asked about 3 pairs: 1 merge proposed (see Proposals), 2 distinct.", and while it runs in the background, how far
 * it has come: "Looking for near-duplicates: 1 of 3 pairs asked, 1 merge proposed so far…". Pure, so Node can test it.
 */
import type { VerbAnswerTo } from './api.ts'

/** The consolidate verb's ledger answer. */
type ConsolidateLedger = VerbAnswerTo<'consolidate', { readonly summary: true }>

/** The fields of a sweep the sentence reads (the consolidate verb's `sweep`). */
export type SweepWire = Pick<
  ConsolidateLedger['sweeps'][number],
  'outcome' | 'candidates' | 'remembered' | 'asked' | 'distinct' | 'unanswered' | 'deferred' | 'proposalIds' | 'note'
>

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`

/**
 * Say what a sweep did.
 * @param sweep - the sweep the verb answered.
 * @returns one sentence.
 */
export function sweepWords(sweep: SweepWire): string {
  if (sweep.candidates === 0) return 'No near-duplicates found.'
  const parts: string[] = []
  if (sweep.proposalIds.length > 0)
    parts.push(`${plural(sweep.proposalIds.length, 'merge', 'merges')} proposed (see Proposals)`)
  if (sweep.distinct > 0) parts.push(`${sweep.distinct} distinct`)
  if (sweep.unanswered > 0) parts.push(`${sweep.unanswered} without a usable answer`)
  const asked =
    sweep.asked > 0
      ? `Asked about ${plural(sweep.asked, 'pair', 'pairs')}${parts.length > 0 ? `: ${parts.join(', ')}` : ''}.`
      : ''
  const deferred =
    sweep.deferred > 0
      ? ` ${plural(sweep.deferred, 'pair waits', 'pairs wait')} for the next sweep (${sweep.note ?? 'no usable model'}).`
      : ''
  const known =
    sweep.asked === 0 && sweep.deferred === 0
      ? `Nothing new to ask: ${plural(sweep.remembered, 'pair was', 'pairs were')} judged before.`
      : ''
  return `${asked}${deferred}${known}`.trim()
}

/** A sweep under way, as the consolidate verb reports it (`running`). */
export type RunningSweepWire = NonNullable<ConsolidateLedger['running']>

/**
 * Say how far a sweep under way has come.
 * @param running - the sweep under way.
 * @returns one sentence, ending in an ellipsis while it runs.
 */
export function sweepProgressWords(running: RunningSweepWire): string {
  const who =
    running.trigger === 'timer' ? 'The scheduled near-duplicate sweep is running' : 'Looking for near-duplicates'
  if (running.planned === 0) return `${who}: gathering pairs…`
  const proposed = running.proposals > 0 ? `, ${plural(running.proposals, 'merge', 'merges')} proposed` : ''
  return `${who}: ${String(running.asked)} of ${plural(running.planned, 'pair', 'pairs')} asked${proposed} so far…`
}
