/**
 * RenameStore: the user's renames and merges, on demand and for good. A subject is renamed (its facts move to an
 * entity of the new name) or merged into another subject; one subject's property is renamed (its facts move to the
 * new property, merging into it where it exists). Each records a lasting alias, so a later write under the old
 * name lands on the new one; a merge never makes a silent choice between two different current values of a
 * single-valued slot: they stand as a conflict for the user to settle. Each reports the trail the edit log needs to
 * undo it exactly. Facts move, and aliases are recorded, through the CurationStore it is given.
 */
import { canonicalEntity, canonicalPredicate } from '../text/normalize.ts'
import { aliasById, aliasesOf, type AliasChange, type AliasRow } from './alias-rows.ts'
import type { CurationStore, CurationOutcome, KeysOf, MoveCounts } from './curation-store.ts'
import type { Database } from './database.ts'
import { FACT_COLUMNS, toFact } from './fact-rows.ts'
import type { Fact } from '../types.ts'

/** What a rename did. */
export interface RenameValue extends MoveCounts {
  /** A rename when the new name was nobody's, a merge when it named a subject or property already there. */
  readonly kind: 'rename' | 'merge'
  readonly from: string
  readonly to: string
}

/** Synchronous renames and merges of subjects and properties, and the aliases they leave. */
export class RenameStore {
  private readonly db: Database
  private readonly curation: CurationStore

  /**
   * @param db - the open, migrated database.
   * @param curation - the moves of facts and the alias rows over the same database.
   */
  constructor(db: Database, curation: CurationStore) {
    this.db = db
    this.curation = curation
  }

  /**
   * The slots renaming a subject may touch: every slot of its facts, and the slots they move to.
   * @param entityKey - the subject's entity key.
   * @param to - the new name.
   * @param keysOf - recomputes a fact's keys.
   * @returns slot keys.
   */
  subjectRenameSlots(entityKey: string, to: string, keysOf: KeysOf): string[] {
    const facts = this.liveFacts(entityKey)
    return [
      ...new Set([
        ...facts.map((fact) => fact.slotKey),
        ...facts.map((fact) => keysOf(fact, this.targetDisplay(to)).slotKey),
      ]),
    ]
  }

  /**
   * The slots renaming a property may touch.
   * @param entityKey - the subject's entity key.
   * @param predicateKey - the property's predicate key.
   * @param to - the new property name.
   * @param keysOf - recomputes a fact's keys.
   * @returns slot keys.
   */
  propertyRenameSlots(entityKey: string, predicateKey: string, to: string, keysOf: KeysOf): string[] {
    const facts = this.liveFacts(entityKey, predicateKey)
    return [
      ...new Set([
        ...facts.map((fact) => fact.slotKey),
        ...facts.map((fact) => keysOf(fact, fact.subject, to).slotKey),
      ]),
    ]
  }

  /**
   * Rename a subject, or merge it into the subject its new name already reads as: every fact of it that was not
   * forgotten moves, written under the new name, and the old name becomes an alias of the new one. Merging opens a
   * conflict where two single-valued slots hold different current values. The same name in other spelling (the same
   * entity key) only changes how the subject is shown.
   * @param entityKey - the subject's entity key.
   * @param to - the new name, tidied.
   * @param keysOf - recomputes a fact's keys.
   * @param now - ISO instant.
   * @returns what moved and the trail, or why not.
   */
  renameSubject(entityKey: string, to: string, keysOf: KeysOf, now: string): CurationOutcome<RenameValue> {
    return this.db.transaction(() => {
      const source = this.db.get('SELECT id, display FROM entities WHERE entity_key = ?', entityKey)
      if (source === undefined) return { ok: false, reason: `no subject is known as "${entityKey}"` } as const
      const from = String(source['display'])
      // A name that is already an alias stands for its subject: renaming into it merges there, never into the alias.
      const toKey = this.canonicalEntityKey(canonicalEntity(to))
      if (toKey === '') return { ok: false, reason: 'the new name has no letters or digits' } as const
      const facts = this.liveFacts(entityKey)
      if (toKey === entityKey) {
        if (to === from) return { ok: false, reason: `the subject is already called "${from}"` } as const
        this.db.run('UPDATE entities SET display = ? WHERE entity_key = ?', to, entityKey)
        const moved = this.curation.moveFacts(
          facts.map((fact) => ({ fact, keys: keysOf(fact, to) })),
          Number(source['id']),
          'conflict',
          now,
        )
        if (!moved.ok) return moved
        this.curation.renamedDisplay(entityKey, null, { display: to, before: from }, now)
        // The undo shows the subject under its old display name again.
        const identities = moved.trail.identities.map((entry) => ({
          ...entry,
          before: { ...entry.before, entityDisplay: from },
        }))
        return {
          ok: true,
          value: { kind: 'rename', from, to, ...moved.value },
          trail: { ...moved.trail, identities },
        } as const
      }
      const target = this.db.get('SELECT id, display FROM entities WHERE entity_key = ?', toKey)
      const kind = target === undefined ? 'rename' : 'merge'
      const display = target === undefined ? to : String(target['display'])
      const entityId =
        target === undefined
          ? this.db.run('INSERT INTO entities (entity_key, display, created_at) VALUES (?, ?, ?)', toKey, to, now)
              .lastInsertRowid
          : Number(target['id'])
      const moved = this.curation.moveFacts(
        facts.map((fact) => ({ fact, keys: keysOf(fact, display) })),
        entityId,
        'conflict',
        now,
      )
      if (!moved.ok) return moved
      const aliases = this.curation.alias(
        {
          kind: 'entity',
          entityKey: '',
          aliasKey: entityKey,
          aliasText: from,
          canonicalKey: toKey,
          canonicalText: display,
          origin: kind,
        },
        now,
      )
      return {
        ok: true,
        value: { kind, from, to: display, ...moved.value },
        trail: { ...moved.trail, aliases },
      } as const
    })
  }

