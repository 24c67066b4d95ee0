/**
 * Vector test helpers: the stores of an open FactMemory, deterministic unit vectors and the stored row of a vector.
 */
import { mulberry32 } from '../../scripts/bench-corpus.ts'
import { ClusteredVectors } from '../../scripts/bench-vector-corpus.ts'
import type { FactMemory } from '../../src/fact-memory.ts'
import { textHash } from '../../src/semantic/input-text.ts'
import { quantize } from '../../src/semantic/quantize.ts'
import type { StoreSet } from '../../src/store/store-set.ts'
import type { VectorRow } from '../../src/store/vector-store.ts'

/** The embedding identity test spaces are made for. */
export const TEST_IDENTITY = { provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'fake-embed' } as const

/** The stores of an open memory, failing when it is not open. */
export function storesOf(memory: FactMemory): StoreSet {
  const opened = memory.storeSet()
  if (!('stores' in opened)) throw new Error(`the store is not open: ${opened.unavailable.message}`)
  return opened.stores
}

/** A deterministic generator of clustered unit vectors. */
export function vectorSource(dim: number, seed = 7, topics = 40): ClusteredVectors {
  return new ClusteredVectors(dim, topics, mulberry32(seed))
}

/**
 * The text hash store tests give a fact's vector: the SHA-256 of a label naming the fact.
 * @param factId - the fact.
 */
export function labelHash(factId: number): string {
  return textHash(`hash-${factId}`)
}

/**
 * The row that stores a unit vector for a fact.
 * @param factId - the fact.
 * @param revision - the revision its text was read at.
 * @param unit - the unit vector.
 * @param hash - the text hash ({@link labelHash} unless given).
 */
export function rowFor(factId: number, revision: number, unit: Float32Array, hash = labelHash(factId)): VectorRow {
  return { factId, revision, textHash: hash, ...quantize(unit) }
}
