/**
 * npm run bench: speed at 10k and 100k facts (memory_search, directory, single write, cold open, the page's routes),
 * what automatic capture costs a turn, retrieval quality on LoCoMo (evidence recall@5/@10 per category), and the
 * review's operating points: the near-duplicate gate's precision and recall on its labeled pair set, and the fold guard's
 * on tests/fixtures/fold-pairs.jsonl, and the vector channel's scan at 10k and 100k facts (scripts/bench-vectors.ts). Prints
 * tables and writes JSON to bench-results/.
 * A benchmark, not a test: nothing here passes or fails.
 *
 * Options: --sizes 10000,100000   --skip-locomo   --only speed|locomo|review|vectors   --locomo <path to locomo10.json>
 *          --keep (keep the stores)
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { systemClock } from '../src/clock.ts'
import { configWith, resolveConfig, type ResolvedConfig } from '../src/config.ts'
import { FactMemory } from '../src/fact-memory.ts'
import { createConfirmationBook } from '../src/routes/confirmations.ts'
import type { VerbContext } from '../src/management/verb.ts'
import { VERBS } from '../src/management/verbs.ts'
import type { FactInput } from '../src/types.ts'
import { makeCorpus, mulberry32, PROPERTIES_EN, PROPERTIES_ZH, seedStore, SERVICE_KINDS, SYLLABLES } from './bench-corpus.ts'
import { extractionTimings, type ExtractionTimings } from './bench-extraction.ts'
import { hostNebulaRss, type HostRss } from './bench-host.ts'
import { locomoQuality, type LocomoResult, type LocomoShape } from './bench-locomo.ts'
import { startFakeSemantic } from '../tests/helpers/fake-semantic.ts'
import { BENCH_EMBEDDING_MODEL, startBenchEmbeddingServer } from './bench-embedding-server.ts'
import { FOLD_PAIRS, foldBench, readFoldPairs, type FoldBench } from './bench-fold.ts'
import { reviewQuality, type ReviewQuality } from './bench-review.ts'
import { vectorBench, type VectorBench } from './bench-vectors.ts'
import { REPO_ROOT } from './dsh-profile.ts'

const args = process.argv.slice(2)
const option = (name: string): string | undefined => {
  const index = args.indexOf(name)
  return index >= 0 ? args[index + 1] : undefined
}
const SIZES = (option('--sizes') ?? '10000,100000').split(',').map(Number)
const LOCOMO = option('--locomo') ?? join(REPO_ROOT, '../shared/data/locomo10.json')
const SKIP_LOCOMO = args.includes('--skip-locomo')
const KEEP = args.includes('--keep')
/**
 * `--only locomo` runs just the retrieval-quality part, `--only review` the gate and the fold guard, `--only speed` the
 * timings, `--only vectors` the vector channel.
 */
const ONLY = option('--only')
const runs = (part: 'speed' | 'locomo' | 'review' | 'vectors'): boolean => ONLY === undefined || ONLY === part

function percentiles(samples: number[]): { p50: number; p95: number; max: number; n: number } {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
  return { p50: round(at(0.5)), p95: round(at(0.95)), max: round(sorted.at(-1) ?? 0), n: samples.length }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000
}

function time(work: () => void): number {
  const started = performance.now()
  work()
  return performance.now() - started
}

interface SpeedRow {
  readonly facts: number
  readonly seedSeconds: number
  readonly coldOpenMs: ReturnType<typeof percentiles>
  readonly searchMs: ReturnType<typeof percentiles>
  readonly directoryCachedMs: ReturnType<typeof percentiles>
  readonly directoryRebuildMs: ReturnType<typeof percentiles>
  readonly writeMs: ReturnType<typeof percentiles>
  readonly statusRouteMs: ReturnType<typeof percentiles>
  readonly factsPageMs: ReturnType<typeof percentiles>
  /** The nebula right after a write (projected afresh). */
  readonly graphNebulaMs: ReturnType<typeof percentiles>
  /** The nebula again on an unchanged store (the projection made at this generation). */
  readonly graphNebulaUnchangedMs: ReturnType<typeof percentiles>
  readonly graphTreeMs: ReturnType<typeof percentiles>
  /** The real web host's resident memory around the nebula, on a copy of this store. */
  readonly hostRss: HostRss
  readonly rssMb: number
  readonly fileMb: number
}

