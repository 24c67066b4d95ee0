/**
 * retrieveFacts: run the lexical channels (BM25, the subject the query names, the dates it names, exact
 * identifiers, the facts' cues, the lexicon's bridge; see channels.ts), fuse them with RRF, place the candidates by project (the session's and the global
 * facts first, other projects' after or left out; see project-rank.ts) into a pool with reserved identifier places, count the matched facts up to the limit, and group them by slot (each slot anchored where its
 * best member ranked): a single-valued slot with its history newest first, a multi-valued slot with the values that
 * matched and a count of the others. Optionally answers as of a past instant.
 */
import type { FactReads, NamedEntity, Visibility } from '../store/fact-store.ts'
import { extractIdentifiers } from '../text/identifiers.ts'
import { queryDates } from '../text/query-dates.ts'
import { questionTerms, searchTerms } from '../text/tokenize.ts'
import { CURRENT_STATUSES, type Fact, type ProjectRef } from '../types.ts'
import {
  bridgeChannel,
  CHANNEL_DEPTH,
  cueChannel,
  dateChannel,
  namedSubjects,
  rankingOf,
  subjectChannel,
  textChannel,
} from './channels.ts'
import type { Degradation } from './semantic-port.ts'
import { assemblePool, fuseRankings, type Fused, type Ranking } from './fuse.ts'
import { isOtherProject, placeByProject, type OtherProjects } from './project-rank.ts'

/** Fused candidates kept before grouping by slot. */
export const POOL_SIZE = 20
/** Pool places reserved for exact-identifier hits. */
export const RESERVED_IDENTIFIER_SLOTS = 5
/** Most query terms sent to FTS5. */
export const MAX_QUERY_TERMS = 32

/** One search. */
export interface SearchRequest {
  readonly query: string
  /** Most matched facts to return (a single-valued slot counts once, whatever its history). */
  readonly limit: number
  /** ISO instant: answer with the values current then. */
  readonly asOf: string | undefined
  /** Model visibility, or undefined for the user's own views (everything but credentials' text). */
  readonly visibility: Visibility | undefined
  /** IANA zone whose calendar the query's dates mean. */
  readonly timeZone: string
  /** Wall-clock deadline in epoch ms. */
  readonly deadline: number
  /**
   * Epoch-ms clock, checked between channels. Read once as the search starts, it is the now that the query's relative
   * dates ("yesterday", "上周") are counted from, in `timeZone`'s calendar.
   */
  readonly clock: () => number
  /** The calling session's project: its facts rank with the global ones. Null outside a project. */
  readonly project: ProjectRef | null
  /** Other projects' facts: ranked after the rest and marked with their project, or left out. */
  readonly otherProjects: OtherProjects
}

/** One row of a slot in the answer. */
export interface SlotRow {
  readonly fact: Fact
  /**
   * 1-based place among the matched facts that `limit` counts, in fused order; 0 for a row shown only as a
   * single-valued slot's history. A single-valued slot's current value and its matched rows share the slot's place.
   */
  readonly place: number
}

/** One slot in the answer. */
export interface SlotHit {
  readonly slotKey: string
  readonly contested: boolean
  readonly multi: boolean
  /**
   * The rows in display order. Single-valued: the whole visible history, newest observation first (in as-of mode
   * only the rows valid then). Multi-valued: only the values the channels matched, best-ranked first, newest first
   * among values that rank alike.
   */
  readonly rows: readonly SlotRow[]
  /** Multi-valued: how many other values the slot holds (current, or valid at the as-of instant); 0 otherwise. */
  readonly otherValues: number
  /** The project the slot belongs to, by name, and whether it is another than the calling session's; null outside any. */
  readonly project: { readonly name: string; readonly other: boolean } | null
  /** The old name (alias) of the slot's subject the query named it by, or null (named otherwise, or not named). */
  readonly matchedAlias: string | null
}

