/**
 * FactForgetting: forgetting facts at the user's request — the row marked forgotten, dropped from the indexes, and
 * its claim and evidence tombstoned so no later write puts it back in any scope (store/tombstones.ts). It reads through
 * the FactReader and closes conflict groups through the FactSlots it is given.
 */
import { projectNameOf, projectScope } from '../project/project-ref.ts'
import { canonicalKeysOf } from './alias-rows.ts'
import { textOrNull } from './connection.ts'
import type { Fact, ProjectFactCount } from '../types.ts'
import { FACT_COLUMNS, INSTANT, toFact } from './fact-rows.ts'
import type { Database } from './database.ts'
import type { FactReader } from './fact-reader.ts'
import type { FactSlots } from './fact-slots.ts'
import type { SyncRecorder } from './sync-recorder.ts'
import { tombstoneFact, tombstonesOfFact } from './tombstones.ts'

/** What a subject forget did: the facts it forgot, and the projects it left alone that hold facts of the subject. */
export interface SubjectForget {
  readonly forgotten: Fact[]
  readonly untouched: readonly ProjectFactCount[]
}

/** Forgetting and tombstones. */
export class FactForgetting {
  private readonly db: Database
  private readonly reader: FactReader
  private readonly slots: FactSlots
  private readonly recorder: SyncRecorder

  /**
   * @param db - the open, migrated database.
   * @param reader - the reads over the same database.
   * @param slots - the slot transitions over the same database.
   * @param recorder - appends each forget's sync record in its transaction while sync records changes.
   */
  constructor(db: Database, reader: FactReader, slots: FactSlots, recorder: SyncRecorder) {
    this.db = db
    this.reader = reader
    this.slots = slots
    this.recorder = recorder
  }

  /**
   * Forget one fact: mark it forgotten, drop it from the indexes, tombstone its claim and evidence.
   * @param id - the fact id.
   * @param now - the current ISO instant.
   * @param settle - true (the default): a conflict group the forget leaves moot closes and its other side turns
   *   active; false: the caller settles the slot itself (sync applying, whose plan places every row).
   * @returns the forgotten facts (empty when the id names no live fact).
   */
  forgetById(id: number, now: string, settle = true): Fact[] {
    return this.db.transaction(() => {
      const row = this.db.get(`SELECT ${FACT_COLUMNS} FROM facts WHERE id = ? AND status <> 'forgotten'`, id)
      if (row === undefined) return []
      return this.forgetRows([toFact(row)], now, settle)
    })
  }

  /**
   * Forget every live fact of a subject, or of one property of it. A subject or property that is a lasting alias
   * (renamed or merged away) and holds no live fact of its own names the subject or property it stands for.
   * @param entityKey - canonical subject.
   * @param predicateKey - canonical property, or undefined for the whole subject.
   * @param now - the current ISO instant.
   * @param projectKey - undefined (the default): facts of every scope; null or a key: the global and labelled facts
   *   and that project's (null: no project's), another project's left alone.
   * @returns the forgotten facts, and per project left alone how many live facts of the subject it still holds
   *   (none when every scope was reached), most first.
   */
  forgetBySubject(
    entityKey: string,
    predicateKey: string | undefined,
    now: string,
    projectKey?: string | null,
  ): SubjectForget {
    return this.db.transaction(() => {
      const canonical = canonicalKeysOf(this.db, entityKey, predicateKey)
      const named =
        (canonical.entityKey === entityKey && canonical.predicateKey === predicateKey) ||
        this.liveOfSubject(entityKey, predicateKey, undefined).length > 0
      const keys = named ? { entityKey, predicateKey } : canonical
      const forgotten = this.forgetRows(this.liveOfSubject(keys.entityKey, keys.predicateKey, projectKey), now)
      return {
        forgotten,
        untouched:
          projectKey === undefined ? [] : this.otherProjectsOfSubject(keys.entityKey, keys.predicateKey, projectKey),
      }
    })
  }

