/**
 * Pure: which candidate pairs one near-duplicate sweep asks the model about. A sweep may spend at most `budget`
 * calls; pairs whose "distinct" verdict is already remembered cost nothing and are skipped; subjects take turns
 * (one pair from each subject in rotation, best-scored first within a subject), because one subject that gains a row
 * every night would otherwise take every call a sweep is allowed.
 */

/** A candidate pair, as the sweep sees it. */
export interface SweepCandidate {
  /** Canonical subject key (pairs never cross subjects). */
  readonly subject: string
  /** A stable key for the pair (its two fact ids, smaller first, and what was compared). */
  readonly pairKey: string
  /** How alike the two statements are; higher first within a subject. */
  readonly score: number
}

/**
 * Plan a sweep.
 * @param candidates - every candidate pair.
 * @param remembered - pair keys already judged distinct.
 * @param budget - the most model calls the sweep may make.
 * @returns the pairs to ask about, in the order to ask.
 */
export function planSweep<T extends SweepCandidate>(
  candidates: readonly T[],
  remembered: ReadonlySet<string>,
  budget: number,
): T[] {
  const bySubject = new Map<string, T[]>()
  for (const candidate of candidates) {
    if (remembered.has(candidate.pairKey)) continue
    const list = bySubject.get(candidate.subject) ?? []
    list.push(candidate)
    bySubject.set(candidate.subject, list)
  }
  const queues = [...bySubject.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, list]) => [...list].sort((a, b) => b.score - a.score || (a.pairKey < b.pairKey ? -1 : 1)))
  const plan: T[] = []
  const seen = new Set<string>()
  for (let round = 0; plan.length < budget; round += 1) {
    let took = false
    for (const queue of queues) {
      const next = queue[round]
      if (next === undefined) continue
      took = true
      if (seen.has(next.pairKey)) continue
      seen.add(next.pairKey)
      plan.push(next)
      if (plan.length >= budget) break
    }
    if (!took) break
  }
  return plan
}

/**
 * A sweep's call budget: `consolidateMaxPairs`, tripled when a person asked for the sweep (the settings card's
 * button, or the `consolidate` verb with `force`).
 * @param maxPairs - the configured budget.
 * @param forced - whether a person asked for this sweep.
 * @returns the calls the sweep may make.
 */
export function sweepBudget(maxPairs: number, forced: boolean): number {
  return Math.max(0, Math.floor(maxPairs)) * (forced ? 3 : 1)
}
