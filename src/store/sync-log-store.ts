/**
 * SyncLogStore: the store side of sync (sync/sync-log-port.ts) over the tables of migration 0027. It names this device
 * (a stable id made once per store, and a readable name that follows the host name until the user sets one), hands
 * out this device's log (sensitive values left out unless the user opted in) from the published watermark on, keeps
 * that watermark and the count of records after it, the read cursor per sync target and device, and every record read
 * from other devices, idempotent by operation id.
 *
 * Receiving applies the fresh records in the same transaction (SyncApplier): the subjects they name, and those this
 * device's own records named since the last receive, are brought to the merged outcome (sync/merge.ts) of every
 * record kept about them, through the store's own write paths. The generation moves only when facts changed.
 *
 * Recording own changes is turned on here too (`enableSync`, which writes the snapshot in slices; see SyncRecorder
 * and SyncSnapshot).
 */
import { hostname } from 'node:os'
import { z } from 'zod'
import type { ChangeRecord, SlotRef } from '../sync/change-record.ts'
import { formatHlc, parseHlc, tickReceive, zeroHlc, type Hlc } from '../sync/hlc.ts'
import { aliasRecordsOf, linkedNames } from '../sync/linked-names.ts'
import type { Cursor } from '../sync/sync-folder.ts'
import type { DeviceIdentity, Received, SyncLogPort } from '../sync/sync-log-port.ts'
import { canonicalValue, claimKeyOf } from '../text/normalize.ts'
import { textOrNull } from './connection.ts'
import type { Database } from './database.ts'
import { FACT_COLUMNS, toFact } from './fact-rows.ts'
import { SyncApplier, type ApplierParts } from './sync-applier.ts'
import { slotOf, SyncRecorder, type RecordingStart } from './sync-recorder.ts'
import { SyncSnapshot } from './sync-snapshot.ts'

/** The next turn of the event loop. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/** Readable names of other devices, as their device.json files give them: id to name. */
const peerNamesSchema = z.record(
  z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/u),
  z
    .string()
    .transform((name) => name.trim())
    .pipe(z.string().min(1).max(200)),
)

/** What receiving did: the port's answer, and the slots the fresh records touch. */
export interface ReceivedRecords extends Received {
  /** The slots named by the fresh records (a move names both ends), without repeats. */
  readonly touched: readonly SlotRef[]
}

/** The machines a row's value came from. */
export interface FactSides {
  readonly factId: number
  readonly devices: readonly { readonly id: string; readonly name: string; readonly self: boolean }[]
}

/** The store's sync log. */
export class SyncLogStore implements SyncLogPort {
  private readonly db: Database
  private readonly recorder: SyncRecorder
  private readonly applier: SyncApplier
  private readonly snapshot: SyncSnapshot

  /** @param db - an open, migrated database; @param parts - the write paths applying goes through. */
  constructor(db: Database, parts: ApplierParts) {
    this.db = db
    this.recorder = new SyncRecorder(db)
    this.applier = new SyncApplier(db, parts)
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
    return this.ownLogAfter(null)
  }

  /**
   * This device's records with a clock after `hlc` (every one when null), in clock order, through the clock index:
   * a round reads what it seals, never what it sealed before, at most `limit` at a time (every one by default).
   * Sensitive records and ends left out as in `ownLog`.
   */
  ownLogAfter(hlc: string | null, limit = -1): readonly ChangeRecord[] {
    const include = this.includesSensitive()
    const rows = this.db.all(
      `SELECT record, sensitive_ends FROM sync_own_records WHERE hlc > ? ${include ? '' : 'AND sensitive = 0'}
      ORDER BY hlc, op LIMIT ?`,
      hlc ?? '',
      limit,
    )
    return rows.map((row) => {
      const record = JSON.parse(String(row['record'])) as ChangeRecord
      const hidden =
        include || row['sensitive_ends'] === null ? [] : (JSON.parse(String(row['sensitive_ends'])) as string[])
      if (hidden.length === 0 || !('ends' in record)) return record
      return { ...record, ends: record.ends.filter((end) => !hidden.includes(end.value)) }
    })
  }

