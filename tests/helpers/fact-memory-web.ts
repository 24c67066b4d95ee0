/**
 * HTTP-level helpers for the management routes of a real DSH web host: boot a host with extra environment (for
 * DSH_FACT_MEMORY_ALLOWED_HOSTS), raw `node:http` requests with any Host/Origin/content-type (fetch forbids setting
 * Host), verb calls through fetch, the host's own /api client requests, and a scripted conversation that seeds facts
 * through the fake model.
 */
import { type Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { wasReset } from '../../src/semantic/endpoint-call.ts'
import type { FakeModel, ScriptStep } from './fake-model.ts'
import { patient } from './poll.ts'

/** The path prefix of every verb. */
export const PREFIX = '/api/fact-memory'

/** A parsed answer of the management API. */
export interface VerbResponse {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly text: string
  /** The parsed JSON body, or undefined when it was not JSON. */
  readonly json: Record<string, unknown> | undefined
}

/** A raw request: any method, path, headers and body bytes. */
export interface RawRequest {
  readonly method?: string
  readonly path: string
  readonly headers?: Readonly<Record<string, string>>
  /** Sent with a content-length unless `chunked` is set. */
  readonly body?: string | Buffer
  /** Send the body with chunked transfer encoding (no content-length). */
  readonly chunked?: boolean
  readonly agent?: Agent
}

/**
 * Send one raw HTTP request to a host URL with exactly the headers given (a `host` header overrides the default).
 * @param baseUrl - e.g. http://127.0.0.1:1234.
 * @param raw - method, path, headers, body.
 * @returns status, headers, text and the parsed JSON body.
 */
export function rawRequest(baseUrl: string, raw: RawRequest): Promise<VerbResponse> {
  const url = new URL(baseUrl)
  const body = raw.body === undefined ? undefined : Buffer.isBuffer(raw.body) ? raw.body : Buffer.from(raw.body, 'utf8')
  const headers: Record<string, string | number> = { ...raw.headers }
  if (
    body !== undefined &&
    raw.chunked !== true &&
    !Object.keys(headers).some((key) => key.toLowerCase() === 'content-length')
  ) {
    headers['content-length'] = body.byteLength
  }
  return new Promise((resolveResponse, reject) => {
    let settled = false
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: raw.method ?? 'POST',
        path: raw.path,
        headers,
        ...(raw.agent === undefined ? { agent: false } : { agent: raw.agent }),
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('error', (error) => {
          if (!settled) {
            settled = true
            reject(error)
          }
        })
        res.on('end', () => {
          if (settled) return
          settled = true
          const text = Buffer.concat(chunks).toString('utf8')
          resolveResponse({ status: res.statusCode ?? 0, headers: res.headers, text, json: parseObject(text) })
        })
      },
    )
    req.on('error', (error) => {
      if (!settled) {
        settled = true
        reject(error)
      }
    })
    if (body !== undefined && raw.chunked === true) {
      // Several writes so the body really travels as chunks.
      const step = 16 * 1024
      for (let at = 0; at < body.byteLength; at += step) req.write(body.subarray(at, at + step))
    } else if (body !== undefined) {
      req.write(body)
    }
    req.end()
  })
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/** The management API of one host, through fetch (same-origin, as the page sends it). */
export class FactMemoryApi {
  readonly url: string
  private operations = 0

  /** @param url - the host's base URL. */
  constructor(url: string) {
    this.url = url
  }

  /** A fresh operation id, unique across the run. */
  op(label = 'op'): string {
    this.operations += 1
    return `${label}-${process.pid}-${Date.now().toString(36)}-${this.operations}`
  }

