/**
 * GraphStore: the reads behind the graph projection — current fact rows (active and scheduled, plus the contested
 * ones for the `all` scope) with only the columns the projection needs, the known entities, and for the one-hop
 * tree the rows of one entity and the rows whose value may name it. Credentials are never read. Nothing is stored.
 */
import type { GraphFactRow } from '../graph.ts'
import { EVIDENCE_ORDER, type FactStatus } from '../types.ts'
import type { Row } from './connection.ts'
import type { Database } from './database.ts'
import { chunks, placeholders } from './fact-rows.ts'

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

/** Current statuses per scope; `conflict` rows are contested by definition. */
const STATUSES: Readonly<Record<GraphReadScope, readonly FactStatus[]>> = {
  current: ['active', 'scheduled'],
  all: ['active', 'scheduled', 'conflict'],
}

/** The projection's columns of `facts f`; evidence as its rank, so 100k rows marshal integers, not strings. */
const ROW_COLUMNS = 'f.id, f.property, f.value, f.evidence_rank, f.observed_at'

/**
 * Status and contested flag for a few rows: an active row is contested when its slot has an open conflict group
 * (one probe of the partial index conflict_groups_by_slot per row).
 */
const STATUS_COLUMNS = `f.status, (f.status = 'conflict' OR (f.status = 'active' AND EXISTS (
  SELECT 1 FROM conflict_groups g WHERE g.status = 'open' AND g.slot_key = f.slot_key))) AS contested`

/** The condition that keeps credentials out of every read. */
const NO_CREDENTIALS = `f.sensitivity IS NOT 'credential'`

/** An entity is known while one of its facts is not forgotten, so forgetting a whole subject removes it. */
const LIVE_ENTITY = `EXISTS (SELECT 1 FROM facts l WHERE l.entity_id = e.id AND l.status <> 'forgotten')`

/** Synchronous reads for the graph verb. */
export class GraphStore {
  private readonly db: Database

  /** @param db - an open, migrated database. */
  constructor(db: Database) {
    this.db = db
  }

  /**
   * Every known entity.
   * @returns entities that still have a fact that was not forgotten.
   */
  entities(): GraphEntityRow[] {
    return this.db.all(`SELECT e.id, e.entity_key, e.display FROM entities e WHERE ${LIVE_ENTITY}`).map(toEntity)
  }

  /**
   * The known entities among the given keys.
   * @param keys - canonical entity keys.
   * @returns those that exist and still have a fact that was not forgotten.
   */
  entitiesByKeys(keys: readonly string[]): GraphEntityRow[] {
    const unique = [...new Set(keys)]
    return chunks(unique, 500).flatMap((chunk) => this.db.all(
      `SELECT e.id, e.entity_key, e.display FROM entities e WHERE e.entity_key IN (${placeholders(chunk.length)}) AND ${LIVE_ENTITY}`,
      ...chunk).map(toEntity))
  }

  /**
   * Every current row of the store, walked per status on facts_by_status_id (so the status is known, not read).
   * @param scope - current (active, scheduled) or all (also conflict rows).
   * @param entityKeys - entity id → key, from {@link entities}; rows of other entities are skipped.
   * @returns the rows, by status then id.
   */
  currentRows(scope: GraphReadScope, entityKeys: ReadonlyMap<number, string>): GraphRow[] {
    // One walk of the open groups instead of a probe per row: contested rows are few, current rows many.
    const contested = new Set(this.db.all(
      `SELECT f.id FROM conflict_groups g INDEXED BY conflict_groups_by_slot JOIN facts f INDEXED BY facts_by_slot
          ON f.slot_key = g.slot_key AND f.status = 'active'
        WHERE g.status = 'open'`).map((row) => Number(row['id'])))
    const rows: GraphRow[] = []
    for (const status of STATUSES[scope]) {
      for (const row of this.db.all(
        `SELECT ${ROW_COLUMNS}, f.entity_id FROM facts f INDEXED BY facts_by_status_id
          WHERE f.status = ? AND ${NO_CREDENTIALS} ORDER BY f.id`, status)) {
        const id = Number(row['id'])
        const key = entityKeys.get(Number(row['entity_id']))
        if (key !== undefined) rows.push(toRow(row, key, status, status === 'conflict' || (status === 'active' && contested.has(id))))
      }
    }
    return rows
  }

  /**
   * The current rows of one entity, on facts_by_entity.
   * @param entity - the entity.
   * @param scope - current or all.
   * @returns its rows, by id.
   */
  rowsOf(entity: GraphEntityRow, scope: GraphReadScope): GraphRow[] {
    const statuses = STATUSES[scope]
    return this.db.all(
      `SELECT ${ROW_COLUMNS}, ${STATUS_COLUMNS} FROM facts f INDEXED BY facts_by_entity
        WHERE f.entity_id = ? AND f.status IN (${placeholders(statuses.length)}) AND ${NO_CREDENTIALS} ORDER BY f.id`,
      entity.id, ...statuses).map((row) => toRow(row, entity.key, row['status'] as FactStatus, Number(row['contested']) === 1))
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
    const rows = terms.length === 0
      ? this.db.all(`${select} WHERE ${filter} ORDER BY f.id`, ...statuses)
      : this.db.all(`${select} WHERE f.id IN (SELECT rowid FROM facts_fts WHERE facts_fts MATCH ?) AND ${filter} ORDER BY f.id`,
        `"${terms.join(' ').replaceAll('"', '""')}"`, ...statuses)
    return rows.map((row) => toRow(row, String(row['entity_key']), row['status'] as FactStatus, Number(row['contested']) === 1))
  }
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
    observedAt: String(row['observed_at']),
    contested,
    credential: false,
  }
}