  /** How many own records wait to be sealed: the count the store keeps (migration 0030), never the log read. */
  pending(): number {
    const row = this.db.get('SELECT plain, sensitive FROM sync_pending WHERE id = 1')
    if (row === undefined) return 0
    return Number(row['plain']) + (this.includesSensitive() ? Number(row['sensitive']) : 0)
  }

  /** False while a change commits in slices (a large import): its records may yet roll back. */
  settled(): boolean {
    return !this.db.busy
  }

  /** The clock of the last own record sealed into a segment; null before the first. */
  publishedThrough(): string | null {
    return textOrNull(this.db.get('SELECT published_through FROM sync_device WHERE id = 1')?.['published_through'])
  }

  /**
   * Remember that every own record up to `hlc` is sealed; the watermark never moves back, and the pending count is
   * counted again after it (records appended since the round read its own are still pending). While a change commits
   * in slices nothing is written: the segment's clock in the folder covers the records until the next round.
   */
  markPublished(hlc: string): void {
    if (!this.settled()) return
    this.db.ledger(() => {
      const moved = this.db.run(
        'UPDATE sync_device SET published_through = ? WHERE id = 1 AND (published_through IS NULL OR published_through < ?)',
        hlc,
        hlc,
      ).changes
      if (moved === 0) return
      this.db.run(
        `UPDATE sync_pending SET
          plain = (SELECT count(*) FROM sync_own_records WHERE hlc > ? AND sensitive = 0),
          sensitive = (SELECT count(*) FROM sync_own_records WHERE hlc > ? AND sensitive = 1)
        WHERE id = 1`,
        hlc,
        hlc,
      )
    })
  }

  /**
   * This log as the port of one sync target: the cursor it reads and keeps is that target's (a folder path or remote
   * as shown), so a target switched to is read from its own start; everything else is this store's.
   * @param target - the target as the settings show it.
   */
  forTarget(target: string): SyncLogPort {
    return {
      device: () => this.device(),
      ownLog: () => this.ownLog(),
      ownLogAfter: (hlc, limit) => this.ownLogAfter(hlc, limit),
      pending: () => this.pending(),
      settled: () => this.settled(),
      publishedThrough: () => this.publishedThrough(),
      markPublished: (hlc) => {
        this.markPublished(hlc)
      },
      cursor: () => this.cursor(target),
      receive: (records, cursor, names) => this.receive(records, cursor, names, target),
    }
  }

  /**
   * Per other device, the last sequence number read cleanly in one target.
   * @param target - the target as shown; '' for the store's own port (tests, and callers with one target).
   */
  cursor(target = ''): Cursor {
    return Object.fromEntries(
      this.db
        .all('SELECT device, seq FROM sync_cursors WHERE target = ? ORDER BY device', target)
        .map((row) => [String(row['device']), Number(row['seq'])]),
    )
  }

