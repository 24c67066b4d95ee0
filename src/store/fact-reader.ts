/**
 * FactReader: the fact store's synchronous reads — facts by id, the full-text and identifier channels, slot
 * history, the directory rows and counts, contested slots and status counts. One part of the fact store composed
 * in fact-store.ts; the parts that write hold it and read through it. Writes live in the other parts.
 */
import { projectScope } from '../project/project-ref.ts'
import { orExpression } from '../text/tokenize.ts'
import type { Fact, FactId } from '../types.ts'
import { entityAliasesAmong } from './alias-rows.ts'
import type { Database } from './database.ts'
import {
  chunks,
  FACT_COLUMNS,
  INSTANT,
  KEY,
  keyColumn,
  keyPlaceholders,
  MODEL_VISIBLE,
  placeholders,
  toFact,
} from './fact-rows.ts'

/**
 * Matches counted one by one before a term's document count is estimated: a word in more facts than this is common
 * whatever its exact count, and its weight (log N / n) moves little with it.
 */
export const EXACT_DOCUMENT_COUNT = 10_000

/** A project's active facts read and sorted for its directory rows; a larger project walks the directory's index. */
export const PROJECT_SORTED_FACTS = 5_000

/** The most facts one identifier contributes to the identifier channel, its newest (see `matchIdentifiers`). */
export const IDENTIFIER_FACTS = 1_000

/** What a full-text ranking leaves out (see `FactReader.matchText`). */
export interface RankBounds {
  /** Rank only the matches with this rowid or above. */
  readonly fromId?: number | undefined
  /** Leave out the matches of this expression. */
  readonly excluding?: string | undefined
  /** Rank only the matches of this expression too, tested without ranking it. */
  readonly including?: string | undefined
  /**
   * Words scored outside BM25: each adds its weight to every ranked match that holds it, tested by a filter that
   * never ranks the word, so its long posting list is not counted (see retrieval/text-plan.ts).
   */
  readonly bonus?: readonly { readonly term: string; readonly weight: number }[] | undefined
}

/** A stored subject a query names, and the old name (alias) it named it by, if any. */
export interface NamedEntity {
  /** The subject's canonical key. */
  readonly entityKey: string
  /** The alias as it was spelled when recorded, when the query named the subject by it; null for its own name. */
  readonly alias: string | null
  /** That alias's key (null with it). */
  readonly aliasKey: string | null
  /** With an alias, the subject's name as the alias records it; null with none. */
  readonly canonicalText: string | null
}

/** The rowids an expression matches from a rowid on, unranked: a subquery of `matchText` (expression, then rowid). */
const MATCHES_FROM = '(SELECT rowid FROM facts_fts WHERE facts_fts MATCH ? AND rowid >= ?)'

/** Which facts the model may read. */
export interface Visibility {
  /** Include facts marked sensitive (personal data) that are otherwise model-usable. */
  readonly includeSensitive: boolean
}

/** A full-text or identifier hit. */
export interface ChannelHit {
  readonly id: FactId
  readonly score: number
}

/** Counts for status displays. */
export interface StoreCounts {
  readonly byStatus: Readonly<Record<string, number>>
  readonly byEvidence: Readonly<Record<string, number>>
  readonly openConflictGroups: number
  readonly pendingProposals: number
}

/** Synchronous reads over facts and their satellites. */
export class FactReader {
  private readonly db: Database

  /** @param db - an open, migrated database. */
  constructor(db: Database) {
    this.db = db
  }

  /**
   * Read facts by id, in the order given; missing ids are skipped.
   * @param ids - fact ids.
   * @returns the facts.
   */
  getFacts(ids: readonly number[]): Fact[] {
    if (ids.length === 0) return []
    const rows = new Map<number, Fact>()
    for (const chunk of chunks(ids, 500)) {
      for (const row of this.db.all(
        `SELECT ${FACT_COLUMNS} FROM facts WHERE id IN (${placeholders(chunk.length)})`,
        ...chunk,
      )) {
        const fact = toFact(row)
        rows.set(fact.id, fact)
      }
    }
    return ids.flatMap((id) => rows.get(id) ?? [])
  }

