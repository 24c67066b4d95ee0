/**
 * SyncApplier: brings the store's rows of some subjects to the merged outcome (sync/merge.ts) of every change record
 * the store keeps about them, its own and other devices', through the store's own write paths: a row inserted by the
 * writer (after the same gates as a local write: canonical names, the tombstone check, a credential refused), moved
 * to history or back, moved in place under a name another device renamed it to (a subject, property or project key,
 * as the rename moved it there), a conflict group opened or closed, a forget with its tombstones, a pin, an alias. The plan is
 * the pure `sync/apply-plan.ts`; this shell reads the records and rows and carries the plan out inside the caller's
 * transaction, with the recorder silenced (a remote change is never recorded again as this device's own).
 *
 * Records are found by subject through `sync_record_entities` (migrations 0029 and 0031: a rename is filed under the
 * subjects it names) and restores by what they undo (`sync_record_undoes`), so applying a few records merges the
 * records of a few subjects, never the whole log.
 */
import { keysUnder, prepareWrite } from '../fact-input.ts'
import { projectKeyOfScope, projectNameOf, projectScope } from '../project/project-ref.ts'
import { evidenceRank } from '../rules/write-policy.ts'
import { CURRENT_STATUSES } from '../types.ts'
import {
  planApply,
  type Relocation,
  type RowAction,
  type RowTarget,
  type SlotPlan,
  type Statement,
  type StoredRow,
} from '../sync/apply-plan.ts'
import type { ChangeRecord } from '../sync/change-record.ts'
import {
  forgetsUnderLinkedNames,
  removedAliases,
  renameSources,
  renameTargets,
  statementsOf,
  undoneBareTombstones,
  undoneEndsOf,
  undoneForgets,
} from '../sync/record-reads.ts'
import { canonicalSlots, claimId, mergeRecords, type MergedAlias, type MergedDisplay } from '../sync/merge.ts'
import { canonicalEntity, canonicalPredicate, canonicalValue, claimKeyOf, slotKeyOf } from '../text/normalize.ts'
import { recordAlias } from './alias-rows.ts'
import { textOrNull } from './connection.ts'
import type { Database } from './database.ts'
import { relocateFact } from './fact-relocation.ts'
import type { FactForgetting } from './fact-forgetting.ts'
import { FACT_COLUMNS, INSTANT, KEY, toFact } from './fact-rows.ts'
import type { FactSlots } from './fact-slots.ts'
import type { FactWriter } from './fact-writer.ts'
import type { PinStore } from './pin-store.ts'
import { moveProjectRow } from './project-rows.ts'
import { liftUndoneForgets } from './sync-forget-lift.ts'
import { slotOf, whileApplying } from './sync-recorder.ts'
import { findTombstone } from './tombstones.ts'

/** An index of the kept records by a key: the table, and the column the key is in. */
interface RecordIndex {
  readonly table: 'sync_record_entities' | 'sync_record_undoes'
  readonly column: 'entity' | 'undone'
}
/** Records by the subject they are filed under (migrations 0029, 0032). */
const RECORDS_BY_ENTITY: RecordIndex = { table: 'sync_record_entities', column: 'entity' }
/** Restores by the operation they undo (migration 0032). */
const RESTORES_BY_UNDONE: RecordIndex = { table: 'sync_record_undoes', column: 'undone' }

/** What applying did. */
export interface Applied {
  /** Slots whose rows or conflict group changed. */
  readonly changedSlots: number
  /** Values refused by the write gates (a credential), in words, masked. */
  readonly refused: readonly string[]
}

/** The store parts applying writes through. */
export interface ApplierParts {
  readonly writer: FactWriter
  readonly forgetting: FactForgetting
  readonly slots: FactSlots
  readonly pins: PinStore
}

/** Applies kept records to facts. */
export class SyncApplier {
  private readonly db: Database
  private readonly parts: ApplierParts

  /** @param db - the open, migrated database; @param parts - the write paths over it. */
  constructor(db: Database, parts: ApplierParts) {
    this.db = db
    this.parts = parts
  }

