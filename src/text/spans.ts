/** Pure: spans of a text (where they start, how long) and whether a new one overlaps those already claimed. */

/** A stretch of text, in UTF-16 units of the text as given. */
export interface Span {
  readonly index: number
  readonly length: number
}

/**
 * Whether a span overlaps any of the claimed ones (touching ends do not overlap).
 * @param claimed - the spans already claimed.
 * @param index - where the new span starts.
 * @param length - its length.
 * @returns true when it overlaps one.
 */
export function overlapsAny(claimed: readonly Span[], index: number, length: number): boolean {
  return claimed.some((other) => index < other.index + other.length && other.index < index + length)
}
