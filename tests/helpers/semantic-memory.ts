/**
 * A FactMemory with the semantic legs wired as the plugin wires them (src/index.ts), on a real SQLite file and a
 * fake clock, reaching the fake embedding and rerank server on loopback through real fetch. The fetch is counted, so
 * a test can see how many requests were in flight at once; keys come from a map standing in for the host's
 * credential store.
 */
import type { Config, ResolvedConfig } from '../../src/config.ts'
import { FactMemory } from '../../src/fact-memory.ts'
import { queryGuards, type QueryGuards } from '../../src/semantic/query-guards.ts'
import { semanticLegs, type EndpointAccess } from '../../src/semantic/search-legs.ts'
import { VectorIndex } from '../../src/semantic/vector-index.ts'
import { VectorSweepService } from '../../src/semantic/vector-sweep-service.ts'
import { sweepEmbedder, type VectorSweepResult } from '../../src/semantic/vector-sweep-run.ts'
import type { DriverName } from '../../src/store/connection.ts'
import { Database } from '../../src/store/database.ts'
import type { StoreSet } from '../../src/store/store-set.ts'
import { FakeClock } from './fake-clock.ts'
import type { FakeSemantic } from './fake-semantic.ts'
import { makeConfig, removeDir, tempDir } from './store.ts'

/** Facts of four unrelated concepts, in English: the library the semantic specs search. */
export const SEMANTIC_LIBRARY = [
  { subject: 'billing-api', property: 'port', value: '7801' },
  { subject: 'user', property: 'favorite drink', value: 'latte' },
  { subject: 'user', property: 'editor', value: 'Neovim' },
  { subject: 'orders-api', property: 'database', value: 'postgres 16' },
] as const

/** The key the fake endpoints are given (the fake echoes it in scripted failures). */
export const TEST_KEY = 'sk-proj-4fJq9ZxT2mWv8LrN6bYc1HsD'

/**
 * Configuration that points both channels at the fake.
 * @param fake - the running fake.
 * @param channels - which channels to turn on.
 * @returns the overrides.
 */
export function semanticOverrides(
  fake: FakeSemantic,
  channels: { readonly embedding?: boolean; readonly rerank?: boolean } = { embedding: true, rerank: true },
): Partial<Config> {
  return {
    ...(channels.embedding === true
      ? { embeddingSource: 'openai' as const, embeddingBaseUrl: `${fake.url}/v1`, embeddingModel: 'fake-embed-1' }
      : {}),
    ...(channels.rerank === true
      ? { rerankSource: 'json' as const, rerankBaseUrl: `${fake.url}/v1`, rerankModel: 'fake-rerank-1' }
      : {}),
  }
}

/** Real fetch, counting the requests in flight. */
export interface CountingFetch {
  readonly fetch: typeof fetch
  /** The most requests in flight at once so far. */
  readonly maxInFlight: () => number
  /** Forget the maximum. */
  reset(): void
}

/** A counting wrapper around the global fetch. */
export function countingFetch(): CountingFetch {
  let inFlight = 0
  let max = 0
  const counted: typeof fetch = async (input, init) => {
    inFlight += 1
    max = Math.max(max, inFlight)
    try {
      return await fetch(input, init)
    } finally {
      inFlight -= 1
    }
  }
  return {
    fetch: counted,
    maxInFlight: () => max,
    reset: () => {
      max = 0
    },
  }
}

/** An open memory with the semantic legs. */
export interface SemanticMemory {
  readonly memory: FactMemory
  /** The live configuration; replace it with {@link SemanticMemory.reconfigure}. */
  readonly config: ResolvedConfig
  readonly clock: FakeClock
  readonly access: EndpointAccess
  /** The endpoints' breakers and the query-embedding cache, on the fake clock, as the plugin keeps them. */
  readonly guards: QueryGuards
  readonly fetch: CountingFetch
  /** Credentials by name (the host credential store). */
  readonly keys: Map<string, string>
  /** The vector sweep service over this memory (not armed; see `follow`). */
  readonly vectors: VectorSweepService
  readonly driver: DriverName
  stores(): StoreSet
  /** A second connection to the same file for reading rows. */
  db(): Database
  /** One vector sweep now; fails the test when none ran. */
  sweep(): Promise<VectorSweepResult>
  /** Replace the configuration (the overrides given at open are kept underneath). */
  reconfigure(overrides: Partial<Config>): ResolvedConfig
  dispose(): Promise<void>
}

/**
 * Open a memory in a fresh directory with the semantic legs wired.
 * @param driver - the SQLite binding.
 * @param overrides - configuration overrides (see {@link semanticOverrides}).
 * @returns the handle.
 */
export function openSemanticMemory(driver: DriverName, overrides: Partial<Config> = {}): SemanticMemory {
  const root = tempDir()
  const clock = new FakeClock('2026-03-01T09:00:00.000Z')
  let config = makeConfig(root, overrides)
  const keys = new Map<string, string>([
    [config.embeddingApiKeyEnv, TEST_KEY],
    [config.rerankApiKeyEnv, TEST_KEY],
  ])
  const counting = countingFetch()
  const access: EndpointAccess = { key: async (name) => keys.get(name), fetch: counting.fetch, now: () => clock.now() }
  const index = new VectorIndex()
  const guards = queryGuards(() => clock.now())
  const memory = new FactMemory({
    clock,
    driver,
    semantic: (current, stores) => semanticLegs(access, index, guards, current, stores),
  })
  memory.open(config.resolvedDataDir)
  if (!memory.available) {
    removeDir(root)
    throw new Error(`the store did not open: ${memory.status().error?.message ?? '?'}`)
  }
  const stores = (): StoreSet => {
    const opened = memory.storeSet()
    if (!('stores' in opened)) throw new Error(`the store is not open: ${opened.unavailable.message}`)
    return opened.stores
  }
  const vectors = new VectorSweepService({
    clock,
    logger: { warn: () => undefined },
    stores: () => (memory.available ? stores() : undefined),
    config: () => config,
    access,
  })
  let probe: Database | undefined
  return {
    memory,
    get config() {
      return config
    },
    clock,
    access,
    guards,
    fetch: counting,
    keys,
    vectors,
    driver,
    stores,
    db() {
      probe ??= Database.open({ dataDir: config.resolvedDataDir, driver, now: () => clock.iso() })
      return probe
    },
    async sweep() {
      const asked = await vectors.sweepNow()
      if (!asked.ran) throw new Error(`no sweep ran: ${asked.message}`)
      return asked.sweep
    },
    reconfigure(next) {
      config = makeConfig(root, { ...overrides, ...next })
      return config
    },
    async dispose() {
      await vectors.stop()
      probe?.close()
      memory.close()
      removeDir(root)
    },
  }
}

/** The embed function a sweep is given, as the service builds it. */
export const embedWith = sweepEmbedder

/**
 * Let promises and loopback I/O settle: yield until `done` holds, at most `timeoutMs` of real time.
 * @param done - the condition.
 * @param what - named when it never holds.
 * @param timeoutMs - the bound.
 */
export async function settleUntil(done: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/**
 * Give pending callbacks and loopback requests a moment (real time), for asserting that nothing happened.
 * @param ms - how long.
 */
export async function pause(ms = 60): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms))
}
