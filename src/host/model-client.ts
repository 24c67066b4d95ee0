/**
 * The extraction model: one text-only call (system prompt plus one user message, no tools, no history) that answers
 * with text. Two sources: `host` reuses the session's own route through the host's LLM service; `custom` posts to an
 * OpenAI-compatible `<base>/chat/completions` with a key from the host credential store. Failures are answers, not
 * throws: the pass decides whether to retry.
 */
import { randomUUID } from 'node:crypto'
import { messageOf } from '../errors.ts'
import type { ExtractionMessage, LlmView, ModelRoute } from './ports.ts'

/** A call's outcome. */
export type ModelAnswer = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly error: string }

/** What a pass sends. */
export interface ModelRequest {
  readonly system: string
  readonly user: string
  readonly maxTokens: number
  readonly signal: AbortSignal
  /** Transport metadata only (the session the text came from). */
  readonly sessionId?: string | undefined
}

/** An extraction model. */
export interface ExtractionModel {
  /** "provider/model", recorded on the run. */
  readonly name: string
  complete(request: ModelRequest): Promise<ModelAnswer>
}

/** How long one call may take before it counts as failed. */
export const MODEL_CALL_TIMEOUT_MS = 120_000

/**
 * The session's own route through the host's LLM service.
 * @param llm - the host LLM service.
 * @param route - provider and model.
 * @param thinking - extractThinking: when false, reasoning is switched off where the route allows it.
 * @returns the model.
 */
export function hostModel(llm: LlmView, route: ModelRoute, thinking: boolean): ExtractionModel {
  return {
    name: `${route.provider}/${route.model}`,
    async complete(request) {
      const signal = AbortSignal.any([request.signal, AbortSignal.timeout(MODEL_CALL_TIMEOUT_MS)])
      try {
        const effort = thinking ? undefined : await offEffort(llm, route, signal)
        const message: ExtractionMessage = {
          id: randomUUID(),
          role: 'user',
          content: [{ type: 'text', text: request.user }],
          source: { kind: 'plugin', plugin: 'dsh-fact-memory' },
        }
        Object.freeze(message)
        let text = ''
        let finish: { kind: string; failure?: { message?: string } } | undefined
        for await (const chunk of llm.stream({
          provider: route.provider,
          model: route.model,
          system: request.system,
          messages: [message],
          maxTokens: request.maxTokens,
          signal,
          ...(effort === undefined ? {} : { reasoningEffort: effort }),
          ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
        })) {
          // Some adapters ignore aborts: check while iterating.
          if (signal.aborted) return { ok: false, error: abortReason(signal) }
          if (chunk.type === 'text-delta' && typeof chunk.text === 'string') text += chunk.text
          if (chunk.type === 'tool-call-delta') return { ok: false, error: 'the model answered with a tool call' }
          if (chunk.type === 'finish') finish = chunk.reason
        }
        if (signal.aborted) return { ok: false, error: abortReason(signal) }
        if (finish?.kind !== 'stop')
          return {
            ok: false,
            error: `the model stopped with ${finish?.kind ?? 'no finish'}${finish?.failure?.message === undefined ? '' : `: ${finish.failure.message}`}`,
          }
        return { ok: true, text }
      } catch (error) {
        return { ok: false, error: signal.aborted ? abortReason(signal) : messageOf(error) }
      }
    },
  }
}

/** What a custom endpoint needs. */
export interface CustomEndpoint {
  /** e.g. https://api.example.com/v1; requests go to `<base>/chat/completions`. */
  readonly baseUrl: string
  readonly model: string
  readonly apiKey: string | undefined
}

/**
 * An OpenAI-compatible endpoint of the user's choosing.
 * @param endpoint - base URL, model id and key.
 * @param fetchImpl - the fetch to use (tests pass the global one against a local server).
 * @param thinking - extractThinking; when false, the request asks for no reasoning where the endpoint understands it.
 * @returns the model.
 */
export function customModel(endpoint: CustomEndpoint, fetchImpl: typeof fetch, thinking: boolean): ExtractionModel {
  const url = `${endpoint.baseUrl.replace(/\/+$/u, '')}/chat/completions`
  return {
    name: `custom/${endpoint.model}`,
    async complete(request) {
      const signal = AbortSignal.any([request.signal, AbortSignal.timeout(MODEL_CALL_TIMEOUT_MS)])
      try {
        const response = await fetchImpl(url, {
          method: 'POST',
          signal,
          headers: {
            'content-type': 'application/json',
            ...(endpoint.apiKey === undefined ? {} : { authorization: `Bearer ${endpoint.apiKey}` }),
          },
          body: JSON.stringify({
            model: endpoint.model,
            messages: [
              { role: 'system', content: request.system },
              { role: 'user', content: request.user },
            ],
            max_tokens: request.maxTokens,
            temperature: 0,
            stream: false,
            ...(thinking ? {} : { thinking: { type: 'disabled' } }),
          }),
        })
        const body = await response.text()
        if (!response.ok) return { ok: false, error: `the endpoint answered ${response.status}: ${body.slice(0, 200)}` }
        const parsed = JSON.parse(body) as { choices?: { message?: { content?: unknown; tool_calls?: unknown } }[] }
        const message = parsed.choices?.[0]?.message
        if (Array.isArray(message?.tool_calls) && message.tool_calls.length > 0)
          return { ok: false, error: 'the model answered with a tool call' }
        if (typeof message?.content !== 'string')
          return { ok: false, error: 'the endpoint answered without message content' }
        return { ok: true, text: message.content }
      } catch (error) {
        return { ok: false, error: signal.aborted ? abortReason(signal) : messageOf(error) }
      }
    },
  }
}

/** The route's "off" effort, when the adapter offers one. */
async function offEffort(llm: LlmView, route: ModelRoute, signal: AbortSignal): Promise<string | undefined> {
  if (llm.resolveModelInfo === undefined) return undefined
  try {
    const info = await llm.resolveModelInfo(route.provider, route.model, signal)
    return info.reasoning?.efforts.some((effort) => effort.id === 'off') === true ? 'off' : undefined
  } catch {
    return undefined
  }
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason
  return reason instanceof Error && reason.name === 'TimeoutError'
    ? `the model did not answer within ${MODEL_CALL_TIMEOUT_MS / 1000} s`
    : 'the pass was cancelled'
}