  /**
   * Bring the rows of some subjects to the merged outcome. Call inside a transaction.
   * @param entities - canonical subject keys; the subjects linked to them by aliases are included.
   * @param now - ISO instant for the rows' bookkeeping.
   * @returns how many slots changed, and what was refused.
   */
  apply(entities: ReadonlySet<string>, now: string): Applied {
    return whileApplying(this.db, () => {
      const { records, linked } = this.recordsOfSubjects(entities)
      const merged = mergeRecords(records)
      const canonical = canonicalSlots(records)
      const statements = statementsOf(records, canonical)
      const rows = this.rowsOf([...linked])
      const forgottenAsNamed = forgetsUnderLinkedNames(records, canonical).map((forget) =>
        claimId(forget.slot, forget.value),
      )
      const plan = planApply(merged, statements, rows, {
        canonical,
        ...(records.some((record) => record.kind === 'unalias')
          ? { everCanonical: canonicalSlots(records.filter((record) => record.kind !== 'unalias')) }
          : {}),
        renamedInto: renameTargets(records),
        renamedAway: renameSources(records),
        undoneEnds: undoneEndsOf(records, canonical),
        forgottenAsNamed,
      })
      const refused: string[] = []
      // A subject renamed by an alias is shown as the rename typed it, not as its key.
      // A name an alias since removed led to keeps the spelling that alias gave it (the aliases in force first).
      const spelled = [...merged.aliases, ...removedAliases(records)]
      const displays = new Map(
        spelled
          .filter((alias) => alias.aliasKind === 'entity')
          .reverse()
          .map((alias) => [alias.to, alias.display]),
      )
      // A forget undone on its device lifts the tombstones it left here, unless a forget in force blocks its claim,
      // before any value comes back through the writer.
      // A bare tombstone undone on its device lifts the same way. Either lifts the keys it carried (unless a record in
      // force carries them too) and, of the claims it blocked, those nothing in force blocks.
      const blocked = new Set([...merged.tombstones, ...forgottenAsNamed])
      const unblocked = (claim: Pick<Statement, 'slot' | 'value'>) => !blocked.has(claimId(claim.slot, claim.value))
      liftUndoneForgets(
        this.db,
        [...undoneForgets(records), ...undoneBareTombstones(records)].map((undone) => ({
          ...undone,
          claims: undone.claims.filter(unblocked),
        })),
        new Set([
          ...merged.storeTombstones.map((key) => `${key.kind}:${key.key}`),
          ...[...blocked].map(
            (claim) => `claim:${claimKeyOf(...(JSON.parse(claim) as [string, string, string, string]))}`,
          ),
        ]),
      )
      // A forgotten claim stays blocked under every name an alias links to the forget's, first: a store that applied
      // the forget while such a name was in force holds that tombstone, so a trace of the claim is refused there as here.
      for (const { slot, value } of forgetsUnderLinkedNames(records, canonical))
        this.keepTombstone('claim', claimKeyOf(slot.entity, slot.predicate, slot.qualifiers, value), now)
      // An alias out of force (removed, undone, taken back) goes first: no row is written through it.
      this.dropAliasesOutOfForce(records, merged.aliases)
      // Rows renamed away move under the names in force before any slot's steps, as the rename moved them where it
      // was made; a slot they leave keeps no open conflict group.
      const left = new Set<string>()
      for (const relocation of plan.relocations) left.add(this.relocate(relocation, spelled, now))
      for (const slotKey of left) this.settleGroup(slotKey, false, now)
      let changedSlots = left.size
      for (const slot of plan.slots) if (this.carryOut(slot, now, refused, displays)) changedSlots += 1
      this.applyAliases(merged.aliases, now)
      if (this.applyDisplays(merged.displays, linked)) changedSlots += 1
      // The keys the forgets carry, and every forgotten claim's own key: a store that never held the row blocks it too.
      const claims = merged.tombstones.map((claim) => {
        const [entity, predicate, qualifiers, value] = JSON.parse(claim) as [string, string, string, string]
        return { kind: 'claim' as const, key: claimKeyOf(entity, predicate, qualifiers, value) }
      })
      for (const key of [...merged.storeTombstones, ...claims]) this.keepTombstone(key.kind, key.key, now)
      return { changedSlots, refused }
    })
  }

  /** Keep a tombstone no row of this store carries (one already held keeps its own date). */
  private keepTombstone(kind: 'claim' | 'evidence', key: string, now: string): void {
    this.db.run(
      'INSERT OR IGNORE INTO tombstones (kind, key, fact_id, created_at) VALUES (?, ?, NULL, ?)',
      kind,
      key,
      now,
    )
  }

