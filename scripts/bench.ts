/**
 * npm run bench: speed at 10k and 100k facts (memory_search, directory, single write, cold open, the page's routes),
 * what automatic capture costs a turn, retrieval quality on LoCoMo (evidence recall@5/@10 per category), and the
 * review's operating points: the near-duplicate gate's precision and recall on its labeled pair set, and the fold guard's
 * on tests/fixtures/fold-pairs.jsonl, the privacy scan's on its look-alike set and the red-team corpus
 * (scripts/bench-privacy.ts), the vector channel's scan at 10k and 100k facts (scripts/bench-vectors.ts), recall
 * and search latency with a hanging embedding endpoint, with the breaker and without (scripts/bench-breaker.ts), and
 * status latency while the web host previews and commits a 120,000-line import (scripts/bench-import.ts). Prints
 * tables and writes JSON to bench-results/.
 * A benchmark, not a test: nothing here passes or fails.
 *
 * The speed part (scripts/bench-speed.ts) measures each size beside a bare FTS5 store of the same facts
 * (scripts/bench-bare.ts) and prints issue 20's targets against a baseline run (scripts/bench-speed-report.ts).
 *
 * Options: --sizes 10000,100000   --skip-locomo   --only speed|locomo|review|privacy|vectors|recall|coding-recall|breaker|import|old-facts|sync-apply|sync
 *          --only sync: the first sync, bytes a change, quiet rounds and change-to-current through a folder
 *            (scripts/bench-sync.ts); 10,000 facts unless --sizes says otherwise (100,000 takes minutes)
 *          --only sqlite-vec (the vector kernel beside sqlite-vec; --sqlite-vec <folder where it is installed>,
 *            --sqlite-vec-only for sqlite-vec alone, without seeding the plugin's store)
 *          --locomo <path to locomo10.json>   --import-lines N (the import part's file; 120000)
 *          --keep (keep the stores)   --host-rss-max N (boot the web host for its RSS up to N facts; 100000)
 *          --no-vector-speed (leave the vector channel's p95 out of the speed table)
 *          --baseline <bench JSON> (today's figures for the targets; the newest bench-results/baseline-issue20-*.json)
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { extractionTimings, type ExtractionTimings } from './bench-extraction.ts'
import { locomoQuality, type LocomoResult, type LocomoShape } from './bench-locomo.ts'
import { startFakeSemantic } from '../tests/helpers/fake-semantic.ts'
import { BENCH_EMBEDDING_MODEL, startBenchEmbeddingServer } from './bench-embedding-server.ts'
import { FOLD_PAIRS, foldBench, readFoldPairs, type FoldBench } from './bench-fold.ts'
import { reviewQuality, type ReviewQuality } from './bench-review.ts'
import { speed, type SpeedRow } from './bench-speed.ts'
import { printSpeedTables, printTargets, readBaseline } from './bench-speed-report.ts'
import { machine } from './bench-storage.ts'
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
const HOST_RSS_MAX = Number(option('--host-rss-max') ?? 100_000)
const VECTOR_SPEED = !args.includes('--no-vector-speed')
const RESULTS_DIR = join(REPO_ROOT, 'bench-results')
const STARTED = new Date().toISOString().replace(/[:.]/gu, '-')
/** The speed rows so far, while a run is under way. */
const PARTIAL = join(RESULTS_DIR, `partial-${STARTED}.json`)
/**
 * `--only locomo` runs just the retrieval-quality part, `--only review` the gate and the fold guard, `--only speed` the
 * timings, `--only vectors` the vector channel.
 */
const ONLY = option('--only')
const runs = (part: 'speed' | 'locomo' | 'review' | 'vectors'): boolean => ONLY === undefined || ONLY === part

const CATEGORY = ['all (1-4)', 'multi-hop', 'temporal', 'open-domain', 'single-hop']
const SHAPE_LABEL: Readonly<Record<LocomoShape, string>> = {
  multi: 'one multi-valued observation slot per speaker',
  slot: 'one slot per observation',
}

const results: {
  speed: SpeedRow[]
  extraction?: ExtractionTimings
  locomo?: LocomoResult[]
  review?: ReviewQuality[]
  fold?: FoldBench
  vectors?: VectorBench[]
} = { speed: [] }
const host = machine()
console.log(
  `dsh-fact-memory bench · node ${host.node} · ${host.cpus} × ${host.cpuModel} · ${host.driver} (SQLite ${host.sqliteVersion})\n`,
)
/**
 * The vector bench once per size: the speed table takes its warm p95, the vector part its whole row.
 * TODO(scripts/bench-vectors.ts): vectorBench seeds a store of its own (a second seed per size, of the corpus drawn
 * from mulberry32(size + 1)); a helper that adds the vectors to a store already seeded would let the speed part time
 * the vector channel on its own store and save that seed (minutes at a million facts).
 */
