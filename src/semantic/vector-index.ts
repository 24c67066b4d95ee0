/**
 * VectorIndex: the vector channel's scan. The sign bits of every vector of a space are held in memory, one flat
 * Uint32Array per space; a query is scanned against them by Hamming distance, the COARSE_CANDIDATES nearest are
 * rescored exactly from their int8 rows in SQLite, and the best `depth` by cosine are returned. SQLite stays the
 * truth: the in-memory codes only choose candidates, and a candidate whose row is gone, forgotten or hidden is
 * dropped by the rescoring read. The codes follow the file: when the space's version moves (a write from this
 * process or another one on the same file), the rows after the highest rowid loaded are read and take their fact's
 * slot; if the live count then disagrees (vectors were deleted), the space is read whole again.
 */
import type { VectorSpace, VectorStore } from '../store/vector-store.ts'
import type { Visibility } from '../store/fact-store.ts'
import { bitWords, cosineQuantized, popcount32, signBits, writeWords } from './quantize.ts'

/**
 * Candidates kept by the coarse scan for exact rescoring. Measured against an exact scan of clustered 1024-d vectors
 * (tests/vector-index.spec.ts; `npm run bench -- --only vectors`): recall@10 is 0.985 at 3,000 vectors (0.945 with
 * 50); at 100,000 the misses are neighbours tied with the 10th (epsilon recall@10 0.93, 0.975 with 400) and the
 * channel's p95 is about 8 ms, where 400 candidates cost about 4 ms more to read and rescore.
 */
export const COARSE_CANDIDATES = 200

/** One hit of the vector channel. */
export interface VectorHit {
  readonly id: number
  /** Cosine between the query and the stored (dequantized) vector. */
  readonly score: number
}

/** What the index holds, for status and the bench. */
export interface IndexFootprint {
  readonly facts: number
  /** Bytes of the codes and their fact ids (capacity included); the slot map's entries come on top. */
  readonly bytes: number
}

/** The loaded codes of one space. */
interface SpaceCodes {
  readonly dim: number
  readonly words: number
  version: number
  maxRowId: number
  size: number
  codes: Uint32Array
  factIds: Int32Array
  readonly slots: Map<number, number>
}

/** The in-memory coarse index over the spaces of one or more stores. */
export class VectorIndex {
  private readonly spaces = new WeakMap<VectorStore, Map<number, SpaceCodes>>()

  /**
   * The nearest stored vectors of a space to a query.
   * @param store - the vector store of the database searched.
   * @param space - the space of the fingerprint in force.
   * @param queryUnit - the L2-normalized query embedding.
   * @param depth - how many hits at most.
   * @param visibility - model visibility (hidden facts never come back), or undefined for every live fact.
   * @param candidates - how many the coarse scan keeps for rescoring (at least `depth` are kept).
   * @returns hits best first by cosine (ties: the larger id first); empty when the space holds no vectors or the
   *   query's dimension differs from the space's.
   */
  search(store: VectorStore, space: VectorSpace, queryUnit: Float32Array, depth: number, visibility: Visibility | undefined,
    candidates = COARSE_CANDIDATES): VectorHit[] {
    const codes = this.refreshed(store, space.id)
    if (codes === undefined || codes.size === 0 || depth <= 0 || queryUnit.length !== codes.dim) return []
    const ids = nearestByHamming(codes, queryUnit, Math.max(candidates, depth))
    const scored = store.rescoreRows(space.id, ids, visibility)
      .map((row) => ({ id: row.factId, score: cosineQuantized(queryUnit, row.quantized, row.scale) }))
    scored.sort((a, b) => b.score - a.score || b.id - a.id)
    return scored.slice(0, depth)
  }

  /**
   * Bring a space's codes up to date now (a search does this itself; a caller may warm the index ahead).
   * @param store - the vector store.
   * @param spaceId - the space.
   * @returns how many vectors the space holds.
   */
  warm(store: VectorStore, spaceId: number): number {
    return this.refreshed(store, spaceId)?.size ?? 0
  }

