/**
 * The bench's sync part (`npm run bench -- --only sync`): two real stores (A and B) and a real sync folder in a temp
 * directory, each store driven by the shipped SyncSupervisor (the real SyncService, schedule and round code), no
 * host. Per library size it times the first sync (turning sync on writes the snapshot; A seals and publishes it; B
 * receives and applies it), counts the folder's bytes, the bytes one change adds (alone in a segment, and in a segment
 * of 100), plain and with a passphrase, times quiet rounds (nothing new) on both sides, and measures how long a write
 * on A takes to be current on B: A on the default schedule (a round 3 s after writes pause) or with "Sync now", B
 * polling the folder on a short timer. A measurement, not a test; tests/bench-sync.spec.ts runs it at tiny sizes.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { join } from 'node:path'
import { systemClock } from '../src/clock.ts'
import { configWith, resolveConfig, type ResolvedConfig } from '../src/config.ts'
import { prepareWrite } from '../src/fact-input.ts'
import { Database } from '../src/store/database.ts'
import { createStoreSet, type OpenStores } from '../src/store/store-set.ts'
import { DEFAULT_SCHEDULE } from '../src/sync/sync-schedule.ts'
import { SYNC_DEFAULTS } from '../src/sync/sync-settings.ts'
import { SyncSupervisor, type SyncStoreView } from '../src/sync/sync-supervisor.ts'
import type { FactInput } from '../src/types.ts'
import { makeCorpus, mulberry32, seedFacts } from './bench-corpus.ts'

/** How the part runs. */
export interface SyncBenchOptions {
  /** Quiet rounds timed per side. */
  readonly quietRounds: number
  /** Change-to-current trials per mode. */
  readonly latencyTrials: number
  /** B's timer between rounds while it waits for A's change (ms). */
  readonly pollMs: number
  /** A's quiet time after a write before its round (ms); the shipped 3 s unless a smoke run shortens it. */
  readonly debounceMs: number
}

export const SYNC_BENCH_DEFAULTS: SyncBenchOptions = {
  quietRounds: 20,
  latencyTrials: 5,
  pollMs: 250,
  debounceMs: DEFAULT_SCHEDULE.debounceMs,
}

/** Milliseconds of a series. */
export interface Spread {
  readonly p50: number
  readonly p95: number
  readonly max: number
}

/** The first sync and the folder's bytes, one variant (plain or encrypted). */
export interface FirstSync {
  readonly encrypted: boolean
  /** Turning sync on: the library written as records (the snapshot), in slices. */
  readonly snapshotMs: number
  readonly snapshotRecords: number
  /** A's first round: seal the snapshot into a segment and publish it. */
  readonly sealMs: number
  readonly sent: number
  /** The longest the event loop was held during it (a turn would have waited this long). */
  readonly sealBlockMs: number
  /** B's first round: read, keep and apply A's records. */
  readonly applyMs: number
  readonly received: number
  readonly applyBlockMs: number
  /** Current facts on each side after the first sync and the 105 changes that follow it. */
  readonly currentOnB: number
  readonly currentOnA: number
  readonly folderBytes: number
  /** One change alone in its round's segment: the folder's growth, median of 5. */
  readonly bytesOneChange: number
  /** 100 changes sealed in one round: the folder's growth per change. */
  readonly bytesPerChangeOf100: number
}

/** Everything measured at one size. */
export interface SyncBenchRow {
  readonly library: number
  readonly plain: FirstSync
  readonly encrypted: FirstSync
  /** A round with nothing new, on A (its own log is the library) and on B (it received the library). */
  readonly quietA: Spread
  readonly quietB: Spread
  /** From A's write to B's store reading it current. */
  readonly latencyDebounce: Spread
  readonly latencySyncNow: Spread
  readonly options: SyncBenchOptions
  /** The 1-minute load average before and after the size's run. */
  readonly load: readonly [number, number]
}

const quiet = { info: () => undefined, warn: () => undefined }
const PASSPHRASE_REF = 'FACT_MEMORY_SYNC_PASSPHRASE'

