/**
 * SyncLogStore: the store side of sync (sync/sync-log-port.ts) over the tables of migration 0027. It names this device
 * (a stable id made once per store, and a readable name that follows the host name until the user sets one), hands
 * out this device's log (sensitive values left out unless the user opted in), keeps the published watermark and the
 * per-device read cursor, and keeps every record read from other devices, idempotent by operation id.
 *
 * This slice keeps received records; it does not yet apply them to facts. `receive` returns the slots the fresh
 * records touch: the next slice recomputes their merged outcome (sync/merge.ts) and brings the rows to it through
 * the store's own write paths, inside the same transaction. Until then nothing the user sees changes, so receiving
 * is bookkeeping (it does not move the generation).
 *
 * Recording own changes is turned on here too (`enableSync`, which writes the snapshot in slices; see SyncRecorder
 * and SyncSnapshot).
 */
import { hostname } from 'node:os'
import type { ChangeRecord, SlotRef } from '../sync/change-record.ts'
import { formatHlc, parseHlc, tickReceive, zeroHlc, type Hlc } from '../sync/hlc.ts'
import type { Cursor } from '../sync/sync-folder.ts'
import type { DeviceIdentity, Received, SyncLogPort } from '../sync/sync-log-port.ts'
import { textOrNull } from './connection.ts'
import type { Database } from './database.ts'
import { SyncRecorder, type RecordingStart } from './sync-recorder.ts'
import { SyncSnapshot } from './sync-snapshot.ts'

/** The next turn of the event loop. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/** What receiving did: the port's answer, and the slots the fresh records touch (the seam for applying them). */
export interface ReceivedRecords extends Received {
  /** The slots named by the fresh records (a move names both ends), without repeats. */
  readonly touched: readonly SlotRef[]
}

/** The store's sync log. */
export class SyncLogStore implements SyncLogPort {
  private readonly db: Database
  private readonly recorder: SyncRecorder
  private readonly snapshot: SyncSnapshot

  /** @param db - an open, migrated database. */
  constructor(db: Database) {
    this.db = db
    this.recorder = new SyncRecorder(db)
    this.snapshot = new SyncSnapshot(db, this.recorder)
  }

  /** This device: its stable id, and its name (the host name until the user names it). */
  device(): DeviceIdentity {
    const row = this.db.get('SELECT device_id, name FROM sync_device WHERE id = 1')
    if (row === undefined) throw new Error('the sync device row is missing')
    return { id: String(row['device_id']), name: textOrNull(row['name']) ?? hostDeviceName() }
  }

  /**
   * Name this device, or (null) let it follow the host name again.
   * @param name - 1 to 200 characters after trimming, or null.
   */
  setDeviceName(name: string | null): void {
    const trimmed = name?.trim() ?? null
    if (trimmed !== null && (trimmed.length === 0 || trimmed.length > 200))
      throw new RangeError('a device name has 1 to 200 characters')
    this.db.ledger(() => {
      this.db.run('UPDATE sync_device SET name = ? WHERE id = 1', trimmed)
    })
  }

  /** Whether own changes are being recorded. */
  recording(): boolean {
    return this.recorder.recording()
  }

  /**
   * Turn recording on (sync switched on): from now on every recorded kind of change appends its record in its own
   * transaction, and the library as it stands is written as a snapshot of records, in slices of one transaction each
   * that hand the event loop back between them (SyncSnapshot). Called again while recording is on, it finishes a
   * snapshot a crash or a stop interrupted, and otherwise writes nothing.
   * @param now - the ISO instant.
   * @param pause - awaited between slices; the next turn of the event loop by default.
   * @returns whether it turned recording on, and how many snapshot records this call wrote.
   */
  async enableSync(now: string, pause: () => Promise<void> = nextTurn): Promise<RecordingStart> {
    let records = 0
    const started = this.db.ledger(() => {
      const turnedOn = this.recorder.startRecording(now)
      if (turnedOn) records += this.snapshot.begin(now)
      return turnedOn
    })
    for (;;) {
      const slice = this.snapshot.step(now)
      records += slice.records
      if (slice.done) return { started, records }
      await pause()
    }
  }

  /** Whether the snapshot that turning sync on writes is still unfinished (call `enableSync` to finish it). */
  snapshotPending(): boolean {
    return this.snapshot.pending()
  }

  /** Stop recording (sync switched off); the log and the received records stay. */
  disableSync(): void {
    this.recorder.stopRecording()
  }

  /**
   * Whether sensitive values (email, phone, id numbers; never credentials) may leave the machine in `ownLog`.
   * @param allowed - the user's opt-in.
   */
  setIncludeSensitive(allowed: boolean): void {
    this.db.ledger(() => {
      this.db.run('UPDATE sync_device SET include_sensitive = ? WHERE id = 1', allowed ? 1 : 0)
    })
  }

