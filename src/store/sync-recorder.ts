/**
 * SyncRecorder: appends this device's change records (sync/change-record.ts) to its log, `sync_own_records`, inside
 * the caller's transaction, so a change and its record commit together or not at all. It records nothing while
 * recording is off (`sync_device.recording_since` is NULL, as it is until sync is first turned on): a user who never
 * syncs pays one primary-key read per change and stores nothing. Turning it on (`startRecording`) marks it on and
 * leaves the snapshot of the library to `SyncSnapshot` (store/sync-snapshot.ts), written in slices.
 *
 * Kinds: a write (`recordWrite`), an ending without a new value (`recordSupersede`: expiry, retire, merge or fold
 * card, a value edit that moved the slot), a conflict settled by the user (`recordSettle`), a forget, a pin, an alias
 * (`recordAlias`: rename, merge, alias card, import, project rekey), an alias removed (`recordUnalias`), a name shown
 * under another spelling of its key (`recordDisplay`), tombstones an import kept for claims never held here
 * (`recordTombstones`), a move to another scope or project (`recordMove`), a past value put back from an export
 * (`recordPutBack`) and an undo (`recordRestore`). Records a
 * reversible edit appended are linked to it (`linkEdit`), so its undo names them.
 *
 * What is recorded: a credential never (its write, forget and pin leave no record, and a credential ended by a write
 * is left out of the write's `ends`). Other sensitive values (email, phone, id numbers) are recorded and marked, so
 * the log keeps them on this machine and `SyncLogStore.ownLog` leaves them out unless the user opted in.
 *
 * Stateless over the database: every part that changes facts may build its own.
 */
import { randomUUID } from 'node:crypto'
import { recordOf } from '../exchange/jsonl.ts'
import { projectKeyOfScope } from '../project/project-ref.ts'
import type {
  AliasChange,
  ChangeRecord,
  DisplayChange,
  EndStatus,
  FactRow,
  RecordBase,
  SlotRef,
  TombstoneKey,
  UnaliasChange,
  ValueEnd,
} from '../sync/change-record.ts'
import { formatHlc, parseHlc, tickLocal, zeroHlc, type Hlc } from '../sync/hlc.ts'
import { canonicalQualifiers, canonicalValue } from '../text/normalize.ts'
import type { Fact } from '../types.ts'
import type { Database } from './database.ts'
import { FACT_COLUMNS, KEY, toFact } from './fact-rows.ts'
import { tombstonesOfFact } from './tombstones.ts'

/** A record before the clock, operation id, device and `seen` are stamped on it. */
export type ChangeBody = DistributiveOmit<ChangeRecord, keyof RecordBase>
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

/** A value a change took out of the current set: its row and how it left. */
export interface EndedRow {
  readonly fact: Fact
  readonly as: EndStatus
}

/** What turning recording on (and writing its snapshot) did. */
export interface RecordingStart {
  /** False when recording was already on (the call only finished an interrupted snapshot, if any). */
  readonly started: boolean
  /** How many snapshot records this call wrote. */
  readonly records: number
}

/** A record to append, with what the log keeps beside it. */
export interface PendingRecord {
  readonly body: ChangeBody
  /** The slot and claim (hex keys) it names, when it names one. */
  readonly slotKey: string | null
  readonly claimKey: string | null
  /** True when it names a sensitive value: it stays on this machine unless the user opted in. */
  readonly sensitive: boolean
  /** Sensitive values its `ends` name. */
  readonly sensitiveEnds: readonly string[]
}

/** An alias as a record names it. */
export type AliasBody = Omit<AliasChange, keyof RecordBase | 'kind'>

interface Stamp {
  readonly deviceId: string
  clock: Hlc
  readonly seen: Readonly<Record<string, string>>
}

/** Databases on which other devices' records are being applied: nothing is recorded there meanwhile. */
const applying = new WeakSet<Database>()

/**
 * Run `fn` while applying other devices' records (store/sync-applier.ts): the write paths it calls record nothing, so a
 * remote change never comes back as this device's own.
 * @param db - the database being written.
 * @param fn - the work, synchronous.
 * @returns what `fn` returned.
 */
export function whileApplying<T>(db: Database, fn: () => T): T {
  if (applying.has(db)) return fn()
  applying.add(db)
  try {
    return fn()
  } finally {
    applying.delete(db)
  }
}

/** Appends own change records while recording is on. */
export class SyncRecorder {
  private readonly db: Database

