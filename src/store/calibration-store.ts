/**
 * CalibrationStore: the ledger of rerank calibrations and the facts a library calibration derives its pairs from.
 * Every run is recorded, calibrated or refused; the record in force for a rerank fingerprint is its newest calibrated
 * row, so a refused run never replaces a calibration and another fingerprint's record never applies. The ledger is
 * bookkeeping outside the user's memory: written through `Database.ledger`, it never moves the store generation.
 */
import { numberOrNull, textOrNull, type Row } from './connection.ts'
import type { Database } from './database.ts'

/** A current fact as a library calibration reads it. */
export interface CalibrationFact {
  readonly id: number
  /** The canonical subject: two facts with one entity key are of one subject. */
  readonly entityKey: string
  readonly subject: string
  readonly property: string
  /** The canonical property: two facts with one predicate key are of one property. */
  readonly predicateKey: string
  readonly qualifiers: Readonly<Record<string, string>>
  readonly value: string
}

/** Where a calibration's labeled pairs came from: the user's own, or proxy pairs derived from the library. */
export type PairSource = 'supplied' | 'library'

/** One calibration run, as recorded. */
export interface CalibrationEntry {
  readonly fingerprint: string
  readonly outcome: 'calibrated' | 'refused'
  readonly pairSource: PairSource
  readonly relevant: number
  readonly irrelevant: number
  /** Set when calibrated; a refused run may carry the threshold that came closest. */
  readonly threshold: number | null
  readonly precision: number | null
  readonly recall: number | null
  /** Why a refused run refused (`too_few_pairs`, `no_threshold`); null when calibrated. */
  readonly reason: string | null
  readonly createdAt: string
}

/** A recorded run with its id. */
export type CalibrationRecord = CalibrationEntry & { readonly id: number }

/** A calibration in force: a calibrated run, whose threshold, precision and recall are always set. */
export type Calibration = CalibrationRecord & {
  readonly outcome: 'calibrated'
  readonly threshold: number
  readonly precision: number
  readonly recall: number
}

/** Most facts {@link CalibrationStore.pairFacts} reads, whatever the caller asks. */
export const PAIR_FACTS_MAX = 2000

/** Synchronous reads and writes of the calibration ledger. */
export class CalibrationStore {
  private readonly db: Database

  /** @param db - an open, migrated database. */
  constructor(db: Database) {
    this.db = db
  }

  /**
   * Record one run; never moves the store generation.
   * @param entry - the run.
   * @returns its id.
   */
  record(entry: CalibrationEntry): number {
    return this.db.ledger(
      () =>
        this.db.run(
          `INSERT INTO rerank_calibrations (fingerprint, outcome, pair_source, relevant, irrelevant, threshold, precision, recall, reason,
        created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          entry.fingerprint,
          entry.outcome,
          entry.pairSource,
          entry.relevant,
          entry.irrelevant,
          entry.threshold,
          entry.precision,
          entry.recall,
          entry.reason,
          entry.createdAt,
        ).lastInsertRowid,
    )
  }

  /**
   * The calibration in force for a rerank fingerprint.
   * @param fingerprint - the rerank fingerprint of the configuration in force.
   * @returns its newest calibrated run, or undefined when it has none.
   */
  current(fingerprint: string): Calibration | undefined {
    const row = this.db.get(
      `SELECT * FROM rerank_calibrations WHERE fingerprint = ? AND outcome = 'calibrated' ORDER BY id DESC LIMIT 1`,
      fingerprint,
    )
    return row === undefined ? undefined : (toRecord(row) as Calibration)
  }

  /**
   * The newest run for a rerank fingerprint, whatever its outcome (what status shows as the last attempt).
   * @param fingerprint - the rerank fingerprint.
   * @returns the run, or undefined when none was recorded.
   */
  latest(fingerprint: string): CalibrationRecord | undefined {
    const row = this.db.get(
      'SELECT * FROM rerank_calibrations WHERE fingerprint = ? ORDER BY id DESC LIMIT 1',
      fingerprint,
    )
    return row === undefined ? undefined : toRecord(row)
  }

  /**
   * The facts a library calibration may derive pairs from: active, model-usable, carrying no sensitivity mark, at
   * most `limit` of them (capped at {@link PAIR_FACTS_MAX}) spread evenly over the library in id order.
   * @param limit - most facts to read.
   * @returns the facts, by id.
   */
  pairFacts(limit: number): CalibrationFact[] {
    const cap = Math.max(0, Math.min(PAIR_FACTS_MAX, Math.floor(limit)))
    return this.db
      .all(
        `SELECT id, entity_key, subject, property, predicate_key, qualifiers, value FROM (
        SELECT f.id, e.entity_key, f.subject, f.property, f.predicate_key, f.qualifiers, f.value,
          row_number() OVER (ORDER BY f.id) - 1 AS place, count(*) OVER () AS total
        FROM facts f JOIN entities e ON e.id = f.entity_id
        WHERE f.status = 'active' AND f.model_use_allowed = 1 AND f.sensitivity IS NULL)
      WHERE total <= ? OR place % ((total + ? - 1) / ?) = 0 ORDER BY id LIMIT ?`,
        cap,
        cap,
        Math.max(1, cap),
        cap,
      )
      .map(toPairFact)
  }
}

function toRecord(row: Row): CalibrationRecord {
  return {
    id: Number(row['id']),
    fingerprint: String(row['fingerprint']),
    outcome: row['outcome'] === 'calibrated' ? 'calibrated' : 'refused',
    pairSource: row['pair_source'] === 'library' ? 'library' : 'supplied',
    relevant: Number(row['relevant']),
    irrelevant: Number(row['irrelevant']),
    threshold: numberOrNull(row['threshold']),
    precision: numberOrNull(row['precision']),
    recall: numberOrNull(row['recall']),
    reason: textOrNull(row['reason']),
    createdAt: String(row['created_at']),
  }
}

function toPairFact(row: Row): CalibrationFact {
  return {
    id: Number(row['id']),
    entityKey: String(row['entity_key']),
    subject: String(row['subject']),
    property: String(row['property']),
    predicateKey: String(row['predicate_key']),
    qualifiers: JSON.parse(String(row['qualifiers'])) as Record<string, string>,
    value: String(row['value']),
  }
}
