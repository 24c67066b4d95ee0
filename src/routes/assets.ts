/**
 * GET /api/fact-memory/assets/<file>: the page's lazily loaded chunks (the three.js graph), served from the built
 * lib/client directory. Only the listed files exist; the Host must pass the same check as the API. A request that
 * names the chunk by its content (`?rev=`, as the page does) may be kept by the browser for good; any other is
 * revalidated.
 */
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { fileURLToPath } from 'node:url'
import { isHostAllowed } from './fence.ts'
import { ROUTE_PREFIX } from './http.ts'

/** Where asset URLs start. */
export const ASSET_PREFIX = `${ROUTE_PREFIX}/assets/`

/** The servable files and their media types. */
const ASSETS: Readonly<Record<string, string>> = {
  'nebula.js': 'text/javascript; charset=utf-8',
  'nebula.js.map': 'application/json; charset=utf-8',
}

/** How long a browser may keep a chunk its request names by content: it can never change under that name. */
const KEPT = 'public, max-age=31536000, immutable'

/**
 * The name scripts/build-client.mjs gives a chunk's content in the page's request for it (`?rev=`): the first 12 hex
 * digits of its SHA-256.
 * @param body - the chunk's bytes.
 */
export function contentRev(body: Uint8Array): string {
  return createHash('sha256').update(body).digest('hex').slice(0, 12)
}

/** The built client directory: src/routes and lib/routes both sit two levels below the package root. */
const CLIENT_DIR = fileURLToPath(new URL('../../lib/client/', import.meta.url))

/**
 * Answer an asset request.
 * @param req - the request (its URL starts with ASSET_PREFIX).
 * @param res - the response.
 * @param allowedHosts - host names allowed besides loopback and private literals.
 */
export async function serveAsset(
  req: IncomingMessage,
  res: ServerResponse,
  allowedHosts: readonly string[],
): Promise<void> {
  const [path = '', query = ''] = (req.url ?? '').split('?')
  const name = path.slice(ASSET_PREFIX.length)
  const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined
  const refusal =
    req.method !== 'GET' && req.method !== 'HEAD'
      ? ([405, 'use GET'] as const)
      : !isHostAllowed(req.headers.host, allowedHosts)
        ? ([403, 'host not allowed'] as const)
        : type === undefined
          ? ([404, 'not found'] as const)
          : undefined
  if (refusal !== undefined || type === undefined) {
    res.writeHead(refusal?.[0] ?? 404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
    res.end(refusal?.[1] ?? 'not found')
    return
  }
  try {
    const body = await readFile(`${CLIENT_DIR}${name}`)
    res.writeHead(200, {
      'content-type': type,
      'content-length': body.byteLength,
      'cache-control': new URLSearchParams(query).get('rev') === contentRev(body) ? KEPT : 'no-cache',
      'x-content-type-options': 'nosniff',
    })
    res.end(req.method === 'HEAD' ? undefined : body)
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
    res.end('not built: run npm run build')
  }
}