  /**
   * Full-text channel: BM25 over the terms column, ranked inside FTS5 alone (forgotten rows are never indexed),
   * then filtered to what the caller may see. FTS5 scores lower-is-better; the score returned is negated.
   * @param match - a MATCH expression built by `ftsMatchExpression`.
   * @param limit - how many hits.
   * @param visibility - model visibility, or `undefined` for every live fact.
   * @param bounds - what to leave unranked: matches below `fromId` (see `newestMatchStart`), matches of the
   *   expression `excluding` and matches outside `including`, each tested without ranking it; `bonus` words add
   *   their weights to the matches holding them. The scores are the same BM25 as an unbounded ranking of
   *   `match`: FTS5's ORDER BY rank would rank every match before applying a bound, so a bounded ranking computes
   *   bm25() per row it keeps and sorts those, the newer fact first between equal scores (so a bound that reaches
   *   old facts keeps the newest of many that score alike).
   * @returns hits, best first.
   */
  matchText(match: string, limit: number, visibility: Visibility | undefined, bounds: RankBounds = {}): ChannelHit[] {
    const fetched = visibility === undefined ? limit : limit * 4
    // Over-fetch so that hidden rows filtered afterwards rarely shorten the list.
    const from = bounds.fromId ?? 0
    const excluded = bounds.excluding === undefined ? [] : [bounds.excluding, from]
    const included = bounds.including === undefined ? [] : [bounds.including, from]
    const bonus = bounds.bonus ?? []
    // A bonus word's filter holds the ranked expression too, so FTS5 walks the rare words' lists and seeks the word's.
    // `+rowid` keeps the inclusion a test of each match: as a constraint FTS5 would re-run the MATCH once per rowid.
    const bonusParams = bonus.flatMap((word) => [`(${match}) AND ${orExpression([word.term])}`, from, word.weight])
    const rows =
      bounds.fromId === undefined && excluded.length === 0 && included.length === 0 && bonus.length === 0
        ? this.db.all(
            'SELECT rowid AS id, -rank AS score FROM facts_fts WHERE facts_fts MATCH ? ORDER BY rank LIMIT ?',
            match,
            fetched,
          )
        : this.db.all(
            `SELECT rowid AS id, -bm25(facts_fts)${bonus.map(() => ` + (rowid IN ${MATCHES_FROM}) * ?`).join('')} AS score
          FROM facts_fts WHERE facts_fts MATCH ? AND rowid >= ?
          ${excluded.length === 0 ? '' : `AND rowid NOT IN ${MATCHES_FROM}`}
          ${included.length === 0 ? '' : `AND +rowid IN ${MATCHES_FROM}`}
          ORDER BY score DESC, id DESC LIMIT ?`,
            ...bonusParams,
            match,
            from,
            ...excluded,
            ...included,
            fetched,
          )
    const ranked = rows.map((row) => ({ id: Number(row['id']) as FactId, score: Number(row['score']) }))
    return this.visibleHits(ranked, visibility, limit)
  }

  /**
   * Cue channel: BM25 over the facts' cues (fact_cues_fts), then filtered to what the caller may see, as `matchText`.
   * @param match - a MATCH expression.
   * @param limit - how many hits.
   * @param visibility - model visibility, or `undefined` for every live fact.
   * @returns hits, best first.
   */
  matchCues(match: string, limit: number, visibility: Visibility | undefined): ChannelHit[] {
    const fetched = visibility === undefined ? limit : limit * 4
    const ranked = this.db
      .all(
        'SELECT rowid AS id, -rank AS score FROM fact_cues_fts WHERE fact_cues_fts MATCH ? ORDER BY rank LIMIT ?',
        match,
        fetched,
      )
      .map((row) => ({ id: Number(row['id']) as FactId, score: Number(row['score']) }))
    return this.visibleHits(ranked, visibility, limit)
  }

