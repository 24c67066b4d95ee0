/**
 * LibraryStore: the reads behind the management page — a paged, filtered fact list, one fact's history and
 * sources, an entity, the open conflict groups, per-session and per-turn counts, and the activity digest.
 */
import { projectKeyOfScope, projectNameOf } from '../project/project-ref.ts'
import type { Evidence, Fact, FactStatus, Origin } from '../types.ts'
import { numberOrNull, textOrNull } from './connection.ts'
import type { Database } from './database.ts'
import { FACT_COLUMNS, INSTANT, instantColumn, instantSql, KEY, keyColumn, placeholders, toFact } from './fact-rows.ts'

/** Filters of the fact list. */
export interface FactFilter {
  readonly statuses: readonly FactStatus[]
  readonly evidence: readonly Evidence[] | undefined
  /** Canonical entity key prefix. */
  readonly entityPrefix: string | undefined
  /** Restrict to these ids (a text filter resolved through the full-text index). */
  readonly ids: readonly number[] | undefined
  /** Only facts first recorded in this conversation. */
  readonly sessionId?: string | undefined
  /** Only facts of this scope (its stored text). */
  readonly scope?: string | undefined
  /** Return rows with an id below this. */
  readonly beforeId: number | undefined
  readonly limit: number
}

/** One source of a fact. */
export interface FactSource {
  readonly origin: Origin
  readonly evidence: Evidence
  readonly sessionId: string | null
  readonly turn: number | null
  readonly quote: string | null
  readonly observedAt: string
}

/** An open conflict group with its rows. */
export interface ConflictGroupView {
  readonly id: number
  readonly slotKey: string
  readonly openedAt: string
  readonly rows: readonly Fact[]
}

/** One scope the store holds facts in, with how many of them are not forgotten. */
export interface ScopeCount {
  /** The stored scope text. */
  readonly scope: string
  /** The project's name for a project scope; null otherwise. */
  readonly projectName: string | null
  readonly facts: number
}

/** Counts for one conversation turn. */
export interface TurnCounts {
  readonly turn: number | null
  /** Facts this turn created. */
  readonly facts: number
  /** Proposals from this turn still pending. */
  readonly pending: number
  /** Facts from this turn that are still contested. */
  readonly unsettled: number
  readonly factIds: readonly number[]
}

/** Counts for one conversation. */
export interface SessionCounts {
  readonly sessionId: string
  readonly facts: number
  readonly pending: number
  readonly unsettled: number
  readonly lastAt: string
  readonly turns: readonly TurnCounts[]
}

/** What arrived since an instant. */
export interface ActivityCounts {
  readonly facts: number
  readonly conflicts: number
  readonly proposals: number
  readonly byDay: readonly { readonly day: string; readonly facts: number }[]
}

/** Synchronous reads for the page. */
export class LibraryStore {
  private readonly db: Database

  /** @param db - an open, migrated database. */
  constructor(db: Database) {
    this.db = db
  }

  /**
   * One page of facts, newest first.
   * @param filter - statuses, evidence, subject prefix, id restriction, conversation, cursor and page size.
   * @returns up to `limit` facts and whether more follow.
   */
  factsPage(filter: FactFilter): { facts: Fact[]; more: boolean } {
    // Each status is walked newest first and the runs are merged, so a page never sorts the whole table: the current
    // facts in rowid order on the table itself, every other state on facts_by_status_id (which leaves current ones out).
    const conditions = filterConditions(filter)
    if (conditions === undefined) return { facts: [], more: false }
    const { where, params } = conditions
    if (filter.beforeId !== undefined) {
      where.push('id < ?')
      params.push(filter.beforeId)
    }
    if (filter.sessionId !== undefined) {
      // One conversation holds few facts: read them all through facts_by_session and sort that handful.
      where[0] = `status IN (${placeholders(filter.statuses.length)})`
      const sql = `SELECT ${FACT_COLUMNS} FROM facts INDEXED BY facts_by_session WHERE session_id = ? AND ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`
      const rows = this.db.all(sql, filter.sessionId, ...filter.statuses, ...params, filter.limit + 1)
      return { facts: rows.slice(0, filter.limit).map(toFact), more: rows.length > filter.limit }
    }
    const rows = filter.statuses
      .flatMap((status) => {
        const run = stateRun(status, filter.scope)
        return this.db.all(
          `SELECT ${FACT_COLUMNS} FROM ${run.from} WHERE ${[run.where, ...where.slice(1)].join(' AND ')} ORDER BY id DESC LIMIT ?`,
          status,
          ...params,
          filter.limit + 1,
        )
      })
      .sort((a, b) => Number(b['id']) - Number(a['id']))
    return { facts: rows.slice(0, filter.limit).map(toFact), more: rows.length > filter.limit }
  }