  /** The live facts of a subject (or one property): in every scope, or global, labelled and one project's (or none). */
  private liveOfSubject(
    entityKey: string,
    predicateKey: string | undefined,
    projectKey: string | null | undefined,
  ): Fact[] {
    return this.db
      .all(
        `SELECT ${FACT_COLUMNS} FROM facts f
        WHERE entity_id = (SELECT id FROM entities WHERE entity_key = ?) AND status <> 'forgotten'
          AND (? IS NULL OR predicate_key = ?)
          AND (? = 0 OR substr(scope, 1, 8) <> 'project:' OR scope IS ?)`,
        entityKey,
        predicateKey ?? null,
        predicateKey ?? null,
        projectKey === undefined ? 0 : 1,
        projectKey === undefined || projectKey === null ? null : projectScope(projectKey),
      )
      .map(toFact)
  }

  /** Per project other than `projectKey`, how many live facts of a subject (or one property) it holds, most first. */
  private otherProjectsOfSubject(
    entityKey: string,
    predicateKey: string | undefined,
    projectKey: string | null,
  ): ProjectFactCount[] {
    return this.db
      .all(
        `SELECT substr(scope, 9) AS project_key, (SELECT name FROM projects p WHERE p.project_key = substr(f.scope, 9)) AS name, count(*) AS n
        FROM facts f
        WHERE entity_id = (SELECT id FROM entities WHERE entity_key = ?) AND status <> 'forgotten'
          AND (? IS NULL OR predicate_key = ?)
          AND substr(scope, 1, 8) = 'project:' AND scope IS NOT ?
        GROUP BY scope ORDER BY n DESC, scope`,
        entityKey,
        predicateKey ?? null,
        predicateKey ?? null,
        projectKey === null ? null : projectScope(projectKey),
      )
      .map((row) => {
        const key = String(row['project_key'])
        return { projectKey: key, projectName: textOrNull(row['name']) ?? projectNameOf(key), facts: Number(row['n']) }
      })
  }

  /**
   * The current rows, in other scopes, that hold the claim of a forgotten fact: its tombstone keeps the claim from
   * being written again, but rows already there stay until they are forgotten too.
   * @param facts - forgotten facts.
   * @returns the current rows holding one of their claims, by id.
   */
  currentWithClaimOf(facts: readonly Fact[]): Fact[] {
    const held = new Map<number, Fact>()
    for (const fact of facts) {
      const claim = tombstonesOfFact(fact)[0]?.key
      const rows = this.db
        .all(
          `SELECT ${FACT_COLUMNS} FROM facts
          WHERE entity_id = (SELECT id FROM entities WHERE entity_key = ?) AND predicate_key = ? AND status IN ('active', 'scheduled', 'conflict')`,
          fact.entityKey,
          fact.predicateKey,
        )
        .map(toFact)
      for (const row of rows) if (tombstonesOfFact(row)[0]?.key === claim) held.set(row.id, row)
    }
    return [...held.values()].sort((a, b) => a.id - b.id)
  }

  private forgetRows(facts: readonly Fact[], now: string, settle = true): Fact[] {
    for (const fact of facts) {
      this.db.run(
        `UPDATE facts SET status = 'forgotten', valid_to = coalesce(valid_to, ${INSTANT}), revision = revision + 1, updated_at = ${INSTANT}
        WHERE id = ?`,
        now,
        now,
        fact.id,
      )
      this.db.run('DELETE FROM facts_fts WHERE rowid = ?', fact.id)
      this.db.run('DELETE FROM fact_cues_fts WHERE rowid = ?', fact.id)
      this.db.run('DELETE FROM fact_identifiers WHERE fact_id = ?', fact.id)
      // Claim, evidence and the prior lines a fold kept, each without its project: the claim is refused in every scope.
      tombstoneFact(this.db, fact, now)
      this.recorder.recordForget(fact, now)
      // A conflict group left with fewer than two current rows has nothing left to settle.
      if (settle && fact.conflictGroupId !== null) this.slots.closeGroupIfMoot(fact.conflictGroupId, now)
    }
    return this.reader.getFacts(facts.map((fact) => fact.id))
  }
}