  /**
   * What renaming a subject to a name would be, writing nothing: a rename when no other subject holds a fact under
   * that name (an alias of one counts as its subject), a merge into that subject otherwise.
   * @param entityKey - the subject's entity key.
   * @param to - the new name, tidied.
   * @returns the kind and the name the subject would be shown under, or why it cannot be renamed.
   */
  previewSubjectRename(
    entityKey: string,
    to: string,
  ): { ok: true; value: { kind: 'rename' | 'merge'; from: string; to: string } } | { ok: false; reason: string } {
    const source = this.curation.entityDisplay(entityKey)
    if (source === undefined) return { ok: false, reason: `no subject is known as "${entityKey}"` }
    const toKey = this.canonicalEntityKey(canonicalEntity(to))
    if (toKey === '') return { ok: false, reason: 'the new name has no letters or digits' }
    const held = toKey !== entityKey && this.liveFacts(toKey).length > 0
    return {
      ok: true,
      value: {
        kind: held ? 'merge' : 'rename',
        from: source,
        to: held ? (this.curation.entityDisplay(toKey) ?? to) : to,
      },
    }
  }

  /**
   * Rename one subject's property, or merge it into the property its new name already reads as: every fact of the
   * subject under it that was not forgotten moves to the new property (qualifiers and scope kept), and the old
   * property becomes an alias of the new one for this subject. Merging opens a conflict where two single-valued slots
   * hold different current values.
   * @param entityKey - the subject's entity key.
   * @param predicateKey - the property's predicate key.
   * @param to - the new property, tidied.
   * @param keysOf - recomputes a fact's keys.
   * @param now - ISO instant.
   * @returns what moved and the trail, or why not.
   */
  renameProperty(
    entityKey: string,
    predicateKey: string,
    to: string,
    keysOf: KeysOf,
    now: string,
  ): CurationOutcome<RenameValue> {
    return this.db.transaction(() => {
      const entity = this.db.get('SELECT id FROM entities WHERE entity_key = ?', entityKey)
      if (entity === undefined) return { ok: false, reason: `no subject is known as "${entityKey}"` } as const
      const facts = this.liveFacts(entityKey, predicateKey)
      const first = facts[0]
      if (first === undefined)
        return { ok: false, reason: `the subject holds no fact under the property "${predicateKey}"` } as const
      const aliased = this.db.get(
        `SELECT canonical_key, canonical_text FROM aliases WHERE kind = 'predicate' AND entity_key = ? AND alias_key = ?`,
        entityKey,
        canonicalPredicate(to),
      )
      const toKey = aliased === undefined ? canonicalPredicate(to) : String(aliased['canonical_key'])
      if (toKey === '') return { ok: false, reason: 'the new property has no letters or digits' } as const
      const from = first.property
      if (toKey === predicateKey && facts.every((fact) => fact.property === to)) {
        return { ok: false, reason: `the property is already called "${to}"` } as const
      }
      const existing = this.db.get(
        `SELECT property FROM facts WHERE entity_id = ? AND predicate_key = ? AND status <> 'forgotten' LIMIT 1`,
        Number(entity['id']),
        toKey,
      )
      const kind = existing === undefined || toKey === predicateKey ? 'rename' : 'merge'
      const name =
        existing !== undefined && toKey !== predicateKey
          ? String(existing['property'])
          : aliased === undefined
            ? to
            : String(aliased['canonical_text'])
      const moved = this.curation.moveFacts(
        facts.map((fact) => ({ fact, keys: keysOf(fact, fact.subject, name) })),
        Number(entity['id']),
        'conflict',
        now,
      )
      if (!moved.ok) return moved
      if (toKey === predicateKey)
        this.curation.renamedDisplay(entityKey, predicateKey, { display: name, before: from }, now)
      const aliases =
        toKey === predicateKey
          ? []
          : this.curation.alias(
              {
                kind: 'predicate',
                entityKey,
                aliasKey: predicateKey,
                aliasText: from,
                canonicalKey: toKey,
                canonicalText: name,
                origin: kind,
              },
              now,
            )
      return { ok: true, value: { kind, from, to: name, ...moved.value }, trail: { ...moved.trail, aliases } } as const
    })
  }