  /**
   * Every kept record (own and received) the merge of some subjects needs: those filed under the subjects and under
   * every subject an entity alias links to them (either way, transitively: an alias is filed under both its names),
   * those filed under '*' (a project's alias, which touches every subject), and the restores that undo any of them.
   * Read by subject through the indexes, so the cost follows the subjects at hand, not the whole log.
   * @returns the records, each once, and the subjects with those linked to them.
   */
  private recordsOfSubjects(entities: ReadonlySet<string>): { records: ChangeRecord[]; linked: Set<string> } {
    const linked = new Set(entities)
    const byOp = new Map<string, ChangeRecord>()
    for (let frontier = ['*', ...entities]; frontier.length > 0; ) {
      const next: string[] = []
      for (const record of this.recordsFiledUnder(frontier)) {
        if (byOp.has(record.op)) continue
        byOp.set(record.op, record)
        if (record.kind !== 'alias' || record.aliasKind !== 'entity') continue
        for (const name of [record.from, record.to])
          if (!linked.has(name)) {
            linked.add(name)
            next.push(name)
          }
      }
      frontier = next
    }
    const restores = this.keptRecordsIndexedBy(RESTORES_BY_UNDONE, [...byOp.keys()])
    return { records: [...byOp.values(), ...restores], linked }
  }

  /** Every kept record (own and received) filed under one of the keys. */
  private recordsFiledUnder(keys: readonly string[]): ChangeRecord[] {
    if (keys.length === 0) return []
    return this.keptRecordsIndexedBy(RECORDS_BY_ENTITY, keys)
  }

  /** Every kept record (own and received) whose op one of the keys files in an index table of the log. */
  private keptRecordsIndexedBy(index: RecordIndex, keys: readonly string[]): ChangeRecord[] {
    const list = JSON.stringify(keys)
    const ops = `SELECT op FROM ${index.table} WHERE ${index.column} IN (SELECT value FROM json_each(?))`
    return this.db
      .all(
        `SELECT record FROM sync_own_records WHERE op IN (${ops}) UNION ALL SELECT record FROM sync_received WHERE op IN (${ops})`,
        list,
        list,
      )
      .map((row) => JSON.parse(String(row['record'])) as ChangeRecord)
  }

  /** The store's live rows of the subjects, credentials left out, named the way records name values. */
  private rowsOf(entities: readonly string[]): StoredRow[] {
    return this.db
      .all(
        `SELECT ${FACT_COLUMNS}, (SELECT devices FROM sync_fact_devices d WHERE d.fact_id = facts.id) AS sync_devices
        FROM facts WHERE entity_id IN (SELECT id FROM entities WHERE entity_key IN (SELECT value FROM json_each(?)))
          AND status <> 'forgotten' AND (sensitivity IS NULL OR sensitivity <> 'credential')`,
        JSON.stringify(entities),
      )
      .map((row) => {
        const fact = toFact(row)
        return {
          id: fact.id,
          slot: slotOf(fact),
          value: canonicalValue(fact.value),
          status: fact.status,
          evidence: fact.evidence,
          pinnedAt: fact.pinnedAt,
          multi: fact.multi,
          devices: row['sync_devices'] === null ? [] : (JSON.parse(String(row['sync_devices'])) as string[]),
        }
      })
  }

  /** Carry out one slot's steps and settle its conflict group; true when anything changed. */
  private carryOut(plan: SlotPlan, now: string, refused: string[], displays: ReadonlyMap<string, string>): boolean {
    let changed = false
    for (const action of plan.actions) if (this.step(action, now, refused, displays)) changed = true
    const slotKey = slotKeyOf(plan.slot.entity, plan.slot.predicate, plan.slot.qualifiers, plan.slot.project)
    return this.settleGroup(slotKey, plan.conflict, now) || changed
  }

  private step(action: RowAction, now: string, refused: string[], displays: ReadonlyMap<string, string>): boolean {
    switch (action.kind) {
      case 'forget':
        // The plan places the slot's other rows and carryOut settles its group: the forget promotes no other side.
        return this.parts.forgetting.forgetById(action.row.id, now, false).length > 0
      case 'update': {
        const { row, target } = action
        const history = target.status !== 'active' && target.status !== 'conflict'
        if (row.status !== target.status)
          this.db.run(
            `UPDATE facts SET status = ?, multi = coalesce(?, multi), valid_to = ${history ? `coalesce(valid_to, ${INSTANT})` : 'NULL'},
              revision = revision + 1, updated_at = ${INSTANT} WHERE id = ?`,
            target.status,
            target.multi === undefined ? null : target.multi ? 1 : 0,
            ...(history ? [now] : []),
            now,
            row.id,
          )
        this.dress(row.id, target, now)
        return true
      }
      case 'insert':
        return this.insert(action, now, refused, displays)
    }
  }

