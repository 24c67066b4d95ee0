/**
 * One fresh process of the vector bench (scripts/bench-vectors.ts runs it as a child): open the store, then time the
 * first vector query and a second one, as a one-shot headless run pays them. The file was just written by the parent,
 * so the OS page cache is warm; the connection and the index are new (making the index compiles the scan's kernel).
 * Three ways: `cold`, the first query loads the space's sign codes itself; `preloaded`, the codes are first loaded as
 * the plugin's warm start loads them as it starts (VectorIndex.preload, a slice between turns of the event loop),
 * timing the whole load and its longest slice (how long it holds the event loop at once) before the queries;
 * `midway`, the first query comes when that load is halfway through, and reads the rest itself.
 * Arguments: the data directory, the space's fingerprint, a file of Float32 query vectors (first, second), the way.
 * Prints one line of JSON: `{ openMs, indexMs, preloadMs?, longestSliceMs?, firstQueryMs, secondQueryMs, facts }`.
 * A benchmark, not a test.
 */
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { PRELOAD_BLOCKS, VectorIndex } from '../src/semantic/vector-index.ts'
import { Database } from '../src/store/database.ts'
import { VectorStore } from '../src/store/vector-store.ts'

const [dataDir, fingerprint, queryFile, way = 'cold'] = process.argv.slice(2)
if (
  dataDir === undefined ||
  fingerprint === undefined ||
  queryFile === undefined ||
  (way !== 'cold' && way !== 'preloaded' && way !== 'midway')
) {
  throw new Error('usage: bench-vector-first-query.ts <dataDir> <fingerprint> <queries.f32> [cold|preloaded|midway]')
}
/** The warm start's pause: the next turn of the event loop. */
const nextTurn = (): Promise<void> =>
  new Promise((resolve) => {
    setImmediate(resolve)
  })
const bytes = readFileSync(queryFile)
const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)
const opened = performance.now()
const db = Database.open({ dataDir, now: () => new Date().toISOString() })
const openMs = performance.now() - opened
try {
  const store = new VectorStore(db)
  const space = store.space(fingerprint)
  if (space === undefined) throw new Error(`no space ${fingerprint}`)
  const made = performance.now()
  const index = new VectorIndex()
  const indexMs = performance.now() - made
  const loading: { preloadMs?: number; longestSliceMs?: number } = {}
  if (way === 'preloaded') {
    let longest = 0
    let sliceStarted = performance.now()
    const started = sliceStarted
    await index.preload(store, space.id, async () => {
      longest = Math.max(longest, performance.now() - sliceStarted)
      await nextTurn()
      sliceStarted = performance.now()
    })
    loading.longestSliceMs = Math.max(longest, performance.now() - sliceStarted)
    loading.preloadMs = performance.now() - started
  }
  const dim = space.dim
  const model = { includeSensitive: false } as const
  let firstQueryMs: number | undefined
  const firstQuery = (): void => {
    const first = performance.now()
    index.search(store, space, all.subarray(0, dim), 20, model)
    firstQueryMs = performance.now() - first
  }
  if (way === 'midway') {
    const state = store.spaceState(space.id)
    const half = Math.ceil(Math.ceil(state.slotCount / state.blockSlots) / PRELOAD_BLOCKS / 2)
    let pauses = 0
    await index.preload(store, space.id, async () => {
      pauses += 1
      if (pauses === half) firstQuery()
      await nextTurn()
    })
  }
  if (firstQueryMs === undefined) firstQuery()
  const second = performance.now()
  index.search(store, space, all.subarray(dim, 2 * dim), 20, model)
  const secondQueryMs = performance.now() - second
  console.log(
    JSON.stringify({
      openMs,
      indexMs,
      ...loading,
      firstQueryMs,
      secondQueryMs,
      facts: index.footprint(store, space.id).facts,
    }),
  )
} finally {
  db.close()
}
