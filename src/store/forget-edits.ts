/**
 * Forgetting as a reversible page edit: the snapshot a forget leaves (for every row of the slots it touched, the
 * columns it changed, before and after; the conflict groups it changed; which rows it dropped from the search indexes
 * and the tombstones it added), and the undo that puts each of those columns and groups back, indexes those rows
 * again from their restored text, and removes exactly those tombstones. Keys are recorded as hex text. Only changed columns are kept, so a value or quote (a credential's, say) is never copied.
 * The undo is refused when any of them moved since, or when a current row has since been written into those slots.
 */
import type { SqlValue } from './connection.ts'
import type { Database } from './database.ts'
import { reindexFact } from './fact-folds.ts'
import { INSTANT, instantColumn, KEY, keyColumn, keyPlaceholders, placeholders } from './fact-rows.ts'

/** One stored row, every column as SQLite returned it; in a snapshot, its id and the columns the forget changed. */
export type FullRow = Readonly<Record<string, SqlValue>>

/** What a forget changed, enough to undo it exactly. */
export interface ForgetSnapshot {
  /** Rows of the touched slots that the forget changed: their id and changed columns, before and after. */
  readonly rows: readonly { readonly before: FullRow; readonly after: FullRow }[]
  /**
   * The forgotten rows, which the forget dropped from the search indexes. The undo derives their entries from the
   * restored row; snapshots written before the index held no copy of its terms also carry them, unread.
   */
  readonly indexes: readonly {
    readonly id: number
    readonly terms?: string | null
    readonly identifiers?: readonly string[]
  }[]
  /** Conflict groups the forget changed (one it closed because nothing was left to settle). */
  readonly groups: readonly { readonly before: FullRow; readonly after: FullRow }[]
  /** Ids of the tombstones the forget added (a claim already tombstoned keeps its older tombstone). */
  readonly tombstones: readonly number[]
  /** The slots the forget touched. */
  readonly slotKeys: readonly string[]
  /** The highest fact id when the forget ran: a current row above it in these slots was written since. */
  readonly lastFactId: number
}

/** The state of the touched slots before a forget runs. */
export interface ForgetBefore {
  readonly slotKeys: readonly string[]
  readonly rows: ReadonlyMap<number, FullRow>
  readonly groups: ReadonlyMap<number, FullRow>
  readonly lastTombstone: number
  readonly lastFactId: number
}

/** Why an undo of a forget is refused: the ids of the rows that moved or now stand in the way. */
export type ForgetUndoRefusal = { readonly factIds: readonly number[] }

/**
 * Read the touched slots before a forget.
 * @param db - the open database, inside the forget's transaction.
 * @param slotKeys - the slots the forget will touch.
 * @returns the state to compare against afterwards.
 */
export function beforeForget(db: Database, slotKeys: readonly string[]): ForgetBefore {
  const rows = slotRows(db, slotKeys)
  const lastTombstone = Number(db.get('SELECT coalesce(max(id), 0) AS n FROM tombstones')?.['n'] ?? 0)
  const lastFactId = Number(db.get('SELECT coalesce(max(id), 0) AS n FROM facts')?.['n'] ?? 0)
  return { slotKeys, rows, groups: slotGroups(db, slotKeys), lastTombstone, lastFactId }
}

/**
 * The snapshot of a forget that has just run.
 * @param db - the open database, inside the forget's transaction.
 * @param before - what beforeForget read.
 * @returns the snapshot to record.
 */
export function afterForget(db: Database, before: ForgetBefore): ForgetSnapshot {
  const rowsAfter = slotRows(db, before.slotKeys)
  const rows = [...before.rows.entries()].flatMap(([id, row]) => {
    const after = rowsAfter.get(id)
    if (after === undefined) return []
    const changed = Object.keys(row).filter((key) => row[key] !== after[key])
    if (changed.length === 0) return []
    const pick = (from: FullRow): FullRow =>
      Object.fromEntries([['id', id], ...changed.map((key) => [key, from[key] ?? null])])
    return [{ before: pick(row), after: pick(after) }]
  })
  const forgotten = rows.filter(
    ({ before: was, after }) => after['status'] === 'forgotten' && was['status'] !== 'forgotten',
  )
  const indexes = forgotten.map(({ before: was }) => ({ id: Number(was['id']) }))
  const groupsAfter = slotGroups(db, before.slotKeys)
  const groups = [...before.groups.entries()].flatMap(([id, group]) => {
    const after = groupsAfter.get(id)
    return after === undefined || sameRow(group, after) ? [] : [{ before: group, after }]
  })
  const tombstones = db
    .all('SELECT id FROM tombstones WHERE id > ? ORDER BY id', before.lastTombstone)
    .map((row) => Number(row['id']))
  return { rows, indexes, groups, tombstones, slotKeys: before.slotKeys, lastFactId: before.lastFactId }
}

/**
 * Undo a forget: refused when a row or group it changed is no longer as it left it, or when a current row was written
 * into its slots since; otherwise every row and group gets its prior columns back, the forgotten rows their index
 * entries, and the tombstones it added are deleted.
 * @param db - the open database, inside the undo's transaction.
 * @param snapshot - the recorded snapshot.
 * @returns undefined when undone, or the refusal.
 */
