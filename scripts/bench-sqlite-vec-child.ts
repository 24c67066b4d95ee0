/**
 * One child process of the sqlite-vec comparison (scripts/bench-sqlite-vec.ts runs it). A process holds one driver
 * only: sqlite-vec's loadable extension keeps one pointer to the SQLite routines of the library that loaded it, so
 * loading it under better-sqlite3 and node:sqlite (two SQLite builds) in one process crashes the first connection's
 * next call. Two ways:
 *  - `first <engine> <driver> <dataDir> <spaceId> <queries.f32> <extension>`: open the store with one engine, time the
 *    first vector query and a second one, as a one-shot headless run pays them, and the RSS growth from before the
 *    open to after the second query. Prints `{ openMs, firstQueryMs, secondQueryMs, rssGrowthMb }`.
 *  - `warm <driver> <dataDir> <spaceId> <queries.f32> <exact.json> <extension> <warm-ups> <engines>`: the engines (comma
 *    separated) open at once,
 *    warmed on the first queries, then each query through each engine in turn (so the machine's moments fall on each alike),
 *    depth 20; then recall@10 on the queries the exact answers cover. Prints `{ [engine]: { ms: number[], recallAt10 } }`.
 * A benchmark, not a test.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { DriverName } from '../src/store/connection.ts'
import { Database } from '../src/store/database.ts'
import { VectorStore } from '../src/store/vector-store.ts'
import { ENGINES, kernelSearch, openVec, vecSearch, VEC_FILE, type Engine, type Search } from './bench-sqlite-vec.ts'

const DEPTH = 20
const [way, ...rest] = process.argv.slice(2)

/** Open one engine on one driver. */
async function open(
  engine: Engine,
  driver: DriverName,
  dataDir: string,
  spaceId: number,
  extension: string,
): Promise<{ search: Search; close: () => void }> {
  if (engine === 'kernel') {
    const db = Database.open({ dataDir, driver, now: () => new Date().toISOString() })
    return {
      search: kernelSearch(new VectorStore(db), spaceId),
      close: () => {
        db.close()
      },
    }
  }
  const db = await openVec(join(dataDir, VEC_FILE), driver, extension)
  return {
    search: vecSearch(db, engine),
    close: () => {
      db.close()
    },
  }
}

/** The Float32 queries of a file, each `dim` long. */
function readQueries(file: string, dim: number): Float32Array[] {
  const bytes = readFileSync(file)
  const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)
  return Array.from({ length: all.length / dim }, (_, i) => all.subarray(i * dim, (i + 1) * dim))
}

if (way === 'first') {
  const [engine, driver, dataDir, spaceId, queryFile, extension] = rest as [
    Engine,
    DriverName,
    string,
    string,
    string,
    string,
  ]
  const [q1, q2] = readQueries(queryFile, Number(process.env['BENCH_DIM'] ?? 1024))
  const rssBefore = process.memoryUsage.rss()
  const opened = performance.now()
  const { search, close } = await open(engine, driver, dataDir, Number(spaceId), extension)
  const openMs = performance.now() - opened
  const first = performance.now()
  search(q1 ?? new Float32Array(), DEPTH)
  const firstQueryMs = performance.now() - first
  const second = performance.now()
  search(q2 ?? new Float32Array(), DEPTH)
  const secondQueryMs = performance.now() - second
  const rssGrowthMb = (process.memoryUsage.rss() - rssBefore) / 2 ** 20
  close()
  console.log(JSON.stringify({ openMs, firstQueryMs, secondQueryMs, rssGrowthMb }))
} else if (way === 'warm') {
  const [driver, dataDir, spaceId, queryFile, exactFile, extension, warmups = '10', named = ENGINES.join(',')] =
    rest as [DriverName, string, string, string, string, string, string?, string?]
  const chosen = named.split(',') as Engine[]
  const queries = readQueries(queryFile, Number(process.env['BENCH_DIM'] ?? 1024))
  const exact = JSON.parse(readFileSync(exactFile, 'utf8')) as number[][]
  const engines = await Promise.all(chosen.map((engine) => open(engine, driver, dataDir, Number(spaceId), extension)))
  const out: Record<string, { ms: number[]; recallAt10: number }> = {}
  chosen.forEach((engine) => {
    out[engine] = { ms: [], recallAt10: 0 }
  })
  for (const query of queries.slice(0, Number(warmups))) for (const { search } of engines) search(query, DEPTH)
  for (const query of queries) {
    engines.forEach(({ search }, e) => {
      const started = performance.now()
      search(query, DEPTH)
      out[chosen[e] ?? '']?.ms.push(performance.now() - started)
    })
  }
  engines.forEach(({ search, close }, e) => {
    let found = 0
    exact.forEach((truth, q) => {
      const ids = new Set(search(queries[q] ?? new Float32Array(), 10))
      found += truth.filter((id) => ids.has(id)).length
    })
    const row = out[chosen[e] ?? '']
    if (row !== undefined) row.recallAt10 = found / Math.max(1, 10 * exact.length)
    close()
  })
  console.log(JSON.stringify(out))
} else {
  throw new Error('usage: bench-sqlite-vec-child.ts first|warm …')
}
