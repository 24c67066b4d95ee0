/**
 * The speed part of npm run bench (`--only speed`) at one store size: the plugin's store seeded through its write path
 * with the synthetic corpus, then timed in process (cold open, memory_search's lexical channels, the directory cached
 * and rebuilt after a write, a single write, the status, facts and graph verbs, per-turn recall as the context hook
 * runs it), its WAL bytes per write and its bytes by table and index, the real web host's RSS around the nebula, and beside it a bare FTS5 store of the same facts
 * (scripts/bench-bare.ts), open through the same timings, each of its searches and writes run next to the plugin's.
 * A benchmark, not a test.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { systemClock } from '../src/clock.ts'
import { configWith, resolveConfig, type ResolvedConfig } from '../src/config.ts'
import { FactMemory } from '../src/fact-memory.ts'
import type { VerbContext } from '../src/management/verb.ts'
import { verbNamed } from '../src/management/verbs.ts'
import { createConfirmationBook } from '../src/routes/confirmations.ts'
import { STORE_FILE } from '../src/store/database.ts'
import type { FactInput } from '../src/types.ts'
import { BareStore } from './bench-bare.ts'
import {
  makeCorpus,
  mulberry32,
  PROPERTIES_EN,
  PROPERTIES_ZH,
  seedStore,
  SERVICE_KINDS,
  SYLLABLES,
  type Corpus,
} from './bench-corpus.ts'
import { renderSearchText, type SearchValue } from '../src/retrieval/render.ts'
import { hostNebulaRss, type HostRss } from './bench-host.ts'
import { recallMessages } from './bench-recall.ts'
import { percentiles, round, time, type Percentiles } from './bench-stats.ts'
import { objectBytes, WalMeter, type ObjectBytes, type WalPerWrite } from './bench-storage.ts'

/** The bare store's figures at one size. */
export interface BareRow {
  readonly seedSeconds: number
  /** Rows stored (a claim already current is not stored twice). */
  readonly rows: number
  readonly fileBytes: number
  /** File bytes ÷ the facts written (the same denominator as the plugin's). */
  readonly bytesPerFact: number
  readonly objects: readonly ObjectBytes[]
  readonly writeMs: Percentiles
  readonly searchMs: Percentiles
  readonly wal: WalPerWrite
}

/** The speed part's figures at one size. */
export interface SpeedRow {
  readonly facts: number
  /** The machine's 1-minute load average when this size started and when it ended (the machine is shared). */
  readonly loadAverage: { readonly start: number; readonly end: number }
  readonly seedSeconds: number
  /** The first open after the seed, with its one-off privacy rescan of every fact. */
  readonly firstOpenMs: number
  /** Later opens and the first directory, five times. */
  readonly coldOpenMs: Percentiles
  readonly searchMs: Percentiles
  /**
   * Subject·property questions among the timed queries whose slot the store holds, and how many of their rendered
   * memory_search answers (limit 5, default budget) show that slot.
   */
  readonly searchAnswered: { readonly asked: number; readonly answered: number }
  readonly directoryCachedMs: Percentiles
  readonly directoryRebuildMs: Percentiles
  readonly writeMs: Percentiles
  readonly statusRouteMs: Percentiles
  readonly factsPageMs: Percentiles
  /** The nebula right after a write (projected afresh). */
  readonly graphNebulaMs: Percentiles
  /** The nebula again on an unchanged store (the projection made at this generation). */
  readonly graphNebulaUnchangedMs: Percentiles
  readonly graphTreeMs: Percentiles
  /** FactMemory.recall, the pre-step hook's work for one user message, lexical channels. */
  readonly recallMs: Percentiles
  /** The real web host's resident memory around the nebula, on a copy of this store; null when skipped. */
  readonly hostRss: HostRss | null
  readonly rssMb: number
  readonly fileMb: number
  readonly fileBytes: number
  /** File bytes ÷ the facts written by the seed. */
  readonly bytesPerFact: number
  /** Bytes by table and index (dbstat), largest first. */
  readonly objects: readonly ObjectBytes[]
  /** WAL appended by one FactMemory.write (its own transaction, synchronous=FULL as the store sets it). */
  readonly wal: WalPerWrite
  /**
   * The vector channel's warm queries on a synthetic 1,024-d space of this size (scripts/bench-vectors.ts, on a store
   * of its own); null when not run.
   */
  readonly vectorSearchMs: Percentiles | null
  readonly bare: BareRow
}

