/**
 * ProjectRekeyStore: moving a project's facts from the key an older version gave it (the folder it was checked out
 * in) to its repository's key, in place and in one transaction per project. Every row of the project, history and
 * forgotten ones included, takes the keys a write under the new key would give it; its forgotten rows are tombstoned
 * again as moved rows (tombstones leave the project out, so only an old project-keyed one gains a key);
 * pending proposals aimed at the old key aim at the new one; the project keeps its readable name. Two checkouts of
 * one repository that both held facts become one project, and nothing is lost or decided silently there: a current
 * row whose claim is already current under the new key joins that row (its sources move to it, and it is retired as
 * the same statement), and a single-valued row that meets another current value in its slot stands beside it as a
 * visible conflict.
 */
import { PROJECT_SCOPE_PREFIX, projectScope } from '../project/project-ref.ts'
import { CURRENT_STATUSES, type Fact, type ProjectRef } from '../types.ts'
import type { Database } from './database.ts'
import type { FactKeys } from '../fact-input.ts'
import { FACT_COLUMNS, INSTANT, KEY, toFact } from './fact-rows.ts'
import { moveProjectRow } from './project-rows.ts'
import { tombstoneFact } from './tombstones.ts'
import { SyncRecorder } from './sync-recorder.ts'

/** Computes a stored fact's keys as a write into another scope would (`keysUnder` of fact-input.ts, scope swapped). */
export type RekeyKeysOf = (fact: Fact, scope: string) => FactKeys

/** What moving one project did. */
export interface RekeyOutcome {
  /** Rows that took the new key. */
  readonly moved: number
  /** Current rows that joined a row already holding their claim under the new key. */
  readonly joined: number
  /** Current rows that now stand as a conflict beside another value of their slot. */
  readonly contested: number
}

/** Moves of projects from folder keys to repository keys. */
export class ProjectRekeyStore {
  private readonly db: Database
  private readonly recorder: SyncRecorder

  /** @param db - an open, migrated database. */
  constructor(db: Database) {
    this.db = db
    this.recorder = new SyncRecorder(db)
  }

  /**
   * Copy the store, consistent and compacted, to a new file (the copy taken before moving keys).
   * @param path - where; the file must not exist.
   */
  copyTo(path: string): void {
    this.db.vacuumInto(path)
  }

  /**
   * Every project key the store holds facts or a name under.
   * @returns distinct keys.
   */
  projectKeys(): string[] {
    const named = this.db.all('SELECT project_key FROM projects').map((row) => String(row['project_key']))
    const scoped = this.db
      .all(
        `SELECT DISTINCT scope FROM facts INDEXED BY facts_by_scope WHERE scope <> 'global' AND substr(scope, 1, 8) = 'project:'`,
      )
      .map((row) => String(row['scope']).slice(PROJECT_SCOPE_PREFIX.length))
    return [...new Set([...named, ...scoped])]
  }

