/**
 * Real stores as sync devices: each a FactMemory on its own SQLite file with sync on, exchanging records the way a
 * round does (`ownLog` of one into `receive` of another, with a rising cursor and the device's name), and the library
 * each holds read through the store's public reads (the export snapshot and the conflict reads) as plain, comparable
 * text: current facts, history, open conflicts, tombstones, pins, aliases and the devices named beside each value.
 */
import type { ChangeRecord } from '../../src/sync/change-record.ts'
import type { StoreSet } from '../../src/store/store-set.ts'
import { canonicalValue } from '../../src/text/normalize.ts'
import { FakeClock } from './fake-clock.ts'
import { openMemory, type MemoryHandle } from './store.ts'
import type { DriverName } from '../../src/store/connection.ts'
import { storesOf } from './vectors.ts'

/** A real store with sync on. */
export interface StoreDevice {
  readonly name: string
  readonly h: MemoryHandle
  readonly stores: StoreSet
  readonly id: string
  /** Per other device, how many times it was read (the cursor a round would store). */
  readonly reads: Map<string, number>
}

/**
 * Open a store, name its device and turn sync on.
 * @param driver - SQLite binding.
 * @param name - readable device name.
 * @param start - its clock's start.
 */
export async function openDevice(
  driver: DriverName,
  name: string,
  start = '2026-03-01T09:00:00.000Z',
): Promise<StoreDevice> {
  return deviceOf(openMemory(driver, new FakeClock(start)), name)
}

/**
 * Make an open store a sync device: name it and turn sync on.
 * @param h - the store (a verb harness's, say).
 * @param name - readable device name.
 */
export async function deviceOf(h: MemoryHandle, name: string): Promise<StoreDevice> {
  const stores = storesOf(h.memory)
  stores.sync.setDeviceName(name)
  await stores.sync.enableSync(h.clock.iso())
  return { name, h, stores, id: stores.sync.device().id, reads: new Map() }
}

/**
 * Hand records to a device as a round would: a cursor per sender that rises by one a call, and the senders' names.
 * @returns the store's answer.
 */
export function deliver(to: StoreDevice, records: readonly ChangeRecord[], from: readonly StoreDevice[] = []) {
  const cursor = Object.fromEntries(
    from.map((device) => {
      const next = (to.reads.get(device.id) ?? 0) + 1
      to.reads.set(device.id, next)
      return [device.id, next]
    }),
  )
  return to.stores.sync.receive(records, cursor, Object.fromEntries(from.map((device) => [device.id, device.name])))
}

/** `to` reads everything `from` has logged. */
export function pull(to: StoreDevice, from: StoreDevice) {
  return deliver(to, from.stores.sync.ownLog(), [from])
}

/** Every device reads every other, twice round, so each has every record. */
export function exchangeAll(devices: readonly StoreDevice[]): void {
  for (let round = 0; round < 2; round += 1)
    for (const to of devices) for (const from of devices) if (from !== to) pull(to, from)
}

/** The library a store holds, as sorted text lines per part. */
export interface LibraryText {
  readonly current: readonly string[]
  readonly history: readonly string[]
  readonly conflicts: readonly string[]
  readonly tombstones: readonly string[]
  readonly aliases: readonly string[]
  /** How each subject and each row's subject and property are spelled (entity key | shown name | row's spellings). */
  readonly names: readonly string[]
}

/**
 * Read a store's library through its public reads.
 * @param stores - the store.
 * @param devices - device id to a stable label, so two stores name the same devices alike.
 */
export function libraryOf(stores: StoreSet): LibraryText {
  const entityNames = new Map(
    stores.db
      .all('SELECT entity_key, display FROM entities')
      .map((row) => [String(row['entity_key']), String(row['display'])]),
  )
  return stores.exchange.readSnapshot((snapshot) => {
    const current: string[] = []
    const history = new Set<string>()
    const slots = new Map<string, string>()
    const names = new Set<string>()
    snapshot.eachFact((fact) => {
      names.add(`${fact.entityKey}|${entityNames.get(fact.entityKey) ?? '?'}|${fact.subject}|${fact.property}`)
      const slot = `${fact.entityKey}|${fact.predicateKey}|${JSON.stringify(fact.qualifiers)}|${fact.scope}`
      const value = canonicalValue(fact.value)
      if (fact.status === 'active' || fact.status === 'conflict' || fact.status === 'scheduled') {
        slots.set(fact.slotKey, slot)
        current.push(`${slot}|${value}|${fact.status}|${fact.evidence}|pin ${fact.pinnedAt ?? '-'}`)
      } else history.add(`${slot}|${value}|${fact.status}`)
    })
    const contested = stores.facts.contestedSlots([...slots.keys()])
    return {
      current: current.sort(),
      history: [...history].sort(),
      conflicts: [...contested].map((key) => slots.get(key) ?? key).sort(),
      tombstones: snapshot
        .tombstones()
        .filter((entry) => entry.tombstone === 'claim')
        .map((entry) => entry.key)
        .sort(),
      aliases: snapshot
        .aliases()
        .map((alias) => `${alias.kind}|${alias.subject}|${alias.aliasText}|${alias.canonicalText}`)
        .sort(),
      names: [...names].sort(),
    }
  })
}

/** Close every device's store and remove its files. */
export function disposeAll(devices: readonly StoreDevice[]): void {
  for (const device of devices) device.h.dispose()
}
