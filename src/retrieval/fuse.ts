/** Pure reciprocal-rank fusion and candidate-pool assembly. */

/** One channel's ranking: ids best first. */
export interface Ranking {
  readonly channel: string
  readonly ids: readonly number[]
  /**
   * The channel's score for each id, aligned with `ids`. Ids with equal scores share the rank of the first of them
   * (competition ranking), so two restatements of one thing fuse to the same score. Without scores, every id has its
   * own rank.
   */
  readonly scores?: readonly number[]
  /**
   * How much a place in this ranking counts, 1 by default: a channel that matches through something weaker than the
   * query's own words (another member of a lexicon concept, a fact's cues) counts below the channels that match them.
   */
  readonly weight?: number
}

/** A fused candidate. */
export interface Fused {
  readonly id: number
  readonly score: number
  /** Channels that ranked this id. */
  readonly channels: readonly string[]
  /** Its best 1-based rank in any channel. */
  readonly bestRank: number
}

/** The constant of reciprocal-rank fusion: each channel contributes 1 / (k + rank). */
export const RRF_K = 60

/**
 * Fuse rankings: score(id) = Σ weight / (k + rank), rank 1-based (equal channel scores share a rank), weight the
 * ranking's own (1 unless it says otherwise). Ties go to the
 * better single rank, then the larger (newer) id, so the order is total and repeatable.
 * @param rankings - channel rankings.
 * @param k - the fusion constant.
 * @returns candidates, best first.
 */
export function fuseRankings(rankings: readonly Ranking[], k: number = RRF_K): Fused[] {
  const byId = new Map<number, { score: number; channels: string[]; bestRank: number }>()
  for (const ranking of rankings) {
    let rank = 0
    ranking.ids.forEach((id, index) => {
      const score = ranking.scores?.[index]
      if (index === 0 || score === undefined || score !== ranking.scores?.[index - 1]) rank = index + 1
      const entry = byId.get(id) ?? { score: 0, channels: [], bestRank: Number.POSITIVE_INFINITY }
      entry.score += (ranking.weight ?? 1) / (k + rank)
      if (!entry.channels.includes(ranking.channel)) entry.channels.push(ranking.channel)
      entry.bestRank = Math.min(entry.bestRank, rank)
      byId.set(id, entry)
    })
  }
  return [...byId.entries()]
    .map(([id, entry]) => ({ id, ...entry }))
    .sort((a, b) => b.score - a.score || a.bestRank - b.bestRank || b.id - a.id)
}

/**
 * Cut the fused list to a pool while reserving places for exact-identifier hits: up to `reserved` of the
 * identifier channel's best ids are guaranteed a place, the rest of the pool follows fused order.
 * @param fused - fused candidates, best first.
 * @param identifierIds - the identifier channel's ids, best first.
 * @param poolSize - total pool size.
 * @param reserved - places reserved for identifier hits.
 * @returns the pool in fused order.
 */
export function assemblePool(
  fused: readonly Fused[],
  identifierIds: readonly number[],
  poolSize: number,
  reserved: number,
): Fused[] {
  const guaranteed = new Set(identifierIds.slice(0, Math.min(reserved, poolSize)))
  const pool: Fused[] = []
  let open = poolSize - guaranteed.size
  for (const candidate of fused) {
    if (guaranteed.has(candidate.id)) pool.push(candidate)
    else if (open > 0) {
      pool.push(candidate)
      open -= 1
    }
  }
  return pool
}
