/** Pure cutting of display text by code points, so an emoji or other astral character is never split in half. */

/**
 * Shorten text to at most `max` code points, marking a cut with an ellipsis.
 * @param text - any text.
 * @param max - the most code points kept before the ellipsis.
 * @returns the text, or its first `max` code points followed by `…`.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text
  const points = [...text]
  return points.length <= max ? text : `${points.slice(0, max).join('')}…`
}
