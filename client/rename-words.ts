/** Pure words of the entity panel: what a rename, a merge or an alias removal says in its toast and its list. */

/** What subject-rename and property-rename answer. */
export interface RenameAnswer {
  readonly kind: 'rename' | 'merge'
  readonly from: string
  readonly to: string
  readonly moved: number
  readonly merged: number
  readonly contested: number
  readonly editId: number
  readonly generation: number
}

/** One alias as the entity verb lists it. */
export interface AliasWire {
  readonly id: number
  readonly kind: 'entity' | 'predicate'
  readonly alias: string
  readonly canonical: string
  readonly origin: 'rename' | 'merge' | 'card' | 'import'
  readonly createdAt: string
}

const ORIGIN_WORDS: Readonly<Record<AliasWire['origin'], string>> = {
  rename: 'renamed here',
  merge: 'merged here',
  card: 'from a health-check card',
  import: 'from an import',
}

/**
 * The toast of a rename or a merge.
 * @param answer - what the verb answered.
 * @param what - a subject, or a property of the named subject.
 * @returns one sentence.
 */
export function renameToast(answer: RenameAnswer, what: { readonly kind: 'subject' } | { readonly kind: 'property'; readonly subject: string }): string {
  const noun = what.kind === 'subject' ? '' : `${what.subject} · `
  const head = answer.kind === 'merge'
    ? `Merged ${noun}“${answer.from}” into “${answer.to}”`
    : `Renamed ${noun}“${answer.from}” to “${answer.to}”`
  const contest = answer.contested === 0 ? '' : `; ${answer.contested} values differ and now stand as a conflict for you to settle`
  return `${head}${contest}. Writes under “${answer.from}” now land on “${answer.to}”.`
}

/**
 * One alias line of the panel.
 * @param alias - the alias.
 * @returns what it reads as, and where it came from.
 */
export function aliasLine(alias: AliasWire): { readonly text: string; readonly note: string } {
  return {
    text: alias.kind === 'entity' ? `“${alias.alias}” → this subject` : `property “${alias.alias}” → “${alias.canonical}”`,
    note: ORIGIN_WORDS[alias.origin],
  }
}

/**
 * The sentence beside the rename field once the typed name is another subject's: a merge, and what it does.
 * @param target - the other subject's name.
 * @returns the sentence.
 */
export function mergeNote(target: string): string {
  return `“${target}” is another subject: its facts and these become one. A property that holds one value on each side, differently, becomes a conflict for you to settle.`
}
