/**
 * A scripted OpenAI-compatible chat-completions server on loopback, standing in for the model. Requests that
 * carry tools are agent steps and consume the script in order; tool-less requests (session titles, auxiliary
 * calls) get a short fixed answer. Every request body is recorded so tests can assert what the model received.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One scripted agent step. */
export type ScriptStep =
  | { readonly toolCalls: readonly { readonly name: string; readonly arguments: unknown }[] }
  | { readonly text: string }

/** A recorded request. */
export interface RecordedRequest {
  readonly url: string
  readonly body: ChatBody
  /** Whether the request offered tools (an agent step). */
  readonly agentStep: boolean
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
      req.on('end', () => model?.handle(req.url ?? '', Buffer.concat(chunks).toString('utf8'), res))
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

  /** Agent-step requests recorded so far. */
  agentRequests(): RecordedRequest[] {
    return this.requests.filter((request) => request.agentStep)
  }

  /** Forget recorded requests and any unused script. */
  reset(): void {
    this.requests.length = 0
    this.script.length = 0
  }

  /** Stop the server. */
  async close(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private handle(url: string, raw: string, res: import('node:http').ServerResponse): void {
    let body: ChatBody = { messages: [] }
    try {
      body = JSON.parse(raw) as ChatBody
    } catch {
      res.writeHead(400).end()
      return
    }
    const agentStep = (body.tools?.length ?? 0) > 0
    this.requests.push({ url, body, agentStep })
    if (!url.endsWith('/chat/completions')) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' })
    const step: ScriptStep = agentStep ? this.script.shift() ?? { text: 'done' } : { text: 'A short title' }
    this.counter += 1
    if ('toolCalls' in step) {
      step.toolCalls.forEach((call, index) => {
        this.send(res, {
          choices: [{
            index: 0,
            delta: { tool_calls: [{ index, id: `call-${this.counter}-${index}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } }] },
            finish_reason: null,
          }],
        })
      })
      this.finish(res, 'tool_calls')
      return
    }
    this.send(res, { choices: [{ index: 0, delta: { content: step.text }, finish_reason: null }] })
    this.finish(res, 'stop')
  }

  private send(res: import('node:http').ServerResponse, payload: unknown): void {
    res.write(`data: ${JSON.stringify(payload)}\n\n`)
  }

  private finish(res: import('node:http').ServerResponse, reason: string): void {
    this.send(res, { choices: [{ index: 0, delta: { content: '' }, finish_reason: reason }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })
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
