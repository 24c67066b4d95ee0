/**
 * The session-pause verb: pause or resume memory in one conversation (the session header's "Pause in this
 * session"). While paused the conversation gets no capture, no extraction, no per-turn recall and no directory, and
 * the memory tools answer that memory is paused; the model is told once, in one line, on its next step. Not fenced:
 * it changes no fact, card or conflict (bookkeeping, the generation stays), and asking for the state a session is
 * already in changes nothing. Pausing first starts the session's waiting extraction, so the turns before the pause
 * are still read.
 */
import { ok, verb } from './verb.ts'

export const sessionPauseVerb = verb('session-pause', {
  run(body, context) {
    if (body.paused) context.extraction?.settleBeforePause(body.sessionId)
    const changed = context.stores.pauses.set(body.sessionId, body.paused, context.now())
    return ok({ sessionId: body.sessionId, paused: body.paused, changed })
  },
})
