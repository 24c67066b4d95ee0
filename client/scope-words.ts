/**
 * Pure words for scopes on the page: how a fact's scope reads on a row and in the detail, the scope filter's
 * options, and where a fact can be moved. A project always reads by its name; its stored scope text (which holds the
 * path) is only ever sent back to the routes, never shown.
 */
import type { FactView, ScopeKind, ScopeWire } from '../src/wire-types.ts'

/**
 * A scope in words: `global`, `project billing-api`, `label infra`.
 * @param kind - the scope's kind.
 * @param name - its name.
 * @returns the words.
 */
export function scopeWords(kind: ScopeKind, name: string): string {
  return kind === 'global' ? 'global' : `${kind} ${name}`
}

/**
 * The scope filter's options: every scope the store holds, as the route lists them, with its fact count.
 * @param scopes - the facts route's `scopes`.
 * @returns value (the stored scope text) and label pairs.
 */
export function scopeFilterOptions(scopes: readonly ScopeWire[]): { value: string; label: string }[] {
  return scopes.map((scope) => ({ value: scope.scope, label: `${scopeWords(scope.kind, scope.name)} (${scope.facts})` }))
}

/**
 * Where a fact can move: every known scope but its own, the global one always among them.
 * @param fact - the fact in the detail.
 * @param scopes - the facts route's `scopes`.
 * @returns value (the stored scope text) and label pairs, global first.
 */
export function moveTargets(fact: FactView, scopes: readonly ScopeWire[]): { value: string; label: string }[] {
  const known = scopes.some((scope) => scope.kind === 'global') ? scopes : [{ scope: 'global', kind: 'global' as const, name: 'global', facts: 0 }, ...scopes]
  return known.filter((scope) => scope.scope !== fact.scope).map((scope) => ({ value: scope.scope, label: scopeWords(scope.kind, scope.name) }))
}
