/**
 * One per-turn recall: the user's new text searched through the same channels and rules as memory_search (the
 * semantic legs within the recall's own deadline, the lexical answer standing when they are slow), with the session's
 * project as context (its facts ranked by their relevance to the message, see project-context.ts), each matched fact
 * judged for relevance to the message, and the block chosen and rendered. It reads and never writes.
 */
import type { SearchRequest } from '../retrieval/retrieve.ts'
import { searchFacts } from '../retrieval/search.ts'
import type { Degradation, SemanticLegs } from '../retrieval/semantic-port.ts'
import type { FactReads } from '../store/fact-store.ts'
import { namedSubjects } from '../retrieval/channels.ts'
import { questionTerms } from '../text/tokenize.ts'
import { projectScope } from '../project/project-ref.ts'
import type { Fact } from '../types.ts'
import { recallCandidates, renderRecallBlock, type RecallBlock, type RecallPolicy } from './recall-block.ts'
import { projectRanking, PROJECT_CONTEXT_FACTS } from './project-context.ts'
import { FactWordsCache, relevanceOf, weighMessage } from './relevance.ts'
import { speaksOfOwnThings, USER_SUBJECTS } from './own-words.ts'
import { canonicalEntity } from '../text/normalize.ts'

/** Most terms of a message that are weighed and searched, as memory_search caps a query. */
const MESSAGE_TERMS = 32
/** Most characters of a message that are searched: a pasted file says no more about the library than its start. */
export const MESSAGE_CHARS = 2000

/** What one recall did. */
export interface RecallResult extends RecallBlock {
  /** Channels that ran. */
  readonly channels: readonly string[]
  /** Semantic channels that did not contribute, and why. */
  readonly degraded: readonly Degradation[]
}

/**
 * Recall for one message.
 * @param store - the fact store.
 * @param request - the search, its query the message (cut to {@link MESSAGE_CHARS}), its limit the candidates wanted.
 * @param legs - the configured semantic legs.
 * @param policy - the block's budget, cap and floor.
 * @param shown - facts the directory of this request shows.
 * @param words - the words of facts judged before, kept across recalls by the caller.
 * @returns the block and how it was found.
 */
export async function recallFor(
  store: FactReads,
  request: SearchRequest,
  legs: SemanticLegs,
  policy: RecallPolicy,
  shown: ReadonlySet<number>,
  words: FactWordsCache = new FactWordsCache(),
): Promise<RecallResult> {
  const terms = questionTerms(request.query, MESSAGE_TERMS)
  const message = weighMessage(terms, store.termDocumentCounts(terms), store.indexedFactCount(), request.query)
  // A project's fact is weighed for the project's ranking and again by the judge: once is enough.
  const weighed = new Map<number, number>()
  const relevance = (fact: Fact): number => {
    const known = weighed.get(fact.id)
    if (known !== undefined) return known
    const score = relevanceOf(message, words.wordsOf({ text: factText(fact), cues: fact.cues }))
    weighed.set(fact.id, score)
    return score
  }
  const context =
    request.project === null || request.visibility === undefined
      ? []
      : [
          projectRanking(
            store.currentProjectFacts(request.project.key, PROJECT_CONTEXT_FACTS, request.visibility),
            relevance,
          ),
        ]
  const outcome = await searchFacts(store, request, legs, context)
  const candidates = recallCandidates(
    outcome.slots,
    {
      relevance,
      shown,
      calibrated: outcome.rerank?.calibrated === true,
      named: new Set(
        terms.length === 0
          ? []
          : [
              // A subject named by an old name (an alias) is named all the same.
              ...namedSubjects(store, request.query).map((subject) => subject.entityKey),
              ...(speaksOfOwnThings(request.query) ? store.knownEntities(USER_SUBJECTS.map(canonicalEntity)) : []),
            ],
      ),
      home: request.project === null ? null : projectScope(request.project),
    },
    policy.minScore,
  )
  return { ...renderRecallBlock(candidates, policy), channels: outcome.channels, degraded: outcome.degraded }
}

/** A fact's searchable text, as the relevance floor reads it. */
function factText(fact: Fact): string[] {
  return [fact.subject, fact.property, fact.value, ...Object.values(fact.qualifiers)]
}
