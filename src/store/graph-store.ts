/**
 * GraphStore: the reads behind the graph projection — for the nebula, the entities the budget admits (chosen here,
 * by their current facts) and only the rows behind them; the known entity keys; and for the one-hop tree the rows
 * of one entity and the rows whose value may name it. Current rows are active and scheduled, plus the contested
 * ones for the `all` scope, with only the columns the projection needs. Credentials are never read. Nothing is
 * stored.
 */
import type { GraphFactRow } from '../graph.ts'
import { EVIDENCE_ORDER, type FactStatus } from '../types.ts'
import type { Row } from './connection.ts'
import type { Database } from './database.ts'
import { chunks, instantText, placeholders } from './fact-rows.ts'

/** Which relations to read: current ones, or also the contested ones. */
export type GraphReadScope = 'current' | 'all'

/** One fact as the projection reads it; `credential` is always false here, because credentials are never read. */
export type GraphRow = GraphFactRow

/** An entity that still has a fact that was not forgotten. */
export interface GraphEntityRow {
  readonly id: number
  readonly key: string
  readonly display: string
}

/** What the nebula reads: the admitted entities, the rows behind them, and what the whole store holds in scope. */
export interface NebulaRead {
  /** The admitted entities, most current facts about them or naming them first, ties by key. */
  readonly entities: GraphEntityRow[]
  /** Entities the admitted rows name that were not admitted (so a value naming one is not a plain value). */
  readonly named: GraphEntityRow[]
  /** Their current rows in scope, by id: at most `perEntity` of each entity, its strongest first. */
  readonly rows: GraphRow[]
  /**
   * In the whole store: entities with a row (of any status), and current rows in scope, credentials included (they
   * are never drawn). In the `current` scope an active row of a contested slot is not counted (only `all` draws it).
   */
  readonly totals: { readonly entities: number; readonly facts: number }
}

/** Current statuses per scope; `conflict` rows are contested by definition. */
const STATUSES: Readonly<Record<GraphReadScope, readonly FactStatus[]>> = {
  current: ['active', 'scheduled'],
  all: ['active', 'scheduled', 'conflict'],
}

/** The projection's columns of `facts f`; evidence as its rank, so 100k rows marshal integers, not strings. */
const ROW_COLUMNS = 'f.id, f.property, f.value, f.evidence_rank, f.observed_at, f.sensitivity, f.qualifiers'

/**
 * Status and contested flag for a few rows: an active row is contested when its slot has an open conflict group
 * (one probe of the partial index conflict_groups_by_slot per row).
 */
const STATUS_COLUMNS = `f.status, (f.status = 'conflict' OR (f.status = 'active' AND EXISTS (
  SELECT 1 FROM conflict_groups g WHERE g.status = 'open' AND g.slot_key = f.slot_key))) AS contested`

/** The condition that keeps credentials out of every read. */
const NO_CREDENTIALS = `f.sensitivity IS NOT 'credential'`

/** Past this many entities to recount, the bounds are counted afresh (one walk of the index). */
const RECOUNT_LIMIT = 5000

/** An entity is known while one of its facts is not forgotten, so forgetting a whole subject removes it. */
const LIVE_ENTITY = `EXISTS (SELECT 1 FROM facts l WHERE l.entity_id = e.id AND l.status <> 'forgotten')`

/** Row counts per entity, and the store's row total, newest rowid and latest change they were read at. */
interface EntityBounds {
  readonly total: number
  readonly last: number
  /** The latest updated instant, epoch milliseconds as stored. */
  readonly changed: number
  readonly edits: string
  readonly counts: Map<number, number>
  readonly order: readonly Row[]
}

/** Synchronous reads for the graph verb. */
export class GraphStore {
  private readonly db: Database
  /** The entities' row counts as last read, with what they were read at (see {@link entityBounds}). */
  private bounds: EntityBounds | undefined

  /** @param db - an open, migrated database. */
  constructor(db: Database) {
    this.db = db
  }

  /**
   * The known entities among the given keys.
   * @param keys - canonical entity keys.
   * @returns those that exist and still have a fact that was not forgotten.
   */
  entitiesByKeys(keys: readonly string[]): GraphEntityRow[] {
    const unique = [...new Set(keys)]
    return chunks(unique, 500).flatMap((chunk) =>
      this.db
        .all(
          `SELECT e.id, e.entity_key, e.display FROM entities e WHERE e.entity_key IN (${placeholders(chunk.length)}) AND ${LIVE_ENTITY}`,
          ...chunk,
        )
        .map(toEntity),
    )
  }

