/**
 * ExchangeStore: the bulk read behind export — every non-forgotten fact, history included, in id order, inside one
 * transaction so the store id, the generation and every pass over the facts describe the same state — with the
 * tombstones of forgotten claims, and the writes an import adds to the normal write path: a restored row keeps the
 * observation and record times and the fold record of its file, a file's tombstones are kept, and the current facts
 * those tombstones name are found for the import to forget.
 */
import type { ExchangeTombstone } from '../exchange/jsonl.ts'
import type { Fact } from '../types.ts'
import type { Database } from './database.ts'
import { FACT_COLUMNS, INSTANT, KEY, toFact } from './fact-rows.ts'
import { SyncRecorder } from './sync-recorder.ts'
import { tombstonesOfFact } from './tombstones.ts'

/** Rows read per batch. */
const BATCH = 1000

/** One consistent view of the store for an export. */
export interface ExchangeSnapshot {
  readonly storeId: string
  readonly generation: number
  /** Visit every non-forgotten fact in id order; may be called more than once and sees the same rows each time. */
  eachFact(visit: (fact: Fact) => void): void
  /** Every lasting alias in id order, a property's with its subject's display name. */
  aliases(): readonly ExportedAlias[]
  /** Every tombstone, in id order. */
  tombstones(): ExchangeTombstone[]
}

/** An alias as the export writes it. */
export interface ExportedAlias {
  readonly kind: 'entity' | 'predicate'
  /** For a property alias, the display name of its subject; '' otherwise. */
  readonly subject: string
  readonly aliasText: string
  readonly canonicalText: string
}

/** Synchronous bulk reads for the JSONL exchange. */
export class ExchangeStore {
  private readonly db: Database
  private readonly recorder: SyncRecorder

  /** @param db - an open, migrated database. */
  constructor(db: Database) {
    this.db = db
    this.recorder = new SyncRecorder(db)
  }

  /**
   * Read inside one transaction. It writes nothing, so the generation does not move; other connections wait until
   * `read` returns, which keeps the snapshot consistent.
   * @param read - synchronous work over the snapshot.
   * @returns what `read` returned.
   */
  readSnapshot<T>(read: (snapshot: ExchangeSnapshot) => T): T {
    return this.db.transaction(() => {
      const snapshot: ExchangeSnapshot = {
        storeId: this.db.storeId(),
        generation: this.db.generation(),
        eachFact: (visit) => {
          let after = 0
          for (;;) {
            const batch = this.db
              .all(
                `SELECT ${FACT_COLUMNS} FROM facts WHERE id > ? AND status <> 'forgotten' ORDER BY id LIMIT ?`,
                after,
                BATCH,
              )
              .map(toFact)
            for (const fact of batch) visit(fact)
            const last = batch.at(-1)
            if (last === undefined || batch.length < BATCH) return
            after = last.id
          }
        },
        aliases: () =>
          this.db
            .all(`SELECT a.kind, coalesce(e.display, a.entity_key) AS subject, a.alias_text, a.canonical_text FROM aliases a
          LEFT JOIN entities e ON a.kind = 'predicate' AND e.entity_key = a.entity_key ORDER BY a.id`)
            .map((row) => ({
              kind: row['kind'] as ExportedAlias['kind'],
              subject: row['kind'] === 'entity' ? '' : String(row['subject']),
              aliasText: String(row['alias_text']),
              canonicalText: String(row['canonical_text']),
            })),
        tombstones: () =>
          this.db.all('SELECT kind, key, created_at FROM tombstones ORDER BY id').map((row) => ({
            tombstone: row['kind'] === 'evidence' ? 'evidence' : 'claim',
            key: String(row['key']),
            forgottenAt: String(row['created_at']),
          })),
      }
      return read(snapshot)
    })
  }

  /**
   * Give a row an import just created the observation and record times its file states. Runs inside the caller's
   * transaction; the row's revision does not move, since nobody has seen it yet.
   * @param id - the new row.
   * @param observedAt - ISO UTC instant the value was last observed.
   * @param recordedAt - ISO UTC instant the row was first recorded.
   */
  restoreTimes(id: number, observedAt: string, recordedAt: string): void {
    this.db.run(
      `UPDATE facts SET observed_at = ${INSTANT}, recorded_at = ${INSTANT} WHERE id = ?`,
      observedAt,
      recordedAt,
      id,
    )
    this.recorder.refreshRow(id)
  }

