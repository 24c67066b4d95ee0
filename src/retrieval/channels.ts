/**
 * The lexical channels of a search, each run against the store and returned as a ranking for fusion:
 * - `bm25`: FTS5 BM25 over the query's terms (planned so that common words stay cheap, see text-plan.ts);
 * - `subject`: the same terms ranked among the facts that carry a subject the query names. A subject's name is in
 *   every one of its facts, so BM25 gives it almost no weight; this channel is how naming a subject counts;
 * - `date`: the facts dated (valid_from) within a date the query names, absolute or relative to now ("yesterday",
 *   "上周"), those the text also matched first;
 * - `identifier`: exact identifiers (ports, paths, URLs, versions, package names);
 * - `cue`: the query's terms among the facts' cues (the phrases their writers said later requests would use), fused
 *   at {@link CUE_RANK_WEIGHT};
 * - `bridge`: the other members of the software lexicon's concepts the query holds (db for "psql", 测试 for "tests"),
 *   ranked by BM25 and fused at {@link BRIDGE_RANK_WEIGHT}, below the query's own words.
 * Each channel is measured on the rendered answer (scripts/bench-locomo.ts); the gains are noted where it is built.
 */
import { bridgedMembers, findConcepts, lexiconTerms, SOFTWARE_LEXICON, type Lexicon } from '../lexicon/lexicon.ts'
import type { ChannelHit, FactReads, NamedEntity, Visibility } from '../store/fact-store.ts'
import { indexForm } from '../text/porter.ts'
import { orExpression, searchTerms } from '../text/tokenize.ts'
import type { DateWindow } from '../text/query-dates.ts'
import type { Ranking } from './fuse.ts'
import { subjectCandidates } from './subject-names.ts'
import { HUGE_TERM_DOCUMENTS, hugeTermBonuses, planTextQuery, type TextPlan } from './text-plan.ts'

/** Hits each channel returns. */
export const CHANNEL_DEPTH = 50
/** Documents worth ranking with BM25 in one query before the broadest terms are split off (see text-plan.ts). */
export const RANK_CANDIDATE_CAP = 5000
/** A place in the bridge channel counts this much against one in a channel of the query's own words. */
export const BRIDGE_RANK_WEIGHT = 0.5
/** A place in the cue channel counts this much against one in a channel of the facts' own words. */
export const CUE_RANK_WEIGHT = 0.7
/** Most lexicon members the bridge channel looks for. */
export const BRIDGE_MEMBERS = 12
/**
 * The bridge channel ranks among the newest this many facts holding any member: it is a channel of second resort,
 * fused at half weight, and ranking a common concept's every match ("test" in a large library) would cost more than
 * every other channel together.
 */
export const BRIDGE_WINDOW = 1000
/** Facts dated within a query's date windows that the date channel considers. */
const DATED_CANDIDATES = 500

/**
 * A channel's hits as a ranking whose equal scores share a rank, so two restatements of one thing rank alike.
 * @param channel - the channel's name.
 * @param hits - hits, best first.
 * @returns the ranking.
 */
export function rankingOf(channel: string, hits: readonly ChannelHit[]): Ranking {
  return { channel, ids: hits.map((hit) => hit.id), scores: hits.map((hit) => hit.score) }
}

/** How the lexical channels plan their BM25 (see text-plan.ts); the defaults are the constants above. */
export interface TextChannelOptions {
  /** Documents worth ranking in one query; {@link RANK_CANDIDATE_CAP} by default. */
  readonly candidateCap?: number
  /** Facts a word must be held by to rank as a flat bonus; {@link HUGE_TERM_DOCUMENTS} by default. */
  readonly hugeAbove?: number
  /** How many facts hold each term, when the caller has read them already. */
  readonly documentCounts?: ReadonlyMap<string, number>
  /** How many facts the index holds (N), when the caller has read it already. */
  readonly documents?: number
  /** The subject channel's bonus applies to names held by this many facts or fewer; {@link NAMED_BONUS_FACTS} by default. */
  readonly bonusNamesUpTo?: number
}

