/**
 * The per-request contributions, as host-shaped values: the directory context provider, the pre-step notice and the
 * pre-step recall block. Each reads the live configuration at call time and fails closed (no text) rather than fail
 * the request.
 */
import { randomUUID } from 'node:crypto'
import { CHARS_PER_TOKEN, DIRECTORY_CONTEXT_NAME } from './directory.ts'
import type { HistoryView, NoticeMessage, PreStepPayload, RecallMessage, SessionView } from './host/ports.ts'
import { projectOfSession } from './project/project-locator.ts'
import { isSubagentSession, NOTICE_PLUGIN, NOTICE_SUMMARY, noticeText, shouldNotice, userTextOf } from './notice.ts'
import { sessionPaused, takeUntoldPauseLine } from './pause/session-pause.ts'
import type { MemoryRuntime } from './runtime.ts'

/** Context order: after the host's own policy contexts (110-120). */
export const DIRECTORY_CONTEXT_ORDER = 500

/** What the host hands a context provider for one assembly, as far as the directory reads it. */
export interface DirectoryAssembly {
  /** The agent of an agent assembly; absent on diagnostics. */
  readonly agent?: { readonly session: SessionView } | undefined
}

/**
 * The directory as a runtime-context registration: for an agent assembly it lists that session's project's facts
 * beside the global ones; without an agent (or a working directory) no project's; in a session the user paused memory
 * in, nothing.
 * @param runtime - the live plugin state.
 * @returns the context definition.
 */
export function directoryContext(runtime: MemoryRuntime): {
  name: string
  order: number
  text: (c?: DirectoryAssembly) => string
} {
  return {
    name: DIRECTORY_CONTEXT_NAME,
    order: DIRECTORY_CONTEXT_ORDER,
    text: (c) =>
      sessionPaused(runtime.memory, c?.agent?.session)
        ? ''
        : runtime.memory.directory(runtime.config(), projectOfSession(c?.agent?.session)),
  }
}

/**
 * The notice for this step, when one is due: the session's first, or a turn whose user text mentions memory.
 * Steps without user input never get one, so a notice cannot keep a finished turn running.
 * @param runtime - the live plugin state.
 * @param payload - the pre-step payload.
 * @returns the message to append, or undefined.
 */
export function noticeFor(runtime: MemoryRuntime, payload: PreStepPayload): NoticeMessage | undefined {
  const config = runtime.config()
  if (!config.enabled || !runtime.memory.available) return undefined
  const pause = pauseNoticeFor(runtime, payload)
  if (pause !== 'none') return pause
  if (!config.injectReminder || config.reminderBudgetTokens === 0) return undefined
  const userText = userTextOf(payload.messages)
  if (userText.trim() === '' || !shouldNotice(payload.agent.session, payload.step, userText)) return undefined
  const text = noticeText(config.reminderBudgetTokens * CHARS_PER_TOKEN)
  if (text === '') return undefined
  return {
    id: randomUUID(),
    role: 'user',
    content: [{ type: 'text', text }],
    source: { kind: 'plugin', plugin: NOTICE_PLUGIN, form: 'notice', summary: NOTICE_SUMMARY },
  }
}

/**
 * While memory is paused in the session, the one line that says so (once, on a step with user text), and nothing
 * after it; once resumed, the one line that says memory is back. 'none' when the pause has nothing to say and the
 * usual notice rules apply.
 */
function pauseNoticeFor(runtime: MemoryRuntime, payload: PreStepPayload): NoticeMessage | undefined | 'none' {
  const session = payload.agent.session
  const paused = sessionPaused(runtime.memory, session)
  if (isSubagentSession(session) || userTextOf(payload.messages).trim() === '') return paused ? undefined : 'none'
  const line = takeUntoldPauseLine(runtime.memory, session.id)
  if (line !== undefined) {
    return {
      id: randomUUID(),
      role: 'user',
      content: [{ type: 'text', text: line.text }],
      source: { kind: 'plugin', plugin: NOTICE_PLUGIN, form: 'notice', summary: line.summary },
    }
  }
  return paused ? undefined : 'none'
}

/**
 * The recall block for this step, when the step carries new user text in a root session: the stored facts that match
 * it and the directory does not show, as a message of their own after the user's. It rides with the turn's own
 * messages, so everything before the user's message stays as it was.
 * @param runtime - the live plugin state.
 * @param payload - the pre-step payload.
 * @returns the message to append, or undefined.
 */
export async function recallMessageFor(
  runtime: MemoryRuntime,
  payload: PreStepPayload,
): Promise<RecallMessage | undefined> {
  const config = runtime.current()
  if (config === undefined || !config.enabled || config.recallBudgetTokens === 0 || !runtime.memory.available)
    return undefined
  const session = payload.agent.session
  if (isSubagentSession(session) || sessionPaused(runtime.memory, session)) return undefined
  const text = userTextOf(payload.messages)
  if (text.trim() === '') return undefined
  const id = randomUUID()
  const answer = await runtime.memory.recall(
    {
      text,
      sessionId: session.id,
      turn: payload.turn,
      messageId: id,
      inView: recallMessagesInView(session),
      project: projectOfSession(session),
    },
    config,
  )
  if (answer.kind !== 'recalled') return undefined
  return {
    id,
    role: 'user',
    content: [{ type: 'text', text: answer.text }],
    source: { kind: 'plugin', plugin: NOTICE_PLUGIN, form: 'recall' },
  }
}

/**
 * The ids of this plugin's recall messages in a session's current model history (a compaction may have dropped some).
 * @param session - the live session.
 * @returns message ids; none when the history cannot be read.
 */
function recallMessagesInView(session: HistoryView): string[] {
  try {
    return session.deriveMessages().flatMap((message) => {
      const source = message.source as { kind?: unknown; plugin?: unknown; form?: unknown } | undefined
      return source?.kind === 'plugin' && source.plugin === NOTICE_PLUGIN && source.form === 'recall'
        ? [message.id]
        : []
    })
  } catch {
    return []
  }
}
