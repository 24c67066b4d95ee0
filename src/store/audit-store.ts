/**
 * AuditStore: what the health check reads of the library, and its ledger of runs. The reads are narrow: current
 * (active) facts only, never a sensitive one (the check involves no model, but a credential, an e-mail address, a
 * phone or an id number is kept out of every review as it is kept out of model-facing recall), and only the columns
 * and rows a class can use: short values for self-restating facts, properties holding a digit for dated pipelines,
 * and the facts of the entities a split-subject pairing can involve. The ledger is bookkeeping outside the user's
 * memory: it is written through `Database.ledger`, never bumps the generation, and keeps its last
 * {@link AUDIT_LOG_KEEP} runs.
 */
import { z } from 'zod'
import type { CardBatch, FactRef, ReviewKind } from '../types.ts'
import { textOrNull, type Row } from './connection.ts'
import type { Database } from './database.ts'
import { chunks, instantText, placeholders } from './fact-rows.ts'

/** Runs kept in the ledger; older ones are pruned as new ones arrive. */
export const AUDIT_LOG_KEEP = 500

/** The longest value the self-restating class reads: a value that long says something of its own. */
export const RESTATE_VALUE_MAX = 200

/** A current fact as the classes read it. */
export interface AuditRow {
  readonly id: number
  readonly revision: number
  readonly entityKey: string
  readonly property: string
  readonly value: string
  readonly scope: string
  readonly observedAt: string
}

/** How a run was started. */
export type AuditTrigger = 'timer' | 'asked'

/** One card a run created. */
export interface AuditCard {
  readonly kind: ReviewKind
  readonly id: number
  readonly rows: number
  readonly batch: CardBatch | null
}

/** One run, as recorded. */
export interface AuditRunRecord {
  readonly trigger: AuditTrigger
  /** Rows each class found. */
  readonly found: { readonly retire: number; readonly fold: number; readonly alias: number }
  readonly cards: readonly AuditCard[]
  /** Rows a pending card already held. */
  readonly alreadyQueued: number
  /** Rows the user had rejected or struck before. */
  readonly declined: number
  readonly error: string | null
  readonly startedAt: string
  readonly finishedAt: string
  readonly durationMs: number
}

/** A recorded run with its id. */
export type AuditRun = AuditRunRecord & { readonly id: number }

const CURRENT = `f.status = 'active' AND f.sensitivity IS NULL`
const COLUMNS = 'f.id, f.revision, e.entity_key, f.property, f.value, f.scope, f.observed_at'

/** Synchronous reads for the health check and its ledger. */
export class AuditStore {
  private readonly db: Database

  /** @param db - an open, migrated database. */
  constructor(db: Database) {
    this.db = db
  }

  /** Current facts whose value is short enough to restate nothing but its property. */
  shortValued(): AuditRow[] {
    return this.db
      .all(
        `SELECT ${COLUMNS} FROM facts f JOIN entities e ON e.id = f.entity_id
      WHERE ${CURRENT} AND length(f.value) <= ? ORDER BY f.id`,
        RESTATE_VALUE_MAX,
      )
      .map(toAuditRow)
  }

  /** Current facts whose property holds a digit: the only ones whose name can carry a date. */
  digitProperties(): AuditRow[] {
    return this.db
      .all(`SELECT ${COLUMNS} FROM facts f JOIN entities e ON e.id = f.entity_id
      WHERE ${CURRENT} AND f.property GLOB '*[0-9]*' ORDER BY f.id`)
      .map(toAuditRow)
  }

  /** Entity keys holding at least one current fact, in key order. */
  currentEntityKeys(): string[] {
    return this.db
      .all(
        `SELECT DISTINCT e.entity_key FROM facts f JOIN entities e ON e.id = f.entity_id WHERE ${CURRENT} ORDER BY e.entity_key`,
      )
      .map((row) => String(row['entity_key']))
  }