  /**
   * Where an expression's newest `count` matches start: the rowid just above its (`count` + 1)-th newest match, so
   * that exactly `count` matches lie at or above it; read by walking that many rowids backwards, without ranking.
   * @param match - a MATCH expression.
   * @param count - how many of the newest matches.
   * @returns that rowid, or undefined when the expression matches `count` facts or fewer.
   */
  newestMatchStart(match: string, count: number): number | undefined {
    const row = this.db.get(
      'SELECT rowid AS id FROM facts_fts WHERE facts_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?',
      match,
      count,
    )
    return row === undefined ? undefined : Number(row['id']) + 1
  }

  /**
   * How many indexed facts each term matches (document frequency), for planning the text query and weighing words.
   * Exact up to `exactUpTo` facts; a term matching more is estimated from the share of rowids its first `exactUpTo`
   * matches span (at least `exactUpTo`, at most the indexed facts), so a word common in a large library costs a
   * bounded walk rather than its whole posting list. Below that many facts every count is exact.
   * @param terms - search terms.
   * @param exactUpTo - how many matches are counted one by one; {@link EXACT_DOCUMENT_COUNT} by default.
   * @returns the count per term.
   */
  termDocumentCounts(terms: readonly string[], exactUpTo = EXACT_DOCUMENT_COUNT): Map<string, number> {
    const counts = new Map<string, number>()
    // Read once, and only when some term is common enough to be estimated.
    let span: { readonly lastId: number; readonly indexed: number } | undefined
    for (const term of terms) {
      // Counting walks the term's whole posting list, which for a common word in a large library costs milliseconds;
      // past `exactUpTo` matches the walk stops, and the count is read from how far into the rowids it got.
      const row = this.db.get(
        `SELECT count(*) AS n, max(rowid) AS reached FROM (
          SELECT rowid FROM facts_fts WHERE facts_fts MATCH ? ORDER BY rowid LIMIT ?)`,
        orExpression([term]),
        exactUpTo,
      )
      const n = Number(row?.['n'] ?? 0)
      if (n < exactUpTo) {
        counts.set(term, n)
        continue
      }
      span ??= {
        lastId: Number(this.db.get('SELECT coalesce(max(id), 0) AS id FROM facts')?.['id'] ?? 0),
        indexed: this.indexedFactCount(),
      }
      const reached = Math.max(1, Number(row?.['reached'] ?? 1))
      counts.set(term, Math.max(n, Math.min(span.indexed, Math.round((n * span.lastId) / reached))))
    }
    return counts
  }

  /**
   * How many facts the full-text index holds: every row but the forgotten ones (kept by triggers, one small read).
   * @returns N for inverse document frequencies over `termDocumentCounts`.
   */
  indexedFactCount(): number {
    return Number(
      this.db.get(`SELECT coalesce(sum(n), 0) AS n FROM fact_counts WHERE status <> 'forgotten'`)?.['n'] ?? 0,
    )
  }

  /**
   * How many facts are current (active, scheduled or conflict), from the same trigger-kept counts.
   * @returns the count.
   */
  currentFactCount(): number {
    return Number(
      this.db.get(
        `SELECT coalesce(sum(n), 0) AS n FROM fact_counts WHERE status IN ('active', 'scheduled', 'conflict')`,
      )?.['n'] ?? 0,
    )
  }

  /**
   * The current rows of one slot in one scope that a write may restate, with their text: credentials are left out
   * (their value is never indexed, so nothing weighs its words, and a secret is compared only exactly).
   * @param slotKey - the slot.
   * @param scope - the write's scope.
   * @returns rows in id order.
   */
  restatementRows(slotKey: string, scope: string): { id: FactId; subject: string; property: string; value: string }[] {
    // Through the slot index by name: every global fact shares one scope, and without statistics the planner may
    // otherwise walk the scope index through all of them (a write at 100,000 facts cost ten times as much).
    return this.db
      .all(
        `SELECT id, subject, property, value FROM facts INDEXED BY facts_by_slot
        WHERE slot_key = ${KEY} AND scope = ? AND status IN ('active', 'scheduled', 'conflict') AND (sensitivity IS NULL OR sensitivity <> 'credential')
        ORDER BY id`,
        slotKey,
        scope,
      )
      .map((row) => ({
        id: Number(row['id']) as FactId,
        subject: String(row['subject']),
        property: String(row['property']),
        value: String(row['value']),
      }))
  }

