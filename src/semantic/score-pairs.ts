/**
 * Score labeled pairs through a reranker: one call per distinct query carrying all of that query's documents, at
 * most a few calls at a time. The first failed call ends the run (calls still in flight are cancelled, none is
 * started after it) and is answered as it came; nothing is retried.
 */
import type { ScoredPair } from './calibration.ts'
import type { EndpointFailure, LabeledPair, RerankAnswer } from './types.ts'

/** Calls to the reranker in flight at once. */
export const SCORE_CONCURRENCY = 2

/** Scores one query's documents, as the reranker port does. */
export type ScoreDocuments = (
  query: string,
  documents: readonly string[],
  signal?: AbortSignal,
) => Promise<RerankAnswer>

/**
 * Score every pair.
 * @param pairs - the labeled pairs.
 * @param score - the reranker; its scores are aligned with the documents sent.
 * @param concurrency - calls in flight at once (at least 1).
 * @returns each pair's score with its label, in the order of `pairs`, or the first failure.
 */
export async function scorePairs(
  pairs: readonly LabeledPair[],
  score: ScoreDocuments,
  concurrency = SCORE_CONCURRENCY,
): Promise<{ readonly ok: true; readonly scored: readonly ScoredPair[] } | EndpointFailure> {
  const groups = new Map<string, number[]>()
  pairs.forEach((pair, index) => {
    const group = groups.get(pair.query)
    if (group === undefined) groups.set(pair.query, [index])
    else group.push(index)
  })
  const queue = [...groups]
  const scores = new Array<number>(pairs.length)
  const abort = new AbortController()
  let failure: EndpointFailure | undefined
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next !== undefined && failure === undefined; next = queue.shift()) {
      const [query, indices] = next
      const answer = await score(
        query,
        indices.map((index) => (pairs[index] as LabeledPair).document),
        abort.signal,
      )
      if (!answer.ok) {
        failure ??= answer
        abort.abort()
        return
      }
      indices.forEach((index, at) => {
        scores[index] = answer.scores[at] as number
      })
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, queue.length)) }, worker))
  if (failure !== undefined) return failure
  return { ok: true, scored: pairs.map((pair, index) => ({ score: scores[index] as number, relevant: pair.relevant })) }
}
