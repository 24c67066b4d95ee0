/**
 * The near-duplicate review's vector leg: inside one subject and one scope, the pairs whose stored vectors (of the
 * current embedding fingerprint) have a cosine at or above `consolidateCosineFloor`. A distinct verdict on such a
 * pair is remembered under the fingerprint's vector generation (its space id), so changing the embedding model asks
 * again rather than trusting a verdict given about other vectors. Facts without a current vector simply take no part.
 */
import {
  groupOf,
  pairKeyOf,
  SCORES_PER_PAUSE,
  type CandidateSource,
  type SweepPair,
} from '../review/sweep-candidates.ts'
import type { VectorSpace, VectorStore } from '../store/vector-store.ts'
import { cosineBetween } from './quantize.ts'

/**
 * The vector leg over one space.
 * @param vectors - the vector store.
 * @param space - the current fingerprint's space.
 * @param floor - the cosine a pair must reach.
 * @param pause - awaited every {@link SCORES_PER_PAUSE} comparisons, so a sweep never holds the event loop long.
 * @returns the leg.
 */
export function vectorSource(
  vectors: VectorStore,
  space: VectorSpace,
  floor: number,
  pause: () => Promise<void> = async () => undefined,
): CandidateSource {
  return {
    leg: 'vector',
    async pairs(facts) {
      const pairs: SweepPair[] = []
      let compared = 0
      for (const group of groupOf(facts)) {
        const stored = vectors.vectorsOf(
          space.id,
          group.map((fact) => fact.id),
        )
        const present = group.filter((fact) => stored.has(fact.id))
        for (let i = 0; i < present.length; i += 1) {
          for (let j = i + 1; j < present.length; j += 1) {
            compared += 1
            if (compared % SCORES_PER_PAUSE === 0) await pause()
            const a = present[i]
            const b = present[j]
            if (a === undefined || b === undefined) continue
            const [low, high] = a.id < b.id ? [a, b] : [b, a]
            const left = stored.get(low.id)
            const right = stored.get(high.id)
            if (left === undefined || right === undefined) continue
            const cosine = cosineBetween(left, right)
            if (cosine >= floor)
              pairs.push({
                subject: low.subjectKey,
                pairKey: pairKeyOf(low, high),
                score: cosine,
                low,
                high,
                leg: 'vector',
                generation: space.id,
              })
          }
        }
      }
      return pairs
    },
  }
}
