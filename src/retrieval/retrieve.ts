/**
 * retrieveFacts: run the BM25 and exact-identifier channels, fuse them with RRF into a pool with reserved
 * identifier places, group the pool by slot (each slot anchored where its best member ranked, rows newest-observed
 * first, older rows kept below), and optionally answer as of a past instant.
 */
import type { ChannelHit, FactStore, Visibility } from '../store/fact-store.ts'
import { extractIdentifiers } from '../text/identifiers.ts'
import { queryTerms } from '../text/tokenize.ts'
import type { Fact } from '../types.ts'
import { assemblePool, fuseRankings } from './fuse.ts'
import { planTextQuery, type TextPlan } from './text-plan.ts'

/** Fused candidates kept before grouping by slot. */
export const POOL_SIZE = 20
/** Pool places reserved for exact-identifier hits. */
export const RESERVED_IDENTIFIER_SLOTS = 5
/** Hits each channel returns. */
const CHANNEL_DEPTH = 50
/** Most query terms sent to FTS5. */
const MAX_QUERY_TERMS = 32
/** Documents worth ranking with BM25 in one query before the broadest terms are split off (see text-plan.ts). */
export const RANK_CANDIDATE_CAP = 5000

/** One search. */
export interface SearchRequest {
  readonly query: string
  /** Most slots to return. */
  readonly limit: number
  /** ISO instant: answer with the values current then. */
  readonly asOf: string | undefined
  /** Model visibility, or undefined for the user's own views (everything but credentials' text). */
  readonly visibility: Visibility | undefined
  /** Wall-clock deadline in epoch ms. */
  readonly deadline: number
  /** Epoch-ms clock, checked between channels. */
  readonly clock: () => number
}

/** One slot in the answer. */
export interface SlotHit {
  readonly slotKey: string
  readonly contested: boolean
  /** Newest observation first; in as-of mode only the rows valid at that instant. */
  readonly rows: readonly Fact[]
}

/** The answer before rendering. */
export interface SearchOutcome {
  /** Channels that ran, in order. */
  readonly channels: readonly string[]
  /** Channels skipped because the deadline passed. */
  readonly skipped: readonly string[]
  readonly slots: readonly SlotHit[]
}

/**
 * Search the store.
 * @param store - the fact store.
 * @param request - the search.
 * @returns the grouped hits and which channels ran.
 */
export function retrieveFacts(store: FactStore, request: SearchRequest): SearchOutcome {
  const channels: string[] = []
  const skipped: string[] = []
  const rankings: { channel: string; ids: number[] }[] = []
  const overDeadline = (): boolean => request.clock() > request.deadline

  const terms = queryTerms(request.query, MAX_QUERY_TERMS)
  if (terms.length > 0) {
    const plan = planTextQuery(terms, store.termDocumentCounts(terms), RANK_CANDIDATE_CAP)
    rankings.push({ channel: 'bm25', ids: ids(runTextPlan(store, plan, request.visibility)) })
    channels.push('bm25')
  }
  const identifiers = extractIdentifiers(request.query)
  let identifierIds: number[] = []
  if (identifiers.length > 0) {
    if (overDeadline()) skipped.push('identifier')
    else {
      identifierIds = ids(store.matchIdentifiers(identifiers, CHANNEL_DEPTH, request.visibility))
      rankings.push({ channel: 'identifier', ids: identifierIds })
      channels.push('identifier')
    }
  }

  const pool = assemblePool(fuseRankings(rankings), identifierIds, POOL_SIZE, RESERVED_IDENTIFIER_SLOTS)
  const slotOrder: string[] = []
  for (const fact of store.getFacts(pool.map((candidate) => candidate.id))) {
    if (!slotOrder.includes(fact.slotKey)) slotOrder.push(fact.slotKey)
  }
  const history = new Map<string, Fact[]>()
  for (const fact of store.slotHistory(slotOrder)) {
    if (!isVisible(fact, request.visibility)) continue
    const rows = history.get(fact.slotKey) ?? []
    rows.push(fact)
    history.set(fact.slotKey, rows)
  }
  if (request.asOf !== undefined) {
    const instant = request.asOf
    for (const [slotKey, rows] of history) history.set(slotKey, rows.filter((fact) => validAt(fact, instant, rows)))
  }
  const contested = request.asOf === undefined ? store.contestedSlots(slotOrder) : new Set<string>()
  const slots = slotOrder
    .filter((slotKey) => (history.get(slotKey)?.length ?? 0) > 0)
    .slice(0, request.limit)
    .map((slotKey) => ({ slotKey, contested: contested.has(slotKey), rows: history.get(slotKey) ?? [] }))
  return { channels, skipped, slots }
}

/**
 * Whether the model may read a fact.
 * @param fact - the fact.
 * @param visibility - the model's visibility, or undefined for the user's own views.
 * @returns true when visible.
 */
export function isVisible(fact: Fact, visibility: Visibility | undefined): boolean {
  if (visibility === undefined) return true
  return fact.modelUseAllowed && (fact.sensitivity === null || visibility.includeSensitive)
}

/**
 * Whether a fact's validity window covers an instant (bi-temporal valid time). In a single-valued slot a value
 * also ends where a scheduled successor begins, even before the maintenance pass has stamped it.
 * @param fact - the fact.
 * @param instant - ISO UTC instant.
 * @param slotRows - the other rows of its slot.
 * @returns true when valid_from ≤ instant < valid_to (open end counts as valid).
 */
export function validAt(fact: Fact, instant: string, slotRows: readonly Fact[] = []): boolean {
  if (fact.status === 'forgotten' || fact.validFrom > instant) return false
  let end = fact.validTo
  if (!fact.multi && fact.status !== 'scheduled') {
    for (const next of slotRows) {
      if (next.status === 'scheduled' && next.validFrom > fact.validFrom && (end === null || next.validFrom < end)) end = next.validFrom
    }
  }
  return end === null || end > instant
}

/** Run a text plan; a split plan's two halves score on one scale and are merged by score. */
function runTextPlan(store: FactStore, plan: TextPlan, visibility: SearchRequest['visibility']): ChannelHit[] {
  switch (plan.kind) {
    case 'none': return []
    case 'single': return store.matchText(plan.match, CHANNEL_DEPTH, visibility)
    case 'split': {
      const merged = [...store.matchText(plan.withBroad, CHANNEL_DEPTH, visibility), ...store.matchText(plan.withoutBroad, CHANNEL_DEPTH, visibility)]
      return merged.sort((a, b) => b.score - a.score || b.id - a.id).slice(0, CHANNEL_DEPTH)
    }
  }
}

function ids(hits: readonly ChannelHit[]): number[] {
  return hits.map((hit) => hit.id)
}