  /**
   * Exact-identifier channel: facts carrying any of the identifiers, most identifiers matched first, then newest.
   * Each identifier brings at most its newest {@link IDENTIFIER_FACTS} facts as candidates (a walk down its index
   * entries), and each candidate's score counts every identifier it holds (one primary-key probe each). So a word the
   * query took for an identifier but the library holds thousands of times ("on-call" in every on-call rotation)
   * costs a bounded read rather than a join of every fact holding it, and a fact holding a rare identifier and a
   * common one still scores both. An identifier held fewer times than that ranks exactly as it did.
   * @param identifiers - folded identifiers from the query.
   * @param limit - how many hits.
   * @param visibility - model visibility, or `undefined` for every live fact.
   * @param perIdentifier - how many of each identifier's newest facts are candidates; {@link IDENTIFIER_FACTS} by default.
   * @returns hits, best first; score is the number of identifiers matched.
   */
  matchIdentifiers(
    identifiers: readonly string[],
    limit: number,
    visibility: Visibility | undefined,
    perIdentifier = IDENTIFIER_FACTS,
  ): ChannelHit[] {
    const distinct = [...new Set(identifiers)]
    if (distinct.length === 0) return []
    const newest = distinct
      .map(
        () =>
          'SELECT fact_id FROM (SELECT fact_id FROM fact_identifiers WHERE ident = ? ORDER BY fact_id DESC LIMIT ?)',
      )
      .join(' UNION ')
    const rows = this.db.all(
      `SELECT f.id AS id,
          (SELECT count(*) FROM fact_identifiers held WHERE held.ident IN (${placeholders(distinct.length)}) AND held.fact_id = f.id) AS score
        FROM (${newest}) i JOIN facts f ON f.id = i.fact_id
        WHERE (? = 0 OR (${MODEL_VISIBLE}))
        ORDER BY score DESC, f.observed_at DESC, f.id DESC LIMIT ?`,
      ...distinct,
      ...distinct.flatMap((identifier) => [identifier, perIdentifier]),
      visibility === undefined ? 0 : 1,
      visibility?.includeSensitive === true ? 1 : 0,
      limit,
    )
    return rows.map((row) => ({ id: Number(row['id']) as FactId, score: Number(row['score']) }))
  }

  /**
   * Every non-forgotten row of the given slots, for rendering a slot's history newest first.
   * @param slotKeys - slot keys.
   * @returns rows grouped by slot, newest observation first within a slot.
   */
  slotHistory(slotKeys: readonly string[]): Fact[] {
    if (slotKeys.length === 0) return []
    return this.db
      .all(
        `SELECT ${FACT_COLUMNS} FROM facts WHERE slot_key IN (${keyPlaceholders(slotKeys.length)}) AND status <> 'forgotten'
        ORDER BY slot_key, facts.observed_at DESC, id DESC`,
        ...slotKeys,
      )
      .map(toFact)
  }

  /**
   * Facts dated within any of the windows: their value took effect (valid_from) inside it. Newest first.
   * @param windows - ISO UTC spans, start inclusive, end exclusive.
   * @param limit - how many ids.
   * @param visibility - model visibility, or `undefined` for every live fact.
   * @returns fact ids, newest first.
   */
  factsDatedWithin(
    windows: readonly { readonly start: string; readonly end: string }[],
    limit: number,
    visibility: Visibility | undefined,
  ): FactId[] {
    if (windows.length === 0) return []
    const spans = windows.map(() => `(valid_from >= ${INSTANT} AND valid_from < ${INSTANT})`).join(' OR ')
    return this.db
      .all(
        `SELECT id FROM facts WHERE (${spans}) AND status <> 'forgotten' AND (? = 0 OR (${MODEL_VISIBLE}))
        ORDER BY facts.valid_from DESC, id DESC LIMIT ?`,
        ...windows.flatMap((window) => [window.start, window.end]),
        visibility === undefined ? 0 : 1,
        visibility?.includeSensitive === true ? 1 : 0,
        limit,
      )
      .map((row) => Number(row['id']) as FactId)
  }

