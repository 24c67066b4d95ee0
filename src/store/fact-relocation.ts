/**
 * Moving one stored fact row under other names in place: its subject (entity), property, and (for a project's key
 * moved) its scope take the keys a write under them would give, and its search entries follow. The row keeps its id,
 * status, history and sources. Used by renames and merges (curation-store.ts) and by sync applying another device's
 * rename (sync-applier.ts). Runs inside the caller's transaction; the caller keeps the slot rules.
 */
import type { FactKeys } from '../fact-input.ts'
import type { Database } from './database.ts'
import { INSTANT, KEY } from './fact-rows.ts'

/**
 * Move a row under the keys given.
 * @param db - the open database, inside the caller's transaction.
 * @param id - the row.
 * @param entityId - the entity it moves to.
 * @param keys - its keys under the new names (`keysUnder` of fact-input.ts).
 * @param now - ISO instant.
 * @param scope - its new scope; its own when absent.
 */
export function relocateFact(
  db: Database,
  id: number,
  entityId: number,
  keys: FactKeys,
  now: string,
  scope?: string,
): void {
  db.run(
    `UPDATE facts SET entity_id = ?, subject = ?, property = ?, predicate_key = ?, scope = coalesce(?, scope),
    slot_key = ${KEY}, claim_key = ${KEY}, revision = revision + 1, updated_at = ${INSTANT} WHERE id = ?`,
    entityId,
    keys.subject,
    keys.property,
    keys.predicateKey,
    scope ?? null,
    keys.slotKey,
    keys.claimKey,
    now,
    id,
  )
  db.run('DELETE FROM facts_fts WHERE rowid = ?', id)
  db.run('INSERT INTO facts_fts (rowid, terms) VALUES (?, ?)', id, keys.terms)
  db.run('DELETE FROM fact_identifiers WHERE fact_id = ?', id)
  for (const ident of keys.identifiers)
    db.run('INSERT OR IGNORE INTO fact_identifiers (ident, fact_id) VALUES (?, ?)', ident, id)
}
