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
import { directoryContext, noticeFor, recallMessageFor } from './context-hooks.ts'
import { AutoCapture } from './extract/capture.ts'
import { sessionIdPaused } from './pause/session-pause.ts'
import { credentialsView, resolveCredential, resolveCredentialStrictly } from './host/credentials.ts'
import { maskedLogger } from './host/masked-logger.ts'
import { extractionModelResolver } from './host/extraction-model.ts'
import type { DefaultModelView, LiveSessionsView, LlmView, SessionQueryView } from './host/ports.ts'
import { sessionReader } from './host/session-reader.ts'
import { ROUTE_PREFIX } from './routes/http.ts'
import { managementHandler } from './routes/mount.ts'
import { MemoryRuntime } from './runtime.ts'
import { SweepService } from './review/sweep-service.ts'
import type { OpenStores } from './store/store-set.ts'
import { semanticLegs, type EndpointAccess } from './semantic/search-legs.ts'
import { queryGuards } from './semantic/query-guards.ts'
import { VectorIndex } from './semantic/vector-index.ts'
import { VectorSweepService } from './semantic/vector-sweep-service.ts'
import { VectorWarmup } from './semantic/vector-warmup.ts'
import { vectorSources } from './semantic/review-sources.ts'
import { rerankPort } from './semantic/rerank-port.ts'
import { memoryForgetTool } from './tools/memory-forget.ts'
import { memorySearchTool, type ToolDeps } from './tools/memory-search.ts'
import { memoryWriteTool } from './tools/memory-write.ts'
import { roundHoldIn } from './sync/round-hold.ts'

export { Config }

/** The plugin name; also the settings namespace and the notice's source. */
export const name = 'dsh-fact-memory'

/** How long unloading waits for extraction passes it flushed: under the host's 5 s process shutdown limit. */
const FLUSH_WAIT_MS = 4_000

/** The least sync's last round is given at unload, even when the extraction flush took the whole wait. */
const SYNC_STOP_FLOOR_MS = 500

/** Required services: both ship in dsh-base. Everything optional is reached through `ctx.inject` / `ctx.get`. */
export const inject = ['tools', 'systemPrompt']

/**
 * Apply the plugin.
 * @param ctx - the plugin's context.
 * @param config - the validated composition config.
 */