  /**
   * Which of the given canonical subject keys name a known subject.
   * @param keys - candidate entity keys.
   * @returns the keys the store knows, in the order given.
   */
  knownEntities(keys: readonly string[]): string[] {
    if (keys.length === 0) return []
    const known = new Set<string>()
    for (const chunk of chunks(keys, 500)) {
      for (const row of this.db.all(
        `SELECT entity_key FROM entities WHERE entity_key IN (${placeholders(chunk.length)})`,
        ...chunk,
      ))
        known.add(String(row['entity_key']))
    }
    return keys.filter((key) => known.has(key))
  }

  /**
   * The stored subjects some candidate keys name, directly or by an old name: a key that is a subject's alias (a
   * rename or merge left it) names the subject it leads to, and says so, since writes under it land there too; any
   * other key names itself when the store knows it. One subject is named once, by its first candidate.
   * @param keys - candidate entity keys (see retrieval/subject-names.ts).
   * @returns the named subjects in the order given, each with the alias that named it (null for its own name).
   */
  namedEntities(keys: readonly string[]): NamedEntity[] {
    if (keys.length === 0) return []
    const aliases = entityAliasesAmong(this.db, keys)
    const known = new Set(this.knownEntities(keys.filter((key) => !aliases.has(key))))
    const named = new Map<string, NamedEntity>()
    for (const key of keys) {
      const alias = aliases.get(key)
      const entity: NamedEntity | undefined =
        alias !== undefined
          ? { entityKey: alias.canonicalKey, alias: alias.aliasText, aliasKey: key, canonicalText: alias.canonicalText }
          : known.has(key)
            ? { entityKey: key, alias: null, aliasKey: null, canonicalText: null }
            : undefined
      if (entity === undefined) continue
      const before = named.get(entity.entityKey)
      // Its own name outranks an old one wherever each stands in the query.
      if (before === undefined || (before.alias !== null && entity.alias === null)) named.set(entity.entityKey, entity)
    }
    return [...named.values()]
  }

  /**
   * How many values each slot holds that the caller may see: its active rows, or, as of an instant, the rows whose
   * validity window covers it. For counting the values a multi-valued answer does not list.
   * @param slotKeys - slot keys.
   * @param visibility - model visibility, or `undefined` for every live fact.
   * @param asOf - ISO UTC instant, or `undefined` for now.
   * @returns the count per slot key (slots with none are absent).
   */
  slotValueCounts(
    slotKeys: readonly string[],
    visibility: Visibility | undefined,
    asOf: string | undefined,
  ): Map<string, number> {
    const counts = new Map<string, number>()
    if (slotKeys.length === 0) return counts
    const window =
      asOf === undefined
        ? `status = 'active'`
        : `status NOT IN ('forgotten', 'conflict') AND valid_from <= ${INSTANT} AND (valid_to IS NULL OR valid_to > ${INSTANT})`
    const rows = this.db.all(
      `SELECT ${keyColumn('slot_key')}, count(*) AS n FROM facts
        WHERE slot_key IN (${keyPlaceholders(slotKeys.length)}) AND ${window} AND (? = 0 OR (${MODEL_VISIBLE}))
        GROUP BY slot_key`,
      ...slotKeys,
      ...(asOf === undefined ? [] : [asOf, asOf]),
      visibility === undefined ? 0 : 1,
      visibility?.includeSensitive === true ? 1 : 0,
    )
    for (const row of rows) counts.set(String(row['slot_key']), Number(row['n']))
    return counts
  }

