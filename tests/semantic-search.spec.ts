/**
 * Search with the semantic channels, in process: applyRerank's arithmetic on a pool, then FactMemory.search on a real
 * store (one SQLite binding) against the fake embedding and rerank server on loopback. A Chinese question finds an
 * English fact only through the vector channel; a slow, failing or wrong-dimension embedding degrades to the lexical
 * channels within the budget and the answer says so; an out-of-range rerank is invalidated and the fused order
 * stands; an uncalibrated rerank only orders, and so does one calibrated on the library's proxy pairs (the answer says
 * why), while one calibrated on the user's pairs filters and says how many it left out; nothing
 * sensitive reaches either endpoint and a credential in a query is masked before it leaves; facts hidden from the
 * model never come back through the vector channel; with the defaults nothing is sent and search is the lexical
 * search; the channel line names found current facts that have no vector yet, and only those.
 */
import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Fused } from '../src/retrieval/fuse.ts'
import type { PoolStage } from '../src/retrieval/retrieve.ts'
import { renderSearchText, type SearchValue } from '../src/retrieval/render.ts'
import { applyRerank } from '../src/retrieval/search.ts'
import type { Config } from '../src/config.ts'
import { startFakeSemantic, type FakeSemantic } from './helpers/fake-semantic.ts'
import {
  openSemanticMemory,
  SEMANTIC_LIBRARY,
  semanticOverrides,
  TEST_KEY,
  type SemanticMemory,
} from './helpers/semantic-memory.ts'
import { makeConfig, ONE_DRIVER, removeDir, tempDir, writeFact } from './helpers/store.ts'
import { systemClock } from '../src/clock.ts'
import type { ResolvedConfig } from '../src/config.ts'
import { FactMemory } from '../src/fact-memory.ts'
import { queryGuards } from '../src/semantic/query-guards.ts'
import { semanticLegs, type EndpointAccess } from '../src/semantic/search-legs.ts'
import { embeddingSettings, rerankSettings } from '../src/semantic/settings.ts'
import { VectorIndex } from '../src/semantic/vector-index.ts'
import { runVectorSweep, sweepEmbedder } from '../src/semantic/vector-sweep-run.ts'

/** A pool of fused candidates with these ids, in this order. */
function stageOf(ids: readonly number[], identifierIds: readonly number[] = []): PoolStage {
  const pool: Fused[] = ids.map((id, index) => ({
    id,
    score: 1 / (60 + index + 1),
    channels: ['bm25'],
    bestRank: index + 1,
  }))
  return { channels: ['bm25', 'vector'], skipped: [], pool, identifierIds }
}

describe('applyRerank', () => {
  it('reorders the pool by score, best first; candidates without a score keep their fused order after the scored ones', () => {
    const { stage, filtered } = applyRerank(stageOf([1, 2, 3, 4, 5]), {
      kind: 'ran',
      scores: new Map([
        [3, 0.9],
        [1, 0.2],
        [5, 0.5],
      ]),
      threshold: undefined,
    })
    assert.deepEqual(
      stage.pool.map((candidate) => candidate.id),
      [3, 5, 1, 2, 4],
    )
    assert.deepEqual(
      stage.pool.map((candidate) => candidate.score),
      [5, 4, 3, 2, 1],
      'the rerank order becomes the score the grouping sorts by',
    )
    assert.equal(filtered, 0, 'without a threshold nothing is dropped')
    assert.deepEqual(stage.channels, ['bm25', 'vector', 'rerank'])
  })

  it('keeps the fused order between candidates scored alike', () => {
    const { stage } = applyRerank(stageOf([4, 2, 9]), {
      kind: 'ran',
      scores: new Map([
        [4, 0.3],
        [2, 0.7],
        [9, 0.3],
      ]),
      threshold: undefined,
    })
    assert.deepEqual(
      stage.pool.map((candidate) => candidate.id),
      [2, 4, 9],
    )
  })

  it('with a threshold drops the scored candidates below it, never an exact identifier hit, and counts what it dropped', () => {
    const scores = new Map([
      [1, 0.1],
      [2, 0.8],
      [3, 0.39],
      [4, 0.4],
      [6, 0.05],
    ])
    const { stage, filtered } = applyRerank(stageOf([1, 2, 3, 4, 5, 6], [1]), { kind: 'ran', scores, threshold: 0.4 })
    assert.deepEqual(
      stage.pool.map((candidate) => candidate.id),
      [2, 4, 1, 5],
      'at the threshold stays; the identifier hit stays below it; unscored stays; 3 and 6 go',
    )
    assert.equal(filtered, 2)
    assert.deepEqual(stage.channels, ['bm25', 'vector', 'rerank'])
  })
})