  /** This device's log in clock order; sensitive records and ends left out unless the user opted in. */
  ownLog(): readonly ChangeRecord[] {
    const include = this.db.get('SELECT include_sensitive FROM sync_device WHERE id = 1')?.['include_sensitive'] === 1
    const rows = this.db.all(
      `SELECT record, sensitive_ends FROM sync_own_records ${include ? '' : 'WHERE sensitive = 0'} ORDER BY hlc, op`,
    )
    return rows.map((row) => {
      const record = JSON.parse(String(row['record'])) as ChangeRecord
      const hidden =
        include || row['sensitive_ends'] === null ? [] : (JSON.parse(String(row['sensitive_ends'])) as string[])
      if (hidden.length === 0 || !('ends' in record)) return record
      return { ...record, ends: record.ends.filter((end) => !hidden.includes(end.value)) }
    })
  }

  /** The clock of the last own record sealed into a segment; null before the first. */
  publishedThrough(): string | null {
    return textOrNull(this.db.get('SELECT published_through FROM sync_device WHERE id = 1')?.['published_through'])
  }

  /** Remember that every own record up to `hlc` is sealed; the watermark never moves back. */
  markPublished(hlc: string): void {
    this.db.ledger(() => {
      this.db.run(
        'UPDATE sync_device SET published_through = ? WHERE id = 1 AND (published_through IS NULL OR published_through < ?)',
        hlc,
        hlc,
      )
    })
  }

  /** Per other device, the last sequence number read cleanly. */
  cursor(): Cursor {
    return Object.fromEntries(
      this.db
        .all('SELECT device, cursor FROM sync_peers WHERE cursor IS NOT NULL ORDER BY device')
        .map((row) => [String(row['device']), Number(row['cursor'])]),
    )
  }

  /**
   * Keep records of other devices and store the new cursor, in one transaction: a throw before it commits leaves
   * both as they were. Idempotent by operation id: a record already kept (or one of this device's own) adds nothing.
   * The clock folds in every fresh record's reading, and `seen` per device rises to its latest fresh record.
   * Applying the records to facts is the next slice: for now `changedSlots` is 0 and `touched` names the slots to apply.
   * @param records - validated records, in any order.
   * @param cursor - the cursor after them.
   * @returns how many were fresh, and the slots they touch.
   */
  receive(records: readonly ChangeRecord[], cursor: Cursor): ReceivedRecords {
    return this.db.ledger(() => {
      const self = this.device().id
      const touched = new Map<string, SlotRef>()
      const latest = new Map<string, string>()
      let fresh = 0
      let clock = this.clock(self)
      const wall = Date.now()
      for (const record of records) {
        if (record.device === self) continue
        const kept = this.db.run(
          'INSERT OR IGNORE INTO sync_received (op, device, hlc, record) VALUES (?, ?, ?, ?)',
          record.op,
          record.device,
          record.hlc,
          JSON.stringify(record),
        ).changes
        if (kept === 0) continue
        fresh += 1
        if ((latest.get(record.device) ?? '') < record.hlc) latest.set(record.device, record.hlc)
        const remote = parseHlc(record.hlc)
        if (remote !== undefined) clock = tickReceive(clock, remote, wall).hlc
        for (const slot of slotsOf(record)) touched.set(JSON.stringify(slot), slot)
      }
      for (const [device, hlc] of latest) {
        this.db.run(
          `INSERT INTO sync_peers (device, seen) VALUES (?, ?)
          ON CONFLICT (device) DO UPDATE SET seen = CASE WHEN seen IS NULL OR seen < excluded.seen THEN excluded.seen ELSE seen END`,
          device,
          hlc,
        )
      }
      for (const [device, seq] of Object.entries(cursor)) {
        this.db.run(
          'INSERT INTO sync_peers (device, cursor) VALUES (?, ?) ON CONFLICT (device) DO UPDATE SET cursor = excluded.cursor',
          device,
          seq,
        )
      }
      if (fresh > 0) this.db.run('UPDATE sync_device SET clock = ? WHERE id = 1', formatHlc(clock))
      return { fresh, changedSlots: 0, touched: [...touched.values()] }
    })
  }

  /** Every record kept from other devices, in application order (clock, then operation id). */
  receivedRecords(): ChangeRecord[] {
    return this.db
      .all('SELECT record FROM sync_received ORDER BY hlc, op')
      .map((row) => JSON.parse(String(row['record'])) as ChangeRecord)
  }

  private clock(self: string): Hlc {
    const text = textOrNull(this.db.get('SELECT clock FROM sync_device WHERE id = 1')?.['clock'])
    return (text === null ? undefined : parseHlc(text)) ?? zeroHlc(self)
  }
}

/** The slots a record names. */
function slotsOf(record: ChangeRecord): SlotRef[] {
  switch (record.kind) {
    case 'move':
      return [record.slot, record.to]
    case 'alias':
    case 'restore':
      return []
    default:
      return [record.slot]
  }
}

/** The host name as a device name: trimmed, at most 200 characters, `this machine` when the host has none. */
function hostDeviceName(): string {
  const name = hostname().trim().slice(0, 200)
  return name === '' ? 'this machine' : name
}
