/**
 * The bench's sync-apply part (`npm run bench -- --only sync-apply`): how long `receive` takes to keep and apply other
 * devices' records on a real store (better-sqlite3, synchronous=FULL as shipped). A library of N facts (4 properties
 * per subject) arrives first from one device, as a first sync would bring it; then another device that had read it
 * sends batches of 1k and of 10k records, each a mix of new values on new subjects (50%), corrections of values it had
 * seen (30%) and concurrent values the first device also changed (20%, each becoming a conflict). A measurement, not a
 * test.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Database } from '../src/store/database.ts'
import { createStoreSet } from '../src/store/store-set.ts'
import type { ChangeRecord } from '../src/sync/change-record.ts'

/** One timed receive. */
export interface ApplyRow {
  readonly library: number
  readonly records: number
  /** Wall time. */
  readonly ms: number
  /** CPU time of this process (user + system): what the receive costs on a machine other work also loads. */
  readonly cpuMs: number
  readonly changedSlots: number
}

const PROPERTIES = ['port', 'owner', 'language', 'host']
const START = Date.parse('2026-03-01T09:00:00.000Z')

/** Writes of one device, stamped in order (made directly: the bench times the store, not a simulation). */
class Writer {
  private count = 0
  readonly device: string
  seen: Record<string, string> = {}
  last = ''

  constructor(device: string) {
    this.device = device
  }

  write(entity: string, predicate: string, value: string, ends: readonly string[] = []): ChangeRecord {
    this.count += 1
    const hlc = `${START + this.count}-000000-${this.device}`
    this.last = hlc
    return {
      kind: 'write',
      op: `${this.device}.${String(this.count).padStart(8, '0')}`,
      device: this.device,
      hlc,
      seen: this.seen,
      slot: { entity, predicate, qualifiers: '{}', project: null },
      value,
      row: {
        subject: entity,
        property: predicate,
        value,
        evidence: 'explicit_user',
        validFrom: '2026-03-01T09:00:00.000Z',
      },
      ends: ends.map((end) => ({ value: end, as: 'superseded' as const })),
    }
  }
}

/**
 * Time the first sync of a library, then batches of records on it.
 * @param library - how many facts the store holds before the batches.
 * @param batches - the batch sizes.
 * @returns one row per receive.
 */
export function syncApplyBench(library: number, batches: readonly number[]): ApplyRow[] {
  const rows: ApplyRow[] = []
  for (const size of batches) {
    const dir = mkdtempSync(join(tmpdir(), 'fm-sync-apply-'))
    try {
      const db = Database.open({ dataDir: dir, driver: 'better-sqlite3', now: () => new Date().toISOString() })
      const stores = createStoreSet(db, dir)
      const seed = new Writer('seed')
      const refs = Array.from({ length: library }, (_, index) => ({
        entity: `service ${Math.floor(index / PROPERTIES.length)}`,
        predicate: PROPERTIES[index % PROPERTIES.length] as string,
        value: `v${index}`,
      }))
      const first = refs.map((ref) => seed.write(ref.entity, ref.predicate, ref.value))
      if (rows.length === 0) rows.push(timed(library, first, () => stores.sync.receive(first, { seed: 1 })))
      else stores.sync.receive(first, { seed: 1 })

      // The peer had read the whole library; the seed device keeps changing meanwhile (concurrent values).
      const peer = new Writer('peer')
      peer.seen = { seed: seed.last }
      const concurrent: ChangeRecord[] = []
      const batch: ChangeRecord[] = []
      for (let index = 0; index < size; index += 1) {
        const roll = index % 10
        const ref = refs[(index * 7919) % library] as (typeof refs)[number]
        if (roll < 5) batch.push(peer.write(`new service ${index}`, 'port', `n${index}`))
        else if (roll < 8) batch.push(peer.write(ref.entity, ref.predicate, `c${index}`, [ref.value]))
        else {
          batch.push(peer.write(ref.entity, ref.predicate, `p${index}`, [ref.value]))
          concurrent.push(seed.write(ref.entity, ref.predicate, `s${index}`, [ref.value]))
        }
      }
      stores.sync.receive(concurrent, { seed: 2 })
      rows.push(timed(library, batch, () => stores.sync.receive(batch, { peer: 1 })))
      db.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  return rows
}

function timed(library: number, records: readonly ChangeRecord[], run: () => { changedSlots: number }): ApplyRow {
  const started = performance.now()
  const cpu = process.cpuUsage()
  const { changedSlots } = run()
  const used = process.cpuUsage(cpu)
  return {
    library,
    records: records.length,
    ms: Math.round(performance.now() - started),
    cpuMs: Math.round((used.user + used.system) / 1000),
    changedSlots,
  }
}

/** Print the rows as a table. */
export function printSyncApply(rows: readonly ApplyRow[]): void {
  console.log('\nSync receive (keep + apply, one transaction) on a real store, better-sqlite3')
  console.log('| library facts | records received | wall ms | CPU ms | slots changed |')
  console.log('|---:|---:|---:|---:|---:|')
  for (const row of rows)
    console.log(`| ${row.library} | ${row.records} | ${row.ms} | ${row.cpuMs} | ${row.changedSlots} |`)
}
