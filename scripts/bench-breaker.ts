/**
 * A dead embedding endpoint and the breaker (`npm run bench -- --only breaker`): per-turn recall (`FactMemory.recall`,
 * the pre-step hook's work) and memory_search (`FactMemory.search`) timed turn by turn on the speed part's synthetic
 * corpus, the embedding channel pointed at the tests' fake endpoint on loopback. Four runs over one store: the lexical
 * channels alone (no embedding channel), a working endpoint, then an endpoint that never answers, first with the
 * breaker off (every call waits out its budget: the recall deadline, 600 ms, then the query embedding's 800 ms) and then
 * with it on as the plugin ships it. Each turn is one recall of a user message followed by one search, as a turn
 * whose model calls memory_search; the turns after the breaker opened are the ones the fake received no call in.
 * A benchmark, not a test: nothing here passes or fails.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { systemClock } from '../src/clock.ts'
import { configWith, resolveConfig, type ResolvedConfig } from '../src/config.ts'
import { FactMemory } from '../src/fact-memory.ts'
import { queryGuards, type QueryGuardOptions } from '../src/semantic/query-guards.ts'
import { semanticLegs, type EndpointAccess } from '../src/semantic/search-legs.ts'
import { VectorIndex } from '../src/semantic/vector-index.ts'
import { startFakeSemantic, type FakeSemantic } from '../tests/helpers/fake-semantic.ts'
import { makeCorpus, mulberry32, seedStore } from './bench-corpus.ts'
import { recallMessages } from './bench-recall.ts'
import { percentiles, type Percentiles } from './bench-stats.ts'
import { sweepVectors } from './bench-vector-sweep.ts'

/** Library size. */
const FACTS = 10_000
/** Turns per run. */
const TURNS = 30
/** The fake's delay when the endpoint hangs: longer than any budget. */
const HANG_MS = 600_000

/** One run's timings. */
export interface BreakerRun {
  readonly run: string
  readonly turns: number
  /** Turns in which the fake received at least one embedding request. */
  readonly turnsCallingEndpoint: number
  readonly recallMs: Percentiles
  readonly searchMs: Percentiles
  /** Over the turns that made no call (the breaker skipped the endpoint); null when every turn called it. */
  readonly skippedTurns: { readonly recallMs: Percentiles; readonly searchMs: Percentiles } | null
}

/** What the bench measured. */
export interface BreakerBench {
  readonly facts: number
  readonly embeddingDim: number
  readonly recallTimeoutMs: number
  readonly queryTimeoutMs: number
  readonly runs: readonly BreakerRun[]
}

/**
 * Run the bench and print its table.
 * @returns the figures, for the JSON.
 */
