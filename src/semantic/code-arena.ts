/**
 * The sign codes of one vector space, held by slot in the memory of a WebAssembly instance of the vector scan
 * (vector-scan.wat), which does a search's numeric work where the codes lie: the Hamming shortlist, the asymmetric
 * ranking and the exact rescoring's dot products. Compiled before its first call and using the machine's own
 * popcount, it costs a process's first search about twice what it costs once V8's optimizing tier has taken over,
 * where the JavaScript it replaced cost five to seventy times as much until the JIT had warmed to it.
 *
 * Memory layout, in bytes from 0: the query's code (`stride` bytes) and the histogram of distances, then `capacity`
 * codes of `stride` bytes (a code's stored bytes, zero-padded to whole 32-bit words) and `capacity` int32 fact ids
 * (0: no vector). Only those persist; growing moves the ids after the codes. After them, each search lays out its
 * scratch: the distances, the shortlist, the ranked slots and their scores, the float query, its table and a row's
 * magnitudes. Byte order never matters to the codes (they are copied as stored, and the kernel only tests an id against
 * zero); floats and the kernel's int32 answers cross in little-endian, as WebAssembly holds them.
 *
 * The sums are the same numbers the JavaScript they replace gave: the table's entries on float64 rounded to float32,
 * a score summed on float64 a 32-bit word of the code at a time, a dot product on float64 in component order.
 */
import { messageOf } from '../errors.ts'
import { LITTLE_ENDIAN, magnitudeBytes } from '../store/vector-codec.ts'
import { VECTOR_SCAN_WASM } from './vector-scan.wasm.ts'
import { bitBytes, bitWords, signBits } from './quantize.ts'

/** The part of the WebAssembly JavaScript API used here (Node has it; the project's `lib` setting does not declare it). */
interface WasmApi {
  readonly Module: new (bytes: Uint8Array) => object
  readonly Instance: new (module: object, imports: object) => { readonly exports: Record<string, unknown> }
}

interface WasmMemory {
  readonly buffer: ArrayBuffer
  grow(pages: number): number
}

/** The kernel's exports (vector-scan.wat documents each). */
interface ScanExports {
  readonly memory: WasmMemory
  readonly shortlist: (
    codes: number,
    ids: number,
    size: number,
    words: number,
    query: number,
    histogram: number,
    distances: number,
    out: number,
    keep: number,
  ) => number
  readonly live: (ids: number, size: number) => number
  readonly signTable: (query: number, dim: number, positions: number, table: number, entry: number) => void
  readonly rank: (
    table: number,
    codes: number,
    stride: number,
    positions: number,
    slots: number,
    count: number,
    keep: number,
    out: number,
    scores: number,
  ) => number
  readonly dot: (query: number, magnitudes: number, bits: number, dim: number) => number
}

/** A candidate of the exact rescoring: its slot and its stored magnitudes. */
export interface RescoredRow {
  readonly slot: number
  readonly magnitudes: Uint8Array
}

/** WebAssembly's page: memory grows by whole pages. */
const WASM_PAGE = 65_536

/** Where the codes start is rounded up to this, so each code sits on a cache line boundary at 1,024 dimensions. */
const CODES_ALIGN = 64

/** Capacity grows by at least this share, so a sweep adding vectors one batch at a time moves the ids rarely. */
const GROWTH = 1.25

/** The largest code the uint16 distances can measure (32 bits a word, one value kept for "no vector"). */
const MAX_DIM = 65_504

/** Entries of one byte position's table. */
const BYTE_VALUES = 256

/** The compiled kernel, shared by every arena of the index that owns it. */
export class ScanKernel {
  private readonly compiled: { readonly module: object } | { readonly error: Error }

  /**
   * Compile the kernel (under a millisecond; the index does it once, when it is made). A runtime that cannot (one
   * without WebAssembly) is told so by the first arena asked for, so only the vector channel goes without.
   */
  constructor() {
    try {
      this.compiled = { module: new (wasmApi().Module)(Buffer.from(VECTOR_SCAN_WASM, 'base64')) }
    } catch (error) {
      this.compiled = { error: new Error(`the vector scan's WebAssembly kernel cannot run here: ${messageOf(error)}`) }
    }
  }

  /**
   * An empty arena for codes of one dimension.
   * @param dim - the space's dimension, 1…65,504.
   * @returns an arena holding no slot yet.
   * @throws when the kernel could not be compiled, or for a dimension out of range.
   */
  arena(dim: number): CodeArena {
    if ('error' in this.compiled) throw this.compiled.error
    if (!Number.isInteger(dim) || dim < 1 || dim > MAX_DIM)
      throw new RangeError(`a code arena takes 1 to ${MAX_DIM} dimensions, not ${dim}`)
    const { exports } = new (wasmApi().Instance)(this.compiled.module, {})
    return new CodeArena(dim, exports as unknown as ScanExports)
  }
}

