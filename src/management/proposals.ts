/**
 * The review queue's verbs: proposals (list), proposal-apply, proposal-reject, proposal-revise, proposal-prune.
 * Applying is a re-check, not a replay: each row's target facts must still stand at the revisions the proposal
 * saw; rows whose targets moved are skipped as stale, and a card that lands nothing is refused (and marked stale when
 * every row was). An add_fact card's rows are written as confirmed_user through the same privacy scan and slot
 * rules as any write; the cards that change stored facts (merge, retire, fold, alias) apply as card-apply.ts says.
 */
import { prepareWrite, type PrepareResult } from '../fact-input.ts'
import { applyReviewCard } from './card-apply.ts'
import { addRowStands, cardView } from './proposal-views.ts'
import { abandon, ok, refuse, runFenced, verb, type VerbContext } from './verb.ts'
import type { Proposal, ProposalOf } from '../store/proposal-store.ts'
import type { OpenStores } from '../store/store-set.ts'
import { rowKey } from '../rules/proposal-cards.ts'
import type { CardRows, ProposedRow, ReviewKind } from '../types.ts'

/**
 * proposals: the cards, newest first, with each row's current staleness, a page at a time; `total` counts the cards
 * of the asked status on every page, and with `since` `newSince` counts those of them queued after that instant.
 */
export const proposalsVerb = verb('proposals', {
  run(body, context) {
    const status = body.status === 'all' ? undefined : (body.status ?? 'pending')
    const page = context.stores.proposals.list(
      status,
      body.cursor === undefined ? undefined : Number(body.cursor),
      body.limit ?? 50,
    )
    const last = page.proposals.at(-1)
    return ok({
      proposals: page.proposals.map((proposal) => cardView(proposal, context.stores)),
      nextCursor: page.more && last !== undefined ? String(last.id) : null,
      total: context.stores.proposals.count(status),
      newSince: body.since === undefined ? null : context.stores.proposals.count(status, body.since),
      generation: context.stores.db.generation(),
    })
  },
})

/** proposal-apply: write the card's rows as confirmed_user after re-checking each row's targets. */
export const proposalApplyVerb = verb('proposal-apply', {
  run(body, context) {
    const { stores } = context
    const now = context.now()
    const outcome = runFenced(stores, 'proposal-apply', body, now, () => {
      const card = pendingCard(stores, body.id, body.revision)
      if (card.kind !== 'add_fact') return applyReviewCard(card, context, now)
      const proposal: ProposalOf<'add_fact'> = card
      const prepared = proposal.rows.map((row) => prepareRow(row, 'confirmed_user', context, now))
      const slots = prepared.flatMap((result) => (result.ok ? [result.write.slotKey] : []))
      const skippedStale: number[] = []
      const skippedRefused: { row: number; reason: string }[] = []
      const { result, editId } = stores.edits.tracked('apply', slots, { proposalId: proposal.id }, now, () => {
        const applied: { row: number; factId: number; outcome: string }[] = []
        proposal.rows.forEach((row, index) => {
          if (!addRowStands(stores, row)) {
            skippedStale.push(index)
            return
          }
          const write = prepared[index]
          if (write === undefined || !write.ok) {
            skippedRefused.push({ row: index, reason: write?.ok === false ? write.message : 'invalid row' })
            return
          }
          const written = stores.facts.write(write.write, now)
          if (written.kind === 'refused' || written.kind === 'proposed') {
            skippedRefused.push({
              row: index,
              reason: written.kind === 'refused' ? written.message : 'still below the confidence floor',
            })
            return
          }
          applied.push({ row: index, factId: written.fact.id, outcome: written.kind })
        })
        if (applied.length === 0) {
          abandon(
            refuse('refused', 'nothing landed: every row of this card was stale or refused', {
              skippedStale,
              skippedRefused,
              allStale: skippedStale.length === proposal.rows.length,
            }),
          )
        }
        stores.proposals.setStatus(proposal.id, 'applied', now)
        // A duplicate or a fold lands on a row that was there before; only new rows count as created.
        return {
          result: applied,
          created: applied
            .filter((entry) => entry.outcome === 'saved' || entry.outcome === 'conflict')
            .map((entry) => entry.factId),
        }
      })
      return ok({ id: proposal.id, applied: result, skippedStale, skippedRefused, editId, undo: { editId } })
    })
    // A card whose every row went stale leaves the queue as stale (outside the refused operation, which kept nothing).
    if (!outcome.ok && outcome.details?.['allStale'] === true) stores.proposals.setStatus(body.id, 'stale', now)
    return outcome
  },
})

/** proposal-reject: take the card out of the queue. */
export const proposalRejectVerb = verb('proposal-reject', {
  run(body, context) {
    const { stores } = context
    const now = context.now()
    return runFenced(stores, 'proposal-reject', body, now, () => {
      const proposal = pendingCard(stores, body.id, body.revision)
      stores.proposals.setStatus(proposal.id, 'rejected', now)
      return ok({ id: proposal.id, status: 'rejected' })
    })
  },
})

