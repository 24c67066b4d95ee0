/**
 * A loopback proxy in front of a DSH web host that lets a browser context keep the host's scripts between page loads.
 *
 * DSH serves its client bundles (about 5 MB of JavaScript on every page load: its own assets and one bundle per
 * client plugin, ours among them) with `cache-control: no-cache` and no validator, so every load of a kept context
 * downloads and compiles all of it again. Their URLs name their content (`/assets/<name>-<hash>.js`, a plugin's
 * `client.js?rev=<hash>`), so the proxy marks those responses immutable and passes every other request, response and
 * WebSocket through untouched. A load in a kept context then costs Chromium about 1.6 CPU-s instead of 2.4
 * (measured for issue 33). A proxy can pass to another host when its own has stopped, keeping
 * its origin and so the browser's cache: a spec file's next host, or a bundle's next file's, loads warm too (1.2-1.5
 * CPU-s instead of 2.3-2.6). Every byte still comes from the host.
 */
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http'
import { connect } from 'node:net'

/**
 * The host's own requests whose answer is named by its content, so a cached copy can never be stale: its assets, and
 * each client plugin's bundle. The plugin's own routes (`/api/fact-memory/...`) answer for their caching themselves.
 */
const CONTENT_NAMED = /^\/(?:assets\/[^/?]+-[\w-]{6,}\.(?:js|css)$|plugins\/[^?]+\/client\.js\?rev=[0-9a-f]{8,}$)/u

/** The year-long, never-revalidated caching a content-named answer gets. */
export const IMMUTABLE = 'public, max-age=31536000, immutable'

/** Headers that belong to one connection, never forwarded (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
])

/**
 * Whether a GET of this path and query names its content.
 * @param pathAndQuery - the request target, as the browser sent it.
 */
export function namesItsContent(pathAndQuery: string): boolean {
  return CONTENT_NAMED.test(pathAndQuery)
}

function forwarded(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)))
}

/** A running proxy: the host it passes to, the URL to open instead of the host's, and how to stop it. */
export interface ScriptCacheProxy {
  /** The origin of the host it passes requests to now. */
  readonly origin: () => string
  /**
   * Pass requests to another host from now on, under the same origin, so a browser context keeps the scripts it
   * cached from the last host: they are named by their content, the same for every host of this build.
   */
  readonly retarget: (origin: string) => void
  /** The host's URL (path, query and hash kept) with the proxy's origin. */
  readonly url: (hostUrl: string) => string
  readonly close: () => Promise<void>
}

/**
 * Start a proxy for the host at `origin` on a free loopback port. It never keeps the process alive on its own.
 * @param origin - the host's origin, `http://127.0.0.1:<port>`.
 */
export async function startScriptCacheProxy(origin: string): Promise<ScriptCacheProxy> {
  let target = new URL(origin)
  const server: Server = createServer((incoming, outgoing) => {
    const path = incoming.url ?? '/'
    const upstream = request(
      { host: target.hostname, port: Number(target.port), method: incoming.method, path, headers: incoming.headers },
      (answer) => {
        const headers = forwarded(answer.headers)
        if (incoming.method === 'GET' && answer.statusCode === 200 && namesItsContent(path)) {
          headers['cache-control'] = IMMUTABLE
        }
        outgoing.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers)
        answer.pipe(outgoing)
      },
    )
    upstream.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502)
      outgoing.end()
    })
    // A stream the page gives up on (an event stream, a cancelled fetch) ends upstream too.
    outgoing.on('close', () => upstream.destroy())
    incoming.pipe(upstream)
  })
  // Upgraded connections leave the server's own books; the proxy's close ends them too.
  const upgraded = new Set<{ destroy: () => void }>()
  server.on('upgrade', (incoming, socket, head) => {
    const upstream = connect(Number(target.port), target.hostname, () => {
      const lines = [`${incoming.method} ${incoming.url} HTTP/1.1`]
      for (let index = 0; index < incoming.rawHeaders.length; index += 2) {
        lines.push(`${incoming.rawHeaders[index]}: ${incoming.rawHeaders[index + 1]}`)
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`)
      upstream.write(head)
      socket.pipe(upstream).pipe(socket)
    })
    upgraded.add(socket).add(upstream)
    const end = () => {
      socket.destroy()
      upstream.destroy()
      upgraded.delete(socket)
      upgraded.delete(upstream)
    }
    upstream.on('error', end).on('close', end)
    socket.on('error', end).on('close', end)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  server.unref()
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('the script cache proxy has no port')
  return {
    origin: () => target.origin,
    retarget: (next) => {
      target = new URL(next)
    },
    url: (hostUrl) => {
      const url = new URL(hostUrl)
      url.host = `127.0.0.1:${address.port}`
      return url.href
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
        for (const connection of upgraded) connection.destroy()
      }),
  }
}
