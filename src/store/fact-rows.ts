/** Row mapping shared by the fact store's reads and writes: the selected columns, Row → Fact, and bind helpers. */
import { projectKeyOfScope, projectNameOf } from '../project/project-ref.ts'
import type { Evidence, Fact, FactId, FactStatus } from '../types.ts'
import { numberOrNull, type Row, textOrNull } from './connection.ts'

/** The columns every fact read selects, in the shape {@link toFact} expects. */
export const FACT_COLUMNS = `id, subject, property, predicate_key, qualifiers, scope, value, lower(hex(slot_key)) AS slot_key,
  lower(hex(claim_key)) AS claim_key, multi, status, evidence, confidence, sensitivity, model_use_allowed, observed_at,
  recorded_at, valid_from, valid_to, superseded_by, conflict_group_id, revision, origin, session_id, turn, quote,
  folded_count, folded_from, pinned_at, cues, (SELECT entity_key FROM entities e WHERE e.id = entity_id) AS entity_key,
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
    projectName: projectKey === null ? null : (textOrNull(row['project_name']) ?? projectNameOf(projectKey)),
    value: String(row['value']),
    slotKey: String(row['slot_key']),
    claimKey: String(row['claim_key']),
    multi: Number(row['multi']) === 1,
    status: row['status'] as FactStatus,
    evidence: row['evidence'] as Evidence,
    confidence: Number(row['confidence']),
    sensitivity: row['sensitivity'] === null ? null : (row['sensitivity'] as Fact['sensitivity']),
    modelUseAllowed: Number(row['model_use_allowed']) === 1,
    observedAt: instantText(row['observed_at']),
    recordedAt: instantText(row['recorded_at']),
    validFrom: instantText(row['valid_from']),
    validTo: instantTextOrNull(row['valid_to']),
    supersededBy: numberOrNull(row['superseded_by']) as FactId | null,
    conflictGroupId: numberOrNull(row['conflict_group_id']),
    revision: Number(row['revision']),
    origin: row['origin'] as Fact['origin'],
    sessionId: textOrNull(row['session_id']),
    turn: numberOrNull(row['turn']),
    quote: textOrNull(row['quote']),
    foldedCount: Number(row['folded_count']),
    foldedFrom: JSON.parse(String(row['folded_from'])) as string[],
    pinnedAt: instantTextOrNull(row['pinned_at']),
    cues: cuesFromColumn(row['cues']),
  }
}

/**
 * A row's `cues` column as a list: NULL (no cues, or a row from before cues) is none.
 * @param raw - the column's value.
 * @returns the cues.
 */
export function cuesFromColumn(raw: unknown): string[] {
  return raw === null || raw === undefined ? [] : (JSON.parse(String(raw)) as string[])
}

/**
 * Cues as the `cues` column stores them: none is NULL.
 * @param cues - the cues.
 * @returns the column's value.
 */
export function cuesToColumn(cues: readonly string[]): string | null {
  return cues.length === 0 ? null : JSON.stringify(cues)
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

/**
 * The times of a fact and of its sources (observed, recorded, valid from and to, updated, pinned) are stored as
 * milliseconds since the Unix epoch and travel as ISO UTC text (`2026-11-29T12:00:00.000Z`) everywhere else: an
 * instant is bound through {@link INSTANT} (NULL stays NULL, text that is no date becomes NULL) and read back through
 * {@link instantColumn}. Any other date text SQLite reads (a bare day, an offset) is stored as the instant it names.
 */
export const INSTANT = "CAST(round(unixepoch(?, 'subsec') * 1000) AS INTEGER)"

/**
 * An instant column read back as ISO UTC text with milliseconds, exactly as `Date.prototype.toISOString` writes it,
 * for reads that are not fact rows (those select the milliseconds and {@link toFact} renders them).
 * @param column - the column, qualified as the query needs (`f.observed_at`).
 * @param as - the name it is read under; the column's own name by default.
 */
export function instantColumn(column: string, as = column.replace(/^\w+\./u, '')): string {
  return `${instantSql(column)} AS ${as}`
}

/**
 * An instant expression rendered in SQL as ISO UTC text with milliseconds (NULL stays NULL).
 * @param expression - SQL yielding epoch milliseconds.
 */
export function instantSql(expression: string): string {
  return `strftime('%Y-%m-%dT%H:%M:%fZ', ${expression} / 1000.0, 'unixepoch')`
}

/**
 * A stored instant as ISO UTC text.
 * @param value - epoch milliseconds as read from an instant column.
 */
export function instantText(value: unknown): string {
  return new Date(Number(value)).toISOString()
}

/** A stored instant as ISO UTC text; NULL as null. */
export function instantTextOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : instantText(value)
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
