/**
 * SyncRecorder: appends this device's change records (sync/change-record.ts) to its log, `sync_own_records`, inside
 * the caller's transaction, so a change and its record commit together or not at all. It records nothing while
 * recording is off (`sync_device.recording_since` is NULL, as it is until sync is first turned on): a user who never
 * syncs pays one primary-key read per change and stores nothing. Turning it on (`startRecording`) writes a snapshot of
 * the library as records first, so the log describes the whole library from then on.
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
import type { ChangeRecord, EndStatus, FactRow, RecordBase, SlotRef, ValueEnd } from '../sync/change-record.ts'
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

/** What turning recording on did. */
export interface RecordingStart {
  /** False when recording was already on (nothing was written). */
  readonly started: boolean
  /** How many snapshot records were written. */
  readonly records: number
}

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
    const endsKept = ends.filter((end) => end.fact.sensitivity !== 'credential')
    const sensitiveEnds = endsKept
      .filter((end) => end.fact.sensitivity !== null)
      .map((end) => canonicalValue(end.fact.value))
    const body: ChangeBody = {
      kind: 'write',
      slot: slotOf(fact),
      value: canonicalValue(fact.value),
      row: rowOf(fact),
      ends: endsKept.map((end): ValueEnd => ({ value: canonicalValue(end.fact.value), as: end.as })),
    }
    this.append(body, fact, sensitiveEnds, now)
  }

  /**
   * Record a forgotten row with the tombstone keys the forget wrote. Call inside the forget's transaction.
   * @param fact - the row as it was.
   * @param now - the forget's ISO instant.
   */
  recordForget(fact: Fact, now: string): void {
    if (fact.sensitivity === 'credential' || !this.recording()) return
    this.append(
      { kind: 'forget', slot: slotOf(fact), value: canonicalValue(fact.value), tombstones: tombstonesOfFact(fact) },
      fact,
      [],
      now,
    )
  }

  /**
   * Record a pin (an instant) or an unpin (null) of a row. Call inside the pin's transaction.
   * @param factId - the row.
   * @param pinnedAt - the pin instant, or null.
   * @param now - the change's ISO instant.
   */
  recordPin(factId: number, pinnedAt: string | null, now: string): void {
    if (!this.recording()) return
    const row = this.db.get(`SELECT ${FACT_COLUMNS} FROM facts WHERE id = ?`, factId)
    if (row === undefined) return
    const fact = toFact(row)
    if (fact.sensitivity === 'credential') return
    this.append({ kind: 'pin', slot: slotOf(fact), value: canonicalValue(fact.value), pinnedAt }, fact, [], now)
  }

  /**
   * Turn recording on, in one transaction: mark it on and write a snapshot of the library as this device's records
   * (every current value as a write, then each pin, then each forgotten row as a forget with its tombstones;
   * credentials left out). A no-op when recording is on already.
   * @param now - the ISO instant.
   * @returns whether it started and how many records the snapshot wrote.
   */
  startRecording(now: string): RecordingStart {
    return this.db.ledger(() => {
      if (this.recording()) return { started: false, records: 0 }
      this.db.run('UPDATE sync_device SET recording_since = ? WHERE id = 1', now)
      const stamp = this.stamp()
      let records = 0
      const facts = this.db
        .all(`SELECT ${FACT_COLUMNS} FROM facts
          WHERE status IN ('active', 'conflict', 'forgotten') AND (sensitivity IS NULL OR sensitivity <> 'credential') ORDER BY id`)
        .map(toFact)
      const current = facts.filter((fact) => fact.status !== 'forgotten')
      for (const fact of current) {
        this.insert(
          stamp,
          { kind: 'write', slot: slotOf(fact), value: canonicalValue(fact.value), row: rowOf(fact), ends: [] },
          fact,
          [],
          now,
        )
        records += 1
      }
      for (const fact of current.filter((each) => each.pinnedAt !== null)) {
        this.insert(
          stamp,
          { kind: 'pin', slot: slotOf(fact), value: canonicalValue(fact.value), pinnedAt: fact.pinnedAt },
          fact,
          [],
          now,
        )
        records += 1
      }
      for (const fact of facts.filter((each) => each.status === 'forgotten')) {
        this.insert(
          stamp,
          { kind: 'forget', slot: slotOf(fact), value: canonicalValue(fact.value), tombstones: tombstonesOfFact(fact) },
          fact,
          [],
          now,
        )
        records += 1
      }
      this.saveClock(stamp.clock)
      return { started: true, records }
    })
  }

  /** Turn recording off; the log stays (turning it on again writes a fresh snapshot on top). */
  stopRecording(): void {
    this.db.ledger(() => {
      this.db.run('UPDATE sync_device SET recording_since = NULL WHERE id = 1')
    })
  }

  private append(body: ChangeBody, fact: Fact, sensitiveEnds: readonly string[], now: string): void {
    const stamp = this.stamp()
    this.insert(stamp, body, fact, sensitiveEnds, now)
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

  private insert(stamp: Stamp, body: ChangeBody, fact: Fact, sensitiveEnds: readonly string[], now: string): void {
    stamp.clock = tickLocal(stamp.clock, Date.parse(now))
    const hlc = formatHlc(stamp.clock)
    const record = {
      ...body,
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
      fact.slotKey,
      fact.claimKey,
      fact.sensitivity === null ? 0 : 1,
      sensitiveEnds.length === 0 ? null : JSON.stringify(sensitiveEnds),
      JSON.stringify(record),
    )
  }

  private saveClock(clock: Hlc): void {
    this.db.run('UPDATE sync_device SET clock = ? WHERE id = 1', formatHlc(clock))
  }
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