export async function breakerBench(): Promise<BreakerBench> {
  const dir = mkdtempSync(join(tmpdir(), 'fact-memory-breaker-'))
  const fake = await startFakeSemantic({ dim: 256 })
  try {
    process.stdout.write(`breaker: seeding ${FACTS} facts… `)
    const corpus = makeCorpus(FACTS, mulberry32(FACTS))
    const lexical = resolveConfig(configWith({ dataDir: dir }), { dshHome: dir, userHome: dir })
    seedStore(dir, corpus.facts, systemClock, lexical)
    const semantic = resolveConfig(
      configWith({
        dataDir: dir,
        embeddingSource: 'openai',
        embeddingBaseUrl: `${fake.url}/v1`,
        embeddingModel: 'fake-embed-bench',
      }),
      { dshHome: dir, userHome: dir },
    )
    await sweepOnce(dir, semantic)
    console.log('done')
    const messages = recallMessages(corpus, mulberry32(FACTS + 1)).map((message) => message.text)
    // A turn's message, and the short query a model would search with: a stored subject and property.
    const turns = Array.from({ length: TURNS }, (_, index) => {
      const fact = corpus.facts[(index * 331) % corpus.facts.length]
      return {
        message: messages[(index * 7) % messages.length] ?? '',
        query: `${fact?.subject ?? ''} ${fact?.property ?? ''}`,
      }
    })
    const runs: BreakerRun[] = []
    const measure = async (
      run: string,
      config: ResolvedConfig,
      options: QueryGuardOptions,
      hang: boolean,
    ): Promise<void> => {
      process.stdout.write(`breaker: ${run}… `)
      fake.reset()
      fake.script.embedDelayMs = hang ? HANG_MS : 0
      runs.push(await timeTurns(run, dir, config, options, turns, fake))
      console.log('done')
    }
    await measure('lexical channels only (no embedding channel)', lexical, {}, false)
    await measure('working endpoint, breaker on', semantic, {}, false)
    await measure('hanging endpoint, breaker off (before)', semantic, { breaker: 'off' }, true)
    await measure('hanging endpoint, breaker on (after)', semantic, {}, true)
    const bench: BreakerBench = {
      facts: FACTS,
      embeddingDim: 256,
      recallTimeoutMs: semantic.recallTimeoutMs,
      queryTimeoutMs: semantic.queryTimeoutMs,
      runs,
    }
    printBreaker(bench)
    return bench
  } finally {
    await fake.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Give the store vectors of the bench's fingerprint, so the vector leg asks the endpoint for every query. */
async function sweepOnce(dir: string, config: ResolvedConfig): Promise<void> {
  const memory = new FactMemory({ clock: systemClock })
  memory.open(dir)
  try {
    const access: EndpointAccess = { key: async () => undefined, fetch: globalThis.fetch, now: () => Date.now() }
    await sweepVectors(memory, config, access, 'breaker bench')
  } finally {
    memory.close()
  }
}

/**
 * One run: a memory with fresh guards, one untimed warm-up search (with a hanging endpoint, the breaker's first
 * failure), then the timed turns.
 */
async function timeTurns(
  run: string,
  dir: string,
  config: ResolvedConfig,
  options: QueryGuardOptions,
  turns: readonly { readonly message: string; readonly query: string }[],
  fake: FakeSemantic,
): Promise<BreakerRun> {
  const access: EndpointAccess = { key: async () => undefined, fetch: globalThis.fetch, now: () => Date.now() }
  const guards = queryGuards(() => Date.now(), options)
  const index = new VectorIndex()
  const memory = new FactMemory({
    clock: systemClock,
    semantic: (current, stores) => semanticLegs(access, index, guards, current, stores),
  })
  memory.open(dir)
  const embeddingCalls = (): number => fake.requests.filter((request) => request.kind === 'embeddings').length
  try {
    // The warm-up compiles the code paths and loads the vectors; with a hanging endpoint it is the breaker's first failure too.
    await memory.search({ query: 'warm-up', limit: 10, asOf: undefined }, config)
    const timed: { recallMs: number; searchMs: number; called: boolean }[] = []
    for (const [turn, { message, query }] of turns.entries()) {
      const before = embeddingCalls()
      let started = performance.now()
      await memory.recall({ text: message, sessionId: 'bench-breaker', turn }, config)
      const recallMs = performance.now() - started
      started = performance.now()
      await memory.search({ query, limit: 10, asOf: undefined }, config)
      timed.push({ recallMs, searchMs: performance.now() - started, called: embeddingCalls() > before })
    }
    const skipped = timed.filter((turn) => !turn.called)
    return {
      run,
      turns: timed.length,
      turnsCallingEndpoint: timed.length - skipped.length,
      recallMs: percentiles(timed.map((turn) => turn.recallMs)),
      searchMs: percentiles(timed.map((turn) => turn.searchMs)),
      skippedTurns:
        skipped.length === 0 || skipped.length === timed.length
          ? null
          : {
              recallMs: percentiles(skipped.map((turn) => turn.recallMs)),
              searchMs: percentiles(skipped.map((turn) => turn.searchMs)),
            },
    }
  } finally {
    memory.close()
  }
}

/** The table. */
function printBreaker(bench: BreakerBench): void {
  console.log(
    `\nA hanging embedding endpoint and the breaker: ${bench.facts} synthetic facts with ${bench.embeddingDim}-d vectors, the fake endpoint on loopback; ` +
      `each turn one per-turn recall (deadline ${bench.recallTimeoutMs} ms) then one memory_search (deadline ${bench.queryTimeoutMs} ms, 800 ms for the query embedding); ms p50 / p95 / max`,
  )
  console.log(
    '| run | turns | turns calling the endpoint | recall | memory_search | recall, turns without a call | memory_search, turns without a call |',
  )
  console.log('|---|---:|---:|---:|---:|---:|---:|')
  const f = (p: Percentiles): string => `${p.p50} / ${p.p95} / ${p.max}`
  for (const row of bench.runs) {
    const skipped = row.skippedTurns
    console.log(
      `| ${row.run} | ${row.turns} | ${row.turnsCallingEndpoint} | ${f(row.recallMs)} | ${f(row.searchMs)} | ${skipped === null ? '-' : f(skipped.recallMs)} | ${skipped === null ? '-' : f(skipped.searchMs)} |`,
    )
  }
}
