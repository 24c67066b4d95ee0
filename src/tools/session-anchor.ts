/** Pure reads of a live session for the tools: which turn a call belongs to, and whether the user said something. */
import type { AgentView, SessionView } from '../host/ports.ts'
import { userTextOfSession } from '../notice.ts'
import type { Anchor } from '../types.ts'

/**
 * Where a tool call happens: the session and the turn whose `turn/start` came last.
 * @param agent - the calling agent, when the host supplies one.
 * @returns the anchor, or undefined outside a session.
 */
export function anchorOf(agent: AgentView | undefined): Anchor | undefined {
  if (agent === undefined) return undefined
  const events = agent.session.events
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index]
    if (event?.type === 'turn/start') {
      const turn = (event.data as { turn?: unknown }).turn
      return { sessionId: agent.session.id, turn: typeof turn === 'number' ? turn : null }
    }
  }
  return { sessionId: agent.session.id, turn: null }
}

/**
 * Whether the user's own messages in this session contain `text`, ignoring case, spacing and punctuation.
 * @param session - the session, or undefined outside one.
 * @param text - a quote or a value.
 * @returns true when the user said it.
 */
export function userSaid(session: SessionView | undefined, text: string): boolean {
  if (session === undefined) return false
  const needle = squash(text)
  if (needle.length < 2) return false
  return squash(userTextOfSession(session)).includes(needle)
}

function squash(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '')
}
