/**
 * VectorIndex: the vector channel's scan. The sign bits of every vector of a space are held in memory, one flat
 * Uint32Array per space; a query is scanned against them by Hamming distance, the HAMMING_SHORTLIST nearest are
 * ranked by the float query's asymmetric score against their sign bits (coarse-rank.ts), the COARSE_CANDIDATES best
 * of those are rescored exactly from their int8 rows in SQLite, and the best `depth` by cosine are returned. SQLite
 * stays the truth: the in-memory codes only choose candidates, and a candidate whose row is gone, forgotten or hidden
 * is dropped by the rescoring read. The codes follow the file: when the space's version moves (a write from this
 * process or another one on the same file), the rows after the highest rowid loaded are read and take their fact's
 * slot; if the live count then disagrees (vectors were deleted), the space is read whole again.
 */
import type { VectorSpace, VectorStore } from '../store/vector-store.ts'
import type { Visibility } from '../store/fact-store.ts'
import { coarseRank } from './coarse-rank.ts'
import { bitWords, cosineQuantized, writeWords } from './quantize.ts'

/**
 * Codes the Hamming scan keeps for the asymmetric score. Ranking them by the float query against their sign bits
 * costs a table lookup per byte of each (about 0.5 ms for 1,000 at 1024 dimensions), where reading and rescoring as
 * many rows from SQLite would cost more than the whole scan. Measured against an exact scan of clustered 1024-d
 * vectors (tests/vector-index.spec.ts; `npm run bench -- --only vectors`): recall@10 / epsilon recall@10 are
 * 0.948 / 0.998 at 20,000 vectors and 0.895 / 0.99 at 100,000, where the Hamming scan alone with 200 rescored had
 * 0.877 / 0.990 and 0.81 / 0.93. A wider shortlist gains little (2,000: 0.905 / 0.988 at 100,000): the remaining
 * misses, mostly neighbours tied with the 10th, are cut by the 200 kept for rescoring (400: 0.935 / 0.998, for
 * twice the rows read).
 */
export const HAMMING_SHORTLIST = 1000

/** Codes the asymmetric score keeps for the exact rescoring from SQLite (see {@link HAMMING_SHORTLIST}). */
export const COARSE_CANDIDATES = 200

/** How wide the coarse stages of a search are. */
export interface ScanWidth {
  /** Codes the Hamming scan keeps for the asymmetric score. */
  readonly shortlist: number
  /** Codes the asymmetric score keeps for the exact rescoring. */
  readonly candidates: number
}

/** The widths a search uses unless told otherwise. */
export const SCAN_WIDTH: ScanWidth = { shortlist: HAMMING_SHORTLIST, candidates: COARSE_CANDIDATES }

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
   * @param width - how many codes the Hamming scan keeps for the asymmetric score, and how many of those the score
   *   keeps for the exact rescoring (at least `depth`; a shortlist no wider than that is the Hamming scan alone).
   * @returns hits best first by cosine (ties: the larger id first); empty when the space holds no vectors or the
   *   query's dimension differs from the space's.
   */
  search(store: VectorStore, space: VectorSpace, queryUnit: Float32Array, depth: number, visibility: Visibility | undefined,
    width: ScanWidth = SCAN_WIDTH): VectorHit[] {
    const codes = this.refreshed(store, space.id)
    if (codes === undefined || codes.size === 0 || depth <= 0 || queryUnit.length !== codes.dim) return []
    const slots = coarseRank(codes.codes, codes.size, codes.words, queryUnit, { shortlist: width.shortlist, keep: Math.max(width.candidates, depth) })
    const ids = Array.from(slots, (slot) => codes.factIds[slot] ?? 0)
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
      // Vectors were deleted: drop their slots in place, reading only the fact ids still stored.
      compact(held, new Set(store.factIdsOf(spaceId)))
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
/**
 * Keep only the slots of facts that still have a vector, in order, moving their codes down.
 * @param codes - the loaded codes.
 * @param live - the fact ids the space still stores.
 */
function compact(codes: SpaceCodes, live: ReadonlySet<number>): void {
  let kept = 0
  codes.slots.clear()
  for (let slot = 0; slot < codes.size; slot += 1) {
    const factId = codes.factIds[slot] ?? 0
    if (!live.has(factId)) continue
    if (kept !== slot) {
      codes.factIds[kept] = factId
      codes.codes.copyWithin(kept * codes.words, slot * codes.words, (slot + 1) * codes.words)
    }
    codes.slots.set(factId, kept)
    kept += 1
  }
  codes.size = kept
}

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
