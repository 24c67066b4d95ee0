/**
 * Pure quote anchoring: a candidate's quote must occur verbatim in the text the model read, and whose message it
 * occurs in decides the evidence. The only tolerance is Unicode compatibility folding (NFKC) and whitespace: runs of
 * whitespace count as one space and the ends are trimmed. Case, punctuation and wording must match, so a paraphrase,
 * an elision ("…") or a quote stitched across two messages fails.
 */
import type { ConversationMessage } from './types.ts'

/**
 * Whether a quote occurs verbatim in a text, up to NFKC and whitespace.
 * @param quote - the candidate's quote.
 * @param inputText - the text to search (one message's text, or a piece of it).
 * @returns true when the folded quote is non-empty and occurs in the folded text.
 */
export function quoteInInput(quote: string, inputText: string): boolean {
  const needle = foldForAnchor(quote)
  return needle !== '' && foldForAnchor(inputText).includes(needle)
}

/**
 * The message a quote comes from: the first user message that holds it, else the first assistant message that does.
 * The quote must lie within one message; the role labels of the rendering are never part of a message.
 * @param quote - the candidate's quote.
 * @param messages - what the model read (a segment's messages or pieces, or a snapshot's messages).
 * @returns the message, or undefined when no message holds the quote (the candidate is dropped).
 */
export function anchorMessage(
  quote: string,
  messages: readonly ConversationMessage[],
): ConversationMessage | undefined {
  const needle = foldForAnchor(quote)
  if (needle === '') return undefined
  let first: ConversationMessage | undefined
  for (const message of messages) {
    if (!foldForAnchor(message.text).includes(needle)) continue
    if (message.role === 'user') return message
    first ??= message
  }
  return first
}

/**
 * The form both sides are compared in: NFKC, whitespace runs collapsed to one space, ends trimmed.
 * @param text - any text.
 * @returns the folded text.
 */
export function foldForAnchor(text: string): string {
  return text.normalize('NFKC').replace(/\s+/gu, ' ').trim()
}