/** The answer before rendering. */
export interface SearchOutcome {
  /** Channels that ran, in order. */
  readonly channels: readonly string[]
  /** Channels skipped because the deadline passed. */
  readonly skipped: readonly string[]
  /** Slots in the order of their best-ranked matched fact. */
  readonly slots: readonly SlotHit[]
  /** Matched facts counted against the limit (the largest place). */
  readonly matchedFacts: number
  /** Semantic channels that were asked but did not contribute, and why. */
  readonly degraded: readonly Degradation[]
  /**
   * The rerank that ordered the pool: calibrated (it filtered) or not, and where the pairs of the calibration record
   * in force came from (a `library` record is not calibrated: it only orders); null when none ran.
   */
  readonly rerank: {
    readonly calibrated: boolean
    readonly filtered: number
    readonly pairSource: 'supplied' | 'library' | null
  } | null
  /** Current facts in the answer that have no current vector (the vector channel could not have found them). */
  readonly unvectored: number
}

/**
 * Search the store. The matched rows are the answer: `limit` counts matched facts, not slots; a slot is placed
 * where its best-ranked member ranked. A single-valued slot counts once and keeps its history (its current value
 * first); a multi-valued slot lists the values that matched and counts the rest.
 * @param store - the fact store.
 * @param request - the search.
 * @returns the grouped hits and which channels ran.
 */
export function retrieveFacts(store: FactReads, request: SearchRequest): SearchOutcome {
  return groupPool(store, request, fusePool(lexicalRankings(store, request), [], projectPlacement(store, request)))
}

/** Reorders (and may cut) the fused candidates before the pool is taken from them. */
export type Placement = (fused: readonly Fused[]) => Fused[]

/**
 * The placement by project of a search (see project-rank.ts): the candidates' scopes are read from the store.
 * @param store - the fact store.
 * @param request - the calling session's project and what to do with other projects' facts.
 * @returns the placement.
 */
export function projectPlacement(
  store: FactReads,
  request: Pick<SearchRequest, 'project' | 'otherProjects'>,
): Placement {
  return (fused) => {
    const scopes = store.scopesOf(fused.map((candidate) => candidate.id))
    return placeByProject(fused, (candidate) => scopes.get(candidate.id) ?? '', request.project, request.otherProjects)
  }
}

/** The fused pool before grouping: the stage the semantic legs join (a vector ranking) and reorder (a rerank). */
export interface PoolStage {
  /** Channels that ran, in order. */
  readonly channels: readonly string[]
  /** Channels skipped because the deadline passed. */
  readonly skipped: readonly string[]
  /** Fused candidates, best first, identifier places reserved. */
  readonly pool: readonly Fused[]
  /** The identifier channel's ids, best first: exact hits no rerank may filter out. */
  readonly identifierIds: readonly number[]
  /** Subject key → the old name (alias) the query named it by (see LexicalStage). */
  readonly named?: ReadonlyMap<string, string>
}

/** The lexical channels' rankings, before fusion. */
export interface LexicalStage {
  readonly channels: readonly string[]
  readonly skipped: readonly string[]
  readonly rankings: readonly Ranking[]
  readonly identifierIds: readonly number[]
  /** Subject key → the old name (alias) the query named it by; absent for a subject named by its own name. */
  readonly named?: ReadonlyMap<string, string>
}

/**
 * Fuse the lexical rankings and any further ones into the pool, identifier places reserved.
 * @param lexical - the lexical channels' rankings.
 * @param extra - further rankings (the vector channel), fused alike.
 * @param place - reorders the fused candidates before the cut (by project); none by default.
 * @returns the pool and which channels ran.
 */
export function fusePool(lexical: LexicalStage, extra: readonly Ranking[] = [], place?: Placement): PoolStage {
  const rankings = [...lexical.rankings, ...extra]
  const channels = [...lexical.channels, ...extra.map((ranking) => ranking.channel)]
  const fused = fuseRankings(rankings)
  const placed = place === undefined ? fused : place(fused)
  const kept = new Set(placed.map((candidate) => candidate.id))
  // An identifier hit the placement left out holds no reserved place.
  const identifierIds = place === undefined ? lexical.identifierIds : lexical.identifierIds.filter((id) => kept.has(id))
  return {
    channels,
    skipped: lexical.skipped,
    identifierIds,
    ...(lexical.named === undefined ? {} : { named: lexical.named }),
    pool: assemblePool(placed, identifierIds, POOL_SIZE, RESERVED_IDENTIFIER_SLOTS),
  }
}

/**
 * Run the lexical channels (BM25, the subject and dates the query names, exact identifiers).
 * @param store - the fact store.
 * @param request - the search.
 * @returns their rankings, in channel order, and the identifier channel's ids.
 */
