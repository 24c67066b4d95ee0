/**
 * Pure: the coarse ranking of the vector scan, over sign codes held as 32-bit words (see quantize.ts `writeWords`).
 * Two stages: the Hamming distance to the query's own sign bits picks a shortlist from every code, then the float
 * query scores each shortlisted code asymmetrically, `Σ q_i · (bit i ? +1 : -1)`: the dot product of the query with
 * the code's sign vector, which follows the true cosine far more closely than a count of differing bits does, because
 * a component where the query is large weighs more than one where it is near zero. The score is read from a per-query
 * table, one lookup per byte of the code. Nothing here reads more of a vector than its sign bits. The codes are held by
 * slot in blocks (as the store keeps them, so an index can hold the blocks it read without copying them), one block
 * being the flat case.
 */
import { popcount32, signBits, writeWords } from './quantize.ts'

/** Entries of one byte position's table: every value of a byte. */
const BYTE_VALUES = 256

/**
 * Sign codes by slot: slot s is in block ⌊s / blockSlots⌋, from word (s mod blockSlots) × words. Slots 0…size-1 take
 * part, except those whose `present` entry is 0 when it is given (a free slot holds no vector) and those past the end
 * of their block or without one.
 */
export interface SlotCodes {
  readonly blocks: readonly (Uint32Array | undefined)[]
  readonly blockSlots: number
  /** The code length in words. */
  readonly words: number
  readonly size: number
  readonly present?: Int32Array
}

/**
 * One flat array of codes as {@link SlotCodes}.
 * @param codes - `size` codes of `words` words each, code s starting at word `s × words`.
 * @param size - how many codes.
 * @param words - the code length in words.
 * @returns the codes as one block.
 */
export function flatCodes(codes: Uint32Array, size: number, words: number): SlotCodes {
  return { blocks: [codes], blockSlots: Math.max(1, size), words, size }
}

/**
 * The slots of the `keep` codes nearest to a query by Hamming distance: distances are counted into a histogram, the
 * cut-off distance is read from it, and one more pass takes every code below the cut and codes at the cut in slot
 * order until `keep` are taken (a counting select: no sort).
 * @param codes - the codes by slot.
 * @param query - the query's code, `codes.words` words.
 * @param keep - how many slots to keep.
 * @returns the kept slots in ascending order; every slot taking part when there are no more than `keep`.
 */
export function hammingShortlist(codes: SlotCodes, query: Uint32Array, keep: number): Int32Array {
  const { blocks, blockSlots, words, size, present } = codes
  const absent = words * 32 + 1
  const distances = new Uint16Array(size).fill(absent)
  const histogram = new Uint32Array(absent + 1)
  let live = 0
  for (let b = 0, first = 0; first < size; b += 1, first += blockSlots) {
    const block = blocks[b]
    if (block === undefined) continue
    const end = Math.min(size, first + blockSlots, first + Math.floor(block.length / Math.max(1, words)))
    for (let slot = first, at = 0; slot < end; slot += 1, at += words) {
      if (present !== undefined && present[slot] === 0) continue
      let distance = 0
      for (let j = 0; j < words; j += 1) distance += popcount32((block[at + j] ?? 0) ^ (query[j] ?? 0))
      distances[slot] = distance
      histogram[distance] = (histogram[distance] ?? 0) + 1
      live += 1
    }
  }
  const take = Math.max(0, Math.min(keep, live))
  let cut = 0
  let below = 0
  while (below + (histogram[cut] ?? 0) < take) {
    below += histogram[cut] ?? 0
    cut += 1
  }
  let atCut = take - below
  const out = new Int32Array(take)
  let taken = 0
  for (let slot = 0; slot < size && taken < out.length; slot += 1) {
    const distance = distances[slot] ?? absent
    if (distance < cut || (distance === cut && atCut-- > 0)) out[taken++] = slot
  }
  return out
}

/**
 * The query's table for the asymmetric score: for each byte position p of a code, 256 entries, entry v holding
 * `Σ_k q_{8p+k} · (bit k of v ? +1 : -1)` over the byte's eight components (components past the query's length
 * count 0).
 * @param query - the float query (unit length for scores on the cosine's scale, though the order does not need it).
 * @param words - the code length in words; the table covers `4 × words` byte positions.
 * @returns `4 × words × 256` entries, byte position p's at `p × 256`.
 */
