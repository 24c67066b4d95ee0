/**
 * One JSON POST to an embedding or rerank endpoint (src/semantic/endpoint-call.ts), against a real HTTP server on
 * loopback: a connection the server resets before answering is sent once more on a fresh one; a second reset, or a
 * refused connection, is `unreachable` in words.
 */
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, describe, it } from 'node:test'
import { postJson } from '../src/semantic/endpoint-call.ts'

/** A server that resets the connection of its first `resets` requests (after reading each), then answers `{ok: n}`. */
async function resettingServer(resets: number): Promise<{ url: string; requests: () => number; server: Server }> {
  let requests = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      requests += 1
      if (requests <= resets) {
        req.socket.resetAndDestroy()
        return
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: requests }))
    })
  })
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/embeddings`, requests: () => requests, server }
}

const post = (url: string) => ({ url, what: 'embedding endpoint', apiKey: 'sk-test', body: { input: ['a'] } })

describe('a JSON POST to an endpoint', () => {
  const servers: Server[] = []
  after(() => {
    for (const server of servers) server.close()
  })

  it('sends once more on a fresh connection when the server reset the first before answering', async () => {
    const { url, requests, server } = await resettingServer(1)
    servers.push(server)
    const answer = await postJson(post(url), { timeoutMs: 5000 }, fetch)
    assert.deepEqual(answer, { ok: true, json: { ok: 2 } })
    assert.equal(requests(), 2)
  })

  it('answers unreachable, in words and without the key, when the second send is reset too', async () => {
    const { url, requests, server } = await resettingServer(5)
    servers.push(server)
    const answer = await postJson(post(url), { timeoutMs: 5000 }, fetch)
    assert.equal(answer.ok, false)
    assert.equal(answer.ok ? '' : answer.code, 'unreachable')
    assert.match(
      answer.ok ? '' : answer.message,
      /^the embedding endpoint at http:\/\/127\.0\.0\.1:\d+ could not be reached: /u,
    )
    assert.doesNotMatch(answer.ok ? '' : answer.message, /sk-test/u)
    assert.equal(requests(), 2, 'one send more, not a loop')
  })

  it('does not send again when nothing listens (a refused connection is no reset)', async () => {
    const { url, server } = await resettingServer(0)
    await new Promise((closed) => server.close(closed))
    let calls = 0
    const counted: typeof fetch = (input, init) => {
      calls += 1
      return fetch(input, init)
    }
    const answer = await postJson(post(url), { timeoutMs: 5000 }, counted)
    assert.equal(answer.ok ? '' : answer.code, 'unreachable')
    assert.equal(calls, 1)
  })
})
