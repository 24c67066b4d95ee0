/**
 * The semantic channels through the real rc.8 host, as the model and a user meet them: one-shot headless runs whose
 * writes leave vectors behind for the next run (the sweep a write asked for is flushed on unload), a Chinese question
 * that finds an English fact only through the vector channel, a model change that retires the old vectors while the
 * lexical channels keep answering, a slow endpoint that degrades within the budget and says so, sensitive facts that
 * never reach the endpoint, and nothing sent at all with the defaults. Then a web host: the vectors loaded into memory
 * as it starts, before any search (status shows them), Rebuild vectors and status
 * through real HTTP, a rerank whose out-of-range scores are invalidated, an uncalibrated rerank that only orders, and
 * a calibration built from the user's pairs after which the rerank filters, and a hanging embedding endpoint that,
 * after three timeouts, the turns no longer wait on (counted by the calls the fake receives). The embedding and rerank endpoints are a
 * local fake (deterministic vectors from a bilingual concept lexicon); the model is the scripted fake.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { REPO_ROOT, startWebHost, type WebHost } from './helpers/dsh-host.ts'
import { converse as converseWeb, FactMemoryApi, writeCall } from './helpers/fact-memory-web.ts'
import { startFakeSemantic, type FakeSemantic } from './helpers/fake-semantic.ts'
import { messageText } from './helpers/fake-model.ts'
import {
  reply,
  search,
  startConversations,
  write,
  type HeadlessConversations,
} from './helpers/headless-conversation.ts'

let conversations: HeadlessConversations
let semantic: FakeSemantic

before(async () => {
  conversations = await startConversations()
  semantic = await startFakeSemantic()
})

after(async () => {
  await semantic.close()
  await conversations.close()
})

/** Read the store file directly (read-only), as a person inspecting it would. */
function readStore<T>(read: (db: Database.Database) => T): T {
  const db = new Database(join(conversations.home.dataDir, 'memory.db'), { readonly: true })
  try {
    return read(db)
  } finally {
    db.close()
  }
}

const vectorCount = (): number =>
  readStore((db) => Number((db.prepare('SELECT count(*) AS n FROM fact_vectors').get() as { n: number }).n))

/** The plugin's configuration lines for a profile patch. */
function patch(lines: Record<string, string | number>): string {
  return `- id: dsh-fact-memory\n  config:\n${Object.entries(lines)
    .map(([key, value]) => `    ${key}: ${typeof value === 'string' ? JSON.stringify(value) : value}\n`)
    .join('')}`
}

const embeddingConfig = (model: string): Record<string, string | number> => ({
  embeddingSource: 'openai',
  embeddingBaseUrl: `${semantic.url}/v1`,
  embeddingModel: model,
})