export function lexicalRankings(store: FactReads, request: SearchRequest): LexicalStage {
  const channels: string[] = []
  const skipped: string[] = []
  const rankings: Ranking[] = []
  const overDeadline = (): boolean => request.clock() > request.deadline
  const add = (channel: string, ranking: Ranking): void => {
    rankings.push(ranking)
    channels.push(channel)
  }

  const dates = queryDates(request.query, request.timeZone, request.clock())
  const terms = questionTerms(request.query, MAX_QUERY_TERMS)
  const named = terms.length > 0 ? namedSubjects(store, request.query) : []
  // A named subject's name is in every one of its facts: as a text term it would "match" them all at a score of
  // nothing and fill the answer with them. It counts through the subject channel instead, and so does an old name
  // of it (which its facts no longer hold: the channel looks for the name they hold).
  const nameTerms = new Set(
    named.flatMap((subject) => [...searchTerms(subject.entityKey), ...searchTerms(subject.aliasKey ?? '')]),
  )
  const contentTerms = terms.filter((term) => !nameTerms.has(term))
  const textTerms = contentTerms.length > 0 ? contentTerms : terms
  // Both channels plan with the same counts, read once.
  const counted = { documentCounts: store.termDocumentCounts(textTerms), documents: store.indexedFactCount() }
  const textHits = textChannel(store, textTerms, request.visibility, counted)
  if (terms.length > 0) add('bm25', rankingOf('bm25', textHits))
  const subjectHits = subjectChannel(
    store,
    named.map((subject) => subject.entityKey),
    contentTerms,
    request.visibility,
    counted,
  )
  if (subjectHits.length > 0) add('subject', rankingOf('subject', subjectHits))
  const dated = dateChannel(store, dates.windows, textHits, request.visibility)
  if (dated !== undefined) add('date', dated)
  const cued = cueChannel(store, terms, request.visibility)
  if (cued !== undefined) add('cue', cued)
  const bridged = overDeadline() ? undefined : bridgeChannel(store, request.query, terms, request.visibility)
  if (bridged !== undefined) add('bridge', bridged)
  // The numbers of a date the query names ("3 June, 2023", "3 days ago") are the date channel's, not identifiers.
  const identifiers = extractIdentifiers(dates.rest)
  let identifierIds: number[] = []
  if (identifiers.length > 0) {
    if (overDeadline()) skipped.push('identifier')
    else {
      const ranking = rankingOf('identifier', store.matchIdentifiers(identifiers, CHANNEL_DEPTH, request.visibility))
      identifierIds = [...ranking.ids]
      add('identifier', ranking)
    }
  }
  return { channels, skipped, rankings, identifierIds, named: aliasNamed(named) }
}

/** Subject key → the old name a query named it by, for the subjects it named only so. */
function aliasNamed(named: readonly NamedEntity[]): ReadonlyMap<string, string> {
  return new Map(
    named.flatMap((subject) => (subject.alias === null ? [] : [[subject.entityKey, subject.alias] as const])),
  )
}

/**
 * Group a pool by slot and count its matched facts up to the limit (see {@link retrieveFacts}).
 * @param store - the fact store.
 * @param request - the search.
 * @param stage - the pool, in the order the answer follows, and which channels ran.
 * @returns the grouped hits.
 */
