/**
 * What a proposal card says in plain words: why it waits, and what accepting a row would change. Pure.
 */
import type { FactView, ProposalCardWire, ProposalRowWire } from '../src/wire-types.ts'
import { formatInstant } from './format.ts'

/** Why a proposal waits for the user, by its reason code. */
export const WAITING_BECAUSE: Readonly<Record<string, string>> = {
  inferred: 'Waits for you: the model inferred it, nobody said it.',
  low_confidence: 'Waits for you: the model was not sure enough to save it by itself.',
}

/**
 * What accepting a row would do to the current facts of its subject: replace the current value of a single-valued
 * property, add a value beside those of a multi-valued one, or add a new fact.
 * @param row - the proposed row.
 * @param current - the subject's current facts (any property).
 * @returns one sentence.
 */
export function acceptWouldChange(row: Pick<ProposalRowWire, 'property' | 'value'>, current: readonly Pick<FactView, 'id' | 'property' | 'value' | 'multi' | 'status'>[]): string {
  const same = current.filter((fact) => fact.status === 'active' && fold(fact.property) === fold(row.property))
  if (same.some((fact) => fold(fact.value) === fold(row.value))) return 'Accepting confirms the value already current.'
  const single = same.filter((fact) => !fact.multi)
  if (single.length > 0) return `Accepting would replace ${single.map((fact) => `${fact.value} (#${fact.id})`).join(', ')}.`
  if (same.length > 0) return `Accepting adds a value beside ${same.map((fact) => fact.value).join(', ')}.`
  return 'Accepting adds a new fact.'
}

/**
 * Whether a fact is about the subject a row names: its subject as written or its entity key, folded alike (the
 * facts verb filters by key prefix, so "billing" would also bring billing-api's facts).
 * @param fact - a fact.
 * @param subject - the row's subject as written.
 * @returns true when they name one subject.
 */
export function aboutSubject(fact: Pick<FactView, 'subject' | 'entityKey'>, subject: string): boolean {
  const wanted = fold(subject)
  return fold(fact.subject) === wanted || fold(fact.entityKey) === wanted
}

/** Case, separators and spacing folded, as property and value keys fold them. */
function fold(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[\s_\-.]+/gu, ' ').trim()
}

/**
 * Where and when a card was proposed: "proposed in conversation session-7f3a…, turn 3 · 2026-03-01 09:00".
 * @param card - the card.
 * @param timeZone - the store's display zone.
 * @returns one line.
 */
export function proposedFrom(card: Pick<ProposalCardWire, 'sessionId' | 'turn' | 'createdAt'>, timeZone: string): string {
  const conversation = card.sessionId === null ? ''
    : ` in conversation ${card.sessionId.length > 12 ? `${card.sessionId.slice(0, 12)}…` : card.sessionId}${card.turn === null ? '' : `, turn ${card.turn}`}`
  return `proposed${conversation} · ${formatInstant(card.createdAt, timeZone)}`
}