  /**
   * The aliases of a subject: the names that lead to it and its renamed properties.
   * @param entityKey - the subject's entity key.
   * @returns its aliases, oldest first.
   */
  aliasesOf(entityKey: string): AliasRow[] {
    return aliasesOf(this.db, entityKey)
  }

  /**
   * The entity a key reads as: the canonical entity of an alias, else the key itself.
   * @param entityKey - an entity key.
   * @returns the canonical entity key.
   */
  canonicalEntityKey(entityKey: string): string {
    const row = this.db.get(
      `SELECT canonical_key FROM aliases WHERE kind = 'entity' AND entity_key = '' AND alias_key = ?`,
      entityKey,
    )
    return row === undefined ? entityKey : String(row['canonical_key'])
  }

  /**
   * One alias.
   * @param id - its id.
   * @returns the alias, or undefined.
   */
  aliasById(id: number): AliasRow | undefined {
    return aliasById(this.db, id)
  }

  /**
   * Remove an alias: later writes under its name start their own subject or property again; the facts it moved stay.
   * The removal is recorded for sync.
   * @param id - the alias id.
   * @param now - ISO instant.
   * @returns the change, or undefined when no alias has that id.
   */
  removeAlias(id: number, now: string): AliasChange | undefined {
    return this.curation.unalias(id, now)
  }

  /**
   * Record the aliases an import file carries (origin import), each as a rename would record it; one whose names
   * read as the same key, or that is already there, changes nothing. Facts already stored under an alias's name stay
   * where they are (the health check proposes merging them).
   * @param records - the file's alias records, in file order.
   * @param now - ISO instant.
   * @returns how many aliases were recorded, and the alias rows changed (for the import's undo).
   */
  importAliases(
    records: readonly { readonly subject: string; readonly property?: string | undefined; readonly aliasOf: string }[],
    now: string,
  ): { readonly recorded: number; readonly changes: readonly AliasChange[] } {
    let recorded = 0
    const all: AliasChange[] = []
    for (const record of records) {
      const changes =
        record.property === undefined
          ? this.curation.alias(
              {
                kind: 'entity',
                entityKey: '',
                aliasKey: canonicalEntity(record.subject),
                aliasText: record.subject,
                canonicalKey: canonicalEntity(record.aliasOf),
                canonicalText: record.aliasOf,
                origin: 'import',
              },
              now,
            )
          : this.curation.alias(
              {
                kind: 'predicate',
                entityKey: this.canonicalEntityKey(canonicalEntity(record.subject)),
                aliasKey: canonicalPredicate(record.property),
                aliasText: record.property,
                canonicalKey: canonicalPredicate(record.aliasOf),
                canonicalText: record.aliasOf,
                origin: 'import',
              },
              now,
            )
      if (changes.some((change) => change.before === null)) recorded += 1
      all.push(...changes)
    }
    return { recorded, changes: all }
  }

  /** The display a subject of this name is shown under: the existing entity's, else the name itself. */
  private targetDisplay(to: string): string {
    return this.curation.entityDisplay(canonicalEntity(to)) ?? to
  }

  /** The facts of an entity (under one property) that were not forgotten, in id order. */
  private liveFacts(entityKey: string, predicateKey?: string): Fact[] {
    return this.db
      .all(
        `SELECT ${FACT_COLUMNS} FROM facts WHERE entity_id = (SELECT id FROM entities WHERE entity_key = ?)
      AND status <> 'forgotten' AND (? IS NULL OR predicate_key = ?) ORDER BY id`,
        entityKey,
        predicateKey ?? null,
        predicateKey ?? null,
      )
      .map(toFact)
  }
}
