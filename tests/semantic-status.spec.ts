/**
 * The index-vectors verb and status's `semantic` block through the verb table on a real store (one binding), the
 * vector sweep reaching the fake embedding server on loopback: index-vectors refused as unavailable without an
 * embedding channel (naming the keys to set) or without a sweep service, a sweep now with the coverage after it, a
 * failing sweep refused with its error; status naming each channel off and why, the embedding fingerprint, vectors
 * current / stale / missing / excluded, the last sweep and its error, and the rerank calibration state (uncalibrated,
 * refused with its reason, calibrated, proxy when calibrated on library pairs, per rerank fingerprint), never the key.
 */
import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Config } from '../src/config.ts'
import type { CalibrationEntry } from '../src/store/calibration-store.ts'
import { embeddingSettings, rerankSettings } from '../src/semantic/settings.ts'
import { VectorSweepService } from '../src/semantic/vector-sweep-service.ts'
import { startFakeSemantic, type FakeSemantic } from './helpers/fake-semantic.ts'
import { semanticOverrides, TEST_KEY } from './helpers/semantic-memory.ts'
import { ONE_DRIVER, writeFact } from './helpers/store.ts'
import { storesOf } from './helpers/vectors.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

/** What status says of the semantic channels. */
interface SemanticBlock {
  readonly embedding: Record<string, unknown>
  readonly rerank: Record<string, unknown>
}

