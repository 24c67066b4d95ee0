/**
 * Lifting what a forget (or an import's bare tombstone) undone on its device left on this store. A store that read it
 * before its undo holds the keys it carried, the claim's key under each name it was blocked under, and the keys of
 * the rows it forgot; a store that read both at once holds none of them. So every store lifts them when the undo
 * arrives, as the device that undid it did, and the merge then brings the value back through the writer. A key that
 * a record in force carries stays (in the records at hand, or a forget's anywhere in the log), and the caller passes
 * only claims nothing in force blocks: an undone forget lifts only its own tombstones. Runs inside the caller's
 * transaction.
 */
import type { UndoneForget } from '../sync/record-reads.ts'
import { canonicalValue, claimKeyOf } from '../text/normalize.ts'
import type { Database } from './database.ts'
import { FACT_COLUMNS, toFact } from './fact-rows.ts'
import { slotOf } from './sync-recorder.ts'

/**
 * Remove the tombstones undone forgets left.
 * @param db - the open database, inside a transaction.
 * @param forgets - the undone forgets whose claims no forget in force blocks.
 * @param kept - `kind:key` of every key a forget in force carries: never lifted.
 * @returns how many tombstones were lifted.
 */
export function liftUndoneForgets(db: Database, forgets: readonly UndoneForget[], kept: ReadonlySet<string>): number {
  let lifted = 0
  // A key not held here (never read, or lifted by an earlier receive) costs one look-up on its unique index.
  const lift = (kind: string, key: string): void => {
    if (db.get('SELECT 1 AS held FROM tombstones WHERE kind = ? AND key = ?', kind, key) === undefined) return
    if (!kept.has(`${kind}:${key}`) && !carriedInForce(db, kind, key))
      lifted += db.run('DELETE FROM tombstones WHERE kind = ? AND key = ?', kind, key).changes
  }
  for (const forget of forgets) {
    for (const { slot, value } of forget.claims) {
      lift('claim', claimKeyOf(slot.entity, slot.predicate, slot.qualifiers, value))
      // The rows the forget took here: their own keys (a row's evidence, the claims a fold kept) go with them.
      const rows = db
        .all(
          `SELECT ${FACT_COLUMNS} FROM facts WHERE status = 'forgotten'
            AND entity_id IN (SELECT id FROM entities WHERE entity_key = ?)`,
          slot.entity,
        )
        .map(toFact)
        .filter((fact) => {
          const held = slotOf(fact)
          return (
            held.predicate === slot.predicate &&
            held.qualifiers === slot.qualifiers &&
            canonicalValue(fact.value) === value
          )
        })
      for (const row of rows)
        for (const key of db.all('SELECT kind, key FROM tombstones WHERE fact_id = ?', row.id))
          lift(String(key['kind']), String(key['key']))
    }
    for (const key of forget.keys) lift(key.kind, key.key)
  }
  return lifted
}

/**
 * Whether a forget in force anywhere in the log carries the key (a quote's evidence key is shared by every claim
 * stated with that quote, so a forget of another subject may carry it). Reads every kept forget: undoing a forget is
 * rare, and only then is this asked.
 */
function carriedInForce(db: Database, kind: string, key: string): boolean {
  return (
    db.get(
      `SELECT 1 AS held FROM (SELECT op, record FROM sync_received UNION ALL SELECT op, record FROM sync_own_records) kept,
        json_each(kept.record, '$.tombstones') carried
      WHERE json_extract(kept.record, '$.kind') = 'forget' AND json_extract(carried.value, '$.kind') = ?
        AND json_extract(carried.value, '$.key') = ? AND kept.op NOT IN (SELECT undone FROM sync_record_undoes)
      LIMIT 1`,
      kind,
      key,
    ) !== undefined
  )
}