/** proposal-revise: a new revision of one row, re-validated before it can be applied. */
export const proposalReviseVerb = verb('proposal-revise', {
  run(body, context) {
    const { stores } = context
    const now = context.now()
    return runFenced(stores, 'proposal-revise', body, now, () => {
      const proposal = pendingCard(stores, body.id, body.revision)
      if (proposal.kind !== 'add_fact')
        return refuse(
          'refused',
          `the rows of a ${proposal.kind} card cannot be edited; strike a row or reject the card`,
        )
      const index = body.row ?? 0
      const row = proposal.rows[index]
      if (row === undefined) return refuse('not_found', `proposal ${proposal.id} has no row ${index}`)
      const revised: ProposedRow = {
        ...row,
        subject: body.subject ?? row.subject,
        property: body.property ?? row.property,
        value: body.value ?? row.value,
        qualifiers: body.qualifiers ?? row.qualifiers,
      }
      const check = prepareRow(revised, 'confirmed_user', context, now)
      if (!check.ok)
        return refuse(check.code === 'credential_refused' ? 'credential_refused' : 'invalid_arguments', check.message)
      // The revised row is checked against the slot as it stands now.
      const targets = stores.library
        .slotRows(check.write.slotKey)
        .filter((fact) => fact.status === 'active' || fact.status === 'scheduled' || fact.status === 'conflict')
        .map((fact) => ({ factId: fact.id, revision: fact.revision }))
      const rows = proposal.rows.map((existing, at) => (at === index ? { ...revised, targets } : existing))
      const revision = stores.proposals.revise(proposal, rows, now)
      return ok({ id: proposal.id, revision, card: cardView({ ...proposal, rows, revision }, stores) })
    })
  },
})

/** proposal-prune: strike one row of an aggregated card; the last row cannot be pruned (reject the card instead). */
export const proposalPruneVerb = verb('proposal-prune', {
  run(body, context) {
    const { stores } = context
    const now = context.now()
    return runFenced(stores, 'proposal-prune', body, now, () => {
      const proposal = pendingCard(stores, body.id, body.revision)
      if (proposal.rows[body.row] === undefined)
        return refuse('not_found', `proposal ${proposal.id} has no row ${body.row}`)
      if (proposal.rows.length === 1)
        return refuse('refused', 'this card has a single row; reject the card instead of pruning it')
      const pruned = prunedCard(proposal, body.row)
      const revision = stores.proposals.revise(pruned.card, pruned.card.rows, now, pruned.struck)
      return ok({ id: proposal.id, revision, card: cardView({ ...pruned.card, revision }, stores) })
    })
  },
})

/** The card without one row, and the key of the change struck (review kinds remember it; add_fact rows have none). */
function prunedCard(card: Proposal, index: number): { card: Proposal; struck: string[] } {
  const keep = <T>(rows: readonly T[]): T[] => rows.filter((_row, at) => at !== index)
  switch (card.kind) {
    case 'add_fact':
      return { card: { ...card, rows: keep(card.rows) }, struck: [] }
    case 'merge':
      return { card: { ...card, rows: keep(card.rows) }, struck: struckKey('merge', card.rows[index]) }
    case 'retire':
      return { card: { ...card, rows: keep(card.rows) }, struck: struckKey('retire', card.rows[index]) }
    case 'fold':
      return { card: { ...card, rows: keep(card.rows) }, struck: struckKey('fold', card.rows[index]) }
    case 'alias':
      return { card: { ...card, rows: keep(card.rows) }, struck: struckKey('alias', card.rows[index]) }
  }
}

function struckKey<K extends ReviewKind>(kind: K, row: CardRows[K] | undefined): string[] {
  return row === undefined ? [] : [rowKey(kind, row)]
}

/** A pending card at the revision the page saw, or the fenced work is abandoned with why not. */
function pendingCard(stores: OpenStores, id: number, revision: number): Proposal {
  const proposal = stores.proposals.get(id)
  if (proposal === undefined) abandon(refuse('not_found', `no proposal has id ${id}`))
  if (proposal.status !== 'pending') abandon(refuse('refused', `proposal ${id} is already ${proposal.status}`))
  if (proposal.revision !== revision) {
    abandon(
      refuse('stale', `proposal ${id} is at revision ${proposal.revision}, the page had ${revision}; reload it`, {
        stale: true,
        revision: proposal.revision,
        generation: stores.db.generation(),
      }),
    )
  }
  return proposal
}

function prepareRow(row: ProposedRow, evidence: 'confirmed_user', context: VerbContext, now: string): PrepareResult {
  return prepareWrite(
    {
      subject: row.subject,
      property: row.property,
      value: row.value,
      qualifiers: row.qualifiers,
      scope: row.scope,
      evidence,
      quote: row.quote ?? undefined,
      cues: row.cues,
      multi: row.multi,
      confidence: 1,
      origin: 'proposal',
      validFrom: row.validFrom > now ? row.validFrom : undefined,
      validTo: row.validTo ?? undefined,
    },
    now,
    { refuseCredentials: context.config.refuseCredentials, timeZone: context.config.displayTimeZone },
  )
}
