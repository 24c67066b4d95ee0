/** Pure JSON views of store rows for the page: camelCase, dates as ISO UTC, credential values always masked. */
import type { ConflictGroupView, FactSource } from '../store/library-store.ts'
import { MASK } from '../text/privacy.ts'
import type { Fact } from '../types.ts'
import type { FactView } from '../wire-types.ts'

export type { FactView }

/**
 * The page's view of a fact. Personal data is the user's own and is shown; a credential never is.
 * @param fact - a stored fact.
 * @returns its view.
 */
export function factView(fact: Fact): FactView {
  const masked = fact.sensitivity === 'credential'
  return {
    id: fact.id,
    subject: fact.subject,
    entityKey: fact.entityKey,
    property: fact.property,
    qualifiers: fact.qualifiers,
    scope: fact.scope,
    value: masked ? MASK : fact.value,
    masked,
    status: fact.status,
    evidence: fact.evidence,
    confidence: fact.confidence,
    sensitivity: fact.sensitivity,
    modelUseAllowed: fact.modelUseAllowed,
    multi: fact.multi,
    validFrom: fact.validFrom,
    validTo: fact.validTo,
    observedAt: fact.observedAt,
    recordedAt: fact.recordedAt,
    supersededBy: fact.supersededBy,
    conflictGroupId: fact.conflictGroupId,
    revision: fact.revision,
    origin: fact.origin,
    sessionId: fact.sessionId,
    turn: fact.turn,
    quote: masked || fact.quote === null ? (fact.quote === null ? null : MASK) : fact.quote,
    foldedCount: fact.foldedCount,
    foldedFrom: masked ? [] : fact.foldedFrom,
  }
}

/** The view of a source; a credential's quote stays masked. */
export function sourceView(source: FactSource, masked: boolean): Record<string, unknown> {
  return { ...source, quote: masked && source.quote !== null ? MASK : source.quote }
}

/** The view of an open conflict group: its slot and both sides with date and evidence. */
export function conflictView(group: ConflictGroupView): Record<string, unknown> {
  const first = group.rows[0]
  return {
    id: group.id,
    openedAt: group.openedAt,
    subject: first?.subject ?? '',
    property: first?.property ?? '',
    qualifiers: first?.qualifiers ?? {},
    rows: group.rows.map(factView),
  }
}
