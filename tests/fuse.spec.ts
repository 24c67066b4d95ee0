// Proves reciprocal-rank fusion arithmetic and tie-breaking, and that the pool reserves places for exact-identifier hits.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assemblePool, fuseRankings, RRF_K, type Fused } from '../src/retrieval/fuse.ts'

/** A fused list 1..n in that order, built through fuseRankings so it is a real one. */
function fusedInOrder(n: number): Fused[] {
  return fuseRankings([{ channel: 'bm25', ids: Array.from({ length: n }, (_, i) => i + 1) }])
}

describe('fuseRankings', () => {
  it('uses k = 60 by default', () => {
    assert.equal(RRF_K, 60)
  })

  it('scores an id ranked first in two channels 2/61 and records both channels', () => {
    const [top] = fuseRankings([
      { channel: 'bm25', ids: [1, 2] },
      { channel: 'identifier', ids: [1, 3] },
    ])
    assert.deepEqual(top, { id: 1, score: 1 / 61 + 1 / 61, channels: ['bm25', 'identifier'], bestRank: 1 })
    assert.ok(Math.abs((top?.score ?? 0) - 2 / 61) < 1e-15)
  })

  it('scores each rank r as 1/(60 + r)', () => {
    const fused = fuseRankings([{ channel: 'bm25', ids: [10, 20, 30] }])
    assert.deepEqual(
      fused.map((entry) => [entry.id, entry.score, entry.bestRank]),
      [
        [10, 1 / 61, 1],
        [20, 1 / 62, 2],
        [30, 1 / 63, 3],
      ],
    )
  })

  it('sums contributions across channels and records the best single rank', () => {
    const fused = fuseRankings([
      { channel: 'bm25', ids: [5, 6, 7] },
      { channel: 'identifier', ids: [7] },
    ])
    const seven = fused.find((entry) => entry.id === 7)
    assert.deepEqual(seven, { id: 7, score: 1 / 63 + 1 / 61, channels: ['bm25', 'identifier'], bestRank: 1 })
    assert.deepEqual(
      fused.map((entry) => entry.id),
      [7, 5, 6],
    )
  })

  it('breaks a score tie by the larger (newer) id when best ranks are equal', () => {
    const fused = fuseRankings([
      { channel: 'bm25', ids: [4] },
      { channel: 'identifier', ids: [9] },
    ])
    assert.deepEqual(
      fused.map((entry) => entry.id),
      [9, 4],
    )
    assert.equal(fused[0]?.score, fused[1]?.score)
  })

  it('breaks a score tie by the better single rank before the id', () => {
    // With k = 0: id 10 at rank 2 twice scores 1/2 + 1/2 = 1, the same as ids 1 and 2 at rank 1 once.
    const fused = fuseRankings(
      [
        { channel: 'a', ids: [1, 10] },
        { channel: 'b', ids: [2, 10] },
      ],
      0,
    )
    assert.deepEqual(
      fused.map((entry) => [entry.id, entry.score, entry.bestRank]),
      [
        [2, 1, 1],
        [1, 1, 1],
        [10, 1, 2],
      ],
    )
  })

  it('records a channel once even when it lists an id twice', () => {
    const fused = fuseRankings([{ channel: 'bm25', ids: [3, 3] }])
    assert.deepEqual(fused[0]?.channels, ['bm25'])
  })

  it('returns nothing for no rankings or empty rankings', () => {
    assert.deepEqual(fuseRankings([]), [])
    assert.deepEqual(fuseRankings([{ channel: 'bm25', ids: [] }]), [])
  })

  it('is repeatable: the same rankings give the same order', () => {
    const rankings = [
      { channel: 'bm25', ids: [8, 3, 5, 1] },
      { channel: 'identifier', ids: [1, 9, 3] },
    ]
    assert.deepEqual(fuseRankings(rankings), fuseRankings(rankings))
    assert.deepEqual(
      fuseRankings(rankings).map((entry) => entry.id),
      [1, 3, 8, 9, 5],
    )
  })
})

describe('assemblePool', () => {
  it('keeps identifier ids that fused order would drop, using up to the reserved places', () => {
    const pool = assemblePool(fusedInOrder(10), [9, 10], 5, 2)
    assert.deepEqual(
      pool.map((entry) => entry.id),
      [1, 2, 3, 9, 10],
    )
  })

  it('keeps fused order inside the pool', () => {
    const pool = assemblePool(fusedInOrder(10), [10, 6], 4, 2)
    assert.deepEqual(
      pool.map((entry) => entry.id),
      [1, 2, 6, 10],
    )
  })

  it('reserves only the first `reserved` identifier ids', () => {
    const pool = assemblePool(fusedInOrder(10), [8, 9, 10], 4, 1)
    assert.deepEqual(
      pool.map((entry) => entry.id),
      [1, 2, 3, 8],
    )
  })

  it('spends a reserved place on an identifier id that would have made the pool anyway', () => {
    const pool = assemblePool(fusedInOrder(10), [2, 9], 4, 2)
    assert.deepEqual(
      pool.map((entry) => entry.id),
      [1, 2, 3, 9],
    )
  })

  it('fills the rest of the pool in fused order when there are fewer identifier ids than reserved places', () => {
    const pool = assemblePool(fusedInOrder(10), [7], 4, 3)
    assert.deepEqual(
      pool.map((entry) => entry.id),
      [1, 2, 3, 7],
    )
  })

  it('never exceeds poolSize, even when more places are reserved than the pool holds', () => {
    const pool = assemblePool(fusedInOrder(10), [8, 9, 10], 2, 5)
    assert.deepEqual(
      pool.map((entry) => entry.id),
      [8, 9],
    )
  })

  it('is the plain fused prefix when nothing is reserved', () => {
    const pool = assemblePool(fusedInOrder(10), [9, 10], 3, 0)
    assert.deepEqual(
      pool.map((entry) => entry.id),
      [1, 2, 3],
    )
  })

  it('returns every candidate when the pool is larger than the fused list', () => {
    const pool = assemblePool(fusedInOrder(3), [3], 10, 2)
    assert.deepEqual(
      pool.map((entry) => entry.id),
      [1, 2, 3],
    )
  })

  it('returns the same Fused objects it was given', () => {
    const fused = fusedInOrder(3)
    const pool = assemblePool(fused, [], 2, 0)
    assert.equal(pool[0], fused[0])
    assert.equal(pool[1], fused[1])
  })
})
