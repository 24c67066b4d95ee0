/**
 * The sync record of an undo (EditStore.restore), appended in the undo's transaction. An edit made while sync was on
 * appended records, linked to it (sync_edit_ops): the undo is one `restore` naming them, so every device counts them
 * as never made. An edit made before sync was on has no operations to name: the snapshot recorded the library as the
 * edit left it, so the undo is recorded as what it does to that library instead: each row it moves back to another
 * slot as a `move`, each row it makes current again as a `write` ending the values it takes out of that slot, each
 * value it takes out with nothing in its place as a `supersede` (retired), and for a forget it takes back, a `restore`
 * naming the snapshot's `forget` records of those claims (so their tombstones lift) and a `write` of each row back.
 */
import { CURRENT_STATUSES, type Fact } from '../types.ts'
import type { Database } from './database.ts'
import type { EditRecord } from './edit-store.ts'
import { FACT_COLUMNS, toFact } from './fact-rows.ts'
import type { EndedRow, SyncRecorder } from './sync-recorder.ts'

/**
 * Fact rows by id, as they stand.
 * @param db - the open database.
 * @param ids - the rows.
 * @returns the rows found, in id order.
 */
export function rowsById(db: Database, ids: readonly number[]): Fact[] {
  if (ids.length === 0) return []
  return db
    .all(
      `SELECT ${FACT_COLUMNS} FROM facts WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`,
      JSON.stringify([...new Set(ids)]),
    )
    .map(toFact)
}

/**
 * Record an undo that was carried out. Call inside the undo's transaction.
 * @param db - the open database.
 * @param recorder - appends the records (nothing while sync is off).
 * @param edit - the edit undone.
 * @param before - the rows it touched, read before the undo.
 * @param now - the undo's ISO instant.
 */
export function recordUndo(
  db: Database,
  recorder: SyncRecorder,
  edit: EditRecord,
  before: readonly Fact[],
  now: string,
): void {
  if (!recorder.recording()) return
  const ops = recorder.opsOfEdits([edit.id, ...(edit.imported?.forgetEdit == null ? [] : [edit.imported.forgetEdit])])
  if (ops.length > 0) {
    recorder.recordRestore(ops, now)
    return
  }
  const after = new Map(
    rowsById(
      db,
      before.map((fact) => fact.id),
    ).map((fact) => [fact.id as number, fact]),
  )
  const current = (fact: Fact | undefined): boolean => fact !== undefined && CURRENT_STATUSES.includes(fact.status)
  const unforgotten = before.filter((fact) => fact.status === 'forgotten' && after.get(fact.id)?.status !== 'forgotten')
  recorder.recordRestore(recorder.forgetOpsOfClaims(unforgotten.map((fact) => String(fact.claimKey))), now)
  const ended = new Map<string, EndedRow[]>()
  for (const fact of before) {
    const now_ = after.get(fact.id)
    if (current(fact) && !current(now_)) {
      const list = ended.get(fact.slotKey) ?? []
      list.push({ fact, as: 'retired' })
      ended.set(fact.slotKey, list)
    }
  }
  for (const fact of before) {
    const back = after.get(fact.id)
    if (back === undefined || !current(back)) continue
    if (current(fact) && fact.status !== 'scheduled' && fact.slotKey !== back.slotKey) {
      recorder.recordMove(fact, back, now)
      continue
    }
    if (current(fact) && fact.slotKey === back.slotKey) continue
    recorder.recordWrite(back, ended.get(back.slotKey) ?? [], now)
    ended.delete(back.slotKey)
  }
  for (const ends of ended.values()) recorder.recordSupersede(ends, null, now)
}
