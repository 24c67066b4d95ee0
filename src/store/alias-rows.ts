/**
 * The lasting aliases of subjects and properties: reading the canonical names a write lands under, and recording or
 * removing an alias so that no chain and no cycle is ever stored (the canonical side of an alias is never itself an
 * alias). Every change reports the rows' states before and after, for the edit log to undo it exactly.
 */
import type { CanonicalNames, PreparedWrite } from '../fact-input.ts'
import { retargetWrite } from '../fact-input.ts'
import type { Database } from './database.ts'

/** What an alias renames: a subject (entity), or one subject's property (predicate). */
export type AliasKind = 'entity' | 'predicate'

/** How an alias came to be. */
export type AliasOrigin = 'rename' | 'merge' | 'card' | 'import'

/** One stored alias. */
export interface AliasRow {
  readonly id: number
  readonly kind: AliasKind
  /** For a predicate alias, the entity whose property it renames; '' for an entity alias. */
  readonly entityKey: string
  readonly aliasKey: string
  /** The name as it was spelled when the alias was recorded. */
  readonly aliasText: string
  readonly canonicalKey: string
  /** The canonical name as it was spelled when the alias was recorded. */
  readonly canonicalText: string
  readonly origin: AliasOrigin
  readonly createdAt: string
}

/** One alias row an operation changed: its state before and after (null: absent). */
export interface AliasChange {
  readonly id: number
  readonly before: AliasRow | null
  readonly after: AliasRow | null
}

/** An alias to record. */
export interface AliasInput {
  readonly kind: AliasKind
  readonly entityKey: string
  readonly aliasKey: string
  readonly aliasText: string
  readonly canonicalKey: string
  readonly canonicalText: string
  readonly origin: AliasOrigin
}

const COLUMNS = 'id, kind, entity_key, alias_key, alias_text, canonical_key, canonical_text, origin, created_at'

function toAlias(row: Record<string, unknown>): AliasRow {
  return {
    id: Number(row['id']),
    kind: row['kind'] as AliasKind,
    entityKey: String(row['entity_key']),
    aliasKey: String(row['alias_key']),
    aliasText: String(row['alias_text']),
    canonicalKey: String(row['canonical_key']),
    canonicalText: String(row['canonical_text']),
    origin: row['origin'] as AliasOrigin,
    createdAt: String(row['created_at']),
  }
}

/**
 * The names a write lands under: its subject's canonical entity (shown under the entity's stored display name) when
 * the subject is an alias, then that entity's canonical property when the property is an alias of it.
 * @param db - the open database.
 * @param write - the prepared write.
 * @returns the canonical names, or undefined when neither name is an alias.
 */
export function canonicalNamesOf(
  db: Database,
  write: Pick<PreparedWrite, 'subject' | 'entityKey' | 'property' | 'predicateKey'>,
): CanonicalNames | undefined {
  const entity = db.get(
    `SELECT a.canonical_key, coalesce(e.display, a.canonical_text) AS display FROM aliases a
    LEFT JOIN entities e ON e.entity_key = a.canonical_key WHERE a.kind = 'entity' AND a.entity_key = '' AND a.alias_key = ?`,
    write.entityKey,
  )
  const entityKey = entity === undefined ? write.entityKey : String(entity['canonical_key'])
  const predicate = db.get(
    `SELECT canonical_text FROM aliases WHERE kind = 'predicate' AND entity_key = ? AND alias_key = ?`,
    entityKey,
    write.predicateKey,
  )
  if (entity === undefined && predicate === undefined) return undefined
  return {
    subject: entity === undefined ? write.subject : String(entity['display']),
    property: predicate === undefined ? write.property : String(predicate['canonical_text']),
  }
}

/**
 * The keys an entity key (and a predicate key of it) read as: the canonical entity of an entity alias, then that
 * entity's canonical property of a predicate alias.
 * @param db - the open database.
 * @param entityKey - an entity key.
 * @param predicateKey - a predicate key, or undefined.
 * @returns the canonical keys (the same keys when neither is an alias).
 */