  /** @param db - the open, migrated database. */
  constructor(db: Database) {
    this.db = db
  }

  /** Whether changes are being recorded (sync has been turned on), and not while other devices' records are applied. */
  recording(): boolean {
    if (applying.has(this.db)) return false
    return this.db.get('SELECT recording_since IS NOT NULL AS on_ FROM sync_device WHERE id = 1')?.['on_'] === 1
  }

  /**
   * Record a value stated in its slot: a new row, a repeat, a settle by restatement or a fold. Call inside the
   * write's transaction.
   * @param fact - the row the write left in the slot.
   * @param ends - the rows it superseded, retired or folded away.
   * @param now - the write's ISO instant.
   */
  recordWrite(fact: Fact, ends: readonly EndedRow[], now: string): void {
    if (fact.sensitivity === 'credential' || !this.recording()) return
    this.append([writeRecord(fact, ends)], now)
  }

  /**
   * Record values of one slot ended without a new value (an expiry, a retire, fold or merge card, a value edit that
   * moved to another slot). Credentials are left out; nothing is recorded when no value is left. Call inside the
   * change's transaction.
   * @param ends - the rows ended, all of one slot.
   * @param by - the row that took over (a merge or fold card's keeper), or null.
   * @param now - the change's ISO instant.
   */
  recordSupersede(ends: readonly EndedRow[], by: Fact | null, now: string): void {
    const kept = ends.filter((end) => end.fact.sensitivity !== 'credential')
    const first = kept[0]
    if (first === undefined || !this.recording()) return
    const keeper = by === null || by.sensitivity === 'credential' ? null : by
    this.append(
      [
        {
          body: { kind: 'supersede', slot: slotOf(first.fact), ends: valueEnds(kept), by: valueKeyOf(keeper) },
          slotKey: first.fact.slotKey,
          claimKey: null,
          sensitive: keeper !== null && keeper.sensitivity !== null,
          sensitiveEnds: sensitiveValues(kept),
        },
      ],
      now,
    )
  }

  /**
   * Record a conflict the user settled on a value already there: the rivals it superseded or retired. A credential
   * kept is not recorded. Call inside the settle's transaction.
   * @param keep - the row kept.
   * @param ends - the rivals.
   * @param now - the settle's ISO instant.
   */
  recordSettle(keep: Fact, ends: readonly EndedRow[], now: string): void {
    if (keep.sensitivity === 'credential' || !this.recording()) return
    const kept = ends.filter((end) => end.fact.sensitivity !== 'credential')
    this.append(
      [
        {
          body: {
            kind: 'settle',
            slot: slotOf(keep),
            keep: canonicalValue(keep.value),
            ends: valueEnds(kept),
            evidence: keep.evidence,
          },
          slotKey: keep.slotKey,
          claimKey: keep.claimKey,
          sensitive: keep.sensitivity !== null,
          sensitiveEnds: sensitiveValues(kept),
        },
      ],
      now,
    )
  }

  /**
   * Record a forgotten row with the tombstone keys the forget wrote. Call inside the forget's transaction.
   * @param fact - the row as it was.
   * @param now - the forget's ISO instant.
   */
  recordForget(fact: Fact, now: string): void {
    if (fact.sensitivity === 'credential' || !this.recording()) return
    this.append([forgetRecord(fact)], now)
  }

  /**
   * A row whose change is recorded: undefined while recording is off, for a row that is gone, and for a credential
   * (never recorded).
   * @param factId - the row.
   */
  private recordableRow(factId: number): Fact | undefined {
    if (!this.recording()) return undefined
    const row = this.db.get(`SELECT ${FACT_COLUMNS} FROM facts WHERE id = ?`, factId)
    if (row === undefined) return undefined
    const fact = toFact(row)
    return fact.sensitivity === 'credential' ? undefined : fact
  }

  /**
   * Record a pin (an instant) or an unpin (null) of a row. Call inside the pin's transaction.
   * @param factId - the row.
   * @param pinnedAt - the pin instant, or null.
   * @param now - the change's ISO instant.
   */
  recordPin(factId: number, pinnedAt: string | null, now: string): void {
    const fact = this.recordableRow(factId)
    if (fact === undefined) return
    this.append([pinRecord(fact, pinnedAt)], now)
  }

