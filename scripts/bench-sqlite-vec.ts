/**
 * The vector channel's WebAssembly kernel beside sqlite-vec (issue 33 item 6), for npm run bench (`--only sqlite-vec`,
 * run only when asked). A store of the speed bench's synthetic facts gets one clustered 1024-d vector per fact, exactly
 * as `--only vectors` makes them (scripts/bench-vectors.ts `storeAll`); the same int8 codes and sign bits go into a
 * sqlite-vec `vec0` table in a file of their own. Then, on both drivers, the same queries run through:
 *  - the kernel: the plugin's VectorIndex (Hamming scan of the sign bits in memory, the asymmetric ranking, the exact
 *    rescoring from SQLite), depth 20 under model visibility;
 *  - `vec0 int8`: sqlite-vec's exact KNN over the int8 column (cosine), k = 20, the query quantized to int8 as sqlite-vec
 *    requires the same type on both sides;
 *  - `vec0 bit → int8`: its Hamming KNN over the bit column, k = 1,000 (the kernel's shortlist), rescored by cosine on
 *    the int8 column, the best 20: the kernel's coarse-then-exact shape in SQL.
 * Measured: warm query p50 / p95, the first and second query of a fresh process (a child per run, a new connection,
 * the OS page cache warm from the writes) with its RSS growth, recall@10 against an exact scan of the stored vectors
 * (the float query against the dequantized int8 rows), and bytes per fact on disk (dbstat). sqlite-vec is not a
 * dependency of the plugin: pass `--sqlite-vec <folder with node_modules/sqlite-vec>` (or install it with
 * `npm install --no-save sqlite-vec`); without it this part says so and skips. `--sqlite-vec-only` measures sqlite-vec
 * alone on vectors of the same generator, without seeding the plugin's store (see `vectorsAlone`).
 * A benchmark, not a test.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { DriverName } from '../src/store/connection.ts'
import { systemClock } from '../src/clock.ts'
import { configWith, resolveConfig } from '../src/config.ts'
import { embeddingFingerprint } from '../src/semantic/fingerprint.ts'
import { cosineQuantized, quantize } from '../src/semantic/quantize.ts'
import { VectorIndex } from '../src/semantic/vector-index.ts'
import { Database } from '../src/store/database.ts'
import { VectorStore } from '../src/store/vector-store.ts'
import { makeCorpus, mulberry32, seedStore } from './bench-corpus.ts'
import { ClusteredVectors } from './bench-vector-corpus.ts'
import { round, storeAll, timings, type Stored, type Timings } from './bench-vectors.ts'

const DIM = 1024
const MODEL = { includeSensitive: false } as const
/** The kernel's Hamming shortlist, used as the bit column's k. */
const BIT_SHORTLIST = 1000
/**
 * How much each size is measured: timed queries, warm-up queries before them, queries checked against the exact
 * scan, and fresh child processes per engine and driver. A million facts take fewer: sqlite-vec's exact KNN reads
 * every row (about a gigabyte) per query.
 */
function effort(size: number): { queries: number; warmups: number; exact: number; fresh: number } {
  return size >= 1_000_000
    ? { queries: 12, warmups: 2, exact: 6, fresh: 3 }
    : { queries: 200, warmups: 10, exact: 40, fresh: 5 }
}
const DRIVERS: readonly DriverName[] = ['better-sqlite3', 'node:sqlite']
const CHILD = fileURLToPath(new URL('./bench-sqlite-vec-child.ts', import.meta.url))
/** The sqlite-vec file beside the store. */
export const VEC_FILE = 'vec.sqlite'

/** The engines compared. */
export type Engine = 'kernel' | 'vec0 int8' | 'vec0 bit → int8'
export const ENGINES: readonly Engine[] = ['kernel', 'vec0 int8', 'vec0 bit → int8']

/** One engine on one driver at one size. */
export interface EngineRow {
  readonly engine: Engine
  readonly driver: DriverName
  readonly warmMs: Timings
  readonly recallAt10: number
  /** Fresh processes: open (and the extension's load), first and second query, RSS growth in MB over the process. */
  readonly fresh: {
    readonly openMs: Timings
    readonly firstQueryMs: Timings
    readonly secondQueryMs: Timings
    readonly rssGrowthMb: Timings
  }
}

/** One size. */
export interface SqliteVecBench {
  readonly facts: number
  readonly dim: number
  readonly sqliteVecVersion: string
  /** dbstat over the kernel's vector tables, per fact. */
  readonly kernelBytesPerFact: number
  /** dbstat over the vec0 table's shadow tables, per fact: the int8 column alone, the bit column alone, and the rest (rowids, chunks). */
  readonly vecBytesPerFact: { readonly int8: number; readonly bit: number; readonly shared: number }
  readonly vecInsertSeconds: number
  readonly rows: readonly EngineRow[]
}