/** One space's codes and fact ids by slot, and the kernel's work over them. */
export class CodeArena {
  /** The dimension of the codes held. */
  readonly dim: number
  /** Bytes of one code in the arena: the stored bytes padded to whole 32-bit words. */
  readonly stride: number
  /** Bytes of one code as stored (`ceil(dim / 8)`). */
  readonly codeBytes: number
  private readonly words: number
  private readonly kernel: ScanExports
  private readonly histogramAt: number
  private readonly codesAt: number
  private slots = 0
  private viewed: ArrayBuffer | undefined
  private bytes = new Uint8Array(0)
  private ids = new Int32Array(0)

  /** Made by {@link ScanKernel.arena}. */
  constructor(dim: number, kernel: ScanExports) {
    this.dim = dim
    this.kernel = kernel
    this.words = bitWords(dim)
    this.stride = this.words * 4
    this.codeBytes = bitBytes(dim)
    this.histogramAt = this.stride
    this.codesAt = roundUp(this.histogramAt + (32 * this.words + 2) * 4, CODES_ALIGN)
  }

  /** How many slots the arena holds room for. */
  get capacity(): number {
    return this.slots
  }

  /** Bytes of memory the arena holds (its pages, capacity and scratch included). */
  get heldBytes(): number {
    return this.kernel.memory.buffer.byteLength
  }

  /**
   * Make room for slots 0…`slots`-1 (new slots hold no vector). Room grows by at least a quarter, so growing slot by
   * slot stays cheap.
   * @param slots - the slots that must fit.
   */
  reserve(slots: number): void {
    if (slots <= this.slots) return
    const grown = Math.max(slots, this.slots === 0 ? slots : Math.ceil(this.slots * GROWTH))
    const oldIds = this.idsAt(this.slots)
    const oldSlots = this.slots
    this.ensureBytes(this.scratchAt(grown))
    const bytes = this.view()
    const newIds = this.idsAt(grown)
    bytes.copyWithin(newIds, oldIds, oldIds + oldSlots * 4)
    bytes.fill(0, newIds + oldSlots * 4, newIds + grown * 4)
    this.slots = grown
    this.viewed = undefined
  }

  /**
   * Copy stored codes and their fact ids into consecutive slots.
   * @param first - the first slot written.
   * @param codes - `count` codes of {@link codeBytes} bytes each, as stored.
   * @param ids - `count` fact ids (0: the slot holds no vector).
   * @param count - how many slots to write; they must fit the capacity.
   */
  write(first: number, codes: Uint8Array, ids: Int32Array, count: number): void {
    if (first + count > this.slots)
      throw new RangeError(`slot ${first + count - 1} is past the arena's ${this.slots} slots`)
    const bytes = this.view()
    const at = this.codesAt + first * this.stride
    if (this.codeBytes === this.stride) {
      bytes.set(codes.subarray(0, count * this.stride), at)
    } else {
      for (let slot = 0; slot < count; slot += 1) {
        const to = at + slot * this.stride
        bytes.fill(0, to + this.codeBytes, to + this.stride)
        bytes.set(codes.subarray(slot * this.codeBytes, (slot + 1) * this.codeBytes), to)
      }
    }
    this.ids.set(ids.subarray(0, count), first)
  }

  /**
   * Mark slots as holding no vector.
   * @param from - the first slot.
   * @param to - one past the last slot (clipped to the capacity).
   */
  clear(from: number, to: number): void {
    this.view()
    if (from < Math.min(to, this.slots)) this.ids.fill(0, from, Math.min(to, this.slots))
  }

  /**
   * @param slot - a slot.
   * @returns the fact id it holds, 0 for none (or past the capacity).
   */
  factId(slot: number): number {
    this.view()
    return this.ids[slot] ?? 0
  }

  /**
   * @param size - how many slots, from 0, to count.
   * @returns how many of them hold a vector.
   */
  live(size: number): number {
    return this.kernel.live(this.idsAt(this.slots), Math.min(size, this.slots))
  }

  /**
   * The stored sign bits of a slot.
   * @param slot - a slot within the capacity.
   * @returns a view of its {@link codeBytes} bytes, valid until the arena grows.
   */
  code(slot: number): Uint8Array {
    const at = this.codesAt + slot * this.stride
    return this.view().subarray(at, at + this.codeBytes)
  }

  /**
   * The coarse ranking of a query against slots 0…`size`-1 that hold a vector: the `shortlist` nearest by Hamming
   * distance to the query's sign bits (every slot nearer than the cut distance, then slots at the cut in slot order),
   * of which the `keep` best by asymmetric score, best first, ties the lower slot first.
   * @param query - the float query, of the arena's dimension.
   * @param size - how many slots take part.
   * @param shortlist - how many the Hamming stage keeps.
   * @param keep - how many the asymmetric score keeps: no more than the shortlist (a caller wanting more widens it).
   * @returns the kept slots, best first.
   * @throws RangeError for a query of another dimension.
   */
  nearest(query: Float32Array, size: number, shortlist: number, keep: number): Int32Array {
    this.assertDimension(query)
    const slots = Math.min(size, this.slots)
    const wide = Math.max(0, Math.min(shortlist, slots))
    const kept = Math.max(0, Math.min(keep, wide))
    const scratch = this.scratch(wide, kept)
    const bytes = this.view()
    bytes.fill(0, 0, this.stride)
    bytes.set(signBits(query).subarray(0, this.codeBytes), 0)
    const taken = this.kernel.shortlist(
      this.codesAt,
      this.idsAt(this.slots),
      slots,
      this.words,
      0,
      this.histogramAt,
      scratch.distances,
      scratch.shortlist,
      wide,
    )
    this.writeFloats(scratch.query, query)
    this.kernel.signTable(scratch.query, this.dim, this.codeBytes, scratch.table, scratch.entry)
    const ranked = this.kernel.rank(
      scratch.table,
      this.codesAt,
      this.stride,
      this.codeBytes,
      scratch.shortlist,
      taken,
      kept,
      scratch.ranked,
      scratch.scores,
    )
    return this.readInts(scratch.ranked, ranked)
  }

