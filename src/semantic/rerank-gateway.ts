/**
 * The rerank gateway: `POST <baseUrl>/rerank` of a Cohere/Jina-style endpoint, answered as one score per document,
 * aligned with the documents sent, or as an {@link EndpointFailure}. Scores are returned as given; whether they
 * fit the declared score mode is {@link checkScores}'s question.
 */
import { endpointFailure, endpointUrl, postJson } from './endpoint-call.ts'
import { readRerankAnswer, type RerankItem } from './endpoint.schema.ts'
import type { CallLimits, RerankAnswer, RerankEndpoint } from './types.ts'

const WHAT = 'rerank endpoint'

/**
 * Score documents against a query in one request (`top_n` asks for all of them, without the documents echoed).
 * @param endpoint - base URL, model and key.
 * @param query - the query text.
 * @param documents - the documents; none means no request and no scores.
 * @param limits - the budget in ms and the caller's signal.
 * @param fetchImpl - the fetch to use.
 * @returns `scores[i]` for `documents[i]`, or a failure: `bad_response` unless every document index appears exactly
 *   once with a finite score; the transport codes of {@link postJson}. Never throws.
 */
export async function rerankDocuments(
  endpoint: RerankEndpoint,
  query: string,
  documents: readonly string[],
  limits: CallLimits,
  fetchImpl: typeof fetch,
): Promise<RerankAnswer> {
  if (documents.length === 0) return { ok: true, scores: [] }
  const answer = await postJson(
    {
      url: endpointUrl(endpoint.baseUrl, 'rerank'),
      what: WHAT,
      apiKey: endpoint.apiKey,
      body: { model: endpoint.model, query, documents, top_n: documents.length, return_documents: false },
    },
    limits,
    fetchImpl,
  )
  if (!answer.ok) return answer
  const read = readRerankAnswer(answer.json)
  if (!read.ok)
    return endpointFailure(
      'bad_response',
      `the ${WHAT} answered in an unexpected shape (${read.problem})`,
      endpoint.apiKey,
    )
  return alignScores(read.items, documents.length, endpoint)
}

/** The items' scores in document order, after the checks {@link rerankDocuments} promises. */
function alignScores(items: readonly RerankItem[], count: number, endpoint: RerankEndpoint): RerankAnswer {
  const bad = (problem: string): RerankAnswer =>
    endpointFailure('bad_response', `the ${WHAT} ${problem}`, endpoint.apiKey)
  if (items.length !== count) return bad(`scored ${items.length} results for ${count} documents`)
  const scores: (number | undefined)[] = new Array<number | undefined>(count).fill(undefined)
  for (const item of items) {
    if (item.index >= count) return bad(`returned index ${item.index} for ${count} documents`)
    if (scores[item.index] !== undefined) return bad(`returned index ${item.index} twice`)
    scores[item.index] = item.score
  }
  // Count equal and no index repeated or out of range: every slot is filled.
  return { ok: true, scores: scores.filter((score) => score !== undefined) }
}