  /**
   * Bring the row in this row's unsealed `write` or `put_back` record (its latest) to the row as it now stands: an
   * import gives a row it just wrote the times, folds and pin its file states, in the same transaction, so the
   * record carries the imported row instead of a second record. A record already sealed is left as it is.
   * @param factId - the row.
   */
  refreshRow(factId: number): void {
    const fact = this.recordableRow(factId)
    if (fact === undefined) return
    this.db.run(
      `UPDATE sync_own_records SET record = json_set(record, '$.row', json(?)) WHERE seq = (
        SELECT max(seq) FROM sync_own_records INDEXED BY sync_own_records_by_slot
        WHERE slot_key = ${KEY} AND claim_key = ${KEY} AND kind IN ('write', 'put_back'))
      AND hlc > coalesce((SELECT published_through FROM sync_device WHERE id = 1), '')`,
      JSON.stringify(rowOf(fact)),
      fact.slotKey,
      fact.claimKey,
    )
  }

  /**
   * Record a lasting alias (a subject or property renamed or merged, an alias card, an imported alias, a project's
   * key changed). An alias whose old and new names are one key is not recorded. Call inside the change's transaction.
   * @param alias - kind, subject (a property alias), old key, new key and the new name as shown.
   * @param now - the change's ISO instant.
   */
  recordAlias(alias: AliasBody, now: string): void {
    if (alias.from === alias.to || !this.recording()) return
    this.append(
      [{ body: { kind: 'alias', ...alias }, slotKey: null, claimKey: null, sensitive: false, sensitiveEnds: [] }],
      now,
    )
  }

  /**
   * Record a lasting subject or property alias removed (alias-remove). Call inside the removal's transaction.
   * @param alias - kind, subject (a property alias), old key and the key it led to.
   * @param now - the change's ISO instant.
   */
  recordUnalias(alias: Omit<UnaliasChange, keyof RecordBase | 'kind'>, now: string): void {
    if (!this.recording()) return
    this.append(
      [{ body: { kind: 'unalias', ...alias }, slotKey: null, claimKey: null, sensitive: false, sensitiveEnds: [] }],
      now,
    )
  }

  /**
   * Record a subject or property shown under another spelling of the same key (a display-only rename). Call inside
   * the rename's transaction.
   * @param name - which name, its keys and the new spelling.
   * @param now - the change's ISO instant.
   */
  recordDisplay(name: Omit<DisplayChange, keyof RecordBase | 'kind'>, now: string): void {
    if (!this.recording()) return
    this.append(
      [{ body: { kind: 'display', ...name }, slotKey: null, claimKey: null, sensitive: false, sensitiveEnds: [] }],
      now,
    )
  }

  /**
   * Record tombstones kept without a row (an import's tombstones of claims this store never held), at most 1,000
   * keys a record. Call inside the import's transaction.
   * @param keys - the tombstone keys (none: nothing is recorded).
   * @param now - the change's ISO instant.
   */
  recordTombstones(keys: readonly TombstoneKey[], now: string): void {
    if (keys.length === 0 || !this.recording()) return
    const records: PendingRecord[] = []
    for (let at = 0; at < keys.length; at += 1000)
      records.push({
        body: { kind: 'tombstone', tombstones: keys.slice(at, at + 1000) },
        slotKey: null,
        claimKey: null,
        sensitive: false,
        sensitiveEnds: [],
      })
    this.append(records, now)
  }

  /**
   * Record a current row moved to another scope or project: it ends in its old slot and is stated in the new one.
   * Call inside the move's transaction.
   * @param before - the row before the move.
   * @param after - the row as moved.
   * @param now - the move's ISO instant.
   */
  recordMove(before: Fact, after: Fact, now: string): void {
    if (after.sensitivity === 'credential' || !this.recording()) return
    this.append(
      [
        {
          body: {
            kind: 'move',
            slot: slotOf(before),
            value: canonicalValue(after.value),
            to: slotOf(after),
            row: rowOf(after),
          },
          slotKey: after.slotKey,
          claimKey: after.claimKey,
          sensitive: after.sensitivity !== null,
          sensitiveEnds: [],
        },
      ],
      now,
    )
  }

  /**
   * Record a past value put back from an export, as history. Call inside the import's transaction.
   * @param fact - the history row written (superseded, retired or expired).
   * @param now - the import's ISO instant.
   */
  recordPutBack(fact: Fact, now: string): void {
    if (fact.sensitivity === 'credential' || !this.recording()) return
    if (fact.status !== 'superseded' && fact.status !== 'retired' && fact.status !== 'expired') return
    this.append(
      [
        {
          body: {
            kind: 'put_back',
            slot: slotOf(fact),
            value: canonicalValue(fact.value),
            row: rowOf(fact),
            status: fact.status,
          },
          slotKey: fact.slotKey,
          claimKey: fact.claimKey,
          sensitive: fact.sensitivity !== null,
          sensitiveEnds: [],
        },
      ],
      now,
    )
  }

