/**
 * PrivacyStore: rewrites stored facts that today's privacy rules judge differently from the rules they were written
 * under (their text masked, their sensitivity and model use set, their index entries rebuilt), and masks the
 * credentials their source quotes hold. The judgement itself is the caller's, a pure function.
 */
import type { RescannedRow, StoredPrivacyRow } from '../privacy-rescan.ts'
import type { FactRef, Sensitivity } from '../types.ts'
import type { Row } from './connection.ts'
import type { Database } from './database.ts'
import { INSTANT } from './fact-rows.ts'

/** One fact the rescan rewrote, at its new revision. */
export interface RescannedFact extends FactRef {
  readonly found: RescannedRow['found']
  /** Whether the fact is current (active, scheduled or in conflict), so a card can offer to retire it. */
  readonly current: boolean
}

/** What a rescan changed. */
export interface RescanChanges {
  readonly facts: readonly RescannedFact[]
  /** Source quotes masked (of any fact). */
  readonly sources: number
}

const CURRENT = new Set(['active', 'scheduled', 'conflict'])

/** Synchronous rescans of the stored facts. */
export class PrivacyStore {
  private readonly db: Database

  /** @param db - an open, migrated database. */
  constructor(db: Database) {
    this.db = db
  }

  /**
   * Read every fact and source quote once, judge each with `rescan`, and write what changed in one transaction (a
   * memory change: it bumps the generation once when anything changed, and not at all otherwise). A rewritten fact
   * gains a revision, so a page editing it from before is refused as stale.
   * @param rescan - the row as today's rules keep it, or undefined when unchanged.
   * @param maskQuote - a source quote as today's rules keep it, given the texts its fact's rescan judged credentials.
   * @param now - ISO instant.
   * @returns the facts rewritten and how many source quotes were masked.
   */
  rescan(
    rescan: (row: StoredPrivacyRow) => RescannedRow | undefined,
    maskQuote: (quote: string, known: readonly string[]) => string,
    now: string,
  ): RescanChanges {
    const changed: { id: number; revision: number; status: string; next: RescannedRow }[] = []
    for (const row of this.db.all(
      'SELECT id, revision, status, subject, property, value, qualifiers, quote, sensitivity, model_use_allowed FROM facts',
    )) {
      const next = rescan(toStored(row))
      if (next !== undefined)
        changed.push({ id: Number(row['id']), revision: Number(row['revision']), status: String(row['status']), next })
    }
    const known = new Map(changed.map((entry) => [entry.id, entry.next.known]))
    const sources: { id: number; quote: string }[] = []
    for (const row of this.db.all('SELECT id, fact_id, quote FROM fact_sources WHERE quote IS NOT NULL')) {
      const quote = String(row['quote'])
      const masked = maskQuote(quote, known.get(Number(row['fact_id'])) ?? [])
      if (masked !== quote) sources.push({ id: Number(row['id']), quote: masked })
    }
    if (changed.length === 0 && sources.length === 0) return { facts: [], sources: 0 }
    return this.db.transaction(() => {
      const facts: RescannedFact[] = []
      for (const { id, revision, status, next } of changed) {
        const updated = this.db.run(
          `UPDATE facts SET subject = ?, property = ?, value = ?, qualifiers = ?, quote = ?, sensitivity = ?,
            model_use_allowed = ?, revision = revision + 1, updated_at = ${INSTANT} WHERE id = ? AND revision = ?`,
          next.subject,
          next.property,
          next.value,
          JSON.stringify(next.qualifiers),
          next.quote,
          next.sensitivity,
          next.modelUseAllowed ? 1 : 0,
          now,
          id,
          revision,
        )
        if (updated.changes === 0) continue
        if (status !== 'forgotten') {
          this.db.run('DELETE FROM facts_fts WHERE rowid = ?', id)
          this.db.run('INSERT INTO facts_fts (rowid, terms) VALUES (?, ?)', id, next.entries.terms)
          this.db.run('DELETE FROM fact_identifiers WHERE fact_id = ?', id)
          for (const ident of next.entries.identifiers)
            this.db.run('INSERT OR IGNORE INTO fact_identifiers (ident, fact_id) VALUES (?, ?)', ident, id)
        }
        facts.push({ factId: id, revision: revision + 1, found: next.found, current: CURRENT.has(status) })
      }
      for (const source of sources)
        this.db.run('UPDATE fact_sources SET quote = ? WHERE id = ?', source.quote, source.id)
      return { facts, sources: sources.length }
    })
  }
}

function toStored(row: Row): StoredPrivacyRow {
  return {
    subject: String(row['subject']),
    property: String(row['property']),
    value: String(row['value']),
    qualifiers: JSON.parse(String(row['qualifiers'])) as Record<string, string>,
    quote: row['quote'] === null || row['quote'] === undefined ? null : String(row['quote']),
    sensitivity:
      row['sensitivity'] === null || row['sensitivity'] === undefined
        ? null
        : (String(row['sensitivity']) as Sensitivity),
    modelUseAllowed: Number(row['model_use_allowed']) === 1,
  }
}