  /**
   * How many facts a filter matches on every page together (its cursor and limit aside), counted per status as
   * {@link factsPage} reads them.
   * @param filter - the filter.
   * @returns the count.
   */
  countFacts(filter: Omit<FactFilter, 'beforeId' | 'limit'>): number {
    const conditions = filterConditions(filter)
    if (conditions === undefined) return 0
    const { where, params } = conditions
    if (filter.sessionId !== undefined) {
      where.push('session_id = ?')
      params.push(filter.sessionId)
    }
    return filter.statuses.reduce((total, status) => {
      const run = stateRun(status, filter.scope)
      return (
        total +
        Number(
          this.db.get(
            `SELECT count(*) AS n FROM ${run.from} WHERE ${[run.where, ...where.slice(1)].join(' AND ')}`,
            status,
            ...params,
          )?.['n'] ?? 0,
        )
      )
    }, 0)
  }

  /**
   * Every scope that holds a fact not forgotten, with the project's name for a project scope. It never walks every
   * fact: the distinct scopes other than the global one are read by hopping along facts_by_scope (one seek a scope;
   * the index leaves global facts out), each is counted on its stretch of the index, and the global scope's count is
   * what the trigger-kept counts leave after the others.
   * @returns the scopes in scope-text order.
   */
  scopes(): ScopeCount[] {
    const distinct = this.db.all(
      `WITH RECURSIVE hop(scope) AS (
         SELECT (SELECT min(scope) FROM facts INDEXED BY facts_by_scope WHERE scope <> 'global')
         UNION ALL SELECT (SELECT min(scope) FROM facts INDEXED BY facts_by_scope WHERE scope <> 'global' AND scope > hop.scope)
           FROM hop WHERE hop.scope IS NOT NULL)
       SELECT scope, (SELECT name FROM projects WHERE project_key = substr(scope, 9)) AS project_name FROM hop WHERE scope IS NOT NULL
       UNION ALL SELECT 'global', NULL ORDER BY scope`,
    )
    const live = Number(
      this.db.get(`SELECT coalesce(sum(n), 0) AS n FROM fact_counts WHERE status <> 'forgotten'`)?.['n'] ?? 0,
    )
    const counted = distinct.map((row) => {
      const scope = String(row['scope'])
      const facts =
        scope === 'global'
          ? 0
          : Number(
              this.db.get(
                `SELECT count(*) AS n FROM facts INDEXED BY facts_by_scope WHERE scope = ? AND scope <> 'global' AND status <> 'forgotten'`,
                scope,
              )?.['n'] ?? 0,
            )
      return { scope, projectName: textOrNull(row['project_name']), facts }
    })
    const others = counted.reduce((sum, entry) => sum + entry.facts, 0)
    return counted
      .map((entry) => (entry.scope === 'global' ? { ...entry, facts: live - others } : entry))
      .filter((entry) => entry.facts > 0)
      .map((entry) => {
        const key = projectKeyOfScope(entry.scope)
        return {
          scope: entry.scope,
          projectName: key === null ? null : (entry.projectName ?? projectNameOf(key)),
          facts: entry.facts,
        }
      })
  }

