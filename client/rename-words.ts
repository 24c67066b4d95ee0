/** Pure words of the entity panel: what a rename, a merge or an alias removal says in its toast and its list. */
import type { VerbAnswer } from './api.ts'

/** What subject-rename and property-rename answer (the parts the words read). */
export type RenameAnswer = Pick<
  VerbAnswer<'property-rename'>,
  'kind' | 'from' | 'to' | 'moved' | 'merged' | 'contested'
>

/** One alias as the entity verb lists it. */
export type AliasWire = VerbAnswer<'entity'>['aliases'][number]

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
export function renameToast(
  answer: RenameAnswer,
  what: { readonly kind: 'subject' } | { readonly kind: 'property'; readonly subject: string },
): string {
  const noun = what.kind === 'subject' ? '' : `${what.subject} · `
  const head =
    answer.kind === 'merge'
      ? `Merged ${noun}“${answer.from}” into “${answer.to}”`
      : `Renamed ${noun}“${answer.from}” to “${answer.to}”`
  const contest =
    answer.contested === 0 ? '' : `; ${answer.contested} values differ and now stand as a conflict for you to settle`
  return `${head}${contest}. Writes under “${answer.from}” now land on “${answer.to}”.`
}

/**
 * One alias line of the panel.
 * @param alias - the alias.
 * @returns what it reads as, and where it came from.
 */
export function aliasLine(alias: AliasWire): { readonly text: string; readonly note: string } {
  return {
    text:
      alias.kind === 'entity' ? `“${alias.alias}” → this subject` : `property “${alias.alias}” → “${alias.canonical}”`,
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