  /**
   * The directory's rows outside the session's project: the pinned facts (the global scope's, free-text scopes' and
   * the session's project's, never another project's), earliest pin first; then the active, model-visible facts of
   * the global scope and of free-text scopes, strongest evidence first, then most recently observed. The project's
   * unpinned facts are read by {@link projectDirectoryFacts}.
   * @param limit - the most rows the budget can hold.
   * @param visibility - model visibility.
   * @param projectKey - the session's project (whose pins are read here); null (the default): no project's.
   * @returns the rows in priority order.
   */
  directoryFacts(limit: number, visibility: Visibility, projectKey: string | null = null): Fact[] {
    const sensitive = visibility.includeSensitive ? 1 : 0
    const scope = projectKey === null ? null : projectScope(projectKey)
    const pinned = this.db
      .all(
        `SELECT ${FACT_COLUMNS} FROM facts INDEXED BY facts_pinned
        WHERE pinned_at IS NOT NULL AND status = 'active' AND ${MODEL_VISIBLE} AND (substr(scope, 1, 8) <> 'project:' OR scope = ?)
        ORDER BY facts.pinned_at, id LIMIT ?`,
        sensitive,
        scope,
        limit,
      )
      .map(toFact)
    if (pinned.length >= limit) return pinned
    const rest = this.db
      .all(
        `SELECT ${FACT_COLUMNS} FROM facts INDEXED BY facts_directory_order
        WHERE status = 'active' AND pinned_at IS NULL AND ${MODEL_VISIBLE} AND substr(scope, 1, 8) <> 'project:'
        ORDER BY evidence_rank, facts.observed_at DESC, id LIMIT ?`,
        sensitive,
        limit - pinned.length,
      )
      .map(toFact)
    return [...pinned, ...rest]
  }

  /**
   * The session's project's unpinned directory rows: its active, model-visible facts, strongest evidence first, then
   * most recently observed. A project of up to {@link PROJECT_SORTED_FACTS} active facts is read on facts_by_scope and
   * sorted; a larger one walks facts_directory_order, where its facts are common enough to be met soon.
   * @param limit - the most rows the budget can hold.
   * @param visibility - model visibility.
   * @param projectKey - the session's project.
   * @returns the rows in priority order.
   */
  projectDirectoryFacts(limit: number, visibility: Visibility, projectKey: string): Fact[] {
    const sensitive = visibility.includeSensitive ? 1 : 0
    const scope = projectScope(projectKey)
    const size = Number(
      this.db.get(
        `SELECT count(*) AS n FROM facts INDEXED BY facts_by_scope WHERE scope = ? AND scope <> 'global' AND status = 'active'`,
        scope,
      )?.['n'] ?? 0,
    )
    if (size === 0) return []
    const index = size <= PROJECT_SORTED_FACTS ? 'facts_by_scope' : 'facts_directory_order'
    return this.db
      .all(
        `SELECT ${FACT_COLUMNS} FROM facts INDEXED BY ${index}
        WHERE scope = ? AND scope <> 'global' AND status = 'active' AND pinned_at IS NULL AND ${MODEL_VISIBLE}
        ORDER BY evidence_rank, facts.observed_at DESC, id LIMIT ?`,
        scope,
        sensitive,
        limit,
      )
      .map(toFact)
  }

  /**
   * A project's current facts, newest first: what per-turn recall weighs as the session's context.
   * @param projectKey - the project.
   * @param limit - the most rows.
   * @param visibility - model visibility.
   * @returns active and contested facts.
   */
  currentProjectFacts(projectKey: string, limit: number, visibility: Visibility): Fact[] {
    return this.db
      .all(
        `SELECT ${FACT_COLUMNS} FROM facts INDEXED BY facts_by_scope
        WHERE scope = ? AND scope <> 'global' AND status IN ('active', 'conflict') AND ${MODEL_VISIBLE}
        ORDER BY id DESC LIMIT ?`,
        projectScope(projectKey),
        visibility.includeSensitive ? 1 : 0,
        limit,
      )
      .map(toFact)
  }

