/**
 * The near-duplicate review's vector leg on a real store (one SQLite binding), its vectors swept from the fake
 * embedding server and the verdicts from a scripted model: two re-phrasings that share no word are proposed once
 * their vectors are close (inside one subject and scope only), a distinct verdict is remembered under the vector
 * generation so the same vectors ask nothing again while another embedding model asks again, a pair below
 * consolidateCosineFloor is not proposed, and without vectors of the model in force there is no vector leg.
 */
import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Config } from '../src/config.ts'
import type { ExtractionModel, ModelAnswer, ModelRequest } from '../src/host/model-client.ts'
import { runSweep } from '../src/review/sweep-run.ts'
import { vectorSources } from '../src/semantic/review-sources.ts'
import { embeddingSettings } from '../src/semantic/settings.ts'
import type { FactInput } from '../src/types.ts'
import { startFakeSemantic, type FakeSemantic } from './helpers/fake-semantic.ts'
import { openSemanticMemory, semanticOverrides, type SemanticMemory } from './helpers/semantic-memory.ts'
import { count, ONE_DRIVER, writeFact } from './helpers/store.ts'

/** Twelve unrelated current facts, so the lexical leg is on (it is off below 12, as the gate is). */
const LIBRARY: readonly Pick<FactInput, 'subject' | 'property' | 'value'>[] = [
  { subject: 'billing-api', property: 'owner', value: 'the payments team in Berlin' },
  { subject: 'search-service', property: 'region', value: 'eu-west-1' },
  { subject: 'user', property: 'editor', value: 'Neovim with LazyVim' },
  { subject: 'user', property: 'home city', value: 'Hamburg' },
  { subject: 'user', property: 'pet', value: 'a cat named Tofu' },
  { subject: '支付服务', property: '端口', value: '7801' },
  { subject: '订单服务', property: '负责人', value: '张三' },
  { subject: 'docs site', property: 'url', value: 'https://docs.example.com' },
  { subject: 'payments team', property: 'standup', value: 'every day at 09:30' },
  { subject: 'user', property: 'shell', value: 'fish with the starship prompt' },
  { subject: 'release', property: 'cadence', value: 'every second Thursday' },
  { subject: 'staging', property: 'host', value: 'staging.internal' },
]

/** A scripted model: each call takes the next answer. */
class ScriptedModel implements ExtractionModel {
  readonly name = 'fake/verdicts'
  readonly requests: ModelRequest[] = []
  private readonly answers: string[]
  constructor(...answers: string[]) {
    this.answers = answers
  }
  async complete(request: ModelRequest): Promise<ModelAnswer> {
    this.requests.push(request)
    const next = this.answers.shift()
    return next === undefined ? { ok: false, error: 'script exhausted' } : { ok: true, text: next }
  }
}

const DISTINCT = JSON.stringify({ verdict: 'distinct' })

for (const driver of ONE_DRIVER) {
  describe(`the review's vector leg (${driver})`, () => {
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

    /** The library, the pair of re-phrasings, and lookalikes in another subject and another scope. */
    const open = (overrides: Partial<Config> = {}): { memory: SemanticMemory; low: number; high: number } => {
      m = openSemanticMemory(driver, { ...semanticOverrides(fake, { embedding: true }), ...overrides })
      const memory = m
      for (const fact of LIBRARY) writeFact(memory.memory, memory.config, fact)
      const low = writeFact(memory.memory, memory.config, { subject: 'user', property: 'coffee', value: 'espresso' }).id
      const high = writeFact(memory.memory, memory.config, { subject: 'user', property: 'drink', value: 'latte' }).id
      writeFact(memory.memory, memory.config, { subject: 'partner', property: 'drink', value: 'latte' })
      writeFact(memory.memory, memory.config, {
        subject: 'user',
        property: 'drink',
        value: 'latte',
        scope: 'project:cafe',
      })
      return { memory, low, high }
    }
    const review = (memory: SemanticMemory, model: ScriptedModel, withVectors = true) => {
      const stores = memory.stores()
      return runSweep(
        {
          stores,
          model: async () => model,
          now: () => memory.clock.iso(),
          sources: withVectors ? vectorSources(memory.config, stores) : [],
        },
        { trigger: 'asked', budget: 8 },
      )
    }
    const spaceId = (memory: SemanticMemory): number => {
      const settings = embeddingSettings(memory.config)
      const space = settings.configured ? memory.stores().vectors.space(settings.fingerprint) : undefined
      if (space === undefined) throw new Error('no space for the model in force')
      return space.id
    }

    it('proposes two re-phrasings that share no word once their vectors are close, and only inside one subject and scope', async () => {
      const { memory } = open()
      await memory.sweep()
      const lexical = await review(memory, new ScriptedModel(), false)
      assert.equal(lexical.candidates, 0, 'the lexical leg alone finds no pair: espresso and latte share no word')
      const model = new ScriptedModel(DISTINCT)
      const entry = await review(memory, model)
      assert.equal(entry.candidates, 1)
      assert.equal(model.requests.length, 1)
      assert.equal(model.requests[0]?.user, 'Statement A: user · coffee: espresso\nStatement B: user · drink: latte')
    })

    it('remembers a distinct verdict under the vector generation: the same vectors ask nothing again, another embedding model asks again', async () => {
      const { memory, low, high } = open()
      await memory.sweep()
      const first = spaceId(memory)
      await review(memory, new ScriptedModel(DISTINCT))
      const stores = memory.stores()
      assert.deepEqual(
        stores.review.distinctPairs(first).map((pair) => [pair.lowFactId, pair.highFactId]),
        [[low, high]],
      )
      assert.deepEqual(stores.review.distinctPairs(0), [], 'not under the lexical generation')
      const generation = stores.db.generation()
      const quiet = new ScriptedModel()
      const again = await review(memory, quiet)
      assert.deepEqual([quiet.requests.length, again.asked, again.remembered, again.candidates], [0, 0, 1, 1])
      assert.equal(stores.db.generation(), generation, 'a verdict is bookkeeping')
      memory.reconfigure({ ...semanticOverrides(fake, { embedding: true }), embeddingModel: 'fake-embed-2' })
      await memory.sweep()
      const second = spaceId(memory)
      assert.notEqual(second, first)
      const asked = new ScriptedModel(DISTINCT)
      const renewed = await review(memory, asked)
      assert.deepEqual(
        [asked.requests.length, renewed.remembered],
        [1, 0],
        'a verdict about other vectors is not trusted',
      )
      assert.deepEqual(
        stores.review.distinctPairs(second).map((pair) => [pair.lowFactId, pair.highFactId]),
        [[low, high]],
      )
      assert.equal(count(memory.db(), 'SELECT count(*) AS n FROM review_verdicts'), 2)
    })

    it('proposes no pair below consolidateCosineFloor, and has no leg without vectors of the model in force', async () => {
      const { memory } = open({ consolidateCosineFloor: 0.99 })
      await memory.sweep()
      const model = new ScriptedModel(DISTINCT)
      const strict = await review(memory, model)
      assert.deepEqual([strict.candidates, model.requests.length], [0, 0])
      memory.reconfigure({ ...semanticOverrides(fake, { embedding: true }), embeddingModel: 'fake-embed-2' })
      assert.deepEqual(vectorSources(memory.config, memory.stores()), [])
      memory.reconfigure({ embeddingSource: 'none' })
      assert.deepEqual(vectorSources(memory.config, memory.stores()), [], 'no embedding channel, no vector leg')
    })
  })
}
