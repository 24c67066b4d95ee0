/** Deterministic seeds for the nebula: a string hash, a seeded generator, a point in a ball, spiral directions. Pure. */

const GOLDEN_ANGLE = Math.PI * (3 - Math.sqrt(5))

/**
 * 32-bit FNV-1a hash of a string, the seed of a node's starting position.
 * @param text - any string, usually a node id
 * @returns an unsigned 32-bit integer
 */
export function hashString(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

/**
 * A small seeded generator (mulberry32) of numbers in [0, 1).
 * @param seed - a 32-bit seed
 * @returns a function giving the next number on each call
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * @param random - the generator to draw from
 * @returns a point uniformly inside the unit ball
 */
export function inBall(random: () => number): [number, number, number] {
  const u = random() * 2 - 1
  const phi = random() * Math.PI * 2
  const r = Math.cbrt(random())
  const s = Math.sqrt(1 - u * u)
  return [r * s * Math.cos(phi), r * s * Math.sin(phi), r * u]
}

/**
 * @param i - the direction's number
 * @returns unit direction number `i` of an unbounded golden spiral over the sphere
 */
export function spiralDirection(i: number): [number, number, number] {
  const z = 1 - 2 * ((i * 0.6180339887498949) % 1)
  const s = Math.sqrt(Math.max(0, 1 - z * z))
  const theta = i * GOLDEN_ANGLE
  return [s * Math.cos(theta), s * Math.sin(theta), z]
}
