/**
 * A fact's cues in the store: the `cues` column and the cue index (fact_cues_fts) kept in step. The index is
 * contentless, so every path that changes a row's cues or brings a row back derives its entry here, from the row; a
 * forgotten row, and a credential, keep none.
 */
import { cueTermsOf, mergeCues } from '../fact-input.ts'
import { textOrNull } from './connection.ts'
import type { Database } from './database.ts'
import { cuesFromColumn, cuesToColumn } from './fact-rows.ts'

/**
 * Set a row's cues and its cue index entry.
 * @param db - the open database, inside a transaction.
 * @param id - the row.
 * @param cues - its cues (none clears them).
 */
export function storeCues(db: Database, id: number, cues: readonly string[]): void {
  db.run('UPDATE facts SET cues = ? WHERE id = ?', cuesToColumn(cues), id)
  reindexCues(db, id)
}

/**
 * Add the cues a later write of a row's claim (or a fold into it) brought, keeping those it had first.
 * @param db - the open database, inside a transaction.
 * @param id - the row.
 * @param added - the write's cues.
 * @returns whether the row's cues changed.
 */
export function addCues(db: Database, id: number, added: readonly string[]): boolean {
  if (added.length === 0) return false
  const before = cuesFromColumn(db.get('SELECT cues FROM facts WHERE id = ?', id)?.['cues'])
  const merged = mergeCues(before, added)
  if (merged.length === before.length) return false
  storeCues(db, id, merged)
  return true
}

/**
 * Rewrite a row's cue index entry from its column: none for a forgotten row, a credential or a row without cues.
 * @param db - the open database, inside a transaction.
 * @param id - the row.
 */
export function reindexCues(db: Database, id: number): void {
  db.run('DELETE FROM fact_cues_fts WHERE rowid = ?', id)
  const row = db.get('SELECT cues, sensitivity, status FROM facts WHERE id = ?', id)
  if (row === undefined || row['status'] === 'forgotten') return
  const terms = cueTermsOf(cuesFromColumn(row['cues']), textOrNull(row['sensitivity']))
  if (terms !== '') db.run('INSERT INTO fact_cues_fts (rowid, terms) VALUES (?, ?)', id, terms)
}
