/**
 * searchFacts: one search with every channel configured. The lexical channels and the vector channel fuse into the
 * pool (see retrieve.ts); a reranker then reorders the pool by its scores and, only with a calibration record on
 * the user's own pairs, drops the candidates below the calibrated threshold (never an exact identifier hit); the pool is then grouped as
 * always. A semantic leg that fails or overruns its budget leaves the lexical answer standing and is named in the
 * outcome's `degraded`.
 */
import type { FactReads } from '../store/fact-store.ts'
import { CURRENT_STATUSES } from '../types.ts'
import type { Fused, Ranking } from './fuse.ts'
import {
  fusePool,
  groupPool,
  isVisible,
  lexicalRankings,
  projectPlacement,
  type PoolStage,
  type SearchOutcome,
  type SearchRequest,
} from './retrieve.ts'
import type { Degradation, RerankOutcome, SemanticLegs, VectorOutcome } from './semantic-port.ts'

/**
 * Search with the semantic legs.
 * @param store - the fact store.
 * @param request - the search.
 * @param legs - the configured semantic legs (none: the lexical search alone).
 * @param context - further rankings the caller made, fused like the channels' (per-turn recall's project channel).
 * @returns the grouped answer, with what the semantic legs did.
 */
export async function searchFacts(
  store: FactReads,
  request: SearchRequest,
  legs: SemanticLegs,
  context: readonly Ranking[] = [],
): Promise<SearchOutcome> {
  const degraded: Degradation[] = []
  // The query embedding is asked for first and awaited last: the lexical channels run meanwhile, so a slow endpoint
  // never eats the time they need.
  const embedding = legs.vector?.(request.query, request.visibility, request.deadline)
  const lexical = lexicalRankings(store, request)
  const vector: VectorOutcome | undefined = embedding === undefined ? undefined : await embedding
  if (vector?.kind === 'degraded') degraded.push(vector.degradation)
  const extra: Ranking[] = [...context, ...(vector?.kind === 'ran' ? [vector.ranking] : [])]
  const stage = fusePool(lexical, extra, projectPlacement(store, request))

  let ordered: PoolStage = stage
  let rerank: SearchOutcome['rerank'] = null
  if (legs.rerank !== undefined && stage.pool.length > 0) {
    if (request.clock() >= request.deadline) {
      degraded.push({ channel: 'rerank', code: 'deadline', reason: 'the query deadline had passed before the rerank' })
    } else {
      const facts = store
        .getFacts(stage.pool.map((candidate) => candidate.id))
        .filter((fact) => isVisible(fact, request.visibility))
      const outcome = await legs.rerank(request.query, facts, request.deadline)
      if (outcome.kind === 'degraded') degraded.push(outcome.degradation)
      else {
        const applied = applyRerank(stage, outcome)
        ordered = applied.stage
        rerank = {
          calibrated: outcome.threshold !== undefined,
          filtered: applied.filtered,
          pairSource: outcome.pairSource,
        }
      }
    }
  }

  const grouped = groupPool(store, request, ordered)
  const unvectored = vector === undefined ? 0 : countUnvectored(grouped, vector)
  return { ...grouped, degraded, rerank, unvectored }
}

/**
 * Reorder a pool by rerank scores (best first; candidates without a score keep their fused order after those with
 * one) and, with a calibrated threshold, drop those scored below it, except exact identifier hits.
 * @param stage - the fused pool.
 * @param outcome - the rerank's scores and threshold.
 * @returns the new pool, `rerank` appended to the channels, and how many candidates were dropped.
 */
export function applyRerank(
  stage: PoolStage,
  outcome: Pick<Extract<RerankOutcome, { kind: 'ran' }>, 'kind' | 'scores' | 'threshold'>,
): { stage: PoolStage; filtered: number } {
  const exact = new Set(stage.identifierIds)
  const kept = stage.pool.filter((candidate) => {
    const score = outcome.scores.get(candidate.id)
    return (
      outcome.threshold === undefined || score === undefined || score >= outcome.threshold || exact.has(candidate.id)
    )
  })
  const scored = kept
    .filter((candidate) => outcome.scores.has(candidate.id))
    .sort(
      (a, b) =>
        (outcome.scores.get(b.id) ?? 0) - (outcome.scores.get(a.id) ?? 0) ||
        stage.pool.indexOf(a) - stage.pool.indexOf(b),
    )
  const unscored = kept.filter((candidate) => !outcome.scores.has(candidate.id))
  // The grouping sorts a multi-valued slot's matched rows by score: the rerank's order becomes the score.
  const pool: Fused[] = [...scored, ...unscored].map((candidate, index, all) => ({
    ...candidate,
    score: all.length - index,
  }))
  return {
    stage: { ...stage, pool, channels: [...stage.channels, 'rerank'] },
    filtered: stage.pool.length - kept.length,
  }
}

/**
 * Current facts shown in the answer that the vector channel could not have found, having no current vector though
 * they may have one (a sensitive or hidden fact is never embedded, so it is never counted).
 */
function countUnvectored(outcome: SearchOutcome, vector: VectorOutcome): number {
  const shown = outcome.slots.flatMap((slot) => slot.rows.filter((row) => row.place > 0).map((row) => row.fact))
  const current = shown.filter((fact) => CURRENT_STATUSES.includes(fact.status)).map((fact) => fact.id)
  if (current.length === 0 || vector.kind === 'degraded') return 0
  return vector.lacking(current).size
}
