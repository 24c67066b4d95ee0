/**
 * Pure reading of a session's durable log for extraction: the user's own words and (optionally) the assistant's
 * visible replies in one seq range, and the exact text the model is shown for them.
 */
import type { SessionEventView } from '../host/ports.ts'
import { sha256 } from '../text/normalize.ts'
import { isQuotedContext, isTranscript } from './shape-gate.ts'
import type { ConversationMessage, Snapshot } from './types.ts'

/** What a snapshot reads besides the user's own words. */
export interface SnapshotOptions {
  /** Read the assistant's visible text too (`extractIncludeAssistant`). */
  readonly includeAssistant: boolean
}

/** Separator between the rendered messages, and between the text blocks of one message. */
const BLOCK_SEPARATOR = '\n\n'

/**
 * Take the fixed snapshot one pass works on.
 *
 * Read: `user/message` whose `data.source.kind` is `user` (the rc.8 event data is the UserMessage itself, so its
 * text is `data.content[]` text blocks) and, with `includeAssistant`, `assistant/message` text blocks
 * (`data.message.content[]`). Never read: tool results (`tool/result`, or a user-role message sourced `tool`),
 * plugin-injected notices, runtime context and compaction checkpoints (sourced `plugin`), reasoning, tool calls,
 * images, and any message the shape gate refuses whole: a `USER:` / `ASSISTANT:` transcript, or text quoting injected
 * context (a system reminder, runtime context, this plugin's notice or directory). Messages with no text are left out.
 *
 * @param sessionId - the session the events belong to.
 * @param events - the session's events in seq order (the host guarantees `seq === index`; only order is relied on).
 * @param startSeq - first seq of the range (inclusive).
 * @param endSeq - the seq of the triggering turn/end (exclusive).
 * @param options - whether to read the assistant's replies.
 * @returns the snapshot; `textHash` is the SHA-256 of `renderForModel(messages)` over the whole range.
 */
export function takeSnapshot(
  sessionId: string,
  events: readonly SessionEventView[],
  startSeq: number,
  endSeq: number,
  options: SnapshotOptions,
): Snapshot {
  return snapshotOf(sessionId, startSeq, endSeq, collectMessages(events, startSeq, endSeq, options))
}

/**
 * The part of a snapshot a pass actually read: its messages before `endSeq`, with turns, characters and hash
 * recomputed. With `PassPlan.coveredEndSeq` it gives what to record for a pass that left messages for later.
 * @param snapshot - the snapshot the pass was planned on.
 * @param endSeq - the new exclusive end (at most the snapshot's own).
 * @returns the narrowed snapshot; the same content when nothing is cut off.
 */
export function narrowSnapshot(snapshot: Snapshot, endSeq: number): Snapshot {
  const end = Math.min(endSeq, snapshot.endSeq)
  const messages = snapshot.messages.filter((message) => message.seq < end)
  return snapshotOf(snapshot.sessionId, snapshot.startSeq, end, messages)
}

/**
 * The conversation messages of a seq range, each with the turn it belongs to.
 * A message's turn is its own `data.turn` when the event carries one (assistant messages do), else the turn of the
 * nearest preceding `turn/start`, which may lie before `startSeq`; null when there is none.
 * @param events - the session's events in seq order.
 * @param startSeq - first seq of the range (inclusive).
 * @param endSeq - end of the range (exclusive).
 * @param options - whether to read the assistant's replies.
 * @returns the messages in seq order.
 */
export function collectMessages(
  events: readonly SessionEventView[],
  startSeq: number,
  endSeq: number,
  options: SnapshotOptions,
): ConversationMessage[] {
  const messages: ConversationMessage[] = []
  let turn: number | null = null
  for (const event of events) {
    if (event.seq >= endSeq) break
    if (event.type === 'turn/start') {
      turn = turnOf(event.data) ?? turn
      continue
    }
    if (event.seq < startSeq) continue
    const message = readMessage(event, options)
    if (message === undefined) continue
    const text = message.blocks.join(BLOCK_SEPARATOR)
    if (text.trim() === '' || isTranscript(text) || isQuotedContext(text)) continue
    messages.push({ role: message.role, seq: event.seq, turn: turnOf(event.data) ?? turn, text })
  }
  return messages
}

/**
 * The exact text the model reads for some messages: each message as a `[user]` or `[assistant]` line followed by
 * its text unchanged on the next line, messages separated by a blank line. Message text is never altered, so a
 * quote copied from the rendering is found verbatim in the message it came from. Roles in the rendering are for
 * the model only; which message a quote belongs to is decided locally (see anchor.ts), never from the labels.
 * @param messages - messages or message pieces, in order.
 * @returns the rendered text ('' for no messages).
 */
export function renderForModel(messages: readonly ConversationMessage[]): string {
  return messages.map((message) => renderMessage(message.role, message.text)).join(BLOCK_SEPARATOR)
}

/**
 * One rendered message: its role label line and its text.
 * @param role - the message's role.
 * @param text - the message's (or piece's) text.
 * @returns the rendered block.
 */
export function renderMessage(role: ConversationMessage['role'], text: string): string {
  return `${roleLabel(role)}\n${text}`
}

/**
 * The label line of a role in the rendering.
 * @param role - the message's role.
 * @returns `[user]` or `[assistant]`.
 */
export function roleLabel(role: ConversationMessage['role']): string {
  return `[${role}]`
}

function snapshotOf(
  sessionId: string,
  startSeq: number,
  endSeq: number,
  messages: readonly ConversationMessage[],
): Snapshot {
  const turns = [...new Set(messages.flatMap((message) => (message.turn === null ? [] : [message.turn])))].sort(
    (a, b) => a - b,
  )
  return {
    sessionId,
    startSeq,
    endSeq,
    turns,
    messages,
    chars: messages.reduce((total, message) => total + message.text.length, 0),
    textHash: sha256(renderForModel(messages)),
  }
}

/** The role and text blocks of an event extraction reads, or undefined for every other event. */
function readMessage(
  event: SessionEventView,
  options: SnapshotOptions,
): { readonly role: ConversationMessage['role']; readonly blocks: string[] } | undefined {
  if (event.type === 'user/message') {
    const data = event.data as { readonly source?: { readonly kind?: unknown }; readonly content?: unknown } | null
    return data?.source?.kind === 'user' ? { role: 'user', blocks: textBlocks(data.content) } : undefined
  }
  if (event.type === 'assistant/message' && options.includeAssistant) {
    const data = event.data as { readonly message?: { readonly content?: unknown } } | null
    return { role: 'assistant', blocks: textBlocks(data?.message?.content) }
  }
  return undefined
}

/** The texts of the `text` blocks of a content array; reasoning, tool calls, tool results and images are skipped. */
function textBlocks(content: unknown): string[] {
  if (!Array.isArray(content)) return []
  return content.flatMap((block: unknown) => {
    const candidate = block as { readonly type?: unknown; readonly text?: unknown } | null
    return candidate !== null &&
      candidate.type === 'text' &&
      typeof candidate.text === 'string' &&
      candidate.text.trim() !== ''
      ? [candidate.text]
      : []
  })
}

/** The `turn` field of an event's data, when it is a number. */
function turnOf(data: unknown): number | undefined {
  const turn = (data as { readonly turn?: unknown } | null)?.turn
  return typeof turn === 'number' && Number.isInteger(turn) ? turn : undefined
}