describe('semantic channels in one-shot headless runs', () => {
  after(() => conversations.home.writeProfilePatch('headless', '[]\n'))

  it('with the defaults nothing at all is sent to an embedding or rerank endpoint', async () => {
    conversations.home.writeProfilePatch('headless', '[]\n')
    semantic.reset()
    const { toolResults } = await conversations.converse(
      'remember the billing port',
      write({ subject: 'billing-api', property: 'port', value: '7801' }),
      search({ query: 'billing-api port' }),
      reply,
    )
    assert.match(toolResults[1] ?? '', /7801/u)
    assert.match(toolResults[1] ?? '', /Channels: [^.]*bm25/u)
    assert.doesNotMatch(toolResults[1] ?? '', /vector/u)
    assert.equal(semantic.requests.length, 0)
    assert.equal(vectorCount(), 0)
  })

  it('a write leaves its vector for the next run (flushed on unload); a sensitive fact is never sent', async () => {
    conversations.home.writeProfilePatch('headless', patch(embeddingConfig('fake-embed-1')))
    semantic.reset()
    await conversations.converse(
      'remember these',
      write({ subject: 'ops team', property: 'email', value: 'ops-oncall@example.com' }),
      write({ subject: 'user', property: 'favorite drink', value: 'latte' }),
      reply,
    )
    const sent = semantic.sentTexts().join('\n')
    assert.match(sent, /billing-api · port: 7801/u, 'the earlier fact got its vector in this run')
    assert.match(sent, /favorite drink: latte/u)
    assert.doesNotMatch(sent, /ops-oncall@example\.com/u, 'a sensitive fact never leaves the machine')
    assert.ok(semantic.requests.every((request) => request.kind === 'embeddings'))
    assert.equal(vectorCount(), 2)
  })

  it('a Chinese question finds the English fact through the vector channel', async () => {
    semantic.reset()
    const { toolResults } = await conversations.converse('问一下', search({ query: '账单服务监听哪个端口' }), reply)
    const answer = toolResults[0] ?? ''
    assert.match(answer, /^outcome: ok/u, answer)
    assert.match(answer, /billing-api · port: 7801/u)
    assert.match(answer, /Channels: [^.]*vector/u)
    // Per-turn recall embeds the user's message ('问一下'); the search embeds its query once.
    const inputs = semantic.requests
      .filter((request) => request.kind === 'embeddings')
      .map((request) => JSON.stringify((request.body as { input?: unknown }).input))
    assert.equal(inputs.filter((input) => input.includes('账单服务监听哪个端口')).length, 1, 'one query embedding')
    assert.equal(
      inputs.filter((input) => input.includes('问一下')).length,
      1,
      "one embedding of the user's message, for recall",
    )
  })

  it('a slow endpoint degrades to the lexical channels within the budget and says so', async () => {
    semantic.reset()
    semantic.script.embedDelayMs = 5_000
    const { toolResults } = await conversations.converse('billing?', search({ query: 'billing-api port' }), reply)
    const answer = toolResults[0] ?? ''
    assert.match(answer, /billing-api · port: 7801/u)
    // The vector call gets what is left of the search's 800 ms budget: most of it on a quiet machine, less when the
    // lexical channels ran long under load, never more.
    const budget = /Degraded: vector \(timeout: [^)]*?(\d+) ms/u.exec(answer)
    assert.ok(budget !== null && Number(budget[1]) <= 800, answer)
    semantic.script.embedDelayMs = 0
  })

  it('a model change retires the old vectors: the vector channel stays out, the lexical channels still answer', async () => {
    conversations.home.writeProfilePatch('headless', patch(embeddingConfig('fake-embed-2')))
    semantic.reset()
    // Coffee is no concept of the software lexicon: without the old vectors nothing bridges 咖啡 and "latte".
    const { toolResults } = await conversations.converse(
      '问一下',
      search({ query: '我最爱喝的咖啡' }),
      search({ query: 'billing-api port' }),
      reply,
    )
    assert.match(toolResults[0] ?? '', /^outcome: not_found/u, 'the old vectors are no candidates')
    assert.match(toolResults[1] ?? '', /billing-api · port: 7801/u)
    assert.match(toolResults[1] ?? '', /1 current fact found here has no vector yet/u)
    assert.equal(
      semantic.requests.filter((request) => request.kind === 'embeddings').length,
      0,
      'no vectors of this model yet: nothing to ask',
    )
  })
})

