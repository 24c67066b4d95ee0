/**
 * Pure: whether a message speaks of the user's own things ("my editor", "in my time zone", "我的编辑器", "我这边的时区").
 * The facts about the person the memory belongs to are stored under the subject "user" (the extraction prompt and
 * the tool ask for it), so such a message names that subject, as "billing-api" names its own; per-turn recall then
 * judges the user's facts as those of a named subject.
 */

/** The subjects the person the memory belongs to is stored under. */
export const USER_SUBJECTS: readonly string[] = ['user', '用户']

const ENGLISH_POSSESSIVE = /\b(?:my|mine|myself)\b/iu
const CHINESE_POSSESSIVE = /我(?:的|这边|这里|自己)/u

/**
 * Whether a message speaks of the user's own things.
 * @param text - the user's message.
 * @returns true for a first-person possessive in English or Chinese.
 */
export function speaksOfOwnThings(text: string): boolean {
  return ENGLISH_POSSESSIVE.test(text) || CHINESE_POSSESSIVE.test(text)
}