const vectorRuns = new Map<number, VectorBench>()
const vectorRun = (size: number): VectorBench => {
  const known = vectorRuns.get(size)
  if (known !== undefined) return known
  const row = vectorBench(size)
  vectorRuns.set(size, row)
  return row
}
if (runs('speed')) {
  mkdirSync(RESULTS_DIR, { recursive: true })
  for (const size of SIZES) {
    const started = Date.now()
    process.stdout.write(`speed at ${size} facts:`)
    const progress = (step: string): void => {
      process.stdout.write(` ${step} (${Math.round((Date.now() - started) / 1000)} s)…`)
    }
    const row = await speed(size, { keep: KEEP, hostRss: size <= HOST_RSS_MAX, progress })
    // What is measured so far, kept before the vector channel's run (minutes at a million facts).
    writeFileSync(PARTIAL, `${JSON.stringify({ machine: host, args, speed: [...results.speed, row] }, null, 2)}\n`)
    if (VECTOR_SPEED) progress('vector channel')
    results.speed.push(VECTOR_SPEED ? { ...row, vectorSearchMs: vectorRun(size).searchMs } : row)
    console.log(` done; seeded in ${row.seedSeconds} s`)
  }
  rmSync(PARTIAL, { force: true })
  printSpeedTables(results.speed)
  const extraction = await extractionTimings()
  results.extraction = extraction
  console.log('\n| automatic capture | p50 ms | p95 ms | max ms |')
  console.log('|---|---:|---:|---:|')
  console.log(
    `| added to a turn (the event listener, both paths on) | ${extraction.listenerPerTurnMs.p50} | ${extraction.listenerPerTurnMs.p95} | ${extraction.listenerPerTurnMs.max} |`,
  )
  console.log(
    `| rule path on one user message (after the turn) | ${extraction.rulesPerMessageMs.p50} | ${extraction.rulesPerMessageMs.p95} | ${extraction.rulesPerMessageMs.max} |`,
  )
  console.log(
    `| one pass over a 24,000-character turn, model excluded | ${extraction.pass24kMs.p50} | ${extraction.pass24kMs.p95} | ${extraction.pass24kMs.max} |`,
  )
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
      shape,
      semantic: { baseUrl: `${fake.url}/v1`, model: 'fake-lexicon' },
      label:
        'lexical channels + the vector channel on the fake embedding server (plumbing check, not a quality figure)',
    })),
    ...(['multi', 'slot'] as const).map((shape) => ({
      shape,
      semantic: { baseUrl: real.baseUrl, model: BENCH_EMBEDDING_MODEL },
      label: `lexical channels + the vector channel on a real small model (${BENCH_EMBEDDING_MODEL}, 512-d, 2018)`,
    })),
  ]
  for (const { shape, semantic, label: channel } of variants) {
    const quality = await locomoQuality(LOCOMO, shape, semantic)
    results.locomo.push(quality)
    console.log(
      `\nLoCoMo, ${SHAPE_LABEL[shape]}, ${channel}: the rendered memory_search answer (limit 10, ${quality.budgetChars}-character budget; ${quality.facts} observations, ${quality.questions} questions, categories 1-4; data CC BY-NC 4.0, Maharana et al. 2024)`,
    )
    console.log('| category | questions | any@5 | any@10 | all@10 |')
    console.log('|---|---:|---:|---:|---:|')
    for (const row of quality.rows)
      console.log(
        `| ${CATEGORY[row.category] ?? row.category} | ${row.questions} | ${row.anyAt5} | ${row.anyAt10} | ${row.allAt10} |`,
      )
    console.log(
      `answer length: mean ${quality.answerChars.mean}, max ${quality.answerChars.max} characters; ${quality.answersCut} answers left a matched fact out to fit the budget`,
    )
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
    console.log(
      `\nNear-duplicate gate on ${own.fixture}: ${own.overall.pairs} labeled pairs written for the set (${total} the same statement), ` +
        'each judged as the write of its second statement meeting its first as a current value of a multi-valued slot',
    )
    console.log('| rule | store | precision | recall | right merges | wrong merges | same pairs kept apart |')
    console.log('|---|---|---:|---:|---:|---:|---:|')
    const row = (rule: string, store: string, counts: ReviewQuality['overall']): void => {
      console.log(
        `| ${rule} | ${store} | ${counts.precision} | ${counts.recall} | ${counts.truePositives} | ${counts.falsePositives} | ${counts.falseNegatives} |`,
      )
    }
    row('as shipped', `the set's ${own.storeFacts} statements`, own.overall)
    row('as shipped', `+ ${padded.fillerFacts} synthetic facts`, padded.overall)
    row("the seed's rule alone (no one-word exchange rule)", `the set's ${own.storeFacts} statements`, own.seedRule)
    row("the seed's rule alone (no one-word exchange rule)", `+ ${padded.fillerFacts} synthetic facts`, padded.seedRule)
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
  console.log(
    `\nFold guard on tests/fixtures/fold-pairs.jsonl (${fold.pairs} pairs, ${fold.positives} that should fold): precision ${fold.precision}, recall ${fold.recall} (${fold.truePositives} folded rightly, ${fold.falsePositives} wrongly, ${fold.falseNegatives} missed)`,
  )
  console.log('| kind | should fold | pairs | judged as labeled |')
  console.log('|---|---|---:|---:|')
  for (const row of fold.byKind)
    console.log(`| ${row.kind} | ${row.fold ? 'yes' : 'no'} | ${row.pairs} | ${row.agreed} |`)
}
if (runs('vectors')) {
  const vectors = SIZES.map((size) => {
    process.stdout.write(`vector channel at ${size} facts… `)
    const row = vectorRun(size)
    console.log(`vectors stored in ${row.storeSeconds} s`)
    return row
  })
  results.vectors = vectors
  console.log(
    `\nVector channel, ${vectors[0]?.dim ?? 1024}-d clustered random vectors (a scan figure, not a quality one), query embedding excluded: ` +
      `Hamming scan of the sign bits in memory, its ${vectors[0]?.hammingShortlist ?? 0} nearest ranked by the float query against their sign bits, ` +
      `the ${vectors[0]?.coarseCandidates ?? 0} best rescored from their int8 rows, depth 20 under model visibility`,
  )
  console.log(
    '| facts | warm query p50/p95 ms | first query after a write p50/p95 ms | code load in process ms | bytes/fact on disk (dbstat; file growth) | bytes/fact in the index | bytes/fact process growth |',
  )
  console.log('|---:|---:|---:|---:|---:|---:|---:|')
  for (const row of vectors) {
    console.log(
      `| ${row.facts} | ${row.searchMs.p50} / ${row.searchMs.p95} | ${row.afterWriteMs.p50} / ${row.afterWriteMs.p95} | ${row.coldLoadMs} | ${row.storedBytesPerFact}; ${row.diskBytesPerFact} | ${row.indexBytesPerFact} | ${row.processBytesPerFact} |`,
    )
  }
  const fresh = vectors[0]?.freshProcess.firstQueryMs.n ?? 0
  console.log(
    `\nFresh processes, ${fresh} each way, taken in turn: a child process each, a new connection and index (making it compiles the scan's kernel), the OS page cache warm from the writes. Cold: the first query loads the codes itself. Warm start: the codes are loaded first as the plugin loads them when it starts, a slice between turns of the event loop. Halfway: the first query comes halfway through that load and reads the rest. ms, p50 / max.`,
  )
  console.log(
    '| facts | open | index | cold: first query | cold: second query | warm start: load | warm start: longest slice | warm start: first query | warm start: second query | halfway: first query | halfway: second query |',
  )
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  const pm = (t: { p50: number; max: number }): string => `${t.p50} / ${t.max}`
  for (const row of vectors) {
    const { freshProcess: cold, warmStart: warm, midway } = row
    console.log(
      `| ${row.facts} | ${cold.openMs.p50} | ${cold.indexMs.p50} | ${pm(cold.firstQueryMs)} | ${pm(cold.secondQueryMs)} | ${pm(warm.preloadMs)} | ${pm(warm.longestSliceMs)} | ${pm(warm.firstQueryMs)} | ${pm(warm.secondQueryMs)} | ${pm(midway.firstQueryMs)} | ${pm(midway.secondQueryMs)} |`,
    )
  }
  console.log("\nThe sweep's writes: batches of 32 vectors, each its own transaction (synchronous=FULL).")
  console.log(
    '| facts | sweep write ms/vector p50/p95, new | WAL bytes/vector, new | sweep write ms/vector p50/p95, replaced | WAL bytes/vector, replaced | dbstat bytes by table |',
  )
  console.log('|---:|---:|---:|---:|---:|---|')
  for (const row of vectors) {
    const write = row.sweepWrite
    const tables = Object.entries(row.storedBytesByTable)
      .map(([table, bytes]) => `${table} ${Math.round(bytes / row.facts)}`)
      .join(', ')
    console.log(
      `| ${row.facts} | ${write.newMsPerVector.p50} / ${write.newMsPerVector.p95} | ${write.newWalBytesPerVector} | ${write.replacedMsPerVector.p50} / ${write.replacedMsPerVector.p95} | ${write.replacedWalBytesPerVector} | ${tables} |`,
    )
  }
  console.log(
    '\n| facts | Hamming shortlist | candidates rescored | recall@10 | epsilon recall@10 (ann-benchmarks, 1.01) | p95 ms |',
  )
  console.log('|---:|---:|---:|---:|---:|---:|')
  for (const row of vectors) {
    for (const point of row.recall)
      console.log(
        `| ${row.facts} | ${point.shortlist} | ${point.candidates} | ${point.recallAt10} | ${point.epsilonRecallAt10} | ${point.p95Ms} |`,
      )
  }
}
// The vector rows the speed table measured count too when the vector part itself did not run.
if (results.vectors === undefined && vectorRuns.size > 0) results.vectors = [...vectorRuns.values()]
if (runs('speed')) printTargets(results.speed, results.vectors, readBaseline(option('--baseline'), RESULTS_DIR))
if (ONLY === undefined || ONLY === 'privacy')
  Object.assign(results, { privacy: (await import('./bench-privacy.ts')).privacyBench() })
