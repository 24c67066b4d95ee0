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
  return scopes.map((scope) => ({
    value: scope.scope,
    label: `${scopeWords(scope.kind, scope.name)} (${scope.facts})`,
  }))
}

/**
 * Where a fact can move: every known scope but its own, the global one always among them.
 * @param fact - the fact in the detail.
 * @param scopes - the facts route's `scopes`.
 * @returns value (the stored scope text) and label pairs, global first.
 */
export function moveTargets(fact: FactView, scopes: readonly ScopeWire[]): { value: string; label: string }[] {
  const known = scopes.some((scope) => scope.kind === 'global')
    ? scopes
    : [{ scope: 'global', kind: 'global' as const, name: 'global', facts: 0 }, ...scopes]
  return known
    .filter((scope) => scope.scope !== fact.scope)
    .map((scope) => ({ value: scope.scope, label: scopeWords(scope.kind, scope.name) }))
}

/** The option that asks for a new label, in the Add form's and the Move control's scope lists. */
export const NEW_LABEL = { value: '\u0000new-label', label: 'New label…' } as const

/**
 * The scope a form names: the option chosen, or the label typed when "New label…" is chosen.
 * @param chosen - the select's value.
 * @param typed - the new label's text, when one was typed.
 * @returns the scope text to send, or why there is none.
 */
export function chosenScope(
  chosen: string,
  typed: string | undefined,
): { readonly scope: string } | { readonly missing: string } {
  if (chosen !== NEW_LABEL.value) return chosen === '' ? { missing: 'Choose a scope to move to.' } : { scope: chosen }
  const label = (typed ?? '').replace(/\s+/gu, ' ').trim()
  if (label === '') return { missing: "Type the new label's name." }
  if (label.toLowerCase() === 'global' || label.toLowerCase().startsWith('project:'))
    return { missing: `“${label}” is not a label name: global and project scopes are chosen from the list.` }
  return { scope: label }
}
