/**
 * The one-time rescan of a store's facts under today's privacy rules, run when the store opens: rows an older version
 * wrote are judged as a write judges them now, what changed is rewritten in one transaction, and one aggregated retire
 * card (reason `privacy_rescan`) lists the current facts found, so the user learns of them and may retire them (a
 * personal-data flag today's rules no longer support is cleared without a card). A
 * stamp in the store's metadata records the rules version the rows were rescanned under.
 */
import { PRIVACY_RULES_VERSION, rescanRow } from '../privacy-rescan.ts'
import type { RescannedFact } from '../store/privacy-store.ts'
import type { OpenStores } from '../store/store-set.ts'
import { maskCredentials } from '../text/privacy.ts'

/** Why the rescan's cards exist, stored as their reason. */
export const PRIVACY_RESCAN_REASON = 'privacy_rescan'

/** What one rescan did. */
export interface PrivacyRescanOutcome {
  /** The facts rewritten: masked as credentials, now sensitive, or no longer flagged. */
  readonly facts: readonly RescannedFact[]
  /** Source quotes masked. */
  readonly sources: number
  /** The review cards created. */
  readonly cardIds: readonly number[]
}

/**
 * Rescan the stored facts unless they were already rescanned under the current rules version. The rewrite and its
 * card commit together and bump the generation once; a store with nothing to change only has the stamp written, as
 * bookkeeping (no generation bump). The stamp is written after the rewrite: an interrupted pass runs again, and
 * running again changes nothing it already changed.
 * @param stores - the open store.
 * @param now - ISO instant.
 * @returns what the rescan did, or undefined when the stamp says it already ran.
 */
export function rescanStoredPrivacy(stores: OpenStores, now: string): PrivacyRescanOutcome | undefined {
  if (Number(stores.meta.get('privacy_rules_version') ?? 0) >= PRIVACY_RULES_VERSION) return undefined
  const outcome = stores.db.transaction(() => {
    const changes = stores.privacy.rescan(rescanRow, maskCredentials, now)
    // A cleared flag hides nothing more, so it asks nothing of the user.
    const rows = changes.facts
      .filter((fact) => fact.current && fact.found !== 'cleared')
      .map((fact) => ({ fact: { factId: fact.factId, revision: fact.revision } }))
    const cardIds =
      rows.length === 0
        ? []
        : stores.proposals
            .proposeReview('retire', rows, now, undefined, PRIVACY_RESCAN_REASON)
            .cards.map((card) => card.id)
    return { facts: changes.facts, sources: changes.sources, cardIds }
  })
  stores.meta.set('privacy_rules_version', String(PRIVACY_RULES_VERSION))
  return outcome
}
