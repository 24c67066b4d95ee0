/**
 * The vector channel's speed and size for npm run bench (`--only vectors`): a store of the speed bench's synthetic
 * facts gets one clustered 1024-d vector per fact (scripts/bench-vector-corpus.ts; random vectors, so this measures
 * the scan, not retrieval quality), then the channel is timed as a search runs it with the query embedding excluded:
 * the first query of a fresh process (child processes on a fresh connection, the OS page cache warm from the writes:
 * what a one-shot headless run pays), the same after the codes were loaded as the plugin's warm start loads them, the one-off load of the sign codes in this process, warm queries, the first
 * query after another vector was written, and the recall@10 of the coarse stages with exact rescoring against an
 * exact scan of the same stored vectors for a few widths (the Hamming scan alone, as the index first shipped, among
 * them). The sweep's write cost is timed per vector as it writes (batches of 32 in their own transaction, new vectors
 * and replaced ones), with the WAL bytes each adds. Bytes per fact are read on disk with dbstat over every table and
 * index the vectors add, beside the file's growth when they were added, and in memory (the index's typed arrays, and
 * the process's growth after a collection).
 * A benchmark, not a test.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { systemClock } from '../src/clock.ts'
import { configWith, resolveConfig } from '../src/config.ts'
import { embeddingFingerprint } from '../src/semantic/fingerprint.ts'
import { factText, textHash } from '../src/semantic/input-text.ts'
import { cosineQuantized, quantize } from '../src/semantic/quantize.ts'
import { COARSE_CANDIDATES, HAMMING_SHORTLIST, VectorIndex, type ScanWidth } from '../src/semantic/vector-index.ts'
import { Database, STORE_FILE } from '../src/store/database.ts'
import { VectorStore, type VectorSpace } from '../src/store/vector-store.ts'
import { makeCorpus, mulberry32, seedStore } from './bench-corpus.ts'
import { type Percentiles, percentiles, round, time } from './bench-stats.ts'
import { ClusteredVectors } from './bench-vector-corpus.ts'

/** p50 / p95 / max of some timings, in ms. */
export type Timings = Percentiles

/** What the vector bench reports for one store size. */
export interface VectorBench {
  readonly facts: number
  readonly dim: number
  readonly hammingShortlist: number
  readonly coarseCandidates: number
  /** Seconds to embed-and-store every fact's vector (the embedding endpoint replaced by the generator). */
  readonly storeSeconds: number
  /** Loading every sign code into a fresh index, once, in this process (a fresh connection). */
  readonly coldLoadMs: number
  /**
   * In {@link FRESH_PROCESSES} child processes: opening the store, making the index (compiling the scan's kernel), its
   * first vector query (loading the codes) and the second.
   */
  readonly freshProcess: {
    readonly openMs: Timings
    readonly indexMs: Timings
    readonly firstQueryMs: Timings
    readonly secondQueryMs: Timings
  }
  /**
   * In as many child processes, alternating with those above: the codes loaded first as the plugin's warm start loads
   * them (the whole load, its longest slice between turns of the event loop), then the first and second query.
   */
  readonly warmStart: {
    readonly preloadMs: Timings
    readonly longestSliceMs: Timings
    readonly firstQueryMs: Timings
    readonly secondQueryMs: Timings
  }
  /** In as many child processes again: the first query comes halfway through that load, and reads the rest itself. */
  readonly midway: { readonly firstQueryMs: Timings; readonly secondQueryMs: Timings }
  /** Warm queries, depth 20 under model visibility: version check, coarse scan, rescoring read, sort. */
  readonly searchMs: Timings
  /** The first query after one more vector was stored (the index reads the new row). */
  readonly afterWriteMs: Timings
  /**
   * Against an exact scan of the stored vectors, by scan width (the Hamming shortlist and the candidates its
   * asymmetric score keeps for rescoring; a shortlist equal to the candidates is the Hamming scan alone): recall@10,
   * the epsilon recall@10 of ann-benchmarks (a hit within 1.01 × the true 10th's distance counts: neighbours tied
   * with the 10th are not misses), and the p95 of those queries.
   */
  readonly recall: readonly {
    readonly shortlist: number
    readonly candidates: number
    readonly recallAt10: number
    readonly epsilonRecallAt10: number
    readonly p95Ms: number
  }[]
  /** The file's growth when the vectors were added, per vector (after a checkpoint; freed pages count). */
  readonly diskBytesPerFact: number
  /** dbstat over every table and index the vectors add, per vector, and by table (its indexes included). */
  readonly storedBytesPerFact: number
  readonly storedBytesByTable: Readonly<Record<string, number>>
  /** The sweep's writes, batches of 32 in their own transaction: ms and WAL bytes per vector, new and replaced. */
  readonly sweepWrite: {
    readonly newMsPerVector: Timings
    readonly newWalBytesPerVector: number
    readonly replacedMsPerVector: Timings
    readonly replacedWalBytesPerVector: number
  }
  /** The index's memory per vector (its kernel's WebAssembly memory: codes, fact ids, scratch). */
  readonly indexBytesPerFact: number
  /** The process's heap and external memory growth per vector after loading the index and a collection. */
  readonly processBytesPerFact: number
}