/**
 * Where sqlite-vec's loadable extension is, or why not.
 * @param args - the bench's arguments (`--sqlite-vec <folder>`: a folder whose node_modules holds sqlite-vec).
 * @returns the extension's path and version, or the reason it is missing.
 */
export async function findSqliteVec(args: readonly string[]): Promise<{ path: string } | { missing: string }> {
  const at = args.indexOf('--sqlite-vec')
  const folder = at >= 0 ? args[at + 1] : process.env['SQLITE_VEC_DIR']
  const from = folder === undefined ? import.meta.url : pathToFileURL(join(resolve(folder), 'package.json')).href
  let entry: string
  try {
    entry = createRequire(from).resolve('sqlite-vec')
  } catch {
    return {
      missing: `sqlite-vec is not installed${folder === undefined ? '' : ` under ${folder}`} (it is no dependency of the plugin: npm install --no-save sqlite-vec, or pass --sqlite-vec <folder where it is installed>)`,
    }
  }
  try {
    const module = (await import(pathToFileURL(entry.replace(/index\.cjs$/u, 'index.mjs')).href)) as {
      getLoadablePath: () => string
    }
    return { path: module.getLoadablePath() }
  } catch (error) {
    return {
      missing: `sqlite-vec is installed but its extension for ${process.platform}-${process.arch} is not: ${String(error)}`,
    }
  }
}

/** A raw connection with sqlite-vec loaded, on either driver. */
export interface VecConnection {
  all(sql: string, ...params: (Uint8Array | number | bigint)[]): Record<string, unknown>[]
  exec(sql: string): void
  close(): void
}

/**
 * Open a file with sqlite-vec loaded.
 * @param path - the file.
 * @param driver - which binding.
 * @param extension - sqlite-vec's loadable path.
 * @returns the connection.
 */
export async function openVec(path: string, driver: DriverName, extension: string): Promise<VecConnection> {
  const db: RawVecDatabase =
    driver === 'better-sqlite3'
      ? new (createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3'))(path)
      : new (await import('node:sqlite')).DatabaseSync(path, { allowExtension: true })
  db.loadExtension(extension)
  const cached = statements((sql) => db.prepare(sql))
  return {
    all: (sql, ...params) => cached(sql).all(...params) as Record<string, unknown>[],
    exec: (sql) => {
      db.exec(sql)
    },
    close: () => {
      db.close()
    },
  }
}

/** What openVec uses of either binding's connection. */
interface RawVecDatabase {
  loadExtension(path: string): void
  prepare(sql: string): { all(...params: (Uint8Array | number | bigint)[]): unknown[] }
  exec(sql: string): unknown
  close(): unknown
}

/** Prepared statements kept by SQL text. */
function statements<T>(prepare: (sql: string) => T): (sql: string) => T {
  const kept = new Map<string, T>()
  return (sql) => {
    let statement = kept.get(sql)
    if (statement === undefined) {
      statement = prepare(sql)
      kept.set(sql, statement)
    }
    return statement
  }
}

/** A typed array's bytes as a blob either driver binds. */
function blob(array: Int8Array | Uint8Array): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength)
}

/** A search by one engine: hit ids best first. */
export type Search = (query: Float32Array, k: number) => number[]

/** The sqlite-vec searches over an open connection. */
export function vecSearch(db: VecConnection, engine: Exclude<Engine, 'kernel'>): Search {
  if (engine === 'vec0 int8') {
    return (query, k) =>
      db
        .all('SELECT rowid FROM vec WHERE embedding MATCH vec_int8(?) AND k = ?', blob(quantize(query).quantized), k)
        .map((row) => Number(row['rowid']))
  }
  return (query, k) => {
    const { quantized, bits } = quantize(query)
    // The rowids as an IN list: the docs' join of a coarse CTE to the table is planned as a scan of the table under
    // node:sqlite's SQLite (several times slower there).
    return db
      .all(
        `SELECT rowid FROM vec WHERE rowid IN (SELECT rowid FROM vec WHERE coarse MATCH vec_bit(?) AND k = ${BIT_SHORTLIST})
      ORDER BY vec_distance_cosine(embedding, vec_int8(?)) LIMIT ?`,
        blob(bits),
        blob(quantized),
        k,
      )
      .map((row) => Number(row['rowid']))
  }
}