  /**
   * Keep records of other devices, apply them, and store the new cursor, in one transaction: a throw before it commits
   * leaves records, facts and cursor as they were. Idempotent by operation id: a record already kept (or one of this
   * device's own) adds nothing. The clock folds in every fresh record's reading, and `seen` per device rises to its
   * latest fresh record. The subjects the fresh records name (with those linked by aliases, those of the operations a
   * restore undoes, and those this device's own records named since the last receive) are brought to the merged
   * outcome of every record kept about them; the generation moves only when a slot changed.
   * @param records - validated records, in any order.
   * @param cursor - the cursor after them.
   * @param names - readable names of other devices (device.json), kept to name the machine a conflict came from.
   * @param target - the target the cursor belongs to ('' by default; see `forTarget`).
   * @param beforeCommit - runs inside the transaction once fresh records are applied, before it commits (a test's
   *   hold, round-hold.ts); a throw in it rolls the receive back.
   * @returns how many were fresh, the slots they touch, how many slots changed, and the values refused in words.
   */
  receive(
    records: readonly ChangeRecord[],
    cursor: Cursor,
    names: Readonly<Record<string, string>> = {},
    target = '',
    beforeCommit?: () => void,
  ): ReceivedRecords {
    return this.db.ledger(() => {
      const self = this.device().id
      const touched = new Map<string, SlotRef>()
      const entities = new Set<string>()
      const undone: string[] = []
      const latest = new Map<string, string>()
      const bareClaims: string[] = []
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
        for (const entity of entitiesOf(record)) entities.add(entity)
        if (record.kind === 'restore') undone.push(...record.undoes)
        if (record.kind === 'tombstone')
          for (const key of record.tombstones) if (key.kind === 'claim') bareClaims.push(key.key)
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
          `INSERT INTO sync_cursors (target, device, seq) VALUES (?, ?, ?)
          ON CONFLICT (target, device) DO UPDATE SET seq = excluded.seq`,
          target,
          device,
          seq,
        )
      }
      this.keepNames(names, self)
      if (fresh > 0) this.db.run('UPDATE sync_device SET clock = ? WHERE id = 1', formatHlc(clock))
      if (fresh === 0) return { fresh, changedSlots: 0, touched: [], refused: [] }
      for (const entity of this.entitiesToApply(undone, entities)) entities.add(entity)
      for (const entity of this.entitiesBareClaimsMayName(bareClaims)) entities.add(entity)
      const applied = this.applier.apply(entities, new Date(wall).toISOString())
      if (applied.changedSlots > 0) this.db.touchGeneration()
      beforeCommit?.()
      return { fresh, changedSlots: applied.changedSlots, touched: [...touched.values()], refused: applied.refused }
    })
  }

  /** Readable names of the other devices seen, by id. */
  peerNames(): Record<string, string> {
    return Object.fromEntries(
      this.db
        .all('SELECT device, name FROM sync_peer_names ORDER BY device')
        .map((row) => [String(row['device']), String(row['name'])]),
    )
  }

  /**
   * The machines each row's value came from, as sync applied it: per row that has them, the devices whose statements
   * of its value stand, named (this device by its own name, another by the name its device.json gives, else its id).
   * @param factIds - rows, e.g. the sides of a conflict.
   * @returns per row with devices recorded, in the order asked.
   */
  sidesOf(factIds: readonly number[]): FactSides[] {
    if (factIds.length === 0) return []
    const self = this.device()
    const names = this.peerNames()
    const held = new Map(
      this.db
        .all(
          'SELECT fact_id, devices FROM sync_fact_devices WHERE fact_id IN (SELECT value FROM json_each(?))',
          JSON.stringify(factIds),
        )
        .map((row) => [Number(row['fact_id']), JSON.parse(String(row['devices'])) as string[]]),
    )
    return factIds.flatMap((factId) => {
      const devices = held.get(factId)
      if (devices === undefined) return []
      return [
        {
          factId,
          devices: devices.map((id) => ({
            id,
            name: id === self.id ? self.name : (names[id] ?? id),
            self: id === self.id,
          })),
        },
      ]
    })
  }

  /** Keep the other devices' readable names (validated; a name that is not one is skipped). */
  private keepNames(names: Readonly<Record<string, string>>, self: string): void {
    for (const [device, name] of Object.entries(names)) {
      const parsed = peerNamesSchema.safeParse({ [device]: name })
      if (!parsed.success || device === self) continue
      this.db.run(
        'INSERT INTO sync_peer_names (device, name) VALUES (?, ?) ON CONFLICT (device) DO UPDATE SET name = excluded.name',
        device,
        parsed.data[device] as string,
      )
    }
  }

  /**
   * The subjects to apply beyond those the fresh records name: those of the operations a restore undoes, every
   * subject when a project was renamed, and those this device's own records named since the last receive (so
   * both sides of an exchange read the merged outcome). Moves the own-record mark.
   */
  private entitiesToApply(undone: readonly string[], named: ReadonlySet<string>): string[] {
    const mark = Number(this.db.get('SELECT own_seq FROM sync_apply WHERE id = 1')?.['own_seq'] ?? 0)
    const top = Number(this.db.get('SELECT max(seq) AS top FROM sync_own_records')?.['top'] ?? 0)
    const undoneRecords = this.db
      .all(
        `SELECT record FROM sync_received WHERE op IN (SELECT value FROM json_each(?))
        UNION ALL SELECT record FROM sync_own_records WHERE op IN (SELECT value FROM json_each(?))`,
        JSON.stringify(undone),
        JSON.stringify(undone),
      )
      .map((row) => JSON.parse(String(row['record'])) as ChangeRecord)
    // An undone alias touches the subjects it linked; an undone bare tombstone, those its keys may name, and those of
    // the values it blocked, which may never have had a row here.
    const undoneBare = undoneRecords.flatMap((record) =>
      record.kind === 'tombstone' ? record.tombstones.filter((key) => key.kind === 'claim').map((key) => key.key) : [],
    )
    const taken = new Set([
      ...undoneRecords.flatMap(entitiesOf),
      ...this.entitiesBareClaimsMayName(undoneBare),
      ...this.entitiesStatingClaims(undoneBare),
    ])
    const all = named.has('*') || taken.has('*')
    const rows = all
      ? this.db.all("SELECT DISTINCT entity FROM sync_record_entities WHERE entity <> '*'")
      : this.db.all(
          `SELECT DISTINCT entity FROM sync_record_entities WHERE entity <> '*' AND (
            op IN (SELECT value FROM json_each(?))
            OR op IN (SELECT op FROM sync_own_records WHERE seq > ?))`,
          JSON.stringify(undone),
          mark,
        )
    if (top > mark) this.db.run('UPDATE sync_apply SET own_seq = ? WHERE id = 1', top)
    return [...taken, ...rows.map((row) => String(row['entity']))]
  }

  /**
   * The subjects whose rows bare tombstones (their claims' hex keys, outside any project) may forget, or, undone,
   * bring back: those of the rows (forgotten ones too) holding the claims; and those of the rows whose claim outside
   * any project, under a subject or property name an alias record links to theirs, a tombstone carries: a project's
   * rows (their own key names the project) and the rows of every subject an alias record names (a row renamed there
   * was stated under a name whose claim key the tombstone may carry). Read only when bare tombstones arrive or are
   * undone (an import's): the project rows are walked on their scope index, the alias records found by kind, a walk
   * of the kept log.
   */
  private entitiesBareClaimsMayName(claimKeys: readonly string[]): string[] {
    if (claimKeys.length === 0) return []
    const holding = this.db.all(
      `SELECT DISTINCT e.entity_key FROM facts f JOIN entities e ON e.id = f.entity_id
      WHERE f.claim_key IN (SELECT unhex(value) FROM json_each(?))`,
      JSON.stringify(claimKeys),
    )
    const aliases = aliasRecordsOf(
      this.db
        .all(
          `SELECT record FROM sync_own_records WHERE kind = 'alias'
          UNION ALL SELECT record FROM sync_received WHERE json_extract(record, '$.kind') = 'alias'`,
        )
        .map((row) => JSON.parse(String(row['record'])) as ChangeRecord),
    )
    const renamed = aliases.flatMap((alias) =>
      alias.aliasKind === 'entity' ? [alias.from, alias.to] : [alias.entity ?? ''],
    )
    const candidates = new Map(
      [
        ...this.db.all(
          `SELECT ${FACT_COLUMNS} FROM facts WHERE scope <> 'global' AND scope >= 'project:' AND scope < 'project;'`,
        ),
        ...this.db.all(
          `SELECT ${FACT_COLUMNS} FROM facts
          WHERE entity_id IN (SELECT id FROM entities WHERE entity_key IN (SELECT value FROM json_each(?)))`,
          JSON.stringify([...new Set(renamed)]),
        ),
      ]
        .map(toFact)
        .map((fact) => [fact.id, fact]),
    )
    const wanted = new Set(claimKeys)
    const underLinkedNames = linkedNames(aliases)
    const named = [...candidates.values()].filter((fact) => {
      const value = canonicalValue(fact.value)
      return underLinkedNames(slotOf(fact)).some((slot) =>
        wanted.has(claimKeyOf(slot.entity, slot.predicate, slot.qualifiers, value)),
      )
    })
    return [...holding.map((row) => String(row['entity_key'])), ...named.map((fact) => fact.entityKey)]
  }

  /**
   * The subjects of the kept statements (a write, a put-back, a move's arrival) whose claim, outside any project and
   * under a name an alias record links to the one stated, one of these keys names: what an undone bare tombstone
   * brings back, though a store that read the statement with the tombstone never held a row of it. Walks the kept
   * log: asked only when a bare tombstone is undone.
   */
  private entitiesStatingClaims(claimKeys: readonly string[]): string[] {
    if (claimKeys.length === 0) return []
    const records = this.db
      .all(
        `SELECT record FROM sync_own_records WHERE kind IN ('alias', 'write', 'put_back', 'move')
        UNION ALL SELECT record FROM sync_received
        WHERE json_extract(record, '$.kind') IN ('alias', 'write', 'put_back', 'move')`,
      )
      .map((row) => JSON.parse(String(row['record'])) as ChangeRecord)
    const underLinkedNames = linkedNames(aliasRecordsOf(records))
    const wanted = new Set(claimKeys)
    return records.flatMap((record) => {
      if (record.kind !== 'write' && record.kind !== 'put_back' && record.kind !== 'move') return []
      const stated = record.kind === 'move' ? record.to : record.slot
      const named = underLinkedNames(stated).some((slot) =>
        wanted.has(claimKeyOf(slot.entity, slot.predicate, slot.qualifiers, record.value)),
      )
      return named ? [stated.entity] : []
    })
  }

  /** Every record kept from other devices, in application order (clock, then operation id). */
  receivedRecords(): ChangeRecord[] {
    return this.db
      .all('SELECT record FROM sync_received ORDER BY hlc, op')
      .map((row) => JSON.parse(String(row['record'])) as ChangeRecord)
  }

  private includesSensitive(): boolean {
    return this.db.get('SELECT include_sensitive FROM sync_device WHERE id = 1')?.['include_sensitive'] === 1
  }

  private clock(self: string): Hlc {
    const text = textOrNull(this.db.get('SELECT clock FROM sync_device WHERE id = 1')?.['clock'])
    return (text === null ? undefined : parseHlc(text)) ?? zeroHlc(self)
  }
}

/**
 * The subjects a record names: '*' for a project alias, which touches every subject; none for bare tombstones (the
 * subjects holding their claims are looked up by key).
 */
function entitiesOf(record: ChangeRecord): string[] {
  switch (record.kind) {
    case 'move':
      return [record.slot.entity, record.to.entity]
    case 'alias':
      return record.aliasKind === 'entity'
        ? [record.from, record.to]
        : record.aliasKind === 'predicate'
          ? [record.entity ?? '']
          : ['*']
    case 'unalias':
      return record.aliasKind === 'entity' ? [record.from, record.to] : [record.entity ?? '']
    case 'display':
      return [record.entity]
    case 'restore':
    case 'tombstone':
      return []
    default:
      return [record.slot.entity]
  }
}

/** The slots a record names. */
function slotsOf(record: ChangeRecord): SlotRef[] {
  switch (record.kind) {
    case 'move':
      return [record.slot, record.to]
    case 'alias':
    case 'restore':
    case 'unalias':
    case 'display':
    case 'tombstone':
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
