/**
 * GET /api/fact-memory/exports/<name>: one file the export verb wrote, sent as a download, so the page hands the
 * browser the very bytes left in `<dataDir>/exports/` (secrets masked and sensitive values withheld as the export
 * wrote them; nothing is rendered again). Only names the export verb gives its files are served, confined to the data
 * directory after resolving symlinks; the request passes the download fence (Host, Origin, no other site behind it).
 */
import { createReadStream, statSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { confinePath } from '../exchange/paths.ts'
import { EXPORT_DIR } from '../management/export.ts'
import type { OpenStores } from '../store/store-set.ts'
import { checkDownload } from './fence.ts'
import { ROUTE_PREFIX } from './http.ts'

/** Where download URLs start. */
export const EXPORT_FILE_PREFIX = `${ROUTE_PREFIX}/${EXPORT_DIR}/`

/** The names the export verb writes: `facts-<instant>[-n].jsonl` and `library-<instant>[-n].md`. */
const EXPORT_NAME = /^(?:facts-[0-9A-Za-z-]{1,80}\.jsonl|library-[0-9A-Za-z-]{1,80}\.md)$/u

/** The media type of each kind of export. */
const MEDIA_TYPE: Readonly<Record<string, string>> = {
  jsonl: 'application/x-ndjson; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
}

/**
 * Answer a download request.
 * @param req - the request (its URL starts with EXPORT_FILE_PREFIX).
 * @param res - the response.
 * @param allowedHosts - host names allowed besides loopback and private literals.
 * @param stores - the open stores, or undefined when the store is not open.
 */
export function serveExportFile(
  req: IncomingMessage,
  res: ServerResponse,
  allowedHosts: readonly string[],
  stores: OpenStores | undefined,
): void {
  const refusal = checkDownload(
    {
      method: req.method,
      host: header(req, 'host'),
      origin: header(req, 'origin'),
      secFetchSite: header(req, 'sec-fetch-site'),
    },
    allowedHosts,
  )
  if (refusal !== undefined) return plain(res, refusal.status, refusal.message)
  const name = decodedName((req.url ?? '').split('?')[0]?.slice(EXPORT_FILE_PREFIX.length) ?? '')
  if (name === undefined || !EXPORT_NAME.test(name)) return plain(res, 404, 'no such export')
  if (stores === undefined) return plain(res, 409, 'the store is not open')
  const confined = confinePath(stores.dataDir, `${EXPORT_DIR}/${name}`)
  if (!confined.ok || confined.relativePath !== `${EXPORT_DIR}/${name}`) return plain(res, 404, 'no such export')
  let size: number
  try {
    const stat = statSync(confined.path)
    if (!stat.isFile()) return plain(res, 404, 'no such export')
    size = stat.size
  } catch {
    return plain(res, 404, 'no such export')
  }
  res.writeHead(200, {
    'content-type': MEDIA_TYPE[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream',
    'content-length': size,
    'content-disposition': `attachment; filename="${name}"`,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  })
  if (req.method === 'HEAD') {
    res.end()
    return
  }
  const stream = createReadStream(confined.path)
  stream.on('error', () => {
    res.destroy()
  })
  stream.pipe(res)
}

/** The last path segment, percent-decoded; undefined when it is malformed or names a deeper path. */
function decodedName(raw: string): string | undefined {
  try {
    const name = decodeURIComponent(raw)
    return name.includes('/') || name.includes('\\') ? undefined : name
  } catch {
    return undefined
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value.join(', ') : value
}

function plain(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  })
  res.end(message)
}
