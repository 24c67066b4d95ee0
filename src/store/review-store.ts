/**
 * ReviewStore: what the near-duplicate review reads and remembers. The facts a sweep may compare (current, active,
 * neither sensitive nor withheld from the model: a sensitive fact's text never leaves this file), the distinct
 * verdicts already given, and the ledger of sweeps. Verdicts and the ledger are bookkeeping outside the user's
 * memory: they go through `Database.ledger` and never bump the generation. A sweep's note (a model's error, say) is
 * masked before it is stored.
 */
import { maskCredentials } from '../text/privacy.ts'
import type { Evidence } from '../types.ts'
import { textOrNull } from './connection.ts'
import { instantText, keyColumn } from './fact-rows.ts'
import type { Database } from './database.ts'

/** The longest note a sweep keeps (why pairs were deferred): a diagnostic, masked before it is stored. */
export const NOTE_CAP = 2_000

/** Sweeps kept in the ledger; older ones are pruned as new ones arrive. */
export const SWEEP_LOG_KEEP = 500

/** A fact the sweep may compare. */
export interface ReviewFact {
  readonly id: number
  /** Canonical subject key (the entity's key): pairs never cross it. */
  readonly subjectKey: string
  readonly scope: string
  readonly subject: string
  readonly property: string
  readonly value: string
  readonly claimKey: string
  readonly revision: number
  readonly evidence: Evidence
  /**
   * When the fact was first observed: its row's `recorded_at`. A row is inserted at its first observation and that
   * column never moves, while `observed_at` moves forward with every duplicate write and fold. The earliest
   * `fact_sources.observed_at` would not do: a merge or an alias moves sources between facts, and an import stamps
   * them anew, whereas the import restores `recorded_at` from the file.
   */
  readonly firstObservedAt: string
}

/** A pair judged distinct, with what was compared. */
export interface DistinctPair {
  readonly lowFactId: number
  readonly highFactId: number
  readonly lowClaimKey: string
  readonly highClaimKey: string
}

/** One sweep, as the ledger keeps it. */
export interface SweepRecord {
  readonly trigger: 'timer' | 'asked'
  /** `deferred`: no usable model, candidates parked and nothing written. */
  readonly outcome: 'swept' | 'deferred'
  readonly budget: number
  readonly candidates: number
  /** Candidates skipped because their distinct verdict is remembered. */
  readonly remembered: number
  readonly asked: number
  readonly same: number
  readonly distinct: number
  readonly unsure: number
  /** Calls that failed or answered out of form: no answer, asked again later. */
  readonly unanswered: number
  readonly deferred: number
  readonly proposalIds: readonly number[]
  readonly model: string | null
  readonly note: string | null
  readonly startedAt: string
  readonly finishedAt: string
}

/** A ledger entry as read back. */
export interface SweepEntry extends SweepRecord {
  readonly id: number
}

/** The review's store. */
export class ReviewStore {
  private readonly db: Database

  constructor(db: Database) {
    this.db = db
  }

  /**
   * Every fact a sweep may compare, grouped by subject and scope (in that order, then by id): active, model-usable and
   * carrying no sensitivity mark.
   * @returns the facts.
   */
  candidateFacts(): ReviewFact[] {
    return this.db
      .all(
        `SELECT f.id, e.entity_key, f.scope, f.subject, f.property, f.value, ${keyColumn('f.claim_key')}, f.revision, f.evidence, f.recorded_at
        FROM facts f JOIN entities e ON e.id = f.entity_id
        WHERE f.status = 'active' AND f.model_use_allowed = 1 AND f.sensitivity IS NULL
        ORDER BY e.entity_key, f.scope, f.id`,
      )
      .map((row) => ({
        id: Number(row['id']),
        subjectKey: String(row['entity_key']),
        scope: String(row['scope']),
        subject: String(row['subject']),
        property: String(row['property']),
        value: String(row['value']),
        claimKey: String(row['claim_key']),
        revision: Number(row['revision']),
        evidence: String(row['evidence']) as Evidence,
        firstObservedAt: instantText(row['recorded_at']),
      }))
  }