  /** Insert a row from a record, through the writer and the same gates as a local write. */
  private insert(
    { slot, row, target, asNamed }: Extract<RowAction, { kind: 'insert' }>,
    now: string,
    refused: string[],
    displays: ReadonlyMap<string, string>,
  ): boolean {
    const current = target.status === 'active' || target.status === 'conflict'
    // A value stated under a name since renamed lands under the name in force, as the rename spelled it (its own
    // spelling otherwise).
    const renamed = !asNamed
    const display = displays.get(slot.entity)
    const inForce = display !== undefined && canonicalEntity(display) === slot.entity ? display : slot.entity
    const subject = renamed && canonicalEntity(row.subject) !== slot.entity ? inForce : row.subject
    const property = renamed && canonicalPredicate(row.property) !== slot.predicate ? slot.predicate : row.property
    const rowProject = row.scope === undefined ? null : projectKeyOfScope(row.scope)
    const projectKey = renamed ? slot.project : rowProject
    const scope = projectKey === rowProject ? row.scope : projectKey === null ? undefined : `project:${projectKey}`
    const prepared = prepareWrite(
      {
        subject,
        property,
        value: row.value,
        qualifiers: row.qualifiers,
        cues: row.cues,
        scope,
        ...(projectKey === null
          ? {}
          : {
              project: {
                key: projectKey,
                name: (projectKey === rowProject ? row.projectName : undefined) ?? projectNameOf(projectKey),
              },
            }),
        quote: row.quote ?? undefined,
        evidence: target.evidence ?? row.evidence ?? 'observed',
        confidence: row.confidence,
        multi: target.multi ?? row.multi,
        validFrom: row.validFrom,
        validTo:
          current && row.validTo !== undefined && row.validTo !== null && row.validTo > now ? row.validTo : undefined,
        exactOnly: true,
        origin: 'import',
      },
      now,
      { refuseCredentials: true, timeZone: 'UTC' },
    )
    if (!prepared.ok) {
      refused.push(`a synced value of "${row.subject} · ${row.property}" was not applied: ${prepared.message}`)
      return false
    }
    if (prepared.write.slotKey !== slotKeyOf(slot.entity, slot.predicate, slot.qualifiers, slot.project)) {
      refused.push(
        `a synced value of "${row.subject} · ${row.property}" was not applied: its row names another slot than its record`,
      )
      return false
    }
    // A trace under a name renamed away stays under that name; anything else lands under the names in force.
    const write = asNamed ? prepared.write : this.parts.writer.canonical(prepared.write)
    if (findTombstone(this.db, write) !== undefined) return false
    if (
      current &&
      this.db.get(
        `SELECT 1 AS held FROM facts WHERE claim_key = ${KEY} AND status IN ('active', 'scheduled', 'conflict')`,
        write.claimKey,
      ) !== undefined
    )
      return false
    const id = this.parts.writer.insertRow(write, target.status, target.multi ?? write.multi, now)
    if (!current)
      this.db.run(`UPDATE facts SET valid_to = coalesce(${INSTANT}, valid_to) WHERE id = ?`, row.validTo ?? now, id)
    this.dress(id, target, now)
    return true
  }

