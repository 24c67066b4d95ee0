/**
 * One headless conversation at a time against the real DSH rc.8 host: a throwaway DSH home with the plugin linked,
 * the scripted fake model on loopback, and what the model received read back (its tool results, its last request,
 * the directory in the runtime context). Shared by the host end-to-end specs.
 */
import assert from 'node:assert/strict'
import { systemClock } from '../../src/clock.ts'
import type { ResolvedConfig } from '../../src/config.ts'
import { FactMemory } from '../../src/fact-memory.ts'
import { createDshHome, runHeadless, type DshHome } from './dsh-host.ts'
import { FakeModel, messageText, type ChatMessage, type ScriptStep } from './fake-model.ts'
import { makeConfig } from './store.ts'

/** A fake model and a DSH home, for as many conversations as a spec runs. */
export interface HeadlessConversations {
  readonly model: FakeModel
  readonly home: DshHome
  /** One headless conversation: the user's prompt, the scripted model steps; returns every message the model saw. */
  converse(prompt: string, ...steps: ScriptStep[]): Promise<{ toolResults: string[]; lastRequest: readonly ChatMessage[] }>
  /** The same conversation run in another working directory (the session's cwd). */
  converseIn(cwd: string, prompt: string, ...steps: ScriptStep[]): Promise<{ toolResults: string[]; lastRequest: readonly ChatMessage[] }>
  /** Stop the model and remove the home. */
  close(): Promise<void>
}

/**
 * Start a fake model and create a DSH home.
 * @returns the conversations' harness.
 */
export async function startConversations(): Promise<HeadlessConversations> {
  const model = await FakeModel.start()
  const home = createDshHome()
  const converseIn: HeadlessConversations['converseIn'] = async (cwd, prompt, ...steps) => {
    model.reset()
    model.enqueue(...steps)
    const run = await runHeadless(home, model.url, prompt, undefined, cwd)
    assert.equal(run.code, 0, `dsh exited with ${run.code}:\n${run.stderr}`)
    const lastRequest = model.agentRequests().at(-1)?.body.messages ?? []
    return { toolResults: lastRequest.filter((message) => message.role === 'tool').map(messageText), lastRequest }
  }
  return {
    model,
    home,
    converse: (prompt, ...steps) => converseIn(home.workspace, prompt, ...steps),
    converseIn,
    async close() {
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
export const toolCall = (name: string) => (args: Record<string, unknown>): ScriptStep => ({ toolCalls: [{ name, arguments: args }] })
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
  const snapshots = messages.filter((message) => message.role === 'user').map(messageText)
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
  return messages.filter((message) => message.role === 'user').map(messageText)
    .filter((text) => text.startsWith('Current runtime context.')).at(-1) ?? ''
}