/** One store with its own supervisor on the sync folder. */
class Side {
  readonly dir: string
  readonly db: Database
  readonly stores: OpenStores
  readonly config: ResolvedConfig
  private readonly view: SyncStoreView
  private readonly folder: string
  private readonly encrypted: boolean
  /** None until `supervise`: turning sync on is the first thing it does. */
  supervisor: SyncSupervisor | undefined

  constructor(root: string, name: string, folder: string, encrypted: boolean) {
    this.dir = join(root, name)
    this.folder = folder
    this.encrypted = encrypted
    this.db = Database.open({ dataDir: this.dir, now: () => new Date().toISOString() })
    this.stores = createStoreSet(this.db, this.dir)
    this.stores.sync.setDeviceName(`bench ${name}`)
    this.config = resolveConfig(configWith({ dataDir: this.dir }), { dshHome: this.dir, userHome: this.dir })
    const { sync, meta } = this.stores
    this.view = {
      log: sync,
      dataDir: this.dir,
      lastTarget: () => meta.get('sync_target') ?? '',
      rememberTarget: (target) => {
        meta.set('sync_target', target)
      },
    }
  }

  /**
   * Start a supervisor on the store and the folder, stopping the one before (the store's target is remembered: no
   * new snapshot); it turns sync on and runs its first round at once.
   */
  async supervise(policy: { intervalMs?: number; debounceMs?: number }): Promise<void> {
    await this.supervisor?.stop(5_000)
    const supervisor = new SyncSupervisor({
      clock: systemClock,
      store: () => this.view,
      logger: quiet,
      policy,
      resolveCredential: (name) =>
        Promise.resolve(this.encrypted && name === PASSPHRASE_REF ? { value: 'bench pass phrase' } : undefined),
    })
    supervisor.follow({
      ...SYNC_DEFAULTS,
      syncTarget: this.folder,
      syncPassphraseRef: this.encrypted ? PASSPHRASE_REF : '',
      enabled: true,
    })
    this.supervisor = supervisor
  }

  /** Write facts as the plugin commits them (one transaction), then tell sync, as runtime.ts does. */
  write(facts: readonly FactInput[]): void {
    const now = new Date().toISOString()
    this.db.transaction(() => {
      for (const input of facts) {
        const prepared = prepareWrite(input, now, {
          refuseCredentials: this.config.refuseCredentials,
          timeZone: this.config.displayTimeZone,
        })
        if (prepared.ok) this.stores.facts.write(prepared.write, now)
      }
    })
    this.supervisor?.noteChange()
  }

  /** One round now. */
  async round(): Promise<{ ms: number; sent: number; received: number }> {
    const started = performance.now()
    const outcome = await this.supervisor?.syncNow()
    if (outcome === undefined || !outcome.ran || !outcome.report.ok)
      throw new Error(`the bench's sync round failed: ${JSON.stringify(outcome)}`)
    return { ms: performance.now() - started, sent: outcome.report.sent, received: outcome.report.received }
  }

  async close(): Promise<void> {
    await this.supervisor?.stop(5_000)
    this.db.close()
  }
}

/** A fact no corpus row shares a slot with. */
const fresh = (label: string): FactInput => ({
  subject: `bench sync ${label}`,
  property: 'port',
  value: String(1000 + ((label.length * 7919 + label.charCodeAt(label.length - 1)) % 60_000)),
  origin: 'tool',
  evidence: 'explicit_user',
})

/**
 * Measure the sync part at each size.
 * @param sizes - library sizes.
 * @param options - see {@link SyncBenchOptions}.
 * @param progress - told each step.
 * @returns one row per size.
 */
