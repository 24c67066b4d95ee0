/**
 * One headless conversation at a time against the real DSH rc.8 host: a throwaway DSH home with the plugin linked,
 * the scripted fake model on loopback, and what the model received read back (its tool results, its last request,
 * the directory in the runtime context). Shared by the host end-to-end specs. Conversations that need no host of
 * their own can share one: between shareHost() and endSharedHost() each is a new session on one web host.
 */
import assert from 'node:assert/strict'
import { systemClock } from '../../src/clock.ts'
import type { ResolvedConfig } from '../../src/config.ts'
import { FactMemory } from '../../src/fact-memory.ts'
import { createDshHome, runHeadless, startWebHost, type DshHome, type WebHost } from './dsh-host.ts'
import { promptSession } from './fact-memory-web.ts'
import { FakeModel, messageText, type ChatMessage, type ScriptStep } from './fake-model.ts'
import { makeConfig } from './store.ts'

/** A fake model and a DSH home, for as many conversations as a spec runs. */
export interface HeadlessConversations {
  readonly model: FakeModel
  readonly home: DshHome
  /** One headless conversation: the user's prompt, the scripted model steps; returns every message the model saw. */
  converse(
    prompt: string,
    ...steps: ScriptStep[]
  ): Promise<{ toolResults: string[]; lastRequest: readonly ChatMessage[] }>
  /** The same conversation run in another working directory (the session's cwd). */
  converseIn(
    cwd: string,
    prompt: string,
    ...steps: ScriptStep[]
  ): Promise<{ toolResults: string[]; lastRequest: readonly ChatMessage[] }>
  /**
   * Boot one web host in the home; until endSharedHost, each conversation is a new session on it instead of a
   * headless host booted for it alone. For conversations that need no isolation from each other: no profile patch
   * between them (the web host reads its own profile), no restart in between.
   */
  shareHost(): Promise<void>
  /** Stop the shared host; conversations boot their own headless host again. */
  endSharedHost(): Promise<void>
  /** Stop the shared host and the model, and remove the home. */
  close(): Promise<void>
}

/**
 * Start a fake model and create a DSH home.
 * @returns the conversations' harness.
 */
export async function startConversations(): Promise<HeadlessConversations> {
  const model = await FakeModel.start()
  const home = createDshHome()
  let shared: WebHost | undefined
  const converseIn: HeadlessConversations['converseIn'] = async (cwd, prompt, ...steps) => {
    if (shared === undefined) {
      model.reset()
      model.enqueue(...steps)
      const run = await runHeadless(home, model.url, prompt, undefined, cwd)
      assert.equal(run.code, 0, `dsh exited with ${run.code}:\n${run.stderr}`)
    } else {
      await promptSession(shared.url, model, cwd, prompt, ...steps)
    }
    const lastRequest = model.agentRequests().at(-1)?.body.messages ?? []
    return { toolResults: lastRequest.filter((message) => message.role === 'tool').map(messageText), lastRequest }
  }
  const endSharedHost = async (): Promise<void> => {
    await shared?.stop()
    shared = undefined
  }
  return {
    model,
    home,
    converse: (prompt, ...steps) => converseIn(home.workspace, prompt, ...steps),
    converseIn,
    async shareHost() {
      shared ??= await startWebHost(home, model.url)
    },
    endSharedHost,
    async close() {
      await endSharedHost()
      await model.close()
      home.remove()
    },
  }
}

/**
 * Write to a home's store before any host boots there: open the store file outside a host, run `work`, close it.
 * @param home - the DSH home whose data directory holds the store.
 * @param work - the writes, given the open memory and the home's configuration.
 */
export function seedStore(home: DshHome, work: (memory: FactMemory, config: ResolvedConfig) => void): void {
  const config = makeConfig(home.home)
  const memory = new FactMemory({ clock: systemClock })
  memory.open(config.resolvedDataDir)
  try {
    work(memory, config)
  } finally {
    memory.close()
  }
}

/** A model step calling one tool. */
export const toolCall =
  (name: string) =>
  (args: Record<string, unknown>): ScriptStep => ({ toolCalls: [{ name, arguments: args }] })
export const write = toolCall('memory_write')
export const search = toolCall('memory_search')
export const forget = toolCall('memory_forget')
/** The model's closing text. */
export const reply: ScriptStep = { text: 'Done.' }

/**
 * The directory as the model last received it: the newest runtime-context message that carries it.
 * @param messages - one request's messages.
 * @returns its text, or '' when none carries it.
 */
export function directoryOf(messages: readonly ChatMessage[]): string {
  const snapshots = messages
    .filter((message) => message.role === 'user')
    .map(messageText)
    .filter((text) => text.startsWith('Current runtime context.') && text.includes('Fact memory:'))
  return snapshots.at(-1) ?? ''
}

/**
 * The newest runtime-context snapshot of one request (each supersedes the earlier ones), whether or not it carries
 * the directory: what the model takes as the context in force.
 * @param messages - one request's messages.
 * @returns its text, or '' when the request carries none.
 */
export function newestRuntimeContext(messages: readonly ChatMessage[]): string {
  return (
    messages
      .filter((message) => message.role === 'user')
      .map(messageText)
      .filter((text) => text.startsWith('Current runtime context.'))
      .at(-1) ?? ''
  )
}
