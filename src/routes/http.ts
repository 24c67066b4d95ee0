/**
 * The HTTP shell of POST /api/fact-memory/<verb>: fence first, then read the body within its cap, parse JSON,
 * validate with the verb's zod schema, run the handler, and answer JSON with a status from the closed code table.
 * Bad input is a 4xx; nothing a request sends can make it throw past this point.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { z } from 'zod'
import type { ErrorCode } from '../errors.ts'
import { toPublicError } from '../errors.ts'
import type { OpenStores } from '../store/store-set.ts'
import { checkRequest } from './fence.ts'
import type { DispatchedVerb, VerbContext, VerbOutcome } from '../management/verb.ts'

/** The path prefix every verb lives under. */
export const ROUTE_PREFIX = '/api/fact-memory'

/** Default body cap: generous for any edit, small enough to refuse abuse. */
export const DEFAULT_BODY_LIMIT = 64 * 1024
/** The most of a refused body read and dropped before the answer; a larger one is cut off after the answer. */
export const DRAIN_LIMIT = 16 * 1024 * 1024
/** The longest a refused body is waited for before the answer goes anyway. */
export const DRAIN_MS = 5000

/** HTTP status of each closed code. */
const STATUS: Readonly<Record<ErrorCode, number>> = {
  invalid_arguments: 400,
  unknown_verb: 404,
  not_found: 404,
  method_not_allowed: 405,
  forbidden: 403,
  unsupported_media_type: 415,
  payload_too_large: 413,
  stale: 409,
  operation_collision: 409,
  slot_occupied: 409,
  confirm_required: 409,
  credential_refused: 422,
  tombstoned: 422,
  refused: 422,
  invalid_path: 422,
  busy: 503,
  unavailable: 409,
  storage_unavailable: 409,
  store_from_newer_version: 409,
  foreign_database: 409,
  internal_error: 500,
}

/** What the shell needs at request time. */
export interface RouteDeps {
  readonly verbs: Readonly<Record<string, DispatchedVerb>>
  /** Host names allowed besides loopback and private literals; read per request. */
  readonly allowedHosts: () => readonly string[]
  /** The open stores as the verbs take them (FactMemory.stores()), or why there are none. */
  readonly stores: () =>
    | { readonly stores: OpenStores }
    | { readonly unavailable: { readonly code: ErrorCode; readonly message: string } }
  /** Everything else a handler gets. */
  readonly context: () => Omit<VerbContext, 'stores'>
}

/**
 * Build the route handler.
 * @param deps - verbs and request-time dependencies.
 * @returns a handler for the host web server's prefix route.
 */
export function createRouteHandler(deps: RouteDeps): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  // Requests carrying the same operation id run one after another, so a double click on a verb that awaits (a
  // backup before a wipe) is answered by the first receipt instead of racing it.
  const inFlight = new Map<string, Promise<unknown>>()
  const serialized = async <T>(operationId: string | undefined, work: () => Promise<T>): Promise<T> => {
    if (operationId === undefined) return work()
    const previous = inFlight.get(operationId) ?? Promise.resolve()
    const current = previous.then(work, work)
    inFlight.set(operationId, current)
    try {
      return await current
    } finally {
      if (inFlight.get(operationId) === current) inFlight.delete(operationId)
    }
  }
  return async (req, res) => {
    const name = verbName(req.url ?? '')
    const definition = name === undefined ? undefined : Object.hasOwn(deps.verbs, name) ? deps.verbs[name] : undefined
    const limit = definition?.bodyLimit ?? DEFAULT_BODY_LIMIT
    const refusal = checkRequest(
      {
        method: req.method,
        host: header(req, 'host'),
        origin: header(req, 'origin'),
        secFetchSite: header(req, 'sec-fetch-site'),
        contentType: header(req, 'content-type'),
        contentLength: header(req, 'content-length'),
      },
      deps.allowedHosts(),
      limit,
    )
    if (refusal !== undefined) {
      // The client may still be sending: what it sends is read and dropped before the answer, so it can read the answer.
      await drainBody(req)
      send(res, refusal.status, failure({ ok: false, code: refusal.code, message: refusal.message }), true)
      return
    }
    if (definition === undefined) {
      await drainBody(req)
      send(
        res,
        404,
        failure({
          ok: false,
          code: 'unknown_verb',
          message: `no verb ${JSON.stringify(name ?? '')} under ${ROUTE_PREFIX}`,
        }),
        true,
      )
      return
    }
    const raw = await readBody(req, limit)
    if (raw === 'too_large') {
      // The rest of the body is read and dropped, up to a bound, then the answer goes and the connection closes; past
      // the bound it is dropped at once, the answer written first.
      const drained = await drainBody(req)
      if (!drained) res.once('finish', () => req.destroy())
      send(
        res,
        413,
        failure({ ok: false, code: 'payload_too_large', message: `the body is larger than ${limit} bytes` }),
        true,
      )
      return
    }
    const parsed = parseJson(raw)
    if (!parsed.ok) {
      send(res, 400, failure({ ok: false, code: 'invalid_arguments', message: parsed.message }))
      return
    }
    const validated = (definition.schema as z.ZodType).safeParse(parsed.value, { reportInput: true })
    if (!validated.success) {
      send(res, 400, failure({ ok: false, code: 'invalid_arguments', message: describeIssues(validated.error.issues) }))
      return
    }
    const outcome = await serialized(operationIdOf(validated.data), async (): Promise<VerbOutcome> => {
      try {
        const opened = deps.stores()
        if ('unavailable' in opened && definition.storeless !== true) {
          return { ok: false, code: 'unavailable', message: opened.unavailable.message }
        }
        const stores = 'stores' in opened ? opened.stores : undefined
        return await definition.run(validated.data, { ...deps.context(), stores: stores as OpenStores })
      } catch (error) {
        const { code, message } = toPublicError(error)
        return { ok: false, code, message }
      }
    })
    if (outcome.ok) send(res, 200, { ok: true, ...outcome.data })
    else send(res, STATUS[outcome.code], failure(outcome))
  }
}

