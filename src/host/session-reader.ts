/**
 * Read a session's durable events by id, for the retry of a parked range: the live session when the host still has
 * it (its own model route included), else the persisted log through the session query service, which replays and
 * validates it without making the session live. A session neither can read is reported, never guessed at.
 */
import { messageOf } from '../errors.ts'
import type { ExtractSessionView, LiveSessionsView, SessionQueryView } from './ports.ts'

/** The host services the reader looks in, each possibly absent. */
export interface SessionSources {
  readonly live: () => LiveSessionsView | undefined
  readonly query: () => SessionQueryView | undefined
}

/** A session as a retry reads it, or why it cannot be read. */
export type SessionRead = ExtractSessionView | { readonly unavailable: string }

/**
 * Build the reader.
 * @param sources - lazy views of `ctx.sessions` and `ctx.sessionQuery`.
 * @returns a function reading one session by id.
 */
export function sessionReader(sources: SessionSources): (sessionId: string) => Promise<SessionRead> {
  return async (sessionId) => {
    const live = sources.live()?.get(sessionId)
    if (live !== undefined) return live
    const query = sources.query()
    if (query === undefined)
      return {
        unavailable: `conversation ${sessionId} is not live and this host offers no session query service to read its log`,
      }
    try {
      const { session, events } = await query.readSession(sessionId)
      // A persisted session has no request header of its own: the model falls back to the default route.
      return { id: session.id, header: session, events, requestHeader: () => undefined }
    } catch (error) {
      return { unavailable: `the log of conversation ${sessionId} could not be read: ${messageOf(error)}` }
    }
  }
}