describe('semantic channels in a web host: Rebuild vectors, status, rerank and calibration', () => {
  let host: WebHost
  let api: FactMemoryApi
  const lastToolResult = (): string =>
    conversations.model
      .agentRequests()
      .at(-1)
      ?.body.messages.filter((message) => message.role === 'tool')
      .map(messageText)
      .at(-1) ?? ''

  before(async () => {
    conversations.home.writeProfilePatch(
      'web',
      patch({
        ...embeddingConfig('fake-embed-1'),
        rerankSource: 'json',
        rerankBaseUrl: `${semantic.url}/v1`,
        rerankModel: 'fake-rerank-1',
      }),
    )
    host = await startWebHost(conversations.home, conversations.model.url)
    api = new FactMemoryApi(host.url)
  })

  after(async () => {
    await host.stop()
    conversations.home.writeProfilePatch('web', '[]\n')
  })

  it('loads the vectors of the model in force as it starts, before any search (the warm start), and status says so', async () => {
    // The one-shot runs above left two vectors of fake-embed-1. No search has run in this host.
    const asked = conversations.model.agentRequests().length
    let held: unknown = null
    for (const deadline = Date.now() + 10_000; held === null && Date.now() < deadline; ) {
      const status = await api.ok('status')
      held = (status['semantic'] as { embedding: Record<string, unknown> }).embedding['inMemory'] ?? null
      if (held === null) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const { vectors, bytes } = held as { vectors: number; bytes: number }
    assert.equal(vectors, 2)
    assert.ok(bytes > 0)
    assert.equal(conversations.model.agentRequests().length, asked, 'no turn ran')
    assert.equal(
      semantic.requests.filter((request) => request.kind === 'embeddings').length,
      0,
      'no query was embedded',
    )
  })

  it('Rebuild vectors sweeps now and status reports the channel, its vectors and the calibration state', async () => {
    const rebuilt = await api.ok('index-vectors', { force: true })
    assert.equal((rebuilt['sweep'] as { outcome: string }).outcome, 'swept')
    const status = await api.ok('status')
    const semanticStatus = status['semantic'] as { embedding: Record<string, unknown>; rerank: Record<string, unknown> }
    assert.equal(semanticStatus.embedding['configured'], true)
    assert.match(String(semanticStatus.embedding['fingerprint']), /^emb-[0-9a-f]{16}$/u)
    assert.deepEqual(semanticStatus.embedding['vectors'], { current: 2, stale: 0, missing: 0, excluded: 1 })
    assert.equal((semanticStatus.rerank['calibration'] as { state: string }).state, 'uncalibrated')
    assert.doesNotMatch(JSON.stringify(status), /fake-key/u)
  })

  it('an out-of-range rerank score invalidates the whole rerank and the answer says so', async () => {
    semantic.script.rerankScores = { shift: 1.5 }
    await converseWeb(host.url, conversations.model, conversations.home.workspace, 'billing?', {
      toolCalls: [{ name: 'memory_search', arguments: { query: 'billing-api port' } }],
    })
    const answer = lastToolResult()
    assert.match(answer, /billing-api · port: 7801/u)
    assert.match(answer, /Degraded: rerank \(score_out_of_range/u, answer)
    semantic.script.rerankScores = 'cosine'
  })

  it('an uncalibrated rerank orders the results, filters nothing and reports rerank_uncalibrated', async () => {
    await converseWeb(host.url, conversations.model, conversations.home.workspace, 'billing?', {
      toolCalls: [{ name: 'memory_search', arguments: { query: 'billing-api port' } }],
    })
    const answer = lastToolResult()
    assert.match(answer, /Channels: [^.]*vector, rerank\./u, answer)
    assert.match(answer, /rerank_uncalibrated/u)
    assert.match(answer, /1\. billing-api · port: 7801/u, 'the reranker put the port first')
    assert.match(answer, /favorite drink: latte/u, 'nothing was filtered')
  })

  it("calibrate refuses too few pairs, then calibrates from the user's pairs; the rerank then filters", async () => {
    const refused = await api.ok('calibrate', {
      pairs: [{ query: 'which port', document: 'svc · port: 80', relevant: true }],
    })
    assert.equal(refused['outcome'], 'refused')
    const pairs = Array.from({ length: 20 }, (_, n) => [
      { query: `which port does service ${n} listen on`, document: `service-${n} · port: ${8000 + n}`, relevant: true },
      {
        query: `which port does service ${n} listen on`,
        document: `user · favorite drink: latte number ${n}`,
        relevant: false,
      },
    ]).flat()
    const calibrated = await api.ok('calibrate', { pairs })
    assert.equal(calibrated['outcome'], 'calibrated', JSON.stringify(calibrated))
    assert.ok(Number(calibrated['precision']) >= 0.95 && Number(calibrated['recall']) >= 0.8)
    await converseWeb(host.url, conversations.model, conversations.home.workspace, 'billing?', {
      toolCalls: [{ name: 'memory_search', arguments: { query: 'billing-api port' } }],
    })
    const answer = lastToolResult()
    assert.match(answer, /billing-api · port: 7801/u)
    assert.doesNotMatch(answer, /rerank_uncalibrated/u)
    assert.doesNotMatch(answer, /favorite drink: latte/u, 'the calibrated rerank filtered the unrelated fact')
    assert.match(answer, /left out 1 candidate below its threshold/u)
    const status = await api.ok('status')
    assert.equal(
      (status['semantic'] as { rerank: { calibration: { state: string } } }).rerank.calibration.state,
      'calibrated',
    )
  })

  it('a fact written in the web host gets its vector right after the write', async () => {
    semantic.reset()
    await converseWeb(host.url, conversations.model, conversations.home.workspace, 'remember', {
      toolCalls: [writeCall({ subject: 'user', property: 'pet', value: 'a dog named Miso' })],
    })
    const deadline = Date.now() + 10_000
    while (!semantic.sentTexts().some((text) => text.includes('a dog named Miso')) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100))
    assert.ok(
      semantic.sentTexts().some((text) => text.includes('user · pet: a dog named Miso')),
      'the write asked for a sweep',
    )
  })

  it('a hanging embedding endpoint: after three timeouts the turns are answered without a call, the answer and status say it cools down', async () => {
    semantic.reset()
    semantic.script.embedDelayMs = 60_000
    const embedded = (): number => semantic.requests.filter((request) => request.kind === 'embeddings').length
    const turn = (n: number): Promise<string> =>
      converseWeb(host.url, conversations.model, conversations.home.workspace, `billing, take ${n}?`, {
        toolCalls: [{ name: 'memory_search', arguments: { query: `billing-api port ${n}` } }],
      })
    // Each turn embeds twice: its per-turn recall the user's message, then memory_search its query.
    await turn(1)
    assert.match(lastToolResult(), /Degraded: vector \(timeout/u)
    await turn(2)
    assert.equal(embedded(), 3, "the third timeout (turn 2's recall) opened the breaker; turn 2's search made no call")
    assert.match(lastToolResult(), /Degraded: vector \(cooling_down: skipped the embedding endpoint without a call/u)
    for (let n = 3; n <= 5; n += 1) {
      await turn(n)
      const answer = lastToolResult()
      assert.match(answer, /billing-api · port: 7801/u, 'the lexical answer stands')
      assert.match(
        answer,
        /Degraded: vector \(cooling_down: [^)]*3 times in a row \(last: timeout\); it is tried again after \d{4}-/u,
        answer,
      )
    }
    assert.equal(embedded(), 3, 'three more turns, recall and search each, without a call to the dead endpoint')
    const breaker = (await api.ok('status'))['semantic'] as {
      embedding: { breaker: Record<string, unknown> }
      rerank: { breaker: Record<string, unknown> }
    }
    assert.equal(breaker.embedding.breaker['state'], 'open')
    assert.equal(breaker.embedding.breaker['consecutiveFailures'], 3)
    assert.equal((breaker.embedding.breaker['lastError'] as { code: string }).code, 'timeout')
    assert.ok(Date.parse(String(breaker.embedding.breaker['until'])) > Date.now(), 'open until an instant to come')
    assert.equal(breaker.rerank.breaker['state'], 'closed', 'the reranker has its own breaker')
    semantic.script.embedDelayMs = 0
  })
})

describe("docs/semantic.md's local servers, last: its fact would change the counts the web host checks", () => {
  after(() => conversations.home.writeProfilePatch('headless', '[]\n'))

  it("docs/semantic.md's configuration for local servers, as written, runs both channels on this machine", async () => {
    const page = readFileSync(join(REPO_ROOT, 'docs/semantic.md'), 'utf8')
    const block = /\*\*With nothing leaving the machine\.\*\*[\s\S]*?```yaml\n([\s\S]*?)```/u.exec(page)?.[1]
    assert.ok(block !== undefined, 'docs/semantic.md has no local configuration')
    assert.match(block, /http:\/\/127\.0\.0\.1:11434\/v1/u)
    conversations.home.writeProfilePatch(
      'headless',
      block.replaceAll('http://127.0.0.1:11434', semantic.url).replaceAll('http://127.0.0.1:8012', semantic.url),
    )
    semantic.reset()
    await conversations.converse(
      'remember the deploy host',
      write({ subject: 'deploy host', property: 'name', value: 'blue-7.internal' }),
      reply,
    )
    const { toolResults } = await conversations.converse(
      'where do deploys go?',
      search({ query: 'deploy host' }),
      reply,
    )
    assert.match(toolResults[0] ?? '', /blue-7\.internal/u)
    assert.match(toolResults[0] ?? '', /Channels: [^.]*vector/u)
    const models = new Set(
      semantic.requests.map((request) => `${request.kind} ${String((request.body as { model?: unknown }).model)}`),
    )
    assert.deepEqual([...models].sort(), ['embeddings bge-m3', 'rerank bge-reranker-v2-m3'])
    assert.ok(
      semantic.requests.every((request) => request.authorization === undefined || request.authorization === 'Bearer '),
      'no key is sent',
    )
  })
})
