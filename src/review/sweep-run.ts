/**
 * One near-duplicate sweep: candidates from the store's legs, planned by planSweep (remembered distinct pairs and
 * changes a card already holds or the user declined cost nothing), one closed question to the extraction model per
 * planned pair, then: distinct is remembered, same and unsure become one merge card each with the keeper chosen by
 * rule, a malformed answer is no answer. With no usable model (none configured, or a call failing) the pairs not yet
 * answered are parked as deferred: asked again next sweep, and nothing is written for them. Every sweep ends in the
 * ledger.
 */
import { messageOf } from '../errors.ts'
import type { ExtractionModel } from '../host/model-client.ts'
import { rowKey } from '../rules/proposal-cards.ts'
import type { OpenStores } from '../store/store-set.ts'
import type { SweepEntry, SweepRecord } from '../store/review-store.ts'
import type { MergeRow } from '../types.ts'
import { chooseKeeper } from '../rules/keeper.ts'
import { termStatistics } from '../rules/near-duplicate.ts'
import { candidatePairs, lexicalSource, pairKeyOf, type CandidateSource, type SweepPair } from './sweep-candidates.ts'
import { planSweep } from './sweep-plan.ts'
import { verdictMessages } from './verdict-prompt.ts'
import { parseVerdict } from './verdict.schema.ts'

/** Room for the one-word JSON answer (and a fence around it). */
const VERDICT_MAX_TOKENS = 64

/** What a sweep needs. */
export interface SweepDeps {
  readonly stores: OpenStores
  /** The extraction model, resolved when the sweep has a pair to ask about. */
  readonly model: () => Promise<ExtractionModel | { readonly unavailable: string }>
  readonly now: () => string
  readonly signal?: AbortSignal | undefined
  /** Extra candidate legs (the vector leg); the lexical leg always runs. */
  readonly sources?: readonly CandidateSource[] | undefined
  /** Told once the pairs are planned, then after each answer; never told after the ledger entry is written. */
  readonly onProgress?: ((progress: SweepTally) => void) | undefined
}

/** How far a sweep under way has come: the pairs it plans to ask about, those asked, the merge cards made. */
export interface SweepTally {
  readonly planned: number
  readonly asked: number
  readonly proposals: number
}

/** How a sweep was asked for. */
export interface SweepOptions {
  readonly trigger: SweepRecord['trigger']
  readonly budget: number
}

/**
 * Run one sweep.
 * @param deps - stores, model and clock.
 * @param options - trigger and call budget.
 * @returns the ledger entry it wrote.
 */
export async function runSweep(deps: SweepDeps, options: SweepOptions): Promise<SweepEntry> {
  const { stores } = deps
  const startedAt = deps.now()
  const lexical = lexicalSource(
    {
      currentFacts: stores.facts.currentFactCount(),
      statistics: (words) => termStatistics(stores.facts.indexedFactCount(), stores.facts.termDocumentCounts(words)),
    },
    () =>
      new Promise((resolve) => {
        setImmediate(resolve)
      }),
  )
  const pairs = await candidatePairs([lexical, ...(deps.sources ?? [])], stores.review.candidateFacts())
  const remembered = rememberedKeys(stores, pairs)
  const plan = planSweep(pairs, remembered, options.budget)
  const tally = { asked: 0, same: 0, distinct: 0, unsure: 0, unanswered: 0, deferred: 0 }
  const proposalIds: number[] = []
  const report = (): void =>
    deps.onProgress?.({ planned: plan.length, asked: tally.asked, proposals: proposalIds.length })
  report()
  let model: string | null = null
  let note: string | null = null
  if (plan.length > 0) {
    const resolved = await resolveModel(deps)
    if ('unavailable' in resolved) {
      tally.deferred = plan.length
      note = `no usable model: ${resolved.unavailable}`
    } else {
      model = resolved.name
      for (const [index, pair] of plan.entries()) {
        const answer = await ask(resolved, pair, deps.signal)
        if (answer.kind === 'failed') {
          tally.deferred = plan.length - index
          note = `the model failed: ${answer.error}`
          break
        }
        tally.asked += 1
        if (answer.verdict === undefined) tally.unanswered += 1
        else if (answer.verdict === 'distinct') {
          tally.distinct += 1
          stores.review.rememberDistinct(
            [
              {
                lowFactId: pair.low.id,
                highFactId: pair.high.id,
                lowClaimKey: pair.low.claimKey,
                highClaimKey: pair.high.claimKey,
              },
            ],
            deps.now(),
            pair.generation,
          )
        } else {
          tally[answer.verdict] += 1
          const proposed = stores.proposals.proposeMerges([mergeRow(pair)], deps.now())
          proposalIds.push(...proposed.cards.map((card) => card.id))
        }
        report()
      }
    }
  }
  const record: SweepRecord = {
    trigger: options.trigger,
    outcome: tally.deferred > 0 ? 'deferred' : 'swept',
    budget: options.budget,
    candidates: pairs.length,
    remembered: pairs.filter((pair) => remembered.has(pair.pairKey)).length,
    ...tally,
    proposalIds,
    model,
    note,
    startedAt,
    finishedAt: deps.now(),
  }
  const id = stores.review.recordSweep(record)
  return { id, ...record }
}

/** The keeper by rule: evidence, then the earlier first observation, then the lower id; the model never picks it. */
function mergeRow(pair: SweepPair): MergeRow {
  const { keeper, loser } = chooseKeeper(pair.low, pair.high)
  return {
    keeper: { factId: keeper.id, revision: keeper.revision },
    loser: { factId: loser.id, revision: loser.revision },
  }
}

/**
 * Pairs that cost nothing: a remembered distinct verdict (the lexical leg's, or one given under the vector generation
 * the pair was found in), or a merge a card holds or the user declined.
 */
function rememberedKeys(stores: OpenStores, pairs: readonly SweepPair[]): Set<string> {
  const generations = new Set([0, ...pairs.map((pair) => pair.generation)])
  const keys = new Set(
    [...generations]
      .flatMap((generation) => stores.review.distinctPairs(generation))
      .map((pair) =>
        pairKeyOf(
          { id: pair.lowFactId, claimKey: pair.lowClaimKey },
          { id: pair.highFactId, claimKey: pair.highClaimKey },
        ),
      ),
  )
  const changeKeys = pairs.map((pair) => rowKey('merge', mergeRow(pair)))
  const held = stores.proposals.heldChanges('merge', changeKeys)
  pairs.forEach((pair, index) => {
    if (held.has(changeKeys[index] ?? '')) keys.add(pair.pairKey)
  })
  return keys
}

async function resolveModel(deps: SweepDeps): Promise<ExtractionModel | { readonly unavailable: string }> {
  try {
    return await deps.model()
  } catch (error) {
    return { unavailable: messageOf(error) }
  }
}

type Answer =
  | { readonly kind: 'answered'; readonly verdict: ReturnType<typeof parseVerdict> }
  | { readonly kind: 'failed'; readonly error: string }

async function ask(model: ExtractionModel, pair: SweepPair, signal: AbortSignal | undefined): Promise<Answer> {
  const messages = verdictMessages(pair.low, pair.high)
  const answer = await model.complete({
    ...messages,
    maxTokens: VERDICT_MAX_TOKENS,
    signal: signal ?? new AbortController().signal,
  })
  return answer.ok ? { kind: 'answered', verdict: parseVerdict(answer.text) } : { kind: 'failed', error: answer.error }
}
