/**
 * The embedding gateway: `POST <baseUrl>/embeddings` of an OpenAI-compatible endpoint, answered as one vector per
 * input text, in input order, or as an {@link EndpointFailure}. Vectors are returned as the endpoint gave them (not
 * normalized); the vector index normalizes what it stores.
 */
import { endpointFailure, endpointUrl, postJson } from './endpoint-call.ts'
import { readEmbeddingAnswer, type EmbeddingItem } from './endpoint.schema.ts'
import type { CallLimits, EmbedAnswer, EmbeddingEndpoint } from './types.ts'

const WHAT = 'embedding endpoint'

/**
 * Embed texts in one request.
 * @param endpoint - base URL, model, key and expected dimension (0 accepts the endpoint's).
 * @param texts - the texts, sent verbatim as `input`; none means no request and no vectors.
 * @param limits - the budget in ms and the caller's signal.
 * @param fetchImpl - the fetch to use.
 * @returns the vectors in input order with their dimension, or a failure: `bad_response` when an index is missing,
 *   repeated or out of range, the count is wrong, a number is not a finite float32, a vector is empty or the
 *   vectors disagree in length; `wrong_dimension` when `endpoint.dim > 0` and they are of another length; the
 *   transport codes of {@link postJson}. Never throws.
 */
export async function embedTexts(
  endpoint: EmbeddingEndpoint,
  texts: readonly string[],
  limits: CallLimits,
  fetchImpl: typeof fetch,
): Promise<EmbedAnswer> {
  if (texts.length === 0) return { ok: true, vectors: [], dim: endpoint.dim }
  const answer = await postJson(
    {
      url: endpointUrl(endpoint.baseUrl, 'embeddings'),
      what: WHAT,
      apiKey: endpoint.apiKey,
      body: { model: endpoint.model, input: texts, encoding_format: 'float' },
    },
    limits,
    fetchImpl,
  )
  if (!answer.ok) return answer
  const read = readEmbeddingAnswer(answer.json)
  if (!read.ok)
    return endpointFailure(
      'bad_response',
      `the ${WHAT} answered in an unexpected shape (${read.problem})`,
      endpoint.apiKey,
    )
  return alignVectors(read.items, texts.length, endpoint)
}

/** The items' vectors in input order, after the checks {@link embedTexts} promises. */
function alignVectors(items: readonly EmbeddingItem[], count: number, endpoint: EmbeddingEndpoint): EmbedAnswer {
  const bad = (problem: string): EmbedAnswer =>
    endpointFailure('bad_response', `the ${WHAT} ${problem}`, endpoint.apiKey)
  if (items.length !== count) return bad(`returned ${items.length} embeddings for ${count} texts`)
  const vectors: (Float32Array | undefined)[] = new Array<Float32Array | undefined>(count).fill(undefined)
  const dim = items[0]?.embedding.length ?? 0
  for (const item of items) {
    if (item.index >= count) return bad(`returned index ${item.index} for ${count} texts`)
    if (vectors[item.index] !== undefined) return bad(`returned index ${item.index} twice`)
    if (item.embedding.length !== dim)
      return bad(`returned vectors of different lengths (${dim} and ${item.embedding.length}) in one answer`)
    const vector = Float32Array.from(item.embedding)
    if (!vector.every(Number.isFinite)) return bad(`returned a number beyond float32 range in embedding ${item.index}`)
    vectors[item.index] = vector
  }
  if (endpoint.dim > 0 && dim !== endpoint.dim) {
    return endpointFailure(
      'wrong_dimension',
      `the ${WHAT} returned ${dim}-dimensional vectors, but ${endpoint.dim} dimensions are configured`,
      endpoint.apiKey,
    )
  }
  // Count equal and no index repeated or out of range: every slot is filled.
  return { ok: true, vectors: vectors.filter((vector) => vector !== undefined), dim }
}
