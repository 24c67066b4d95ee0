/**
 * The two semantic gateways (embeddings, rerank) and the score-mode check, against the fake OpenAI-compatible
 * embedding and rerank server on loopback: what they send, how they align answers, and that every failure is an
 * answer with a closed code whose message never carries the key; behind an endpoint breaker, a hanging or failing
 * endpoint is skipped without a call after the first failures and tried once per cooling period. Also the fake itself: bilingual closeness,
 * determinism, scripting and request recording.
 */
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, beforeEach, describe, it } from 'node:test'
import { embedTexts } from '../src/semantic/embedding-gateway.ts'
import { EndpointBreaker } from '../src/semantic/endpoint-breaker.ts'
import { maskKey } from '../src/semantic/key-mask.ts'
import { rerankDocuments } from '../src/semantic/rerank-gateway.ts'
import { checkScores } from '../src/semantic/score-mode.ts'
import type { EmbeddingEndpoint, EndpointFailure, RerankEndpoint } from '../src/semantic/types.ts'
import { cosine, fakeEmbedding, startFakeSemantic, type FakeSemantic } from './helpers/fake-semantic.ts'
import { FAKE_CONCEPTS } from './helpers/fake-semantic-lexicon.ts'
import { FakeClock } from './helpers/fake-clock.ts'

const KEY = 'sk-fake-semantic-0123456789abcdefXYZ'
const limits = { timeoutMs: 2000 }

/** The answer's failure, or a test failure when it succeeded. */
function failureOf(answer: { readonly ok: boolean }): EndpointFailure {
  assert.equal(answer.ok, false, `expected a failure, got ${JSON.stringify(answer)}`)
  return answer as EndpointFailure
}

