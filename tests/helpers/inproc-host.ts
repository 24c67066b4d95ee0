/**
 * The real rc.8 agent services mounted in a bare Cordis context with a scripted model adapter, for tests that need
 * to look inside the host (registered tools, assembled contexts, disposal) rather than at its HTTP surface.
 */
import { Context } from '@deepseek-ai/cordis'
import AgentRegistry, { type Agent } from '@deepseek-ai/dsh-agent'
import AgentLoop from '@deepseek-ai/dsh-agent-loop'
import LlmRuntime, { LlmAdapter, createUserMessage, type GenerateOptions, type StreamChunk } from '@deepseek-ai/dsh-llm'
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session'
import SystemPrompt from '@deepseek-ai/dsh-system-prompt'
import ToolRuntime from '@deepseek-ai/dsh-tools'

/** One scripted model step. */
export type InprocStep =
  | { readonly text: string }
  | { readonly call: { readonly name: string; readonly args: unknown } }

/** A scripted adapter: agent steps consume the script, anything else answers "ok". */
export class ScriptedAdapter extends LlmAdapter {
  readonly requests: GenerateOptions[] = []
  readonly script: InprocStep[] = []

  override async *stream(options: GenerateOptions): AsyncIterable<StreamChunk> {
    this.requests.push(options)
    const step = (options.tools?.length ?? 0) > 0 ? (this.script.shift() ?? { text: 'done' }) : { text: 'ok' }
    if ('text' in step) {
      yield { type: 'block-start', index: 0, blockType: 'text' } as StreamChunk
      yield { type: 'text-delta', index: 0, text: step.text } as StreamChunk
      yield { type: 'block-end', index: 0, block: { type: 'text', text: step.text } } as StreamChunk
      yield { type: 'finish', reason: { kind: 'stop' } } as StreamChunk
      return
    }
    const args = JSON.stringify(step.call.args)
    const id = `call-${this.requests.length}`
    yield { type: 'block-start', index: 0, blockType: 'tool-call' } as StreamChunk
    yield { type: 'tool-call-delta', index: 0, id, name: step.call.name, argumentsDelta: args } as StreamChunk
    yield {
      type: 'block-end',
      index: 0,
      block: { type: 'tool-call', id, name: step.call.name, arguments: args },
    } as StreamChunk
    yield { type: 'finish', reason: { kind: 'tool-calls' } } as StreamChunk
  }
}

/** A mounted in-process host. */
export interface InprocHost {
  readonly ctx: Context
  readonly adapter: ScriptedAdapter
  /** Create a live agent (a session) with optional subagent header fields. */
  agent(sessionId: string, meta?: { origin?: 'subagent'; delegationDepth?: number }): Promise<Agent>
  /** Send one user turn to an agent and wait until it is idle again. */
  say(agent: Agent, text: string): Promise<void>
  dispose(): Promise<void>
}

/**
 * Mount the real services.
 * @returns the host.
 */
export async function startInprocHost(): Promise<InprocHost> {
  const ctx = new Context()
  await ctx.plugin(LlmRuntime)
  await ctx.plugin(SessionStore)
  await ctx.plugin(SystemPrompt, {})
  await ctx.plugin(ToolRuntime, {})
  await ctx.plugin(AgentRegistry)
  await ctx.plugin(AgentLoop, { agents: [] })
  const adapter = new ScriptedAdapter()
  ctx.llm.registerAdapter(['mock'], adapter)
  return {
    ctx,
    adapter,
    async agent(sessionId, meta) {
      const handle = await ctx.agentLoop.createAgent(ctx, {
        sessionId: SessionId(sessionId),
        agentOptions: { provider: 'mock', model: 'mock' },
        ...(meta === undefined ? {} : { meta }),
      })
      return handle.agent
    },
    async say(agent, text) {
      agent.followup(createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } }))
      await agent.whenIdle()
    },
    async dispose() {
      await ctx.fiber.dispose()
    },
  }
}