export function groupPool(
  store: FactReads,
  request: SearchRequest,
  stage: Pick<PoolStage, 'channels' | 'skipped' | 'pool' | 'named'>,
): SearchOutcome {
  const { channels, skipped, pool } = stage
  const aliasOf = (fact: Fact | undefined): string | null =>
    fact === undefined ? null : (stage.named?.get(fact.entityKey) ?? null)
  const scoreOf = new Map(pool.map((candidate) => [candidate.id, candidate.score]))
  // Placed again after any rerank, which orders the pool by its own scores alone.
  const pooled = placeByProject(
    store.getFacts(pool.map((candidate) => candidate.id)).filter((fact) => isVisible(fact, request.visibility)),
    (fact) => fact.scope,
    request.project,
    request.otherProjects,
  )
  const singleKeys = [...new Set(pooled.filter((fact) => !fact.multi).map((fact) => fact.slotKey))]
  const histories = new Map<string, Fact[]>()
  for (const fact of store.slotHistory(singleKeys)) {
    if (!isVisible(fact, request.visibility)) continue
    const rows = histories.get(fact.slotKey) ?? []
    rows.push(fact)
    histories.set(fact.slotKey, rows)
  }
  const asOf = request.asOf
  if (asOf !== undefined) {
    for (const [slotKey, rows] of histories)
      histories.set(
        slotKey,
        rows.filter((fact) => validAt(fact, asOf, rows)),
      )
  }

  // Count matched facts in fused order: a single-valued slot once, a multi-valued value each time.
  const slotPlace = new Map<string, number>()
  const matchedOf = new Map<string, { fact: Fact; place: number }[]>()
  let places = 0
  for (const fact of pooled) {
    if (places >= request.limit && !slotPlace.has(fact.slotKey)) break
    if (fact.multi) {
      if (asOf !== undefined && !validAt(fact, asOf)) continue
      if (places >= request.limit) continue
      places += 1
      if (!slotPlace.has(fact.slotKey)) slotPlace.set(fact.slotKey, places)
      const matched = matchedOf.get(fact.slotKey) ?? []
      matched.push({ fact, place: places })
      matchedOf.set(fact.slotKey, matched)
    } else if (!slotPlace.has(fact.slotKey) && (histories.get(fact.slotKey)?.length ?? 0) > 0) {
      places += 1
      slotPlace.set(fact.slotKey, places)
    }
  }

  const slotOrder = [...slotPlace.keys()]
  const contested = asOf === undefined ? store.contestedSlots(slotOrder) : new Set<string>()
  const multiKeys = slotOrder.filter((slotKey) => matchedOf.has(slotKey))
  const valueCounts = store.slotValueCounts(multiKeys, request.visibility, asOf)
  const slots = slotOrder.map((slotKey): SlotHit => {
    const place = slotPlace.get(slotKey) ?? 0
    const matched = matchedOf.get(slotKey)
    if (matched !== undefined) {
      const rows = [...matched].sort(
        (a, b) =>
          (scoreOf.get(b.fact.id) ?? 0) - (scoreOf.get(a.fact.id) ?? 0) ||
          b.fact.observedAt.localeCompare(a.fact.observedAt) ||
          b.fact.id - a.fact.id,
      )
      const listedCurrent = rows.filter(({ fact }) => (asOf === undefined ? fact.status === 'active' : true)).length
      return {
        slotKey,
        contested: contested.has(slotKey),
        multi: true,
        rows,
        otherValues: Math.max(0, (valueCounts.get(slotKey) ?? 0) - listedCurrent),
        project: projectMark(rows[0]?.fact, request.project),
        matchedAlias: aliasOf(rows[0]?.fact),
      }
    }
    // Shown whatever the budget: the current value(s) (the newest row when none is current) and the slot's
    // best-ranked match, which may be an old value ("7801" asked after it became 7802). The rest is history.
    const history = histories.get(slotKey) ?? []
    const current = history.filter((fact) => CURRENT_STATUSES.includes(fact.status))
    const essential = new Set((current.length > 0 ? current : history.slice(0, 1)).map((fact) => fact.id))
    const best = pooled.find((fact) => fact.slotKey === slotKey && history.some((row) => row.id === fact.id))
    if (best !== undefined) essential.add(best.id)
    return {
      slotKey,
      contested: contested.has(slotKey),
      multi: false,
      otherValues: 0,
      rows: history.map((fact) => ({ fact, place: essential.has(fact.id) || asOf !== undefined ? place : 0 })),
      project: projectMark(history[0], request.project),
      matchedAlias: aliasOf(history[0]),
    }
  })
  return {
    channels: [...channels],
    skipped: [...skipped],
    slots,
    matchedFacts: places,
    degraded: [],
    rerank: null,
    unvectored: 0,
  }
}

/** The project a slot's fact belongs to, by name, and whether it is another than the session's. */
function projectMark(fact: Fact | undefined, project: ProjectRef | null): SlotHit['project'] {
  if (fact === undefined || fact.projectName === null) return null
  return { name: fact.projectName, other: isOtherProject(fact.scope, project) }
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
      if (next.status === 'scheduled' && next.validFrom > fact.validFrom && (end === null || next.validFrom < end))
        end = next.validFrom
    }
  }
  return end === null || end > instant
}
