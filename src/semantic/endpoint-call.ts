/**
 * One JSON POST to an embedding or rerank endpoint under a call's limits, with every way it can fail answered as an
 * {@link EndpointFailure}: no answer within the budget (`timeout`), the caller's signal (`cancelled`), no connection
 * (`unreachable`), a status other than 2xx (`http_error`, with at most 200 characters of the body) and a body that
 * is not JSON (`bad_response`). It never throws, and no message it builds contains the key. A connection reset before
 * any answer (a kept-alive socket the server had closed while this process was busy) is tried once more on a fresh
 * one: embedding and rerank calls change nothing at the endpoint, so a second send is safe.
 */
import { messageOf } from '../errors.ts'
import { maskKey } from './key-mask.ts'
import type { CallLimits, EndpointFailure, EndpointFailureCode } from './types.ts'

/** The most characters of an error body a failure message quotes. */
const BODY_EXCERPT = 200
/** Error bodies are masked over this many leading characters before the excerpt is cut. */
const BODY_SCAN = 4000
/** The longest budget a timer takes (about 24.8 days); longer budgets are clamped to it. */
const MAX_TIMER_MS = 2 ** 31 - 1

/** One request. */
export interface JsonPost {
  /** The full URL, from {@link endpointUrl}. */
  readonly url: string
  /** What the endpoint is, as messages name it: "embedding endpoint", "rerank endpoint". */
  readonly what: string
  /** Sent as `authorization: Bearer <key>` when non-empty. */
  readonly apiKey: string | undefined
  readonly body: unknown
}

/** The parsed JSON of a 2xx answer, or why there is none. */
export type JsonAnswer = { readonly ok: true; readonly json: unknown } | EndpointFailure

/**
 * The URL of one verb of an endpoint.
 * @param baseUrl - the configured base URL; trailing slashes are ignored.
 * @param verb - `embeddings` or `rerank`.
 * @returns `<base>/<verb>`.
 */
export function endpointUrl(baseUrl: string, verb: string): string {
  return `${baseUrl.replace(/\/+$/u, '')}/${verb}`
}

/**
 * A failure whose message is masked against the key.
 * @param code - the closed code.
 * @param message - the sentence; the key and anything like it are masked.
 * @param apiKey - the key of the call.
 * @returns the failure.
 */
export function endpointFailure(
  code: EndpointFailureCode,
  message: string,
  apiKey: string | undefined,
): EndpointFailure {
  return { ok: false, code, message: maskKey(message, apiKey) }
}

/**
 * POST a JSON body and read a JSON answer.
 * @param post - URL, the endpoint's name for messages, key and body.
 * @param limits - the budget in ms (also covers reading the answer) and the caller's signal.
 * @param fetchImpl - the fetch to use.
 * @returns the parsed answer or a failure; never throws.
 */
export async function postJson(post: JsonPost, limits: CallLimits, fetchImpl: typeof fetch): Promise<JsonAnswer> {
  const budgetMs = Number.isFinite(limits.timeoutMs)
    ? Math.min(Math.max(0, Math.floor(limits.timeoutMs)), MAX_TIMER_MS)
    : MAX_TIMER_MS
  const fail = (code: EndpointFailureCode, message: string): EndpointFailure =>
    endpointFailure(code, message, post.apiKey)
  if (limits.signal?.aborted === true) return fail('cancelled', `the ${post.what} call was cancelled before it started`)
  const timeout = AbortSignal.timeout(budgetMs)
  const signal = limits.signal === undefined ? timeout : AbortSignal.any([limits.signal, timeout])
  const aborted = (): EndpointFailure | undefined => {
    if (!signal.aborted) return undefined
    // The combined signal carries the reason of whichever signal fired first.
    return signal.reason === timeout.reason
      ? fail('timeout', `the ${post.what} did not answer within ${budgetMs} ms`)
      : fail('cancelled', `the ${post.what} call was cancelled`)
  }
  const key = post.apiKey ?? ''
  const send = (): Promise<Response> =>
    fetchImpl(post.url, {
      method: 'POST',
      signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(key === '' ? {} : { authorization: `Bearer ${key}` }),
      },
      body: JSON.stringify(post.body),
    })
  let response: Response
  try {
    response = await send().catch((error: unknown) => {
      if (signal.aborted || !wasReset(error)) throw error
      return send()
    })
  } catch (error) {
    return (
      aborted() ??
      fail('unreachable', `the ${post.what} at ${originOf(post.url)} could not be reached: ${causeOf(error)}`)
    )
  }
  let text: string
  try {
    text = await response.text()
  } catch (error) {
    return (
      aborted() ??
      fail('unreachable', `the ${post.what} at ${originOf(post.url)} broke off its answer: ${causeOf(error)}`)
    )
  }
  if (!response.ok) {
    const excerpt = maskKey(text.slice(0, BODY_SCAN), post.apiKey).replace(/\s+/gu, ' ').trim().slice(0, BODY_EXCERPT)
    return fail(
      'http_error',
      `the ${post.what} answered HTTP ${response.status}${excerpt === '' ? '' : `: ${excerpt}`}`,
    )
  }
  try {
    return { ok: true, json: JSON.parse(text) as unknown }
  } catch {
    return fail('bad_response', `the ${post.what} answered HTTP ${response.status} with a body that is not JSON`)
  }
}

/** Socket errors of a connection the server reset or closed before answering (undici wraps them as `cause`). */
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'])

/** Whether fetch failed because the connection was reset or closed under the request, before any answer. */
export function wasReset(error: unknown): boolean {
  const cause: unknown = error instanceof Error ? error.cause : undefined
  const code = cause instanceof Error ? (cause as { code?: unknown }).code : undefined
  return typeof code === 'string' && RESET_CODES.has(code)
}

/** The scheme, host and port of a URL, without credentials, path or query (which may carry secrets). */
function originOf(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : 'an invalid URL'
}

/** The most specific reason fetch gives (undici wraps the socket error as `cause`). */
function causeOf(error: unknown): string {
  const cause: unknown = error instanceof Error ? error.cause : undefined
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code
    return typeof code === 'string' ? `${code} (${cause.message})` : cause.message
  }
  return messageOf(error)
}