async function speed(size: number): Promise<SpeedRow> {
  const dir = mkdtempSync(join(tmpdir(), `fact-memory-bench-${size}-`))
  const config = resolveConfig(configWith({ dataDir: dir }), { dshHome: dir, userHome: dir })
  const random = mulberry32(size)
  const corpus = makeCorpus(size, random)
  const seedMs = seedStore(dir, corpus.facts, systemClock, config)

  const coldOpen: number[] = []
  for (let i = 0; i < 5; i += 1) {
    const memory = new FactMemory({ clock: systemClock })
    coldOpen.push(time(() => {
      memory.open(dir)
      memory.directory(config, null)
    }))
    memory.close()
  }

  const memory = new FactMemory({ clock: systemClock })
  memory.open(dir)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T
  const queries: string[] = []
  const en = corpus.entities.filter((entity) => !entity.zh)
  const zh = corpus.entities.filter((entity) => entity.zh)
  for (let i = 0; i < 300; i += 1) {
    switch (i % 6) {
      case 0: queries.push(pick(corpus.identifiers)); break
      case 1: queries.push(`${pick(en).name} ${pick(PROPERTIES_EN)}`); break
      case 2: queries.push(`${pick(zh).name}的${pick(PROPERTIES_ZH)}是多少`); break
      case 3: queries.push(`what is the ${pick(PROPERTIES_EN)} of ${pick(en).name}`); break
      // Broad terms only: the expensive case for BM25, every word common in the store.
      case 4: queries.push(`which ${pick(PROPERTIES_EN)} and ${pick(PROPERTIES_EN)} do we use for the ${pick(SERVICE_KINDS)}`); break
      default: queries.push(`zzz-unknown-${i} nothing`)
    }
  }
  for (const query of queries.slice(0, 20)) memory.searchLexical({ query, limit: 5, asOf: undefined }, config)
  const search = queries.map((query) => time(() => memory.searchLexical({ query, limit: 5, asOf: undefined }, config)))

  // Every 20th subject as a tree centre, so the corpus's random stream stays as it was.
  const routes = routeTimings(memory, config, corpus.entities.filter((_, i) => i % 20 === 0).map((entity) => entity.name))

  memory.directory(config, null)
  const cached = Array.from({ length: 300 }, () => time(() => memory.directory(config, null)))
  const rebuild: number[] = []
  const writes: number[] = []
  for (let i = 0; i < 200; i += 1) {
    const input: FactInput = { subject: `bench-writer-${i % 40}`, property: pick(PROPERTIES_EN), value: `value ${i} ${pick(SYLLABLES)}`, evidence: 'observed', origin: 'tool' }
    writes.push(time(() => memory.write(input, config)))
    rebuild.push(time(() => memory.directory(config, null)))
  }
  memory.close()
  const fileMb = existsSync(join(dir, 'memory.db')) ? readFileSync(join(dir, 'memory.db')).byteLength / 1e6 : 0
  const hostRss = await hostNebulaRss(dir, corpus.entities.filter((_, i) => i % 20 === 0).map((entity) => entity.name))
  if (KEEP) console.log(`kept the ${size}-fact store in ${dir}`)
  else rmSync(dir, { recursive: true, force: true })
  return {
    facts: size,
    seedSeconds: round(seedMs / 1000),
    coldOpenMs: percentiles(coldOpen),
    searchMs: percentiles(search),
    directoryCachedMs: percentiles(cached),
    directoryRebuildMs: percentiles(rebuild),
    writeMs: percentiles(writes),
    statusRouteMs: routes.status,
    factsPageMs: routes.facts,
    graphNebulaMs: routes.graph,
    graphNebulaUnchangedMs: routes.graphUnchanged,
    graphTreeMs: routes.graphTree,
    hostRss,
    rssMb: Math.round(process.memoryUsage().rss / 1e6),
    fileMb: Math.round(fileMb * 10) / 10,
  }
}