  /**
   * Every known entity key, without the liveness check (a scan of the entities table only): what a value may
   * name. A key the projection uses as a node is checked with {@link entitiesByKeys}.
   * @returns entity keys.
   */
  entityKeys(afterId = 0): Set<string> {
    return new Set(
      this.db.all('SELECT entity_key FROM entities WHERE id > ?', afterId).map((row) => String(row['entity_key'])),
    )
  }

  /**
   * What tells one run of entity ids from the next: the first entity's id and when it was made. Entities are only
   * ever added, except when the library is cleared and ids start over, which changes this.
   * @returns `id@created_at` of the oldest entity, or '' without entities.
   */
  entityEpoch(): string {
    const row = this.db.get('SELECT id, created_at FROM entities ORDER BY id LIMIT 1')
    return row === undefined ? '' : `${String(row['id'])}@${String(row['created_at'])}`
  }

  /**
   * The newest entity's id: entities are only ever added (a subject's row stays when its facts go), so the key set
   * of {@link entityKeys} is the same while this is.
   * @returns the largest entity id, 0 without entities.
   */
  lastEntityId(): number {
    return Number(this.db.get('SELECT MAX(id) AS id FROM entities')?.['id'] ?? 0)
  }

  /**
   * The nebula's reads. Entities are ranked by their degree before equal edges merge: their current rows in scope
   * plus the rows naming them. The first `entities` by their own rows are read (on facts_by_entity_status, at most
   * `perEntity` rows each, in the projection's edge order: best evidence, latest observation, oldest fact; the
   * budget never draws more edges than that from one entity); the entities those rows name join the ranking with
   * the rows naming them (a lead that forty subjects report to outranks each of them), and the first `entities` of
   * that ranking, ties by key, are admitted, with their rows only. Rows naming an entity from outside what was read
   * are not counted: the ranking reads the admitted neighbourhood, not the whole store.
   * @param scope - current or all.
   * @param entities - how many entities to admit.
   * @param perEntity - how many rows to read at most per entity.
   * @param names - which known entity a value names, if any (value, own key → key).
   * @returns the admitted entities, those their rows name, their rows and the store's totals.
   */
  nebula(
    scope: GraphReadScope,
    entities: number,
    perEntity: number,
    names: (value: string, own: string) => string | undefined,
  ): NebulaRead {
    const statuses = STATUSES[scope]
    const ranked = this.rankEntities(statuses, entities)
    // The `current` scope does not draw the active rows of contested slots, so it does not count them.
    const hidden = scope === 'current' ? this.contestedCount() : 0
    const facts = Number(
      this.db.get(
        `SELECT SUM(n) AS n FROM fact_counts WHERE status IN (${placeholders(statuses.length)})`,
        ...statuses,
      )?.['n'] ?? 0,
    )
    const totals = { entities: ranked.known, facts: Math.max(0, facts - hidden) }
    const read = (admitted: readonly Row[]): GraphRow[] => this.rowsOfEntities(admitted, statuses, perEntity)
    const firstRows = read(ranked.rows)
    // The facts naming an entity count too: the entities those rows name join the ranking with them.
    const incoming = new Map<string, number>()
    const namedBy = new Map<number, string>()
    for (const row of firstRows) {
      const key = names(row.value, row.entityKey)
      if (key === undefined) continue
      incoming.set(key, (incoming.get(key) ?? 0) + 1)
      namedBy.set(row.id, key)
    }
    const ownKeys = new Set(ranked.rows.map((row) => String(row['entity_key'])))
    const joining = this.countsByKeys(
      [...incoming.keys()].filter((key) => !ownKeys.has(key)),
      statuses,
    )
    const score = (row: Row): number => Number(row['n']) + (incoming.get(String(row['entity_key'])) ?? 0)
    const chosen = [...ranked.rows, ...joining]
      .sort((x, y) => score(y) - score(x) || compare(String(x['entity_key']), String(y['entity_key'])))
      .slice(0, Math.max(0, entities))
    const chosenKeys = new Set(chosen.map((row) => String(row['entity_key'])))
    const joined = read(chosen.filter((row) => !ownKeys.has(String(row['entity_key']))))
    for (const row of joined) {
      const key = names(row.value, row.entityKey)
      if (key !== undefined) namedBy.set(row.id, key)
    }
    const rows = [...firstRows.filter((row) => chosenKeys.has(row.entityKey)), ...joined].sort((x, y) => x.id - y.id)
    // Entities the drawn rows name but the budget left out: known, so such a value is not drawn as a plain value.
    const named = new Set<string>()
    for (const row of rows) {
      const key = namedBy.get(row.id)
      if (key !== undefined && !chosenKeys.has(key)) named.add(key)
    }
    return { entities: chosen.map(toEntity), named: this.entitiesByKeys([...named]), rows, totals }
  }

