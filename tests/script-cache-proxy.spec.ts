/**
 * The proxy the browser tier opens every host through (tests/helpers/script-cache-proxy.ts): it marks only the host's
 * content-named scripts immutable and passes everything else through as the host sent it.
 */
import assert from 'node:assert/strict'
import { createServer, request, type Server } from 'node:http'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import {
  IMMUTABLE,
  namesItsContent,
  type ScriptCacheProxy,
  startScriptCacheProxy,
} from './helpers/script-cache-proxy.ts'

/** A stand-in host: every answer says `no-cache`, echoes what it got, and an upgrade echoes its bytes back. */
function standInHost(name = 'first'): Server {
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = []
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
    incoming.on('end', () => {
      const status = incoming.url === '/missing.js?rev=0123456789ab' ? 404 : 200
      outgoing.writeHead(status, { 'cache-control': 'no-cache', 'content-type': 'text/plain', 'x-host': name })
      outgoing.end(`${incoming.method} ${incoming.url} ${incoming.headers.host} ${Buffer.concat(chunks).toString()}`)
    })
  })
  server.on('upgrade', (_incoming, socket) => {
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n')
    socket.pipe(socket)
  })
  return server
}

/** Start a stand-in host on a free loopback port; its origin. */
async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  assert.ok(address !== null && typeof address === 'object')
  return `http://127.0.0.1:${address.port}`
}

function fetchThrough(url: string, init: { method?: string; body?: string } = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
    const sent = request(url, { method: init.method ?? 'GET', agent: false }, (answer) => {
      const chunks: Buffer[] = []
      answer.on('data', (chunk: Buffer) => chunks.push(chunk))
      answer.on('end', () =>
        resolve({ status: answer.statusCode ?? 0, headers: answer.headers, text: Buffer.concat(chunks).toString() }),
      )
    })
    sent.on('error', reject)
    sent.end(init.body)
  })
}

describe('the script cache proxy in front of a host', () => {
  const host = standInHost()
  let origin = ''
  let proxy: ScriptCacheProxy

  before(async () => {
    origin = await listening(host)
    proxy = await startScriptCacheProxy(origin)
  })
  after(async () => {
    await proxy.close()
    await new Promise((resolve) => host.close(resolve))
  })

  it("knows the host's content-named scripts, and nothing else, by their path", () => {
    for (const path of [
      '/assets/index-CA9Bpko5.js',
      '/assets/vendor-D22_Mp1f.js',
      '/assets/index-BNMwCG9c.css',
      '/plugins/@deepseek-ai/dsh-client-runtime/client.js?rev=aba836a0c42d',
      '/plugins/dsh-fact-memory/client.js?rev=0596c7be126b',
    ]) {
      assert.equal(namesItsContent(path), true, path)
    }
    for (const path of [
      '/',
      '/assets/logo.svg',
      '/assets/index.js',
      '/plugins/dsh-fact-memory/client.js',
      '/plugins/dsh-fact-memory/client.js?rev=',
      '/api/fact-memory/assets/nebula.js?rev=0596c7be126b',
      '/api/fact-memory/status',
    ]) {
      assert.equal(namesItsContent(path), false, path)
    }
  })

  it('keeps the URL but for its origin', () => {
    const url = proxy.url(`${origin}/sub/path?q=1#fact-memory/conflicts`)
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/sub\/path\?q=1#fact-memory\/conflicts$/u)
    assert.notEqual(new URL(url).port, new URL(origin).port)
  })

  it("marks a content-named script's answer immutable and leaves its body, status and other headers", async () => {
    const script = await fetchThrough(proxy.url(`${origin}/plugins/x/client.js?rev=0123456789ab`))
    assert.equal(script.status, 200)
    assert.equal(script.headers['cache-control'], IMMUTABLE)
    assert.equal(script.headers['x-host'], 'first')
    assert.match(script.text, /^GET \/plugins\/x\/client\.js\?rev=0123456789ab 127\.0\.0\.1:\d+ $/u)
  })

  it('passes every other answer through as the host sent it, a request body and a failed script included', async () => {
    const posted = await fetchThrough(proxy.url(`${origin}/api/fact-memory/fact-add`), {
      method: 'POST',
      body: '{"subject":"port"}',
    })
    assert.equal(posted.headers['cache-control'], 'no-cache')
    assert.match(posted.text, /^POST \/api\/fact-memory\/fact-add \S+ \{"subject":"port"\}$/u)
    const missing = await fetchThrough(proxy.url(`${origin}/missing.js?rev=0123456789ab`))
    assert.deepEqual([missing.status, missing.headers['cache-control']], [404, 'no-cache'])
    assert.equal((await fetchThrough(proxy.url(`${origin}/`))).headers['cache-control'], 'no-cache')
  })

  it('passes to another host once retargeted, under the same origin, and back', async () => {
    const second = standInHost('second')
    const secondOrigin = await listening(second)
    const before = proxy.url(`${origin}/`)
    try {
      proxy.retarget(secondOrigin)
      assert.equal(proxy.origin(), secondOrigin)
      assert.equal(proxy.url(`${secondOrigin}/`), before)
      assert.equal((await fetchThrough(before)).headers['x-host'], 'second')
    } finally {
      proxy.retarget(origin)
      await new Promise((resolve) => second.close(resolve))
    }
    assert.equal((await fetchThrough(before)).headers['x-host'], 'first')
  })

  it('carries an upgraded connection both ways', async () => {
    const { port } = new URL(proxy.url(origin))
    const socket = connect(Number(port), '127.0.0.1')
    const received: Buffer[] = []
    socket.on('data', (chunk: Buffer) => received.push(chunk))
    socket.write('GET /live HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n')
    const until = async (pattern: RegExp) => {
      for (let tries = 0; tries < 100 && !pattern.test(Buffer.concat(received).toString()); tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      assert.match(Buffer.concat(received).toString(), pattern)
    }
    await until(/^HTTP\/1\.1 101 /u)
    socket.write('ping through the proxy')
    await until(/ping through the proxy$/u)
    socket.destroy()
  })
})
