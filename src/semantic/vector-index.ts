/**
 * VectorIndex: the vector channel's scan. The sign bits of every vector of a space are held in memory by the store's
 * slots, in a code arena (code-arena.ts) where a WebAssembly kernel scans them by Hamming distance; the
 * HAMMING_SHORTLIST nearest are ranked by the float query's asymmetric score against their sign bits
 * (vector-scan.wat), the COARSE_CANDIDATES best of those are rescored exactly from their rows in SQLite, and the best
 * `depth` by cosine are returned. SQLite stays the truth: the in-memory codes only choose candidates, and a candidate
 * whose row is gone, forgotten or hidden is dropped by the rescoring read. The codes follow the file: a space loads
 * from its code blocks in one pass (each block copied into the arena as read), and when the space's version moves
 * (a write from this process or another one on the same file) only the blocks written since are read again, with the
 * list of free slots, which drop out of the scan. The codes held are never older than the version recorded with
 * them, so a later version always reads again. The rescoring reads the candidates' rows without their sign bits and
 * takes those from the codes held: they are the stored ones when the space's version did not move between loading
 * them and reading the rows; when it did, the rows are read again with their stored sign bits.
 */
import type { CodeBlock, SpaceState, VectorSpace, VectorStore } from '../store/vector-store.ts'
import type { Visibility } from '../store/fact-store.ts'
import { ScanKernel, type CodeArena } from './code-arena.ts'
import { cosineQuantized } from './quantize.ts'

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

/**
 * Blocks a preload reads between pauses: 128 blocks of 64 slots are 1 MiB of codes at 1,024 dimensions, about 3 ms of
 * reading and copying on the development machine, so a space of 100,000 vectors loads in 13 slices.
 */
export const PRELOAD_BLOCKS = 128

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
  /** Bytes of the space's kernel memory: the codes and fact ids (room to grow included), a search's scratch, whole pages. */
  readonly bytes: number
}

/** The loaded codes of one space, by store slot. */
interface SpaceCodes {
  readonly dim: number
  readonly blockSlots: number
  /** The space version the codes are at (or newer than). */
  version: number
  /** Slots in use: one past the highest slot given. */
  size: number
  /** Slots holding a vector. */
  live: number
  /** The codes and fact ids by slot (fact id 0: a free slot). */
  readonly arena: CodeArena
  /** A load under way (the warm start's, until it or a search finishes it). */
  pending: PendingLoad | undefined
}

/** A load begun and not finished: the state read before its first block, and the next block to read. */
interface PendingLoad {
  readonly state: SpaceState
  next: number
}

