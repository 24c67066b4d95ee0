/**
 * Pure: the on-disk form of a stored vector. A vector is int8 components (-127…127) with one scale, and its sign bits
 * (bit i set when component i of the float vector was positive) for the coarse scan. The sign bits are stored once,
 * in their space's code blocks (so a process loads every code of a space in one pass), and the row keeps only the
 * magnitudes, seven bits each: a nonzero component has the sign of its bit (rounding never flips a sign) and a zero
 * one has none, so the two together give back the int8 vector exactly. At 1,024 dimensions that is 896 bytes of
 * magnitudes, which lets two rows share a 2 KiB page (four a 4 KiB one) where the full int8 vector allowed one (three).
 * Block slots hold fact ids as 32-bit little-endian integers, 0 for a slot that never held a vector.
 */

/** Components packed per group: eight 7-bit magnitudes in seven bytes. */
const GROUP = 8

/** Bytes a group of magnitudes takes. */
const GROUP_BYTES = 7

/** Bytes of one fact id in a block. */
export const ID_BYTES = 4

/**
 * @param dim - the dimension.
 * @returns how many bytes the packed magnitudes of a vector take: seven per eight components, the last group padded.
 */
export function magnitudeBytes(dim: number): number {
  return Math.ceil(dim / GROUP) * GROUP_BYTES
}

/**
 * @param dim - the dimension.
 * @returns how many bytes a vector's sign bits take: `ceil(dim / 8)`.
 */
export function codeBytes(dim: number): number {
  return Math.ceil(dim / 8)
}

/**
 * Pack the magnitudes of an int8 vector. Group g (components 8g…8g+7) is the 56-bit little-endian integer whose bits
 * 7k…7k+6 hold |component 8g+k|; components past the end count 0.
 * @param quantized - int8 components in -127…127 (a -128 is taken as 127).
 * @returns {@link magnitudeBytes} bytes.
 */
export function packMagnitudes(quantized: Int8Array): Uint8Array {
  const out = new Uint8Array(magnitudeBytes(quantized.length))
  for (let at = 0, i = 0; i < quantized.length; at += GROUP_BYTES, i += GROUP) {
    const m = (k: number): number => Math.min(127, Math.abs(quantized[i + k] ?? 0))
    // Two 28-bit halves, so no intermediate passes 2^31.
    const low = m(0) | (m(1) << 7) | (m(2) << 14) | (m(3) << 21)
    const high = m(4) | (m(5) << 7) | (m(6) << 14) | (m(7) << 21)
    out[at] = low & 0xff
    out[at + 1] = (low >>> 8) & 0xff
    out[at + 2] = (low >>> 16) & 0xff
    out[at + 3] = ((low >>> 24) & 0x0f) | ((high & 0x0f) << 4)
    out[at + 4] = (high >>> 4) & 0xff
    out[at + 5] = (high >>> 12) & 0xff
    out[at + 6] = (high >>> 20) & 0xff
  }
  return out
}

/**
 * The int8 vector from its packed magnitudes and its sign bits.
 * @param magnitudes - from {@link packMagnitudes}.
 * @param bits - the sign bits, `ceil(dim / 8)` bytes (bit i: byte i >> 3, bit i & 7).
 * @param dim - the dimension.
 * @returns the int8 components.
 */
export function unpackVector(magnitudes: Uint8Array, bits: Uint8Array, dim: number): Int8Array {
  const out = new Int8Array(dim)
  for (let at = 0, i = 0; i < dim; at += GROUP_BYTES, i += GROUP) {
    const low =
      (magnitudes[at] ?? 0) |
      ((magnitudes[at + 1] ?? 0) << 8) |
      ((magnitudes[at + 2] ?? 0) << 16) |
      (((magnitudes[at + 3] ?? 0) & 0x0f) << 24)
    const high =
      ((magnitudes[at + 3] ?? 0) >>> 4) |
      ((magnitudes[at + 4] ?? 0) << 4) |
      ((magnitudes[at + 5] ?? 0) << 12) |
      ((magnitudes[at + 6] ?? 0) << 20)
    const signs = bits[i >> 3] ?? 0
    for (let k = 0; k < GROUP && i + k < dim; k += 1) {
      const magnitude = (k < 4 ? low >>> (7 * k) : high >>> (7 * (k - 4))) & 0x7f
      out[i + k] = (signs >>> k) & 1 ? magnitude : -magnitude
    }
  }
  return out
}

/**
 * Whether the sign bits agree with an int8 vector: every positive component has its bit set and every negative one
 * has it clear (zero components may have either), the condition for {@link unpackVector} to give the vector back.
 * @param quantized - int8 components.
 * @param bits - sign bits of the same dimension.
 * @returns true when they agree.
 */
export function signsAgree(quantized: Int8Array, bits: Uint8Array): boolean {
  if (bits.length !== codeBytes(quantized.length)) return false
  for (let i = 0; i < quantized.length; i += 1) {
    const component = quantized[i] ?? 0
    if (component === 0) continue
    const set = ((bits[i >> 3] ?? 0) >>> (i & 7)) & 1
    if (component > 0 !== (set === 1)) return false
  }
  return true
}

/** Whether this machine stores an integer's low byte first, as the blocks do. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1

/**
 * Read the fact ids of a block: a view of the bytes themselves where this machine's integers are little-endian and
 * the bytes 4-aligned (as a driver's blob buffers are), a decoded copy otherwise.
 * @param bytes - `4 × n` bytes, little-endian.
 * @returns n ids (0: a slot that never held a vector).
 */
export function decodeIds(bytes: Uint8Array): Int32Array {
  const n = Math.floor(bytes.byteLength / ID_BYTES)
  if (LITTLE_ENDIAN && bytes.byteOffset % ID_BYTES === 0) return new Int32Array(bytes.buffer, bytes.byteOffset, n)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const out = new Int32Array(n)
  for (let i = 0; i < n; i += 1) out[i] = view.getInt32(i * ID_BYTES, true)
  return out
}

/**
 * Write one fact id into a block's id bytes.
 * @param bytes - the block's ids, long enough for `slot`.
 * @param slot - the slot within the block.
 * @param factId - the id.
 */
export function writeId(bytes: Uint8Array, slot: number, factId: number): void {
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setInt32(slot * ID_BYTES, factId, true)
}
