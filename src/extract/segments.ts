/**
 * Pure planning of one extraction pass: conversation messages packed into segments of at most `maxChars` rendered
 * characters, at most `chunksPerPass` segments per pass, and the seq the cursor moves to afterwards.
 *
 * Rules, in the order they apply:
 * - Characters are UTF-16 code units of the rendered segment (`renderForModel`), role labels and separators included.
 * - Messages are packed greedily in order; a message that fits a segment is never split.
 * - A message is the cursor's unit: a pass reads a message completely or not at all, so `coveredEndSeq` is always
 *   the seq of a message the pass did not read (or the range end).
 * - A message longer than one segment (oversized) is split into pieces that keep its role, seq and turn; it starts
 *   a new segment and each piece fills one. Its pieces go into one pass: if they do not fit the pass's remaining
 *   segments, the pass stops in front of it, and the next pass starts with it. When it is the first message of a
 *   pass, all its pieces are read even beyond `chunksPerPass`, so one oversized message can never stall the cursor.
 * - Pieces are cut at a paragraph break, else a line break, else a sentence end, else a clause mark or word gap,
 *   else between two CJK characters, and only as a last resort at the limit; a cut never splits a surrogate pair or
 *   separates a combining mark from its base. A boundary is used only when it keeps the piece at least half full.
 */
import { renderForModel, renderMessage, roleLabel } from './snapshot.ts'
import type { ConversationMessage, PassPlan, Segment } from './types.ts'
import { hasCjk } from '../text/tokenize.ts'

/** How one pass is cut. */
export interface PassOptions {
  /** Rendered characters per segment (`extractMaxChars`). */
  readonly maxChars: number
  /** Segments per pass (`extractChunksPerPass`, 1-4). */
  readonly chunksPerPass: number
  /** The range's exclusive end (the snapshot's `endSeq`): where the cursor goes when every message is read. */
  readonly endSeq: number
}

/** Cut points, strongest first: paragraph, line, sentence end, clause mark or word gap. A cut falls after the match. */
const BOUNDARIES: readonly RegExp[] = [
  /\n[ \t]*\n\s*/gu,
  /\n/gu,
  /[.!?…]+["'’”)\]]*\s+|[。！？]+[”’」』）]*/gu,
  /[，、；：]|\s+/gu,
]

/** Characters that belong to the character before them. */
const CLUSTER_CONTINUATION = /\p{M}|\u200D|\uFE0E|\uFE0F/u

/** Between the rendered messages of a segment. */
const SEPARATOR_CHARS = 2

/**
 * The text of a pass as the run log keeps it: its segments, each sent in its own call, between blank lines.
 * @param segments - the pass's segments.
 * @returns the text to record.
 */
export function loggedText(segments: readonly Segment[]): string {
  return segments.map((segment) => segment.text).join('\n\n')
}

/**
 * Plan one pass over the messages of a snapshot (see the module rules).
 * @param messages - the snapshot's messages, in seq order.
 * @param options - segment size, segments per pass and the range end.
 * @returns the segments to send, the cursor after the pass and whether messages were left over.
 */
export function planPass(messages: readonly ConversationMessage[], options: PassOptions): PassPlan {
  const limit = Math.max(1, Math.floor(options.chunksPerPass))
  const full: ConversationMessage[][] = []
  let current: ConversationMessage[] = []
  let currentChars = 0
  const opened = (): number => full.length + (current.length > 0 ? 1 : 0)
  const finish = (coveredEndSeq: number, remaining: boolean): PassPlan => {
    if (current.length > 0) full.push(current)
    return { segments: full.map(toSegment), coveredEndSeq, remaining }
  }

  for (const message of messages) {
    const chars = renderedChars(message)
    if (chars <= options.maxChars) {
      if (current.length > 0 && currentChars + SEPARATOR_CHARS + chars <= options.maxChars) {
        current.push(message)
        currentChars += SEPARATOR_CHARS + chars
        continue
      }
      if (opened() >= limit) return finish(message.seq, true)
      if (current.length > 0) full.push(current)
      current = [message]
      currentChars = chars
      continue
    }
    const pieces = splitText(message.text, Math.max(1, options.maxChars - roleLabel(message.role).length - 1))
      .filter((piece) => piece.trim() !== '')
      .map((piece) => ({ ...message, text: piece }))
    if (opened() > 0 && opened() + pieces.length > limit) return finish(message.seq, true)
    if (current.length > 0) full.push(current)
    const last = pieces.pop()
    for (const piece of pieces) full.push([piece])
    current = last === undefined ? [] : [last]
    currentChars = last === undefined ? 0 : renderedChars(last)
  }
  return finish(options.endSeq, false)
}

/**
 * Split text into consecutive pieces of at most `budget` UTF-16 code units at the best boundary available.
 * The pieces concatenate back to the text exactly. A piece exceeds the budget only when one character (a surrogate
 * pair, or a base with its combining marks) is longer than the budget itself.
 * @param text - the text to split.
 * @param budget - the most code units per piece (at least 1).
 * @returns the pieces (`[text]` when it fits; `[]` for empty text).
 */
export function splitText(text: string, budget: number): string[] {
  if (text === '') return []
  const size = Math.max(1, Math.floor(budget))
  const pieces: string[] = []
  let start = 0
  while (text.length - start > size) {
    const cut = cutPoint(text, start, size)
    pieces.push(text.slice(start, cut))
    start = cut
  }
  if (start < text.length) pieces.push(text.slice(start))
  return pieces
}

/** Where the piece starting at `start` ends: the best boundary at least half-way into the budget. */
function cutPoint(text: string, start: number, size: number): number {
  const end = start + size
  const lowest = start + Math.max(1, Math.floor(size / 2))
  const window = text.slice(start, end)
  for (const boundary of BOUNDARIES) {
    let best = -1
    for (const match of window.matchAll(boundary)) {
      const cut = start + match.index + match[0].length
      if (cut >= lowest && cut <= end && !splitsCluster(text, cut)) best = cut
    }
    if (best !== -1) return best
  }
  for (let cut = end; cut >= lowest; cut -= 1) {
    if (isCjk(text[cut - 1]) && isCjk(text[cut]) && !splitsCluster(text, cut)) return cut
  }
  for (let cut = end; cut > start; cut -= 1) {
    if (!splitsCluster(text, cut)) return cut
  }
  // One character longer than the budget (a surrogate pair, or a base with its marks): take it whole.
  for (let cut = end + 1; cut < text.length; cut += 1) {
    if (!splitsCluster(text, cut)) return cut
  }
  return text.length
}

/** Whether cutting before index `cut` would split a surrogate pair or strip a combining mark from its base. */
function splitsCluster(text: string, cut: number): boolean {
  const before = text.charCodeAt(cut - 1)
  const after = text.charCodeAt(cut)
  if (before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff) return true
  const next = text[cut]
  return next !== undefined && CLUSTER_CONTINUATION.test(next)
}

/** Whether a character is written without spaces, so that a cut between two of them splits no word. */
function isCjk(char: string | undefined): boolean {
  return char !== undefined && hasCjk(char)
}

function renderedChars(message: ConversationMessage): number {
  return renderMessage(message.role, message.text).length
}

function toSegment(messages: readonly ConversationMessage[]): Segment {
  return { messages, text: renderForModel(messages) }
}