  /**
   * The current rows of the given entities (rows with id, entity_key and their current count n), on facts_by_entity_status:
   * an entity with no more than `perEntity` of them read whole, one with more its `perEntity` strongest.
   */
  private rowsOfEntities(entities: readonly Row[], statuses: readonly FactStatus[], perEntity: number): GraphRow[] {
    const keys = new Map(entities.map((row) => [Number(row['id']), String(row['entity_key'])]))
    const toRows = (found: Row[]): GraphRow[] =>
      found.map((row) =>
        toRow(
          row,
          keys.get(Number(row['entity_id'])) ?? '',
          row['status'] as FactStatus,
          Number(row['contested']) === 1,
        ),
      )
    // Each row read probes its slot's open group (conflict_groups_by_slot), so only the rows drawn are asked.
    const select = `SELECT ${ROW_COLUMNS}, ${STATUS_COLUMNS}, f.entity_id FROM facts f INDEXED BY facts_by_entity_status`
    const filter = `f.status IN (${placeholders(statuses.length)}) AND ${NO_CREDENTIALS}`
    const whole = entities.filter((row) => Number(row['n']) <= perEntity).map((row) => Number(row['id']))
    const rows = chunks(whole, 500).flatMap((chunk) =>
      toRows(
        this.db.all(
          `${select} WHERE f.entity_id IN (${placeholders(chunk.length)}) AND ${filter}`,
          ...chunk,
          ...statuses,
        ),
      ),
    )
    for (const row of entities) {
      if (Number(row['n']) <= perEntity) continue
      rows.push(
        ...toRows(
          this.db.all(
            `${select} WHERE f.entity_id = ? AND ${filter}
        ORDER BY f.evidence_rank, f.observed_at DESC, f.id LIMIT ?`,
            Number(row['id']),
            ...statuses,
            perEntity,
          ),
        ),
      )
    }
    return rows
  }

  /** Live entities among the keys with their current row count n (id, entity_key, display, n). */
  private countsByKeys(keys: readonly string[], statuses: readonly FactStatus[]): Row[] {
    return chunks([...new Set(keys)], 400).flatMap((chunk) =>
      this.db.all(
        `SELECT e.id, e.entity_key, e.display, (SELECT COUNT(*) FROM facts f INDEXED BY facts_by_entity_status
            WHERE f.entity_id = e.id AND f.status IN (${placeholders(statuses.length)}) AND ${NO_CREDENTIALS}) AS n
        FROM entities e WHERE e.entity_key IN (${placeholders(chunk.length)}) AND ${LIVE_ENTITY}`,
        ...statuses,
        ...chunk,
      ),
    )
  }