/** What a size's run may leave out. */
export interface SpeedOptions {
  /** Keep the stores' directory and say where. */
  readonly keep: boolean
  /** Boot the web host for its RSS (minutes at a million facts). */
  readonly hostRss: boolean
  /** Told each step as it starts, for a long run's progress. */
  readonly progress: (step: string) => void
}

/** Writes timed on each store, and the WAL writes after them. */
const TIMED_WRITES = 200
const WAL_WRITES = 100

/** Wait until every dirty page on the machine is on disk (`sync`); where there is no `sync`, go on. */
function settleDisk(): void {
  try {
    execFileSync('sync', { stdio: 'ignore' })
  } catch {
    // Nothing to wait for, or no way to: the timings then carry whatever write-back is under way.
  }
}

/**
 * Run the speed part at one size.
 * @param size - facts in the store.
 * @param options - what to leave out and where to report progress.
 * @returns the figures.
 */
export async function speed(size: number, options: SpeedOptions): Promise<SpeedRow> {
  const loadAtStart = loadavg()[0] ?? 0
  const dir = mkdtempSync(join(tmpdir(), `fact-memory-bench-${size}-`))
  const config = resolveConfig(configWith({ dataDir: dir }), { dshHome: dir, userHome: dir })
  const random = mulberry32(size)
  const corpus = makeCorpus(size, random)
  options.progress('seed')
  const seedMs = seedStore(dir, corpus.facts, systemClock, config)
  // The bare store is open beside the plugin's through the timings, and each of its searches and writes runs next to
  // the plugin's own, so the shared machine's load falls on both alike.
  options.progress('bare seed')
  const bare = BareStore.open(join(dir, 'bare'))
  const bareSeed = bare.seed(corpus.facts, config)

  options.progress('cold open')
  // The first open of a seeded store rescans every fact once for the privacy rules' version (a one-off per store and
  // rules version, not a cold open's cost): timed on its own.
  const firstOpenMs = time(() => {
    const memory = new FactMemory({ clock: systemClock })
    memory.open(dir)
    memory.close()
  })
  // Seeding wrote the whole file moments ago: the kernel is still writing those pages out, and every fsync of a timed
  // write would queue behind that (at a million facts, a gigabyte). A library in use was not written wholesale a
  // minute before, so the timings start once the disk has caught up.
  settleDisk()
  const coldOpen: number[] = []
  for (let i = 0; i < 5; i += 1) {
    const memory = new FactMemory({ clock: systemClock })
    coldOpen.push(
      time(() => {
        memory.open(dir)
        memory.directory(config, null)
      }),
    )
    memory.close()
  }

  const memory = new FactMemory({ clock: systemClock })
  memory.open(dir)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T
  const queries: string[] = []
  // The slot a subject·property question asks for, by the query's index (the answer is measured where the store holds it).
  const asked = new Map<number, { readonly subject: string; readonly property: string }>()
  const en = corpus.entities.filter((entity) => !entity.zh)
  const zh = corpus.entities.filter((entity) => entity.zh)
  for (let i = 0; i < 300; i += 1) {
    switch (i % 6) {
      case 0:
        queries.push(pick(corpus.identifiers))
        break
      case 1: {
        const subject = pick(en).name
        const property = pick(PROPERTIES_EN)
        asked.set(i, { subject, property })
        queries.push(`${subject} ${property}`)
        break
      }
      case 2: {
        const subject = pick(zh).name
        const property = pick(PROPERTIES_ZH)
        asked.set(i, { subject, property })
        queries.push(`${subject}的${property}是多少`)
        break
      }
      case 3: {
        const property = pick(PROPERTIES_EN)
        const subject = pick(en).name
        asked.set(i, { subject, property })
        queries.push(`what is the ${property} of ${subject}`)
        break
      }
      // Broad terms only: the expensive case for BM25, every word common in the store.
      case 4:
        queries.push(`which ${pick(PROPERTIES_EN)} and ${pick(PROPERTIES_EN)} do we use for the ${pick(SERVICE_KINDS)}`)
        break
      default:
        queries.push(`zzz-unknown-${i} nothing`)
    }
  }
  options.progress('search')
  for (const query of queries.slice(0, 20)) {
    memory.searchLexical({ query, limit: 5, asOf: undefined }, config)
    bare.searchLexical(query, 5)
  }
  const search: number[] = []
  const bareSearch: number[] = []
  // The answers of the timed searches themselves, for the share that shows the slot asked for.
  const answers: SearchValue[] = []
  for (const query of queries) {
    search.push(
      time(() => {
        answers.push(memory.searchLexical({ query, limit: 5, asOf: undefined }, config))
      }),
    )
    bareSearch.push(time(() => bare.searchLexical(query, 5)))
  }
  const answered = answeredSlots(answers, asked, corpus)

  options.progress('routes')
  // Every 20th subject as a tree centre, so the corpus's random stream stays as it was.
  const centers = corpus.entities.filter((_, i) => i % 20 === 0).map((entity) => entity.name)
  const routes = routeTimings(memory, config, centers)

  options.progress('directory and writes')
  memory.directory(config, null)
  const cached = Array.from({ length: 300 }, () => time(() => memory.directory(config, null)))
  const writeInputs: FactInput[] = Array.from({ length: TIMED_WRITES }, (_, i) => ({
    subject: `bench-writer-${i % 40}`,
    property: pick(PROPERTIES_EN),
    value: `value ${i} ${pick(SYLLABLES)}`,
    evidence: 'observed',
    origin: 'tool',
  }))
  // As many untimed writes on the bare store as the graph timings made on the plugin's before its timed writes.
  for (let i = 0; i < 20; i += 1)
    bare.write(
      { subject: `bench-graph-${i}`, property: 'probe', value: String(i), evidence: 'observed', origin: 'tool' },
      config,
    )
  const rebuild: number[] = []
  const writes: number[] = []
  const bareWrites: number[] = []
  for (const input of writeInputs) {
    writes.push(time(() => memory.write(input, config)))
    rebuild.push(time(() => memory.directory(config, null)))
    bareWrites.push(time(() => bare.write(input, config)))
  }

  options.progress('recall')
  const recallMs = await recallTimings(
    memory,
    config,
    recallMessages(corpus, mulberry32(size + 1)).map((message) => message.text),
  )

  options.progress('WAL')
  const walInputs: FactInput[] = Array.from({ length: WAL_WRITES }, (_, i) => ({
    subject: `bench-wal-${i % 40}`,
    property: pick(PROPERTIES_EN),
    value: `wal value ${i} ${pick(SYLLABLES)}`,
    evidence: 'observed',
    origin: 'tool',
  }))
  const meter = new WalMeter(join(dir, STORE_FILE))
  const wal = meter.measure(
    walInputs.map((input) => () => {
      memory.write(input, config)
    }),
  )
  meter.close()
  const bareMeter = new WalMeter(bare.path)
  const bareWal = bareMeter.measure(
    walInputs.map((input) => () => {
      bare.write(input, config)
    }),
  )
  bareMeter.close()
  bare.close()
  memory.close()
  const fileBytes = statSync(join(dir, STORE_FILE)).size
  const objects = objectBytes(join(dir, STORE_FILE), size)
  const rssMb = Math.round(process.memoryUsage().rss / 1e6)
  options.progress('host RSS')
  const hostRss = options.hostRss ? await hostNebulaRss(dir, centers) : null

  const bareBytes = bare.fileBytes()
  const bareRow: BareRow = {
    seedSeconds: round(bareSeed.ms / 1000),
    rows: bareSeed.rows,
    fileBytes: bareBytes,
    bytesPerFact: Math.round(bareBytes / size),
    objects: objectBytes(bare.path, size),
    writeMs: percentiles(bareWrites),
    searchMs: percentiles(bareSearch),
    wal: bareWal,
  }
  if (options.keep) console.log(`kept the ${size}-fact store in ${dir}`)
  else rmSync(dir, { recursive: true, force: true })
  return {
    facts: size,
    loadAverage: { start: round(loadAtStart), end: round(loadavg()[0] ?? 0) },
    seedSeconds: round(seedMs / 1000),
    firstOpenMs: round(firstOpenMs),
    coldOpenMs: percentiles(coldOpen),
    searchMs: percentiles(search),
    searchAnswered: answered,
    directoryCachedMs: percentiles(cached),
    directoryRebuildMs: percentiles(rebuild),
    writeMs: percentiles(writes),
    statusRouteMs: routes.status,
    factsPageMs: routes.facts,
    graphNebulaMs: routes.graph,
    graphNebulaUnchangedMs: routes.graphUnchanged,
    graphTreeMs: routes.graphTree,
    recallMs,
    hostRss,
    rssMb,
    fileMb: Math.round(fileBytes / 1e5) / 10,
    fileBytes,
    bytesPerFact: Math.round(fileBytes / size),
    objects,
    wal,
    vectorSearchMs: null,
    bare: bareRow,
  }
}