type RouteTimings = Record<'status' | 'facts' | 'graph' | 'graphUnchanged' | 'graphTree', ReturnType<typeof percentiles>>

/**
 * The status verb, the first page of the facts verb, the graph verb's nebula and its one-hop tree around the given
 * subjects, called in process with the routes' own handlers.
 */
function routeTimings(memory: FactMemory, config: ResolvedConfig, centers: readonly string[]): RouteTimings {
  const opened = memory.storeSet()
  if (!('stores' in opened)) throw new Error('store not open')
  const context: VerbContext = {
    stores: opened.stores, config, clock: systemClock, now: () => new Date().toISOString(), credentials: undefined,
    confirmations: createConfirmationBook(systemClock),
    memory: { status: () => memory.status(), advance: () => memory.advance(), search: (ask) => memory.search(ask, config) },
  }
  const run = (name: string, body: unknown): number => {
    const definition = VERBS[name]
    if (definition === undefined) throw new Error(name)
    return time(() => {
      const outcome = definition.run(definition.schema.parse(body), context)
      if (outcome instanceof Promise || !outcome.ok) throw new Error(`${name} did not answer synchronously and ok`)
    })
  }
  for (let i = 0; i < 5; i += 1) { run('status', {}); run('facts', {}); run('graph', {}); run('graph', { view: 'tree', center: centers[i % centers.length] }) }
  return {
    status: percentiles(Array.from({ length: 100 }, () => run('status', {}))),
    facts: percentiles(Array.from({ length: 100 }, () => run('facts', {}))),
    // Each timed nebula follows an (untimed) write, so it is projected afresh rather than reused.
    graph: percentiles(Array.from({ length: 20 }, (_, i) => {
      memory.write({ subject: `bench-graph-${i}`, property: 'probe', value: String(i), evidence: 'observed', origin: 'tool' }, config)
      return run('graph', {})
    })),
    graphUnchanged: percentiles(Array.from({ length: 100 }, () => run('graph', {}))),
    graphTree: percentiles(Array.from({ length: 100 }, (_, i) => run('graph', { view: 'tree', center: centers[i % centers.length] }))),
  }
}

const CATEGORY = ['all (1-4)', 'multi-hop', 'temporal', 'open-domain', 'single-hop']
const SHAPE_LABEL: Readonly<Record<LocomoShape, string>> = {
  multi: 'one multi-valued observation slot per speaker',
  slot: 'one slot per observation',
}

