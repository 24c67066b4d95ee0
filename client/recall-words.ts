/** Pure words about per-turn recall: the turn card's opening, and the settings card's line on what recall costs. */
import type { VerbAnswerTo } from './api.ts'

/** status's full answer. */
type FullStatus = VerbAnswerTo<'status', { readonly summary: false }>

/**
 * The card's opening parts.
 * @param wrote - facts the turn wrote.
 * @param recalled - facts recalled for the turn's message.
 * @returns "3 facts recalled" and/or "this turn wrote 1 fact", recall first; the written count alone when neither is there.
 */
export function turnCardParts(wrote: number, recalled: number): string[] {
  const parts: string[] = []
  if (recalled > 0) parts.push(`${recalled} fact${recalled === 1 ? '' : 's'} recalled`)
  if (wrote > 0 || recalled === 0) parts.push(`this turn wrote ${wrote} fact${wrote === 1 ? '' : 's'}`)
  return parts
}

/** Per-turn recall as status reports it (the parts the sentence reads). */
export type RecallStatus = Pick<FullStatus['recall'], 'on' | 'budgetChars' | 'maxFacts'> & {
  readonly recent: Pick<
    NonNullable<FullStatus['recall']['recent']>,
    'turns' | 'withBlock' | 'factsPerTurn' | 'charsPerTurn' | 'p95Ms'
  > | null
}

/**
 * The settings card's sentence on per-turn recall: the setting, and what it cost the latest messages.
 * @param recall - status's recall block.
 * @returns one sentence.
 */
export function recallCostLine(recall: RecallStatus): string {
  if (!recall.on)
    return 'Per-turn recall is off (recallBudgetTokens is 0): the model sees only the directory unless it searches.'
  const setting = `Per-turn recall: up to ${recall.maxFacts} fact${recall.maxFacts === 1 ? '' : 's'} and ${recall.budgetChars.toLocaleString('en-US')} characters with each message`
  const recent = recall.recent
  if (recent === null || recent.turns === 0) return `${setting}; nothing recalled yet.`
  return `${setting}; over the last ${recent.turns} message${recent.turns === 1 ? '' : 's'} it added ${recent.factsPerTurn} fact${recent.factsPerTurn === 1 ? '' : 's'} and ${recent.charsPerTurn.toLocaleString('en-US')} characters on average (a block on ${recent.withBlock} of ${recent.turns}), 95% within ${recent.p95Ms} ms.`
}