/** The in-memory coarse index over the spaces of one or more stores. */
export class VectorIndex {
  private readonly spaces = new WeakMap<VectorStore, Map<number, SpaceCodes>>()
  /** Compiled when the index is made, so no query pays for it. */
  private readonly kernel = new ScanKernel()

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
  search(
    store: VectorStore,
    space: Pick<VectorSpace, 'id'>,
    queryUnit: Float32Array,
    depth: number,
    visibility: Visibility | undefined,
    width: ScanWidth = SCAN_WIDTH,
  ): VectorHit[] {
    const codes = this.refreshed(store, space.id)
    if (codes === undefined || codes.live === 0 || depth <= 0 || queryUnit.length !== codes.dim) return []
    const { arena } = codes
    const keep = Math.max(width.candidates, depth)
    const slots = arena.nearest(queryUnit, codes.size, Math.max(width.shortlist, keep), keep)
    const ids = Array.from(slots, (slot) => arena.factId(slot))
    const rows = store.magnitudeRows(space.id, ids, visibility)
    const current =
      store.version(space.id) === codes.version && rows.every((row) => arena.factId(row.slot) === row.factId)
    let scored: VectorHit[]
    if (current) {
      const dots = arena.dots(queryUnit, rows)
      scored = rows.map((row, i) => ({ id: row.factId, score: (dots[i] ?? 0) * row.scale }))
    } else {
      // Another connection wrote since the codes were read: the stored sign bits, read with the rows.
      scored = store
        .rescoreRows(space.id, ids, visibility)
        .map((row) => ({ id: row.factId, score: cosineQuantized(queryUnit, row.quantized, row.scale) }))
    }
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
   * Load a space's codes ahead of its first search, {@link PRELOAD_BLOCKS} blocks at a time with `pause` awaited
   * between slices, so a process that has just started (a one-shot run) has them before its first query without
   * holding the event loop for long; then, after one more pause, run a warm-up search whose answer is dropped. The
   * codes are recorded at the version read before the first slice (each slice is at least that new), so a search
   * afterwards reads again only what was written since. A search that comes while the load is under way reads the
   * blocks still to come in one pass and answers; the load then ends. A space already loaded, empty or gone is left
   * alone.
   * @param store - the vector store.
   * @param spaceId - the space.
   * @param pause - awaited between slices (the next turn of the event loop).
   * @param signal - stops the load: between slices, what was read is dropped; once the codes are in, only the warm-up
   *   search is skipped.
   * @param slice - blocks read between pauses (specs set a small one, so a small store takes several slices).
   * @returns how many vectors the index holds for the space afterwards (0 when stopped or nothing to load).
   */
  async preload(
    store: VectorStore,
    spaceId: number,
    pause: () => Promise<void>,
    signal?: AbortSignal,
    slice = PRELOAD_BLOCKS,
  ): Promise<number> {
    const byStore = this.spacesOf(store)
    const held = byStore.get(spaceId)
    if (held !== undefined) return held.live
    // A space that is gone reads as empty.
    const state = store.spaceState(spaceId)
    if (state.count === 0) return 0
    const loading = this.begin(state)
    const { pending } = loading
    byStore.set(spaceId, loading)
    const blocks = blockCount(state)
    const step = Math.max(1, slice)
    while (pending.next < blocks) {
      place(loading, store.blockRange(spaceId, pending.next, pending.next + step))
      pending.next += step
      await pause()
      // A search finished the load (or replaced it): it is done.
      if (byStore.get(spaceId) !== loading || loading.pending === undefined) return byStore.get(spaceId)?.live ?? 0
      if (signal?.aborted === true) {
        byStore.delete(spaceId)
        return 0
      }
    }
    finish(loading, store, spaceId)
    // One search of a fixed query, its answer dropped: V8 compiles the kernel at its optimizing tier on it, and the
    // rescoring's index pages come into SQLite's cache, so the first real query costs what the ones after it do.
    await pause()
    if (signal?.aborted !== true && byStore.get(spaceId) === loading)
      this.search(store, { id: spaceId }, warmupQuery(state.dim), 1, { includeSensitive: false })
    return loading.live
  }

  /**
   * @param store - the vector store.
   * @param spaceId - the space.
   * @returns what the index holds for it (zeros when not loaded).
   */
  footprint(store: VectorStore, spaceId: number): IndexFootprint {
    const codes = this.spaces.get(store)?.get(spaceId)
    if (codes === undefined) return { facts: 0, bytes: 0 }
    return { facts: codes.live, bytes: codes.arena.heldBytes }
  }

  private spacesOf(store: VectorStore): Map<number, SpaceCodes> {
    let byStore = this.spaces.get(store)
    if (byStore === undefined) {
      byStore = new Map()
      this.spaces.set(store, byStore)
    }
    return byStore
  }

  /** Codes sized to a state with their load begun: nothing read yet, block 0 next. */
  private begin(state: SpaceState): SpaceCodes & { readonly pending: PendingLoad } {
    const arena = this.kernel.arena(Math.max(1, state.dim))
    arena.reserve(state.slotCount)
    return {
      dim: state.dim,
      blockSlots: state.blockSlots,
      version: -1,
      size: state.slotCount,
      live: 0,
      arena,
      pending: { state, next: 0 },
    }
  }

  private refreshed(store: VectorStore, spaceId: number): SpaceCodes | undefined {
    const byStore = this.spacesOf(store)
    const version = store.version(spaceId)
    if (version === undefined) {
      byStore.delete(spaceId)
      return undefined
    }
    const held = byStore.get(spaceId)
    // A load under way: the blocks it has still to read, in one pass; its codes are then at the version it began at.
    if (held !== undefined) finish(held, store, spaceId)
    if (held !== undefined && held.version === version) return held
    // Read the state before the blocks: what they hold is then at least as new as the version recorded.
    const state = store.spaceState(spaceId)
    if (state.count === 0) {
      // An emptied space lets its memory go.
      byStore.delete(spaceId)
      return undefined
    }
    if (held !== undefined && held.dim === state.dim && held.blockSlots === state.blockSlots) {
      apply(held, state, store.blocksSince(spaceId, held.version), store.freeSlots(spaceId))
      if (held.live === state.count) return held
    }
    // First load, or codes that no longer add up (a clear, say): the whole space in one pass, a load finished at once.
    const loaded = this.begin(state)
    finish(loaded, store, spaceId)
    byStore.set(spaceId, loaded)
    return loaded
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
  codes.arena.reserve(size)
  codes.arena.clear(size, Math.max(size, codes.size))
  codes.size = size
  place(codes, blocks)
  settle(codes, state, free)
}

/** Each block's codes and fact ids into its slots below the size (the block's other slots emptied). */
function place(codes: SpaceCodes, blocks: readonly CodeBlock[]): void {
  const { arena, size } = codes
  for (const block of blocks) {
    const first = block.blockNo * codes.blockSlots
    if (first >= size) continue
    const held = Math.min(
      block.factIds.length,
      codes.blockSlots,
      size - first,
      Math.floor(block.codes.byteLength / arena.codeBytes),
    )
    arena.clear(first, Math.min(size, first + codes.blockSlots))
    arena.write(first, block.codes, block.factIds, held)
  }
}

/**
 * End a load under way (nothing to do without one): the blocks from its next one in one read, if any are left, then
 * its free slots, and the codes are recorded at the state it began at.
 */
function finish(codes: SpaceCodes, store: VectorStore, spaceId: number): void {
  const { pending } = codes
  if (pending === undefined) return
  const blocks = blockCount(pending.state)
  if (pending.next < blocks) place(codes, store.blockRange(spaceId, pending.next, blocks))
  settle(codes, pending.state, store.freeSlots(spaceId))
  codes.pending = undefined
}

/** How many blocks a space's slots take. */
function blockCount(state: SpaceState): number {
  return Math.ceil(state.slotCount / state.blockSlots)
}

/** The free slots drop out, the live count is taken again, and the codes are recorded at the state's version. */
function settle(codes: SpaceCodes, state: SpaceState, free: readonly number[]): void {
  for (const slot of free) if (slot < codes.size) codes.arena.clear(slot, slot + 1)
  codes.live = codes.arena.live(codes.size)
  codes.version = state.version
}

/** The warm-up search's query: every component alike, a unit vector that any space of the dimension can answer. */
function warmupQuery(dim: number): Float32Array {
  return new Float32Array(Math.max(1, dim)).fill(1 / Math.sqrt(Math.max(1, dim)))
}
