/**
 * Pure: the stored form of a vector and the arithmetic over it. A vector is L2-normalized, then kept as int8
 * components with one scale (for the exact rescoring) and as its sign bits (for the coarse Hamming scan). The scale
 * makes the dequantized vector unit length again, so the dot product of a unit query with `quantized × scale` is a
 * cosine, within about 0.01 of the cosine with the float vector at 1024 dimensions.
 */

/** The largest int8 magnitude used: components map to -127…127 (never -128, so the code is symmetric). */
const INT8_MAX = 127

/** A vector in its stored form. */
export interface QuantizedVector {
  /** Multiplies the int8 components back to a unit vector; 0 only for the zero vector. */
  readonly scale: number
  /** One int8 per component. */
  readonly quantized: Int8Array
  /** Bit i (byte i >> 3, bit i & 7, least significant first) is set when component i is positive. */
  readonly bits: Uint8Array
}

/**
 * The unit vector pointing where `vector` points.
 * @param vector - any vector.
 * @returns a new unit-length vector, or undefined when the vector is empty, zero or has a non-finite component.
 */
export function normalize(vector: Float32Array): Float32Array | undefined {
  let sum = 0
  for (const component of vector) sum += component * component
  const norm = Math.sqrt(sum)
  if (!Number.isFinite(norm) || norm === 0) return undefined
  const unit = new Float32Array(vector.length)
  for (let i = 0; i < vector.length; i += 1) unit[i] = (vector[i] ?? 0) / norm
  return unit
}

/**
 * The stored form of a unit vector.
 * @param unit - an L2-normalized vector (see {@link normalize}).
 * @returns its int8 components scaled by the largest magnitude, the scale that makes them unit length again, and its
 *   sign bits (`ceil(length / 8)` bytes).
 */
export function quantize(unit: Float32Array): QuantizedVector {
  let largest = 0
  for (const component of unit) largest = Math.max(largest, Math.abs(component))
  const quantized = new Int8Array(unit.length)
  let sum = 0
  for (let i = 0; i < unit.length; i += 1) {
    const code = largest === 0 ? 0 : Math.round(((unit[i] ?? 0) / largest) * INT8_MAX)
    quantized[i] = code
    sum += code * code
  }
  return { scale: sum === 0 ? 0 : 1 / Math.sqrt(sum), quantized, bits: signBits(unit) }
}

/**
 * The sign bits of a vector: what the coarse scan compares.
 * @param vector - any vector.
 * @returns `ceil(length / 8)` bytes; bit i (byte i >> 3, bit i & 7) is set when component i is positive.
 */
export function signBits(vector: Float32Array): Uint8Array {
  const bits = new Uint8Array(bitBytes(vector.length))
  for (let i = 0; i < vector.length; i += 1) {
    if ((vector[i] ?? 0) > 0) bits[i >> 3] = (bits[i >> 3] ?? 0) | (1 << (i & 7))
  }
  return bits
}

/**
 * The cosine between a unit query and a stored vector.
 * @param queryUnit - an L2-normalized query of the stored vector's dimension.
 * @param quantized - the stored int8 components.
 * @param scale - the stored scale.
 * @returns the dot product of the query with the dequantized (unit) vector; 0 when the lengths differ.
 */
export function cosineQuantized(queryUnit: Float32Array, quantized: Int8Array, scale: number): number {
  if (queryUnit.length !== quantized.length) return 0
  let dot = 0
  for (let i = 0; i < quantized.length; i += 1) dot += (queryUnit[i] ?? 0) * (quantized[i] ?? 0)
  return dot * scale
}

/**
 * The cosine of two stored vectors (both quantized, as the near-duplicate review compares facts).
 * @param a - one stored vector.
 * @param b - the other.
 * @returns the dot product of the two dequantized unit vectors; 0 when the lengths differ.
 */
export function cosineBetween(
  a: { readonly scale: number; readonly quantized: Int8Array },
  b: { readonly scale: number; readonly quantized: Int8Array },
): number {
  if (a.quantized.length !== b.quantized.length) return 0
  let dot = 0
  for (let i = 0; i < a.quantized.length; i += 1) dot += (a.quantized[i] ?? 0) * (b.quantized[i] ?? 0)
  return dot * a.scale * b.scale
}

/**
 * How many bytes the sign bits of a vector take.
 * @param dim - the dimension.
 * @returns `ceil(dim / 8)`.
 */
export function bitBytes(dim: number): number {
  return Math.ceil(dim / 8)
}

/**
 * How many 32-bit words the sign bits of a vector take in the scan.
 * @param dim - the dimension.
 * @returns `ceil(dim / 32)`.
 */
export function bitWords(dim: number): number {
  return Math.ceil(dim / 32)
}