export function canonicalKeysOf(
  db: Database,
  entityKey: string,
  predicateKey: string | undefined,
): { entityKey: string; predicateKey: string | undefined } {
  const entity = db.get(
    `SELECT canonical_key FROM aliases WHERE kind = 'entity' AND entity_key = '' AND alias_key = ?`,
    entityKey,
  )
  const canonical = entity === undefined ? entityKey : String(entity['canonical_key'])
  if (predicateKey === undefined) return { entityKey: canonical, predicateKey }
  const predicate = db.get(
    `SELECT canonical_key FROM aliases WHERE kind = 'predicate' AND entity_key = ? AND alias_key = ?`,
    canonical,
    predicateKey,
  )
  return {
    entityKey: canonical,
    predicateKey: predicate === undefined ? predicateKey : String(predicate['canonical_key']),
  }
}

/**
 * A prepared write under its canonical names: the one place every write path (the model's tools, the rules,
 * extraction, import, the page, applied proposals) is turned from an alias to what it names.
 * @param db - the open database.
 * @param write - the prepared write.
 * @returns the write under its canonical names, or the same write when it names no alias.
 */
export function canonicalWrite(db: Database, write: PreparedWrite): PreparedWrite {
  const names = canonicalNamesOf(db, write)
  return names === undefined ? write : retargetWrite(write, names)
}

/**
 * Every alias of an entity: the names that lead to it, and the renamed properties of it.
 * @param db - the open database.
 * @param entityKey - the canonical entity.
 * @returns its aliases, oldest first.
 */
export function aliasesOf(db: Database, entityKey: string): AliasRow[] {
  return db
    .all(
      `SELECT ${COLUMNS} FROM aliases WHERE (kind = 'entity' AND canonical_key = ?) OR (kind = 'predicate' AND entity_key = ?)
    ORDER BY id`,
      entityKey,
      entityKey,
    )
    .map(toAlias)
}

/**
 * The subject aliases among some keys, read by the alias index.
 * @param db - the open database.
 * @param keys - entity keys.
 * @returns alias key → the subject it leads to (key, and name as last recorded) and the alias as spelled.
 */
export function entityAliasesAmong(
  db: Database,
  keys: readonly string[],
): Map<string, { canonicalKey: string; canonicalText: string; aliasText: string }> {
  const found = new Map<string, { canonicalKey: string; canonicalText: string; aliasText: string }>()
  const distinct = [...new Set(keys)]
  for (let start = 0; start < distinct.length; start += 500) {
    const chunk = distinct.slice(start, start + 500)
    const rows = db.all(
      `SELECT alias_key, alias_text, canonical_key, canonical_text FROM aliases WHERE kind = 'entity' AND entity_key = ''
      AND alias_key IN (${chunk.map(() => '?').join(', ')})`,
      ...chunk,
    )
    for (const row of rows)
      found.set(String(row['alias_key']), {
        canonicalKey: String(row['canonical_key']),
        canonicalText: String(row['canonical_text']),
        aliasText: String(row['alias_text']),
      })
  }
  return found
}

/**
 * Every alias, for the export.
 * @param db - the open database.
 * @returns the aliases in id order.
 */
export function allAliases(db: Database): AliasRow[] {
  return db.all(`SELECT ${COLUMNS} FROM aliases ORDER BY id`).map(toAlias)
}

/**
 * One alias by id.
 * @param db - the open database.
 * @param id - its id.
 * @returns the alias, or undefined.
 */
export function aliasById(db: Database, id: number): AliasRow | undefined {
  const row = db.get(`SELECT ${COLUMNS} FROM aliases WHERE id = ?`, id)
  return row === undefined ? undefined : toAlias(row)
}

/**
 * Record an alias, keeping the table free of chains and cycles: an alias whose name becomes canonical again (a rename
 * back) is dropped, aliases that led to the renamed name now lead to the new canonical one, and an alias already
 * there under this name is pointed at the new canonical one. For an entity alias, the renamed entity's property
 * aliases move to the canonical entity (unless it already renames that property itself).
 * @param db - the open database, inside the caller's transaction.
 * @param input - the alias.
 * @param now - ISO instant.
 * @returns every alias row changed, with its state before and after.
 */