/** The subject channel ranks huge words as a bonus only for names held by this many facts or fewer (see subjectChannel). */
export const NAMED_BONUS_FACTS = 500

/**
 * BM25 over the terms.
 * @param visibility - model visibility, or `undefined` for every live fact.
 * @param options - the planner's bounds and the document counts, when the caller has them.
 * @returns hits, best first.
 */
export function textChannel(
  store: FactReads,
  terms: readonly string[],
  visibility: Visibility | undefined,
  options: TextChannelOptions = {},
): ChannelHit[] {
  if (terms.length === 0) return []
  const plan = planTextQuery(
    terms,
    options.documentCounts ?? store.termDocumentCounts(terms),
    options.candidateCap ?? RANK_CANDIDATE_CAP,
    options.documents ?? store.indexedFactCount(),
    options.hugeAbove ?? HUGE_TERM_DOCUMENTS,
  )
  return runTextPlan(store, plan, visibility)
}

/**
 * The stored subjects a query names, by their own name or by an old one (an alias a rename or merge left): typing
 * `search-svc` after it became `search-service` names `search-service`, and says it was by that alias.
 * @returns the subjects' canonical keys, each with the alias that named it (null for its own name).
 */
export function namedSubjects(store: FactReads, query: string): NamedEntity[] {
  return store.namedEntities(subjectCandidates(query))
}

/**
 * BM25 over the query's other terms among the facts that carry a subject it names (its name as an FTS5 phrase).
 * On LoCoMo's rendered answers this lifts evidence recall@10 by about one point and @5 by two: the two speakers'
 * facts compete for every word, and the question names whose fact it wants. With only the name in the query, it
 * ranks that subject's facts by the name alone, and so it does when none of the subject's facts has another of the
 * query's words ("what did the platform team decide" when its facts say "decision"): what is recorded about the
 * subject is then the answer, rather than nothing.
 *
 * For a name held by {@link NAMED_BONUS_FACTS} facts or fewer, a word more than {@link HUGE_TERM_DOCUMENTS} facts hold
 * counts as a flat bonus, as in the text channel ("what is the port of fizantri-bot" in a million facts, where a fifth
 * hold "port": 8.6 ms of BM25's count of "port" otherwise). The facts ranked are the same ones: those holding the
 * name and a rarer word, then those holding the name and only such words, each ranked by the rest and given the bonus
 * of what it holds. A name held by more facts keeps every word inside BM25, since testing each of its facts for the
 * word costs more than the count saves.
 * @param named - the subjects the query names (canonical keys).
 * @param otherTerms - the query's terms that are not part of those names.
 * @param visibility - model visibility, or `undefined` for every live fact.
 * @param options - the bounds and the document counts, as for the text channel.
 * @returns hits, best first; empty when the query names no stored subject.
 */
export function subjectChannel(
  store: FactReads,
  named: readonly string[],
  otherTerms: readonly string[],
  visibility: Visibility | undefined,
  options: TextChannelOptions = {},
): ChannelHit[] {
  if (named.length === 0) return []
  const names = named.map((key) => `"${searchTerms(key).join(' ').replaceAll('"', '""')}"`).join(' OR ')
  // A name held by more facts than the cap ranks among its newest, as a text plan's window does (see text-plan.ts).
  const from = store.newestMatchStart(names, options.candidateCap ?? RANK_CANDIDATE_CAP)
  const matched = otherTerms.length === 0 ? [] : namedWithTerms(store, names, otherTerms, visibility, from, options)
  return matched.length > 0 ? matched : store.matchText(names, CHANNEL_DEPTH, visibility, { fromId: from })
}

