/**
 * Simulated devices for the merge core: each keeps the records it has applied, its hybrid logical clock and what it
 * has seen of every other device, makes changes the way the store will (a write is decided by the real slot rules,
 * rules/write-policy.ts decideWrite, against the device's own merged view), and pulls other devices' logs. A seeded
 * generator drives random sessions of writes, corrections, forgets, pins, settles, renames, alias removals, display
 * renames, bare tombstones, moves, put-backs and undos across devices that sync now and then.
 */
import { decideWrite, type SlotRow } from '../../src/rules/write-policy.ts'
import type { ChangeRecord, EndStatus, FactRow, RecordBase, SlotRef, ValueEnd } from '../../src/sync/change-record.ts'
import { formatHlc, tickLocal, tickReceive, zeroHlc, parseHlc, type Hlc } from '../../src/sync/hlc.ts'
import { mergeRecords, slotId, type MergedSlot, type MergedState } from '../../src/sync/merge.ts'
import { claimKeyOf } from '../../src/text/normalize.ts'
import type { Cursor } from '../../src/sync/sync-folder.ts'
import type { DeviceIdentity, Received, SyncLogPort } from '../../src/sync/sync-log-port.ts'
import type { Evidence, FactId } from '../../src/types.ts'

/** mulberry32: a seeded generator of numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A copy of `items` in a seeded random order. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items]
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1))
    ;[copy[index], copy[other]] = [copy[other] as T, copy[index] as T]
  }
  return copy
}

/** A slot of the simulated library, under canonical keys as a store names them (no qualifiers: '{}'). */
export function slot(entity: string, predicate = 'port', project: string | null = null): SlotRef {
  return { entity, predicate, qualifiers: '{}', project }
}

/** A device with its own log; it also serves as the in-memory reference of the store's sync log port. */
export class SimDevice implements SyncLogPort {
  readonly id: string
  /** Every record this device made, in order: its log. */
  readonly log: ChangeRecord[] = []
  private readonly known = new Map<string, ChangeRecord>()
  private readonly seen: Record<string, string> = {}
  private clock: Hlc
  private count = 0
  private cached: MergedState | undefined
  private published: string | null = null
  private readCursor: Cursor = {}
  wall: number

  /** @param id - device id; @param wall - its wall clock (epoch ms), which the caller moves. */
  constructor(id: string, wall: number) {
    this.id = id
    this.clock = zeroHlc(id)
    this.wall = wall
  }

  /** The library as this device sees it. */
  state(): MergedState {
    this.cached ??= mergeRecords(this.known.values())
    return this.cached
  }

  /** Every record this device has applied. */
  records(): ChangeRecord[] {
    return [...this.known.values()]
  }

  /** The merged slot, if it holds anything here. */
  slotState(ref: SlotRef): MergedSlot | undefined {
    return this.state().slots.find((entry) => slotId(entry.slot) === slotId(ref))
  }

  /**
   * Apply the first `upTo` records of another device's log (all by default): a contiguous prefix, as a sync reads it.
   * @returns how many records were new here.
   */
  pull(other: SimDevice, upTo = other.log.length): number {
    return other.log.slice(0, upTo).filter((record) => this.accept(record)).length
  }

  /** This device, as the sync log port names it. */
  device(): DeviceIdentity {
    return { id: this.id, name: `${this.id} machine` }
  }

  /** Its own records. */
  ownLog(): readonly ChangeRecord[] {
    return this.log
  }

  /** Its own records after a clock. */
  ownLogAfter(hlc: string | null, limit?: number): readonly ChangeRecord[] {
    return this.log.filter((record) => hlc === null || record.hlc > hlc).slice(0, limit)
  }

  /** Own records after the watermark. */
  pending(): number {
    return this.ownLogAfter(this.published).length
  }

  /** A device in memory never commits in slices. */
  settled(): boolean {
    return true
  }

  /** The sync log port's watermark of sealed own records. */
  publishedThrough(): string | null {
    return this.published
  }

  /** Move the watermark. */
  markPublished(hlc: string): void {
    this.published = hlc
  }

  /** The last sequence number read cleanly per other device. */
  cursor(): Cursor {
    return this.readCursor
  }

  /** Keep records read from a sync folder, and the cursor after them. */
  receive(records: readonly ChangeRecord[], cursor: Cursor): Received {
    const before = this.state()
    const fresh = records.filter((record) => record.device !== this.id && this.accept(record)).length
    this.readCursor = cursor
    return { fresh, changedSlots: before === this.state() ? 0 : this.state().slots.length, refused: [] }
  }

  /** Apply one record of another device; false when it was known already. */
  private accept(record: ChangeRecord): boolean {
    if (this.known.has(record.op)) return false
    this.known.set(record.op, record)
    this.cached = undefined
    this.clock = tickReceive(this.clock, parseHlc(record.hlc) as Hlc, this.wall).hlc
    if ((this.seen[record.device] ?? '') < record.hlc) this.seen[record.device] = record.hlc
    return true
  }

  /** Pull another device's log both ways. */
  syncWith(other: SimDevice): void {
    this.pull(other)
    other.pull(this)
  }