export function signTable(query: Float32Array, words: number): Float32Array {
  const positions = words * 4
  const table = new Float32Array(positions * BYTE_VALUES)
  const entry = new Float64Array(BYTE_VALUES)
  for (let p = 0; p < positions; p += 1) {
    let negated = 0
    for (let k = 0; k < 8; k += 1) negated -= query[p * 8 + k] ?? 0
    entry[0] = negated
    // Entry v is entry v-without-its-lowest-bit with that component's sign flipped from - to +.
    for (let v = 1; v < BYTE_VALUES; v += 1) {
      const low = v & -v
      entry[v] = (entry[v ^ low] ?? 0) + 2 * (query[p * 8 + (31 - Math.clz32(low))] ?? 0)
    }
    table.set(entry, p * BYTE_VALUES)
  }
  return table
}

/**
 * The asymmetric score of one code: the dot product of the query its table was made from with the code's sign vector.
 * @param table - from {@link signTable} for codes of this length.
 * @param codes - the codes.
 * @param at - the code's first word.
 * @param words - the code length in words.
 * @returns the score; larger is nearer.
 */
export function tableScore(table: Float32Array, codes: Uint32Array, at: number, words: number): number {
  let score = 0
  for (let j = 0, base = 0; j < words; j += 1, base += 4 * BYTE_VALUES) {
    const word = codes[at + j] ?? 0
    // Byte 4j is the word's low byte (writeWords), so byte position 4j + b sits at bits 8b…8b+7.
    score += (table[base + (word & 0xff)] ?? 0)
      + (table[base + BYTE_VALUES + ((word >>> 8) & 0xff)] ?? 0)
      + (table[base + 2 * BYTE_VALUES + ((word >>> 16) & 0xff)] ?? 0)
      + (table[base + 3 * BYTE_VALUES + (word >>> 24)] ?? 0)
  }
  return score
}

/**
 * The `keep` best of some slots by asymmetric score.
 * @param table - from {@link signTable}.
 * @param codes - the codes by slot.
 * @param slots - the slots to rank (each with a code).
 * @param keep - how many to keep.
 * @returns the kept slots, best first (ties: the lower slot first).
 */
export function rankByTable(table: Float32Array, codes: SlotCodes, slots: Int32Array, keep: number): Int32Array {
  const { blocks, blockSlots, words } = codes
  const scores = new Float64Array(slots.length)
  for (let i = 0; i < slots.length; i += 1) {
    const slot = slots[i] ?? 0
    const block = blocks[Math.floor(slot / blockSlots)]
    scores[i] = block === undefined ? Number.NEGATIVE_INFINITY : tableScore(table, block, (slot % blockSlots) * words, words)
  }
  const order = Int32Array.from({ length: slots.length }, (_, i) => i)
    .sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || (slots[a] ?? 0) - (slots[b] ?? 0))
  return Int32Array.from(order.subarray(0, Math.max(0, keep)), (i) => slots[i] ?? 0)
}

/** How wide each stage of the coarse ranking is. */
export interface CoarseWidth {
  /** Codes the Hamming stage keeps for the asymmetric score. */
  readonly shortlist: number
  /** Codes the asymmetric score keeps (for the exact rescoring). */
  readonly keep: number
}

/**
 * Both stages: the Hamming shortlist, then the best by asymmetric score.
 * @param codes - the codes by slot.
 * @param query - the float query, of the codes' dimension.
 * @param width - the stages' widths; a shortlist narrower than `keep` is widened to it.
 * @returns up to `keep` slots, best first.
 */
export function coarseRank(codes: SlotCodes, query: Float32Array, width: CoarseWidth): Int32Array {
  const queryCode = new Uint32Array(codes.words)
  writeWords(signBits(query), queryCode, 0, codes.words)
  const shortlist = hammingShortlist(codes, queryCode, Math.max(width.shortlist, width.keep))
  return rankByTable(signTable(query, codes.words), codes, shortlist, width.keep)
}
