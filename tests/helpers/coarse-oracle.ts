/**
 * The vector scan's coarse ranking written plainly in JavaScript, over codes as the store keeps them (sign bits as
 * bytes, bit i in byte i >> 3 at bit i & 7): the answers the WebAssembly kernel (src/semantic/vector-scan.wat) must
 * give, and the scan the migration specs compare a migrated store against. Slow and obvious on purpose.
 */

/** Sign codes by slot; undefined: a free slot. */
export type OracleCodes = readonly (Uint8Array | undefined)[]

/**
 * @param a - a code.
 * @param b - another code of the same length.
 * @returns how many bits differ.
 */
export function hammingDistance(a: Uint8Array, b: Uint8Array): number {
  let distance = 0
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    for (let x = (a[i] ?? 0) ^ (b[i] ?? 0); x !== 0; x &= x - 1) distance += 1
  }
  return distance
}

/**
 * The `keep` slots nearest a query by Hamming distance, ties by the lower slot, in ascending slot order.
 * @param codes - the codes by slot.
 * @param query - the query's sign bits.
 * @param keep - how many to keep.
 * @returns the kept slots, ascending.
 */
export function hammingNearest(codes: OracleCodes, query: Uint8Array, keep: number): number[] {
  return codes
    .flatMap((code, slot) => (code === undefined ? [] : [{ slot, distance: hammingDistance(code, query) }]))
    .sort((a, b) => a.distance - b.distance || a.slot - b.slot)
    .slice(0, Math.max(0, keep))
    .map((entry) => entry.slot)
    .sort((a, b) => a - b)
}

/**
 * The query's table for the asymmetric score, entry by entry on float64 (entry 0 = 0 - q0 - … - q7; entry v = entry
 * v-without-its-lowest-bit + 2·q of that bit's component), each rounded to float32.
 * @param query - the float query.
 * @param positions - the code length in bytes.
 * @returns `positions × 256` entries.
 */
export function signTable(query: Float32Array, positions: number): Float32Array {
  const table = new Float32Array(positions * 256)
  const entry = new Float64Array(256)
  for (let p = 0; p < positions; p += 1) {
    let negated = 0
    for (let k = 0; k < 8; k += 1) negated -= query[p * 8 + k] ?? 0
    entry[0] = negated
    for (let v = 1; v < 256; v += 1) {
      const low = v & -v
      entry[v] = (entry[v ^ low] ?? 0) + 2 * (query[p * 8 + (31 - Math.clz32(low))] ?? 0)
    }
    table.set(entry, p * 256)
  }
  return table
}

/**
 * The asymmetric score of a code as the JavaScript scan summed it: four bytes (a 32-bit word) at a time, the word's
 * entries added together in byte order and their sum to the score, on float64.
 * @param table - from {@link signTable}.
 * @param code - the code's bytes.
 * @returns the score.
 */
export function asymmetricScore(table: Float32Array, code: Uint8Array): number {
  const entry = (p: number): number => (p < code.length ? (table[p * 256 + (code[p] ?? 0)] ?? 0) : 0)
  let score = 0
  for (let p = 0; p < code.length; p += 4) score += entry(p) + entry(p + 1) + entry(p + 2) + entry(p + 3)
  return score
}

/**
 * Both coarse stages: the Hamming shortlist (widened to `keep`), then the `keep` best by asymmetric score, ties by the
 * lower slot.
 * @param codes - the codes by slot.
 * @param query - the float query.
 * @param shortlist - the Hamming stage's width.
 * @param keep - how many the asymmetric score keeps.
 * @returns the kept slots, best first.
 */
export function coarseRank(codes: OracleCodes, query: Float32Array, shortlist: number, keep: number): number[] {
  const positions = Math.ceil(query.length / 8)
  const bits = new Uint8Array(positions)
  query.forEach((component, i) => {
    if (component > 0) bits[i >> 3] = (bits[i >> 3] ?? 0) | (1 << (i & 7))
  })
  const table = signTable(query, positions)
  return hammingNearest(codes, bits, Math.max(shortlist, keep))
    .map((slot) => ({ slot, score: asymmetricScore(table, codes[slot] ?? new Uint8Array(0)) }))
    .sort((a, b) => b.score - a.score || a.slot - b.slot)
    .slice(0, Math.max(0, keep))
    .map((entry) => entry.slot)
}