const DIM = 1024
const DEPTH = 20
const MODEL = { includeSensitive: false } as const

/** Child processes timed for the first query of a fresh process, each way. */
const FRESH_PROCESSES = 9

/** The sweep's batch (vector-sweep-run.ts EMBED_BATCH), and how many batches of each kind are timed. */
const SWEEP_BATCH = 32
const SWEEP_BATCHES = 10

/** The tables the vector channel adds (their indexes are counted with them; the newer layout's blocks among them). */
const VECTOR_TABLES = ['vector_spaces', 'fact_vectors', 'vector_blocks', 'vector_free_slots']

const FIRST_QUERY_SCRIPT = fileURLToPath(new URL('./bench-vector-first-query.ts', import.meta.url))

/**
 * Measure the vector channel on a store of `size` facts.
 * @param size - how many facts (each gets a vector).
 * @returns the figures.
 */
export function vectorBench(size: number): VectorBench {
  const dir = mkdtempSync(join(tmpdir(), `fact-memory-bench-vectors-${size}-`))
  try {
    const config = resolveConfig(configWith({ dataDir: dir }), { dshHome: dir, userHome: dir })
    const random = mulberry32(size + 1)
    seedStore(dir, makeCorpus(size, random).facts, systemClock, config)
    const bytesBefore = fileBytes(dir)
    const source = new ClusteredVectors(DIM, Math.max(20, Math.floor(size / 500)), random)
    const db = Database.open({ dataDir: dir, now: () => new Date().toISOString() })
    const store = new VectorStore(db)
    const fingerprint = embeddingFingerprint({
      provider: 'openai',
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'bench',
      dim: DIM,
    })
    const space = store.ensureSpace(
      fingerprint,
      { provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'bench' },
      new Date().toISOString(),
    )
    store.fixDimension(space.id, DIM)
    const started = performance.now()
    const stored = storeAll(store, space, source, random)
    const storeSeconds = (performance.now() - started) / 1000
    const storedBytesByTable = storedBytes(db)
    db.close()
    const diskBytesPerFact = Math.round((fileBytes(dir) - bytesBefore) / stored.ids.length)
    const storedBytesPerFact = Math.round(
      Object.values(storedBytesByTable).reduce((sum, value) => sum + value, 0) / stored.ids.length,
    )
    // Queries of their own, so the scan below draws the same queries as runs before this figure existed.
    const { freshProcess, warmStart, midway } = freshProcesses(
      dir,
      fingerprint,
      new ClusteredVectors(DIM, 20, mulberry32(size + 3)),
    )
    const scanned = scan(dir, space, stored, source)
    // Last, so the corpus searched above is the one earlier runs searched: facts of their own for the new vectors.
    seedStore(dir, makeCorpus(SWEEP_BATCH * SWEEP_BATCHES, mulberry32(size + 2)).facts, systemClock, config)
    const sweepWrite = sweepWrites(dir, space, source, random, stored)
    return {
      facts: size,
      dim: DIM,
      hammingShortlist: HAMMING_SHORTLIST,
      coarseCandidates: COARSE_CANDIDATES,
      storeSeconds: round(storeSeconds),
      diskBytesPerFact,
      storedBytesPerFact,
      storedBytesByTable,
      sweepWrite,
      freshProcess,
      warmStart,
      midway,
      ...scanned,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The stored vectors, kept for the exact scan. */
export interface Stored {
  readonly ids: number[]
  readonly vectors: { readonly scale: number; readonly quantized: Int8Array }[]
}

/** Give every fact a vector, facts of one subject run close together, 1,000 to a batch. */
export function storeAll(
  store: VectorStore,
  space: VectorSpace,
  source: ClusteredVectors,
  random: () => number,
): Stored {
  const stored: Stored = { ids: [], vectors: [] }
  let pending: Float32Array[] = []
  for (
    let batch = store.factsNeedingVectors(space.id, 1000);
    batch.length > 0;
    batch = store.factsNeedingVectors(space.id, 1000)
  ) {
    const rows = batch.map((fact) => {
      if (pending.length === 0) pending = source.subject(1 + Math.floor(random() * 6))
      const unit = pending.pop() ?? source.gaussianUnit()
      const row = { factId: fact.id, revision: fact.revision, textHash: textHash(factText(fact)), ...quantize(unit) }
      stored.ids.push(fact.id)
      stored.vectors.push({ scale: row.scale, quantized: row.quantized })
      return row
    })
    store.storeVectors(space.id, rows, new Date().toISOString())
  }
  return stored
}

/**
 * The sweep's writes as it makes them: the facts without a vector get theirs in batches of {@link SWEEP_BATCH}, then
 * as many stored vectors are replaced, each batch its own transaction; the WAL is truncated before each kind.
 */
function sweepWrites(
  dir: string,
  space: VectorSpace,
  source: ClusteredVectors,
  random: () => number,
  stored: Stored,
): VectorBench['sweepWrite'] {
  const db = Database.open({ dataDir: dir, now: () => new Date().toISOString() })
  try {
    return sweepWritesOn(db, new VectorStore(db), space, source, random, stored)
  } finally {
    db.close()
  }
}

function sweepWritesOn(
  db: Database,
  store: VectorStore,
  space: VectorSpace,
  source: ClusteredVectors,
  random: () => number,
  stored: Stored,
): VectorBench['sweepWrite'] {
  const walFile = `${db.path}-wal`
  const walBytes = (): number => (existsSync(walFile) ? statSync(walFile).size : 0)
  const timed = (
    batches: () => { factId: number; revision: number }[] | undefined,
  ): { ms: number[]; walBytesPerVector: number } => {
    db.get('PRAGMA wal_checkpoint(TRUNCATE)')
    const before = walBytes()
    const ms: number[] = []
    let vectors = 0
    for (let n = 0; n < SWEEP_BATCHES; n += 1) {
      const facts = batches()
      if (facts === undefined || facts.length === 0) break
      const rows = facts.map((fact, i) => {
        const row = {
          factId: fact.factId,
          revision: fact.revision,
          textHash: textHash(`sweep-${fact.factId}-${n}-${i}`),
          ...quantize(source.gaussianUnit()),
        }
        const at = stored.ids.indexOf(fact.factId)
        if (at < 0) {
          stored.ids.push(fact.factId)
          stored.vectors.push({ scale: row.scale, quantized: row.quantized })
        } else {
          stored.vectors[at] = { scale: row.scale, quantized: row.quantized }
        }
        return row
      })
      const started = performance.now()
      store.storeVectors(space.id, rows, new Date().toISOString())
      ms.push((performance.now() - started) / rows.length)
      vectors += rows.length
    }
    return { ms, walBytesPerVector: Math.round((walBytes() - before) / Math.max(1, vectors)) }
  }
  const fresh = timed(() =>
    store.factsNeedingVectors(space.id, SWEEP_BATCH).map((fact) => ({ factId: fact.id, revision: fact.revision })),
  )
  const replaced = timed(() =>
    Array.from({ length: SWEEP_BATCH }, () => ({
      factId: stored.ids[Math.floor(random() * stored.ids.length)] ?? 0,
      revision: 1,
    })),
  )
  return {
    newMsPerVector: timings(fresh.ms),
    newWalBytesPerVector: fresh.walBytesPerVector,
    replacedMsPerVector: timings(replaced.ms),
    replacedWalBytesPerVector: replaced.walBytesPerVector,
  }
}

/** dbstat's bytes of each vector table with its indexes. */
function storedBytes(db: Database): Record<string, number> {
  const rows = db.all(
    `SELECT s.tbl_name AS tbl, sum(d.pgsize) AS bytes FROM dbstat d JOIN sqlite_schema s ON s.name = d.name
    WHERE s.tbl_name IN (${VECTOR_TABLES.map(() => '?').join(', ')}) GROUP BY s.tbl_name ORDER BY s.tbl_name`,
    ...VECTOR_TABLES,
  )
  return Object.fromEntries(rows.map((row) => [String(row['tbl']), Number(row['bytes'])]))
}

/**
 * The first and second query of {@link FRESH_PROCESSES} fresh processes each way, each on its own connection, the
 * ways taken in turn so the machine's moments fall on each alike.
 */
function freshProcesses(
  dir: string,
  fingerprint: string,
  source: ClusteredVectors,
): Pick<VectorBench, 'freshProcess' | 'warmStart' | 'midway'> {
  const queryFile = join(dir, 'queries.f32')
  const child = (way: 'cold' | 'preloaded' | 'midway'): Record<string, number> => {
    const queries = new Float32Array(2 * DIM)
    queries.set(source.gaussianUnit(), 0)
    queries.set(source.gaussianUnit(), DIM)
    writeFileSync(queryFile, new Uint8Array(queries.buffer))
    const run = spawnSync(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', FIRST_QUERY_SCRIPT, dir, fingerprint, queryFile, way],
      { encoding: 'utf8' },
    )
    if (run.status !== 0) throw new Error(`the fresh process failed: ${run.stderr}`)
    return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, number>
  }
  const cold: Record<string, number>[] = []
  const preloaded: Record<string, number>[] = []
  const halfway: Record<string, number>[] = []
  for (let run = 0; run < FRESH_PROCESSES; run += 1) {
    cold.push(child('cold'))
    preloaded.push(child('preloaded'))
    halfway.push(child('midway'))
  }
  const of = (answers: readonly Record<string, number>[], key: string): Timings =>
    timings(answers.map((answer) => answer[key] ?? 0))
  return {
    freshProcess: {
      openMs: of(cold, 'openMs'),
      indexMs: of(cold, 'indexMs'),
      firstQueryMs: of(cold, 'firstQueryMs'),
      secondQueryMs: of(cold, 'secondQueryMs'),
    },
    warmStart: {
      preloadMs: of(preloaded, 'preloadMs'),
      longestSliceMs: of(preloaded, 'longestSliceMs'),
      firstQueryMs: of(preloaded, 'firstQueryMs'),
      secondQueryMs: of(preloaded, 'secondQueryMs'),
    },
    midway: { firstQueryMs: of(halfway, 'firstQueryMs'), secondQueryMs: of(halfway, 'secondQueryMs') },
  }
}

function scan(
  dir: string,
  space: VectorSpace,
  stored: Stored,
  source: ClusteredVectors,
): Pick<
  VectorBench,
  'coldLoadMs' | 'searchMs' | 'afterWriteMs' | 'recall' | 'indexBytesPerFact' | 'processBytesPerFact'
> {
  const db = Database.open({ dataDir: dir, now: () => new Date().toISOString() })
  try {
    const store = new VectorStore(db)
    const collect = garbageCollector()
    collect()
    const before = process.memoryUsage()
    const index = new VectorIndex()
    const coldStarted = performance.now()
    index.warm(store, space.id)
    const coldLoadMs = performance.now() - coldStarted
    collect()
    const after = process.memoryUsage()
    // `external` holds the Buffers and the scan kernel's WebAssembly memory (`arrayBuffers` is part of it).
    const grown = after.heapUsed - before.heapUsed + (after.external - before.external)
    const footprint = index.footprint(store, space.id)

    const random = mulberry32(99)
    const queryNear = (): Float32Array => {
      const at = Math.floor(random() * stored.ids.length)
      const [base] = store.rescoreRows(space.id, [stored.ids[at] ?? 0], undefined)
      const unit = Float32Array.from(base?.quantized ?? [], (code) => code * (base?.scale ?? 0))
      return source.near(unit, random() < 0.5 ? 0.5 : 1)
    }
    const queries = Array.from({ length: 200 }, queryNear)
    for (const query of queries.slice(0, 20)) index.search(store, space, query, DEPTH, MODEL)
    const searchMs = timings(queries.map((query) => time(() => index.search(store, space, query, DEPTH, MODEL))))

    const afterWrite: number[] = []
    for (let i = 0; i < 20; i += 1) {
      const id = stored.ids[i] ?? 0
      store.storeVectors(
        space.id,
        [{ factId: id, revision: 1, textHash: textHash(`bench-${i}`), ...quantize(source.gaussianUnit()) }],
        new Date().toISOString(),
      )
      afterWrite.push(time(() => index.search(store, space, queries[i] ?? source.gaussianUnit(), DEPTH, MODEL)))
    }

    const exactQueries = queries.slice(0, 40)
    // The vectors replaced above are not those of the exact scan: leave their facts out of both sides.
    const replaced = new Set(stored.ids.slice(0, 20))
    const exact = exactQueries.map((query) =>
      stored.vectors
        .map((vector, i) => ({ id: stored.ids[i] ?? 0, score: cosineQuantized(query, vector.quantized, vector.scale) }))
        .filter((hit) => !replaced.has(hit.id))
        .sort((a, b) => b.score - a.score)
        .slice(0, 10),
    )
    const widths: ScanWidth[] = [
      { shortlist: COARSE_CANDIDATES, candidates: COARSE_CANDIDATES },
      { shortlist: 400, candidates: 400 },
      { shortlist: HAMMING_SHORTLIST, candidates: 100 },
      { shortlist: HAMMING_SHORTLIST, candidates: COARSE_CANDIDATES },
      { shortlist: HAMMING_SHORTLIST, candidates: 400 },
      { shortlist: 2 * HAMMING_SHORTLIST, candidates: COARSE_CANDIDATES },
    ]
    const recall = widths.map((width) => {
      let found = 0
      let close = 0
      const spent: number[] = []
      exactQueries.forEach((query, q) => {
        let hits: { id: number; score: number }[] = []
        spent.push(
          time(() => {
            hits = index.search(store, space, query, 10 + replaced.size, MODEL, width)
          }),
        )
        const got = hits.filter((hit) => !replaced.has(hit.id)).slice(0, 10)
        const truth = exact[q] ?? []
        const ids = new Set(got.map((hit) => hit.id))
        found += truth.filter((hit) => ids.has(hit.id)).length
        // ann-benchmarks' epsilon recall: a hit counts when its distance (1 - cosine) is within 1.01 × the true 10th's.
        const tenth = 1 - (truth.at(-1)?.score ?? 1)
        close += got.filter((hit) => 1 - hit.score <= 1.01 * tenth).length
      })
      const wanted = Math.max(
        1,
        exact.reduce((sum, truth) => sum + truth.length, 0),
      )
      return {
        ...width,
        recallAt10: round(found / wanted),
        epsilonRecallAt10: round(close / wanted),
        p95Ms: timings(spent).p95,
      }
    })
    return {
      coldLoadMs: round(coldLoadMs),
      searchMs,
      afterWriteMs: timings(afterWrite),
      recall,
      indexBytesPerFact: Math.round(footprint.bytes / Math.max(1, footprint.facts)),
      processBytesPerFact: Math.round(grown / Math.max(1, footprint.facts)),
    }
  } finally {
    db.close()
  }
}

/** The store file's size after the last connection closed (so the WAL is checkpointed into it). */
function fileBytes(dir: string): number {
  return statSync(join(dir, STORE_FILE)).size
}

/** A full collection, so memory growth reads what the index keeps rather than garbage. */
export function garbageCollector(): () => void {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as (() => void) | undefined
  // Twice: the first pass can leave what finalizers free for the second.
  return () => {
    gc?.()
    gc?.()
  }
}

/** Nearest-rank percentiles of timings, as the speed bench takes them. */
export const timings = percentiles
export { round, time }