  /**
   * The `limit` entities with the most current rows (statuses given, credentials aside), ties by key. A count of
   * all rows, on facts_by_entity_status alone (no table read), bounds the count of current rows from above; entities are
   * counted exactly in batches, most rows first, until the next one's bound cannot reach the last admitted count.
   * At 100k facts this reads the table for about a thousand entities instead of every current row.
   * @returns the admitted rows (id, entity_key, display, n), and how many entities have a row of any status.
   */
  private rankEntities(statuses: readonly FactStatus[], limit: number): { rows: Row[]; known: number } {
    const bounds = this.entityBounds()
    const exact: Row[] = []
    const byRank = (x: Row, y: Row): number =>
      Number(y['n']) - Number(x['n']) || compare(String(x['entity_key']), String(y['entity_key']))
    for (let at = 0; at < bounds.length && limit > 0; ) {
      const last = exact.length >= limit ? exact[limit - 1] : undefined
      if (last !== undefined && Number(bounds[at]?.['n']) < Number(last['n'])) break
      // The first batch is the admitted count; later ones, a quarter of it.
      const size = Math.min(500, at === 0 ? limit : Math.max(50, limit >> 2))
      const batch = bounds.slice(at, at + size).map((row) => Number(row['entity_id']))
      at += batch.length
      exact.push(
        ...this.db.all(
          `SELECT e.id, e.entity_key, e.display, c.n FROM (
            SELECT f.entity_id, COUNT(*) AS n FROM facts f INDEXED BY facts_by_entity_status
              WHERE f.entity_id IN (${placeholders(batch.length)}) AND f.status IN (${placeholders(statuses.length)}) AND ${NO_CREDENTIALS}
              GROUP BY f.entity_id) c
          JOIN entities e ON e.id = c.entity_id`,
          ...batch,
          ...statuses,
        ),
      )
      exact.sort(byRank)
      exact.length = Math.min(exact.length, limit)
    }
    return { rows: exact, known: bounds.length }
  }

  /**
   * Every entity with a row, by its count of rows of any status, most first: an upper bound on its current rows.
   * Counted over facts_by_entity_status once, then kept: rows are only ever added (a write) or moved between entities
   * (a rename, a merge or their undo, each a tracked edit), and never deleted but by clearing the library, so a later
   * call recounts only the entities of rows added or changed since (new rowids, and updated_at on facts_by_updated).
   * Counted afresh when the row total says rows were deleted, when an edit was made or undone (it may have emptied
   * an entity), or when many rows changed.
   * @returns entity ids with their bounds, most first.
   */
  private entityBounds(): readonly Row[] {
    const stamp =
      this.db.get(`SELECT (SELECT coalesce(sum(n), 0) FROM fact_counts) AS total, (SELECT coalesce(max(id), 0) FROM facts) AS last,
      (SELECT max(updated_at) FROM facts INDEXED BY facts_by_updated) AS changed,
      (SELECT coalesce(max(id), 0) || ':' || count(undone_at) FROM fact_edits) AS edits`)
    const total = Number(stamp?.['total'] ?? 0)
    const last = Number(stamp?.['last'] ?? 0)
    const changed = Number(stamp?.['changed'] ?? 0)
    const edits = String(stamp?.['edits'] ?? '')
    const held = this.bounds
    const added =
      held === undefined || last < held.last
        ? undefined
        : Number(this.db.get('SELECT count(*) AS n FROM facts WHERE id > ?', held.last)?.['n'] ?? 0)
    // An edit (a rename, a merge, a move or an undo) may empty an entity, which only a full count sees.
    if (held === undefined || added === undefined || total !== held.total + added || edits !== held.edits) {
      return this.countBounds(total, last, changed, edits)
    }
    if (added === 0 && changed === held.changed) return held.order
    // Two reads, not a UNION: the planner would merge the two sides by walking every fact in entity order.
    const touched = new Set(
      [
        ...this.db.all('SELECT entity_id FROM facts WHERE id > ?', held.last),
        ...this.db.all('SELECT entity_id FROM facts INDEXED BY facts_by_updated WHERE updated_at >= ?', held.changed),
      ].map((row) => Number(row['entity_id'])),
    )
    if (touched.size > RECOUNT_LIMIT) return this.countBounds(total, last, changed, edits)
    for (const chunk of chunks([...touched], 500)) {
      for (const row of this.db.all(
        `SELECT f.entity_id, COUNT(*) AS n FROM facts f INDEXED BY facts_by_entity_status
          WHERE f.entity_id IN (${placeholders(chunk.length)}) GROUP BY f.entity_id`,
        ...chunk,
      )) {
        held.counts.set(Number(row['entity_id']), Number(row['n']))
      }
    }
    // The order as it stood, without the entities recounted, merged with those in their new places.
    const moved = [...touched].map((id) => ({ entity_id: id, n: held.counts.get(id) ?? 0 })).sort((x, y) => y.n - x.n)
    const order: Row[] = []
    let next = 0
    for (const row of held.order) {
      if (touched.has(Number(row['entity_id']))) continue
      while (next < moved.length && (moved[next]?.n ?? 0) > Number(row['n'])) order.push(moved[next++] as Row)
      order.push(row)
    }
    while (next < moved.length) order.push(moved[next++] as Row)
    this.bounds = { total, last, changed, edits, counts: held.counts, order }
    return order
  }

