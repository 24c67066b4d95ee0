/**
 * What a proposal card will do, in plain words, for the proposals tab: "keep #12, retire #31, move 2 sources",
 * "retire 3 facts that only restate their property", "fold 7 runs into #40", "treat 'billing' as 'billing-api'
 * (4 facts move)", and the batch ("batch 2/3") of a card that continues a longer list. Pure, so Node can test it.
 */
import type { AliasRowWire, CardFactWire, FoldRowWire, MergeRowWire, ProposalCardWire } from '../src/wire-types.ts'

/** Why a card exists, in words. */
export const REASON_LABEL: Readonly<Record<string, string>> = {
  inferred: 'inferred by the model',
  low_confidence: 'below the confidence floor',
  near_duplicate: 'near-duplicate review',
  self_restating: 'health check: facts that only restate their property',
  pipeline: 'health check: one pipeline, a row per run',
  split_entity: 'health check: one subject spelled as two entities',
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

/** "retire 3 facts that only restate their property" */
export function retireWords(count: number): string {
  return count === 1 ? 'retire 1 fact that only restates its property' : `retire ${count} facts that only restate their property`
}

/**
 * What accepting a review card will do, in one line; null for an add_fact card, whose rows say it themselves.
 * @param card - the card.
 * @returns the line, or null.
 */
export function cardWords(card: ProposalCardWire): string | null {
  switch (card.kind) {
    case 'add_fact': return null
    case 'merge': return card.rows.length === 1 && card.rows[0] !== undefined ? mergeWords(card.rows[0]) : `merge ${card.rows.length} pairs of near-duplicates`
    case 'retire': return retireWords(card.rows.length)
    case 'fold': return card.rows.length === 1 && card.rows[0] !== undefined ? foldWords(card.rows[0]) : `fold ${card.rows.length} pipelines into their newest runs`
    case 'alias': return card.rows.length === 1 && card.rows[0] !== undefined ? aliasWords(card.rows[0]) : `treat ${card.rows.length} spellings as their canonical entities`
  }
}

/**
 * One row of a review card: what it does (for a card of several rows) and the facts it names.
 * @param card - the card.
 * @param index - the row's index.
 * @returns the row's words and its facts, or undefined for an add_fact card or a missing row.
 */
export function rowWords(card: ProposalCardWire, index: number): { readonly does: string; readonly facts: string } | undefined {
  switch (card.kind) {
    case 'add_fact': return undefined
    case 'merge': {
      const row = card.rows[index]
      return row === undefined ? undefined : { does: mergeWords(row), facts: `${factLine(row.keeper)} ← ${factLine(row.loser)}` }
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
      return row === undefined ? undefined : { does: aliasWords(row), facts: `${row.fragment.display} → ${row.canonical.display}` }
    }
  }
}

/** "batch 2/3", or null for a card that is not part of a longer list. */
export function batchWords(card: ProposalCardWire): string | null {
  return card.batch === null ? null : `batch ${card.batch.index}/${card.batch.count}`
}

/** "#12 billing-api · port: 7801" */
function factLine(fact: CardFactWire | null): string {
  return fact === null ? 'a fact that is gone' : `#${fact.id} ${fact.subject} · ${fact.property}: ${fact.value}`
}
