/**
 * VectorIndex: the vector channel's scan. The sign bits of every vector of a space are held in memory, one flat
 * Uint32Array per space indexed by the store's slots; a query is scanned against them by Hamming distance, the
 * HAMMING_SHORTLIST nearest are ranked by the float query's asymmetric score against their sign bits
 * (coarse-rank.ts), the COARSE_CANDIDATES best of those are rescored exactly from their rows in SQLite, and the best
 * `depth` by cosine are returned. SQLite stays the truth: the in-memory codes only choose candidates, and a candidate
 * whose row is gone, forgotten or hidden is dropped by the rescoring read. The codes follow the file: a space loads
 * from its code blocks in one pass (each block's buffer is held as it was read), and when the space's version moves
 * (a write from this process or another one on the same file) only the blocks written since are read again, with the
 * list of free slots, which drop out of the scan. The codes held are never older than the version recorded with
 * them, so a later version always reads again. The rescoring reads the candidates' rows without their sign bits and
 * takes those from the codes held: they are the stored ones when the space's version did not move between loading
 * them and reading the rows; when it did, the rows are read again with their stored sign bits.
 */
import type { CodeBlock, SpaceState, VectorSpace, VectorStore } from '../store/vector-store.ts'
import type { Visibility } from '../store/fact-store.ts'
import { dotPacked, LITTLE_ENDIAN } from '../store/vector-codec.ts'
import { coarseRank, type SlotCodes } from './coarse-rank.ts'
import { bitBytes, bitWords, cosineQuantized, writeWords } from './quantize.ts'

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

/** The loaded codes of one space, by store slot. */
interface SpaceCodes {
  readonly dim: number
  readonly words: number
  readonly blockSlots: number
  /** The space version the codes are at (or newer than). */
  version: number
  /** Slots in use: one past the highest slot given. */
  size: number
  /** Slots holding a vector. */
  live: number
  /** Each block's codes as words, `blockSlots × words` at most. */
  readonly blocks: (Uint32Array | undefined)[]
  /** The fact id of each slot; 0 for a free slot. */
  factIds: Int32Array
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
    if (codes === undefined || codes.live === 0 || depth <= 0 || queryUnit.length !== codes.dim) return []
    const slots = coarseRank(slotCodesOf(codes), queryUnit, { shortlist: width.shortlist, keep: Math.max(width.candidates, depth) })
    const ids = Array.from(slots, (slot) => codes.factIds[slot] ?? 0)
    const rows = store.magnitudeRows(space.id, ids, visibility)
    const current = store.version(space.id) === codes.version && rows.every((row) => codes.factIds[row.slot] === row.factId)
    const scored = current
      ? rows.map((row) => ({ id: row.factId, score: dotPacked(queryUnit, row.magnitudes, signBitsOf(codes, row.slot), codes.dim) * row.scale }))
      // Another connection wrote since the codes were read: the stored sign bits, read with the rows.
      : store.rescoreRows(space.id, ids, visibility).map((row) => ({ id: row.factId, score: cosineQuantized(queryUnit, row.quantized, row.scale) }))
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
    return this.refreshed(store, spaceId)?.live ?? 0
  }

  /**
   * @param store - the vector store.
   * @param spaceId - the space.
   * @returns what the index holds for it (zeros when not loaded).
   */
  footprint(store: VectorStore, spaceId: number): IndexFootprint {
    const codes = this.spaces.get(store)?.get(spaceId)
    if (codes === undefined) return { facts: 0, bytes: 0 }
    const blockBytes = codes.blocks.reduce((sum, block) => sum + (block?.byteLength ?? 0), 0)
    return { facts: codes.live, bytes: blockBytes + codes.factIds.byteLength }
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
    // Read the state before the blocks: what they hold is then at least as new as the version recorded.
    const state = store.spaceState(spaceId)
    if (held !== undefined && held.dim === state.dim && held.blockSlots === state.blockSlots) {
      apply(held, state, store.blocksSince(spaceId, held.version), store.freeSlots(spaceId))
      if (held.live === state.count) return held
    }
    // First load, or codes that no longer add up (a clear, say): the whole space in one pass.
    const loaded = emptyCodes(state)
    apply(loaded, state, store.blocksSince(spaceId, -1), store.freeSlots(spaceId))
    byStore.set(spaceId, loaded)
    return loaded
  }
}

