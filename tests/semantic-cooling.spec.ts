/**
 * A dead endpoint behind its breaker, in process, on a real store (one SQLite binding) against the fake embedding
 * and rerank server on loopback, on a fake clock: once a hanging embedding endpoint has timed out three times in a
 * row, searches and per-turn recalls skip it without a call, the lexical answer stands and the answer's channel line
 * says the vector leg was skipped while the endpoint cools down; status shows the breaker open until an instant with
 * the failures and the last error; after the period one search tries it again and its answer closes the breaker. A
 * failing reranker is skipped the same way. A message recalled again is embedded once (the query-embedding cache),
 * and another model is never answered from the cache.
 */
import assert from 'node:assert/strict'
import { after, afterEach, before, describe, it } from 'node:test'
import { semanticStatus } from '../src/management/semantic-status.ts'
import { renderSearchText, type SearchValue } from '../src/retrieval/render.ts'
import { startFakeSemantic, type FakeSemantic } from './helpers/fake-semantic.ts'
import {
  openSemanticMemory,
  SEMANTIC_LIBRARY,
  semanticOverrides,
  type SemanticMemory,
} from './helpers/semantic-memory.ts'
import { ONE_DRIVER, writeFact } from './helpers/store.ts'

for (const driver of ONE_DRIVER) {
  describe(`a dead endpoint behind its breaker (${driver})`, () => {
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

    /** The library with its vectors, the fake then reset; a short deadline so a hanging endpoint costs little real time. */
    async function open(
      channels: Parameters<typeof semanticOverrides>[1] = { embedding: true },
    ): Promise<SemanticMemory> {
      m = openSemanticMemory(driver, {
        ...semanticOverrides(fake, channels),
        injectDirectory: false,
        queryTimeoutMs: 300,
        recallTimeoutMs: 300,
      })
      for (const fact of SEMANTIC_LIBRARY) writeFact(m.memory, m.config, fact)
      await m.sweep()
      fake.reset()
      return m
    }
    const search = (memory: SemanticMemory, query: string): Promise<SearchValue> =>
      memory.memory.search({ query, limit: 10, asOf: undefined }, memory.config)
    const received = (kind: 'embeddings' | 'rerank'): number =>
      fake.requests.filter((request) => request.kind === kind).length
    const breakerOf = (memory: SemanticMemory, channel: 'embedding' | 'rerank'): Record<string, unknown> => {
      const block = semanticStatus(memory.config, memory.stores(), undefined, {
        rerank: () => ({ unavailable: 'not asked here' }),
        breaker: (which, fingerprint) => memory.guards[which].report(fingerprint),
      }) as Record<'embedding' | 'rerank', Record<string, unknown>>
      return block[channel]['breaker'] as Record<string, unknown>
    }

    it('a hanging embedding endpoint is skipped without a call after three timeouts, and the answer says it is cooling down', async () => {
      const memory = await open()
      fake.script.embedDelayMs = 60_000
      for (let n = 1; n <= 3; n += 1) {
        const value = await search(memory, `which database does orders-api use (${n})?`)
        assert.equal(value.degraded[0]?.code, 'timeout')
        assert.equal(received('embeddings'), n)
      }
      const skipped = await search(memory, 'which database does orders-api use?')
      assert.equal(received('embeddings'), 3, 'no call while the endpoint cools down')
      assert.match(renderSearchText(skipped), /orders-api · database: postgres 16/u, 'the lexical answer stands')
      assert.deepEqual(
        skipped.degraded.map((item) => [item.channel, item.code]),
        [['vector', 'cooling_down']],
      )
      assert.match(
        renderSearchText(skipped),
        /Degraded: vector \(cooling_down: skipped the embedding endpoint without a call while it cools down: it failed 3 times in a row \(last: timeout\); it is tried again after 2026-03-01T09:00:30\.000Z\); the other channels answered\./u,
      )

      const breaker = breakerOf(memory, 'embedding')
      assert.deepEqual(
        { ...breaker, lastError: (breaker['lastError'] as { code: string }).code },
        {
          state: 'open',
          until: '2026-03-01T09:00:30.000Z',
          coolingMs: 30_000,
          consecutiveFailures: 3,
          lastError: 'timeout',
        },
      )
      assert.match((breaker['lastError'] as { message: string }).message, /did not answer within \d+ ms/u)
    })

    it('per-turn recall after the breaker opens makes no call and recalls from the lexical channels', async () => {
      const memory = await open()
      fake.script.embedDelayMs = 60_000
      for (let turn = 1; turn <= 3; turn += 1)
        await memory.memory.recall(
          { text: `which database does orders-api use? (${turn})`, sessionId: 's', turn },
          memory.config,
        )
      assert.equal(received('embeddings'), 3)
      for (let turn = 4; turn <= 8; turn += 1) {
        const answer = await memory.memory.recall(
          { text: `which database does orders-api use? (${turn})`, sessionId: 's', turn },
          memory.config,
        )
        assert.equal(answer.kind, 'recalled')
        if (answer.kind === 'recalled') assert.match(answer.text, /orders-api · database: postgres 16/u)
      }
      assert.equal(received('embeddings'), 3, 'five turns, no call')
    })

    it('after the cooling period one search tries the endpoint again; its answer closes the breaker and the vector channel runs', async () => {
      const memory = await open()
      fake.script.embedDelayMs = 60_000
      for (let n = 1; n <= 3; n += 1) await search(memory, `orders-api database ${n}`)
      memory.clock.advance(30_000)
      fake.script.embedDelayMs = 0
      const tried = await search(memory, 'orders-api database')
      assert.equal(received('embeddings'), 4, 'one trial')
      assert.ok(tried.channels.includes('vector'), JSON.stringify(tried.degraded))
      assert.deepEqual(tried.degraded, [])
      assert.equal(breakerOf(memory, 'embedding')['state'], 'closed')
      await search(memory, 'orders-api port')
      assert.equal(received('embeddings'), 5, 'closed: every new query is embedded')
    })

    it('a failing reranker is skipped the same way; the vector channel keeps running', async () => {
      const memory = await open({ embedding: true, rerank: true })
      fake.script.rerankStatus = 503
      for (let n = 1; n <= 3; n += 1)
        assert.equal((await search(memory, `orders-api database ${n}`)).degraded[0]?.code, 'http_error')
      const skipped = await search(memory, 'orders-api database 4')
      assert.equal(received('rerank'), 3)
      assert.deepEqual(
        skipped.degraded.map((item) => [item.channel, item.code]),
        [['rerank', 'cooling_down']],
      )
      assert.ok(skipped.channels.includes('vector'))
      assert.equal(breakerOf(memory, 'rerank')['state'], 'open')
      assert.equal(breakerOf(memory, 'embedding')['state'], 'closed')
    })

    it('a message recalled again is embedded once; another model is not answered from the cache', async () => {
      const memory = await open()
      const ask = { text: 'which database does orders-api use?', sessionId: 's', turn: 1 }
      await memory.memory.recall(ask, memory.config)
      await memory.memory.recall({ ...ask, turn: 2 }, memory.config)
      const value = await search(memory, ask.text)
      assert.ok(value.channels.includes('vector'))
      assert.equal(received('embeddings'), 1, 'the same text, embedded once')
      memory.reconfigure({ embeddingModel: 'fake-embed-2' })
      await memory.sweep()
      const before = received('embeddings')
      await search(memory, ask.text)
      assert.equal(received('embeddings'), before + 1, 'another fingerprint embeds the text afresh')
    })
  })
}