  /**
   * Record an undo: the operations it takes back count as never made. Call inside the undo's transaction.
   * @param undoes - the operation ids (none: nothing is recorded).
   * @param now - the undo's ISO instant.
   */
  recordRestore(undoes: readonly string[], now: string): void {
    const ops = [...new Set(undoes)]
    if (ops.length === 0 || !this.recording()) return
    for (let at = 0; at < ops.length; at += 1000) {
      this.append(
        [
          {
            body: { kind: 'restore', undoes: ops.slice(at, at + 1000) },
            slotKey: null,
            claimKey: null,
            sensitive: false,
            sensitiveEnds: [],
          },
        ],
        now,
      )
    }
  }

  /** The seq of the last own record (0 before the first): a mark to link what a change appends after it. */
  lastSeq(): number {
    return Number(this.db.get('SELECT coalesce(max(seq), 0) AS n FROM sync_own_records')?.['n'] ?? 0)
  }

  /**
   * Link every own record appended after `afterSeq` to a reversible edit. Call inside the edit's transaction.
   * @param editId - the edit (fact_edits.id).
   * @param afterSeq - `lastSeq()` read before the edit's work.
   */
  linkEdit(editId: number, afterSeq: number): void {
    this.db.run(
      'INSERT OR IGNORE INTO sync_edit_ops (edit_id, seq) SELECT ?, seq FROM sync_own_records WHERE seq > ?',
      editId,
      afterSeq,
    )
  }

  /**
   * The operations a reversible edit appended, in log order.
   * @param editIds - the edits.
   * @returns operation ids (none for an edit made while sync was off).
   */
  opsOfEdits(editIds: readonly number[]): string[] {
    if (editIds.length === 0) return []
    return this.db
      .all(
        `SELECT r.op FROM sync_edit_ops e JOIN sync_own_records r ON r.seq = e.seq
        WHERE e.edit_id IN (SELECT value FROM json_each(?)) ORDER BY r.seq`,
        JSON.stringify(editIds),
      )
      .map((row) => String(row['op']))
  }

  /**
   * Own forget records of these claims (hex claim keys), in log order: what an undo of a forget made before sync was
   * on takes back (the snapshot recorded it as a forget).
   * @param claimKeys - the claims.
   * @returns operation ids.
   */
  forgetOpsOfClaims(claimKeys: readonly string[]): string[] {
    if (claimKeys.length === 0) return []
    return this.db
      .all(
        `SELECT op FROM sync_own_records WHERE kind = 'forget' AND lower(hex(claim_key)) IN (SELECT value FROM json_each(?)) ORDER BY seq`,
        JSON.stringify(claimKeys),
      )
      .map((row) => String(row['op']))
  }

  /**
   * Turn recording on: from now on every recorded change appends its record. The snapshot of the library is left to
   * write (SyncSnapshot). A no-op when recording is on already.
   * @param now - the ISO instant.
   * @returns true when it was off.
   */
  startRecording(now: string): boolean {
    return this.db.ledger(() => {
      if (this.recording()) return false
      this.db.run('UPDATE sync_device SET recording_since = ? WHERE id = 1', now)
      return true
    })
  }

  /** Turn recording off; the log stays (turning it on again writes a fresh snapshot on top). */
  stopRecording(): void {
    this.db.ledger(() => {
      this.db.run('UPDATE sync_device SET recording_since = NULL WHERE id = 1')
      this.db.run('DELETE FROM sync_snapshot')
    })
  }

  /**
   * Append records, stamped with rising clocks of this device. Call inside the change's transaction, recording on.
   * @param records - the records, in order.
   * @param now - the change's ISO instant.
   */
  append(records: readonly PendingRecord[], now: string): void {
    if (records.length === 0) return
    const stamp = this.stamp()
    for (const record of records) this.insert(stamp, record, now)
    this.saveClock(stamp.clock)
  }

