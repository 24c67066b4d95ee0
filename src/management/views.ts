/** Pure JSON views of store rows for the page: camelCase, dates as ISO UTC, credential values always masked. */
import type { ConflictGroupView, FactSource } from '../store/library-store.ts'
import { MASK, maskQualifiers } from '../text/privacy.ts'
import type { Fact } from '../types.ts'
import { fromNote } from '../sync/side-origins.ts'
import { GLOBAL_SCOPE, projectKeyOfScope, projectNameOf } from '../project/project-ref.ts'
import type { ScopeCount } from '../store/library-store.ts'
import type { ConflictGroupWire, FactView, ScopeKind, ScopeWire, SourceView } from '../wire-types.ts'

export type { FactView }

/**
 * How a scope reads on the page: its kind and the name a person reads (a project's name, never its path).
 * @param scope - the stored scope text.
 * @param projectName - the project's name, for a project scope.
 * @returns kind and name.
 */
export function scopeLabel(scope: string, projectName: string | null): { kind: ScopeKind; name: string } {
  if (scope === GLOBAL_SCOPE) return { kind: 'global', name: GLOBAL_SCOPE }
  const key = projectKeyOfScope(scope)
  if (key !== null) return { kind: 'project', name: projectName ?? projectNameOf(key) }
  return { kind: 'label', name: scope }
}

/**
 * The scope filter's list: global first, then projects by name, then labels.
 * @param scopes - the store's scopes with their counts.
 * @returns their views.
 */
export function scopeList(scopes: readonly ScopeCount[]): ScopeWire[] {
  const rank: Readonly<Record<ScopeKind, number>> = { global: 0, project: 1, label: 2 }
  return scopes
    .map((entry) => {
      const { kind, name } = scopeLabel(entry.scope, entry.projectName)
      return { scope: entry.scope, kind, name, facts: entry.facts }
    })
    .sort(
      (a, b) =>
        rank[a.kind] - rank[b.kind] ||
        a.name.localeCompare(b.name) ||
        (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0),
    )
}

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
    qualifiers: maskQualifiers(fact.qualifiers),
    scope: fact.scope,
    ...scopeFields(fact),
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
    cues: masked ? [] : fact.cues,
    pinnedAt: fact.pinnedAt,
  }
}

function scopeFields(fact: Fact): { scopeKind: ScopeKind; scopeName: string } {
  const { kind, name } = scopeLabel(fact.scope, fact.projectName)
  return { scopeKind: kind, scopeName: name }
}

/** The view of a source; a credential's quote stays masked. */
export function sourceView(source: FactSource, masked: boolean): SourceView {
  return { ...source, quote: masked && source.quote !== null ? MASK : source.quote }
}

/** The view of an open conflict group: its slot and both sides with date and evidence. */
export function conflictView(
  group: ConflictGroupView,
  fromDevices: ReadonlyMap<number, readonly string[]> = new Map(),
): ConflictGroupWire {
  const first = group.rows[0]
  return {
    id: group.id,
    openedAt: group.openedAt,
    subject: first?.subject ?? '',
    property: first?.property ?? '',
    qualifiers: maskQualifiers(first?.qualifiers ?? {}),
    rows: group.rows.map(factView),
    fromDevices: group.rows.flatMap((row) => {
      const devices = fromDevices.get(row.id)
      return devices === undefined ? [] : [{ factId: row.id, devices: [...devices], note: fromNote(devices) }]
    }),
  }
}