/** The plugin's search over an open store. */
export function kernelSearch(store: VectorStore, spaceId: number): Search {
  const index = new VectorIndex()
  return (query, k) => index.search(store, { id: spaceId }, query, k, MODEL).map((hit) => hit.id)
}

/**
 * Run the comparison at each size.
 * @param sizes - facts per store.
 * @param args - the bench's arguments.
 * @returns the rows, or undefined when sqlite-vec is missing (said on stdout).
 */
export async function sqliteVecBench(
  sizes: readonly number[],
  args: readonly string[],
): Promise<SqliteVecBench[] | undefined> {
  const found = await findSqliteVec(args)
  if ('missing' in found) {
    console.log(`\nsqlite-vec comparison skipped: ${found.missing}.`)
    return undefined
  }
  const rows: SqliteVecBench[] = []
  for (const size of sizes) {
    process.stdout.write(`sqlite-vec beside the kernel at ${size} facts… `)
    const row = await atSize(size, found.path, args.includes('--sqlite-vec-only'))
    rows.push(row)
    console.log('done')
    // Each size as it ends: a million facts take long, and a run cut short keeps what it measured.
    print([row])
  }
  return rows
}

async function atSize(size: number, extension: string, vecOnly: boolean): Promise<SqliteVecBench> {
  const dir = mkdtempSync(join(tmpdir(), `fact-memory-bench-sqlite-vec-${size}-`))
  try {
    const { stored, source, spaceId, kernelBytes } = vecOnly ? vectorsAlone(size) : kernelStore(dir, size)

    const vecPath = join(dir, VEC_FILE)
    const started = performance.now()
    await writeVec(vecPath, extension, stored)
    const vecInsertSeconds = round((performance.now() - started) / 1000)
    const vecBytes = await vecStoredBytes(vecPath, extension)

    const random99 = mulberry32(99)
    const plan = effort(size)
    const queries = Array.from({ length: plan.queries }, () => {
      const at = Math.floor(random99() * stored.ids.length)
      const base = stored.vectors[at]
      const unit = Float32Array.from(base?.quantized ?? [], (code) => code * (base?.scale ?? 0))
      return source.near(unit, random99() < 0.5 ? 0.5 : 1)
    })
    const exactQueries = queries.slice(0, plan.exact)
    const queryFile = join(dir, 'queries.f32')
    const exactFile = join(dir, 'exact.json')
    writeFileSync(queryFile, packed(queries))
    writeFileSync(exactFile, JSON.stringify(exactQueries.map((query) => exactTop10(query, stored))))

    // Warm queries and recall: a child per driver (see bench-sqlite-vec-child.ts: one driver a process).
    const engines = vecOnly ? ENGINES.filter((engine) => engine !== 'kernel') : ENGINES
    const out: EngineRow[] = []
    for (const driver of DRIVERS) {
      const answer = child([
        'warm',
        driver,
        dir,
        String(spaceId),
        queryFile,
        exactFile,
        extension,
        String(plan.warmups),
        engines.join(','),
      ]) as Record<string, { ms: number[]; recallAt10: number }>
      for (const engine of engines) {
        const row = answer[engine]
        out.push({
          engine,
          driver,
          warmMs: timings(row?.ms ?? []),
          recallAt10: round(row?.recallAt10 ?? 0),
          fresh: emptyFresh(),
        })
      }
    }
    // Fresh processes last, each engine and driver in turn, so the machine's moments fall on each alike.
    const fresh = new Map<string, Record<string, number>[]>()
    const childSource = new ClusteredVectors(DIM, 20, mulberry32(size + 3))
    const firstFile = join(dir, 'first.f32')
    for (let run = 0; run < plan.fresh; run += 1) {
      writeFileSync(firstFile, packed([childSource.gaussianUnit(), childSource.gaussianUnit()]))
      for (const row of out) {
        const key = `${row.engine}|${row.driver}`
        fresh.set(key, [
          ...(fresh.get(key) ?? []),
          child(['first', row.engine, row.driver, dir, String(spaceId), firstFile, extension]) as Record<
            string,
            number
          >,
        ])
      }
    }
    const rows = out.map((row) => {
      const runs = fresh.get(`${row.engine}|${row.driver}`) ?? []
      const of = (key: string): Timings => timings(runs.map((run) => run[key] ?? 0))
      return {
        ...row,
        fresh: {
          openMs: of('openMs'),
          firstQueryMs: of('firstQueryMs'),
          secondQueryMs: of('secondQueryMs'),
          rssGrowthMb: of('rssGrowthMb'),
        },
      }
    })
    return {
      facts: size,
      dim: DIM,
      sqliteVecVersion: await vecVersion(vecPath, extension),
      kernelBytesPerFact: Math.round(kernelBytes / stored.ids.length),
      vecBytesPerFact: {
        int8: Math.round(vecBytes.int8 / stored.ids.length),
        bit: Math.round(vecBytes.bit / stored.ids.length),
        shared: Math.round(vecBytes.shared / stored.ids.length),
      },
      vecInsertSeconds,
      rows,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The plugin's store and its vectors exactly as the vector bench makes them (the same PRNG stream). */
function kernelStore(
  dir: string,
  size: number,
): { stored: Stored; source: ClusteredVectors; spaceId: number; kernelBytes: number } {
  const config = resolveConfig(configWith({ dataDir: dir }), { dshHome: dir, userHome: dir })
  const random = mulberry32(size + 1)
  seedStore(dir, makeCorpus(size, random).facts, systemClock, config)
  const source = new ClusteredVectors(DIM, Math.max(20, Math.floor(size / 500)), random)
  const identity = { provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'bench' }
  const fingerprint = embeddingFingerprint({ ...identity, dim: DIM })
  const db = Database.open({ dataDir: dir, now: () => new Date().toISOString() })
  try {
    const store = new VectorStore(db)
    const space = store.ensureSpace(fingerprint, identity, new Date().toISOString())
    store.fixDimension(space.id, DIM)
    const stored = storeAll(store, space, source, random)
    const kernelBytes = sumBytes(
      db.all(`SELECT sum(d.pgsize) AS bytes FROM dbstat d JOIN sqlite_schema s ON s.name = d.name
      WHERE s.tbl_name IN ('vector_spaces', 'fact_vectors', 'vector_blocks', 'vector_free_slots')`),
    )
    return { stored, source, spaceId: space.id, kernelBytes }
  } finally {
    db.close()
  }
}

/**
 * `--sqlite-vec-only`: vectors of the same generator and shape (subjects of 1 to 6 facts, ids 1…size) without the
 * plugin's store, for sqlite-vec alone where seeding a store of facts takes longer than there is (a million on a busy
 * machine); the kernel's figures at that size come from `--only vectors`.
 */
function vectorsAlone(size: number): {
  stored: Stored
  source: ClusteredVectors
  spaceId: number
  kernelBytes: number
} {
  const random = mulberry32(size + 1)
  const source = new ClusteredVectors(DIM, Math.max(20, Math.floor(size / 500)), random)
  const stored: Stored = { ids: [], vectors: [] }
  let pending: Float32Array[] = []
  for (let id = 1; id <= size; id += 1) {
    if (pending.length === 0) pending = source.subject(1 + Math.floor(random() * 6))
    const { scale, quantized } = quantize(pending.pop() ?? source.gaussianUnit())
    stored.ids.push(id)
    stored.vectors.push({ scale, quantized })
  }
  return { stored, source, spaceId: 0, kernelBytes: 0 }
}

/** Run the child script and read its last line of JSON. */
function child(childArgs: readonly string[]): unknown {
  const run = spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', CHILD, ...childArgs], {
    encoding: 'utf8',
    env: { ...process.env, BENCH_DIM: String(DIM) },
    maxBuffer: 64 * 2 ** 20,
  })
  if (run.status !== 0) throw new Error(`the child process (${childArgs.slice(0, 3).join(' ')}) failed: ${run.stderr}`)
  return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}')
}

