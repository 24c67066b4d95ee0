/**
 * FactSlots: the slot transitions the fact store's writes share — a slot's current rows, superseding, retiring,
 * closing conflict groups, promoting a scheduled row under the slot rules and closing a group left with nothing to
 * settle — reading through the FactReader it is given. Callers run them inside their own transaction.
 */
import type { Evidence, Fact, FactId, FactStatus } from '../types.ts'
import { decideWrite, type SlotRow } from '../rules/write-policy.ts'
import { numberOrNull } from './connection.ts'
import type { Database } from './database.ts'
import type { FactReader } from './fact-reader.ts'
import { INSTANT, KEY, keyColumn, placeholders } from './fact-rows.ts'

/** The slot transitions under the fact store's writes. */
export class FactSlots {
  private readonly db: Database
  private readonly reader: FactReader

  /**
   * @param db - the open, migrated database.
   * @param reader - the reads over the same database.
   */
  constructor(db: Database, reader: FactReader) {
    this.db = db
    this.reader = reader
  }

  /** The current rows of a slot (active, scheduled, conflict), in id order. */
  slotRows(slotKey: string): SlotRow[] {
    return this.db
      .all(
        `SELECT id, ${keyColumn('claim_key')}, status, evidence, multi, conflict_group_id, value, scope, sensitivity FROM facts
        WHERE slot_key = ${KEY} AND status IN ('active', 'scheduled', 'conflict') ORDER BY id`,
        slotKey,
      )
      .map((row) => ({
        id: Number(row['id']) as FactId,
        claimKey: String(row['claim_key']),
        status: row['status'] as FactStatus,
        evidence: row['evidence'] as Evidence,
        multi: Number(row['multi']) === 1,
        conflictGroupId: numberOrNull(row['conflict_group_id']),
        value: String(row['value']),
        scope: String(row['scope']),
        sensitive: row['sensitivity'] !== null,
      }))
  }

  /** Supersede rows by another; returns them as they now stand. */
  supersede(ids: readonly number[], by: number, now: string): Fact[] {
    if (ids.length === 0) return []
    this.db.run(
      `UPDATE facts SET status = 'superseded', superseded_by = ?, valid_to = ${INSTANT}, revision = revision + 1, updated_at = ${INSTANT}
      WHERE id IN (${placeholders(ids.length)})`,
      by,
      now,
      now,
      ...ids,
    )
    return this.reader.getFacts(ids)
  }

  /** Retire rows now; returns them as they now stand. */
  retire(ids: readonly number[], now: string): Fact[] {
    if (ids.length === 0) return []
    this.db.run(
      `UPDATE facts SET status = 'retired', valid_to = ${INSTANT}, revision = revision + 1, updated_at = ${INSTANT}
      WHERE id IN (${placeholders(ids.length)})`,
      now,
      now,
      ...ids,
    )
    return this.reader.getFacts(ids)
  }

  /** Close open conflict groups, settled by a row. */
  closeGroups(groupIds: readonly number[], settledBy: number, now: string): void {
    if (groupIds.length === 0) return
    this.db.run(
      `UPDATE conflict_groups SET status = 'closed', closed_at = ?, settled_by = ?
      WHERE status = 'open' AND id IN (${placeholders(groupIds.length)})`,
      now,
      settledBy,
      ...groupIds,
    )
  }

  /**
   * Put the rows a new value contests into one conflict group: the open group the slot rules named, or else a new open
   * group for the slot. The new value's own row joins it when it is written.
   * @param conflict - the group the rules named (null for none) and the rows the new value contests.
   * @param slotKey - the slot's key.
   * @param now - the instant of the write.
   * @returns the group's id.
   */
  openConflict(
    conflict: { readonly groupId: number | null; readonly against: readonly number[] },
    slotKey: string,
    now: string,
  ): number {
    const groupId =
      conflict.groupId ??
      this.db.run(`INSERT INTO conflict_groups (slot_key, status, opened_at) VALUES (${KEY}, 'open', ?)`, slotKey, now)
        .lastInsertRowid
    this.db.run(
      `UPDATE facts SET conflict_group_id = ?, revision = revision + 1, updated_at = ${INSTANT}
      WHERE id IN (${placeholders(conflict.against.length)})`,
      groupId,
      now,
      ...conflict.against,
    )
    return groupId
  }

  /** Make a scheduled row current under the slot rules, now that its start has come. */
  promote(fact: Fact, now: string): void {
    const slot = this.slotRows(fact.slotKey).filter((row) => row.id !== fact.id)
    const decision = decideWrite(
      {
        claimKey: fact.claimKey,
        evidence: fact.evidence,
        confidence: 1,
        inferred: false,
        multi: fact.multi,
        scheduled: false,
      },
      slot.filter((row) => row.status !== 'scheduled'),
    )
    if (decision.kind === 'duplicate') {
      // The scheduled value is already current: the scheduled row folds into it.
      this.db.run(
        `UPDATE facts SET status = 'superseded', superseded_by = ?, valid_to = ${INSTANT}, revision = revision + 1, updated_at = ${INSTANT} WHERE id = ?`,
        decision.factId,
        now,
        now,
        fact.id,
      )
      return
    }
    if (decision.kind !== 'insert') return
    // The replaced value ends where the new one starts, but never before it began itself.
    this.db.run(
      `UPDATE facts SET status = 'superseded', superseded_by = ?, valid_to = max(${INSTANT}, valid_from), revision = revision + 1, updated_at = ${INSTANT}
      WHERE id IN (${placeholders(decision.supersede.length)})`,
      fact.id,
      fact.validFrom,
      now,
      ...decision.supersede,
    )
    this.retire(decision.retire, now)
    let groupId: number | null = decision.joinGroup ?? null
    if (decision.conflict !== undefined) groupId = this.openConflict(decision.conflict, fact.slotKey, now)
    this.db.run(
      `UPDATE facts SET status = ?, multi = ?, conflict_group_id = ?, revision = revision + 1, updated_at = ${INSTANT} WHERE id = ?`,
      decision.status === 'scheduled' ? 'active' : decision.status,
      decision.multi ? 1 : 0,
      groupId,
      now,
      fact.id,
    )
    this.closeGroups(decision.closeGroups, fact.id, now)
  }

  /** Close a conflict group left with fewer than two current rows or no contested one. */
  closeGroupIfMoot(groupId: number, now: string): void {
    const current = Number(
      this.db.get(
        `SELECT count(*) AS n FROM facts WHERE conflict_group_id = ? AND status IN ('active', 'conflict')`,
        groupId,
      )?.['n'] ?? 0,
    )
    const conflicts = Number(
      this.db.get(`SELECT count(*) AS n FROM facts WHERE conflict_group_id = ? AND status = 'conflict'`, groupId)?.[
        'n'
      ] ?? 0,
    )
    if (current < 2 || conflicts === 0) {
      this.db.run(
        `UPDATE conflict_groups SET status = 'closed', closed_at = ? WHERE id = ? AND status = 'open'`,
        now,
        groupId,
      )
      this.db.run(
        `UPDATE facts SET status = 'active', revision = revision + 1, updated_at = ${INSTANT} WHERE conflict_group_id = ? AND status = 'conflict'
        AND NOT EXISTS (SELECT 1 FROM facts a WHERE a.slot_key = facts.slot_key AND a.status = 'active' AND a.multi = 0)`,
        now,
        groupId,
      )
    }
  }
}