  /**
   * How many facts each status holds among those a filter would show (ignoring cursor and id restriction).
   * @returns counts by status.
   */
  statusCounts(): Record<string, number> {
    const counts: Record<string, number> = {}
    for (const row of this.db.all('SELECT status, sum(n) AS n FROM fact_counts GROUP BY status HAVING sum(n) > 0'))
      counts[String(row['status'])] = Number(row['n'])
    return counts
  }

  /**
   * Every non-forgotten row of a slot, newest observation first.
   * @param slotKey - the slot.
   * @returns its rows.
   */
  slotRows(slotKey: string): Fact[] {
    return this.db
      .all(
        `SELECT ${FACT_COLUMNS} FROM facts WHERE slot_key = ${KEY} AND status <> 'forgotten' ORDER BY facts.valid_from DESC, id DESC`,
        slotKey,
      )
      .map(toFact)
  }

  /**
   * The recorded observations of a fact.
   * @param factId - the fact.
   * @returns its sources, newest first.
   */
  sources(factId: number): FactSource[] {
    return this.db
      .all(
        `SELECT origin, evidence, session_id, turn, quote, ${instantColumn('observed_at')} FROM fact_sources
        WHERE fact_id = ? ORDER BY fact_sources.observed_at DESC, id DESC`,
        factId,
      )
      .map((row) => ({
        origin: row['origin'] as Origin,
        evidence: row['evidence'] as Evidence,
        sessionId: textOrNull(row['session_id']),
        turn: numberOrNull(row['turn']),
        quote: textOrNull(row['quote']),
        observedAt: String(row['observed_at']),
      }))
  }

  /**
   * Reversible edits that touched a fact, newest first.
   * @param factId - the fact.
   * @returns edit ids, kinds and times.
   */
  editsOf(factId: number): { id: number; kind: string; createdAt: string; undoneAt: string | null }[] {
    return this.db
      .all(
        `SELECT id, CASE WHEN json_type(changed, '$.import') IS NOT NULL THEN 'import' WHEN json_type(changed) = 'object' THEN 'forget' ELSE kind END AS kind, created_at, undone_at FROM fact_edits
        WHERE fact_id = ? OR EXISTS (SELECT 1 FROM json_each(fact_edits.created) c WHERE json_extract(c.value, '$.id') = ?)
        ORDER BY id DESC LIMIT 20`,
        factId,
        factId,
      )
      .map((row) => ({
        id: Number(row['id']),
        kind: String(row['kind']),
        createdAt: String(row['created_at']),
        undoneAt: textOrNull(row['undone_at']),
      }))
  }

  /**
   * An entity's name as first written.
   * @param entityKey - canonical key.
   * @returns the display name, or undefined when there is no such entity.
   */
  entityDisplay(entityKey: string): string | undefined {
    const row = this.db.get('SELECT display FROM entities WHERE entity_key = ?', entityKey)
    return row === undefined ? undefined : String(row['display'])
  }

  /**
   * An entity and all of its non-forgotten facts.
   * @param entityKey - canonical key.
   * @returns the display name and facts, or undefined.
   */
  entity(entityKey: string): { key: string; display: string; createdAt: string; facts: Fact[] } | undefined {
    const row = this.db.get('SELECT id, display, created_at FROM entities WHERE entity_key = ?', entityKey)
    if (row === undefined) return undefined
    const facts = this.db
      .all(
        `SELECT ${FACT_COLUMNS} FROM facts WHERE entity_id = ? AND status <> 'forgotten' ORDER BY predicate_key, facts.valid_from DESC, id DESC`,
        Number(row['id']),
      )
      .map(toFact)
    return { key: entityKey, display: String(row['display']), createdAt: String(row['created_at']), facts }
  }