  /**
   * Move a row held under a name since renamed away to the names in force, in place (a current row leaves the
   * current set; its slot's steps place it), as the device that renamed moved its own; a project's key moved takes
   * the projects table with it.
   * @returns the slot key the row left.
   */
  private relocate({ row, to }: Relocation, aliases: readonly MergedAlias[], now: string): string {
    const held = this.db.get(`SELECT ${FACT_COLUMNS} FROM facts WHERE id = ?`, row.id)
    if (held === undefined) throw new Error(`fact #${row.id} is missing`)
    const fact = toFact(held)
    const subject =
      to.entity === row.slot.entity
        ? fact.subject
        : nameInForce(
            [
              textOrNull(this.db.get('SELECT display FROM entities WHERE entity_key = ?', to.entity)?.['display']),
              aliases.find((alias) => alias.aliasKind === 'entity' && alias.to === to.entity)?.display,
            ],
            to.entity,
            canonicalEntity,
          )
    const property =
      to.predicate === row.slot.predicate
        ? fact.property
        : nameInForce(
            [aliases.find((alias) => alias.aliasKind === 'predicate' && alias.to === to.predicate)?.display],
            to.predicate,
            canonicalPredicate,
          )
    const scope = to.project === null ? fact.scope : projectScope(to.project)
    const keys = keysUnder({ ...fact, scope }, subject, property)
    this.db.run(
      'INSERT OR IGNORE INTO entities (entity_key, display, created_at) VALUES (?, ?, ?)',
      keys.entityKey,
      subject,
      now,
    )
    const entityId = Number(this.db.get('SELECT id FROM entities WHERE entity_key = ?', keys.entityKey)?.['id'])
    if (CURRENT_STATUSES.includes(fact.status))
      this.db.run(
        `UPDATE facts SET status = 'retired', valid_to = coalesce(valid_to, ${INSTANT}), conflict_group_id = NULL WHERE id = ?`,
        now,
        row.id,
      )
    relocateFact(this.db, row.id, entityId, keys, now, scope)
    if (row.slot.project !== null && to.project !== null && row.slot.project !== to.project) {
      const name = aliases.find((alias) => alias.aliasKind === 'project' && alias.to === to.project)?.display
      moveProjectRow(this.db, row.slot.project, { key: to.project, name: name ?? projectNameOf(to.project) }, now)
    }
    return fact.slotKey
  }

  /** Evidence, multi, pin and devices of a row, as its target says. */
  private dress(id: number, target: RowTarget, now: string): void {
    if (target.evidence !== undefined)
      this.db.run(
        `UPDATE facts SET evidence_rank = ?, revision = revision + 1, updated_at = ${INSTANT} WHERE id = ? AND evidence_rank <> ?`,
        evidenceRank(target.evidence),
        now,
        id,
        evidenceRank(target.evidence),
      )
    if (target.multi !== undefined) this.db.run('UPDATE facts SET multi = ? WHERE id = ?', target.multi ? 1 : 0, id)
    if (target.pinnedAt !== undefined) this.parts.pins.setPin(id, target.pinnedAt)
    if (target.devices !== undefined && target.devices.length > 0)
      this.db.run(
        `INSERT INTO sync_fact_devices (fact_id, devices) VALUES (?, ?)
        ON CONFLICT (fact_id) DO UPDATE SET devices = excluded.devices`,
        id,
        JSON.stringify(target.devices),
      )
    else if (target.status !== 'active' && target.status !== 'conflict')
      this.db.run('DELETE FROM sync_fact_devices WHERE fact_id = ?', id)
  }

  /**
   * A contested slot's current rows share one open conflict group; a slot no longer contested has none open.
   * @returns true when a group was opened, joined or closed.
   */
  private settleGroup(slotKey: string, conflict: boolean, now: string): boolean {
    const current = this.db.all(
      `SELECT id, status, conflict_group_id FROM facts WHERE slot_key = ${KEY} AND status IN ('active', 'conflict') ORDER BY id`,
      slotKey,
    )
    const open = this.db
      .all(`SELECT id FROM conflict_groups WHERE slot_key = ${KEY} AND status = 'open' ORDER BY id`, slotKey)
      .map((row) => Number(row['id']))
    const contested = conflict && current.length > 1 && current.some((row) => row['status'] === 'conflict')
    if (!contested) {
      if (open.length === 0) return false
      const active = current.find((row) => row['status'] === 'active')
      this.parts.slots.closeGroups(open, active === undefined ? 0 : Number(active['id']), now)
      return true
    }
    const groupId =
      open[0] !== undefined
        ? open[0]
        : this.db.run(
            `INSERT INTO conflict_groups (slot_key, status, opened_at) VALUES (${KEY}, 'open', ?)`,
            slotKey,
            now,
          ).lastInsertRowid
    const joining = current.filter((row) => Number(row['conflict_group_id']) !== groupId)
    for (const row of joining)
      this.db.run(
        `UPDATE facts SET conflict_group_id = ?, revision = revision + 1, updated_at = ${INSTANT} WHERE id = ?`,
        groupId,
        now,
        Number(row['id']),
      )
    return joining.length > 0
  }