/** Vectors end to end as Float32 bytes. */
function packed(vectors: readonly Float32Array[]): Uint8Array {
  const out = new Float32Array(vectors.reduce((sum, vector) => sum + vector.length, 0))
  let at = 0
  for (const vector of vectors) {
    out.set(vector, at)
    at += vector.length
  }
  return new Uint8Array(out.buffer)
}

function emptyFresh(): EngineRow['fresh'] {
  const none = timings([])
  return { openMs: none, firstQueryMs: none, secondQueryMs: none, rssGrowthMb: none }
}

/** The same vectors into a vec0 table: the int8 codes (cosine) and the sign bits, rowid the fact id, 10,000 a transaction. */
async function writeVec(path: string, extension: string, stored: Stored): Promise<void> {
  if (existsSync(path)) rmSync(path)
  const db = await openVec(path, 'better-sqlite3', extension)
  try {
    db.exec(
      `PRAGMA journal_mode = WAL; CREATE VIRTUAL TABLE vec USING vec0(embedding int8[${DIM}] distance_metric=cosine, coarse bit[${DIM}])`,
    )
    for (let from = 0; from < stored.ids.length; from += 10_000) {
      db.exec('BEGIN')
      for (let i = from; i < Math.min(stored.ids.length, from + 10_000); i += 1) {
        const vector = stored.vectors[i]
        if (vector === undefined) continue
        const unit = Float32Array.from(vector.quantized, (code) => code * vector.scale)
        db.all(
          'INSERT INTO vec (rowid, embedding, coarse) VALUES (?, vec_int8(?), vec_bit(?)) RETURNING rowid',
          BigInt(stored.ids[i] ?? 0),
          blob(vector.quantized),
          blob(quantize(unit).bits),
        )
      }
      db.exec('COMMIT')
    }
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
  } finally {
    db.close()
  }
}

