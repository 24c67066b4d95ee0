/**
 * Pure: the session's project as the context of a message. A developer working in a repository rarely names it
 * ("run the tests", "连一下本地数据库"): the project is named by every message of a session in it. So its current facts
 * are ranked by their relevance to the message, as a named subject's are by the message's other words, and fused with
 * the search's channels; the recall judge then lets them through the gate a named subject opens.
 */
import type { Ranking } from '../retrieval/fuse.ts'
import type { Fact } from '../types.ts'

/** The project's newest current facts weighed as context for one message. */
export const PROJECT_CONTEXT_FACTS = 500

/**
 * The project's facts that carry any of the message's weight, best first (the newer first between equals).
 * @param facts - the project's current facts.
 * @param relevance - a fact's relevance to the message, 0-1.
 * @returns the `project` ranking.
 */
export function projectRanking(facts: readonly Fact[], relevance: (fact: Fact) => number): Ranking {
  const scored = facts
    .map((fact) => ({ id: fact.id, score: relevance(fact) }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || b.id - a.id)
  return { channel: 'project', ids: scored.map((entry) => entry.id), scores: scored.map((entry) => entry.score) }
}