  /**
   * The exact rescoring's dot products: for each row, Σ q_i · c_i over the int8 vector its magnitudes and its slot's
   * sign bits give back.
   * @param query - the float query, of the arena's dimension.
   * @param rows - the candidates, each with a slot within the capacity.
   * @returns one dot product per row, in order.
   * @throws RangeError for a query of another dimension.
   */
  dots(query: Float32Array, rows: readonly RescoredRow[]): Float64Array {
    this.assertDimension(query)
    const scratch = this.scratch(0, 0)
    const bytes = this.view()
    const length = magnitudeBytes(this.dim)
    this.writeFloats(scratch.query, query)
    return Float64Array.from(rows, (row) => {
      if (row.magnitudes.byteLength < length) bytes.fill(0, scratch.magnitudes, scratch.magnitudes + length)
      bytes.set(row.magnitudes.subarray(0, length), scratch.magnitudes)
      return this.kernel.dot(scratch.query, scratch.magnitudes, this.codesAt + row.slot * this.stride, this.dim)
    })
  }

  private assertDimension(query: Float32Array): void {
    if (query.length !== this.dim)
      throw new RangeError(`a query of ${query.length} dimensions against codes of ${this.dim}`)
  }

  private idsAt(slots: number): number {
    return this.codesAt + slots * this.stride
  }

  /** Where a search's scratch starts for a capacity: after the ids. */
  private scratchAt(slots: number): number {
    return this.idsAt(slots) + slots * 4
  }

  /** A search's scratch, after the codes and ids, with the memory grown to hold it. */
  private scratch(
    shortlist: number,
    keep: number,
  ): {
    distances: number
    shortlist: number
    ranked: number
    scores: number
    query: number
    table: number
    entry: number
    magnitudes: number
  } {
    const distances = this.scratchAt(this.slots)
    const listed = roundUp(distances + this.slots * 2, 8)
    const ranked = listed + shortlist * 4
    const scores = roundUp(ranked + keep * 4, 8)
    const query = scores + keep * 8
    const table = roundUp(query + this.dim * 4, 8)
    const entry = table + this.codeBytes * BYTE_VALUES * 4
    const magnitudes = entry + BYTE_VALUES * 8
    this.ensureBytes(magnitudes + magnitudeBytes(this.dim))
    return { distances, shortlist: listed, ranked, scores, query, table, entry, magnitudes }
  }

  private ensureBytes(bytes: number): void {
    const have = this.kernel.memory.buffer.byteLength
    if (bytes > have) {
      this.kernel.memory.grow(Math.ceil((bytes - have) / WASM_PAGE))
      this.viewed = undefined
    }
  }

  /** Floats into the memory as WebAssembly reads them (little-endian). */
  private writeFloats(at: number, values: Float32Array): void {
    if (LITTLE_ENDIAN) {
      new Float32Array(this.kernel.memory.buffer, at, values.length).set(values)
      return
    }
    const view = new DataView(this.kernel.memory.buffer)
    values.forEach((value, i) => {
      view.setFloat32(at + i * 4, value, true)
    })
  }

  /** Int32s the kernel wrote (little-endian), copied out. */
  private readInts(at: number, count: number): Int32Array {
    if (LITTLE_ENDIAN) return new Int32Array(this.kernel.memory.buffer, at, count).slice()
    const view = new DataView(this.kernel.memory.buffer)
    return Int32Array.from({ length: count }, (_, i) => view.getInt32(at + i * 4, true))
  }

  /** The memory's bytes, and the ids' view, made again after the memory grew (growing detaches the old buffer). */
  private view(): Uint8Array {
    const buffer = this.kernel.memory.buffer
    if (this.viewed !== buffer) {
      this.bytes = new Uint8Array(buffer)
      this.ids = new Int32Array(buffer, this.idsAt(this.slots), this.slots)
      this.viewed = buffer
    }
    return this.bytes
  }
}

function wasmApi(): WasmApi {
  const api = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly
  if (api === undefined) throw new Error('this JavaScript runtime has no WebAssembly')
  return api
}

function roundUp(value: number, multiple: number): number {
  return Math.ceil(value / multiple) * multiple
}