for (const driver of ONE_DRIVER) {
  describe(`index-vectors and status's semantic block (${driver})`, () => {
    let fake: FakeSemantic
    let v: VerbHarness | undefined
    let sweeper: VectorSweepService | undefined
    before(async () => {
      fake = await startFakeSemantic()
    })
    after(async () => {
      await fake.close()
    })
    afterEach(async () => {
      await sweeper?.stop()
      sweeper = undefined
      v?.dispose()
      v = undefined
      fake.reset()
    })

    /** A harness whose verbs see a vector sweep service over its store (unless `withService` is false). */
    const open = (overrides: Partial<Config> = semanticOverrides(fake), withService = true): VerbHarness => {
      v = verbHarness(
        driver,
        overrides,
        withService
          ? {
              vectors: (h, clock) => {
                sweeper = new VectorSweepService({
                  clock,
                  logger: { warn: () => undefined },
                  stores: () => storesOf(h.memory),
                  config: () => h.config,
                  access: { key: async () => TEST_KEY, fetch: globalThis.fetch, now: () => clock.now() },
                })
                return sweeper
              },
            }
          : {},
      )
      return v
    }
    /** Three plain facts and one sensitive one. */
    const seed = (harness: VerbHarness): number[] => {
      const ids = ['billing-api', 'orders-api', 'search-service'].map(
        (subject) => writeFact(harness.h.memory, harness.h.config, { subject, property: 'port', value: '7801' }).id,
      )
      writeFact(harness.h.memory, harness.h.config, {
        subject: 'ops team',
        property: 'email',
        value: 'ops-oncall@example.com',
      })
      return ids
    }
    const semantic = async (harness: VerbHarness): Promise<SemanticBlock> =>
      (await harness.ok('status', {}))['semantic'] as SemanticBlock
    const record = (
      harness: VerbHarness,
      entry: Partial<CalibrationEntry> & Pick<CalibrationEntry, 'fingerprint' | 'outcome'>,
    ): void => {
      storesOf(harness.h.memory).calibrations.record({
        pairSource: 'supplied',
        relevant: 20,
        irrelevant: 20,
        threshold: null,
        precision: null,
        recall: null,
        reason: null,
        createdAt: harness.clock.iso(),
        ...entry,
      })
    }

    it('refuses index-vectors as unavailable without an embedding channel, naming the keys to set, and sends nothing', async () => {
      for (const overrides of [{}, { embeddingSource: 'openai' as const, embeddingModel: 'fake-embed-1' }]) {
        const harness = open(overrides)
        seed(harness)
        const outcome = await harness.call('index-vectors', {})
        assert.equal(outcome.ok, false)
        assert.ok(!outcome.ok && outcome.code === 'unavailable')
        assert.match(
          outcome.message,
          /no embedding channel is configured \(embeddingSource is (none|openai, but embeddingBaseUrl or embeddingModel is empty)\): set embeddingSource, embeddingBaseUrl and embeddingModel/u,
        )
        await sweeper?.stop()
        harness.dispose()
      }
      v = undefined
      assert.equal(fake.requests.length, 0)
    })

    it('refuses index-vectors as unavailable where no vector sweep runs', async () => {
      const harness = open(semanticOverrides(fake), false)
      const outcome = await harness.call('index-vectors', { force: true })
      assert.ok(
        !outcome.ok &&
          outcome.code === 'unavailable' &&
          /the vector sweep is not running in this host/u.test(outcome.message),
      )
    })

    it('index-vectors sweeps now and answers the sweep and the coverage, without moving the generation', async () => {
      const harness = open()
      seed(harness)
      const generation = harness.generation()
      const data = await harness.ok('index-vectors', { force: true })
      const sweep = data['sweep'] as { outcome: string; embedded: number; fingerprint: string; error: unknown }
      assert.deepEqual([sweep.outcome, sweep.embedded, sweep.error], ['swept', 3, null])
      const settings = embeddingSettings(harness.h.config)
      assert.equal(sweep.fingerprint, settings.configured ? settings.fingerprint : undefined)
      assert.deepEqual(data['coverage'], { current: 3, stale: 0, missing: 0, excluded: 1 })
      assert.equal(harness.generation(), generation)
      assert.doesNotMatch(fake.sentTexts().join('\n'), /ops-oncall@example\.com/u)
    })

    it('refuses a failing sweep as unavailable with its error, the sweep and the coverage, never the key', async () => {
      const harness = open()
      seed(harness)
      fake.script.embedStatus = 401
      const outcome = await harness.call('index-vectors', {})
      assert.ok(!outcome.ok)
      assert.equal(outcome.code, 'unavailable')
      assert.match(outcome.message, /^the vector sweep stopped: the embedding endpoint answered HTTP 401/u)
      const details = outcome.details as { sweep: { outcome: string; error: { code: string } }; coverage: unknown }
      assert.deepEqual([details.sweep.outcome, details.sweep.error.code], ['failed', 'http_error'])
      assert.deepEqual(details.coverage, { current: 0, stale: 0, missing: 3, excluded: 1 })
      assert.ok(fake.requests.some((request) => request.authorization === `Bearer ${TEST_KEY}`))
      assert.doesNotMatch(
        JSON.stringify(outcome),
        new RegExp(TEST_KEY, 'u'),
        'the fake echoed the key; the answer does not',
      )
    })

    it('status never shows a secret written into a base URL (user info or a key in the query)', async () => {
      const withSecret = (url: string): string =>
        url.replace('http://', 'http://alice:s3cret-pass@') + '?api_key=sk-live-123456'
      const harness = open({
        embeddingSource: 'openai',
        embeddingBaseUrl: withSecret(`${fake.url}/v1`),
        embeddingModel: 'fake-embed-1',
        rerankSource: 'json',
        rerankBaseUrl: withSecret(`${fake.url}/v1`),
        rerankModel: 'fake-rerank-1',
      })
      const block = await semantic(harness)
      assert.equal(block.embedding['baseUrl'], `${fake.url}/v1`)
      assert.equal(block.rerank['baseUrl'], `${fake.url}/v1`)
      assert.doesNotMatch(JSON.stringify(await harness.ok('status', {})), /s3cret|sk-live|alice/u)
    })

    it('status says each channel is off, and why, with the defaults', async () => {
      const harness = open({})
      assert.deepEqual(await semantic(harness), {
        embedding: { configured: false, reason: 'embeddingSource is none' },
        rerank: { configured: false, reason: 'rerankSource is none' },
      })
    })

    it('status reports the embedding channel: fingerprint, vectors current, stale, missing and excluded, the last sweep and its error', async () => {
      const harness = open()
      const [first] = seed(harness)
      const settings = embeddingSettings(harness.h.config)
      assert.ok(settings.configured)
      const before = (await semantic(harness)).embedding
      assert.deepEqual(
        before,
        {
          configured: true,
          source: 'openai',
          baseUrl: `${fake.url}/v1`,
          model: 'fake-embed-1',
          fingerprint: settings.fingerprint,
          dim: 0,
          intervalMs: 600_000,
          keyName: 'FACT_MEMORY_EMBEDDING_KEY',
          vectors: { current: 0, stale: 0, missing: 3, excluded: 1 },
          lastSweep: null,
          error: null,
          inMemory: null,
          breaker: null,
        },
        'no breaker where no searches run (this harness has no semantic service)',
      )
      await harness.ok('index-vectors', {})
      harness.h.db().run(`UPDATE facts SET value = '7802', revision = revision + 1 WHERE id = ?`, first ?? 0)
      writeFact(harness.h.memory, harness.h.config, {
        subject: 'docs site',
        property: 'url',
        value: 'https://docs.example.com',
      })
      const after = (await semantic(harness)).embedding
      assert.equal(after['dim'], 64)
      assert.deepEqual(after['vectors'], { current: 2, stale: 1, missing: 1, excluded: 1 })
      assert.deepEqual([(after['lastSweep'] as { outcome: string }).outcome, after['error']], ['swept', null])
      fake.script.embedStatus = 503
      await harness.call('index-vectors', {})
      const failed = (await semantic(harness)).embedding
      assert.equal((failed['lastSweep'] as { outcome: string }).outcome, 'failed')
      assert.equal((failed['error'] as { code: string }).code, 'http_error')
      assert.match((failed['error'] as { message: string }).message, /HTTP 503/u)
      harness.h.reconfigure({ ...semanticOverrides(fake), embeddingModel: 'fake-embed-2' })
      const retired = (await semantic(harness)).embedding
      assert.notEqual(retired['fingerprint'], settings.fingerprint)
      assert.deepEqual(
        retired['vectors'],
        { current: 0, stale: 3, missing: 1, excluded: 1 },
        'vectors of the old model are stale, not current',
      )
      assert.deepEqual(
        [retired['lastSweep'], retired['error']],
        [null, null],
        "the old model's failure is not this model's error: it was never swept",
      )
      assert.doesNotMatch(JSON.stringify(await harness.ok('status', {})), new RegExp(TEST_KEY, 'u'))
    })

    it('status reports the rerank calibration: uncalibrated, refused with its reason, calibrated, proxy (library pairs, ordering only), per rerank fingerprint', async () => {
      const harness = open()
      const settings = rerankSettings(harness.h.config)
      assert.ok(settings.configured)
      const rerank = async (): Promise<Record<string, unknown>> => (await semantic(harness)).rerank
      const calibration = async (): Promise<Record<string, unknown>> =>
        (await rerank())['calibration'] as Record<string, unknown>
      assert.deepEqual(await rerank(), {
        configured: true,
        source: 'json',
        baseUrl: `${fake.url}/v1`,
        model: 'fake-rerank-1',
        scoreMode: 'unit_interval',
        fingerprint: settings.fingerprint,
        keyName: 'FACT_MEMORY_RERANK_KEY',
        calibration: { state: 'uncalibrated' },
        breaker: null,
      })
      record(harness, { fingerprint: settings.fingerprint, outcome: 'refused', relevant: 19, reason: 'too_few_pairs' })
      assert.deepEqual([(await calibration())['state'], (await calibration())['reason']], ['refused', 'too_few_pairs'])
      record(harness, {
        fingerprint: settings.fingerprint,
        outcome: 'calibrated',
        threshold: 0.42,
        precision: 0.97,
        recall: 0.9,
      })
      record(harness, { fingerprint: settings.fingerprint, outcome: 'refused', reason: 'no_threshold' })
      const calibrated = await calibration()
      assert.deepEqual(
        [calibrated['state'], calibrated['threshold'], calibrated['precision'], calibrated['recall']],
        ['calibrated', 0.42, 0.97, 0.9],
        'a later refusal does not replace the calibration in force',
      )
      record(harness, {
        fingerprint: settings.fingerprint,
        outcome: 'calibrated',
        pairSource: 'library',
        threshold: 0.3,
        precision: 1,
        recall: 1,
      })
      const proxy = await calibration()
      assert.deepEqual(
        [proxy['state'], proxy['pairSource'], proxy['threshold']],
        ['proxy', 'library', 0.3],
        "a calibration from the library's proxy pairs is told apart from one on the user's pairs",
      )
      assert.match(String(proxy['note']), /proxy pairs from the library only; it orders, it does not filter/u)
      record(harness, {
        fingerprint: settings.fingerprint,
        outcome: 'calibrated',
        threshold: 0.42,
        precision: 0.97,
        recall: 0.9,
      })
      assert.equal((await calibration())['state'], 'calibrated', 'a calibration on supplied pairs filters again')
      harness.h.reconfigure({ ...semanticOverrides(fake), rerankModel: 'fake-rerank-2' })
      assert.deepEqual(await calibration(), { state: 'uncalibrated' }, 'another rerank model needs its own calibration')
      harness.h.reconfigure({ ...semanticOverrides(fake), rerankScoreMode: 'logit' })
      assert.deepEqual(await calibration(), { state: 'uncalibrated' }, 'so does another declared score mode')
    })
  })
}