function slotCodesOf(codes: SpaceCodes): SlotCodes {
  return { blocks: codes.blocks, blockSlots: codes.blockSlots, words: codes.words, size: codes.size, present: codes.factIds }
}

/** A slot's sign bits as held, in their stored byte order. */
function signBitsOf(codes: SpaceCodes, slot: number): Uint8Array {
  const block = codes.blocks[Math.floor(slot / codes.blockSlots)] ?? new Uint32Array(0)
  const at = (slot % codes.blockSlots) * codes.words
  const words = block.subarray(at, at + codes.words)
  // Word j holds bytes 4j…4j+3 low byte first (quantize.ts writeWords), which is memory order on this machine or not.
  return LITTLE_ENDIAN ? new Uint8Array(words.buffer, words.byteOffset, bitBytes(codes.dim)) : bytesOfWords(words, bitBytes(codes.dim))
}

function bytesOfWords(words: Uint32Array, length: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => ((words[i >> 2] ?? 0) >>> (8 * (i & 3))) & 0xff)
}

function emptyCodes(state: SpaceState): SpaceCodes {
  return {
    dim: state.dim, words: bitWords(state.dim), blockSlots: state.blockSlots, version: -1, size: 0, live: 0, blocks: [],
    factIds: new Int32Array(Math.max(16, state.slotCount)),
  }
}

/**
 * Bring loaded codes to a state: the blocks written since take their place, the free slots drop out, slots past the
 * slot count are emptied, and the live count is taken again.
 * @param codes - the loaded codes.
 * @param state - the space's state, read before the blocks.
 * @param blocks - the blocks written after `codes.version`.
 * @param free - the space's free slots.
 */
function apply(codes: SpaceCodes, state: SpaceState, blocks: readonly CodeBlock[], free: readonly number[]): void {
  let size = state.slotCount
  for (const block of blocks) size = Math.max(size, block.blockNo * codes.blockSlots + block.factIds.length)
  if (size > codes.factIds.length) {
    const grown = new Int32Array(Math.max(size, codes.factIds.length * 2))
    grown.set(codes.factIds)
    codes.factIds = grown
  }
  codes.factIds.fill(0, size, Math.max(size, codes.size))
  codes.blocks.length = Math.min(codes.blocks.length, Math.ceil(size / codes.blockSlots))
  codes.size = size
  for (const block of blocks) {
    const first = block.blockNo * codes.blockSlots
    if (first >= size) continue
    const held = Math.min(block.factIds.length, codes.blockSlots, size - first)
    codes.factIds.fill(0, first, Math.min(size, first + codes.blockSlots))
    codes.factIds.set(block.factIds.subarray(0, held), first)
    codes.blocks[block.blockNo] = wordsOf(block.codes, held, codes.dim)
  }
  for (const slot of free) if (slot < size) codes.factIds[slot] = 0
  let live = 0
  for (let slot = 0; slot < size; slot += 1) if (codes.factIds[slot] !== 0) live += 1
  codes.live = live
  codes.version = state.version
}

/**
 * A block's codes as 32-bit words: a view of the buffer read where each code fills whole words in memory order (a
 * dimension that is a multiple of 32, a little-endian machine, an aligned buffer), else a copy word by word.
 */
function wordsOf(bytes: Uint8Array, slots: number, dim: number): Uint32Array {
  const perCode = bitBytes(dim)
  const words = bitWords(dim)
  if (perCode === words * 4 && LITTLE_ENDIAN && bytes.byteOffset % 4 === 0) return new Uint32Array(bytes.buffer, bytes.byteOffset, slots * words)
  const out = new Uint32Array(slots * words)
  for (let slot = 0; slot < slots; slot += 1) writeWords(bytes.subarray(slot * perCode, (slot + 1) * perCode), out, slot * words, words)
  return out
}