  /** The device, its clock and what it has seen of the others, read once for one or more records. */
  private stamp(): Stamp {
    const device = this.db.get('SELECT device_id, clock FROM sync_device WHERE id = 1')
    if (device === undefined) throw new Error('the sync device row is missing')
    const deviceId = String(device['device_id'])
    const clock =
      typeof device['clock'] === 'string' ? (parseHlc(device['clock']) ?? zeroHlc(deviceId)) : zeroHlc(deviceId)
    const seen = Object.fromEntries(
      this.db
        .all('SELECT device, seen FROM sync_peers WHERE seen IS NOT NULL ORDER BY device')
        .map((row) => [String(row['device']), String(row['seen'])]),
    )
    return { deviceId, clock, seen }
  }

  private insert(stamp: Stamp, pending: PendingRecord, now: string): void {
    stamp.clock = tickLocal(stamp.clock, Date.parse(now))
    const hlc = formatHlc(stamp.clock)
    const record = {
      ...pending.body,
      op: `${stamp.deviceId}.${randomUUID()}`,
      device: stamp.deviceId,
      hlc,
      seen: stamp.seen,
    } as ChangeRecord
    this.db.run(
      `INSERT INTO sync_own_records (op, hlc, kind, slot_key, claim_key, sensitive, sensitive_ends, record)
        VALUES (?, ?, ?, ${KEY}, ${KEY}, ?, ?, ?)`,
      record.op,
      hlc,
      record.kind,
      pending.slotKey,
      pending.claimKey,
      pending.sensitive ? 1 : 0,
      pending.sensitiveEnds.length === 0 ? null : JSON.stringify(pending.sensitiveEnds),
      JSON.stringify(record),
    )
  }

  private saveClock(clock: Hlc): void {
    this.db.run('UPDATE sync_device SET clock = ? WHERE id = 1', formatHlc(clock))
  }
}

/**
 * A non-credential row stated in its slot, as a `write` record.
 * @param fact - the row.
 * @param ends - the rows the write ended (credentials left out here).
 * @returns the record to append.
 */
export function writeRecord(fact: Fact, ends: readonly EndedRow[]): PendingRecord {
  const kept = ends.filter((end) => end.fact.sensitivity !== 'credential')
  return {
    body: {
      kind: 'write',
      slot: slotOf(fact),
      value: canonicalValue(fact.value),
      row: rowOf(fact),
      ends: valueEnds(kept),
    },
    slotKey: fact.slotKey,
    claimKey: fact.claimKey,
    sensitive: fact.sensitivity !== null,
    sensitiveEnds: sensitiveValues(kept),
  }
}

/**
 * A non-credential row's pin or unpin, as a `pin` record.
 * @returns the record to append.
 */
export function pinRecord(fact: Fact, pinnedAt: string | null): PendingRecord {
  return {
    body: { kind: 'pin', slot: slotOf(fact), value: canonicalValue(fact.value), pinnedAt },
    slotKey: fact.slotKey,
    claimKey: fact.claimKey,
    sensitive: fact.sensitivity !== null,
    sensitiveEnds: [],
  }
}

/**
 * A non-credential forgotten row, with its tombstone keys, as a `forget` record.
 * @returns the record to append.
 */
export function forgetRecord(fact: Fact): PendingRecord {
  return {
    body: { kind: 'forget', slot: slotOf(fact), value: canonicalValue(fact.value), tombstones: tombstonesOfFact(fact) },
    slotKey: fact.slotKey,
    claimKey: fact.claimKey,
    sensitive: fact.sensitivity !== null,
    sensitiveEnds: [],
  }
}

function valueEnds(ends: readonly EndedRow[]): ValueEnd[] {
  return ends.map((end): ValueEnd => ({ value: canonicalValue(end.fact.value), as: end.as }))
}

function sensitiveValues(ends: readonly EndedRow[]): string[] {
  return ends.filter((end) => end.fact.sensitivity !== null).map((end) => canonicalValue(end.fact.value))
}

function valueKeyOf(fact: Fact | null): string | null {
  return fact === null ? null : canonicalValue(fact.value)
}

/**
 * A fact's slot by its canonical keys: subject, property, qualifier set and the project of a project-scoped fact.
 * @param fact - a stored fact.
 * @returns the slot reference a record names.
 */
export function slotOf(fact: Fact): SlotRef {
  return {
    entity: fact.entityKey,
    predicate: fact.predicateKey,
    qualifiers: canonicalQualifiers(fact.qualifiers),
    project: projectKeyOfScope(fact.scope),
  }
}

/** A non-credential fact's full row, in the export record format. */
function rowOf(fact: Fact): FactRow {
  return recordOf(fact) as FactRow
}