/** dbstat over the vec0 shadow tables: the int8 column's chunks, the bit column's, and the rest. */
async function vecStoredBytes(path: string, extension: string): Promise<{ int8: number; bit: number; shared: number }> {
  const db = await openVec(path, 'better-sqlite3', extension)
  try {
    const rows =
      db.all(`SELECT s.tbl_name AS tbl, sum(d.pgsize) AS bytes FROM dbstat d JOIN sqlite_schema s ON s.name = d.name
      WHERE s.tbl_name LIKE 'vec_%' GROUP BY s.tbl_name`)
    const bytes = (name: string): number => Number(rows.find((row) => row['tbl'] === name)?.['bytes'] ?? 0)
    const all = rows.reduce((sum, row) => sum + Number(row['bytes'] ?? 0), 0)
    const int8 = bytes('vec_vector_chunks00')
    const bit = bytes('vec_vector_chunks01')
    return { int8, bit, shared: all - int8 - bit }
  } finally {
    db.close()
  }
}

async function vecVersion(path: string, extension: string): Promise<string> {
  const db = await openVec(path, 'better-sqlite3', extension)
  try {
    return String(db.all('SELECT vec_version() AS v')[0]?.['v'] ?? '')
  } finally {
    db.close()
  }
}

function sumBytes(rows: readonly Record<string, unknown>[]): number {
  return Number(rows[0]?.['bytes'] ?? 0)
}

/** The ids of the 10 stored vectors nearest a query: the float query against each dequantized int8 row. */
function exactTop10(query: Float32Array, stored: Stored): number[] {
  const best: { id: number; score: number }[] = []
  stored.vectors.forEach((vector, i) => {
    const score = cosineQuantized(query, vector.quantized, vector.scale)
    if (best.length < 10 || score > (best.at(-1)?.score ?? -Infinity)) {
      best.push({ id: stored.ids[i] ?? 0, score })
      best.sort((a, b) => b.score - a.score)
      if (best.length > 10) best.pop()
    }
  })
  return best.map((hit) => hit.id)
}

function print(rows: readonly SqliteVecBench[]): void {
  const first = rows[0]
  if (first === undefined) return
  console.log(
    `\nThe vector channel's kernel beside sqlite-vec ${first.sqliteVecVersion}, ${first.dim}-d clustered random vectors (the vector bench's), query embedding excluded, depth 20; ` +
      `fresh process: p50 of ${effort(first.facts).fresh} child processes, OS page cache warm; recall@10 against an exact scan of the stored int8 vectors`,
  )
  console.log(
    '| facts | engine | driver | warm p50 / p95 ms | fresh: open ms | fresh: first / second query ms | fresh: RSS growth MB | recall@10 |',
  )
  console.log('|---:|---|---|---:|---:|---:|---:|---:|')
  for (const size of rows) {
    for (const row of size.rows) {
      console.log(
        `| ${size.facts} | ${row.engine} | ${row.driver} | ${row.warmMs.p50} / ${row.warmMs.p95} | ${row.fresh.openMs.p50} | ${row.fresh.firstQueryMs.p50} / ${row.fresh.secondQueryMs.p50} | ${row.fresh.rssGrowthMb.p50} | ${row.recallAt10} |`,
      )
    }
  }
  console.log(
    '\n| facts | kernel bytes/fact (dbstat) | vec0 int8 column | vec0 bit column | vec0 rowids and chunks | vec0 insert s |',
  )
  console.log('|---:|---:|---:|---:|---:|---:|')
  for (const size of rows) {
    console.log(
      `| ${size.facts} | ${size.kernelBytesPerFact} | ${size.vecBytesPerFact.int8} | ${size.vecBytesPerFact.bit} | ${size.vecBytesPerFact.shared} | ${size.vecInsertSeconds} |`,
    )
  }
}
