/**
 * The query embeddings of recent messages and searches, least recently used dropped first: a message recalled again
 * or searched with the same words is not embedded twice. Keyed by the embedding fingerprint and the exact text sent
 * (credentials already masked), so another model never answers from this one's vectors; it holds nothing that was
 * not already sent to the endpoint, and only in this process's memory.
 */

/** How many query embeddings are kept: 64 × a 1024-d float32 vector is 256 KiB. */
export const QUERY_EMBEDDING_CACHE_SIZE = 64

/** A bounded LRU of unit query vectors. */
export class QueryEmbeddingCache {
  private readonly entries = new Map<string, Float32Array>()
  private readonly capacity: number

  /** @param capacity - the most vectors kept (0 keeps none). */
  constructor(capacity = QUERY_EMBEDDING_CACHE_SIZE) {
    this.capacity = capacity
  }

  /**
   * A kept vector, marked as just used.
   * @param fingerprint - the embedding fingerprint in force.
   * @param text - the exact text that was embedded.
   * @returns the unit vector, or undefined.
   */
  get(fingerprint: string, text: string): Float32Array | undefined {
    const key = keyOf(fingerprint, text)
    const vector = this.entries.get(key)
    if (vector === undefined) return undefined
    this.entries.delete(key)
    this.entries.set(key, vector)
    return vector
  }

  /**
   * Keep a vector, dropping the least recently used beyond the capacity.
   * @param fingerprint - the embedding fingerprint it was made under.
   * @param text - the exact text embedded.
   * @param unit - the normalized vector; the cache never changes it, and callers must not either.
   */
  set(fingerprint: string, text: string, unit: Float32Array): void {
    if (this.capacity <= 0) return
    const key = keyOf(fingerprint, text)
    this.entries.delete(key)
    this.entries.set(key, unit)
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.capacity) break
      this.entries.delete(oldest)
    }
  }

  /** How many vectors are kept. */
  get size(): number {
    return this.entries.size
  }
}

/** The fingerprint never contains a NUL, so the pair is unambiguous. */
function keyOf(fingerprint: string, text: string): string {
  return `${fingerprint}\u0000${text}`
}
