/**
 * What one near-duplicate sweep did, in one sentence for the settings card's "Find near-duplicates" button:
 * "Asked about 3 pairs: 1 merge proposed (see Proposals), 2 distinct." Pure, so Node can test it.
 */

/** The fields of a sweep the sentence reads (the consolidate verb's `sweep`). */
export interface SweepWire {
  readonly outcome: string
  readonly candidates: number
  readonly remembered: number
  readonly asked: number
  readonly distinct: number
  readonly unanswered: number
  readonly deferred: number
  readonly proposalIds: readonly number[]
  readonly note: string | null
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`

/**
 * Say what a sweep did.
 * @param sweep - the sweep the verb answered.
 * @returns one sentence.
 */
export function sweepWords(sweep: SweepWire): string {
  if (sweep.candidates === 0) return 'No near-duplicates found.'
  const parts: string[] = []
  if (sweep.proposalIds.length > 0) parts.push(`${plural(sweep.proposalIds.length, 'merge', 'merges')} proposed (see Proposals)`)
  if (sweep.distinct > 0) parts.push(`${sweep.distinct} distinct`)
  if (sweep.unanswered > 0) parts.push(`${sweep.unanswered} without a usable answer`)
  const asked = sweep.asked > 0 ? `Asked about ${plural(sweep.asked, 'pair', 'pairs')}${parts.length > 0 ? `: ${parts.join(', ')}` : ''}.` : ''
  const deferred = sweep.deferred > 0 ? ` ${plural(sweep.deferred, 'pair waits', 'pairs wait')} for the next sweep (${sweep.note ?? 'no usable model'}).` : ''
  const known = sweep.asked === 0 && sweep.deferred === 0 ? `Nothing new to ask: ${plural(sweep.remembered, 'pair was', 'pairs were')} judged before.` : ''
  return `${asked}${deferred}${known}`.trim()
}