const LIBRARY = SEMANTIC_LIBRARY

for (const driver of ONE_DRIVER) {
  describe(`search with the semantic channels (${driver})`, () => {
    let fake: FakeSemantic
    let m: SemanticMemory | undefined
    before(async () => {
      fake = await startFakeSemantic()
    })
    after(async () => {
      await fake.close()
    })
    afterEach(async () => {
      await m?.dispose()
      m = undefined
      fake.reset()
    })

    const open = (overrides: Partial<Config> = semanticOverrides(fake)): SemanticMemory => {
      m = openSemanticMemory(driver, overrides)
      return m
    }
    const seed = (memory: SemanticMemory): number[] =>
      LIBRARY.map((fact) => writeFact(memory.memory, memory.config, fact).id)
    const search = (memory: SemanticMemory, query: string, config = memory.config): Promise<SearchValue> =>
      memory.memory.search({ query, limit: 10, asOf: undefined }, config)
    const lines = (value: SearchValue): string[] =>
      value.results.map((result) => `${result.subject} · ${result.property}: ${result.values[0]?.value ?? ''}`)

    it('a Chinese question finds an English fact through the vector channel, which the lexical channels cannot', async () => {
      const memory = open()
      seed(memory)
      await memory.sweep()
      fake.reset()
      // Coffee is no concept of the software lexicon, so only the vector channel bridges 咖啡 and "latte".
      const value = await search(memory, '我最爱喝的咖啡')
      assert.equal(value.outcome, 'ok')
      assert.equal(lines(value)[0], 'user · favorite drink: latte')
      assert.ok(value.channels.includes('vector'), value.channels.join(','))
      assert.deepEqual(value.degraded, [])
      assert.equal(fake.requests.filter((request) => request.kind === 'embeddings').length, 1, 'one query embedding')
      assert.equal(
        memory.memory.searchLexical({ query: '我最爱喝的咖啡', limit: 10, asOf: undefined }, memory.config).outcome,
        'not_found',
      )
    })

    it('a slow embedding endpoint degrades to the lexical channels within the 800 ms budget and the answer says so', async () => {
      const memory = open(semanticOverrides(fake, { embedding: true }))
      seed(memory)
      await memory.sweep()
      fake.script.embedDelayMs = 5_000
      const started = Date.now()
      const value = await search(memory, 'billing-api port')
      const took = Date.now() - started
      assert.ok(took >= 700 && took < 1500, `took ${took} ms`)
      assert.equal(lines(value)[0], 'billing-api · port: 7801', 'the lexical channels answered')
      assert.ok(!value.channels.includes('vector'))
      assert.deepEqual(
        value.degraded.map((item) => [item.channel, item.code]),
        [['vector', 'timeout']],
      )
      assert.match(
        renderSearchText(value),
        /Degraded: vector \(timeout: the embedding endpoint did not answer within 800 ms\); the other channels answered\./u,
      )
    })

    it('where WebAssembly cannot run, the vector channel degrades and says why; the plugin still loads and the lexical channels answer', async () => {
      const saved = Object.getOwnPropertyDescriptor(globalThis, 'WebAssembly')
      let memory: SemanticMemory
      try {
        Reflect.deleteProperty(globalThis, 'WebAssembly')
        memory = open(semanticOverrides(fake, { embedding: true }))
      } finally {
        if (saved !== undefined) Object.defineProperty(globalThis, 'WebAssembly', saved)
      }
      seed(memory)
      await memory.sweep()
      const value = await search(memory, 'billing-api port')
      assert.equal(lines(value)[0], 'billing-api · port: 7801')
      assert.deepEqual(
        value.degraded.map((item) => [item.channel, item.code]),
        [['vector', 'internal']],
      )
      assert.match(renderSearchText(value), /Degraded: vector \(internal: [^)]*WebAssembly kernel cannot run here/u)
    })

    it('an HTTP error or vectors of another dimension degrade the vector channel with their code, never repeating the key', async () => {
      const memory = open(semanticOverrides(fake, { embedding: true }))
      seed(memory)
      await memory.sweep()
      fake.script.embedStatus = 502
      const failed = await search(memory, 'billing-api port')
      assert.deepEqual(
        failed.degraded.map((item) => [item.channel, item.code]),
        [['vector', 'http_error']],
      )
      assert.equal(lines(failed)[0], 'billing-api · port: 7801')
      assert.match(renderSearchText(failed), /Degraded: vector \(http_error: the embedding endpoint answered HTTP 502/u)
      assert.ok(
        fake.requests.some((request) => request.authorization === `Bearer ${TEST_KEY}`),
        'the key was sent, and echoed back',
      )
      assert.doesNotMatch(JSON.stringify(failed), new RegExp(TEST_KEY, 'u'))
      fake.script.embedStatus = undefined
      fake.script.embedDim = 32
      const wrong = await search(memory, 'billing-api port')
      assert.deepEqual(
        wrong.degraded.map((item) => [item.channel, item.code]),
        [['vector', 'wrong_dimension']],
      )
      assert.match(renderSearchText(wrong), /Degraded: vector \(wrong_dimension: [^)]*32-dimensional[^)]*64/u)
      assert.equal(lines(wrong)[0], 'billing-api · port: 7801')
    })

    it('an out-of-range rerank score invalidates the whole rerank: the fused order stands and the answer says so', async () => {
      const memory = open()
      seed(memory)
      await memory.sweep()
      const fused = await search(
        memory,
        'billing-api port',
        memory.reconfigure(semanticOverrides(fake, { embedding: true })),
      )
      memory.reconfigure(semanticOverrides(fake))
      fake.script.rerankScores = { shift: 1.5 }
      const value = await search(memory, 'billing-api port')
      assert.deepEqual(
        value.degraded.map((item) => [item.channel, item.code]),
        [['rerank', 'score_out_of_range']],
      )
      assert.ok(!value.channels.includes('rerank'))
      assert.equal(value.rerank, null)
      assert.deepEqual(lines(value), lines(fused), 'the fused order, untouched')
      assert.match(
        renderSearchText(value),
        new RegExp(
          'Degraded: rerank \\(score_out_of_range: rerank score [0-9.]+ for document 0 is outside the declared score mode ' +
            'unit_interval \\(a finite number from 0 to 1\\): the whole rerank is invalid and the fused order stands\\); the other channels answered\\.',
          'u',
        ),
      )
    })

    it('an uncalibrated rerank orders the results and filters nothing, and reports rerank_uncalibrated', async () => {
      const memory = open()
      seed(memory)
      await memory.sweep()
      const value = await search(memory, 'which database does orders-api use')
      assert.ok(value.channels.includes('rerank'))
      assert.equal(value.rerank, 'rerank_uncalibrated')
      assert.equal(value.rerankCalibration, null)
      assert.equal(value.rerankFiltered, 0)
      assert.equal(lines(value)[0], 'orders-api · database: postgres 16')
      assert.equal(value.results.length, LIBRARY.length, 'nothing was left out')
      assert.match(
        renderSearchText(value),
        /rerank_uncalibrated: the reranker only ordered these results; without a calibration record nothing was filtered/u,
      )
    })

    it('a calibrated rerank filters the candidates below its threshold and says how many it left out', async () => {
      const memory = open()
      seed(memory)
      await memory.sweep()
      const settings = rerankSettings(memory.config)
      assert.ok(settings.configured)
      memory.stores().calibrations.record({
        fingerprint: settings.fingerprint,
        outcome: 'calibrated',
        pairSource: 'supplied',
        relevant: 20,
        irrelevant: 20,
        threshold: 0.5,
        precision: 1,
        recall: 1,
        reason: null,
        createdAt: memory.clock.iso(),
      })
      const value = await search(memory, 'which database does orders-api use')
      assert.equal(value.rerank, 'calibrated')
      assert.deepEqual(lines(value), ['orders-api · database: postgres 16'])
      assert.equal(value.rerankFiltered, LIBRARY.length - 1)
      const text = renderSearchText(value)
      assert.match(text, /The calibrated rerank left out 3 candidates below its threshold\./u)
      assert.doesNotMatch(text, /rerank_uncalibrated/u)
      memory.stores().calibrations.record({
        fingerprint: 'rr-another-model',
        outcome: 'calibrated',
        pairSource: 'supplied',
        relevant: 20,
        irrelevant: 20,
        threshold: 0.5,
        precision: 1,
        recall: 1,
        reason: null,
        createdAt: memory.clock.iso(),
      })
      const other = await search(
        memory,
        'which database does orders-api use',
        memory.reconfigure({ ...semanticOverrides(fake), rerankModel: 'fake-rerank-2' }),
      )
      assert.equal(other.rerank, 'rerank_uncalibrated', 'a calibration of another rerank model does not apply')
      assert.equal(other.results.length, LIBRARY.length)
    })

    it("a calibration from the library's proxy pairs only orders: nothing is filtered and the answer says why", async () => {
      const memory = open()
      seed(memory)
      await memory.sweep()
      const settings = rerankSettings(memory.config)
      assert.ok(settings.configured)
      memory.stores().calibrations.record({
        fingerprint: settings.fingerprint,
        outcome: 'calibrated',
        pairSource: 'library',
        relevant: 20,
        irrelevant: 20,
        threshold: 0.5,
        precision: 1,
        recall: 1,
        reason: null,
        createdAt: memory.clock.iso(),
      })
      const value = await search(memory, 'which database does orders-api use')
      assert.equal(value.rerank, 'rerank_uncalibrated')
      assert.equal(value.rerankCalibration, 'library')
      assert.equal(value.rerankFiltered, 0)
      assert.equal(lines(value)[0], 'orders-api · database: postgres 16')
      assert.equal(value.results.length, LIBRARY.length, 'nothing was left out')
      const text = renderSearchText(value)
      assert.match(
        text,
        /rerank_uncalibrated: the reranker is calibrated on proxy pairs from the library only; it orders, it does not filter/u,
      )
      assert.doesNotMatch(text, /without a calibration record/u)
      memory.stores().calibrations.record({
        fingerprint: settings.fingerprint,
        outcome: 'calibrated',
        pairSource: 'supplied',
        relevant: 20,
        irrelevant: 20,
        threshold: 0.5,
        precision: 1,
        recall: 1,
        reason: null,
        createdAt: memory.clock.iso(),
      })
      const supplied = await search(memory, 'which database does orders-api use')
      assert.deepEqual(
        [supplied.rerank, supplied.rerankCalibration, supplied.rerankFiltered],
        ['calibrated', 'supplied', LIBRARY.length - 1],
        "a calibration from the user's own pairs filters",
      )
    })

    it('never sends a sensitive fact to either endpoint, and masks a credential in the query before it is sent', async () => {
      const memory = open({ ...semanticOverrides(fake), sensitiveModelVisible: true })
      seed(memory)
      const email = writeFact(memory.memory, memory.config, {
        subject: 'ops team',
        property: 'email',
        value: 'ops-oncall@example.com',
      })
      assert.notEqual(email.sensitivity, null)
      await memory.sweep()
      const value = await search(memory, `ops team email ${TEST_KEY}`)
      assert.ok(
        lines(value).includes('ops team · email: ops-oncall@example.com'),
        'the model may read it: it was found',
      )
      assert.ok(value.channels.includes('rerank') && value.channels.includes('vector'))
      const sent = fake.sentTexts()
      assert.ok(
        sent.some((text) => text.startsWith('ops team email ')),
        'the query was sent',
      )
      assert.ok(
        fake.requests.some((request) => request.kind === 'rerank'),
        'the rerank was asked',
      )
      assert.doesNotMatch(sent.join('\n'), /ops-oncall@example\.com/u)
      assert.doesNotMatch(sent.join('\n'), new RegExp(TEST_KEY, 'u'))
    })

    it('sends nothing to the reranker when every candidate is sensitive, and says so instead of claiming it ordered them', async () => {
      const memory = open({ ...semanticOverrides(fake), sensitiveModelVisible: true })
      writeFact(memory.memory, memory.config, {
        subject: 'ops team',
        property: 'email',
        value: 'ops-oncall@example.com',
      })
      fake.reset()
      const value = await search(memory, 'ops-oncall@example.com')
      assert.ok(lines(value).includes('ops team · email: ops-oncall@example.com'))
      assert.equal(fake.requests.filter((request) => request.kind === 'rerank').length, 0)
      assert.ok(!value.channels.includes('rerank'))
      assert.equal(value.rerank, null)
      assert.deepEqual(
        value.degraded.map((item) => [item.channel, item.code]),
        [['rerank', 'nothing_sendable']],
      )
    })

    it('never brings back a fact hidden from the model through the vector channel', async () => {
      const memory = open(semanticOverrides(fake, { embedding: true }))
      const [port] = seed(memory)
      const ports = writeFact(memory.memory, memory.config, {
        subject: 'gateway',
        property: 'listen ports',
        value: '8080 and 8443',
        multi: true,
      }).id
      await memory.sweep()
      const before = await search(memory, '账单服务监听哪个端口')
      assert.deepEqual(lines(before).slice(0, 2).sort(), [
        'billing-api · port: 7801',
        'gateway · listen ports: 8080 and 8443',
      ])
      memory.db().run('UPDATE facts SET model_use_allowed = 0 WHERE id IN (?, ?)', port ?? 0, ports)
      const hidden = await search(memory, '账单服务监听哪个端口')
      assert.ok(hidden.channels.includes('vector'), 'the vector channel ran')
      assert.ok(
        !lines(hidden).some((line) => line.startsWith('billing-api') || line.startsWith('gateway')),
        lines(hidden).join('\n'),
      )
      assert.ok(!hidden.results.some((result) => result.values.some((row) => row.id === port || row.id === ports)))
    })

    it('with the defaults sends nothing at all and answers exactly as the lexical search', async () => {
      const memory = open({})
      seed(memory)
      for (const query of ['billing-api port', '账单服务监听哪个端口', 'what editor does the user use']) {
        const value = await search(memory, query)
        assert.deepEqual(value, memory.memory.searchLexical({ query, limit: 10, asOf: undefined }, memory.config))
      }
      assert.equal(fake.requests.length, 0)
    })

    it('says how many found current facts have no vector yet, and says nothing once they all have one', async () => {
      const memory = open(semanticOverrides(fake, { embedding: true }))
      seed(memory)
      const first = await search(memory, 'billing-api port')
      assert.equal(first.unvectored, 1, 'before the first sweep no fact has a vector')
      assert.match(
        renderSearchText(first),
        /1 current fact found here has no vector yet: the vector channel did not cover it\./u,
      )
      assert.equal(fake.requests.length, 0, 'with no vectors there is nothing to ask')
      await memory.sweep()
      writeFact(memory.memory, memory.config, { subject: 'billing-api', property: 'host', value: 'billing.internal' })
      const partly = await search(memory, 'billing-api')
      assert.equal(partly.unvectored, 1, renderSearchText(partly))
      assert.match(renderSearchText(partly), /1 current fact found here has no vector yet/u)
      await memory.sweep()
      const covered = await search(memory, 'billing-api')
      assert.equal(covered.unvectored, 0)
      assert.doesNotMatch(renderSearchText(covered), /no vector yet/u)
    })

    it('never counts a sensitive fact, which is never embedded, as lacking a vector, before the first sweep or after', async () => {
      const memory = open({ ...semanticOverrides(fake, { embedding: true }), sensitiveModelVisible: true })
      writeFact(memory.memory, memory.config, {
        subject: 'ops team',
        property: 'email',
        value: 'ops-oncall@example.com',
      })
      const before = await search(memory, 'ops team email')
      assert.deepEqual(lines(before), ['ops team · email: ops-oncall@example.com'])
      assert.equal(before.unvectored, 0, renderSearchText(before))
      seed(memory)
      await memory.sweep()
      const after = await search(memory, 'ops team email')
      assert.equal(after.unvectored, 0, renderSearchText(after))
    })
  })
}

