/**
 * The health check, one run: read the current facts each class needs (AuditStore), classify them (audit-classes.ts),
 * queue one aggregated card per class through the proposal store (at most 50 rows a card, a longer list as batch n/m;
 * a row already queued or declined before is left out), and log the run in the ledger. It changes no fact: nothing
 * lands until a person accepts a card. No model is involved.
 */
import { isoNow, type Clock } from '../clock.ts'
import { messageOf } from '../errors.ts'
import type { AuditCard, AuditRow, AuditRun, AuditTrigger } from '../store/audit-store.ts'
import type { ProposedCards } from '../store/proposal-store.ts'
import type { OpenStores } from '../store/store-set.ts'
import type { AliasRow, FactRef, FoldRow, RetireRow, ReviewKind } from '../types.ts'
import { datedPipelines, restatesProperty, splitCandidates, splitSubjects } from './audit-classes.ts'

/** The rows each class found, ready to queue. */
export interface AuditFindings {
  readonly retire: readonly RetireRow[]
  readonly fold: readonly FoldRow[]
  readonly alias: readonly AliasRow[]
}

/**
 * Classify the library as it stands: self-restating facts, dated pipelines, split subjects.
 * @param stores - the open stores.
 * @param now - ISO instant of the run (its day bounds what a dated property may name).
 * @returns the rows of each class, at the revisions read.
 */
export function findAuditRows(stores: OpenStores, now: string): AuditFindings {
  const retire = stores.audit
    .shortValued()
    .filter((fact) => restatesProperty(fact))
    .map((fact) => ({ fact: ref(fact) }))
  const dated = stores.audit.digitProperties()
  const byId = new Map(dated.map((fact) => [fact.id, fact]))
  const refOf = (id: number): FactRef => ({ factId: id, revision: byId.get(id)?.revision ?? 0 })
  const fold = datedPipelines(dated, now.slice(0, 10)).map((pipeline) => ({
    survivor: refOf(pipeline.survivor),
    runs: pipeline.runs.map(refOf),
  }))
  const candidates = splitCandidates(stores.audit.currentEntityKeys())
  const alias = splitSubjects(stores.audit.currentFactsOf([...candidates])).map((split) => ({
    fragment: split.fragment,
    canonical: split.canonical,
    facts: stores.audit.liveFactRefs(split.fragment),
  }))
  return { retire, fold, alias }
}

/**
 * Run the health check once and log it. A failure is logged with its message and reported, never thrown.
 * @param stores - the open stores.
 * @param clock - the clock.
 * @param trigger - the timer, or a person (the button, the verb with `force`).
 * @returns the run as the ledger holds it.
 */
export function runAudit(stores: OpenStores, clock: Clock, trigger: AuditTrigger): AuditRun {
  const started = clock.now()
  const startedAt = isoNow(clock)
  let found = { retire: 0, fold: 0, alias: 0 }
  const cards: AuditCard[] = []
  let alreadyQueued = 0
  let declined = 0
  let error: string | null = null
  try {
    const rows = findAuditRows(stores, startedAt)
    found = { retire: rows.retire.length, fold: rows.fold.length, alias: rows.alias.length }
    const results: [ReviewKind, ProposedCards][] = [
      ['retire', stores.proposals.proposeRetires(rows.retire, startedAt)],
      ['fold', stores.proposals.proposeFolds(rows.fold, startedAt)],
      ['alias', stores.proposals.proposeAliases(rows.alias, startedAt)],
    ]
    for (const [kind, result] of results) {
      cards.push(...result.cards.map((card) => ({ kind, id: card.id, rows: card.rows, batch: card.batch })))
      alreadyQueued += result.queued.length
      declined += result.declined.length
    }
  } catch (caught) {
    error = messageOf(caught)
  }
  const record = {
    trigger,
    found,
    cards,
    alreadyQueued,
    declined,
    error,
    startedAt,
    finishedAt: isoNow(clock),
    durationMs: clock.now() - started,
  }
  return { ...record, id: stores.audit.record(record) }
}

function ref(fact: AuditRow): FactRef {
  return { factId: fact.id, revision: fact.revision }
}
