/**
 * A local OpenAI-compatible embedding endpoint and Cohere/Jina-style rerank endpoint on loopback, standing in for
 * real models the way fake-model.ts does for chat. `POST …/embeddings` answers {@link fakeEmbedding} vectors;
 * `POST …/rerank` answers max(0, cosine) of the same vectors, sorted best first as real rerankers do. The returned
 * `script` is read on every request, so a test changes latency, failures, dimensions and score ranges by assigning
 * to it. Every request is recorded (URL, path, parsed body, authorization header, arrival time), so a test can
 * assert exactly which texts left the plugin.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cosine, fakeEmbedding } from './fake-embedding.ts'

export { cosine, fakeEmbedding } from './fake-embedding.ts'

/** How rerank scores are produced: max(0, cosine) in [0, 1], its logit (unbounded), or the cosine plus a shift. */
export type FakeScoreMode = 'cosine' | 'logit' | { readonly shift: number }

/** What the fake does, read on every request; assign to change it. */
export interface FakeSemanticScript {
  /** Wait this long before answering an embedding request. */
  embedDelayMs: number
  /** Wait this long before answering a rerank request. */
  rerankDelayMs: number
  /** Fail embedding requests with this status; the body echoes the request's authorization header, as a careless proxy might. */
  embedStatus: number | undefined
  /** Fail rerank requests with this status (same body). */
  rerankStatus: number | undefined
  /** Answer embeddings of this dimension instead of the server's. */
  embedDim: number | undefined
  /** Return embeddings in input order or reversed (the client must order them by `index`). */
  embedOrder: 'input' | 'reversed'
  /** How rerank scores are produced. */
  rerankScores: FakeScoreMode
  /** When set, scripted failures answer this body instead of the JSON that echoes the authorization header. */
  errorBody: string | undefined
  /** When set, embedding requests naming another model get 404. */
  embeddingModel: string | undefined
  /** When set, rerank requests naming another model get 404. */
  rerankModel: string | undefined
  /** When set, embedding requests get this raw body with status 200 instead of the computed answer. */
  embedBody: string | undefined
  /** When set, rerank requests get this raw body with status 200 instead of the computed answer. */
  rerankBody: string | undefined
}

/** Which endpoint a request was for. */
export type SemanticEndpointKind = 'embeddings' | 'rerank' | 'other'

/** A recorded request. */
export interface SemanticRequest {
  /** The absolute URL requested. */
  readonly url: string
  /** Its path, e.g. `/v1/embeddings`. */
  readonly path: string
  readonly kind: SemanticEndpointKind
  readonly method: string
  /** The parsed JSON body, or the raw text when it was not JSON. */
  readonly body: unknown
  /** The body exactly as received. */
  readonly raw: string
  readonly authorization: string | undefined
  /** Arrival time, epoch ms. */
  readonly receivedAt: number
}

/** The running fake. */
export interface FakeSemantic {
  /** Base URL (`http://127.0.0.1:<port>`); any path prefix such as `/v1` is accepted. */
  readonly url: string
  readonly requests: SemanticRequest[]
  readonly script: FakeSemanticScript
  /** Every text sent so far: embedding inputs, rerank queries and rerank documents. */
  sentTexts(): string[]
  /** Forget the recorded requests and restore the default script. */
  reset(): void
  /** Stop the server, dropping open connections and pending delayed answers. */
  close(): Promise<void>
}

/** Options fixed at start. */
export interface FakeSemanticOptions {
  /** The embedding dimension (default 64). */
  readonly dim?: number
}

/** A score of 0 or 1 maps to a logit of about ±13.8 instead of ±Infinity. */
const LOGIT_EPSILON = 1e-6

/**
 * Start the fake on a free loopback port.
 * @param options - the embedding dimension.
 * @returns the running fake.
 */
