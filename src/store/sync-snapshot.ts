/**
 * SyncSnapshot: the library written as this device's records when sync is turned on (every alias in force as an
 * `alias` and every tombstone kept without a row as a bare `tombstone`, then every current value as a `write` and its
 * pin, every forgotten row as a `forget` with its tombstones; credentials left out), in slices of
 * one transaction each, so a large library never blocks the event loop for long (100k facts took 22 s in one
 * transaction on the shared test machine). `sync_snapshot` (migration 0028) holds its progress: the highest fact id
 * it covers (rows made later are recorded live as they are made), the last fact id written, and the seq of the last
 * own record before it began. Each slice commits its records and the cursor together, so a crash resumes after the
 * last committed slice and writes nothing twice; a value recorded live since the snapshot began (a write, a pin, a
 * forget of a row not yet reached) is not written again by it. History rows (superseded, retired, expired) stay local.
 */
import type { TombstoneKey } from '../sync/change-record.ts'
import type { Database } from './database.ts'
import { FACT_COLUMNS, keyColumn, toFact } from './fact-rows.ts'
import { forgetRecord, pinRecord, writeRecord, type PendingRecord, type SyncRecorder } from './sync-recorder.ts'

/** Rows read per slice at most. */
const ROWS_PER_SLICE = 500
/** How long one slice may write before it commits and hands the event loop back (ms). */
const SLICE_BUDGET_MS = 40

/** Where a snapshot stands. */
interface Progress {
  readonly throughId: number
  readonly afterId: number
  readonly startSeq: number
  readonly records: number
}

/** Writes the snapshot of the library as records, a slice per transaction. */
export class SyncSnapshot {
  private readonly db: Database
  private readonly recorder: SyncRecorder

  /**
   * @param db - the open, migrated database.
   * @param recorder - appends the records.
   */
  constructor(db: Database, recorder: SyncRecorder) {
    this.db = db
    this.recorder = recorder
  }

  /**
   * Begin a snapshot of every fact there is now, and write the aliases in force (few) and the tombstones kept without
   * a row (at most 1,000 keys a record) at once. Call in the
   * transaction that turns recording on.
   * @param now - the ISO instant the records are stamped at.
   * @returns how many alias records it wrote.
   */
  begin(now: string): number {
    const through = Number(this.db.get('SELECT coalesce(max(id), 0) AS n FROM facts')?.['n'] ?? 0)
    this.db.run(
      'INSERT OR REPLACE INTO sync_snapshot (id, through_id, after_id, start_seq, records) VALUES (1, ?, 0, ?, 0)',
      through,
      this.recorder.lastSeq(),
    )
    const aliases = this.db
      .all(
        'SELECT kind, entity_key, alias_key, canonical_key, canonical_text FROM aliases WHERE alias_key <> canonical_key ORDER BY id',
      )
      .map(
        (row): PendingRecord => ({
          body: {
            kind: 'alias',
            aliasKind: row['kind'] === 'predicate' ? 'predicate' : 'entity',
            entity: row['kind'] === 'predicate' ? String(row['entity_key']) : null,
            from: String(row['alias_key']),
            to: String(row['canonical_key']),
            display: String(row['canonical_text']),
          },
          slotKey: null,
          claimKey: null,
          sensitive: false,
          sensitiveEnds: [],
        }),
      )
    this.recorder.append(aliases, now)
    // Tombstones kept without a row (an import's of claims never held here, or kept from a sync) go as bare keys.
    const bare = this.db
      .all('SELECT kind, key FROM tombstones WHERE fact_id IS NULL ORDER BY id')
      .map(
        (row): TombstoneKey => ({ kind: row['kind'] === 'evidence' ? 'evidence' : 'claim', key: String(row['key']) }),
      )
      .filter((key) => /^[0-9a-f]{64}$/u.test(key.key))
    const mark = this.recorder.lastSeq()
    this.recorder.recordTombstones(bare, now)
    return aliases.length + (this.recorder.lastSeq() - mark)
  }

  /** Whether a snapshot is begun and not finished (a crash or a stop left it). */
  pending(): boolean {
    return this.progress() !== undefined
  }

  /**
   * Write the next slice, in its own transaction: up to a few thousand rows, stopping after about 40 ms.
   * @param now - the ISO instant the records are stamped at.
   * @returns how many records the slice wrote, and whether the snapshot is complete.
   */
  step(now: string): { readonly records: number; readonly done: boolean } {
    return this.db.ledger(() => {
      const progress = this.progress()
      if (progress === undefined) return { records: 0, done: true }
      const rows = this.db
        .all(
          `SELECT ${FACT_COLUMNS} FROM facts WHERE id > ? AND id <= ? AND status IN ('active', 'conflict', 'forgotten')
          AND (sensitivity IS NULL OR sensitivity <> 'credential') ORDER BY id LIMIT ${ROWS_PER_SLICE}`,
          progress.afterId,
          progress.throughId,
        )
        .map(toFact)
      const live = this.liveSince(
        progress.startSeq,
        rows.map((fact) => String(fact.slotKey)),
      )
      const started = performance.now()
      let pending: PendingRecord[] = []
      let records = 0
      let afterId = progress.afterId
      for (const fact of rows) {
        const claim = String(fact.claimKey)
        if (fact.status === 'forgotten') {
          if (!live.has(`forget:${claim}`)) pending.push(forgetRecord(fact))
        } else {
          if (!live.has(`write:${claim}`)) pending.push(writeRecord(fact, []))
          if (fact.pinnedAt !== null && !live.has(`pin:${claim}`)) pending.push(pinRecord(fact, fact.pinnedAt))
        }
        afterId = fact.id
        if (pending.length >= 32) {
          this.recorder.append(pending, now)
          records += pending.length
          pending = []
          if (performance.now() - started > SLICE_BUDGET_MS) break
        }
      }
      this.recorder.append(pending, now)
      records += pending.length
      const done = rows.length === 0 || (afterId === rows.at(-1)?.id && rows.length < ROWS_PER_SLICE)
      if (done) this.db.run('DELETE FROM sync_snapshot WHERE id = 1')
      else this.db.run('UPDATE sync_snapshot SET after_id = ?, records = records + ? WHERE id = 1', afterId, records)
      return { records, done }
    })
  }

  private progress(): Progress | undefined {
    const row = this.db.get('SELECT through_id, after_id, start_seq, records FROM sync_snapshot WHERE id = 1')
    if (row === undefined) return undefined
    return {
      throughId: Number(row['through_id']),
      afterId: Number(row['after_id']),
      startSeq: Number(row['start_seq']),
      records: Number(row['records']),
    }
  }

  /**
   * Kinds and claims recorded in these slots since the snapshot began, as `kind:claim` texts: live records, and the
   * snapshot's own (a claim already written once, as by a second forget of one claim, is not written again).
   */
  private liveSince(startSeq: number, slotKeys: readonly string[]): Set<string> {
    if (slotKeys.length === 0) return new Set()
    return new Set(
      this.db
        .all(
          `SELECT kind, ${keyColumn('claim_key')} FROM sync_own_records INDEXED BY sync_own_records_by_slot
          WHERE slot_key IN (SELECT unhex(value) FROM json_each(?)) AND slot_key IS NOT NULL AND seq > ?
          AND claim_key IS NOT NULL AND kind IN ('write', 'pin', 'forget')`,
          JSON.stringify([...new Set(slotKeys)]),
          startSeq,
        )
        .map((row) => `${String(row['kind'])}:${String(row['claim_key'])}`),
    )
  }
}
