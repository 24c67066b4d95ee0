/**
 * The labeled pair set and the gate's operating point on it, through the real pure core and a real store's document
 * frequencies (scripts/bench-review.ts, which npm run bench prints): the set has the kinds it promises, and a change
 * that lets the gate merge more wrongly than 1 pair in 20 fails here before it reaches a library.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { PAIR_FIXTURE, readPairs, reviewQuality } from '../scripts/bench-review.ts'

describe('the near-duplicate pair set', () => {
  it('holds at least 300 labeled pairs of every kind the issue names, Chinese and English', () => {
    const pairs = readPairs(PAIR_FIXTURE)
    assert.ok(pairs.length >= 300, `${pairs.length} pairs`)
    const kinds = new Set(pairs.map((pair) => pair.kind))
    for (const kind of [
      'identifier-near-miss',
      'paraphrase-en',
      'paraphrase-zh',
      'paraphrase-zh-en',
      'reworded-personal',
      'unrelated-same-subject',
      'dated-pipeline',
    ]) {
      assert.ok(kinds.has(kind), `no ${kind} pairs`)
    }
    assert.ok(
      pairs.every((pair) => pair.kind !== 'dated-pipeline' || !pair.same),
      'a dated pipeline line is two runs for the gate',
    )
    assert.ok(
      pairs.some((pair) => /\p{Script=Han}/u.test(pair.a.value)) &&
        pairs.some((pair) => /^[\x20-\x7e]+$/u.test(pair.a.value)),
    )
  })

  it('the gate merges with a precision of at least 0.95 on it, and merges some of every same-language rewording kind', () => {
    const quality = reviewQuality()
    assert.ok(quality.overall.precision >= 0.95, JSON.stringify(quality.overall))
    for (const kind of ['identifier-restated', 'paraphrase-en', 'paraphrase-zh', 'reworded-personal']) {
      const row = quality.byKind.find((entry) => entry.kind === kind)
      assert.ok(row !== undefined && row.recall >= 0.4, `${kind}: ${JSON.stringify(row)}`)
    }
    const nearMisses = quality.byKind.find((entry) => entry.kind === 'identifier-near-miss')
    assert.equal(nearMisses?.falsePositives, 0, 'an identifier near-miss is never merged')
  })
})