if (ONLY === undefined || ONLY === 'recall')
  Object.assign(results, {
    recall: await (await import('./bench-recall.ts')).recallBench({
      locomo: SKIP_LOCOMO || !existsSync(LOCOMO) ? undefined : LOCOMO,
      sizes: SIZES,
      args,
    }),
  })
if (ONLY === undefined || ONLY === 'import') {
  // A 120,000-line file previewed and committed on the real web host while status is called every 250 ms (issue 31).
  const { importBench } = await import('./bench-import.ts')
  const row = await importBench(Number(option('--import-lines') ?? 120_000))
  Object.assign(results, { import: row })
  console.log(
    `\nImport of ${row.lines} one-line facts (${(row.bytes / 1024 / 1024).toFixed(1)} MB) on the web host, status called every 250 ms meanwhile`,
  )
  console.log('| step | ms | status calls | status wait max ms | status wait p50 ms |')
  console.log('|---|---:|---:|---:|---:|')
  for (const [step, timing] of [
    ['preview', row.preview],
    ['commit', row.commit],
  ] as const) {
    console.log(`| ${step} | ${timing.ms} | ${timing.statusCalls} | ${timing.statusMaxMs} | ${timing.statusP50Ms} |`)
  }
}
if (ONLY === undefined || ONLY === 'coding-recall')
  Object.assign(results, { codingRecall: await (await import('./bench-coding-recall.ts')).codingRecallBench(args) })
