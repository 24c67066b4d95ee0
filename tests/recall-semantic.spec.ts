/**
 * Per-turn recall with the semantic channels, in process, on a real store (one SQLite binding) against the fake
 * embedding and rerank server on loopback: the recall searches through the vector channel as memory_search does; a
 * fact only the vector channel found must still clear the lexical floor unless a reranker calibrated on the user's
 * pairs kept it (one calibrated on the library's proxy pairs is no floor); a slow
 * endpoint is cut at the recall's own deadline and the lexical block stands.
 */
import assert from 'node:assert/strict'
import { after, afterEach, before, describe, it } from 'node:test'
import { rerankSettings } from '../src/semantic/settings.ts'
import { startFakeSemantic, type FakeSemantic } from './helpers/fake-semantic.ts'
import {
  openSemanticMemory,
  SEMANTIC_LIBRARY,
  semanticOverrides,
  type SemanticMemory,
} from './helpers/semantic-memory.ts'
import { ONE_DRIVER, writeFact } from './helpers/store.ts'

for (const driver of ONE_DRIVER) {
  describe(`per-turn recall with the semantic channels (${driver})`, () => {
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

    /** A memory whose directory shows nothing, so every fact a message asks about can only come through recall. */
    async function open(channels: Parameters<typeof semanticOverrides>[1]): Promise<SemanticMemory> {
      m = openSemanticMemory(driver, { ...semanticOverrides(fake, channels), injectDirectory: false })
      for (const fact of SEMANTIC_LIBRARY) writeFact(m.memory, m.config, fact)
      await m.sweep()
      fake.reset()
      return m
    }
    /** A memory with both channels and a calibration record of the given pairs, threshold 0.5. */
    async function calibrated(pairSource: 'supplied' | 'library'): Promise<SemanticMemory> {
      const memory = await open({ embedding: true, rerank: true })
      const settings = rerankSettings(memory.config)
      assert.ok(settings.configured)
      memory.stores().calibrations.record({
        fingerprint: settings.fingerprint,
        outcome: 'calibrated',
        pairSource,
        relevant: 20,
        irrelevant: 20,
        threshold: 0.5,
        precision: 1,
        recall: 1,
        reason: null,
        createdAt: memory.clock.iso(),
      })
      return memory
    }
    const lastLog = (memory: SemanticMemory): { channels: string; degraded: string; chars: number } =>
      memory.db().get('SELECT channels, degraded, chars FROM recall_log ORDER BY id DESC LIMIT 1') as never

    it('searches through the vector channel; a fact only it found does not clear the lexical floor without a calibrated reranker', async () => {
      const memory = await open({ embedding: true })
      // Coffee is no concept of the software lexicon: only the vector channel bridges 咖啡 and "latte".
      const answer = await memory.memory.recall(
        { text: '我最爱喝的咖啡是什么', sessionId: 's', turn: 1 },
        memory.config,
      )
      assert.deepEqual(answer, { kind: 'none' })
      assert.ok((JSON.parse(lastLog(memory).channels) as string[]).includes('vector'))
      assert.equal(
        fake.requests.filter((request) => request.kind === 'embeddings').length,
        1,
        'the message was embedded once',
      )
    })

    it("with a calibrated reranker its threshold is the floor: the vector channel's find is recalled, the rest left out", async () => {
      const memory = await calibrated('supplied')
      const answer = await memory.memory.recall(
        { text: '我最爱喝的咖啡是什么', sessionId: 's', turn: 1 },
        memory.config,
      )
      assert.equal(answer.kind, 'recalled')
      if (answer.kind !== 'recalled') return
      assert.match(answer.text, /- user · favorite drink: latte \[#\d+/u)
      assert.doesNotMatch(answer.text, /7801|Neovim|postgres/u)
    })

    it("a calibration from the library's proxy pairs is no floor: a fact only the vector channel found must still clear the lexical one", async () => {
      const memory = await calibrated('library')
      const answer = await memory.memory.recall(
        { text: '我最爱喝的咖啡是什么', sessionId: 's', turn: 1 },
        memory.config,
      )
      assert.deepEqual(answer, { kind: 'none' })
      assert.ok(
        (JSON.parse(lastLog(memory).channels) as string[]).includes('rerank'),
        'the reranker ran, and only ordered',
      )
    })

    it("a slow embedding endpoint is cut at the recall's deadline and the lexical block stands, the degradation logged", async () => {
      const memory = await open({ embedding: true })
      fake.script.embedDelayMs = 5_000
      const config = memory.reconfigure({ recallTimeoutMs: 300 })
      const started = Date.now()
      const answer = await memory.memory.recall(
        { text: 'which database does orders-api use?', sessionId: 's', turn: 1 },
        config,
      )
      const took = Date.now() - started
      assert.ok(took >= 250 && took < 900, `took ${took} ms`)
      assert.equal(answer.kind, 'recalled')
      if (answer.kind === 'recalled') assert.match(answer.text, /- orders-api · database: postgres 16/u)
      assert.deepEqual(JSON.parse(lastLog(memory).degraded), ['vector'])
    })
  })
}