  /**
   * The distinct verdicts given under one vector generation.
   * @param vectorGeneration - 0 for the lexical leg (before vectors exist).
   * @returns the remembered pairs.
   */
  distinctPairs(vectorGeneration = 0): DistinctPair[] {
    return this.db
      .all(
        'SELECT low_fact_id, high_fact_id, low_claim_key, high_claim_key FROM review_verdicts WHERE vector_generation = ?',
        vectorGeneration,
      )
      .map((row) => ({
        lowFactId: Number(row['low_fact_id']),
        highFactId: Number(row['high_fact_id']),
        lowClaimKey: String(row['low_claim_key']),
        highClaimKey: String(row['high_claim_key']),
      }))
  }

  /**
   * Remember pairs judged distinct (a pair already remembered stays as it was).
   * @param pairs - the pairs, smaller fact id first.
   * @param now - ISO instant.
   * @param vectorGeneration - the embedding generation of the verdict; 0 before vectors exist.
   */
  rememberDistinct(pairs: readonly DistinctPair[], now: string, vectorGeneration = 0): void {
    if (pairs.length === 0) return
    this.db.ledger(() => {
      for (const pair of pairs) {
        this.db.run(
          `INSERT OR IGNORE INTO review_verdicts (low_fact_id, high_fact_id, low_claim_key, high_claim_key, vector_generation, verdict, judged_at)
            VALUES (?, ?, ?, ?, ?, 'distinct', ?)`,
          pair.lowFactId,
          pair.highFactId,
          pair.lowClaimKey,
          pair.highClaimKey,
          vectorGeneration,
          now,
        )
      }
    })
  }

  /**
   * Add a sweep to the ledger and keep the last {@link SWEEP_LOG_KEEP}.
   * @param sweep - the sweep.
   * @returns its id.
   */
  recordSweep(sweep: SweepRecord): number {
    return this.db.ledger(() => {
      const { lastInsertRowid } = this.db.run(
        `INSERT INTO review_sweeps (trigger, outcome, budget, candidates, remembered, asked, same, distinct_pairs, unsure,
          unanswered, deferred, proposal_ids, model, note, started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        sweep.trigger,
        sweep.outcome,
        sweep.budget,
        sweep.candidates,
        sweep.remembered,
        sweep.asked,
        sweep.same,
        sweep.distinct,
        sweep.unsure,
        sweep.unanswered,
        sweep.deferred,
        JSON.stringify(sweep.proposalIds),
        sweep.model,
        sweep.note === null ? null : maskCredentials(sweep.note).slice(0, NOTE_CAP),
        sweep.startedAt,
        sweep.finishedAt,
      )
      this.db.run('DELETE FROM review_sweeps WHERE id <= ?', lastInsertRowid - SWEEP_LOG_KEEP)
      return lastInsertRowid
    })
  }

  /**
   * The latest sweeps, newest first.
   * @param limit - how many.
   * @returns the entries.
   */
  sweeps(limit = 20): SweepEntry[] {
    return this.db.all('SELECT * FROM review_sweeps ORDER BY id DESC LIMIT ?', limit).map((row) => ({
      id: Number(row['id']),
      trigger: String(row['trigger']) as SweepRecord['trigger'],
      outcome: String(row['outcome']) as SweepRecord['outcome'],
      budget: Number(row['budget']),
      candidates: Number(row['candidates']),
      remembered: Number(row['remembered']),
      asked: Number(row['asked']),
      same: Number(row['same']),
      distinct: Number(row['distinct_pairs']),
      unsure: Number(row['unsure']),
      unanswered: Number(row['unanswered']),
      deferred: Number(row['deferred']),
      proposalIds: (JSON.parse(String(row['proposal_ids'])) as unknown[]).map(Number),
      model: textOrNull(row['model']),
      note: textOrNull(row['note']),
      startedAt: String(row['started_at']),
      finishedAt: String(row['finished_at']),
    }))
  }

  /**
   * How many sweeps the ledger holds.
   * @returns the count.
   */
  sweepCount(): number {
    return Number(this.db.get('SELECT count(*) AS n FROM review_sweeps')?.['n'] ?? 0)
  }
}
