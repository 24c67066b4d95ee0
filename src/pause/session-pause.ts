/**
 * Whether memory is paused for a live session, as the directory, the notice, recall, capture and the tools ask it:
 * paused when the user paused the session itself or the session it was delegated from. Reads the store's in-memory
 * set, so it costs no query; a closed store pauses nothing.
 */
import type { FactMemory } from '../fact-memory.ts'
import { PAUSED_LINE, PAUSED_SUMMARY, RESUMED_LINE, RESUMED_SUMMARY } from './pause-words.ts'

/** A session as far as the pause reads it. */
export interface PausableSession {
  readonly id: string
  readonly header: { readonly parentSession?: string | undefined }
}

/**
 * Whether memory is paused for a session.
 * @param memory - the store.
 * @param session - the live session, or undefined outside one.
 * @returns true when the session, or its parent, is paused.
 */
export function sessionPaused(memory: FactMemory, session: PausableSession | undefined): boolean {
  if (session === undefined) return false
  const parent = session.header.parentSession
  return sessionIdPaused(memory, session.id) || (typeof parent === 'string' && sessionIdPaused(memory, parent))
}

/**
 * Whether memory is paused in the session of this id (its own pause only).
 * @param memory - the store.
 * @param sessionId - the session id.
 * @returns true when paused.
 */
export function sessionIdPaused(memory: FactMemory, sessionId: string): boolean {
  return memory.pausedIn(sessionId)
}

/**
 * The one line the model has yet to be told about a pause or a resume in this session, marked as told: the next call
 * answers undefined until the user changes the state again.
 * @param memory - the store.
 * @param sessionId - the session id.
 * @returns the line and its short summary, or undefined.
 */
export function takeUntoldPauseLine(
  memory: FactMemory,
  sessionId: string,
): { readonly text: string; readonly summary: string } | undefined {
  const change = memory.takeUntoldPause(sessionId)
  if (change === undefined) return undefined
  return change === 'paused'
    ? { text: PAUSED_LINE, summary: PAUSED_SUMMARY }
    : { text: RESUMED_LINE, summary: RESUMED_SUMMARY }
}