/** The facts holding a name and another of the terms, ranked (see subjectChannel). */
function namedWithTerms(
  store: FactReads,
  names: string,
  terms: readonly string[],
  visibility: Visibility | undefined,
  from: number | undefined,
  options: TextChannelOptions,
): ChannelHit[] {
  const exact = (): ChannelHit[] =>
    store.matchText(`(${names}) AND (${orExpression(terms)})`, CHANNEL_DEPTH, visibility, { fromId: from })
  if (from !== undefined) return exact()
  const bonus = hugeTermBonuses(
    terms,
    options.documentCounts ?? store.termDocumentCounts(terms),
    options.documents ?? store.indexedFactCount(),
    options.hugeAbove ?? HUGE_TERM_DOCUMENTS,
  )
  if (bonus.length === 0 || store.newestMatchStart(names, options.bonusNamesUpTo ?? NAMED_BONUS_FACTS) !== undefined)
    return exact()
  const huge = bonus.map((word) => word.term)
  const ranked = terms.filter((term) => !huge.includes(term))
  const withRanked = ranked.length === 0 ? undefined : `(${names}) AND (${orExpression(ranked)})`
  const hits = withRanked === undefined ? [] : store.matchText(withRanked, CHANNEL_DEPTH, visibility, { bonus })
  const hugeOnly = store.matchText(names, CHANNEL_DEPTH, visibility, {
    bonus,
    excluding: withRanked,
    including: `(${names}) AND (${orExpression(huge)})`,
  })
  return mergeByScore(hits, hugeOnly)
}

/**
 * Two rankings on one scale as one, best first (the newer fact first between equal scores), cut to the channel's
 * depth; a fact in both (scored alike by both) is kept once.
 */
function mergeByScore(first: readonly ChannelHit[], second: readonly ChannelHit[]): ChannelHit[] {
  const merged: ChannelHit[] = []
  const seen = new Set<number>()
  for (const hit of [...first, ...second].sort((a, b) => b.score - a.score || b.id - a.id)) {
    if (merged.length === CHANNEL_DEPTH) break
    if (seen.has(hit.id)) continue
    seen.add(hit.id)
    merged.push(hit)
  }
  return merged
}

/**
 * BM25 over the facts' cues.
 * @param terms - the query's terms.
 * @param visibility - model visibility, or `undefined` for every live fact.
 * @returns the ranking (weighted {@link CUE_RANK_WEIGHT}), or undefined when no cue matches.
 */
export function cueChannel(
  store: FactReads,
  terms: readonly string[],
  visibility: Visibility | undefined,
): Ranking | undefined {
  if (terms.length === 0) return undefined
  const hits = store.matchCues(orExpression(terms), CHANNEL_DEPTH, visibility)
  return hits.length === 0 ? undefined : { ...rankingOf('cue', hits), weight: CUE_RANK_WEIGHT }
}

/**
 * The facts holding other members of the lexicon concepts the query's terms hold, ranked by BM25 over those members
 * (each a phrase, at most {@link BRIDGE_MEMBERS}), among the newest {@link BRIDGE_WINDOW} facts that hold any. A member the query already holds
 * is left out: the query's own words find those facts in the text channel.
 * @param query - the query, read whole for lexicon members (one may hold a word a question's terms leave out).
 * @param terms - the query's terms: members it already holds are not looked for again.
 * @param visibility - model visibility, or `undefined` for every live fact.
 * @param lexicon - the concept lexicon; the shipped one by default.
 * @returns the ranking (weighted {@link BRIDGE_RANK_WEIGHT}), or undefined when the query holds no concept.
 */
