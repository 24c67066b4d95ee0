/**
 * zod schema of the model's answer to the near-duplicate review's one closed question ("are these two statements
 * the same?") and its parser. The answer is a JSON object with one `verdict` of same / distinct / unsure, optionally
 * in one ```json fence; anything else, prose around it included, is no answer (the pair is asked again later), never
 * a guess.
 */
import { z } from 'zod'

/** The three answers the model may give. */
export type Verdict = 'same' | 'distinct' | 'unsure'

const verdictAnswer = z.object({ verdict: z.enum(['same', 'distinct', 'unsure']) }).strict()

/**
 * Read the model's answer.
 * @param text - the model's whole reply.
 * @returns the verdict, or undefined when the reply is not exactly the answer asked for.
 */
export function parseVerdict(text: string): Verdict | undefined {
  const trimmed = text.trim()
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/u.exec(trimmed)
  const body = fenced?.[1] ?? trimmed
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    return undefined
  }
  const parsed = verdictAnswer.safeParse(json)
  return parsed.success ? parsed.data.verdict : undefined
}