  /**
   * Move a project's facts to another key.
   * @param fromKey - the key they are stored under.
   * @param to - the project they belong to; its name is used only when the store knows no name for the old key.
   * @param keysOf - computes a row's keys in another scope.
   * @param now - ISO instant.
   * @returns what moved.
   */
  rekeyProject(fromKey: string, to: ProjectRef, keysOf: RekeyKeysOf, now: string): RekeyOutcome {
    return this.db.transaction(() => {
      const fromScope = projectScope(fromKey)
      const toScope = projectScope(to)
      const rows = this.db
        .all(
          `SELECT ${FACT_COLUMNS} FROM facts INDEXED BY facts_by_scope WHERE scope = ? AND scope <> 'global' ORDER BY id`,
          fromScope,
        )
        .map(toFact)
      let joined = 0
      let contested = 0
      for (const row of rows) {
        const keys = keysOf(row, toScope)
        if (CURRENT_STATUSES.includes(row.status)) {
          const same = this.currentWithClaim(keys.claimKey, row.id)
          if (same !== undefined) {
            this.db.run('UPDATE fact_sources SET fact_id = ? WHERE fact_id = ?', same, row.id)
            this.db.run(
              `UPDATE facts SET status = 'retired', valid_to = coalesce(valid_to, ${INSTANT}), conflict_group_id = NULL WHERE id = ?`,
              now,
              row.id,
            )
            joined += 1
          } else if (!row.multi && row.status === 'active') {
            const occupant = this.activeInSlot(keys.slotKey, row.id)
            if (occupant !== undefined) {
              const group = this.openGroup(keys.slotKey, occupant, now)
              this.db.run('UPDATE facts SET conflict_group_id = ? WHERE id = ?', group, occupant)
              this.db.run(`UPDATE facts SET status = 'conflict', conflict_group_id = ? WHERE id = ?`, group, row.id)
              contested += 1
            }
          }
        }
        this.db.run(
          `UPDATE facts SET scope = ?, slot_key = ${KEY}, claim_key = ${KEY}, revision = revision + 1, updated_at = ${INSTANT} WHERE id = ?`,
          toScope,
          keys.slotKey,
          keys.claimKey,
          now,
          row.id,
        )
        this.retombstone(row, keys, to.key, now)
      }
      moveProjectRow(this.db, fromKey, to, now)
      const fromJson = JSON.stringify(fromScope)
      this.db.run(
        `UPDATE proposals SET rows = replace(rows, ?, ?) WHERE status = 'pending' AND instr(rows, ?) > 0`,
        `"scope":${fromJson}`,
        `"scope":${JSON.stringify(toScope)}`,
        `"scope":${fromJson}`,
      )
      // The old key leads to the new one on every device: their statements under it land on the repository's key.
      this.recorder.recordAlias(
        { aliasKind: 'project', entity: null, from: fromKey, to: to.key, display: to.name },
        now,
      )
      return { moved: rows.length, joined, contested }
    })
  }

  /** A current row of another id holding a claim. */
  private currentWithClaim(claimKey: string, besides: number): number | undefined {
    const row = this.db.get(
      `SELECT id FROM facts WHERE claim_key = ${KEY} AND status IN ('active', 'scheduled', 'conflict') AND id <> ? LIMIT 1`,
      claimKey,
      besides,
    )
    return row === undefined ? undefined : Number(row['id'])
  }

  /** The active row of another id in a slot. */
  private activeInSlot(slotKey: string, besides: number): number | undefined {
    const row = this.db.get(
      `SELECT id FROM facts WHERE slot_key = ${KEY} AND status = 'active' AND id <> ? LIMIT 1`,
      slotKey,
      besides,
    )
    return row === undefined ? undefined : Number(row['id'])
  }

  /** The open conflict group of a slot (the occupant's, when it has one), or a new one. */
  private openGroup(slotKey: string, occupant: number, now: string): number {
    const held = this.db.get(
      `SELECT g.id FROM facts f JOIN conflict_groups g ON g.id = f.conflict_group_id WHERE f.id = ? AND g.status = 'open'`,
      occupant,
    )
    if (held !== undefined) return Number(held['id'])
    return this.db.run(
      `INSERT INTO conflict_groups (slot_key, status, opened_at) VALUES (${KEY}, 'open', ?)`,
      slotKey,
      now,
    ).lastInsertRowid
  }

  /**
   * A forgotten row's tombstones again as the moved row's: tombstones leave the project out, so this adds only what
   * a tombstone written before migration 0026 under the old key held (the old ones stay, blocking what they blocked).
   */
  private retombstone(row: Fact, keys: FactKeys, projectKey: string, now: string): void {
    if (this.db.get('SELECT 1 AS held FROM tombstones WHERE fact_id = ? LIMIT 1', row.id) === undefined) return
    tombstoneFact(
      this.db,
      { ...row, claimKey: keys.claimKey, slotKey: keys.slotKey, scope: projectScope(projectKey) },
      now,
    )
  }
}
