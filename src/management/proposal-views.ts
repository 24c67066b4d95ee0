/**
 * The page's views of proposal cards: an add_fact card shows the values it would write (a credential never in
 * clear); a card that changes stored facts shows the facts it names (merge: keeper, loser and the loser's sources;
 * retire: the fact; fold: the survivor, how many runs fold into it and the first of those runs; alias: both entity
 * names and how many facts move), so the page can say in plain words what accepting it will do. Every row says whether it is stale.
 */
import { prepareWrite } from '../fact-input.ts'
import type { Proposal } from '../store/proposal-store.ts'
import type { OpenStores } from '../store/store-set.ts'
import { MASK, maskQualifiers } from '../text/privacy.ts'
import type { Fact, FactRef, ProposedRow } from '../types.ts'
import type { CardFactWire, EntityNameWire, ProposalCardWire } from '../wire-types.ts'
import { factView } from './views.ts'

/**
 * How many of a fold row's runs the card lists by value: enough for a month of nightly runs, few enough that a card of
 * fifty pipelines stays a page, not a dump; the row still counts them all.
 */
export const FOLD_RUNS_LISTED = 31

/** A card's view, with the card's own bookkeeping besides what the page shows. */
export type CardView = ProposalCardWire & {
  readonly updatedAt: string
  readonly decidedAt: string | null
  /** Why the card's stored rows could not be read, or null. */
  readonly unreadable: string | null
}

/**
 * The view of one card.
 * @param proposal - the card.
 * @param stores - the open stores, to read the facts it names and whether its rows still stand.
 * @returns the view.
 */
export function cardView(proposal: Proposal, stores: OpenStores): CardView {
  const base = {
    id: proposal.id,
    status: proposal.status,
    reason: proposal.reason,
    revision: proposal.revision,
    batch: proposal.batch,
    sessionId: proposal.sessionId,
    turn: proposal.turn,
    createdAt: proposal.createdAt,
    updatedAt: proposal.updatedAt,
    decidedAt: proposal.decidedAt,
    unreadable: proposal.unreadable,
  }
  const pending = proposal.status === 'pending'
  const facts = new Map(stores.facts.getFacts(factIdsOf(proposal)).map((fact) => [fact.id as number, fact]))
  const brief = (target: FactRef): CardFactWire | null => {
    const fact = facts.get(target.factId)
    return fact === undefined ? null : factBrief(fact)
  }
  switch (proposal.kind) {
    case 'add_fact':
      return {
        ...base,
        kind: 'add_fact',
        rows: proposal.rows.map((row, index) => ({
          index,
          subject: row.subject,
          property: row.property,
          value: looksSecret(row) ? MASK : row.value,
          qualifiers: maskQualifiers(row.qualifiers),
          evidence: row.evidence,
          confidence: row.confidence,
          quote: row.quote,
          targets: row.targets,
          stale: pending && !addRowStands(stores, row),
        })),
      }
    case 'merge':
      return {
        ...base,
        kind: 'merge',
        rows: proposal.rows.map((row, index) => ({
          index,
          stale: pending && !stores.facts.curation.stands('merge', row),
          keeper: brief(row.keeper),
          loser: brief(row.loser),
          sources: stores.library.sources(row.loser.factId).length,
        })),
      }
    case 'retire':
      return {
        ...base,
        kind: 'retire',
        rows: proposal.rows.map((row, index) => ({
          index,
          stale: pending && !stores.facts.curation.stands('retire', row),
          fact: brief(row.fact),
        })),
      }
    case 'fold':
      return {
        ...base,
        kind: 'fold',
        rows: proposal.rows.map((row, index) => ({
          index,
          stale: pending && !stores.facts.curation.stands('fold', row),
          survivor: brief(row.survivor),
          runs: row.runs.length,
          runFacts: row.runs.slice(0, FOLD_RUNS_LISTED).map(brief),
        })),
      }
    case 'alias':
      return {
        ...base,
        kind: 'alias',
        rows: proposal.rows.map((row, index) => ({
          index,
          stale: pending && !stores.facts.curation.stands('alias', row),
          fragment: entityName(stores, row.fragment),
          canonical: entityName(stores, row.canonical),
          facts: row.facts.length,
        })),
      }
  }
}

/**
 * Whether every fact an add_fact row was proposed against still stands at the revision the proposal saw.
 * @param stores - the open stores.
 * @param row - the row.
 * @returns true when it stands (always, for a row proposed into an empty slot).
 */
export function addRowStands(stores: OpenStores, row: ProposedRow): boolean {
  if (row.targets.length === 0) return true
  const facts = new Map(
    stores.facts.getFacts(row.targets.map((target) => target.factId)).map((fact) => [fact.id as number, fact]),
  )
  return row.targets.every((target) => {
    const fact = facts.get(target.factId)
    return fact !== undefined && fact.status !== 'forgotten' && fact.revision === target.revision
  })
}

/** The facts a review card names to the page (an alias names entities, not facts). */
function factIdsOf(proposal: Proposal): number[] {
  switch (proposal.kind) {
    case 'merge':
      return proposal.rows.flatMap((row) => [row.keeper.factId, row.loser.factId])
    case 'retire':
      return proposal.rows.map((row) => row.fact.factId)
    case 'fold':
      return proposal.rows.flatMap((row) => [
        row.survivor.factId,
        ...row.runs.slice(0, FOLD_RUNS_LISTED).map((run) => run.factId),
      ])
    default:
      return []
  }
}

function factBrief(fact: Fact): CardFactWire {
  const view = factView(fact)
  return { id: view.id, subject: view.subject, property: view.property, value: view.value, status: view.status }
}

function entityName(stores: OpenStores, entityKey: string): EntityNameWire {
  return { entityKey, display: stores.library.entityDisplay(entityKey) ?? entityKey }
}

/** A proposed value that would be refused or masked as a credential is never shown. */
function looksSecret(row: ProposedRow): boolean {
  const check = prepareWrite(
    { subject: row.subject, property: row.property, value: row.value, evidence: 'observed', origin: 'proposal' },
    new Date(0).toISOString(),
    { refuseCredentials: true, timeZone: 'UTC' },
  )
  return !check.ok && check.code === 'credential_refused'
}