export function recordAlias(db: Database, input: AliasInput, now: string): AliasChange[] {
  if (input.aliasKey === input.canonicalKey) return []
  const changes: AliasChange[] = []
  const scope = [input.kind, input.entityKey] as const
  const drop = (row: AliasRow): void => {
    db.run('DELETE FROM aliases WHERE id = ?', row.id)
    changes.push({ id: row.id, before: row, after: null })
  }
  const repoint = (row: AliasRow, canonicalKey: string, canonicalText: string, entityKey = row.entityKey): void => {
    db.run(
      'UPDATE aliases SET canonical_key = ?, canonical_text = ?, entity_key = ? WHERE id = ?',
      canonicalKey,
      canonicalText,
      entityKey,
      row.id,
    )
    changes.push({ id: row.id, before: row, after: { ...row, canonicalKey, canonicalText, entityKey } })
  }
  const rows = (where: string, ...params: string[]): AliasRow[] =>
    db
      .all(
        `SELECT ${COLUMNS} FROM aliases WHERE kind = ? AND entity_key = ? AND ${where} ORDER BY id`,
        ...scope,
        ...params,
      )
      .map(toAlias)
  for (const row of rows('alias_key = ?', input.canonicalKey)) drop(row)
  for (const row of rows('canonical_key = ?', input.aliasKey)) {
    if (row.aliasKey === input.canonicalKey) drop(row)
    else repoint(row, input.canonicalKey, input.canonicalText)
  }
  const [existing] = rows('alias_key = ?', input.aliasKey)
  if (existing !== undefined) {
    if (existing.canonicalKey !== input.canonicalKey) repoint(existing, input.canonicalKey, input.canonicalText)
  } else {
    const id = db.run(
      `INSERT INTO aliases (kind, entity_key, alias_key, alias_text, canonical_key, canonical_text, origin, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      input.kind,
      input.entityKey,
      input.aliasKey,
      input.aliasText,
      input.canonicalKey,
      input.canonicalText,
      input.origin,
      now,
    ).lastInsertRowid
    const inserted = aliasById(db, id)
    if (inserted !== undefined) changes.push({ id, before: null, after: inserted })
  }
  if (input.kind === 'entity') {
    const owned = db
      .all(`SELECT ${COLUMNS} FROM aliases WHERE kind = 'predicate' AND entity_key = ? ORDER BY id`, input.aliasKey)
      .map(toAlias)
    for (const row of owned) {
      const taken = db.get(
        `SELECT 1 AS found FROM aliases WHERE kind = 'predicate' AND entity_key = ? AND alias_key = ?`,
        input.canonicalKey,
        row.aliasKey,
      )
      if (taken === undefined) repoint(row, row.canonicalKey, row.canonicalText, input.canonicalKey)
      else drop(row)
    }
  }
  return changes
}

/**
 * Remove an alias; later writes under its name start their own subject or property again. Facts it moved stay moved.
 * @param db - the open database.
 * @param id - the alias id.
 * @returns the change, or undefined when no alias has that id.
 */
export function removeAlias(db: Database, id: number): AliasChange | undefined {
  const row = aliasById(db, id)
  if (row === undefined) return undefined
  db.run('DELETE FROM aliases WHERE id = ?', id)
  return { id, before: row, after: null }
}

/**
 * Whether the alias rows an edit changed still stand as it left them (an undo would otherwise clobber a later change).
 * @param db - the open database.
 * @param changes - the edit's alias changes.
 * @returns the ids of the rows that moved since.
 */
export function movedAliases(db: Database, changes: readonly AliasChange[]): number[] {
  const last = new Map<number, AliasRow | null>()
  for (const change of changes) last.set(change.id, change.after)
  return [...last.entries()]
    .filter(([id, after]) => {
      const now = aliasById(db, id) ?? null
      return JSON.stringify(now) !== JSON.stringify(after)
    })
    .map(([id]) => id)
}

/**
 * Put alias rows back as they were before an edit, the last change first.
 * @param db - the open database, inside the undo's transaction.
 * @param changes - the edit's alias changes, in the order they were made.
 */
export function undoAliases(db: Database, changes: readonly AliasChange[]): void {
  for (const change of [...changes].reverse()) {
    db.run('DELETE FROM aliases WHERE id = ?', change.id)
    const row = change.before
    if (row === null) continue
    db.run(
      `INSERT INTO aliases (id, kind, entity_key, alias_key, alias_text, canonical_key, canonical_text, origin, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      row.id,
      row.kind,
      row.entityKey,
      row.aliasKey,
      row.aliasText,
      row.canonicalKey,
      row.canonicalText,
      row.origin,
      row.createdAt,
    )
  }
}
