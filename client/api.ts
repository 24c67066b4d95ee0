/**
 * Typed calls to POST /api/fact-memory/<verb>, same origin, JSON both ways. Results are data: `{ok: true, data}` or
 * `{ok: false, code, message, details}`; a network failure becomes code `unavailable`. Fenced verbs get the
 * generation the page last read and a fresh operation id.
 */

/** A route answer. */
export type ApiResult<T = Record<string, unknown>> =
  | { readonly ok: true; readonly data: T }
  | { readonly ok: false; readonly status: number; readonly code: string; readonly message: string; readonly details: Record<string, unknown> }

/**
 * Call a verb.
 * @param verb - the verb name.
 * @param body - the JSON body.
 * @param signal - aborts the request.
 * @returns the answer.
 */
export async function callVerb<T = Record<string, unknown>>(verb: string, body: unknown = {}, signal?: AbortSignal): Promise<ApiResult<T>> {
  try {
    const response = await fetch(`/api/fact-memory/${verb}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
      ...(signal === undefined ? {} : { signal }),
    })
    const json = await response.json() as Record<string, unknown> & { ok?: boolean; error?: { code?: string; message?: string } }
    if (json.ok === true) return { ok: true, data: json as unknown as T }
    const { error, ok: _ok, ...details } = json
    return { ok: false, status: response.status, code: error?.code ?? 'internal_error', message: error?.message ?? `HTTP ${response.status}`, details }
  } catch (error) {
    if (signal?.aborted === true) throw error
    return { ok: false, status: 0, code: 'unavailable', message: error instanceof Error ? error.message : 'network error', details: {} }
  }
}

/** Generations the page has read, so fenced edits carry the precondition of what the user saw. */
export class GenerationTracker {
  private current = 0

  /** Note the generation an answer carried. */
  observe(data: { generation?: unknown }): void {
    if (typeof data.generation === 'number') this.current = data.generation
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
