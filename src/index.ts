/**
 * dsh-fact-memory: the plugin entry. It declares name, inject and Config, and wires the runtime into the host as
 * labelled effects: the store, the tools, the directory context, the pre-step notice, the management routes (when
 * the host has a web server) and the live settings.
 * Host types are imported for compile-time checking only; nothing from the host is imported at run time.
 */
import { homedir } from 'node:os'
import type { Context } from '@deepseek-ai/cordis'
import type { UserMessage } from '@deepseek-ai/dsh-llm'
import type {} from '@deepseek-ai/dsh-tools'
import type {} from '@deepseek-ai/dsh-system-prompt'
import type {} from '@deepseek-ai/dsh-agent'
import type { SettingsNamespace } from '@deepseek-ai/dsh-settings'
import type {} from '@deepseek-ai/dsh-host-webserver'
import type { CredentialProvider } from '@deepseek-ai/dsh-credentials'
import { systemClock } from './clock.ts'
import { Config } from './config.ts'
import { directoryContext, noticeFor } from './context-hooks.ts'
import { AutoCapture } from './extract/capture.ts'
import { credentialsView } from './host/credentials.ts'
import { extractionModelResolver } from './host/extraction-model.ts'
import type { DefaultModelView, LlmView } from './host/ports.ts'
import { ROUTE_PREFIX } from './routes/http.ts'
import { managementHandler } from './routes/mount.ts'
import { MemoryRuntime } from './runtime.ts'
import { memoryForgetTool } from './tools/memory-forget.ts'
import { memorySearchTool, type ToolDeps } from './tools/memory-search.ts'
import { memoryWriteTool } from './tools/memory-write.ts'

export { Config }

/** The plugin name; also the settings namespace and the notice's source. */
export const name = 'dsh-fact-memory'

/** How long unloading waits for extraction passes it flushed. */
const FLUSH_WAIT_MS = 15_000

/** Required services: both ship in dsh-base. Everything optional is reached through `ctx.inject` / `ctx.get`. */
export const inject = ['tools', 'systemPrompt']

/**
 * Apply the plugin.
 * @param ctx - the plugin's context.
 * @param config - the validated composition config.
 */
export function apply(ctx: Context, config: Config): void {
  const logger = ctx.logger('fact-memory')
  const runtime: MemoryRuntime = new MemoryRuntime({
    clock: systemClock,
    home: () => ({ dshHome: process.env['DSH_HOME'], userHome: homedir() }),
    logger,
    registerTools: () => {
      const deps: ToolDeps = { memory: runtime.memory, config: () => runtime.config() }
      const disposers = [memorySearchTool(deps), memoryWriteTool(deps), memoryForgetTool(deps)].map((tool) => ctx.tools.register(tool))
      return () => { for (const dispose of disposers) dispose() }
    },
  })

  const capture = new AutoCapture({
    clock: systemClock,
    logger,
    memory: runtime.memory,
    config: () => runtime.current(),
    model: extractionModelResolver({
      llm: () => ctx.get('llm') as LlmView | undefined,
      defaultModel: () => ctx.get('agentDefaultModel') as DefaultModelView | undefined,
      credentials: () => ctx.get('credentials') as CredentialProvider | undefined,
      fetch: globalThis.fetch,
    }),
  })

  ctx.effect(() => {
    runtime.reconfigure(config)
    return () => runtime.stop()
  }, 'fact-memory: store, tools and maintenance timer')

  ctx.effect(() => ctx.systemPrompt.context(directoryContext(runtime)), 'fact-memory: directory context')

  // Registered after the store effect, so it is disposed first: passes still waiting are flushed while the store is open.
  ctx.effect(() => {
    const off = ctx.on('session/event', (session, event) => capture.onEvent(session, event))
    return async () => {
      off()
      capture.flush()
      let timer: NodeJS.Timeout | undefined
      await Promise.race([capture.queue.idle(), new Promise((resolve) => { timer = setTimeout(resolve, FLUSH_WAIT_MS).unref() })])
      clearTimeout(timer)
      capture.stop()
    }
  }, 'fact-memory: automatic capture')

  ctx.effect(() => ctx.on('agent/pre-step', async (payload, next) => {
    const decision = await next()
    if (decision.kind !== 'enter') return decision
    const notice = noticeFor(runtime, payload)
    // Brand cast point: the notice is a plain user message; MessageId is a host brand over a string id.
    return notice === undefined ? decision : { kind: 'enter', messages: [...decision.messages, notice as unknown as UserMessage] }
  }, { prepend: true }), 'fact-memory: pre-step notice')

  ctx.inject(['webServer'], (webCtx) => {
    const handler = managementHandler(runtime, systemClock, () => credentialsView(ctx.get('credentials') as CredentialProvider | undefined), capture)
    webCtx.effect(() => webCtx.webServer.register({ kind: 'prefix', path: ROUTE_PREFIX, handler }), 'fact-memory: management routes')
  })

  ctx.inject(['settings'], (settingsCtx) => {
    const scope = settingsCtx.settings.register(name as SettingsNamespace, Config, { base: config })
    runtime.reconfigure(scope.get())
    settingsCtx.effect(() => scope.watch((next) => runtime.reconfigure(next)), 'fact-memory: live settings')
  })
}

