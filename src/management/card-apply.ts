/**
 * proposal-apply for the cards that change stored facts (merge, retire, fold, alias). A card is applied per row,
 * inside one reversible edit: a row whose facts changed since the card was made (or, for an alias, whose fragment
 * gained a fact) is skipped as stale, a row the store refuses (a fact no longer current, a claim the user forgot) is
 * skipped with why, and the rest applies. A card that lands nothing is refused, with nothing written.
 */
import { keysUnder } from '../fact-input.ts'
import type { CurationOutcome, CurationStore, KeysOf } from '../store/fact-store.ts'
import type { EditTrail } from '../store/edit-store.ts'
import type { ProposalOf } from '../store/proposal-store.ts'
import type { CardRows, ReviewKind } from '../types.ts'
import { abandon, ok, refuse, type Unfenced, type VerbContext, type VerbOutcome } from './verb.ts'

type ApplyRow<K extends ReviewKind> = (
  curation: CurationStore,
  row: CardRows[K],
  keysOf: KeysOf,
  now: string,
) => CurationOutcome<object>

const APPLY: { readonly [K in ReviewKind]: ApplyRow<K> } = {
  merge: (curation, row, _keysOf, now) => curation.applyMerge(row, now),
  retire: (curation, row, _keysOf, now) => curation.applyRetire(row, now),
  fold: (curation, row, _keysOf, now) => curation.applyFold(row, now),
  alias: (curation, row, keysOf, now) => curation.applyAlias(row, keysOf, now),
}

/**
 * Apply a pending review card, row by row, as one reversible edit. Runs inside the fenced transaction of
 * proposal-apply; a card that lands nothing abandons it with `skippedStale`, `skippedRefused` and `allStale`.
 * @param card - the pending card at the revision the page saw.
 * @param context - the verb context.
 * @param now - ISO instant.
 * @returns the rows applied (each with what it did), the rows skipped, and the edit id that undoes it.
 */
export function applyReviewCard<K extends ReviewKind>(
  card: ProposalOf<K>,
  context: VerbContext,
  now: string,
): VerbOutcome<Unfenced<'proposal-apply'>> {
  const { stores } = context
  const apply: ApplyRow<K> = APPLY[card.kind]
  const slots = [...new Set(card.rows.flatMap((row) => stores.facts.curation.slotsOf(card.kind, row, keysUnder)))]
  const skippedStale: number[] = []
  const skippedRefused: { row: number; reason: string }[] = []
  const { result, editId } = stores.edits.tracked('apply', slots, { proposalId: card.id }, now, () => {
    const applied: (Record<string, unknown> & { row: number })[] = []
    const trail: {
      sources: EditTrail['sources'][number][]
      identities: EditTrail['identities'][number][]
      aliases: NonNullable<EditTrail['aliases']>[number][]
    } = { sources: [], identities: [], aliases: [] }
    card.rows.forEach((row, index) => {
      // Each row is judged after the rows before it applied, so a row whose fact an earlier row changed is stale.
      if (!stores.facts.curation.stands(card.kind, row)) {
        skippedStale.push(index)
        return
      }
      const outcome = apply(stores.facts.curation, row, keysUnder, now)
      if (!outcome.ok) {
        skippedRefused.push({ row: index, reason: outcome.reason })
        return
      }
      applied.push({ row: index, ...outcome.value })
      trail.sources.push(...outcome.trail.sources)
      trail.identities.push(...outcome.trail.identities)
      trail.aliases.push(...(outcome.trail.aliases ?? []))
    })
    if (applied.length === 0) {
      abandon(
        refuse('refused', 'nothing landed: every row of this card was stale or refused', {
          skippedStale,
          skippedRefused,
          allStale: skippedStale.length === card.rows.length,
        }),
      )
    }
    stores.proposals.setStatus(card.id, 'applied', now)
    return { result: applied, created: [], trail }
  })
  return ok({ id: card.id, kind: card.kind, applied: result, skippedStale, skippedRefused, editId, undo: { editId } })
}
