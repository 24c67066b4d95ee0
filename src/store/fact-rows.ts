/** Row mapping shared by the fact store's reads and writes: the selected columns, Row → Fact, and bind helpers. */
import { projectKeyOfScope, projectNameOf } from '../project/project-ref.ts'
import type { Evidence, Fact, FactId, FactStatus } from '../types.ts'
import { numberOrNull, type Row, textOrNull } from './connection.ts'

/** The columns every fact read selects, in the shape {@link toFact} expects. */
export const FACT_COLUMNS = `id, subject, property, predicate_key, qualifiers, scope, value, lower(hex(slot_key)) AS slot_key,
  lower(hex(claim_key)) AS claim_key, multi, status,
  evidence, confidence, sensitivity, model_use_allowed, observed_at, recorded_at, valid_from, valid_to, superseded_by,
  conflict_group_id, revision, origin, session_id, turn, quote, folded_count, folded_from, pinned_at, (SELECT entity_key FROM entities e WHERE e.id = entity_id) AS entity_key,
  CASE WHEN substr(scope, 1, 8) = 'project:' THEN (SELECT name FROM projects p WHERE p.project_key = substr(scope, 9)) END AS project_name`

/** The SQL condition for rows the model may read; `?` binds includeSensitive (0/1). */
export const MODEL_VISIBLE = 'model_use_allowed = 1 AND (sensitivity IS NULL OR ? = 1)'

/**
 * Map a database row to a Fact.
 * @param row - a row selected with the store's fact columns.
 * @returns the fact.
 */
export function toFact(row: Row): Fact {
  const projectKey = projectKeyOfScope(String(row['scope']))
  return {
    id: Number(row['id']) as FactId,
    subject: String(row['subject']),
    entityKey: String(row['entity_key']),
    property: String(row['property']),
    predicateKey: String(row['predicate_key']),
    qualifiers: JSON.parse(String(row['qualifiers'])) as Record<string, string>,
    scope: String(row['scope']),
    projectName: projectKey === null ? null : textOrNull(row['project_name']) ?? projectNameOf(projectKey),
    value: String(row['value']),
    slotKey: String(row['slot_key']),
    claimKey: String(row['claim_key']),
    multi: Number(row['multi']) === 1,
    status: row['status'] as FactStatus,
    evidence: row['evidence'] as Evidence,
    confidence: Number(row['confidence']),
    sensitivity: row['sensitivity'] === null ? null : row['sensitivity'] as Fact['sensitivity'],
    modelUseAllowed: Number(row['model_use_allowed']) === 1,
    observedAt: String(row['observed_at']),
    recordedAt: String(row['recorded_at']),
    validFrom: String(row['valid_from']),
    validTo: textOrNull(row['valid_to']),
    supersededBy: numberOrNull(row['superseded_by']) as FactId | null,
    conflictGroupId: numberOrNull(row['conflict_group_id']),
    revision: Number(row['revision']),
    origin: row['origin'] as Fact['origin'],
    sessionId: textOrNull(row['session_id']),
    turn: numberOrNull(row['turn']),
    quote: textOrNull(row['quote']),
    foldedCount: Number(row['folded_count']),
    foldedFrom: JSON.parse(String(row['folded_from'])) as string[],
    pinnedAt: textOrNull(row['pinned_at']),
  }
}

/**
 * Slot, claim and evidence keys (and a conflict group's slot key) are stored as 32-byte blobs and travel as 64-digit
 * lowercase hex everywhere else: a key is bound through {@link KEY} and read back through {@link keyColumn}.
 */
export const KEY = 'unhex(?)'

/**
 * A key column read back as the hex text the rest of the plugin compares.
 * @param column - the column, qualified as the query needs (`f.claim_key`).
 * @param as - the name it is read under; the column's own name by default.
 */
export function keyColumn(column: string, as = column.replace(/^\w+\./u, '')): string {
  return `lower(hex(${column})) AS ${as}`
}

/** `unhex(?), unhex(?), …` for an IN list of keys; `NULL` for none. */
export function keyPlaceholders(count: number): string {
  return count === 0 ? 'NULL' : Array.from({ length: count }, () => KEY).join(', ')
}

/** `?, ?, …` for an IN list; `NULL` for none, so `IN (NULL)` matches nothing. */
export function placeholders(count: number): string {
  return count === 0 ? 'NULL' : Array.from({ length: count }, () => '?').join(', ')
}

/** Split a list into runs of at most `size`, under SQLite's bind limit. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

