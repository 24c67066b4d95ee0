/**
 * Pure: the near-duplicate review's one closed question, as the messages sent to the extraction model. The model sees
 * two statements about one subject as text, never a fact id, a date or which one the store would keep, and answers
 * with one word in JSON (see verdict.schema.ts).
 */

/** One side of the pair, as shown to the model. */
export interface StatementText {
  readonly subject: string
  readonly property: string
  readonly value: string
}

/** The chat messages for one pair. */
export interface VerdictMessages {
  readonly system: string
  readonly user: string
}

/** The system prompt of the closed question. */
export const VERDICT_SYSTEM_PROMPT = [
  'You compare two statements from a memory of facts about one subject.',
  'Answer "same" when both state the same fact in different words, "distinct" when they state different facts (a',
  'different number, name, version, place or time is a different fact), and "unsure" when you cannot tell.',
  'Reply with JSON only: {"verdict": "same"} or {"verdict": "distinct"} or {"verdict": "unsure"}.',
].join(' ')

/**
 * Build the messages for one pair.
 * @param a - one statement.
 * @param b - the other.
 * @returns the system and user messages.
 */
export function verdictMessages(a: StatementText, b: StatementText): VerdictMessages {
  const line = (side: StatementText): string =>
    `${oneLine(side.subject)} · ${oneLine(side.property)}: ${oneLine(side.value)}`
  return { system: VERDICT_SYSTEM_PROMPT, user: `Statement A: ${line(a)}\nStatement B: ${line(b)}` }
}

function oneLine(text: string): string {
  return text.replace(/\s+/gu, ' ').trim()
}
