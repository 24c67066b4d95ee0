/**
 * Typed calls to POST /api/fact-memory/<verb>, same origin, JSON both ways. Results are data: `{ok: true, data}` or
 * `{ok: false, code, message, details}`; a network failure becomes code `unavailable`. Fenced verbs get the
 * generation the page last read and a fresh operation id. Bodies and answers are typed by the verb contract
 * (src/management/verb-contract.ts), imported as types only: no schema travels in the bundle, the server's specs
 * check that every answer has the shape the page reads.
 */
import type { VerbAnswer, VerbAnswerTo, VerbName, VerbRequest } from '../src/management/verb-contract.ts'

export type { VerbAnswer, VerbAnswerTo, VerbName, VerbRequest }

/** A route answer. */
export type ApiResult<T = Record<string, unknown>> =
  | { readonly ok: true; readonly data: T }
  | {
      readonly ok: false
      readonly status: number
      readonly code: string
      readonly message: string
      readonly details: Record<string, unknown>
    }

/**
 * Call a verb.
 * @param verb - the verb name.
 * @param body - the JSON body, as the verb's schema takes it.
 * @param signal - aborts the request.
 * @returns the verb's answer to this body (its mode's shape, for a verb with modes), typed by the contract, or its refusal.
 */
export async function callVerb<V extends VerbName, const B extends VerbRequest<V>>(
  verb: V,
  body: B,
  signal?: AbortSignal,
): Promise<ApiResult<VerbAnswerTo<V, B>>> {
  try {
    const response = await fetch(`/api/fact-memory/${verb}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
      ...(signal === undefined ? {} : { signal }),
    })
    const json = (await response.json()) as Record<string, unknown> & {
      ok?: boolean
      error?: { code?: string; message?: string }
    }
    // The contract's answer schema is checked against every verb's real answer by the server's specs, not here.
    if (json.ok === true) return { ok: true, data: json as unknown as VerbAnswerTo<V, B> }
    const { error, ok: _ok, ...details } = json
    return {
      ok: false,
      status: response.status,
      code: error?.code ?? 'internal_error',
      message: error?.message ?? `HTTP ${response.status}`,
      details,
    }
  } catch (error) {
    if (signal?.aborted === true) throw error
    return {
      ok: false,
      status: 0,
      code: 'unavailable',
      message: error instanceof Error ? error.message : 'network error',
      details: {},
    }
  }
}

/** The fields of a fenced verb's body besides the fence, which GenerationTracker.fence() supplies. */
export type EditFields<V extends VerbName> =
  VerbRequest<V> extends infer R ? (R extends unknown ? Omit<R, 'expectedGeneration' | 'operationId'> : never) : never

/** The verbs that run behind the generation and operation-id fence. */
export type FencedVerb = {
  [V in VerbName]: VerbRequest<V> extends { readonly expectedGeneration: number } ? V : never
}[VerbName]

/** Generations the page has read, so fenced edits carry the precondition of what the user saw. */
export class GenerationTracker {
  private current = 0

  /** Note the generation an answer carried. */
  observe(data: object): void {
    if ('generation' in data && typeof data.generation === 'number') this.current = data.generation
  }

  /** The last generation read. */
  get value(): number {
    return this.current
  }

  /**
   * The fence fields for an edit.
   * @returns expectedGeneration and a fresh operation id.
   */
  fence(): { expectedGeneration: number; operationId: string } {
    return { expectedGeneration: this.current, operationId: `page-${crypto.randomUUID()}` }
  }
}
