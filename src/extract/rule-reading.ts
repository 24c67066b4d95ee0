/** Pure: one reading a language's rule patterns make (rules-en.ts, rules-zh.ts), as the RuleMatch the rule path takes. */
import type { RuleMatch } from './types.ts'

/**
 * One reading of a pattern.
 * @param family - which family of pattern read it.
 * @param subject - the subject read.
 * @param property - the property read.
 * @param value - the value read.
 * @param start - where the reading starts inside the text the pattern read.
 * @param end - where it ends.
 * @returns the match.
 */
export function reading(
  family: RuleMatch['family'],
  subject: string,
  property: string,
  value: string,
  start: number,
  end: number,
): RuleMatch {
  return { family, subject, property, value, start, end }
}