export async function syncBench(
  sizes: readonly number[],
  options: SyncBenchOptions = SYNC_BENCH_DEFAULTS,
  progress: (step: string) => void = () => undefined,
): Promise<SyncBenchRow[]> {
  const rows: SyncBenchRow[] = []
  for (const library of sizes) {
    const before = loadavg()[0] ?? 0
    const corpus = makeCorpus(library, mulberry32(library)).facts
    progress(`${library} facts, plain`)
    const plain = await pairRun(library, corpus, false, options, progress)
    progress(`${library} facts, encrypted`)
    const encrypted = await pairRun(library, corpus, true, options, progress)
    rows.push({
      library,
      plain: plain.first,
      encrypted: encrypted.first,
      ...(plain.timed as NonNullable<typeof plain.timed>),
      options,
      load: [round2(before), round2(loadavg()[0] ?? 0)],
    })
  }
  return rows
}

type Timed = Pick<SyncBenchRow, 'quietA' | 'quietB' | 'latencyDebounce' | 'latencySyncNow'>

/** One pair of stores on one folder: the first sync and bytes, and (plain only) the quiet rounds and latency. */
async function pairRun(
  library: number,
  corpus: readonly FactInput[],
  encrypted: boolean,
  options: SyncBenchOptions,
  progress: (step: string) => void,
): Promise<{ first: FirstSync; timed?: Timed }> {
  const root = mkdtempSync(join(tmpdir(), 'fm-sync-bench-'))
  const folder = join(root, 'folder')
  const sides: Side[] = []
  try {
    const a = new Side(root, 'a', folder, encrypted)
    sides.push(a)
    // The library as it stands before sync is turned on; then the snapshot, timed alone (the supervisor's own call
    // finds recording on and writes nothing more).
    seedFacts(a.db, corpus, systemClock, a.config)
    const snapshotStarted = performance.now()
    const turnedOn = await a.stores.sync.enableSync(new Date().toISOString())
    const snapshotMs = performance.now() - snapshotStarted
    const sealed = await firstRound(a, () => a.supervise({ debounceMs: options.debounceMs }))
    if (sealed.sent !== turnedOn.records) throw new Error(`A sealed ${sealed.sent} of ${turnedOn.records} records`)
    progress('A sealed')
    const b = new Side(root, 'b', folder, encrypted)
    sides.push(b)
    const applied = await firstRound(b, () => b.supervise({}))
    progress('B applied')
    const folderBytes = bytesUnder(folder)

    const growth: number[] = []
    for (let index = 0; index < 5; index += 1) {
      const size = bytesUnder(folder)
      a.write([fresh(`one ${index}`)])
      await a.round()
      growth.push(bytesUnder(folder) - size)
    }
    const size = bytesUnder(folder)
    a.write(Array.from({ length: 100 }, (_, index) => fresh(`batch ${index}`)))
    await a.round()
    const perChangeOf100 = (bytesUnder(folder) - size) / 100
    await b.round()
    const first: FirstSync = {
      encrypted,
      snapshotMs: Math.round(snapshotMs),
      snapshotRecords: turnedOn.records,
      sealMs: Math.round(sealed.ms),
      sent: sealed.sent,
      sealBlockMs: sealed.blockMs,
      applyMs: Math.round(applied.ms),
      received: applied.received,
      applyBlockMs: applied.blockMs,
      currentOnA: a.stores.facts.currentFactCount(),
      currentOnB: b.stores.facts.currentFactCount(),
      folderBytes,
      bytesOneChange: spread(growth).p50,
      bytesPerChangeOf100: Math.round(perChangeOf100),
    }
    if (encrypted) return { first }

    const quietA = await quietRounds(a, options.quietRounds)
    const quietB = await quietRounds(b, options.quietRounds)
    progress('quiet rounds')
    // B now polls the folder on a short timer; A keeps the schedule a user gets (or "Sync now").
    await b.supervise({ intervalMs: options.pollMs })
    const debounce: number[] = []
    const now: number[] = []
    for (let trial = 0; trial < options.latencyTrials; trial += 1) {
      debounce.push(await changeToCurrent(a, b, `debounce ${trial}`, false))
      now.push(await changeToCurrent(a, b, `now ${trial}`, true))
    }
    progress(`latency (${library})`)
    return {
      first,
      timed: { quietA, quietB, latencyDebounce: spread(debounce), latencySyncNow: spread(now) },
    }
  } finally {
    for (const side of sides) await side.close()
    rmSync(root, { recursive: true, force: true })
  }
}

