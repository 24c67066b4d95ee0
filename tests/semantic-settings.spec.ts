/**
 * The pure parts that decide which vectors and which calibration apply: embeddingSettings / rerankSettings (a
 * channel is on only with a source, a base URL and a model, and says why it is off), the fingerprints (every field
 * that changes what a vector or a score means changes them; trailing slashes and blanks do not), and the text a fact
 * is embedded and reranked as.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { embeddingFingerprint, rerankFingerprint } from '../src/semantic/fingerprint.ts'
import { factText, INPUT_TEMPLATE, textHash } from '../src/semantic/input-text.ts'
import { embeddingSettings, rerankSettings } from '../src/semantic/settings.ts'
import { makeConfig } from './helpers/store.ts'

const ROOT = '/tmp/fact-memory-settings-test'
const EMBEDDING = { provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'fake-embed-1', dim: 0 }
const RERANK = {
  provider: 'json',
  baseUrl: 'http://127.0.0.1:9/v1',
  model: 'fake-rerank-1',
  scoreMode: 'unit_interval',
} as const

describe('semantic settings', () => {
  it('turns a channel on only with a source, a base URL and a model, and says why it is off', () => {
    assert.deepEqual(embeddingSettings(makeConfig(ROOT)), { configured: false, reason: 'embeddingSource is none' })
    assert.deepEqual(rerankSettings(makeConfig(ROOT)), { configured: false, reason: 'rerankSource is none' })
    assert.deepEqual(embeddingSettings(makeConfig(ROOT, { embeddingSource: 'openai', embeddingModel: 'm' })), {
      configured: false,
      reason: 'embeddingSource is openai, but embeddingBaseUrl or embeddingModel is empty',
    })
    assert.deepEqual(
      rerankSettings(makeConfig(ROOT, { rerankSource: 'json', rerankBaseUrl: 'http://x/v1', rerankModel: '  ' })),
      { configured: false, reason: 'rerankSource is json, but rerankBaseUrl or rerankModel is empty' },
    )
    const on = embeddingSettings(
      makeConfig(ROOT, {
        embeddingSource: 'openai',
        embeddingBaseUrl: ' http://127.0.0.1:9/v1/ ',
        embeddingModel: ' fake-embed-1 ',
        vectorIndexIntervalMs: 0,
      }),
    )
    assert.ok(on.configured)
    assert.deepEqual(
      [on.identity, on.keyName, on.intervalMs, on.fingerprint],
      [EMBEDDING, 'FACT_MEMORY_EMBEDDING_KEY', 0, embeddingFingerprint(EMBEDDING)],
    )
    const rerank = rerankSettings(
      makeConfig(ROOT, {
        rerankSource: 'json',
        rerankBaseUrl: 'http://127.0.0.1:9/v1',
        rerankModel: 'fake-rerank-1',
        rerankScoreMode: 'logit',
      }),
    )
    assert.ok(rerank.configured)
    assert.deepEqual(
      [rerank.scoreMode, rerank.keyName, rerank.fingerprint],
      ['logit', 'FACT_MEMORY_RERANK_KEY', rerankFingerprint({ ...RERANK, scoreMode: 'logit' })],
    )
  })

  it('changes the embedding fingerprint with provider, base URL, model and dimension, and not with trailing slashes or blanks', () => {
    const base = embeddingFingerprint(EMBEDDING)
    assert.match(base, /^emb-[0-9a-f]{16}$/u)
    assert.equal(embeddingFingerprint({ ...EMBEDDING, baseUrl: 'http://127.0.0.1:9/v1//' }), base)
    assert.equal(embeddingFingerprint({ ...EMBEDDING, model: ' fake-embed-1 ' }), base)
    const changed = [
      { provider: 'other' },
      { baseUrl: 'http://127.0.0.1:10/v1' },
      { model: 'fake-embed-2' },
      { dim: 64 },
    ].map((change) => embeddingFingerprint({ ...EMBEDDING, ...change }))
    assert.equal(new Set([base, ...changed]).size, 5)
  })

  it('changes the rerank fingerprint with provider, base URL, model and declared score mode', () => {
    const base = rerankFingerprint(RERANK)
    assert.match(base, /^rr-[0-9a-f]{16}$/u)
    assert.equal(rerankFingerprint({ ...RERANK, baseUrl: 'http://127.0.0.1:9/v1/' }), base)
    const changed = [
      { provider: 'other' },
      { baseUrl: 'http://127.0.0.1:10/v1' },
      { model: 'fake-rerank-2' },
      { scoreMode: 'logit' as const },
    ].map((change) => rerankFingerprint({ ...RERANK, ...change }))
    assert.equal(new Set([base, ...changed]).size, 5)
  })

  it('embeds a fact as "subject · property (qualifiers in key order): value", hashed by that text', () => {
    assert.equal(
      factText({ subject: 'billing-api', property: 'port', qualifiers: {}, value: '7801' }),
      'billing-api · port: 7801',
    )
    const qualified = factText({
      subject: 'billing-api',
      property: 'port',
      qualifiers: { region: 'eu', env: 'staging' },
      value: '7801',
    })
    assert.equal(qualified, 'billing-api · port (env: staging, region: eu): 7801')
    assert.equal(textHash(qualified), textHash('billing-api · port (env: staging, region: eu): 7801'))
    assert.notEqual(textHash(qualified), textHash('billing-api · port (env: staging, region: eu): 7802'))
    assert.equal(INPUT_TEMPLATE, 'subject-property-qualifiers-value/1', 'the template name the fingerprint covers')
  })

  it('masks a credential anywhere in the text that leaves the machine, a qualifier included', () => {
    const token = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'
    const text = factText({
      subject: 'deploy bot',
      property: 'repository',
      qualifiers: { token },
      value: 'acme/billing',
    })
    assert.doesNotMatch(text, new RegExp(token, 'u'))
    assert.match(text, /^deploy bot · repository \(token: .+\): acme\/billing$/u)
  })
})