  /**
   * Open conflict groups with their current rows, oldest first.
   * @returns the groups.
   */
  openConflicts(): ConflictGroupView[] {
    const groups = this.db.all(
      `SELECT id, ${keyColumn('slot_key')}, opened_at FROM conflict_groups WHERE status = 'open' ORDER BY opened_at, id`,
    )
    return groups
      .map((group) => ({
        id: Number(group['id']),
        slotKey: String(group['slot_key']),
        openedAt: String(group['opened_at']),
        rows: this.db
          .all(
            `SELECT ${FACT_COLUMNS} FROM facts WHERE slot_key = ${KEY} AND status IN ('active', 'conflict') ORDER BY evidence_rank, facts.valid_from DESC, id DESC`,
            String(group['slot_key']),
          )
          .map(toFact),
      }))
      .filter((group) => group.rows.length > 0)
  }

  /**
   * Per-session and per-turn counts, from what the store recorded (so they survive a restart).
   * @param sessionIds - the sessions to report, or undefined for the most recent ones.
   * @param limit - how many sessions when none are named.
   * @returns sessions, most recent activity first.
   */
  sessions(sessionIds: readonly string[] | undefined, limit: number): SessionCounts[] {
    const ids =
      sessionIds ??
      this.db
        .all(
          `SELECT session_id, max(at) AS last FROM (
         SELECT session_id, ${instantSql('max(recorded_at)')} AS at FROM facts WHERE session_id IS NOT NULL GROUP BY session_id
         UNION ALL SELECT session_id, created_at AS at FROM proposals WHERE session_id IS NOT NULL)
       GROUP BY session_id ORDER BY last DESC LIMIT ?`,
          limit,
        )
        .map((row) => String(row['session_id']))
    if (ids.length === 0) return []
    const turns = new Map<
      string,
      Map<string, { turn: number | null; facts: number[]; pending: number; unsettled: number; lastAt: string }>
    >()
    const slot = (sessionId: string, turn: number | null, at: string) => {
      const bySession = turns.get(sessionId) ?? new Map()
      turns.set(sessionId, bySession)
      const key = String(turn)
      const entry = bySession.get(key) ?? { turn, facts: [], pending: 0, unsettled: 0, lastAt: at }
      if (at > entry.lastAt) entry.lastAt = at
      bySession.set(key, entry)
      return entry
    }
    for (const row of this.db.all(
      `SELECT id, session_id, turn, status, ${instantColumn('recorded_at')} FROM facts WHERE session_id IN (${placeholders(ids.length)}) AND status <> 'forgotten' ORDER BY id`,
      ...ids,
    )) {
      const entry = slot(String(row['session_id']), numberOrNull(row['turn']), String(row['recorded_at']))
      entry.facts.push(Number(row['id']))
      if (row['status'] === 'conflict') entry.unsettled += 1
    }
    for (const row of this.db.all(
      `SELECT session_id, turn, created_at FROM proposals WHERE session_id IN (${placeholders(ids.length)}) AND status = 'pending'`,
      ...ids,
    )) {
      slot(String(row['session_id']), numberOrNull(row['turn']), String(row['created_at'])).pending += 1
    }
    return ids.flatMap((sessionId) => {
      const bySession = turns.get(sessionId)
      if (bySession === undefined) return []
      const list = [...bySession.values()].sort((a, b) => (a.turn ?? -1) - (b.turn ?? -1))
      return [
        {
          sessionId,
          facts: list.reduce((sum, t) => sum + t.facts.length, 0),
          pending: list.reduce((sum, t) => sum + t.pending, 0),
          unsettled: list.reduce((sum, t) => sum + t.unsettled, 0),
          lastAt: list.reduce((last, t) => (t.lastAt > last ? t.lastAt : last), ''),
          turns: list.map((t) => ({
            turn: t.turn,
            facts: t.facts.length,
            pending: t.pending,
            unsettled: t.unsettled,
            factIds: t.facts,
          })),
        },
      ]
    })
  }

