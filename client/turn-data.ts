/**
 * The per-turn fold the turn-tail card selects on: the conversation engine hands every session event to this
 * definition, which counts, per turn, the memory_write calls that stored something (outcome saved, conflict or
 * pending). It is derived from durable session events, so it survives a restart; the card's numbers themselves come
 * from the store.
 */
import type { SessionEventLike } from './host.ts'

/** The turn-data key the fold publishes under; the host requires it to equal the definition's kind. */
export const TURN_DATA_KEY = 'fact-memory'

/** What one turn published. */
export interface FactTurnData {
  readonly turn: number
  /** memory_write calls of this turn that stored something. */
  readonly wrote: number
}

interface FoldState {
  readonly turn: number
  readonly memoryCalls: readonly string[]
  readonly wrote: number
}

const WROTE = /^outcome: (?:saved|conflict|pending)\b/u

/** The conversation-node definition registered with the host's conversationEvents service. */
export const factTurnDefinition = {
  kind: TURN_DATA_KEY,
  match(event: SessionEventLike): { id: string; role: 'start' | 'update' } | null {
    const turn = event.data['turn']
    if (typeof turn !== 'number') return null
    if (event.type === 'turn/start') return { id: String(turn), role: 'start' }
    if (event.type === 'tool/call' && event.data['name'] === 'memory_write') return { id: String(turn), role: 'update' }
    // A replacement (compaction pruning an old result) is not a new result: only appended results count.
    if (event.type === 'tool/result' && (event.surfaceOp ?? 'append') === 'append')
      return { id: String(turn), role: 'update' }
    return null
  },
  start(_context: unknown, match: { event: SessionEventLike }): FoldState {
    return { turn: Number(match.event.data['turn']), memoryCalls: [], wrote: 0 }
  },
  update(context: { state: FoldState }, match: { event: SessionEventLike }): FoldState {
    const { state } = context
    const event = match.event
    if (event.type === 'tool/call')
      return { ...state, memoryCalls: [...state.memoryCalls, String(event.data['callId'])] }
    const message = event.data['message'] as
      | { source?: { callId?: unknown }; content?: readonly { content?: unknown; text?: unknown }[] }
      | undefined
    const callId = String(message?.source?.callId ?? '')
    if (!state.memoryCalls.includes(callId)) return state
    // Each call counts once, even if the host ever re-delivers its result.
    const memoryCalls = state.memoryCalls.filter((id) => id !== callId)
    return { ...state, memoryCalls, wrote: state.wrote + (WROTE.test(resultText(message)) ? 1 : 0) }
  },
  buildLocationData(
    context: { state: FoldState | undefined },
    scope: string,
  ): { kind: 'turn'; turn: number; key: string; value: FactTurnData } | null {
    if (scope !== 'turn' || context.state === undefined) return null
    return {
      kind: 'turn',
      turn: context.state.turn,
      key: TURN_DATA_KEY,
      value: { turn: context.state.turn, wrote: context.state.wrote },
    }
  },
}

/** The text of a tool result message (its first block may hold text or nested content). */
function resultText(message: { content?: readonly { content?: unknown; text?: unknown }[] } | undefined): string {
  const block = message?.content?.[0]
  if (typeof block?.text === 'string') return block.text
  if (Array.isArray(block?.content)) {
    return (block.content as { text?: unknown }[])
      .map((part) => (typeof part.text === 'string' ? part.text : ''))
      .join('')
  }
  return ''
}