/**
 * Per-turn recall as the context hook asks for it (FactMemory.recall on the user's text, its session and turn, no
 * project): one untimed pass first, so the timed pass is the steady state a live host is in.
 */
async function recallTimings(
  memory: FactMemory,
  config: ResolvedConfig,
  messages: readonly string[],
): Promise<Percentiles> {
  for (const [turn, text] of messages.entries())
    await memory.recall({ text, sessionId: 'bench-speed-warm', turn }, config)
  const timed: number[] = []
  for (const [turn, text] of messages.entries()) {
    const started = performance.now()
    await memory.recall({ text, sessionId: 'bench-speed', turn }, config)
    timed.push(performance.now() - started)
  }
  return percentiles(timed)
}

type RouteTimings = Record<'status' | 'facts' | 'graph' | 'graphUnchanged' | 'graphTree', Percentiles>

/**
 * The status verb, the first page of the facts verb, the graph verb's nebula and its one-hop tree around the given
 * subjects, called in process with the routes' own handlers.
 */
function routeTimings(memory: FactMemory, config: ResolvedConfig, centers: readonly string[]): RouteTimings {
  const opened = memory.stores()
  if (!('stores' in opened)) throw new Error('store not open')
  const context: VerbContext = {
    stores: opened.stores,
    config,
    clock: systemClock,
    now: () => new Date().toISOString(),
    credentials: undefined,
    confirmations: createConfirmationBook(systemClock),
    memory: {
      status: () => memory.status(),
      advance: () => memory.advance(),
      search: (ask) => memory.search(ask, config),
    },
  }
  const run = (name: string, body: unknown): number => {
    const definition = verbNamed(name)
    if (definition === undefined) throw new Error(name)
    return time(() => {
      const outcome = definition.run(definition.schema.parse(body), context)
      if (outcome instanceof Promise || !outcome.ok) throw new Error(`${name} did not answer synchronously and ok`)
    })
  }
  for (let i = 0; i < 5; i += 1) {
    run('status', {})
    run('facts', {})
    run('graph', {})
    run('graph', { view: 'tree', center: centers[i % centers.length] })
  }
  return {
    status: percentiles(Array.from({ length: 100 }, () => run('status', {}))),
    facts: percentiles(Array.from({ length: 100 }, () => run('facts', {}))),
    // Each timed nebula follows an (untimed) write, so it is projected afresh rather than reused.
    graph: percentiles(
      Array.from({ length: 20 }, (_, i) => {
        memory.write(
          { subject: `bench-graph-${i}`, property: 'probe', value: String(i), evidence: 'observed', origin: 'tool' },
          config,
        )
        return run('graph', {})
      }),
    ),
    graphUnchanged: percentiles(Array.from({ length: 100 }, () => run('graph', {}))),
    graphTree: percentiles(
      Array.from({ length: 100 }, (_, i) => run('graph', { view: 'tree', center: centers[i % centers.length] })),
    ),
  }
}

/**
 * Of the subject·property questions whose slot the store holds, how many rendered answers show it: a result for that
 * subject and property, and the subject's name in the text the model reads.
 * @param answers - the timed searches' answers, by the query's index.
 * @returns asked and answered.
 */
function answeredSlots(
  answers: readonly SearchValue[],
  asked: ReadonlyMap<number, { readonly subject: string; readonly property: string }>,
  corpus: Corpus,
): { asked: number; answered: number } {
  const slot = (subject: string, property: string): string => `${subject.toLowerCase()}\u0000${property.toLowerCase()}`
  const held = new Set(corpus.facts.map((fact) => slot(fact.subject, fact.property)))
  let count = 0
  let answered = 0
  for (const [i, wanted] of asked) {
    if (!held.has(slot(wanted.subject, wanted.property))) continue
    count += 1
    const value = answers[i] as SearchValue
    const shown = value.results.some(
      (result) => slot(result.subject, result.property) === slot(wanted.subject, wanted.property),
    )
    if (shown && renderSearchText(value).includes(wanted.subject)) answered += 1
  }
  return { asked: count, answered }
}