export function undoForget(db: Database, snapshot: ForgetSnapshot): ForgetUndoRefusal | undefined {
  const now = slotRows(db, snapshot.slotKeys)
  // Every change bumps a row's revision, and the forget changed it, so the revision is among the columns compared.
  const moved = snapshot.rows
    .filter(({ after }) => {
      const current =
        now.get(Number(after['id'])) ??
        (db.get(`SELECT ${fullColumns(db, 'facts')} FROM facts WHERE id = ?`, Number(after['id'])) as
          | FullRow
          | undefined)
      return current === undefined || Object.keys(after).some((key) => current[key] !== after[key])
    })
    .map(({ after }) => Number(after['id']))
  const groupsNow = slotGroups(db, snapshot.slotKeys)
  const movedGroups = snapshot.groups.filter(({ after }) => {
    const current = groupsNow.get(Number(after['id']))
    return current === undefined || !sameRow(after, current)
  })
  const restoredCurrent = snapshot.rows.some(({ before }) =>
    ['active', 'scheduled', 'conflict'].includes(String(before['status'])),
  )
  const newcomers = restoredCurrent
    ? [...now.values()]
        .filter(
          (row) =>
            Number(row['id']) > snapshot.lastFactId &&
            ['active', 'scheduled', 'conflict'].includes(String(row['status'])),
        )
        .map((row) => Number(row['id']))
    : []
  if (moved.length > 0 || newcomers.length > 0 || movedGroups.length > 0) {
    const groupFacts = movedGroups.flatMap(({ after }) =>
      db.all('SELECT id FROM facts WHERE conflict_group_id = ?', Number(after['id'])).map((row) => Number(row['id'])),
    )
    return { factIds: [...new Set([...moved, ...newcomers, ...groupFacts])] }
  }
  // Rows that were active come back last, so the one-active-per-slot index never sees two.
  const ordered = [...snapshot.rows].sort(
    (a, b) => Number(a.before['status'] === 'active') - Number(b.before['status'] === 'active'),
  )
  for (const { before } of ordered) putRow(db, 'facts', before)
  for (const { before } of snapshot.groups) putRow(db, 'conflict_groups', before)
  for (const index of snapshot.indexes) reindexFact(db, index.id)
  if (snapshot.tombstones.length > 0) {
    db.run(`DELETE FROM tombstones WHERE id IN (${placeholders(snapshot.tombstones.length)})`, ...snapshot.tombstones)
  }
  return undefined
}

/** Every row of the slots, forgotten ones included, by id. */
function slotRows(db: Database, slotKeys: readonly string[]): Map<number, FullRow> {
  const rows = new Map<number, FullRow>()
  if (slotKeys.length === 0) return rows
  for (const row of db.all(
    `SELECT ${fullColumns(db, 'facts')} FROM facts WHERE slot_key IN (${keyPlaceholders(slotKeys.length)}) ORDER BY id`,
    ...slotKeys,
  )) {
    rows.set(Number(row['id']), row as FullRow)
  }
  return rows
}

function slotGroups(db: Database, slotKeys: readonly string[]): Map<number, FullRow> {
  const groups = new Map<number, FullRow>()
  if (slotKeys.length === 0) return groups
  for (const row of db.all(
    `SELECT ${fullColumns(db, 'conflict_groups')} FROM conflict_groups WHERE slot_key IN (${keyPlaceholders(slotKeys.length)}) ORDER BY id`,
    ...slotKeys,
  )) {
    groups.set(Number(row['id']), row as FullRow)
  }
  return groups
}

/** The key columns of the tables a snapshot records, stored as blobs and recorded as hex. */
const KEY_COLUMNS: Readonly<Record<'facts' | 'conflict_groups', readonly string[]>> = {
  facts: ['slot_key', 'claim_key'],
  conflict_groups: ['slot_key'],
}

/** The instant columns of the tables a snapshot records, stored as epoch milliseconds and recorded as ISO text. */
const INSTANT_COLUMNS: Readonly<Record<'facts' | 'conflict_groups', readonly string[]>> = {
  facts: ['observed_at', 'recorded_at', 'valid_from', 'valid_to', 'updated_at', 'pinned_at'],
  conflict_groups: [],
}

/** A table's column names, from the table itself, never from a record. */
function columnNames(db: Database, table: 'facts' | 'conflict_groups'): string[] {
  return db.all(`SELECT name FROM pragma_table_info('${table}')`).map((entry) => String(entry['name']))
}

/**
 * Every column of a table as a snapshot records it: key blobs as hex text and instants as ISO text, so rows compare
 * and serialise as text (and a snapshot taken before either was stored compactly still reads as one taken after).
 */
function fullColumns(db: Database, table: 'facts' | 'conflict_groups'): string {
  return columnNames(db, table)
    .map((name) => {
      if (KEY_COLUMNS[table].includes(name)) return keyColumn(`"${name}"`, `"${name}"`)
      if (INSTANT_COLUMNS[table].includes(name)) return instantColumn(`"${name}"`, `"${name}"`)
      return `"${name}"`
    })
    .join(', ')
}

/** How a recorded column's value is bound back. */
function bindOf(table: 'facts' | 'conflict_groups', name: string): string {
  if (KEY_COLUMNS[table].includes(name)) return KEY
  return INSTANT_COLUMNS[table].includes(name) ? INSTANT : '?'
}

/** Write every recorded column of a row back; column names come from the table itself, never from the record. */
function putRow(db: Database, table: 'facts' | 'conflict_groups', row: FullRow): void {
  const columns = columnNames(db, table).filter((name) => name !== 'id' && Object.hasOwn(row, name))
  db.run(
    `UPDATE ${table} SET ${columns.map((name) => `"${name}" = ${bindOf(table, name)}`).join(', ')} WHERE id = ?`,
    ...columns.map((name) => row[name] ?? null),
    Number(row['id']),
  )
}

function sameRow(a: FullRow, b: FullRow): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)])
  for (const key of keys) if (a[key] !== b[key]) return false
  return true
}