  /**
   * State a value, decided by the slot rules against this device's view: the values it replaces or retires become
   * the record's ends.
   */
  write(ref: SlotRef, value: string, evidence: Evidence = 'explicit_user', multi = false): ChangeRecord {
    const here = this.slotState(ref)
    const rows: SlotRow[] = (here?.current ?? []).map((entry, index) => ({
      id: (index + 1) as FactId,
      claimKey: entry.value,
      status: entry.status,
      evidence: entry.evidence,
      multi: here?.multi ?? false,
      conflictGroupId: here?.conflict === true ? 1 : null,
      value: entry.value,
      scope: 'global',
      sensitive: false,
    }))
    const decision = decideWrite(
      { claimKey: value, evidence, confidence: 1, inferred: false, multi, scheduled: false },
      rows,
    )
    const valueOf = (id: number): string => rows.find((row) => row.id === id)?.value ?? ''
    const endsOf = (supersede: readonly number[], retire: readonly number[]): ValueEnd[] => [
      ...supersede.map((id) => ({ value: valueOf(id), as: 'superseded' as EndStatus })),
      ...retire.map((id) => ({ value: valueOf(id), as: 'retired' as EndStatus })),
    ]
    let ends: ValueEnd[] = []
    if (decision.kind === 'insert') ends = endsOf(decision.supersede, decision.retire)
    if (decision.kind === 'duplicate' && decision.settle !== undefined)
      ends = endsOf(decision.settle.supersede, decision.settle.retire)
    return this.append({ kind: 'write', slot: ref, value, row: rowOf(ref, value, evidence, multi), ends })
  }

  /** Settle a contested slot on one of its values. */
  settle(ref: SlotRef, keep: string): ChangeRecord {
    const current = this.slotState(ref)?.current ?? []
    const rivals = current.filter((entry) => entry.value !== keep)
    // As the store settles: the kept value's evidence rises to at least confirmed_user.
    const held = current.find((entry) => entry.value === keep)?.evidence ?? 'observed'
    return this.append({
      kind: 'settle',
      slot: ref,
      keep,
      ends: rivals.map((entry) => ({ value: entry.value, as: entry.status === 'active' ? 'superseded' : 'retired' })),
      evidence: held === 'explicit_user' ? held : 'confirmed_user',
    })
  }

  /** End a value without a new one (an expiry). */
  expire(ref: SlotRef, value: string): ChangeRecord {
    return this.append({ kind: 'supersede', slot: ref, ends: [{ value, as: 'expired' }], by: null })
  }

  /** Forget a value everywhere. */
  forget(ref: SlotRef, value: string): ChangeRecord {
    return this.append({
      kind: 'forget',
      slot: ref,
      value,
      tombstones: [{ kind: 'claim', key: hex(`${slotId(ref)}${value}`) }],
    })
  }

  /** Pin (an instant) or unpin (null). */
  pin(ref: SlotRef, value: string, pinnedAt: string | null): ChangeRecord {
    return this.append({ kind: 'pin', slot: ref, value, pinnedAt })
  }

  /** Rename a subject. */
  rename(from: string, to: string): ChangeRecord {
    return this.append({ kind: 'alias', aliasKind: 'entity', entity: null, from, to, display: to })
  }

  /** Move a project to another key (a rekey to its repository's key). */
  renameProject(from: string, to: string): ChangeRecord {
    return this.append({ kind: 'alias', aliasKind: 'project', entity: null, from, to, display: to })
  }

  /** Move a value into a project. */
  move(ref: SlotRef, value: string, project: string): ChangeRecord {
    const to = { ...ref, project }
    return this.append({ kind: 'move', slot: ref, value, to, row: rowOf(to, value, 'explicit_user', false) })
  }

  /** Put back a past value as history. */
  putBack(ref: SlotRef, value: string): ChangeRecord {
    return this.append({
      kind: 'put_back',
      slot: ref,
      value,
      row: rowOf(ref, value, 'observed', false),
      status: 'superseded',
    })
  }

  /** Remove the alias in force from an old subject name (the page's alias-remove). */
  unalias(from: string): ChangeRecord {
    const alias = this.state().aliases.find((each) => each.aliasKind === 'entity' && each.from === from)
    return this.append({ kind: 'unalias', aliasKind: 'entity', entity: null, from, to: alias?.to ?? from })
  }

  /** Show a subject under another spelling of its key (a display-only rename). */
  display(entity: string, display: string): ChangeRecord {
    const shown = this.state().displays.find((name) => name.nameKind === 'entity' && name.entity === entity)
    const before = shown?.display ?? entity
    return this.append({ kind: 'display', nameKind: 'entity', entity, predicate: null, display, before })
  }

  /** Keep an import's bare tombstone of a claim (its key only). */
  bareTombstone(ref: SlotRef, value: string): ChangeRecord {
    const key = claimKeyOf(ref.entity, ref.predicate, ref.qualifiers, value)
    BARE_CLAIMS.set(key, { slot: ref, value })
    return this.append({ kind: 'tombstone', tombstones: [{ kind: 'claim', key }] })
  }