  /**
   * POST a JSON body to a verb.
   * @param verb - the verb name.
   * @param body - the value to send as JSON.
   * @returns status and parsed body.
   */
  async post(verb: string, body: unknown = {}): Promise<VerbResponse> {
    const send = (): Promise<Response> =>
      fetch(`${this.url}${PREFIX}/${verb}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    // A kept-alive socket the host closed while this process was stalled (a loaded machine) fails before any answer;
    // the request is sent once more on a fresh one. Safe for every verb: reads change nothing, and a fenced write
    // sent twice with its operation id is answered from its receipt.
    const response = await send().catch((error: unknown) => {
      if (!wasReset(error)) throw error
      return send()
    })
    const text = await response.text()
    return { status: response.status, headers: Object.fromEntries(response.headers), text, json: parseObject(text) }
  }

  /**
   * POST and expect `200 {ok:true}`.
   * @param verb - the verb name.
   * @param body - the body.
   * @returns the parsed body.
   */
  async ok(verb: string, body: unknown = {}): Promise<Record<string, unknown>> {
    const response = await this.post(verb, body)
    if (response.status !== 200 || response.json?.['ok'] !== true) {
      throw new Error(`${verb} ${JSON.stringify(body)} answered ${response.status}: ${response.text.slice(0, 2000)}`)
    }
    return response.json
  }

  /** The store generation, read through the status verb. */
  async generation(): Promise<number> {
    const status = await this.ok('status', { summary: true })
    const generation = status['generation']
    if (typeof generation !== 'number') throw new Error(`status has no generation: ${JSON.stringify(status)}`)
    return generation
  }

  /**
   * A fenced edit's body: the generation read now and a fresh operation id, then `extra`.
   * @param extra - the edit's own fields.
   * @returns the body.
   */
  async fence(extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    return { expectedGeneration: await this.generation(), operationId: this.op(), ...extra }
  }
}

/**
 * Call the host's own client API (`POST /api/<method>` with a client-request envelope).
 * @param url - the host's base URL.
 * @param method - e.g. `session.create`.
 * @param payload - the request payload.
 * @returns the result value; throws when the host refused.
 */
export async function hostApi<T>(url: string, method: string, payload: unknown): Promise<T> {
  const response = await fetch(`${url}/api/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      type: 'client-request',
      rpcId: `r-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`,
      method,
      payload,
    }),
  })
  const body = (await response.json()) as { result?: { ok: boolean; value?: T; error?: unknown } }
  if (body.result?.ok !== true) throw new Error(`${method} failed: ${JSON.stringify(body)}`)
  return body.result.value as T
}

/**
 * Start a web session, send one prompt, and wait until the model has answered every scripted step (then a final
 * "Done."), so every tool call of the script has run.
 * @param url - the host's base URL.
 * @param model - the fake model.
 * @param workspace - the session's working directory.
 * @param prompt - the user's message.
 * @param steps - scripted agent steps.
 * @returns the session id.
 */
export async function converse(
  url: string,
  model: FakeModel,
  workspace: string,
  prompt: string,
  ...steps: ScriptStep[]
): Promise<string> {
  return promptSession(url, model, workspace, prompt, ...steps, { text: 'Done.' })
}

/**
 * Start a web session, send one prompt, and wait until the model has answered every scripted step, the last one a
 * text that ends the turn; the script replaces whatever the model had queued.
 * @param url - the host's base URL.
 * @param model - the fake model.
 * @param cwd - the session's working directory.
 * @param prompt - the user's message.
 * @param steps - scripted agent steps, ending with the model's closing text.
 * @returns the session id.
 */
export async function promptSession(
  url: string,
  model: FakeModel,
  cwd: string,
  prompt: string,
  ...steps: ScriptStep[]
): Promise<string> {
  model.reset()
  model.enqueue(...steps)
  const { sessionId } = await hostApi<{ sessionId: string }>(url, 'session.create', { cwd })
  await hostApi(url, 'session.prompt', { sessionId, mode: 'queue', content: [{ type: 'text', text: prompt }] })
  const waitMs = patient(30_000)
  const deadline = Date.now() + waitMs
  while (model.agentRequests().length < steps.length) {
    if (Date.now() > deadline) throw new Error(`the turn did not finish in ${waitMs / 1000} s`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return sessionId
}

/** A memory_write tool call for the fake model. */
export function writeCall(args: Record<string, unknown>): { readonly name: string; readonly arguments: unknown } {
  return { name: 'memory_write', arguments: args }
}
