/**
 * The semantic legs of one search (see retrieval/semantic-port.ts), built for the live configuration: the vector
 * channel embeds the query (credentials in it masked first) within {@link QUERY_EMBED_BUDGET_MS} and scans the
 * vectors of the current fingerprint; the reranker scores the pool's non-sensitive facts within
 * {@link RERANK_BUDGET_MS}, every score checked against the declared score mode, and filters only with a calibration
 * record for the current rerank fingerprint made from the user's own pairs (one from library proxy pairs orders only). Neither leg throws: a failure is a degradation the answer names.
 * Both calls go through their endpoint's breaker (query-guards.ts): while a dead endpoint cools down its leg is
 * skipped at once and named `cooling_down`. A query embedded lately is taken from the cache without a call.
 */
import { CHANNEL_DEPTH } from '../retrieval/channels.ts'
import type { Degradation, SemanticLegs, VectorOutcome, RerankOutcome } from '../retrieval/semantic-port.ts'
import type { OpenStores } from '../store/store-set.ts'
import { maskCredentials } from '../text/privacy.ts'
import type { Fact } from '../types.ts'
import type { ResolvedConfig } from '../config.ts'
import { messageOf } from '../errors.ts'
import { embedTexts } from './embedding-gateway.ts'
import { factText } from './input-text.ts'
import { normalize } from './quantize.ts'
import { rerankDecision } from './calibration.ts'
import { checkedRerank } from './rerank-port.ts'
import {
  embeddingEndpoint,
  embeddingSettings,
  QUERY_EMBED_BUDGET_MS,
  RERANK_BUDGET_MS,
  rerankEndpoint,
  rerankSettings,
} from './settings.ts'
import type { EndpointAccess } from './types.ts'
import type { QueryGuards } from './query-guards.ts'
import type { VectorIndex } from './vector-index.ts'

export type { EndpointAccess }

/**
 * Build the legs a search may use.
 * @param access - keys, fetch and clock.
 * @param index - the in-memory vector scan index shared by every search.
 * @param guards - the endpoints' breakers and the query-embedding cache, kept across searches.
 * @param config - the live configuration.
 * @param stores - the open stores.
 * @returns the legs; a channel that is not configured is absent.
 */
export function semanticLegs(
  access: EndpointAccess,
  index: VectorIndex,
  guards: QueryGuards,
  config: ResolvedConfig,
  stores: OpenStores,
): SemanticLegs {
  const embedding = embeddingSettings(config)
  const rerank = rerankSettings(config)
  const legs: { vector?: SemanticLegs['vector']; rerank?: SemanticLegs['rerank'] } = {}
  if (embedding.configured) {
    legs.vector = (query, visibility, deadline) =>
      safely('vector', async (): Promise<VectorOutcome> => {
        const space = stores.vectors.space(embedding.fingerprint)
        if (space === undefined || stores.vectors.spaceState(space.id).count === 0) {
          // Before the first sweep there is no space: ids start at 1, so space 0 holds no vector and every embeddable fact lacks one.
          return { kind: 'empty', lacking: (factIds) => stores.vectors.lacking(space?.id ?? 0, factIds) }
        }
        const text = maskCredentials(query)
        let unit = guards.queryEmbeddings.get(embedding.fingerprint, text)
        if (unit === undefined) {
          const { apiKey, budget } = await keyWithin(access, embedding.keyName, QUERY_EMBED_BUDGET_MS, deadline)
          if (budget <= 0)
            return degraded('vector', 'deadline', 'no time was left in the query for the query embedding')
          const answer = await guards.embedding.call(embedding.fingerprint, () =>
            embedTexts(embeddingEndpoint(embedding, apiKey, space.dim), [text], { timeoutMs: budget }, access.fetch),
          )
          if (!answer.ok) return degraded('vector', answer.code, answer.message)
          unit = answer.vectors[0] === undefined ? undefined : normalize(answer.vectors[0])
          if (unit === undefined)
            return degraded('vector', 'bad_response', 'the query embedding was empty or all zeros')
          guards.queryEmbeddings.set(embedding.fingerprint, text, unit)
        }
        const hits = index.search(stores.vectors, space, unit, CHANNEL_DEPTH, visibility)
        return {
          kind: 'ran',
          ranking: { channel: 'vector', ids: hits.map((hit) => hit.id), scores: hits.map((hit) => hit.score) },
          lacking: (factIds) => stores.vectors.lacking(space.id, factIds),
        }
      })
  }
  if (rerank.configured) {
    legs.rerank = (query, facts, deadline) =>
      safely('rerank', async (): Promise<RerankOutcome> => {
        // A sensitive fact's text never leaves the machine; it keeps its fused place after the scored candidates.
        const sendable: Fact[] = facts.filter((fact) => fact.sensitivity === null)
        if (sendable.length === 0)
          return degraded(
            'rerank',
            'nothing_sendable',
            'every candidate is a sensitive fact, and none is sent to the reranker',
          )
        const { apiKey, budget } = await keyWithin(access, rerank.keyName, RERANK_BUDGET_MS, deadline)
        if (budget <= 0) return degraded('rerank', 'deadline', 'no time was left in the query for the rerank')
        const answer = await guards.rerank.call(rerank.fingerprint, () =>
          checkedRerank(
            rerankEndpoint(rerank, apiKey),
            rerank.scoreMode,
            query,
            sendable.map((fact) => factText(fact)),
            { timeoutMs: budget },
            access.fetch,
          ),
        )
        if (!answer.ok) {
          return degraded(
            'rerank',
            answer.code,
            answer.code === 'score_out_of_range' ? `${answer.message} and the fused order stands` : answer.message,
          )
        }
        const calibration = stores.calibrations.current(rerank.fingerprint)
        const decision = rerankDecision(calibration)
        return {
          kind: 'ran',
          scores: new Map(sendable.map((fact, position) => [fact.id, answer.scores[position] ?? 0])),
          threshold: decision.filter ? decision.threshold : undefined,
          pairSource: calibration?.pairSource ?? null,
        }
      })
  }
  return legs
}

/**
 * Resolve a key inside a leg's budget: the budget runs from before the lookup, so a slow credential store eats into
 * it instead of adding to it.
 * @returns the key and the milliseconds left for the call (0 or less: none).
 */
async function keyWithin(
  access: EndpointAccess,
  keyName: string,
  cap: number,
  deadline: number,
): Promise<{ apiKey: string | undefined; budget: number }> {
  const until = access.now() + Math.min(cap, deadline - access.now())
  const apiKey = await access.key(keyName)
  return { apiKey, budget: until - access.now() }
}

/**
 * Run a leg so that it never throws: a failure of the store or of the key lookup degrades the channel like an
 * endpoint's failure would, and the lexical answer stands.
 */
async function safely<T extends VectorOutcome | RerankOutcome>(
  channel: Degradation['channel'],
  work: () => Promise<T>,
): Promise<T | { kind: 'degraded'; degradation: Degradation }> {
  try {
    return await work()
  } catch (error) {
    return degraded(channel, 'internal', `the ${channel} channel failed: ${messageOf(error)}`)
  }
}

function degraded(
  channel: Degradation['channel'],
  code: Degradation['code'],
  reason: string,
): { kind: 'degraded'; degradation: Degradation } {
  return { kind: 'degraded', degradation: { channel, code, reason } }
}