  /** Undo some of this device's own operations. */
  restore(undoes: readonly string[]): ChangeRecord {
    return this.append({ kind: 'restore', undoes })
  }

  private append(change: DistributiveOmit<ChangeRecord, keyof RecordBase>): ChangeRecord {
    this.clock = tickLocal(this.clock, this.wall)
    this.count += 1
    const record = {
      ...change,
      op: `${this.id}:${String(this.count).padStart(6, '0')}`,
      device: this.id,
      hlc: formatHlc(this.clock),
      seen: { ...this.seen },
    } as ChangeRecord
    this.known.set(record.op, record)
    this.cached = undefined
    this.log.push(record)
    return record
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

function rowOf(ref: SlotRef, value: string, evidence: Evidence, multi: boolean): FactRow {
  return {
    subject: ref.entity,
    property: ref.predicate,
    value,
    evidence,
    multi,
    validFrom: '2026-03-01T09:00:00.000Z',
    ...(ref.project === null ? {} : { scope: `project:${ref.project}` }),
  }
}

function hex(text: string): string {
  let out = ''
  let h = 2166136261
  for (let round = 0; out.length < 64; round += 1) {
    for (const char of `${round}${text}`) h = Math.imul(h ^ char.charCodeAt(0), 16777619) >>> 0
    out += h.toString(16).padStart(8, '0')
  }
  return out.slice(0, 64)
}

/** The claim behind each bare tombstone key the simulated devices made, so a test that renames subjects can rekey it. */
export const BARE_CLAIMS = new Map<string, { readonly slot: SlotRef; readonly value: string }>()

/** What a generated session left: the devices and every record they made. */
export interface Session {
  readonly devices: readonly SimDevice[]
  readonly records: readonly ChangeRecord[]
}

/**
 * A seeded random session: `steps` changes across three devices whose wall clocks differ (one an hour ahead), with
 * partial syncs (a prefix of one other device's log) between them.
 * @param seed - the generator's seed.
 * @param steps - how many changes.
 * @returns the devices and all their records.
 */
export function randomSession(seed: number, steps: number): Session {
  const random = seededRandom(seed)
  const start = Date.parse('2026-03-01T09:00:00.000Z')
  const devices = [
    new SimDevice('laptop', start),
    new SimDevice('desktop', start + 3_600_000),
    new SimDevice('container', start - 90_000),
  ]
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T
  const entities = ['svc a', 'svc b', 'svc c']
  const values = ['7801', '7802', '7803', '7804']
  for (let step = 0; step < steps; step += 1) {
    const device = pick(devices)
    for (const each of devices) each.wall += Math.floor(random() * 2000)
    const roll = random()
    const ref = slot(pick(entities), pick(['port', 'owner']), random() < 0.15 ? pick(['proj', 'proj', 'repo']) : null)
    const standing = device.slotState(ref)?.current ?? []
    if (roll < 0.12) {
      const other = pick(devices.filter((each) => each !== device))
      device.pull(other, Math.floor(random() * (other.log.length + 1)))
    } else if (roll < 0.6) {
      device.write(
        ref,
        pick(values),
        pick(['explicit_user', 'explicit_user', 'confirmed_user', 'observed'] as const),
        random() < 0.08,
      )
    } else if (roll < 0.68 && standing.length > 1) {
      device.settle(ref, pick(standing).value)
    } else if (roll < 0.73 && standing.length > 0) {
      device.forget(ref, pick(standing).value)
    } else if (roll < 0.8 && standing.length > 0) {
      device.pin(ref, pick(standing).value, random() < 0.7 ? new Date(device.wall).toISOString() : null)
    } else if (roll < 0.84 && standing.length > 0) {
      device.expire(ref, pick(standing).value)
    } else if (roll < 0.87 && standing.length > 0 && ref.project === null) {
      device.move(ref, pick(standing).value, 'proj')
    } else if (roll < 0.89) {
      device.putBack(ref, pick(values))
    } else if (roll < 0.9) {
      device.rename(pick(entities), pick(entities))
    } else if (roll < 0.91) {
      device.renameProject(pick(['proj', 'repo']), pick(['proj', 'repo']))
    } else if (roll < 0.94 && device.log.length > 0) {
      const own = device.log.filter((record) => record.kind !== 'restore')
      if (own.length > 0) device.restore([pick(own).op])
      // Each branch below draws one number, as the write it was carved from does, so the rest of a session stays.
    } else if (roll < 0.95 && device.state().aliases.some((alias) => alias.aliasKind === 'entity')) {
      device.unalias(pick(device.state().aliases.filter((alias) => alias.aliasKind === 'entity')).from)
    } else if (roll < 0.96) {
      const entity = pick(entities)
      device.display(entity, `${entity.slice(0, -1)}${entity.slice(-1).toUpperCase()}`)
    } else if (roll < 0.97) {
      device.bareTombstone(ref, pick(values))
    } else {
      device.write(ref, pick(values), 'observed')
    }
  }
  return { devices, records: devices.flatMap((device) => device.log) }
}