  /**
   * The current facts of some entities.
   * @param entityKeys - the entities.
   * @returns their facts, by id.
   */
  currentFactsOf(entityKeys: readonly string[]): AuditRow[] {
    const rows: AuditRow[] = []
    for (const part of chunks(entityKeys, 400)) {
      rows.push(
        ...this.db
          .all(
            `SELECT ${COLUMNS} FROM facts f JOIN entities e ON e.id = f.entity_id
        WHERE ${CURRENT} AND e.entity_key IN (${placeholders(part.length)})`,
            ...part,
          )
          .map(toAuditRow),
      )
    }
    return rows.sort((a, b) => a.id - b.id)
  }

  /**
   * Every fact of an entity that was not forgotten, at its revision: what an alias of it moves.
   * @param entityKey - the entity.
   * @returns the refs, by id.
   */
  liveFactRefs(entityKey: string): FactRef[] {
    return this.db
      .all(
        `SELECT f.id, f.revision FROM facts f JOIN entities e ON e.id = f.entity_id
      WHERE e.entity_key = ? AND f.status <> 'forgotten' ORDER BY f.id`,
        entityKey,
      )
      .map((row) => ({ factId: Number(row['id']), revision: Number(row['revision']) }))
  }

  /**
   * Log a run (and prune the ledger to its last {@link AUDIT_LOG_KEEP} rows); never bumps the generation.
   * @param run - the run.
   * @returns its id.
   */
  record(run: AuditRunRecord): number {
    return this.db.ledger(() => {
      const { lastInsertRowid } = this.db.run(
        `INSERT INTO audit_runs (trigger, found_retire, found_fold, found_alias, cards, already_queued, declined, error, started_at,
          finished_at, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        run.trigger,
        run.found.retire,
        run.found.fold,
        run.found.alias,
        JSON.stringify(run.cards),
        run.alreadyQueued,
        run.declined,
        run.error,
        run.startedAt,
        run.finishedAt,
        Math.max(0, Math.round(run.durationMs)),
      )
      this.db.run('DELETE FROM audit_runs WHERE id <= ?', lastInsertRowid - AUDIT_LOG_KEEP)
      return lastInsertRowid
    })
  }

  /**
   * The latest runs, newest first.
   * @param limit - how many.
   * @returns the runs.
   */
  runs(limit: number): AuditRun[] {
    return this.db.all('SELECT * FROM audit_runs ORDER BY id DESC LIMIT ?', limit).map(toRun)
  }

  /** How many runs the ledger holds. */
  runCount(): number {
    return Number(this.db.get('SELECT count(*) AS n FROM audit_runs')?.['n'] ?? 0)
  }
}

function toAuditRow(row: Row): AuditRow {
  return {
    id: Number(row['id']),
    revision: Number(row['revision']),
    entityKey: String(row['entity_key']),
    property: String(row['property']),
    value: String(row['value']),
    scope: String(row['scope']),
    observedAt: instantText(row['observed_at']),
  }
}

/** The stored cards of a run; a row that cannot be read lists none. */
const storedCards = z.array(
  z.object({
    kind: z.enum(['merge', 'retire', 'fold', 'alias']),
    id: z.number().int().positive(),
    rows: z.number().int().min(0),
    batch: z.object({ index: z.number().int().positive(), count: z.number().int().positive() }).nullable(),
  }),
)

function parseCards(text: string): AuditCard[] {
  try {
    const parsed = storedCards.safeParse(JSON.parse(text))
    return parsed.success ? parsed.data : []
  } catch {
    return []
  }
}

function toRun(row: Row): AuditRun {
  const cards = parseCards(String(row['cards']))
  return {
    id: Number(row['id']),
    trigger: row['trigger'] === 'timer' ? 'timer' : 'asked',
    found: { retire: Number(row['found_retire']), fold: Number(row['found_fold']), alias: Number(row['found_alias']) },
    cards,
    alreadyQueued: Number(row['already_queued']),
    declined: Number(row['declined']),
    error: textOrNull(row['error']),
    startedAt: String(row['started_at']),
    finishedAt: String(row['finished_at']),
    durationMs: Number(row['duration_ms']),
  }
}