/** `/api/fact-memory/status?x` → `status`; anything deeper or empty → undefined. */
function verbName(url: string): string | undefined {
  const path = url.split('?')[0] ?? ''
  if (!path.startsWith(`${ROUTE_PREFIX}/`)) return undefined
  const rest = path.slice(ROUTE_PREFIX.length + 1)
  return /^[a-z][a-z-]{0,40}$/u.test(rest) ? rest : undefined
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value.join(', ') : value
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large'> {
  const chunks: Buffer[] = []
  let size = 0
  // The stream is left open when the loop stops early, so the 413 can still be written on it.
  for await (const chunk of req.iterator({ destroyOnReturn: false })) {
    const buffer = chunk as Buffer
    size += buffer.byteLength
    if (size > limit) return 'too_large'
    chunks.push(buffer)
  }
  return Buffer.concat(chunks)
}

/**
 * Read and drop the rest of a refused request's body, so a client still sending can read the answer that follows rather
 * than meet a closed connection.
 * @param req - the request.
 * @returns true when the body ended within {@link DRAIN_LIMIT} bytes and {@link DRAIN_MS}; false when it was cut off.
 */
function drainBody(req: IncomingMessage): Promise<boolean> {
  if (req.readableEnded) return Promise.resolve(true)
  return new Promise((resolve) => {
    let drained = 0
    const done = (ended: boolean): void => {
      clearTimeout(timer)
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onEnd)
      if (!ended) req.pause()
      resolve(ended)
    }
    const onData = (chunk: Buffer): void => {
      drained += chunk.byteLength
      if (drained > DRAIN_LIMIT) done(false)
    }
    const onEnd = (): void => done(true)
    const timer = setTimeout(() => done(false), DRAIN_MS)
    req.on('data', onData)
    req.once('end', onEnd)
    req.once('error', onEnd)
    req.resume()
  })
}

function operationIdOf(body: unknown): string | undefined {
  const id = (body as { operationId?: unknown } | null)?.operationId
  return typeof id === 'string' ? id : undefined
}

function parseJson(raw: Buffer): { ok: true; value: unknown } | { ok: false; message: string } {
  if (raw.byteLength === 0)
    return { ok: false, message: 'the body is empty: send a JSON object ({} when the verb takes no arguments)' }
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw)
  } catch {
    return { ok: false, message: 'the body is not valid UTF-8' }
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch (error) {
    return {
      ok: false,
      message: `the body is not valid JSON: ${error instanceof Error ? error.message : 'parse error'}`,
    }
  }
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const problems = issues.slice(0, 8).map((issue) => {
    if (issue.code === 'unrecognized_keys')
      return `unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((key) => `"${key}"`).join(', ')}`
    const field = issue.path.length === 0 ? 'body' : issue.path.map(String).join('.')
    if (issue.code === 'invalid_type') {
      if (issue.input === undefined) return `${field}: is required`
      if (issue.expected === 'int') return `${field}: must be a whole number`
      return `${field}: expected ${issue.expected}`
    }
    return `${field}: ${issue.message}`
  })
  return `invalid request — ${problems.join('; ')}`
}

function failure(outcome: Extract<VerbOutcome, { ok: false }>): Record<string, unknown> {
  return { ok: false, ...(outcome.details ?? {}), error: { code: outcome.code, message: outcome.message } }
}

function send(res: ServerResponse, status: number, body: Record<string, unknown>, close = false): void {
  if (res.headersSent) return
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...(close ? { connection: 'close' } : {}),
  })
  res.end(text)
}
