/**
 * Pure words for putting facts in from the library: what a fact-add answer did (the toast's sentence), the scopes
 * the form offers, and what an import preview and commit say. No DOM here.
 */
import type { VerbAnswer } from './api.ts'
import { scopeWords } from './scope-words.ts'
import type { ScopeWire } from '../src/wire-types.ts'

/** The fact-add answer, as the form reads it: each outcome's fields but the receipt and the undo action. */
export type AddAnswer =
  VerbAnswer<'fact-add'> extends infer A
    ? A extends unknown
      ? Omit<A, 'undo' | 'generation' | 'operationId' | 'replayed'>
      : never
    : never

/** One import class, in the order the preview lists them. */
export const IMPORT_CLASSES = [
  ['new', 'new'],
  ['duplicate', 'already stored'],
  ['repeated', 'repeated in the file'],
  ['conflict', 'conflict'],
  ['tombstoned', 'forgotten (refused)'],
  ['invalid', 'invalid'],
] as const

export type ImportCounts = Readonly<Record<(typeof IMPORT_CLASSES)[number][0], number>>

/**
 * The scopes the form offers: global first (always), then every project and label the store holds.
 * @param scopes - the facts route's `scopes`.
 * @returns value (stored scope text) and label pairs.
 */
export function addScopes(scopes: readonly ScopeWire[]): { value: string; label: string }[] {
  const others = scopes.filter((scope) => scope.kind !== 'global')
  return [
    { value: 'global', label: 'global' },
    ...others.map((scope) => ({ value: scope.scope, label: scopeWords(scope.kind, scope.name) })),
  ]
}

/**
 * What an add did, in one sentence.
 * @param answer - the fact-add answer.
 * @returns the toast's words.
 */
export function addedWords(answer: AddAnswer): string {
  if (answer.outcome === 'proposed')
    return `Not stored as a fact: it became a card to review in Proposals (${answer.reason.replace(/_/gu, ' ')})`
  const fact = answer.fact
  const named = `${fact.subject} · ${fact.property} = ${fact.value}`
  const sensitive =
    'sensitivityReason' in answer && answer.sensitivityReason !== null
      ? `; kept as sensitive (${answer.sensitivityReason})`
      : ''
  switch (answer.outcome) {
    case 'saved': {
      const replaced = answer.superseded.map((row) => row.value)
      const settled = answer.retired.map((row) => row.value)
      return `Added ${named}${replaced.length > 0 ? `, replacing ${replaced.join(', ')} (now history)` : ''}${settled.length > 0 ? `; settled the conflict against ${settled.join(', ')}` : ''}${sensitive}`
    }
    case 'conflict':
      return `Added ${named} as a conflict with ${answer.rivals.map((row) => row.value).join(', ')}: settle it in Conflicts${sensitive}`
    case 'duplicate':
      return `Already stored: ${named}${answer.upgraded ? ', now marked as your own statement' : ''}${answer.editId !== null && !answer.upgraded ? ', and its conflict is settled' : ''}`
    case 'folded':
      return `Folded into ${fact.subject} · ${fact.property}, which now reads ${fact.value}`
  }
}

/**
 * The preview's classes in words, the zero ones left out.
 * @param counts - the preview's counts.
 * @returns e.g. "3 new · 1 already stored · 2 invalid".
 */
export function importCountWords(counts: ImportCounts): string {
  const parts = IMPORT_CLASSES.filter(([key]) => counts[key] > 0).map(([key, label]) => `${counts[key]} ${label}`)
  return parts.length === 0 ? 'no records' : parts.join(' · ')
}

/**
 * What a commit landed, for the toast.
 * @param counts - the commit's counts.
 * @param forgotten - how many current facts the file's tombstones forgot.
 * @returns the sentence.
 */
export function importedWords(counts: ImportCounts, forgotten = 0): string {
  const landed = counts.new + counts.conflict
  return (
    `Imported ${landed} fact${landed === 1 ? '' : 's'}${counts.conflict > 0 ? ` (${counts.conflict} as conflicts to settle)` : ''}` +
    `${counts.duplicate > 0 ? `; ${counts.duplicate} already stored` : ''}${counts.repeated > 0 ? `; ${counts.repeated} repeated in the file` : ''}` +
    `${counts.tombstoned > 0 ? `; ${counts.tombstoned} forgotten, refused` : ''}` +
    `${counts.invalid > 0 ? `; ${counts.invalid} invalid, skipped` : ''}` +
    `${forgotten > 0 ? `; the file forgot ${forgotten} fact${forgotten === 1 ? '' : 's'} stored here` : ''}`
  )
}

/**
 * What an import's Undo says once done: the facts it added are gone, and those its file forgot are back.
 * @param forgotten - how many current facts the file's tombstones forgot.
 * @returns the sentence.
 */
export function undoneImportWords(forgotten: number): string {
  return `Undone: the import is taken back${forgotten > 0 ? `, and the ${forgotten === 1 ? 'fact' : `${forgotten} facts`} the file forgot ${forgotten === 1 ? 'is' : 'are'} back` : ''}`
}

/**
 * What the preview says will change besides the records: stored facts the file forgets, pins it cannot keep.
 * @param forgets - how many current facts the file's tombstones would forget.
 * @param pinsDropped - how many pins the file states that the import drops.
 * @returns the sentences, none when neither happens.
 */
export function importSideWords(forgets: number, pinsDropped: number): string[] {
  return [
    ...(forgets > 0
      ? [
          `The file forgets ${forgets} fact${forgets === 1 ? '' : 's'} stored here; committing forgets ${forgets === 1 ? 'it' : 'them'} (Undo puts ${forgets === 1 ? 'it' : 'them'} back).`,
        ]
      : []),
    ...(pinsDropped > 0
      ? [
          `${pinsDropped} pin${pinsDropped === 1 ? '' : 's'} in the file ${pinsDropped === 1 ? 'is' : 'are'} dropped: a pin is your own act, kept only from this store's own export.`,
        ]
      : []),
  ]
}