  /**
   * A subject or property alias that records name but that is not in force (undone, or renamed back to its own name)
   * is no lasting alias: a store that applied it before it was taken back holds none, as one that never did.
   */
  private dropAliasesOutOfForce(records: readonly ChangeRecord[], inForce: readonly MergedAlias[]): void {
    const key = (kind: string, entity: string | null, from: string) => JSON.stringify([kind, entity ?? '', from])
    const held = new Set(inForce.map((alias) => key(alias.aliasKind, alias.entity, alias.from)))
    for (const record of records) {
      if (record.kind !== 'alias' || record.aliasKind === 'project') continue
      if (held.has(key(record.aliasKind, record.entity, record.from))) continue
      this.db.run(
        'DELETE FROM aliases WHERE kind = ? AND entity_key = ? AND alias_key = ?',
        record.aliasKind,
        record.aliasKind === 'predicate' ? (record.entity ?? '') : '',
        record.from,
      )
    }
  }

  /**
   * Names shown under another spelling of their key, as the device that renamed them shows them: a subject's name
   * (its entity and its rows that are not forgotten) and a property's (its rows of that subject), where they read
   * otherwise. Only the subjects being applied are touched.
   * @returns true when a name changed.
   */
  private applyDisplays(displays: readonly MergedDisplay[], subjects: ReadonlySet<string>): boolean {
    let changed = false
    const changes = (sql: string, ...params: (string | number)[]): boolean => this.db.run(sql, ...params).changes > 0
    for (const name of displays) {
      if (!subjects.has(name.entity)) continue
      const entityId = Number(this.db.get('SELECT id FROM entities WHERE entity_key = ?', name.entity)?.['id'] ?? 0)
      if (name.predicate === null) {
        if (canonicalEntity(name.display) !== name.entity) continue
        // An alias from the name reads as the name is spelled, whichever of the two arrived first.
        changes(
          "UPDATE aliases SET alias_text = ? WHERE kind = 'entity' AND entity_key = '' AND alias_key = ? AND alias_text <> ?",
          name.display,
          name.entity,
          name.display,
        )
        if (
          changes('UPDATE entities SET display = ? WHERE id = ? AND display <> ?', name.display, entityId, name.display)
        )
          changed = true
        if (
          changes(
            "UPDATE facts SET subject = ? WHERE entity_id = ? AND status <> 'forgotten' AND subject <> ?",
            name.display,
            entityId,
            name.display,
          )
        )
          changed = true
      } else if (
        canonicalPredicate(name.display) === name.predicate &&
        changes(
          `UPDATE facts SET property = ? WHERE entity_id = ? AND predicate_key = ? AND status <> 'forgotten'
          AND property <> ?`,
          name.display,
          entityId,
          name.predicate,
          name.display,
        )
      )
        changed = true
    }
    return changed
  }

  /** Subject and property aliases in force become the store's lasting aliases. */
  private applyAliases(aliases: ReturnType<typeof mergeRecords>['aliases'], now: string): void {
    for (const alias of aliases) {
      if (alias.aliasKind === 'project') continue
      const entityKey = alias.aliasKind === 'predicate' ? (alias.entity ?? '') : ''
      const held = this.db.get(
        'SELECT 1 AS held FROM aliases WHERE kind = ? AND entity_key = ? AND alias_key = ? AND canonical_key = ?',
        alias.aliasKind,
        entityKey,
        alias.from,
        alias.to,
      )
      if (held !== undefined) continue
      recordAlias(
        this.db,
        {
          kind: alias.aliasKind,
          entityKey,
          aliasKey: alias.from,
          // The old name as people read it, where this store knew the subject (as the renaming device did).
          aliasText:
            alias.aliasKind === 'entity'
              ? (textOrNull(
                  this.db.get('SELECT display FROM entities WHERE entity_key = ?', alias.from)?.['display'],
                ) ?? alias.from)
              : alias.from,
          canonicalKey: alias.to,
          canonicalText: alias.display,
          origin: 'rename',
        },
        now,
      )
    }
  }
}

/** The first of the readable names that reads as the key, else the key itself. */
function nameInForce(
  names: readonly (string | null | undefined)[],
  key: string,
  canonicalOf: (text: string) => string,
): string {
  return names.find((name): name is string => typeof name === 'string' && canonicalOf(name) === key) ?? key
}
