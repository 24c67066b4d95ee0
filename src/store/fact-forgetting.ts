/**
 * FactForgetting: forgetting facts at the user's request — the row marked forgotten, dropped from the indexes, and
 * its claim and evidence tombstoned so no later write puts it back in any scope (store/tombstones.ts).
 */
import { projectScope } from '../project/project-ref.ts'
import { canonicalKeysOf } from './alias-rows.ts'
import type { Fact } from '../types.ts'
import { FACT_COLUMNS, INSTANT, toFact } from './fact-rows.ts'
import { FactWriter } from './fact-writer.ts'
import { tombstoneFact } from './tombstones.ts'

/** Forgetting and tombstones over FactWriter's writes. */
export class FactForgetting extends FactWriter {
  /**
   * Forget one fact: mark it forgotten, drop it from the indexes, tombstone its claim and evidence.
   * @param id - the fact id.
   * @param now - the current ISO instant.
   * @returns the forgotten facts (empty when the id names no live fact).
   */
  forgetById(id: number, now: string): Fact[] {
    return this.db.transaction(() => {
      const row = this.db.get(`SELECT ${FACT_COLUMNS} FROM facts WHERE id = ? AND status <> 'forgotten'`, id)
      if (row === undefined) return []
      return this.forgetRows([toFact(row)], now)
    })
  }

  /**
   * Forget every live fact of a subject, or of one property of it. A subject or property that is a lasting alias
   * (renamed or merged away) and holds no live fact of its own names the subject or property it stands for.
   * @param entityKey - canonical subject.
   * @param predicateKey - canonical property, or undefined for the whole subject.
   * @param now - the current ISO instant.
   * @param projectKey - undefined (the default): facts of every scope; null or a key: another project's facts are
   *   left alone (null: every project's).
   * @returns the forgotten facts.
   */
  forgetBySubject(entityKey: string, predicateKey: string | undefined, now: string, projectKey?: string | null): Fact[] {
    return this.db.transaction(() => {
      const live = (entity: string, predicate: string | undefined): Fact[] => this.db.all(
        `SELECT ${FACT_COLUMNS} FROM facts f
          WHERE entity_id = (SELECT id FROM entities WHERE entity_key = ?) AND status <> 'forgotten'
            AND (? IS NULL OR predicate_key = ?)
            AND (? = 0 OR substr(scope, 1, 8) <> 'project:' OR scope IS ?)`,
        entity, predicate ?? null, predicate ?? null,
        projectKey === undefined ? 0 : 1, projectKey === undefined || projectKey === null ? null : projectScope(projectKey)).map(toFact)
      let rows = live(entityKey, predicateKey)
      if (rows.length === 0) {
        const canonical = canonicalKeysOf(this.db, entityKey, predicateKey)
        if (canonical.entityKey !== entityKey || canonical.predicateKey !== predicateKey) rows = live(canonical.entityKey, canonical.predicateKey)
      }
      return this.forgetRows(rows, now)
    })
  }

  private forgetRows(facts: readonly Fact[], now: string): Fact[] {
    for (const fact of facts) {
      this.db.run(`UPDATE facts SET status = 'forgotten', valid_to = coalesce(valid_to, ${INSTANT}), revision = revision + 1, updated_at = ${INSTANT}
        WHERE id = ?`, now, now, fact.id)
      this.db.run('DELETE FROM facts_fts WHERE rowid = ?', fact.id)
      this.db.run('DELETE FROM fact_cues_fts WHERE rowid = ?', fact.id)
      this.db.run('DELETE FROM fact_identifiers WHERE fact_id = ?', fact.id)
      // Claim, evidence and the prior lines a fold kept, each without its project: the claim is refused in every scope.
      tombstoneFact(this.db, fact, now)
      // A conflict group left with fewer than two current rows has nothing left to settle.
      if (fact.conflictGroupId !== null) this.closeGroupIfMoot(fact.conflictGroupId, now)
    }
    return this.getFacts(facts.map((fact) => fact.id))
  }
}
