/**
 * The two per-request contributions, as host-shaped values: the directory context provider and the pre-step
 * notice. Both read the live configuration at call time and fail closed (no text) rather than fail the request.
 */
import { randomUUID } from 'node:crypto'
import { CHARS_PER_TOKEN, DIRECTORY_CONTEXT_NAME } from './directory.ts'
import type { NoticeMessage, PreStepPayload, SessionView } from './host/ports.ts'
import { projectOfSession } from './project/project-locator.ts'
import { NOTICE_PLUGIN, NOTICE_SUMMARY, noticeText, shouldNotice, userTextOf } from './notice.ts'
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
 * beside the global ones; without an agent (or a working directory) no project's.
 * @param runtime - the live plugin state.
 * @returns the context definition.
 */
export function directoryContext(runtime: MemoryRuntime): { name: string; order: number; text: (c?: DirectoryAssembly) => string } {
  return {
    name: DIRECTORY_CONTEXT_NAME,
    order: DIRECTORY_CONTEXT_ORDER,
    text: (c) => runtime.memory.directory(runtime.config(), projectOfSession(c?.agent?.session)),
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
  if (!config.enabled || !config.injectReminder || config.reminderBudgetTokens === 0) return undefined
  if (!runtime.memory.available) return undefined
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