/** Start a side's supervisor and time until its first round (sync at start) has run, and the event loop's longest hold. */
async function firstRound(
  side: Side,
  start: () => Promise<void>,
): Promise<{ ms: number; sent: number; received: number; blockMs: number }> {
  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  const started = performance.now()
  await start()
  const round = await side.round()
  delay.disable()
  return { ...round, ms: performance.now() - started, blockMs: Math.round(delay.max / 1e6) }
}

async function quietRounds(side: Side, count: number): Promise<Spread> {
  const times: number[] = []
  for (let index = 0; index < count; index += 1) {
    const round = await side.round()
    if (round.sent !== 0 || round.received !== 0) throw new Error('a quiet round moved records')
    times.push(round.ms)
  }
  return spread(times)
}

/** Write one fact on A and wait until B's store counts it current; milliseconds from the write's start. */
async function changeToCurrent(a: Side, b: Side, label: string, syncNow: boolean): Promise<number> {
  const before = b.stores.facts.currentFactCount()
  const started = performance.now()
  a.write([fresh(`latency ${label}`)])
  if (syncNow) void a.supervisor?.syncNow()
  const limit = started + 60_000
  while (b.stores.facts.currentFactCount() <= before) {
    if (performance.now() > limit) throw new Error(`B did not see "${label}" within a minute`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  return performance.now() - started
}

/** The bytes of every file under a folder. */
function bytesUnder(path: string): number {
  let total = 0
  for (const entry of readdirSync(path, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size
  return total
}

function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((x, y) => x - y)
  const at = (share: number): number =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? 0)
  return { p50: at(0.5), p95: at(0.95), max: Math.round(sorted.at(-1) ?? 0) }
}

const round2 = (value: number): number => Math.round(value * 100) / 100

/** Print the rows as tables. */
export function printSyncBench(rows: readonly SyncBenchRow[]): void {
  console.log(
    '\nSync, first sync through a real folder (two stores, the shipped SyncSupervisor), better-sqlite3 as shipped',
  )
  console.log(
    '| library | files | snapshot ms (records) | A seal+publish ms (sent) | longest block ms | B receive+apply ms (received) | longest block ms | current A / B after 105 more | folder bytes | bytes, one change | bytes a change, 100 in a round |',
  )
  console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const row of rows)
    for (const first of [row.plain, row.encrypted])
      console.log(
        `| ${row.library} | ${first.encrypted ? 'passphrase' : 'plain'} | ${first.snapshotMs} (${first.snapshotRecords}) | ${first.sealMs} (${first.sent}) | ${first.sealBlockMs} | ${first.applyMs} (${first.received}) | ${first.applyBlockMs} | ${first.currentOnA} / ${first.currentOnB} | ${first.folderBytes} | ${first.bytesOneChange} | ${first.bytesPerChangeOf100} |`,
      )
  console.log(
    '\n| library | quiet round on A ms p50 / p95 | quiet round on B ms p50 / p95 | change → current on B, debounce, ms p50 / p95 / max | with "Sync now" | load (1 min) |',
  )
  console.log('|---:|---:|---:|---:|---:|---|')
  for (const row of rows)
    console.log(
      `| ${row.library} | ${row.quietA.p50} / ${row.quietA.p95} | ${row.quietB.p50} / ${row.quietB.p95} | ${row.latencyDebounce.p50} / ${row.latencyDebounce.p95} / ${row.latencyDebounce.max} | ${row.latencySyncNow.p50} / ${row.latencySyncNow.p95} / ${row.latencySyncNow.max} | ${row.load[0]} → ${row.load[1]} |`,
    )
  const options = rows[0]?.options
  if (options !== undefined)
    console.log(
      `(${options.quietRounds} quiet rounds per side; ${options.latencyTrials} trials per mode; A's debounce ${options.debounceMs} ms; B's timer ${options.pollMs} ms)`,
    )
}