  /**
   * Give a row an import just created the fold record its file states. Runs inside the caller's transaction; the
   * revision does not move, as for the times.
   * @param id - the new row.
   * @param foldedCount - how many folds the row absorbed.
   * @param foldedFrom - its prior values, newest last (at most 20).
   */
  restoreFolds(id: number, foldedCount: number, foldedFrom: readonly string[]): void {
    this.db.run(
      'UPDATE facts SET folded_count = ?, folded_from = ? WHERE id = ?',
      foldedCount,
      JSON.stringify(foldedFrom),
      id,
    )
    this.recorder.refreshRow(id)
  }

  /**
   * Give a row an import just created the pin its file states. Runs inside the caller's transaction; the revision does
   * not move, as for the times.
   * @param id - the new row.
   * @param pinnedAt - ISO UTC instant of the pin.
   */
  restorePin(id: number, pinnedAt: string): void {
    this.db.run(`UPDATE facts SET pinned_at = ${INSTANT} WHERE id = ?`, pinnedAt, id)
    this.recorder.recordPin(id, pinnedAt, pinnedAt)
  }

  /**
   * Keep the tombstones an import file carries; one already held keeps its own date. Runs inside the caller's
   * transaction.
   * @param tombstones - the file's tombstones.
   * @returns how many were new.
   */
  restoreTombstones(tombstones: readonly ExchangeTombstone[]): number {
    let added = 0
    for (const entry of tombstones) {
      added += this.db.run(
        'INSERT OR IGNORE INTO tombstones (kind, key, fact_id, created_at) VALUES (?, ?, NULL, ?)',
        entry.tombstone,
        entry.key,
        entry.forgottenAt,
      ).changes
    }
    return added
  }

  /**
   * Keep tombstones of an import file that name no current fact here, and record for sync the ones that were new
   * (bare keys: the other machines block those claims too). Runs inside the caller's transaction.
   * @param tombstones - the file's tombstones that name no current fact.
   * @param now - the import's ISO instant.
   * @returns how many were new.
   */
  keepBareTombstones(tombstones: readonly ExchangeTombstone[], now: string): number {
    const added = tombstones.filter((entry) => this.restoreTombstones([entry]) > 0)
    this.recorder.recordTombstones(
      added.map((entry) => ({ kind: entry.tombstone, key: entry.key })),
      now,
    )
    return added.length
  }

  /**
   * The current facts (active, scheduled or conflict) whose claim one of these claim tombstones names: what keeping
   * the tombstones must forget, so that no current fact is one a write would refuse. A file's tombstone carries the
   * claim's key outside any project (as a forget writes it), while a project's row keys its claim with the project,
   * so the project rows are also walked (on the scope index, only when there are tombstones) and matched by the
   * tombstones they would leave.
   * @param claimKeys - hex claim keys.
   * @returns the facts, in id order.
   */
  currentFactsOfClaims(claimKeys: readonly string[]): Fact[] {
    const facts = claimKeys.flatMap((claimKey) =>
      this.db
        .all(
          `SELECT ${FACT_COLUMNS} FROM facts WHERE claim_key = ${KEY} AND status IN ('active', 'scheduled', 'conflict')`,
          claimKey,
        )
        .map(toFact),
    )
    if (claimKeys.length > 0) {
      const wanted = new Set(claimKeys)
      const seen = new Set(facts.map((fact) => fact.id))
      const inProjects = this.db
        .all(
          `SELECT ${FACT_COLUMNS} FROM facts WHERE scope >= 'project:' AND scope < 'project;'
          AND status IN ('active', 'scheduled', 'conflict')`,
        )
        .map(toFact)
        .filter(
          (fact) =>
            !seen.has(fact.id) && tombstonesOfFact(fact).some((key) => key.kind === 'claim' && wanted.has(key.key)),
        )
      facts.push(...inProjects)
    }
    return facts.sort((a, b) => a.id - b.id)
  }

  /**
   * How many of these tombstones the store already holds.
   * @param tombstones - a file's tombstones.
   * @returns the count.
   */
  knownTombstones(tombstones: readonly ExchangeTombstone[]): number {
    return tombstones.filter(
      (entry) =>
        this.db.get('SELECT 1 AS found FROM tombstones WHERE kind = ? AND key = ?', entry.tombstone, entry.key) !==
        undefined,
    ).length
  }
}