const results: { speed: SpeedRow[]; extraction?: ExtractionTimings; locomo?: LocomoResult[]; review?: ReviewQuality[]; fold?: FoldBench; vectors?: VectorBench[] } = { speed: [] }
console.log(`dsh-fact-memory bench · node ${process.version} · ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}\n`)
if (runs('speed')) {
  for (const size of SIZES) {
    process.stdout.write(`seeding ${size} facts… `)
    const row = await speed(size)
    console.log(`done in ${row.seedSeconds} s`)
    results.speed.push(row)
  }
  console.log('\n| facts | search p50/p95 ms | directory cached p50/p95 ms | directory rebuild p50/p95 ms | write p50/p95 ms | cold open p50/p95 ms | file MB | RSS MB |')
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const row of results.speed) {
    console.log(`| ${row.facts} | ${row.searchMs.p50} / ${row.searchMs.p95} | ${row.directoryCachedMs.p50} / ${row.directoryCachedMs.p95} | ${row.directoryRebuildMs.p50} / ${row.directoryRebuildMs.p95} | ${row.writeMs.p50} / ${row.writeMs.p95} | ${row.coldOpenMs.p50} / ${row.coldOpenMs.p95} | ${row.fileMb} | ${row.rssMb} |`)
  }
  console.log('\n| facts | status route p50/p95 ms | first facts page p50/p95 ms | graph nebula after a write p50/p95 ms | graph nebula unchanged p50/p95 ms | graph tree p50/p95 ms |')
  console.log('|---:|---:|---:|---:|---:|---:|')
  for (const row of results.speed) {
    console.log(`| ${row.facts} | ${row.statusRouteMs.p50} / ${row.statusRouteMs.p95} | ${row.factsPageMs.p50} / ${row.factsPageMs.p95} | ${row.graphNebulaMs.p50} / ${row.graphNebulaMs.p95} | ${row.graphNebulaUnchangedMs.p50} / ${row.graphNebulaUnchangedMs.p95} | ${row.graphTreeMs.p50} / ${row.graphTreeMs.p95} |`)
  }
  console.log('\n| facts | web host RSS, store open MB | after the first nebula MB (added) | after 10 more nebulas and 10 trees MB (added) |')
  console.log('|---:|---:|---:|---:|')
  for (const { facts, hostRss: rss } of results.speed) {
    console.log(`| ${facts} | ${rss.idleMb} | ${rss.firstNebulaMb} (+${rss.firstNebulaMb - rss.idleMb}) | ${rss.afterMoreMb} (+${rss.afterMoreMb - rss.idleMb}) |`)
  }
  const extraction = await extractionTimings()
  results.extraction = extraction
  console.log('\n| automatic capture | p50 ms | p95 ms | max ms |')
  console.log('|---|---:|---:|---:|')
  console.log(`| added to a turn (the event listener, both paths on) | ${extraction.listenerPerTurnMs.p50} | ${extraction.listenerPerTurnMs.p95} | ${extraction.listenerPerTurnMs.max} |`)
  console.log(`| rule path on one user message (after the turn) | ${extraction.rulesPerMessageMs.p50} | ${extraction.rulesPerMessageMs.p95} | ${extraction.rulesPerMessageMs.max} |`)
  console.log(`| one pass over a 24,000-character turn, model excluded | ${extraction.pass24kMs.p50} | ${extraction.pass24kMs.p95} | ${extraction.pass24kMs.max} |`)
}
if (runs('locomo') && !SKIP_LOCOMO && existsSync(LOCOMO)) {
  results.locomo = []
  // The same runs with the vector channel pointed at the fake embedding server of the tests: a plumbing check that the
  // channel reaches the rendered answer end to end. The fake is a word-concept lexicon, not a model: not a quality figure.
  // A real, small model (the Universal Sentence Encoder lite, served on loopback) gives the quality figure.
  const fake = await startFakeSemantic({ dim: 256 })
  const real = await startBenchEmbeddingServer()
  const variants = [
    ...(['multi', 'slot'] as const).map((shape) => ({ shape, semantic: undefined, label: 'lexical channels' })),
    ...(['multi', 'slot'] as const).map((shape) => ({
      shape, semantic: { baseUrl: `${fake.url}/v1`, model: 'fake-lexicon' },
      label: 'lexical channels + the vector channel on the fake embedding server (plumbing check, not a quality figure)',
    })),
    ...(['multi', 'slot'] as const).map((shape) => ({
      shape, semantic: { baseUrl: real.baseUrl, model: BENCH_EMBEDDING_MODEL },
      label: `lexical channels + the vector channel on a real small model (${BENCH_EMBEDDING_MODEL}, 512-d, 2018)`,
    })),
  ]
  for (const { shape, semantic, label: channel } of variants) {
    const quality = await locomoQuality(LOCOMO, shape, semantic)
    results.locomo.push(quality)
    console.log(`\nLoCoMo, ${SHAPE_LABEL[shape]}, ${channel}: the rendered memory_search answer (limit 10, ${quality.budgetChars}-character budget; ${quality.facts} observations, ${quality.questions} questions, categories 1-4; data CC BY-NC 4.0, Maharana et al. 2024)`)
    console.log('| category | questions | any@5 | any@10 | all@10 |')
    console.log('|---|---:|---:|---:|---:|')
    for (const row of quality.rows) console.log(`| ${CATEGORY[row.category] ?? row.category} | ${row.questions} | ${row.anyAt5} | ${row.anyAt10} | ${row.allAt10} |`)
    console.log(`answer length: mean ${quality.answerChars.mean}, max ${quality.answerChars.max} characters; ${quality.answersCut} answers left a matched fact out to fit the budget`)
  }
  await fake.close()
  await real.close()
} else if (runs('locomo') && !SKIP_LOCOMO) {
  console.log(`\nLoCoMo skipped: ${LOCOMO} not found (pass --locomo <path>).`)
}
if (runs('review')) {
  // The set's own statements are the library; a second run pads it with 10,000 unrelated synthetic facts.
  const review = [reviewQuality(), reviewQuality({ fillerFacts: 10_000 })]
  results.review = review
  const [own, padded] = review
  if (own !== undefined && padded !== undefined) {
    const total = own.overall.truePositives + own.overall.falseNegatives
    console.log(`\nNear-duplicate gate on ${own.fixture}: ${own.overall.pairs} labeled pairs written for the set (${total} the same statement), `
      + 'each judged as the write of its second statement meeting its first as a current value of a multi-valued slot')
    console.log('| rule | store | precision | recall | right merges | wrong merges | same pairs kept apart |')
    console.log('|---|---|---:|---:|---:|---:|---:|')
    const row = (rule: string, store: string, counts: ReviewQuality['overall']): void => {
      console.log(`| ${rule} | ${store} | ${counts.precision} | ${counts.recall} | ${counts.truePositives} | ${counts.falsePositives} | ${counts.falseNegatives} |`)
    }
    row('as shipped', `the set's ${own.storeFacts} statements`, own.overall)
    row('as shipped', `+ ${padded.fillerFacts} synthetic facts`, padded.overall)
    row('the seed\'s rule alone (no one-word exchange rule)', `the set's ${own.storeFacts} statements`, own.seedRule)
    row('the seed\'s rule alone (no one-word exchange rule)', `+ ${padded.fillerFacts} synthetic facts`, padded.seedRule)
    console.log('\n| kind of pair | the same statement | pairs | merged | kept apart |')
    console.log('|---|---|---:|---:|---:|')
    for (const kind of own.byKind) {
      const merged = kind.truePositives + kind.falsePositives
      console.log(`| ${kind.kind} | ${kind.same ? 'yes' : 'no'} | ${kind.pairs} | ${merged} | ${kind.pairs - merged} |`)
    }
    for (const merge of own.falseMerges) {
      console.log(`wrong merge (${merge.kind}, cosine ${merge.cosine}): "${merge.a.value}" / "${merge.b.value}"`)
    }
  }
  const fold = foldBench(readFoldPairs(FOLD_PAIRS))
  results.fold = fold
  console.log(`\nFold guard on tests/fixtures/fold-pairs.jsonl (${fold.pairs} pairs, ${fold.positives} that should fold): precision ${fold.precision}, recall ${fold.recall} (${fold.truePositives} folded rightly, ${fold.falsePositives} wrongly, ${fold.falseNegatives} missed)`)
  console.log('| kind | should fold | pairs | judged as labeled |')
  console.log('|---|---|---:|---:|')
  for (const row of fold.byKind) console.log(`| ${row.kind} | ${row.fold ? 'yes' : 'no'} | ${row.pairs} | ${row.agreed} |`)
}
if (runs('vectors')) {
  const vectors = SIZES.map((size) => {
    process.stdout.write(`vector channel at ${size} facts… `)
    const row = vectorBench(size)
    console.log(`vectors stored in ${row.storeSeconds} s`)
    return row
  })
  results.vectors = vectors
  console.log(`\nVector channel, ${vectors[0]?.dim ?? 1024}-d clustered random vectors (a scan figure, not a quality one), query embedding excluded: `
    + `Hamming scan of the sign bits in memory, its ${vectors[0]?.hammingShortlist ?? 0} nearest ranked by the float query against their sign bits, `
    + `the ${vectors[0]?.coarseCandidates ?? 0} best rescored from their int8 rows, depth 20 under model visibility`)
  console.log('| facts | warm query p50/p95 ms | first query after a write p50/p95 ms | first query of a fresh process p50/max ms (open p50 ms) | code load in process ms | bytes/fact on disk (dbstat; file growth) | bytes/fact in the index | bytes/fact process growth |')
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const row of vectors) {
    console.log(`| ${row.facts} | ${row.searchMs.p50} / ${row.searchMs.p95} | ${row.afterWriteMs.p50} / ${row.afterWriteMs.p95} | ${row.freshProcess.firstQueryMs.p50} / ${row.freshProcess.firstQueryMs.max} (${row.freshProcess.openMs.p50}) | ${row.coldLoadMs} | ${row.storedBytesPerFact}; ${row.diskBytesPerFact} | ${row.indexBytesPerFact} | ${row.processBytesPerFact} |`)
  }
  console.log('\nFresh processes: a child process each, a new connection and index, the OS page cache warm from the writes; the second query of each for comparison. The sweep\'s writes: batches of 32 vectors, each its own transaction (synchronous=FULL).')
  console.log('| facts | fresh process second query p50 ms | sweep write ms/vector p50/p95, new | WAL bytes/vector, new | sweep write ms/vector p50/p95, replaced | WAL bytes/vector, replaced | dbstat bytes by table |')
  console.log('|---:|---:|---:|---:|---:|---:|---|')
  for (const row of vectors) {
    const write = row.sweepWrite
    const tables = Object.entries(row.storedBytesByTable).map(([table, bytes]) => `${table} ${Math.round(bytes / row.facts)}`).join(', ')
    console.log(`| ${row.facts} | ${row.freshProcess.secondQueryMs.p50} | ${write.newMsPerVector.p50} / ${write.newMsPerVector.p95} | ${write.newWalBytesPerVector} | ${write.replacedMsPerVector.p50} / ${write.replacedMsPerVector.p95} | ${write.replacedWalBytesPerVector} | ${tables} |`)
  }
  console.log('\n| facts | Hamming shortlist | candidates rescored | recall@10 | epsilon recall@10 (ann-benchmarks, 1.01) | p95 ms |')
  console.log('|---:|---:|---:|---:|---:|---:|')
  for (const row of vectors) {
    for (const point of row.recall) console.log(`| ${row.facts} | ${point.shortlist} | ${point.candidates} | ${point.recallAt10} | ${point.epsilonRecallAt10} | ${point.p95Ms} |`)
  }
}
if (ONLY === undefined || ONLY === 'recall') Object.assign(results, { recall: await (await import('./bench-recall.ts')).recallBench({ locomo: SKIP_LOCOMO || !existsSync(LOCOMO) ? undefined : LOCOMO, sizes: SIZES, args }) })
const outDir = join(REPO_ROOT, 'bench-results')
mkdirSync(outDir, { recursive: true })
const file = join(outDir, `bench-${new Date().toISOString().replace(/[:.]/gu, '-')}.json`)
writeFileSync(file, `${JSON.stringify({ node: process.version, cpus: cpus().length, at: new Date().toISOString(), ...results }, null, 2)}\n`)
console.log(`\nwrote ${file}`)
