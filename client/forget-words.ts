/**
 * Pure words and bodies for forgetting from the page: the three reaches a fact offers (this fact, its subject ·
 * property, its whole subject), the fact-forget body of each, which of a subject's facts each takes, and the
 * confirmation's sentences. No DOM, no network.
 */
import type { EditFields } from './api.ts'
import type { FactView } from '../src/wire-types.ts'

/** How far a forget reaches. */
export type ForgetReach = 'fact' | 'property' | 'subject'

/** One choice the confirmation offers. */
export interface ForgetChoice {
  readonly reach: ForgetReach
  /** The choice as the user reads it. */
  readonly label: string
  /** The fact-forget body, fence fields aside. */
  readonly body: EditFields<'fact-forget'>
}

/** What the confirmation always says: a forget is for good once its toast is gone. */
export const NO_WAY_BACK =
  'The same claim cannot be written back afterwards: not by you, the assistant, extraction or an import. ' +
  'The message that follows offers Undo while it is shown.'

/**
 * The three reaches of a forget from one fact.
 * @param fact - the fact the user started from.
 * @returns the choices, narrowest first.
 */
export function forgetChoices(fact: FactView): ForgetChoice[] {
  return [
    { reach: 'fact', label: `This fact: ${fact.property} = ${fact.value}`, body: { id: fact.id } },
    {
      reach: 'property',
      label: `Every value of ${fact.subject} · ${fact.property}, history included`,
      body: { entityKey: fact.entityKey, property: fact.property },
    },
    {
      reach: 'subject',
      label: `The whole subject ${fact.subject}: every property, history included`,
      body: { entityKey: fact.entityKey },
    },
  ]
}

/**
 * The facts a reach takes, out of the subject's facts (the entity verb's list, every scope).
 * @param reach - the chosen reach.
 * @param fact - the fact the user started from.
 * @param subjectFacts - the subject's non-forgotten facts, or undefined while they load.
 * @returns the facts that go.
 */
export function factsThatGo(
  reach: ForgetReach,
  fact: FactView,
  subjectFacts: readonly FactView[] | undefined,
): readonly FactView[] {
  if (reach === 'fact' || subjectFacts === undefined) return [fact]
  if (reach === 'property') return subjectFacts.filter((other) => other.property === fact.property)
  return subjectFacts
}

/**
 * The confirmation's heading: what goes, by name and count.
 * @param reach - the chosen reach.
 * @param fact - the fact the user started from.
 * @param count - how many facts go.
 * @returns the sentence.
 */
export function forgetHeading(reach: ForgetReach, fact: FactView, count: number): string {
  const facts = `${count} fact${count === 1 ? '' : 's'}`
  if (reach === 'fact') return `Forget ${fact.subject} · ${fact.property} = ${fact.value}?`
  if (reach === 'property') return `Forget ${fact.subject} · ${fact.property} (${facts})?`
  return `Forget everything about ${fact.subject} (${facts})?`
}

/**
 * The toast after a forget.
 * @param forgotten - what the verb forgot.
 * @returns the sentence.
 */
export function forgottenToast(forgotten: readonly FactView[]): string {
  const first = forgotten[0]
  if (first === undefined) return 'Nothing was forgotten'
  if (forgotten.length === 1) return `Forgot ${first.subject} · ${first.property} = ${first.value}`
  const subjects = [...new Set(forgotten.map((fact) => fact.subject))]
  return `Forgot ${forgotten.length} facts of ${subjects.join(', ')}`
}