  private countBounds(total: number, last: number, changed: number, edits: string): readonly Row[] {
    const order = this.db.all(
      'SELECT f.entity_id, COUNT(*) AS n FROM facts f INDEXED BY facts_by_entity_status GROUP BY f.entity_id ORDER BY n DESC',
    )
    const counts = new Map(order.map((row) => [Number(row['entity_id']), Number(row['n'])]))
    this.bounds = { total, last, changed, edits, counts, order }
    return order
  }

  /**
   * How many active rows lie in slots with an open conflict group, credentials too (they are out of the `current`
   * scope as well): one walk of the open groups on two indexes, without reading the table.
   */
  private contestedCount(): number {
    return Number(
      this.db.get(
        `SELECT count(*) AS n FROM conflict_groups g INDEXED BY conflict_groups_by_slot JOIN facts f INDEXED BY facts_by_slot
          ON f.slot_key = g.slot_key AND f.status = 'active'
        WHERE g.status = 'open'`,
      )?.['n'] ?? 0,
    )
  }

  /**
   * The current rows of one entity, on facts_by_entity_status.
   * @param entity - the entity.
   * @param scope - current or all.
   * @returns its rows, by id.
   */
  rowsOf(entity: GraphEntityRow, scope: GraphReadScope): GraphRow[] {
    const statuses = STATUSES[scope]
    return this.db
      .all(
        `SELECT ${ROW_COLUMNS}, ${STATUS_COLUMNS} FROM facts f INDEXED BY facts_by_entity_status
        WHERE f.entity_id = ? AND f.status IN (${placeholders(statuses.length)}) AND ${NO_CREDENTIALS} ORDER BY f.id`,
        entity.id,
        ...statuses,
      )
      .map((row) => toRow(row, entity.key, row['status'] as FactStatus, Number(row['contested']) === 1))
  }

  /**
   * Candidates for rows whose value names an entity: current rows whose full-text terms hold the entity key's terms
   * as one phrase (a value that canonicalizes to the key yields exactly those terms, in order). Without terms (a
   * key of stopwords or symbols only) every current row is a candidate. The caller compares canonical forms.
   * @param terms - the entity key's search terms, in order.
   * @param scope - current or all.
   * @returns candidate rows, by id; a superset of the rows naming the entity.
   */
  rowsMentioning(terms: readonly string[], scope: GraphReadScope): GraphRow[] {
    const statuses = STATUSES[scope]
    const filter = `f.status IN (${placeholders(statuses.length)}) AND ${NO_CREDENTIALS}`
    const select = `SELECT ${ROW_COLUMNS}, ${STATUS_COLUMNS}, e.entity_key FROM facts f JOIN entities e ON e.id = f.entity_id`
    const rows =
      terms.length === 0
        ? this.db.all(`${select} WHERE ${filter} ORDER BY f.id`, ...statuses)
        : this.db.all(
            `${select} WHERE f.id IN (SELECT rowid FROM facts_fts WHERE facts_fts MATCH ?) AND ${filter} ORDER BY f.id`,
            `"${terms.join(' ').replaceAll('"', '""')}"`,
            ...statuses,
          )
    return rows.map((row) =>
      toRow(row, String(row['entity_key']), row['status'] as FactStatus, Number(row['contested']) === 1),
    )
  }
}

/** Code-unit order, the same in every locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function toEntity(row: Row): GraphEntityRow {
  return { id: Number(row['id']), key: String(row['entity_key']), display: String(row['display']) }
}

function toRow(row: Row, entityKey: string, status: FactStatus, contested: boolean): GraphRow {
  return {
    id: Number(row['id']),
    entityKey,
    property: String(row['property']),
    value: String(row['value']),
    status,
    evidence: EVIDENCE_ORDER[Number(row['evidence_rank'])] ?? 'unverified',
    observedAt: instantText(row['observed_at']),
    contested,
    credential: false,
    sensitivity: row['sensitivity'] == null ? null : String(row['sensitivity']),
    qualifiers: JSON.parse(String(row['qualifiers'] ?? '{}')) as Record<string, string>,
  }
}