describe('the semantic legs on the system clock', () => {
  let fake: FakeSemantic
  let root: string
  before(async () => {
    fake = await startFakeSemantic()
  })
  after(async () => {
    await fake.close()
  })
  afterEach(() => {
    removeDir(root)
  })

  /** A memory on the real clock, its embedding channel on the fake server, the key lookup as given. */
  const openReal = (
    key: (name: string) => Promise<string | undefined>,
    overrides: Partial<Config> = {},
  ): { memory: FactMemory; config: ResolvedConfig } => {
    root = tempDir()
    const config = makeConfig(root, { ...semanticOverrides(fake, { embedding: true }), ...overrides })
    const access: EndpointAccess = { key, fetch: globalThis.fetch, now: () => Date.now() }
    const memory = new FactMemory({
      clock: systemClock,
      semantic: (current, stores) =>
        semanticLegs(
          access,
          new VectorIndex(),
          queryGuards(() => systemClock.now()),
          current,
          stores,
        ),
    })
    memory.open(config.resolvedDataDir)
    return { memory, config }
  }
  const sweep = async (memory: FactMemory, config: ResolvedConfig): Promise<void> => {
    const opened = memory.storeSet()
    const settings = embeddingSettings(config)
    if (!('stores' in opened) || !settings.configured) throw new Error('no store or channel')
    await runVectorSweep({
      vectors: opened.stores.vectors,
      settings,
      embed: sweepEmbedder({ key: async () => undefined, fetch: globalThis.fetch, now: () => Date.now() }, settings),
      now: () => new Date().toISOString(),
      signal: new AbortController().signal,
    })
  }

  it('runs the lexical channels while the query embedding is under way: a slow endpoint never costs the identifier channel its turn', async () => {
    const { memory, config } = openReal(async () => undefined, { queryTimeoutMs: 300 })
    writeFact(memory, config, { subject: 'billing-api', property: 'port', value: '7801' })
    await sweep(memory, config)
    fake.script.embedDelayMs = 2_000
    const started = Date.now()
    const value = await memory.search({ query: 'which service listens on 7801', limit: 5, asOf: undefined }, config)
    fake.script.embedDelayMs = 0
    assert.ok(Date.now() - started < 1_500, 'the search ended within its budget')
    assert.deepEqual(value.skipped, [], 'no lexical channel was skipped')
    assert.ok(value.channels.includes('identifier'))
    assert.equal(value.results[0]?.values[0]?.value, '7801')
    assert.deepEqual(
      value.degraded.map((item) => item.channel),
      ['vector'],
    )
    memory.close()
  })

  it('a failing key lookup degrades the vector channel instead of failing the search', async () => {
    const { memory, config } = openReal(async () => {
      throw new Error('the credential store is locked')
    })
    writeFact(memory, config, { subject: 'billing-api', property: 'port', value: '7801' })
    await sweep(memory, config)
    const value = await memory.search({ query: 'billing-api port', limit: 5, asOf: undefined }, config)
    assert.equal(value.outcome, 'ok')
    assert.deepEqual(
      value.degraded.map((item) => [item.channel, item.code]),
      [['vector', 'internal']],
    )
    assert.match(
      renderSearchText(value),
      /Degraded: vector \(internal: the vector channel failed: the credential store is locked\)/u,
    )
    memory.close()
  })
})