export async function startFakeSemantic(options: FakeSemanticOptions = {}): Promise<FakeSemantic> {
  const dim = options.dim ?? 64
  const requests: SemanticRequest[] = []
  const script = defaultScript()
  const pending = new Set<NodeJS.Timeout>()
  const later = (res: ServerResponse, delayMs: number, answer: () => void): void => {
    if (delayMs <= 0) {
      answer()
      return
    }
    const timer = setTimeout(() => {
      pending.delete(timer)
      if (!res.destroyed) answer()
    }, delayMs)
    pending.add(timer)
    res.on('close', () => {
      clearTimeout(timer)
      pending.delete(timer)
    })
  }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const recorded = record(req, Buffer.concat(chunks).toString('utf8'), server.address() as AddressInfo)
      requests.push(recorded)
      if (recorded.method !== 'POST' || recorded.kind === 'other') {
        json(res, 404, { error: { message: `no such endpoint: ${recorded.method} ${recorded.path}` } })
        return
      }
      if (recorded.kind === 'embeddings')
        later(res, script.embedDelayMs, () => answerEmbeddings(res, recorded, script, dim))
      else later(res, script.rerankDelayMs, () => answerRerank(res, recorded, script, dim))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    script,
    sentTexts: () => requests.flatMap((request) => textsOf(request)),
    reset() {
      requests.length = 0
      Object.assign(script, defaultScript())
    },
    async close() {
      for (const timer of pending) clearTimeout(timer)
      pending.clear()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function defaultScript(): FakeSemanticScript {
  return {
    embedDelayMs: 0,
    rerankDelayMs: 0,
    embedStatus: undefined,
    rerankStatus: undefined,
    embedDim: undefined,
    embedOrder: 'input',
    rerankScores: 'cosine',
    errorBody: undefined,
    embeddingModel: undefined,
    rerankModel: undefined,
    embedBody: undefined,
    rerankBody: undefined,
  }
}

function record(req: IncomingMessage, raw: string, address: AddressInfo): SemanticRequest {
  const url = new URL(req.url ?? '/', `http://127.0.0.1:${address.port}`)
  let body: unknown = raw
  try {
    body = JSON.parse(raw)
  } catch {
    // Not JSON: the raw text is recorded and the answer is an error.
  }
  const kind: SemanticEndpointKind = url.pathname.endsWith('/embeddings')
    ? 'embeddings'
    : url.pathname.endsWith('/rerank')
      ? 'rerank'
      : 'other'
  return {
    url: url.href,
    path: url.pathname,
    kind,
    method: req.method ?? '',
    body,
    raw,
    authorization: req.headers.authorization,
    receivedAt: Date.now(),
  }
}

function answerEmbeddings(
  res: ServerResponse,
  request: SemanticRequest,
  script: FakeSemanticScript,
  dim: number,
): void {
  if (script.embedStatus !== undefined) return failWith(res, script.embedStatus, request, script.errorBody)
  const body = objectOf(request.body) as { model?: unknown; input?: unknown }
  if (script.embeddingModel !== undefined && body.model !== script.embeddingModel)
    return json(res, 404, { error: { message: `model ${String(body.model)} not found` } })
  if (script.embedBody !== undefined) return answerRaw(res, script.embedBody)
  const input = typeof body.input === 'string' ? [body.input] : body.input
  if (!Array.isArray(input) || !input.every((text) => typeof text === 'string'))
    return json(res, 400, { error: { message: 'input must be a string or an array of strings' } })
  const data = input.map((text, index) => ({
    object: 'embedding',
    index,
    embedding: Array.from(fakeEmbedding(text, script.embedDim ?? dim)),
  }))
  if (script.embedOrder === 'reversed') data.reverse()
  json(res, 200, {
    object: 'list',
    model: body.model,
    data,
    usage: { prompt_tokens: input.length, total_tokens: input.length },
  })
}

function answerRerank(res: ServerResponse, request: SemanticRequest, script: FakeSemanticScript, dim: number): void {
  if (script.rerankStatus !== undefined) return failWith(res, script.rerankStatus, request, script.errorBody)
  const body = objectOf(request.body) as { model?: unknown; query?: unknown; documents?: unknown; top_n?: unknown }
  if (script.rerankModel !== undefined && body.model !== script.rerankModel)
    return json(res, 404, { error: { message: `model ${String(body.model)} not found` } })
  if (script.rerankBody !== undefined) return answerRaw(res, script.rerankBody)
  const documents = Array.isArray(body.documents) ? body.documents.map(documentText) : undefined
  if (typeof body.query !== 'string' || documents === undefined || documents.some((text) => text === undefined)) {
    return json(res, 400, { error: { message: 'query must be a string and documents an array of strings' } })
  }
  const query = fakeEmbedding(body.query, dim)
  const results = documents
    .map((text, index) => ({
      index,
      relevance_score: shapeScore(Math.max(0, cosine(query, fakeEmbedding(text ?? '', dim))), script.rerankScores),
    }))
    .sort((a, b) => b.relevance_score - a.relevance_score)
  const topN = typeof body.top_n === 'number' ? body.top_n : results.length
  json(res, 200, { model: body.model, results: results.slice(0, topN) })
}

/** A JSON body's object, or an empty one. */
function objectOf(body: unknown): object {
  return typeof body === 'object' && body !== null ? body : {}
}

function shapeScore(score: number, mode: FakeScoreMode): number {
  if (mode === 'cosine') return score
  if (mode === 'logit') return Math.log((score + LOGIT_EPSILON) / (1 - score + LOGIT_EPSILON))
  return score + mode.shift
}

function documentText(document: unknown): string | undefined {
  if (typeof document === 'string') return document
  const text = (document as { text?: unknown } | null)?.text
  return typeof text === 'string' ? text : undefined
}

function textsOf(request: SemanticRequest): string[] {
  const body = request.body as { input?: unknown; query?: unknown; documents?: unknown } | null
  if (typeof body !== 'object' || body === null) return typeof body === 'string' ? [body] : []
  const input = typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) ? body.input : []
  const documents = Array.isArray(body.documents) ? body.documents.map(documentText) : []
  return [...input, body.query, ...documents].filter((text): text is string => typeof text === 'string')
}

function failWith(res: ServerResponse, status: number, request: SemanticRequest, errorBody: string | undefined): void {
  if (errorBody !== undefined) {
    res.writeHead(status, { 'content-type': 'text/plain' }).end(errorBody)
    return
  }
  json(res, status, { error: { message: `scripted failure ${status}`, authorization: request.authorization ?? null } })
}

function json(res: ServerResponse, status: number, payload: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload))
}

function answerRaw(res: ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(body)
}