  /**
   * How many active facts the model may read in the directory of one project: from the trigger-kept counts, those
   * outside every project, plus the session's own project's (a seek on facts_by_scope, which holds every fact outside
   * the global scope). No other project's fact is read.
   * @param visibility - model visibility.
   * @param projectKey - the session's project; null (the default): no project's facts.
   * @returns the count.
   */
  countDirectoryFacts(visibility: Visibility, projectKey: string | null = null): number {
    const row = this.db.get(
      'SELECT plain, sensitive, project_plain, project_sensitive FROM directory_counts WHERE id = 1',
    )
    const sensitive = visibility.includeSensitive
    const outside =
      Number(row?.['plain'] ?? 0) -
      Number(row?.['project_plain'] ?? 0) +
      (sensitive ? Number(row?.['sensitive'] ?? 0) - Number(row?.['project_sensitive'] ?? 0) : 0)
    if (projectKey === null) return outside
    const own = this.db.get(
      `SELECT count(*) AS n FROM facts INDEXED BY facts_by_scope WHERE scope = ? AND scope <> 'global' AND status = 'active' AND ${MODEL_VISIBLE}`,
      projectScope(projectKey),
      sensitive ? 1 : 0,
    )
    return outside + Number(own?.['n'] ?? 0)
  }

  /**
   * The scopes of the given facts, for placing them by project.
   * @param ids - fact ids.
   * @returns id → scope text; missing ids are absent.
   */
  scopesOf(ids: readonly number[]): Map<number, string> {
    const scopes = new Map<number, string>()
    for (const chunk of chunks(ids, 500)) {
      for (const row of this.db.all(
        `SELECT id, scope FROM facts WHERE id IN (${placeholders(chunk.length)})`,
        ...chunk,
      )) {
        scopes.set(Number(row['id']), String(row['scope']))
      }
    }
    return scopes
  }

  /**
   * Slots among the given ones that have an open conflict group.
   * @param slotKeys - slot keys.
   * @returns the contested slot keys.
   */
  contestedSlots(slotKeys: readonly string[]): Set<string> {
    if (slotKeys.length === 0) return new Set()
    const rows = this.db.all(
      `SELECT DISTINCT ${keyColumn('slot_key')} FROM conflict_groups WHERE status = 'open' AND slot_key IN (${keyPlaceholders(slotKeys.length)})`,
      ...slotKeys,
    )
    return new Set(rows.map((row) => String(row['slot_key'])))
  }

  /**
   * A channel's hits cut to what the caller may see, then to the limit.
   * @param ranked - the hits, best first (fetched beyond the limit when visibility filters them).
   * @param visibility - model visibility, or `undefined` for every live fact (the hits are then returned as they are).
   * @param limit - how many hits.
   * @returns the visible hits, best first.
   */
  private visibleHits(ranked: ChannelHit[], visibility: Visibility | undefined, limit: number): ChannelHit[] {
    if (visibility === undefined) return ranked
    const visible = this.visibleIds(
      ranked.map((hit) => hit.id),
      visibility,
    )
    return ranked.filter((hit) => visible.has(hit.id)).slice(0, limit)
  }

  /** Counts by status and evidence, open conflict groups and pending proposals. */
  counts(): StoreCounts {
    const byStatus: Record<string, number> = {}
    const byEvidence: Record<string, number> = {}
    for (const row of this.db.all('SELECT status, evidence, n FROM fact_counts WHERE n > 0')) {
      const n = Number(row['n'])
      byStatus[String(row['status'])] = (byStatus[String(row['status'])] ?? 0) + n
      if (row['status'] !== 'forgotten')
        byEvidence[String(row['evidence'])] = (byEvidence[String(row['evidence'])] ?? 0) + n
    }
    const openConflictGroups = Number(
      this.db.get(`SELECT count(*) AS n FROM conflict_groups WHERE status = 'open'`)?.['n'] ?? 0,
    )
    const pendingProposals = Number(
      this.db.get(`SELECT count(*) AS n FROM proposals WHERE status = 'pending'`)?.['n'] ?? 0,
    )
    return { byStatus, byEvidence, openConflictGroups, pendingProposals }
  }

  private visibleIds(ids: readonly number[], visibility: Visibility): Set<number> {
    if (ids.length === 0) return new Set()
    const rows = this.db.all(
      `SELECT id FROM facts WHERE id IN (${placeholders(ids.length)}) AND ${MODEL_VISIBLE}`,
      ...ids,
      visibility.includeSensitive ? 1 : 0,
    )
    return new Set(rows.map((row) => Number(row['id'])))
  }
}