  /**
   * @param store - the vector store.
   * @param spaceId - the space.
   * @returns what the index holds for it (zeros when not loaded).
   */
  footprint(store: VectorStore, spaceId: number): IndexFootprint {
    const codes = this.spaces.get(store)?.get(spaceId)
    return codes === undefined ? { facts: 0, bytes: 0 } : { facts: codes.size, bytes: codes.codes.byteLength + codes.factIds.byteLength }
  }

  private refreshed(store: VectorStore, spaceId: number): SpaceCodes | undefined {
    let byStore = this.spaces.get(store)
    if (byStore === undefined) {
      byStore = new Map()
      this.spaces.set(store, byStore)
    }
    const version = store.version(spaceId)
    if (version === undefined) {
      byStore.delete(spaceId)
      return undefined
    }
    const held = byStore.get(spaceId)
    if (held !== undefined && held.version === version) return held
    const state = store.spaceState(spaceId)
    if (held !== undefined && held.dim === state.dim) {
      append(held, store, spaceId)
      held.version = state.version
      if (held.size === state.count) return held
    }
    const loaded = emptyCodes(state.dim, state.version, state.count)
    append(loaded, store, spaceId)
    byStore.set(spaceId, loaded)
    return loaded
  }
}

function emptyCodes(dim: number, version: number, capacity: number): SpaceCodes {
  const words = bitWords(dim)
  const room = Math.max(16, capacity)
  return { dim, words, version, maxRowId: 0, size: 0, codes: new Uint32Array(room * words), factIds: new Int32Array(room), slots: new Map() }
}

/** Read the rows after the highest rowid held; each takes its fact's slot, or a new one. */
function append(codes: SpaceCodes, store: VectorStore, spaceId: number): void {
  for (const row of store.codesAfter(spaceId, codes.maxRowId)) {
    let slot = codes.slots.get(row.factId)
    if (slot === undefined) {
      slot = codes.size
      if (slot === codes.factIds.length) grow(codes)
      codes.factIds[slot] = row.factId
      codes.slots.set(row.factId, slot)
      codes.size += 1
    }
    writeWords(row.bits, codes.codes, slot * codes.words, codes.words)
    codes.maxRowId = Math.max(codes.maxRowId, row.rowId)
  }
}

function grow(codes: SpaceCodes): void {
  const room = codes.factIds.length * 2
  const grownCodes = new Uint32Array(room * codes.words)
  grownCodes.set(codes.codes)
  const grownIds = new Int32Array(room)
  grownIds.set(codes.factIds)
  codes.codes = grownCodes
  codes.factIds = grownIds
}

/**
 * The fact ids of the `keep` codes nearest to the query's sign bits: distances are counted into a histogram, the
 * cut-off distance is read from it, and one more pass takes every code below the cut and codes at the cut in slot
 * order until `keep` are taken (a counting select: no sort).
 */
function nearestByHamming(codes: SpaceCodes, queryUnit: Float32Array, keep: number): number[] {
  const { size, words, codes: all } = codes
  const query = new Uint32Array(words)
  writeWords(signBits(queryUnit), query, 0, words)
  const distances = new Uint16Array(size)
  const histogram = new Uint32Array(words * 32 + 1)
  for (let slot = 0, at = 0; slot < size; slot += 1, at += words) {
    let distance = 0
    for (let j = 0; j < words; j += 1) distance += popcount32((all[at + j] ?? 0) ^ (query[j] ?? 0))
    distances[slot] = distance
    histogram[distance] = (histogram[distance] ?? 0) + 1
  }
  if (size <= keep) return Array.from(codes.factIds.subarray(0, size))
  let cut = 0
  let below = 0
  while (below + (histogram[cut] ?? 0) < keep) {
    below += histogram[cut] ?? 0
    cut += 1
  }
  let atCut = keep - below
  const out: number[] = []
  for (let slot = 0; slot < size; slot += 1) {
    const distance = distances[slot] ?? 0
    if (distance < cut || (distance === cut && atCut-- > 0)) out.push(codes.factIds[slot] ?? 0)
  }
  return out
}
