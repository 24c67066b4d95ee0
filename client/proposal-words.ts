/**
 * What a proposal card says in plain words, for the proposals tab: why it waits, what accepting a row of values would
 * change, and what a review card will do ("keep #12, retire #31, move 2 sources", "retire 3 facts that only restate
 * their property", "fold 7 runs into #40", "treat 'billing' as 'billing-api' (4 facts move)", "batch 2/3"). Pure, so
 * Node can test it.
 */
import type {
  AliasRowWire,
  CardFactWire,
  FactView,
  FoldRowWire,
  MergeRowWire,
  ProposalCardWire,
  ProposalRowWire,
} from '../src/wire-types.ts'
import { formatInstant } from './format.ts'

/** Why a card exists, in words. */
export const REASON_LABEL: Readonly<Record<string, string>> = {
  inferred: 'inferred by the model',
  low_confidence: 'below the confidence floor',
  near_duplicate: 'near-duplicate review',
  self_restating: 'health check: facts that only restate their property',
  pipeline: 'health check: one pipeline, a row per run',
  split_entity: 'health check: one subject spelled as two entities',
  privacy_rescan: "privacy rescan: facts stored before today's privacy rules, now masked or withheld from the model",
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`

/** "keep #12, retire #31, move 2 sources" */
export function mergeWords(row: MergeRowWire): string {
  return `keep #${row.keeper?.id ?? '?'}, retire #${row.loser?.id ?? '?'}, move ${plural(row.sources, 'source', 'sources')}`
}

/** "fold 7 runs into #40" */
export function foldWords(row: FoldRowWire): string {
  return `fold ${plural(row.runs, 'run', 'runs')} into #${row.survivor?.id ?? '?'}`
}

/** "treat 'billing' as 'billing-api' (4 facts move)" */
export function aliasWords(row: AliasRowWire): string {
  return `treat '${row.fragment.display}' as '${row.canonical.display}' (${row.facts === 1 ? '1 fact moves' : `${row.facts} facts move`})`
}

/**
 * "retire 3 facts that only restate their property", or for the privacy rescan's card "retire 2 facts stored before
 * the privacy rules (…)".
 * @param count - the card's rows.
 * @param reason - the card's reason code.
 * @returns one line.
 */
export function retireWords(count: number, reason = 'self_restating'): string {
  if (reason === 'privacy_rescan')
    return `retire ${plural(count, 'fact', 'facts')} stored before the privacy rules (already masked or withheld from the model)`
  return count === 1
    ? 'retire 1 fact that only restates its property'
    : `retire ${count} facts that only restate their property`
}

/**
 * What accepting a review card will do, in one line; null for an add_fact card, whose rows say it themselves.
 * @param card - the card.
 * @returns the line, or null.
 */
export function cardWords(card: ProposalCardWire): string | null {
  switch (card.kind) {
    case 'add_fact':
      return null
    case 'merge':
      return card.rows.length === 1 && card.rows[0] !== undefined
        ? mergeWords(card.rows[0])
        : `merge ${card.rows.length} pairs of near-duplicates`
    case 'retire':
      return retireWords(card.rows.length, card.reason)
    case 'fold':
      return card.rows.length === 1 && card.rows[0] !== undefined
        ? foldWords(card.rows[0])
        : `fold ${card.rows.length} pipelines into their newest runs`
    case 'alias':
      return card.rows.length === 1 && card.rows[0] !== undefined
        ? aliasWords(card.rows[0])
        : `treat ${card.rows.length} spellings as their canonical entities`
  }
}

/**
 * One row of a review card: what it does (for a card of several rows) and the facts it names.
 * @param card - the card.
 * @param index - the row's index.
 * @returns the row's words and its facts, or undefined for an add_fact card or a missing row.
 */
export function rowWords(
  card: ProposalCardWire,
  index: number,
): { readonly does: string; readonly facts: string } | undefined {
  switch (card.kind) {
    case 'add_fact':
      return undefined
    case 'merge': {
      const row = card.rows[index]
      return row === undefined
        ? undefined
        : { does: mergeWords(row), facts: `${factLine(row.keeper)} ← ${factLine(row.loser)}` }
    }
    case 'retire': {
      const row = card.rows[index]
      return row === undefined ? undefined : { does: `retire #${row.fact?.id ?? '?'}`, facts: factLine(row.fact) }
    }
    case 'fold': {
      const row = card.rows[index]
      return row === undefined ? undefined : { does: foldWords(row), facts: factLine(row.survivor) }
    }
    case 'alias': {
      const row = card.rows[index]
      return row === undefined
        ? undefined
        : { does: aliasWords(row), facts: `${row.fragment.display} → ${row.canonical.display}` }
    }
  }
}

/**
 * The runs a fold row folds, one line each ("#12 nightly report · 2026-02-01 result: ok"), and how many more it folds
 * than the card lists.
 * @param row - the fold row.
 * @returns the lines and the count left unlisted.
 */
export function foldRunLines(row: FoldRowWire): { readonly lines: readonly string[]; readonly more: number } {
  return { lines: row.runFacts.map(factLine), more: Math.max(0, row.runs - row.runFacts.length) }
}

/** "batch 2/3", or null for a card that is not part of a longer list. */
export function batchWords(card: ProposalCardWire): string | null {
  return card.batch === null ? null : `batch ${card.batch.index}/${card.batch.count}`
}

/** "#12 billing-api · port: 7801" */
function factLine(fact: CardFactWire | null): string {
  return fact === null ? 'a fact that is gone' : `#${fact.id} ${fact.subject} · ${fact.property}: ${fact.value}`
}

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
export function acceptWouldChange(
  row: Pick<ProposalRowWire, 'property' | 'value'>,
  current: readonly Pick<FactView, 'id' | 'property' | 'value' | 'multi' | 'status'>[],
): string {
  const same = current.filter((fact) => fact.status === 'active' && fold(fact.property) === fold(row.property))
  if (same.some((fact) => fold(fact.value) === fold(row.value))) return 'Accepting confirms the value already current.'
  const single = same.filter((fact) => !fact.multi)
  if (single.length > 0)
    return `Accepting would replace ${single.map((fact) => `${fact.value} (#${fact.id})`).join(', ')}.`
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
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s_\-.]+/gu, ' ')
    .trim()
}

/**
 * Where and when a card was proposed: "proposed in conversation session-7f3a…, turn 3 · 2026-03-01 09:00".
 * @param card - the card.
 * @param timeZone - the store's display zone.
 * @returns one line.
 */
export function proposedFrom(
  card: Pick<ProposalCardWire, 'sessionId' | 'turn' | 'createdAt'>,
  timeZone: string,
): string {
  const conversation =
    card.sessionId === null
      ? ''
      : ` in conversation ${card.sessionId.length > 12 ? `${card.sessionId.slice(0, 12)}…` : card.sessionId}${card.turn === null ? '' : `, turn ${card.turn}`}`
  return `proposed${conversation} · ${formatInstant(card.createdAt, timeZone)}`
}
