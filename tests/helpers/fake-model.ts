/**
 * A scripted OpenAI-compatible chat-completions server on loopback, standing in for the model. Requests that
 * carry tools are agent steps and consume the script in order; extraction calls (tool-less, with the extraction or
 * merge system prompt) consume the extraction script; the near-duplicate review's closed question consumes its own
 * verdict script, so a sweep never takes an answer meant for extraction; other tool-less requests (session titles) get a short fixed
 * answer. Streaming and non-streaming requests are both answered. Every request body is recorded so tests can
 * assert what the model received.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { EXTRACTION_SYSTEM_PROMPT, MERGE_SYSTEM_PROMPT } from '../../src/extract/prompt.ts'
import { VERDICT_SYSTEM_PROMPT } from '../../src/review/verdict-prompt.ts'

/** One scripted answer to an extraction call: a text (after an optional delay), or an HTTP failure. */
export type ExtractionReply = { readonly text: string; readonly delayMs?: number } | { readonly status: number }

/** One scripted agent step. */
export type ScriptStep =
  | { readonly toolCalls: readonly { readonly name: string; readonly arguments: unknown }[] }
  | { readonly text: string }
  /** Stream this text and then hold the response open until the client goes away (a turn to be cancelled). */
  | { readonly stall: string }

/** A recorded request. */
export interface RecordedRequest {
  readonly url: string
  readonly body: ChatBody
  /** Whether the request offered tools (an agent step). */
  readonly agentStep: boolean
  /** Whether it was an extraction (or merge) call. */
  readonly extraction: boolean
  /** Whether it was the near-duplicate review's closed question. */
  readonly verdict: boolean
  /** When it arrived (epoch ms). */
  readonly receivedAt: number
  /** The request's authorization header, if any. */
  readonly authorization: string | undefined
}

/** The parts of an OpenAI chat body the tests read. */
export interface ChatBody {
  readonly messages: readonly ChatMessage[]
  readonly tools?: readonly { readonly function?: { readonly name?: string } }[]
  readonly [key: string]: unknown
}

/** One chat message. */
export interface ChatMessage {
  readonly role: string
  readonly content?: unknown
  readonly tool_calls?: unknown
  readonly tool_call_id?: string
}

/** The fake model server. */
export class FakeModel {
  readonly requests: RecordedRequest[] = []
  private readonly server: Server
  private readonly script: ScriptStep[] = []
  private readonly extractionScript: ExtractionReply[] = []
  private readonly verdictScript: ExtractionReply[] = []
  private counter = 0

  private constructor(server: Server) {
    this.server = server
  }

  /** Start on a free loopback port. */
  static async start(): Promise<FakeModel> {
    let model: FakeModel | undefined
    const server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () =>
        model?.handle(req.url ?? '', Buffer.concat(chunks).toString('utf8'), res, req.headers.authorization),
      )
    })
    model = new FakeModel(server)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return model
  }

  /** Base URL for DEEPSEEK_BASE_URL. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
  }

  /** Queue agent steps; an exhausted script answers "done". */
  enqueue(...steps: ScriptStep[]): void {
    this.script.push(...steps)
  }

  /** Queue answers to extraction calls; an exhausted script answers `{"facts": []}`. */
  enqueueExtraction(...replies: ExtractionReply[]): void {
    this.extractionScript.push(...replies)
  }

  /** Queue answers to the near-duplicate review's closed question; an exhausted script answers `{"verdict": "unsure"}`. */
  enqueueVerdicts(...replies: ExtractionReply[]): void {
    this.verdictScript.push(...replies)
  }

  /** The closed questions recorded so far. */
  verdictRequests(): RecordedRequest[] {
    return this.requests.filter((request) => request.verdict)
  }

  /** Extraction calls recorded so far. */
  extractionRequests(): RecordedRequest[] {
    return this.requests.filter((request) => request.extraction)
  }

  /** Agent-step requests recorded so far. */
  agentRequests(): RecordedRequest[] {
    return this.requests.filter((request) => request.agentStep)
  }

  /** Forget recorded requests and any unused script. */
  reset(): void {
    this.requests.length = 0
    this.script.length = 0
    this.extractionScript.length = 0
    this.verdictScript.length = 0
  }

  /** Stop the server. */
  async close(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private handle(
    url: string,
    raw: string,
    res: import('node:http').ServerResponse,
    authorization: string | undefined,
  ): void {
    let body: ChatBody = { messages: [] }
    try {
      body = JSON.parse(raw) as ChatBody
    } catch {
      res.writeHead(400).end()
      return
    }
    const agentStep = (body.tools?.length ?? 0) > 0
    const system = body.messages
      .filter((message) => message.role === 'system')
      .map(messageText)
      .join('\n')
    const verdict = !agentStep && system.includes(VERDICT_SYSTEM_PROMPT.split('\n')[0] ?? '\u0000')
    const extraction =
      !agentStep &&
      !verdict &&
      [EXTRACTION_SYSTEM_PROMPT, MERGE_SYSTEM_PROMPT].some((prompt) =>
        system.includes(prompt.split('\n')[0] ?? '\u0000'),
      )
    this.requests.push({ url, body, agentStep, extraction, verdict, receivedAt: Date.now(), authorization })
    if (!url.endsWith('/chat/completions')) {
      res.writeHead(404).end()
      return
    }
    if (extraction || verdict) {
      const reply = (verdict ? this.verdictScript.shift() : this.extractionScript.shift()) ?? {
        text: verdict ? '{"verdict": "unsure"}' : '{"facts": []}',
      }
      if ('status' in reply) {
        res
          .writeHead(reply.status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: `scripted failure ${reply.status}` } }))
        return
      }
      const answer = (): void => this.answerText(res, body, reply.text)
      if (reply.delayMs === undefined) answer()
      else setTimeout(answer, reply.delayMs)
      return
    }
    const step: ScriptStep = agentStep ? (this.script.shift() ?? { text: 'done' }) : { text: 'A short title' }
    this.counter += 1
    if ('toolCalls' in step) {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' })
      step.toolCalls.forEach((call, index) => {
        this.send(res, {
          choices: [
            {
              index: 0,
              delta: {
                tool_calls: [
                  {
                    index,
                    id: `call-${this.counter}-${index}`,
                    type: 'function',
                    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                  },
                ],
              },
              finish_reason: null,
            },
          ],
        })
      })
      this.finish(res, 'tool_calls')
      return
    }
    if ('stall' in step) {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' })
      this.send(res, { choices: [{ index: 0, delta: { content: step.stall }, finish_reason: null }] })
      return
    }
    this.answerText(res, body, step.text)
  }

  /** Answer with a text, streamed unless the request asked for one JSON body. */
  private answerText(res: import('node:http').ServerResponse, body: ChatBody, text: string): void {
    if (body['stream'] === false) {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        }),
      )
      return
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' })
    this.send(res, { choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })
    this.finish(res, 'stop')
  }

  private send(res: import('node:http').ServerResponse, payload: unknown): void {
    res.write(`data: ${JSON.stringify(payload)}\n\n`)
  }

  private finish(res: import('node:http').ServerResponse, reason: string): void {
    this.send(res, {
      choices: [{ index: 0, delta: { content: '' }, finish_reason: reason }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    })
    res.write('data: [DONE]\n\n')
    res.end()
  }
}

/**
 * The text of a chat message's content, whether a string or content parts.
 * @param message - a chat message.
 * @returns its text.
 */
export function messageText(message: ChatMessage): string {
  if (typeof message.content === 'string') return message.content
  if (Array.isArray(message.content)) {
    return message.content.map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : '')).join('')
  }
  return ''
}