/** A loopback port nothing listens on (a server was there and closed). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe('the fake embedding model', () => {
  it('puts a Chinese word and its English concept close, and unrelated concepts near orthogonal', () => {
    for (const dim of [64, 1024]) {
      assert.ok(cosine(fakeEmbedding('port', dim), fakeEmbedding('端口', dim)) > 0.8, `port ~ 端口 at ${dim}`)
      assert.ok(
        cosine(fakeEmbedding('数据库', dim), fakeEmbedding('database', dim)) > 0.8,
        `database ~ 数据库 at ${dim}`,
      )
      assert.ok(cosine(fakeEmbedding('port', dim), fakeEmbedding('coffee', dim)) < 0.3, `port vs coffee at ${dim}`)
      for (const [i, a] of FAKE_CONCEPTS.entries()) {
        for (const b of FAKE_CONCEPTS.slice(i + 1)) {
          const similarity = cosine(fakeEmbedding(a.en[0] ?? '', dim), fakeEmbedding(b.zh[0] ?? '', dim))
          assert.ok(Math.abs(similarity) < 0.3, `${a.id} vs ${b.id} at ${dim}: ${similarity}`)
        }
      }
    }
  })

  it('ranks a Chinese question nearest the English fact it asks about', () => {
    const question = fakeEmbedding('billing-api 的端口是多少', 64)
    const port = cosine(question, fakeEmbedding('billing-api · port: 7801', 64))
    const database = cosine(question, fakeEmbedding('billing-api · database: postgres', 64))
    assert.ok(port > 0.8 && port > database + 0.4, `port ${port}, database ${database}`)
  })

  it('gives identical texts identical vectors, different texts different ones, and leaves them unnormalized', () => {
    assert.deepEqual(fakeEmbedding('billing-api · port: 7801', 64), fakeEmbedding('billing-api · port: 7801', 64))
    assert.notDeepEqual(fakeEmbedding('port', 64), fakeEmbedding('ports', 64))
    assert.notDeepEqual(fakeEmbedding('zebra', 64), fakeEmbedding('quokka', 64))
    assert.notDeepEqual(fakeEmbedding('', 64), new Float32Array(64))
    const norms = ['port', 'coffee', 'a long sentence about nothing'].map((text) =>
      Math.hypot(...fakeEmbedding(text, 64)),
    )
    assert.ok(
      norms.every((norm) => Math.abs(norm - 1) > 0.01),
      `norms ${norms.join(', ')}`,
    )
    assert.equal(new Set(norms.map((norm) => norm.toFixed(3))).size, norms.length)
    assert.equal(fakeEmbedding('port', 1024).length, 1024)
  })
})

describe('the embedding gateway', () => {
  let fake: FakeSemantic
  let endpoint: EmbeddingEndpoint
  before(async () => {
    fake = await startFakeSemantic()
    endpoint = { baseUrl: `${fake.url}/v1//`, model: 'embed-1', apiKey: KEY, dim: 64 }
  })
  beforeEach(() => fake.reset())
  after(async () => {
    await fake.close()
  })

  it('posts the model and the texts as floats to <base>/embeddings with the key and returns the vectors in input order', async () => {
    fake.script.embedOrder = 'reversed'
    const texts = ['billing-api · port: 7801', '端口', 'coffee']
    const answer = await embedTexts(endpoint, texts, limits, fetch)
    assert.ok(answer.ok)
    assert.equal(answer.dim, 64)
    assert.deepEqual(
      answer.vectors,
      texts.map((text) => fakeEmbedding(text, 64)),
    )
    assert.equal(fake.requests.length, 1)
    const [request] = fake.requests
    assert.equal(request?.path, '/v1/embeddings')
    assert.equal(request?.method, 'POST')
    assert.deepEqual(request?.body, { model: 'embed-1', input: texts, encoding_format: 'float' })
    assert.equal(request?.authorization, `Bearer ${KEY}`)
    assert.deepEqual(fake.sentTexts(), texts)
  })

  it('sends no authorization header without a key', async () => {
    for (const apiKey of [undefined, '']) {
      fake.reset()
      assert.ok((await embedTexts({ ...endpoint, apiKey }, ['port'], limits, fetch)).ok)
      assert.equal(fake.requests[0]?.authorization, undefined)
    }
  })

  it('answers no texts with no vectors and sends nothing', async () => {
    assert.deepEqual(await embedTexts(endpoint, [], limits, fetch), { ok: true, vectors: [], dim: 64 })
    assert.equal(fake.requests.length, 0)
  })

  it("accepts the endpoint's dimension when none is configured and names both numbers when one is and differs", async () => {
    fake.script.embedDim = 48
    const accepted = await embedTexts({ ...endpoint, dim: 0 }, ['port', 'tea'], limits, fetch)
    assert.ok(accepted.ok)
    assert.deepEqual([accepted.dim, accepted.vectors.map((vector) => vector.length)], [48, [48, 48]])
    const refused = failureOf(await embedTexts(endpoint, ['port'], limits, fetch))
    assert.equal(refused.code, 'wrong_dimension')
    assert.match(refused.message, /\b48\b.*\b64\b/u)
  })

  it('refuses an answer that does not give exactly one finite, non-empty vector of one length per text', async () => {
    const vector = (index: number, embedding: unknown = [0.1, 0.2]) => ({ index, embedding })
    const bodies: readonly (readonly [string, string])[] = [
      ['not JSON', 'oops'],
      ['no data', '{"object":"list"}'],
      ['too few', JSON.stringify({ data: [vector(0)] })],
      ['too many', JSON.stringify({ data: [vector(0), vector(1), vector(2)] })],
      ['a repeated index', JSON.stringify({ data: [vector(0), vector(0)] })],
      ['an index out of range', JSON.stringify({ data: [vector(0), vector(2)] })],
      ['a negative index', JSON.stringify({ data: [vector(-1), vector(0)] })],
      ['a missing index', JSON.stringify({ data: [{ embedding: [0.1, 0.2] }, vector(1)] })],
      ['a string in a vector', JSON.stringify({ data: [vector(0, [0.1, '0.2']), vector(1)] })],
      ['an infinite number', '{"data":[{"index":0,"embedding":[0.1,1e999]},{"index":1,"embedding":[0.1,0.2]}]}'],
      ['a number beyond float32', '{"data":[{"index":0,"embedding":[0.1,1e300]},{"index":1,"embedding":[0.1,0.2]}]}'],
      ['an empty vector', JSON.stringify({ data: [vector(0, []), vector(1, [])] })],
      ['mixed lengths', JSON.stringify({ data: [vector(0, [0.1, 0.2]), vector(1, [0.1, 0.2, 0.3])] })],
      ['base64 instead of floats', JSON.stringify({ data: [vector(0, 'AAAA'), vector(1, 'AAAA')] })],
    ]
    for (const [label, body] of bodies) {
      fake.script.embedBody = body
      const failure = failureOf(await embedTexts({ ...endpoint, dim: 0 }, ['a', 'b'], limits, fetch))
      assert.equal(failure.code, 'bad_response', label)
    }
  })

  it('gives up within the budget when the endpoint is slow, and names the budget', async () => {
    fake.script.embedDelayMs = 3000
    const started = performance.now()
    const failure = failureOf(await embedTexts(endpoint, ['port'], { timeoutMs: 150 }, fetch))
    const elapsed = performance.now() - started
    assert.equal(failure.code, 'timeout')
    assert.match(failure.message, /150 ms/u)
    assert.ok(elapsed >= 140 && elapsed < 1000, `returned after ${elapsed} ms`)
  })

  it("answers the caller's abort as cancelled, and sends nothing when the signal is already aborted", async () => {
    fake.script.embedDelayMs = 3000
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    assert.equal(
      failureOf(await embedTexts(endpoint, ['port'], { timeoutMs: 2000, signal: controller.signal }, fetch)).code,
      'cancelled',
    )
    // A caller's deadline is a timeout signal too: it still counts as the caller's cancellation, not the call's budget.
    assert.equal(
      failureOf(await embedTexts(endpoint, ['port'], { timeoutMs: 2000, signal: AbortSignal.timeout(50) }, fetch)).code,
      'cancelled',
    )
    fake.reset()
    assert.equal(
      failureOf(await embedTexts(endpoint, ['port'], { timeoutMs: 2000, signal: AbortSignal.abort() }, fetch)).code,
      'cancelled',
    )
    assert.equal(fake.requests.length, 0)
  })

  it('answers a refused connection as unreachable without repeating a key the URL carries', async () => {
    const failure = failureOf(
      await embedTexts(
        { ...endpoint, baseUrl: `http://127.0.0.1:${await closedPort()}/v1?key=${KEY}` },
        ['port'],
        limits,
        fetch,
      ),
    )
    assert.equal(failure.code, 'unreachable')
    assert.match(failure.message, /ECONNREFUSED/u)
    assert.ok(!failure.message.includes(KEY))
  })

  it('answers a non-2xx status with the status and a short excerpt, masking the key the endpoint echoes', async () => {
    fake.script.embedStatus = 503
    const echoed = failureOf(await embedTexts(endpoint, ['port'], limits, fetch))
    assert.equal(echoed.code, 'http_error')
    assert.match(echoed.message, /503/u)
    assert.match(echoed.message, /scripted failure/u)
    assert.ok(!echoed.message.includes(KEY), echoed.message)
    fake.script.errorBody = `${'x'.repeat(20)} ${KEY.slice(0, 14)}… ${'y'.repeat(1000)} ${KEY}`
    const long = failureOf(await embedTexts(endpoint, ['port'], limits, fetch))
    assert.ok(!long.message.includes(KEY.slice(0, 14)), long.message)
    const excerpt = long.message.slice(long.message.indexOf(': ') + 2)
    assert.ok(excerpt.length <= 200, `${excerpt.length} characters of body`)
  })

  it('answers a model the endpoint does not serve as an HTTP error', async () => {
    fake.script.embeddingModel = 'embed-2'
    const failure = failureOf(await embedTexts(endpoint, ['port'], limits, fetch))
    assert.equal(failure.code, 'http_error')
    assert.match(failure.message, /404.*embed-1 not found/u)
  })
})

describe('the rerank gateway', () => {
  let fake: FakeSemantic
  let endpoint: RerankEndpoint
  before(async () => {
    fake = await startFakeSemantic()
    endpoint = { baseUrl: `${fake.url}/v1/`, model: 'rerank-1', apiKey: KEY }
  })
  beforeEach(() => fake.reset())
  after(async () => {
    await fake.close()
  })

  const documents = ['billing-api · database: postgres', 'billing-api · port: 7801', 'Melanie · drinks: coffee']

  it('posts the query and documents to <base>/rerank and aligns the scores with the documents', async () => {
    const answer = await rerankDocuments(endpoint, 'billing-api 的端口是多少', documents, limits, fetch)
    assert.ok(answer.ok)
    const query = fakeEmbedding('billing-api 的端口是多少', 64)
    const expected = documents.map((document) => Math.max(0, cosine(query, fakeEmbedding(document, 64))))
    answer.scores.forEach((score, index) =>
      assert.ok(Math.abs(score - (expected[index] ?? Number.NaN)) < 1e-9, `document ${index}`),
    )
    assert.equal(answer.scores.indexOf(Math.max(...answer.scores)), 1)
    const [request] = fake.requests
    assert.equal(request?.path, '/v1/rerank')
    assert.deepEqual(request?.body, {
      model: 'rerank-1',
      query: 'billing-api 的端口是多少',
      documents,
      top_n: 3,
      return_documents: false,
    })
    assert.equal(request?.authorization, `Bearer ${KEY}`)
    assert.deepEqual(fake.sentTexts(), ['billing-api 的端口是多少', ...documents])
  })

  it('reads `score` where a provider does not say `relevance_score`', async () => {
    fake.script.rerankBody = JSON.stringify({
      results: [
        { index: 1, score: 0.9 },
        { index: 0, score: 0.2 },
        { index: 2, relevance_score: 0.5, score: 7 },
      ],
    })
    assert.deepEqual(await rerankDocuments(endpoint, 'q', documents, limits, fetch), {
      ok: true,
      scores: [0.2, 0.9, 0.5],
    })
  })

  it('answers no documents with no scores and sends nothing', async () => {
    assert.deepEqual(await rerankDocuments(endpoint, 'q', [], limits, fetch), { ok: true, scores: [] })
    assert.equal(fake.requests.length, 0)
  })

  it('refuses an answer unless every document index appears exactly once with a finite score', async () => {
    const bodies: readonly (readonly [string, unknown])[] = [
      ['no results', {}],
      [
        'a missing index',
        {
          results: [
            { index: 0, relevance_score: 0.1 },
            { index: 1, relevance_score: 0.2 },
          ],
        },
      ],
      [
        'a repeated index',
        {
          results: [
            { index: 0, relevance_score: 0.1 },
            { index: 0, relevance_score: 0.2 },
            { index: 1, relevance_score: 0.3 },
          ],
        },
      ],
      [
        'an index out of range',
        {
          results: [
            { index: 0, relevance_score: 0.1 },
            { index: 1, relevance_score: 0.2 },
            { index: 3, relevance_score: 0.3 },
          ],
        },
      ],
      ['too many results', { results: [0, 1, 2, 3].map((index) => ({ index, relevance_score: 0.1 })) }],
      ['no score', { results: [{ index: 0 }, { index: 1, relevance_score: 0.2 }, { index: 2, relevance_score: 0.3 }] }],
      [
        'a string score',
        {
          results: [
            { index: 0, relevance_score: '0.1' },
            { index: 1, relevance_score: 0.2 },
            { index: 2, relevance_score: 0.3 },
          ],
        },
      ],
    ]
    for (const [label, body] of bodies) {
      fake.script.rerankBody = JSON.stringify(body)
      assert.equal(
        failureOf(await rerankDocuments(endpoint, 'q', documents, limits, fetch)).code,
        'bad_response',
        label,
      )
    }
    fake.script.rerankBody =
      '{"results":[{"index":0,"relevance_score":1e999},{"index":1,"relevance_score":0.2},{"index":2,"relevance_score":0.3}]}'
    assert.equal(
      failureOf(await rerankDocuments(endpoint, 'q', documents, limits, fetch)).code,
      'bad_response',
      'an infinite score',
    )
  })

  it('fails with the same closed codes as the embedding gateway, never repeating the key', async () => {
    fake.script.rerankDelayMs = 3000
    const slow = failureOf(await rerankDocuments(endpoint, 'q', documents, { timeoutMs: 120 }, fetch))
    assert.deepEqual([slow.code, /120 ms/u.test(slow.message)], ['timeout', true])
    assert.equal(
      failureOf(
        await rerankDocuments(endpoint, 'q', documents, { timeoutMs: 2000, signal: AbortSignal.abort() }, fetch),
      ).code,
      'cancelled',
    )
    fake.reset()
    fake.script.rerankStatus = 429
    const limited = failureOf(await rerankDocuments(endpoint, 'q', documents, limits, fetch))
    assert.equal(limited.code, 'http_error')
    assert.match(limited.message, /429/u)
    assert.ok(fake.requests.at(-1)?.raw.includes('q'))
    assert.ok(!limited.message.includes(KEY), limited.message)
    const unreachable = failureOf(
      await rerankDocuments(
        { ...endpoint, baseUrl: `http://127.0.0.1:${await closedPort()}` },
        'q',
        documents,
        limits,
        fetch,
      ),
    )
    assert.equal(unreachable.code, 'unreachable')
  })

  it('returns scores outside the unit interval as given, for checkScores to invalidate', async () => {
    fake.script.rerankScores = { shift: 1.5 }
    const shifted = await rerankDocuments(endpoint, 'billing-api port', documents, limits, fetch)
    assert.ok(shifted.ok)
    const invalid = failureOf(checkScores(shifted.scores, 'unit_interval'))
    assert.equal(invalid.code, 'score_out_of_range')
    assert.match(invalid.message, /for document 0 .*unit_interval/u)
    fake.script.rerankScores = 'logit'
    const logits = await rerankDocuments(endpoint, 'billing-api port', documents, limits, fetch)
    assert.ok(logits.ok)
    assert.ok(
      logits.scores.some((score) => score < 0) && logits.scores.some((score) => score > 1),
      logits.scores.join(', '),
    )
    assert.equal(checkScores(logits.scores, 'unit_interval').ok, false)
    assert.deepEqual(checkScores(logits.scores, 'logit'), { ok: true })
  })
})

describe("the gateways behind their endpoint's breaker", () => {
  let fake: FakeSemantic
  let embedding: EmbeddingEndpoint
  let rerank: RerankEndpoint
  before(async () => {
    fake = await startFakeSemantic()
    embedding = { baseUrl: `${fake.url}/v1`, model: 'embed-1', apiKey: KEY, dim: 64 }
    rerank = { baseUrl: `${fake.url}/v1`, model: 'rerank-1', apiKey: KEY }
  })
  beforeEach(() => fake.reset())
  after(async () => {
    await fake.close()
  })

  const POLICY = { failuresToOpen: 3, baseCoolingMs: 1_000, maxCoolingMs: 4_000 }
  const hangingLimits = { timeoutMs: 80 }
  const received = (kind: 'embeddings' | 'rerank'): number =>
    fake.requests.filter((request) => request.kind === kind).length

  it('a hanging embedding endpoint: the first calls time out, then calls are skipped at once, then one trial after the period, closing on its answer', async () => {
    const clock = new FakeClock()
    const breaker = new EndpointBreaker('embedding endpoint', () => clock.now(), POLICY)
    const embed = (): ReturnType<typeof embedTexts> =>
      breaker.call('emb-1', () => embedTexts(embedding, ['port'], hangingLimits, fetch))
    fake.script.embedDelayMs = 60_000
    for (let n = 1; n <= 3; n += 1) {
      assert.equal(failureOf(await embed()).code, 'timeout')
      assert.equal(received('embeddings'), n)
    }
    const opened = breaker.report('emb-1')
    assert.deepEqual(
      { ...opened, lastError: opened.lastError?.code },
      {
        state: 'open',
        until: new Date(clock.now() + 1_000).toISOString(),
        coolingMs: 1_000,
        consecutiveFailures: 3,
        lastError: 'timeout',
      },
    )
    for (let n = 0; n < 5; n += 1) {
      const skipped = failureOf(await embed())
      assert.equal(skipped.code, 'cooling_down')
      assert.match(
        skipped.message,
        /embedding endpoint .*3 times in a row \(last: timeout\).*tried again after \d{4}-\d\d-\d\dT/u,
      )
      assert.ok(!skipped.message.includes(KEY))
    }
    assert.equal(received('embeddings'), 3, 'no call while it cools down')

    clock.advance(1_000)
    assert.equal(failureOf(await embed()).code, 'timeout', 'the trial still hangs')
    assert.equal(received('embeddings'), 4, 'exactly one trial')
    assert.equal(breaker.report('emb-1').coolingMs, 2_000, 'a failed trial doubles the period')
    clock.advance(1_999)
    assert.equal(failureOf(await embed()).code, 'cooling_down')
    assert.equal(received('embeddings'), 4)

    fake.script.embedDelayMs = 0
    clock.advance(1)
    assert.ok((await embed()).ok, 'the trial answers')
    assert.equal(received('embeddings'), 5)
    const closed = breaker.report('emb-1')
    assert.deepEqual(
      [closed.state, closed.consecutiveFailures, closed.until, closed.lastError?.code],
      ['closed', 0, null, 'timeout'],
    )
    assert.ok((await embed()).ok)
    assert.equal(received('embeddings'), 6, 'closed: every call goes through')
  })

  it('a failing rerank endpoint opens its own breaker; an answer in a wrong shape keeps it closed; another endpoint starts closed', async () => {
    const clock = new FakeClock()
    const breaker = new EndpointBreaker('rerank endpoint', () => clock.now(), POLICY)
    const score = (identity = 'rr-1'): ReturnType<typeof rerankDocuments> =>
      breaker.call(identity, () => rerankDocuments(rerank, 'port', ['a', 'b'], limits, fetch))
    fake.script.rerankBody = '{"results": "nope"}'
    for (let n = 0; n < 5; n += 1) assert.equal(failureOf(await score()).code, 'bad_response')
    assert.equal(breaker.report('rr-1').state, 'closed', 'an endpoint that answers, even wrongly, is not dead')
    fake.script.rerankBody = undefined
    fake.script.rerankStatus = 503
    for (let n = 0; n < 3; n += 1) assert.equal(failureOf(await score()).code, 'http_error')
    assert.equal(failureOf(await score()).code, 'cooling_down')
    assert.equal(received('rerank'), 8)
    const report = breaker.report('rr-1')
    assert.equal(report.lastError?.code, 'http_error')
    assert.ok(!JSON.stringify(report).includes(KEY), 'the fake echoes the key in its error body; the report masks it')
    assert.deepEqual(breaker.report('rr-2'), {
      state: 'closed',
      until: null,
      coolingMs: 0,
      consecutiveFailures: 0,
      lastError: null,
    })
    fake.script.rerankStatus = undefined
    assert.ok((await score('rr-2')).ok, 'a reconfigured endpoint is called at once')
    assert.equal(received('rerank'), 9)
  })

  it('a trial that throws is settled as nothing: the breaker stays open with its period over and the next call is a trial', async () => {
    const clock = new FakeClock()
    const breaker = new EndpointBreaker('embedding endpoint', () => clock.now(), POLICY)
    fake.script.embedStatus = 503
    for (let n = 0; n < 3; n += 1) await breaker.call('emb-1', () => embedTexts(embedding, ['port'], limits, fetch))
    clock.advance(1_000)
    await assert.rejects(
      breaker.call('emb-1', async () => {
        throw new Error('the key lookup failed')
      }),
      /key lookup failed/u,
    )
    assert.equal(breaker.report('emb-1').state, 'open')
    fake.script.embedStatus = undefined
    assert.ok(
      (await breaker.call('emb-1', () => embedTexts(embedding, ['port'], limits, fetch))).ok,
      'the next call is the trial, and it closes the breaker',
    )
    assert.equal(breaker.report('emb-1').state, 'closed')
  })

  it('with the breaker off every call goes out', async () => {
    const breaker = new EndpointBreaker('embedding endpoint', () => 0, 'off')
    fake.script.embedStatus = 500
    for (let n = 0; n < 5; n += 1)
      assert.equal(
        failureOf(await breaker.call('emb-1', () => embedTexts(embedding, ['port'], limits, fetch))).code,
        'http_error',
      )
    assert.equal(received('embeddings'), 5)
    assert.equal(breaker.report('emb-1').state, 'off')
  })
})

describe('checkScores', () => {
  it('accepts unit-interval scores from 0 to 1 inclusive and any finite logit or native score', () => {
    assert.deepEqual(checkScores([0, 0.5, 1], 'unit_interval'), { ok: true })
    assert.deepEqual(checkScores([], 'unit_interval'), { ok: true })
    assert.deepEqual(checkScores([-40, 0, 13.8, 1e9], 'logit'), { ok: true })
    assert.deepEqual(checkScores([-3, 250], 'native'), { ok: true })
  })

  it('names the first score outside the declared mode, its document index and the mode', () => {
    const above = failureOf(checkScores([0.2, 1.0001, -0.5], 'unit_interval'))
    assert.equal(above.code, 'score_out_of_range')
    assert.match(above.message, /^rerank score 1\.0001 for document 1 .*unit_interval/u)
    assert.match(failureOf(checkScores([0.2, 0.3, -0.01], 'unit_interval')).message, /-0\.01 for document 2/u)
    assert.match(failureOf(checkScores([1, Number.NaN], 'logit')).message, /NaN for document 1 .*logit/u)
    assert.match(
      failureOf(checkScores([Number.POSITIVE_INFINITY], 'native')).message,
      /Infinity for document 0 .*native/u,
    )
  })
})

describe('maskKey', () => {
  it('masks the key, a truncated echo of it and other credentials, and leaves plain text alone', () => {
    const masked = maskKey(`got "Bearer ${KEY}" and ${KEY.slice(3, 15)}... then ghp_${'a1'.repeat(12)}`, KEY)
    assert.ok(!masked.includes(KEY.slice(3, 15)), masked)
    assert.ok(!masked.includes('ghp_a1'), masked)
    assert.equal(maskKey('model embed-1 not found', KEY), 'model embed-1 not found')
    assert.equal(maskKey('the key abc appears: abc', 'abc'), 'the key •••••••• appears: ••••••••')
  })
})