export function bridgeChannel(
  store: FactReads,
  query: string,
  terms: readonly string[],
  visibility: Visibility | undefined,
  lexicon: Lexicon = SOFTWARE_LEXICON,
): Ranking | undefined {
  const forms = terms.map(indexForm)
  const concepts = [...new Set(findConcepts(lexicon, lexiconTerms(query)).map((hit) => hit.concept))]
  if (concepts.length === 0) return undefined
  const members = bridgedMembers(lexicon, concepts, new Set(forms), BRIDGE_MEMBERS)
  if (members.length === 0) return undefined
  const match = members.map((member) => `"${member.surface.join(' ').replaceAll('"', '""')}"`).join(' OR ')
  const hits = store.matchText(match, CHANNEL_DEPTH, visibility, {
    fromId: store.newestMatchStart(match, BRIDGE_WINDOW),
  })
  return hits.length === 0 ? undefined : { ...rankingOf('bridge', hits), weight: BRIDGE_RANK_WEIGHT }
}

/**
 * The facts dated within the windows: first those the text channel also found, in its order, then the rest, newest
 * first, sharing one rank. A fact is dated by when its value took effect, the date every answer shows. On LoCoMo's
 * rendered answers (where each observation is dated by its session) this lifts evidence recall@10 by about 1.3
 * points; a question such as "what did Maria start, as mentioned on 3 June, 2023" finds what was said that day.
 * @param textHits - the text channel's hits.
 * @returns the ranking, or undefined when nothing is dated within the windows.
 */
export function dateChannel(
  store: FactReads,
  windows: readonly DateWindow[],
  textHits: readonly ChannelHit[],
  visibility: Visibility | undefined,
): Ranking | undefined {
  if (windows.length === 0) return undefined
  const dated = store.factsDatedWithin(windows, DATED_CANDIDATES, visibility)
  if (dated.length === 0) return undefined
  const inWindow = new Set<number>(dated)
  const matched = textHits.filter((hit) => inWindow.has(hit.id))
  const matchedIds = new Set<number>(matched.map((hit) => hit.id))
  const rest = dated.filter((id) => !matchedIds.has(id)).slice(0, Math.max(0, CHANNEL_DEPTH - matched.length))
  return {
    channel: 'date',
    ids: [...matched.map((hit) => hit.id), ...rest],
    scores: [...matched.map((hit) => hit.score), ...rest.map(() => Number.NEGATIVE_INFINITY)],
  }
}

/**
 * Run a text plan; a split plan's two halves score on one scale and are merged by score. A plan with a window ranks
 * only the facts from where its newest matches start, and those holding another word of the question (`older`) from
 * where the newest of them start: a split ranks its first half there, a single plan ranks them in a second statement
 * (see text-plan.ts).
 */
function runTextPlan(store: FactReads, plan: TextPlan, visibility: Visibility | undefined): ChannelHit[] {
  if (plan.kind === 'none') return []
  const from = plan.window === undefined ? undefined : store.newestMatchStart(plan.window.match, plan.window.newest)
  // Ranked at any age, the facts holding another word are bounded at rowid 0 at least: a bounded ranking keeps the
  // newest of many that score alike, where FTS5's own ORDER BY rank would keep the oldest.
  const olderFrom = plan.older === undefined ? from : (store.newestMatchStart(plan.older.match, plan.older.newest) ?? 0)
  switch (plan.kind) {
    case 'single': {
      const hits = store.matchText(plan.match, CHANNEL_DEPTH, visibility, { fromId: from, bonus: plan.bonus })
      if (plan.older === undefined) return hits
      return mergeByScore(
        hits,
        store.matchText(plan.match, CHANNEL_DEPTH, visibility, {
          fromId: olderFrom,
          including: plan.older.match,
          bonus: plan.bonus,
        }),
      )
    }
    case 'split': {
      const withBroad = store.matchText(plan.withBroad, CHANNEL_DEPTH, visibility, {
        fromId: olderFrom,
        bonus: plan.bonus,
      })
      const withoutBroad = store.matchText(plan.narrowOnly, CHANNEL_DEPTH, visibility, {
        fromId: from,
        excluding: plan.withBroad,
        bonus: plan.bonus,
      })
      return mergeByScore(withBroad, withoutBroad)
    }
  }
}