export function apply(ctx: Context, config: Config): void {
  // Every line the plugin logs reaches the host with its credentials masked.
  const logger = maskedLogger(ctx.logger('fact-memory'))
  const credentialProvider = (): CredentialProvider | undefined =>
    ctx.get('credentials') as CredentialProvider | undefined
  // The semantic channels reach their endpoints with keys resolved per call; nothing is sent while they are off.
  const access: EndpointAccess = {
    key: (name) => resolveCredential(credentialProvider(), name),
    fetch: globalThis.fetch,
    now: () => systemClock.now(),
  }
  const vectorIndex = new VectorIndex()
  // Kept across searches: a dead endpoint is skipped while it cools down, and recent query embeddings are reused.
  const guards = queryGuards(access.now)
  // Test-only: host specs hold a sync round at a point to kill the process there; unset for every user.
  const syncHold = roundHoldIn(process.env['DSH_FACT_MEMORY_SYNC_HOLD'])
  const runtime: MemoryRuntime = new MemoryRuntime({
    store: { semantic: (current, stores) => semanticLegs(access, vectorIndex, guards, current, stores) },
    clock: systemClock,
    resolveCredential: (name) => resolveCredentialStrictly(credentialProvider(), name),
    home: () => ({ dshHome: process.env['DSH_HOME'], userHome: homedir() }),
    ...(syncHold === undefined ? {} : { sync: { hold: syncHold } }),
    logger,
    registerTools: () => {
      const deps: ToolDeps = { memory: runtime.memory, config: () => runtime.config() }
      const disposers = [memorySearchTool(deps), memoryWriteTool(deps), memoryForgetTool(deps)].map((tool) =>
        ctx.tools.register(tool),
      )
      return () => {
        for (const dispose of disposers) dispose()
      }
    },
  })

  // The LLM service as last seen: while the host unloads, its registry no longer answers, yet the passes flushed on
  // unload still need the service they were queued against.
  let lastLlm: LlmView | undefined
  const llm = (): LlmView | undefined => (lastLlm = (ctx.get('llm') as LlmView | undefined) ?? lastLlm)
  const resolveModel = extractionModelResolver({
    llm,
    defaultModel: () => ctx.get('agentDefaultModel') as DefaultModelView | undefined,
    credentials: credentialProvider,
    fetch: globalThis.fetch,
  })
  const capture = new AutoCapture({
    clock: systemClock,
    logger,
    memory: runtime.memory,
    config: () => runtime.current(),
    model: resolveModel,
    paused: (sessionId) => sessionIdPaused(runtime.memory, sessionId),
    session: sessionReader({
      live: () => ctx.get('sessions') as LiveSessionsView | undefined,
      query: () => ctx.get('sessionQuery') as SessionQueryView | undefined,
    }),
  })

  const openStores = (): OpenStores | undefined => {
    const open = runtime.memory.stores()
    return 'stores' in open ? open.stores : undefined
  }
  const review = new SweepService({
    clock: systemClock,
    logger,
    stores: openStores,
    config: () => runtime.current(),
    model: (current) => resolveModel(undefined, current),
    sources: (current, stores) => vectorSources(current, stores),
  })

  const vectors = new VectorSweepService({
    clock: systemClock,
    logger,
    stores: openStores,
    config: () => runtime.current(),
    access,
  })
  runtime.memory.onChange(() => {
    vectors.changed()
  })
  const warmup = new VectorWarmup({ index: vectorIndex, stores: openStores, logger })

  // Cordis disposes a fiber's effects concurrently, not in reverse order: this one disposer owns the order of unloading.
  // Passes still in their merge window start at once and may finish (bounded, inside the host's own 5 s shutdown
  // limit) while the store is still open; only then is the store closed.
  // The review's timer follows the configuration in force: armed while the plugin and the review are on.
  const configure = (next: Config): void => {
    runtime.reconfigure(next)
    review.follow(runtime.current())
    vectors.follow(runtime.current())
    warmup.follow(runtime.current())
  }

  ctx.effect(() => {
    configure(config)
    return async () => {
      await warmup.stop()
      await review.stop()
      // One bounded wait for both flushes: the passes first (they may write facts), then the vectors those writes asked for.
      const until = systemClock.now() + FLUSH_WAIT_MS
      await capture.drain(FLUSH_WAIT_MS)
      // Sync's last round sends what the passes wrote (a one-shot headless run included), beside the vectors' flush.
      const left = (): number => Math.max(0, until - systemClock.now())
      await Promise.all([
        runtime.stopSync(Math.max(left(), SYNC_STOP_FLOOR_MS)),
        vectors.drain(left()).then(() => vectors.stop()),
      ])
      runtime.stop()
    }
  }, "fact-memory: store, tools, maintenance timer, the near-duplicate review and vector sweep timers, the vector index's warm start, sync, and the extraction, vector and sync flushes")

  ctx.effect(() => ctx.systemPrompt.context(directoryContext(runtime)), 'fact-memory: directory context')

  ctx.effect(
    () =>
      ctx.on('session/event', (session, event) => {
        if (event.type === 'turn/end') llm()
        capture.onEvent(session, event)
      }),
    'fact-memory: automatic capture',
  )

  ctx.effect(
    () =>
      ctx.on(
        'agent/pre-step',
        async (payload, next) => {
          const decision = await next()
          if (decision.kind !== 'enter') return decision
          const notice = noticeFor(runtime, payload)
          const recall = await recallMessageFor(runtime, payload)
          const added = [notice, recall].filter((message) => message !== undefined)
          // Brand cast point: both are plain user messages; MessageId is a host brand over a string id.
          return added.length === 0
            ? decision
            : { kind: 'enter', messages: [...decision.messages, ...(added as unknown as UserMessage[])] }
        },
        { prepend: true },
      ),
    'fact-memory: pre-step notice and per-turn recall',
  )

  ctx.inject(['webServer'], (webCtx) => {
    const handler = managementHandler(runtime, systemClock, () => credentialsView(credentialProvider()), {
      extraction: capture,
      review,
      vectors: {
        sweepNow: () => vectors.sweepNow(),
        last: () => vectors.last(),
        held: () => warmup.held(runtime.current()),
      },
      semantic: {
        rerank: () => rerankPort(access, runtime.config()),
        breaker: (channel, fingerprint) => guards[channel].report(fingerprint),
      },
    })
    webCtx.effect(
      () => webCtx.webServer.register({ kind: 'prefix', path: ROUTE_PREFIX, handler }),
      'fact-memory: management routes',
    )
  })

  ctx.inject(['settings'], (settingsCtx) => {
    const scope = settingsCtx.settings.register(name as SettingsNamespace, Config, { base: config })
    configure(scope.get())
    settingsCtx.effect(() => scope.watch((next) => configure(next)), 'fact-memory: live settings')
  })
}
