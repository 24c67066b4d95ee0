// The coarse ranking of the vector scan: the Hamming shortlist, the per-query table and the asymmetric score it reads.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { coarseRank, flatCodes, hammingShortlist, rankByTable, signTable, tableScore, type SlotCodes } from '../src/semantic/coarse-rank.ts'
import { bitWords, hamming, signBits, writeWords } from '../src/semantic/quantize.ts'
import { mulberry32 } from '../scripts/bench-corpus.ts'
import { ClusteredVectors } from '../scripts/bench-vector-corpus.ts'

function vectorSource(dim: number, seed = 13): ClusteredVectors {
  return new ClusteredVectors(dim, 4, mulberry32(seed))
}

/** The codes of some vectors, one after another, as the index holds them. */
function codesOf(vectors: readonly Float32Array[], dim: number): Uint32Array {
  const words = bitWords(dim)
  const codes = new Uint32Array(vectors.length * words)
  vectors.forEach((vector, slot) => { writeWords(signBits(vector), codes, slot * words, words) })
  return codes
}

/** The dot product of a query with a vector's sign vector, component by component. */
function signDot(query: Float32Array, vector: Float32Array): number {
  let sum = 0
  for (let i = 0; i < query.length; i += 1) sum += (query[i] ?? 0) * ((vector[i] ?? 0) > 0 ? 1 : -1)
  return sum
}

describe('the asymmetric score', () => {
  for (const dim of [1024, 1000, 12]) {
    it(`is the query's dot product with the code's sign vector at ${dim} dimensions`, () => {
      const source = vectorSource(dim)
      const words = bitWords(dim)
      const vectors = Array.from({ length: 20 }, () => source.gaussianUnit())
      const codes = codesOf(vectors, dim)
      const query = source.gaussianUnit()
      const table = signTable(query, words)
      assert.equal(table.length, words * 4 * 256)
      vectors.forEach((vector, slot) => {
        assert.ok(Math.abs(tableScore(table, codes, slot * words, words) - signDot(query, vector)) < 1e-5, `slot ${slot}`)
      })
    })
  }

  it('scores the query\'s own sign bits highest: the sum of its magnitudes', () => {
    const source = vectorSource(256, 5)
    const query = source.gaussianUnit()
    const words = bitWords(256)
    const codes = codesOf([query, ...Array.from({ length: 50 }, () => source.near(query, 0.3))], 256)
    const table = signTable(query, words)
    const own = tableScore(table, codes, 0, words)
    assert.ok(Math.abs(own - query.reduce((sum, component) => sum + Math.abs(component), 0)) < 1e-5)
    for (let slot = 1; slot <= 50; slot += 1) assert.ok(tableScore(table, codes, slot * words, words) <= own)
  })
})

describe('the Hamming shortlist', () => {
  it('keeps the nearest codes by Hamming distance, in slot order, taking ties at the cut in slot order', () => {
    const source = vectorSource(1024, 17)
    const words = bitWords(1024)
    const centre = source.gaussianUnit()
    // Every code three times over (slots i, i + 100, i + 200): distances come in threes, so keeping 40 splits a tie.
    const distinct = Array.from({ length: 100 }, (_, i) => source.near(centre, 0.5 + (i % 7) * 0.3))
    const vectors = [...distinct, ...distinct, ...distinct]
    const codes = codesOf(vectors, 1024)
    const query = new Uint32Array(words)
    writeWords(signBits(source.near(centre, 0.4)), query, 0, words)
    const distance = (slot: number): number => hamming(codes, slot * words, query, 0, words)
    const kept = Array.from(hammingShortlist(flatCodes(codes, 300, words), query, 40))
    assert.equal(kept.length, 40)
    assert.deepEqual(kept, [...kept].sort((a, b) => a - b))
    const cut = Math.max(...kept.map(distance))
    const dropped = Array.from({ length: 300 }, (_, slot) => slot).filter((slot) => !kept.includes(slot))
    assert.ok(dropped.every((slot) => distance(slot) >= cut), 'nothing dropped is nearer than the farthest kept')
    const lastAtCut = Math.max(...kept.filter((slot) => distance(slot) === cut))
    assert.ok(dropped.some((slot) => distance(slot) === cut), 'the corpus has a tie at the cut to break')
    assert.ok(dropped.filter((slot) => distance(slot) === cut).every((slot) => slot > lastAtCut), 'ties at the cut go in slot order')
  })

  it('keeps every slot when there are no more codes than it keeps', () => {
    const codes = codesOf(Array.from({ length: 5 }, () => vectorSource(64).gaussianUnit()), 64)
    assert.deepEqual(Array.from(hammingShortlist(flatCodes(codes, 5, 2), new Uint32Array(2), 5)), [0, 1, 2, 3, 4])
    assert.deepEqual(Array.from(hammingShortlist(flatCodes(codes, 5, 2), new Uint32Array(2), 9)), [0, 1, 2, 3, 4])
  })
})

