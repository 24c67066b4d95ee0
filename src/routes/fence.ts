/**
 * Pure request fence for the management routes. The routes sit under the host's /api prefix but bypass its own
 * trust checks, so before any handler runs: the Host must be loopback, a private IP literal, or a name the user
 * allowed; an Origin, when sent, must be the request's own origin; cross-site fetches are refused; the body must
 * be JSON; and its declared size must fit.
 */
import type { ErrorCode } from '../errors.ts'

/** The request facts the fence looks at (header names lower-cased). */
export interface FenceRequest {
  readonly method: string | undefined
  readonly host: string | undefined
  readonly origin: string | undefined
  readonly secFetchSite: string | undefined
  readonly contentType: string | undefined
  readonly contentLength: string | undefined
}

/** A refusal: HTTP status, closed code and a sentence. */
export interface FenceRefusal {
  readonly status: 403 | 405 | 413 | 415
  readonly code: ErrorCode
  readonly message: string
}

/**
 * Check a request.
 * @param request - method and headers.
 * @param allowedHosts - extra host names the user allowed (DSH_FACT_MEMORY_ALLOWED_HOSTS, read per request).
 * @param bodyLimit - the largest body this verb accepts, in bytes.
 * @returns undefined when the request may proceed, else the refusal.
 */
export function checkRequest(
  request: FenceRequest,
  allowedHosts: readonly string[],
  bodyLimit: number,
): FenceRefusal | undefined {
  if (request.method !== 'POST') return { status: 405, code: 'method_not_allowed', message: 'use POST' }
  const host = request.host?.trim().toLowerCase()
  if (!isHostAllowed(request.host, allowedHosts)) {
    return {
      status: 403,
      code: 'forbidden',
      message: `host ${JSON.stringify(request.host ?? '')} is not allowed; loopback and private IP addresses are, other names must be listed in DSH_FACT_MEMORY_ALLOWED_HOSTS`,
    }
  }
  const foreign = foreignOrigin(request.origin, host)
  if (foreign !== undefined) return foreign
  if (request.secFetchSite?.toLowerCase() === 'cross-site') {
    return { status: 403, code: 'forbidden', message: 'cross-site requests are refused' }
  }
  const mediaType = request.contentType?.split(';')[0]?.trim().toLowerCase()
  if (mediaType !== 'application/json') {
    return { status: 415, code: 'unsupported_media_type', message: 'send the body as application/json' }
  }
  if (request.contentLength !== undefined) {
    const length = Number(request.contentLength)
    if (!Number.isSafeInteger(length) || length < 0)
      return { status: 413, code: 'payload_too_large', message: 'invalid content-length' }
    if (length > bodyLimit)
      return { status: 413, code: 'payload_too_large', message: `the body is larger than ${bodyLimit} bytes` }
  }
  return undefined
}

/** The request facts a file download is judged by (header names lower-cased). */
export type DownloadRequest = Pick<FenceRequest, 'method' | 'host' | 'origin' | 'secFetchSite'>

/**
 * Check a request for a file the page downloads (an export): GET or HEAD, the same Host rule as the verbs, an Origin
 * (when sent) that is the request's own, and no other site behind it: a browser that says the request came from
 * another site, even a sibling port of the same host (`same-site`), is refused; a navigation the user typed (`none`)
 * and the page's own link (`same-origin`) pass.
 * @param request - method and headers.
 * @param allowedHosts - extra host names the user allowed.
 * @returns undefined when the request may proceed, else the refusal.
 */
export function checkDownload(request: DownloadRequest, allowedHosts: readonly string[]): FenceRefusal | undefined {
  if (request.method !== 'GET' && request.method !== 'HEAD')
    return { status: 405, code: 'method_not_allowed', message: 'use GET' }
  if (!isHostAllowed(request.host, allowedHosts)) {
    return { status: 403, code: 'forbidden', message: `host ${JSON.stringify(request.host ?? '')} is not allowed` }
  }
  const foreign = foreignOrigin(request.origin, request.host?.trim().toLowerCase())
  if (foreign !== undefined) return foreign
  const site = request.secFetchSite?.toLowerCase()
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return { status: 403, code: 'forbidden', message: 'a download started by another site is refused' }
  }
  return undefined
}

/**
 * The refusal of an Origin header (when one is sent) that is not this server's own, over http or https.
 * @param origin - the Origin header, if any.
 * @param host - the request's Host, trimmed and lower-cased.
 * @returns undefined when no Origin was sent or it is the request's own, else the refusal.
 */
function foreignOrigin(origin: string | undefined, host: string | undefined): FenceRefusal | undefined {
  if (origin === undefined) return undefined
  const sent = origin.trim().toLowerCase()
  if (sent === `http://${host}` || sent === `https://${host}`) return undefined
  return { status: 403, code: 'forbidden', message: `origin ${JSON.stringify(origin)} does not match this server` }
}

/**
 * Whether a Host header names this machine as the user meant: loopback, a private IP literal, or an allowed name.
 * @param host - the Host header.
 * @param allowedHosts - extra allowed host names.
 * @returns true when allowed.
 */
export function isHostAllowed(host: string | undefined, allowedHosts: readonly string[]): boolean {
  const hostname = host === undefined ? undefined : hostnameOf(host.trim().toLowerCase())
  return (
    hostname !== undefined && (isLoopback(hostname) || isPrivateLiteral(hostname) || allowedHosts.includes(hostname))
  )
}

/**
 * Parse DSH_FACT_MEMORY_ALLOWED_HOSTS: comma- or space-separated host names, without ports.
 * @param value - the variable's value.
 * @returns lower-cased host names.
 */
export function parseAllowedHosts(value: string | undefined): string[] {
  return (value ?? '')
    .split(/[\s,]+/u)
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '')
    .map((entry) => hostnameOf(entry) ?? entry)
}

/** `[::1]:3999` → `::1`, `localhost:3999` → `localhost`; undefined for an empty or malformed Host. */
function hostnameOf(host: string): string | undefined {
  if (host === '') return undefined
  if (host.startsWith('[')) {
    const end = host.indexOf(']')
    if (end < 0) return undefined
    const rest = host.slice(end + 1)
    if (rest !== '' && !/^:\d{1,5}$/u.test(rest)) return undefined
    return host.slice(1, end)
  }
  const colon = host.lastIndexOf(':')
  if (colon >= 0) {
    if (!/^\d{1,5}$/u.test(host.slice(colon + 1))) return undefined
    return host.slice(0, colon)
  }
  return host
}

function isLoopback(hostname: string): boolean {
  if (hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '::1') return true
  const v4 = ipv4(hostname)
  return v4 !== undefined && v4[0] === 127
}

function isPrivateLiteral(hostname: string): boolean {
  const v4 = ipv4(hostname)
  if (v4 !== undefined) {
    const [a, b] = v4 as [number, number, number, number]
    return (
      a === 10 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254) ||
      (a === 100 && b >= 64 && b <= 127)
    )
  }
  if (!hostname.includes(':') || !/^[0-9a-f:.]+$/u.test(hostname)) return false
  // IPv6 unique-local (fc00::/7) and link-local (fe80::/10).
  return /^f[cd][0-9a-f]{0,2}:/u.test(hostname) || /^fe[89ab][0-9a-f]?:/u.test(hostname)
}

function ipv4(hostname: string): number[] | undefined {
  const parts = hostname.split('.')
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/u.test(part))) return undefined
  const numbers = parts.map(Number)
  return numbers.every((n) => n <= 255) ? numbers : undefined
}
