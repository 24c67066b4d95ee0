/**
 * The store half of folded log lines: rewrite one row in place for its recurring line written on another day, put
 * a row's text back as an undo recorded it, keep the full-text and identifier indexes on a row's value, and name the
 * claims of a row's prior values (forgetting the row forgets them too). Runs inside the caller's transaction.
 */
import { indexEntriesOf, type PreparedWrite } from '../fact-input.ts'
import { reindexCues } from './fact-cues.ts'
import { foldedHistory } from '../rules/fold.ts'
import { projectKeyOfScope } from '../project/project-ref.ts'
import { canonicalQualifiers, canonicalValue, claimKeyOf } from '../text/normalize.ts'
import type { Evidence, Fact, Origin } from '../types.ts'
import { evidenceRank } from '../rules/write-policy.ts'
import { numberOrNull, textOrNull } from './connection.ts'
import type { Database } from './database.ts'
import { cuesFromColumn, cuesToColumn, INSTANT, instantColumn, KEY, keyColumn } from './fact-rows.ts'

/** What a fold changes on a row besides its revision: enough for an undo to put the row back. */
export interface RowText {
  readonly value: string
  readonly claimKey: string
  /** Carried by folds recorded while the evidence key was stored; unread, since the key is derived from the row. */
  readonly evidenceKey?: string
  readonly quote: string | null
  readonly observedAt: string
  readonly origin: Origin
  readonly sessionId: string | null
  readonly turn: number | null
  readonly foldedCount: number
  readonly foldedFrom: readonly string[]
  /** The row's cues; absent in edits recorded before facts had cues (the undo then leaves them as they are). */
  readonly cues?: readonly string[]
}

/**
 * Fold a write into a row. When the write takes the value (its date is not earlier), the row gets the write's value,
 * claim, quote and anchor, the stronger evidence when it brings one, and the row's former value joins its fold
 * history; otherwise the row keeps its value and the write's value joins the history. Either way folded_count rises,
 * the observation time moves forward and the revision moves. The caller adds the write's source.
 * @param db - the open database, inside a transaction.
 * @param target - the row as it stands.
 * @param write - the prepared write.
 * @param takesValue - whether the row takes the write's value.
 * @param upgradeTo - stronger evidence the row takes with the value, if any.
 * @param now - ISO instant.
 */
export function foldRow(
  db: Database,
  target: Fact,
  write: PreparedWrite,
  takesValue: boolean,
  upgradeTo: Evidence | undefined,
  now: string,
): void {
  if (!takesValue) {
    db.run(
      `UPDATE facts SET observed_at = max(observed_at, ${INSTANT}), folded_count = folded_count + 1, folded_from = ?, revision = revision + 1,
        updated_at = ${INSTANT} WHERE id = ?`,
      now,
      JSON.stringify(foldedHistory(target.foldedFrom, write.value)),
      now,
      target.id,
    )
    return
  }
  const evidence = upgradeTo ?? target.evidence
  db.run(
    `UPDATE facts SET value = ?, claim_key = ${KEY}, quote = ?, evidence_rank = ?, origin = ?, session_id = ?,
      turn = ?, observed_at = max(observed_at, ${INSTANT}), folded_count = folded_count + 1, folded_from = ?, revision = revision + 1, updated_at = ${INSTANT}
      WHERE id = ?`,
    write.value,
    write.claimKey,
    write.quote,
    evidenceRank(evidence),
    write.origin,
    write.anchor?.sessionId ?? null,
    write.anchor?.turn ?? null,
    now,
    JSON.stringify(foldedHistory(target.foldedFrom, target.value)),
    now,
    target.id,
  )
  reindexFact(db, target.id)
}

/**
 * Read the text of rows, as an undo records it before an edit.
 * @param db - the open database.
 * @param ids - the rows.
 * @returns each row's text by id.
 */
export function rowTexts(db: Database, ids: readonly number[]): Map<number, RowText> {
  const texts = new Map<number, RowText>()
  for (const id of ids) {
    const row = db.get(
      `SELECT value, ${keyColumn('claim_key')}, quote, ${instantColumn('observed_at')}, origin, session_id, turn, folded_count, folded_from, cues
      FROM facts WHERE id = ?`,
      id,
    )
    if (row === undefined) continue
    texts.set(id, {
      value: String(row['value']),
      claimKey: String(row['claim_key']),
      quote: textOrNull(row['quote']),
      observedAt: String(row['observed_at']),
      origin: row['origin'] as Origin,
      sessionId: textOrNull(row['session_id']),
      turn: numberOrNull(row['turn']),
      foldedCount: Number(row['folded_count']),
      foldedFrom: JSON.parse(String(row['folded_from'])) as string[],
      cues: cuesFromColumn(row['cues']),
    })
  }
  return texts
}

/**
 * Put a row's text back as recorded, and its indexes with it. The caller moves the revision.
 * @param db - the open database, inside a transaction.
 * @param id - the row.
 * @param text - the recorded text.
 */
export function restoreRowText(db: Database, id: number, text: RowText): void {
  db.run(
    `UPDATE facts SET value = ?, claim_key = ${KEY}, quote = ?, observed_at = ${INSTANT}, origin = ?, session_id = ?, turn = ?,
      folded_count = ?, folded_from = ? WHERE id = ?`,
    text.value,
    text.claimKey,
    text.quote,
    text.observedAt,
    text.origin,
    text.sessionId,
    text.turn,
    text.foldedCount,
    JSON.stringify(text.foldedFrom),
    id,
  )
  if (text.cues !== undefined) db.run('UPDATE facts SET cues = ? WHERE id = ?', cuesToColumn(text.cues), id)
  reindexFact(db, id)
}

/**
 * The claim keys of a row's prior values, in its own slot.
 * @param fact - a stored fact.
 * @param projectKey - the project the keys carry: the row's own by default; null for none (its tombstones).
 * @returns one key per value in its fold history.
 */
export function priorClaimKeys(fact: Fact, projectKey: string | null = projectKeyOfScope(fact.scope)): string[] {
  const qualifierKey = canonicalQualifiers(fact.qualifiers)
  return fact.foldedFrom.map((value) =>
    claimKeyOf(fact.entityKey, fact.predicateKey, qualifierKey, canonicalValue(value), projectKey),
  )
}

/**
 * Rewrite a live row's full-text terms and identifiers from its current text; a forgotten row keeps none. The
 * full-text index holds no copy of the terms (it is contentless), so every path that puts a row's entries back
 * derives them here, from the row.
 * @param db - the open database, inside a transaction.
 * @param id - the row.
 */
export function reindexFact(db: Database, id: number): void {
  const row = db.get('SELECT subject, property, value, qualifiers, sensitivity, status FROM facts WHERE id = ?', id)
  if (row === undefined || row['status'] === 'forgotten') return
  const entries = indexEntriesOf({
    subject: String(row['subject']),
    property: String(row['property']),
    value: String(row['value']),
    qualifiers: JSON.parse(String(row['qualifiers'])) as Record<string, string>,
    sensitivity: textOrNull(row['sensitivity']),
  })
  // A contentless index takes a second entry for a rowid it already holds, so the old one always leaves first.
  db.run('DELETE FROM facts_fts WHERE rowid = ?', id)
  db.run('INSERT INTO facts_fts (rowid, terms) VALUES (?, ?)', id, entries.terms)
  db.run('DELETE FROM fact_identifiers WHERE fact_id = ?', id)
  for (const ident of entries.identifiers)
    db.run('INSERT OR IGNORE INTO fact_identifiers (ident, fact_id) VALUES (?, ?)', ident, id)
  reindexCues(db, id)
}