if (ONLY === undefined || ONLY === 'breaker')
  Object.assign(results, { breaker: await (await import('./bench-breaker.ts')).breakerBench() })
// Only when asked, and only where sqlite-vec is installed (it is no dependency of the plugin): the kernel beside it.
if (ONLY === 'sqlite-vec')
  Object.assign(results, { sqliteVec: await (await import('./bench-sqlite-vec.ts')).sqliteVecBench(SIZES, args) })
// Only when asked: receiving and applying other devices' sync records on a library of each size.
if (ONLY === 'sync-apply') {
  const { printSyncApply, syncApplyBench } = await import('./bench-sync-apply.ts')
  const rows = SIZES.flatMap((size) => syncApplyBench(size, [1000, 10_000]))
  printSyncApply(rows)
  Object.assign(results, { syncApply: rows })
}
// Only when asked: two stores syncing through a real folder; 10k facts unless --sizes is given.
if (ONLY === 'sync') {
  const { printSyncBench, syncBench } = await import('./bench-sync.ts')
  const sizes = option('--sizes') === undefined ? [10_000] : SIZES
  const rows = await syncBench(sizes, undefined, (step) => {
    console.log(`sync: ${step}`)
  })
  printSyncBench(rows)
  Object.assign(results, { sync: rows })
}
// Only when asked: it seeds a store of its own per size.
if (ONLY === 'old-facts')
  Object.assign(results, { oldFacts: (await import('./bench-old-facts.ts')).oldFactsBench(SIZES, args) })
mkdirSync(RESULTS_DIR, { recursive: true })
const file = join(RESULTS_DIR, `bench-${new Date().toISOString().replace(/[:.]/gu, '-')}.json`)
writeFileSync(
  file,
  `${JSON.stringify({ node: host.node, cpus: host.cpus, machine: host, at: new Date().toISOString(), args, ...results }, null, 2)}\n`,
)
console.log(`\nwrote ${file}`)