describe('the coarse ranking', () => {
  it('ranks the kept slots best first by asymmetric score, ties the lower slot first', () => {
    const query = Float32Array.from([0.5, -0.5, 0.5, -0.5, 0, 0, 0, 0])
    // Slots 1 and 3 hold the same code; slot 2 agrees with the query everywhere, slot 0 nowhere.
    const vectors = [[-1, 1, -1, 1], [1, 1, -1, 1], [1, -1, 1, -1], [1, 1, -1, 1]].map((signs) => Float32Array.from([...signs, 0, 0, 0, 0]))
    const codes = codesOf(vectors, 8)
    const ranked = rankByTable(signTable(query, 1), flatCodes(codes, 4, 1), Int32Array.from([0, 1, 2, 3]), 3)
    assert.deepEqual(Array.from(ranked), [2, 1, 3])
  })

  it('prefers a code that agrees with the query\'s large components over one that merely differs in fewer signs', () => {
    // Component 0 carries most of the query; the others are small. `fewer` differs only there (Hamming 1), `larger`
    // agrees there and differs in five small components (Hamming 5): its true cosine is far higher.
    const query = Float32Array.from({ length: 32 }, (_, i) => (i === 0 ? 0.9 : 0.08))
    const fewer = Float32Array.from(query, (component, i) => (i === 0 ? -component : component))
    const larger = Float32Array.from(query, (component, i) => (i >= 1 && i <= 5 ? -component : component))
    const codes = codesOf([fewer, larger], 32)
    const queryCode = new Uint32Array(1)
    writeWords(signBits(query), queryCode, 0, 1)
    assert.deepEqual(Array.from(hammingShortlist(flatCodes(codes, 2, 1), queryCode, 1)), [0], 'the Hamming scan alone keeps the wrong one')
    assert.deepEqual(Array.from(coarseRank(flatCodes(codes, 2, 1), query, { shortlist: 2, keep: 1 })), [1])
  })

  it('widens a shortlist narrower than what it keeps', () => {
    const source = vectorSource(64, 3)
    const codes = codesOf(Array.from({ length: 30 }, () => source.gaussianUnit()), 64)
    assert.equal(coarseRank(flatCodes(codes, 30, 2), source.gaussianUnit(), { shortlist: 1, keep: 10 }).length, 10)
  })

  it('ranks codes held in blocks as it ranks the same codes held flat, whatever the block size', () => {
    const source = vectorSource(64, 11)
    const vectors = Array.from({ length: 100 }, () => source.gaussianUnit())
    const codes = codesOf(vectors, 64)
    const query = source.near(vectors[17] ?? source.gaussianUnit(), 0.5)
    const flat = Array.from(coarseRank(flatCodes(codes, 100, 2), query, { shortlist: 30, keep: 10 }))
    for (const blockSlots of [1, 7, 64, 100]) {
      const blocks = Array.from({ length: Math.ceil(100 / blockSlots) }, (_, b) => codes.slice(b * blockSlots * 2, (b + 1) * blockSlots * 2))
      assert.deepEqual(Array.from(coarseRank({ blocks, blockSlots, words: 2, size: 100 }, query, { shortlist: 30, keep: 10 })), flat, `blocks of ${blockSlots}`)
    }
  })

  it('passes over free slots, slots of a missing block and slots past a short block', () => {
    const source = vectorSource(64, 13)
    const vectors = Array.from({ length: 12 }, () => source.gaussianUnit())
    const codes = codesOf(vectors, 64)
    const present = Int32Array.from({ length: 12 }, (_, slot) => (slot === 2 || slot === 9 ? 0 : slot + 1))
    // Blocks of 4: the second is missing, the third holds only two codes.
    const held: SlotCodes = { blocks: [codes.slice(0, 8), undefined, codes.slice(16, 20)], blockSlots: 4, words: 2, size: 12, present }
    const query = vectors[2] ?? source.gaussianUnit()
    const queryCode = new Uint32Array(2)
    writeWords(signBits(query), queryCode, 0, 2)
    assert.deepEqual(Array.from(hammingShortlist(held, queryCode, 12)), [0, 1, 3, 8])
    assert.deepEqual(Array.from(coarseRank(held, query, { shortlist: 12, keep: 12 })).sort((a, b) => a - b), [0, 1, 3, 8])
  })
})