  /**
   * What arrived after an instant. A fact is updated no earlier than it is recorded, so what was recorded after an
   * instant is among what was updated after it, read through facts_by_updated (the recorded instant has no index of
   * its own). With no instant, the fact count is the trigger-kept total and the days are those of the month before the
   * newest change (so neither reads every fact).
   * @param since - ISO instant (exclusive), or undefined for everything.
   * @returns new facts, conflict groups and proposals, and facts per day (the newest 31 days).
   */
  activity(since: string | undefined): ActivityCounts {
    const after = since ?? ''
    const count = (sql: string): number => Number(this.db.get(sql, after)?.['n'] ?? 0)
    const facts =
      since === undefined
        ? Number(
            this.db.get(`SELECT coalesce(sum(n), 0) AS n FROM fact_counts WHERE status <> 'forgotten'`)?.['n'] ?? 0,
          )
        : Number(
            this.db.get(
              `SELECT count(*) AS n FROM facts INDEXED BY facts_by_updated
          WHERE updated_at > ${INSTANT} AND recorded_at > ${INSTANT} AND status <> 'forgotten'`,
              since,
              since,
            )?.['n'] ?? 0,
          )
    const floor =
      since === undefined ? `(SELECT max(updated_at) FROM facts INDEXED BY facts_by_updated) - ${MONTH_MS}` : INSTANT
    return {
      facts,
      conflicts: count('SELECT count(*) AS n FROM conflict_groups WHERE opened_at > ?'),
      proposals: count('SELECT count(*) AS n FROM proposals WHERE created_at > ?'),
      byDay: this.db
        .all(
          `SELECT strftime('%Y-%m-%d', recorded_at / 1000.0, 'unixepoch') AS day, count(*) AS n FROM facts INDEXED BY facts_by_updated
          WHERE updated_at > ${floor} AND recorded_at > ${floor} AND status <> 'forgotten'
          GROUP BY day ORDER BY day DESC LIMIT 31`,
          ...(since === undefined ? [] : [since, since]),
        )
        .map((row) => ({ day: String(row['day']), facts: Number(row['n']) })),
    }
  }
}

/**
 * How a run of one state is read, newest first (its condition binds the state): within a scope other than the global
 * one, on facts_by_scope (that scope's facts of that state, in rowid order); otherwise the current facts, most of the
 * library and left out of facts_by_status_id, in rowid order on the table itself, and any other state on that index.
 * A statement repeats a partial index's own condition, since the planner uses one only where the statement names it.
 */
function stateRun(status: FactStatus, scope: string | undefined): { readonly from: string; readonly where: string } {
  if (scope !== undefined && scope !== 'global')
    return { from: 'facts INDEXED BY facts_by_scope', where: `status = ? AND scope <> 'global'` }
  return status === 'active'
    ? { from: 'facts NOT INDEXED', where: 'status = ?' }
    : { from: 'facts INDEXED BY facts_by_status_id', where: `status = ? AND status <> 'active'` }
}

/** The days the activity digest shows when nothing was ever marked as seen: 31, in milliseconds. */
const MONTH_MS = 31 * 24 * 60 * 60 * 1000

/**
 * The conditions a filter puts on one status's run of facts, the status itself bound first; undefined when it can
 * match nothing (an empty id list).
 */
function filterConditions(
  filter: Omit<FactFilter, 'beforeId' | 'limit'>,
): { where: string[]; params: (string | number)[] } | undefined {
  const where: string[] = ['status = ?']
  const params: (string | number)[] = []
  if (filter.evidence !== undefined && filter.evidence.length > 0) {
    where.push(`evidence IN (${placeholders(filter.evidence.length)})`)
    params.push(...filter.evidence)
  }
  if (filter.entityPrefix !== undefined) {
    where.push(`entity_id IN (SELECT id FROM entities WHERE entity_key >= ? AND entity_key < ?)`)
    params.push(filter.entityPrefix, `${filter.entityPrefix}\uffff`)
  }
  if (filter.ids !== undefined) {
    if (filter.ids.length === 0) return undefined
    where.push(`id IN (${placeholders(filter.ids.length)})`)
    params.push(...filter.ids)
  }
  if (filter.scope !== undefined) {
    where.push('scope = ?')
    params.push(filter.scope)
  }
  return { where, params }
}
