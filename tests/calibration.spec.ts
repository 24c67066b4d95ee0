/**
 * Rerank calibration's pure core (src/semantic/calibration.ts) on crafted score sets: the pair-count floor (19 is too
 * few), precision and recall exactly at 95% and 80%, just below either, the highest recall winning over a higher
 * threshold, ties of recall going to the higher threshold, tied scores counted together, all-equal scores, order
 * independence; and rerankDecision's filter-or-order answer.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  calibrate,
  MIN_IRRELEVANT,
  MIN_PRECISION,
  MIN_RECALL,
  MIN_RELEVANT,
  rerankDecision,
  type ScoredPair,
} from '../src/semantic/calibration.ts'

/** `count` pairs of one label at one score. */
const at = (score: number, relevant: boolean, count: number): ScoredPair[] =>
  Array.from({ length: count }, () => ({ score, relevant }))

describe('calibrate', () => {
  it("keeps the seed's numbers: 20 relevant, 20 irrelevant, 95% precision, 80% recall", () => {
    assert.deepEqual([MIN_RELEVANT, MIN_IRRELEVANT, MIN_PRECISION, MIN_RECALL], [20, 20, 0.95, 0.8])
  })

  it('refuses 19 relevant or 19 irrelevant pairs as too few, even when they separate perfectly', () => {
    for (const [relevant, irrelevant] of [
      [19, 20],
      [20, 19],
      [0, 0],
    ] as const) {
      const result = calibrate([...at(0.9, true, relevant), ...at(0.1, false, irrelevant)])
      assert.ok(!result.ok, `${relevant}/${irrelevant}`)
      assert.equal(result.reason, 'too_few_pairs')
      assert.deepEqual([result.relevant, result.irrelevant], [relevant, irrelevant])
      assert.match(result.message, new RegExp(`got ${relevant} relevant and ${irrelevant} irrelevant`, 'u'))
      assert.equal(result.best, undefined)
    }
  })

  it('calibrates 20 and 20 perfectly separated pairs at the lowest relevant score', () => {
    const result = calibrate([...at(0.9, true, 10), ...at(0.7, true, 10), ...at(0.2, false, 20)])
    assert.deepEqual(result, { ok: true, threshold: 0.7, precision: 1, recall: 1, relevant: 20, irrelevant: 20 })
  })

  it('accepts precision of exactly 95% with recall of exactly 80%', () => {
    // At 0.9: 76 relevant and 4 irrelevant kept (76/80 = 95%), of 95 relevant (76/95 = 80%).
    const result = calibrate([...at(0.9, true, 76), ...at(0.9, false, 4), ...at(0.3, true, 19), ...at(0.3, false, 16)])
    assert.deepEqual(result, { ok: true, threshold: 0.9, precision: 0.95, recall: 0.8, relevant: 95, irrelevant: 20 })
  })

  it('accepts exactly 95% precision at full recall, and exactly 80% recall at full precision', () => {
    assert.deepEqual(calibrate([...at(0.8, true, 38), ...at(0.8, false, 2), ...at(0.1, false, 18)]), {
      ok: true,
      threshold: 0.8,
      precision: 0.95,
      recall: 1,
      relevant: 38,
      irrelevant: 20,
    })
    assert.deepEqual(calibrate([...at(0.8, true, 16), ...at(0.1, true, 4), ...at(0.1, false, 20)]), {
      ok: true,
      threshold: 0.8,
      precision: 1,
      recall: 0.8,
      relevant: 20,
      irrelevant: 20,
    })
  })

  it('refuses recall just below 80% and names the precise threshold that came closest', () => {
    // At 0.9: 76 of 96 relevant (79.2%), precision 95%.
    const result = calibrate([...at(0.9, true, 76), ...at(0.9, false, 4), ...at(0.3, true, 20), ...at(0.3, false, 16)])
    assert.ok(!result.ok)
    assert.equal(result.reason, 'no_threshold')
    assert.deepEqual(result.best, { threshold: 0.9, precision: 0.95, recall: 76 / 96 })
    assert.match(result.message, /keeps only 79\.2% of the relevant pairs; 80% recall is needed/u)
  })

  it('refuses precision just below 95% and names the most precise threshold', () => {
    // At 0.9: 75 relevant and 4 irrelevant (94.9%); at 0.3 everything (precision lower still).
    const result = calibrate([...at(0.9, true, 75), ...at(0.9, false, 4), ...at(0.3, true, 20), ...at(0.3, false, 16)])
    assert.ok(!result.ok)
    assert.equal(result.reason, 'no_threshold')
    assert.deepEqual(result.best, { threshold: 0.9, precision: 75 / 79, recall: 75 / 95 })
    assert.match(result.message, /no threshold reaches 95% precision \(the best reaches 94\.9%\)/u)
  })

  it('takes the threshold with the highest recall among the precise ones, past a threshold that is not precise', () => {
    // 0.9: P 1, R 0.8; 0.6: P 16/17 (not precise); 0.5: P 20/21, R 1.
    const result = calibrate([...at(0.9, true, 16), ...at(0.6, false, 1), ...at(0.5, true, 4), ...at(0.1, false, 19)])
    assert.deepEqual(result, { ok: true, threshold: 0.5, precision: 20 / 21, recall: 1, relevant: 20, irrelevant: 20 })
  })

  it('breaks a tie of recall by taking the higher threshold', () => {
    // 0.8 and 0.7 both keep every relevant pair and both are precise (1 and 20/21).
    const result = calibrate([...at(0.8, true, 20), ...at(0.7, false, 1), ...at(0.1, false, 19)])
    assert.ok(result.ok)
    assert.equal(result.threshold, 0.8)
  })

  it('counts tied scores together: a threshold keeps every pair with its score', () => {
    // One irrelevant pair ties the relevant ones at 0.8: 20/21 is still precise; three would not be (20/23).
    assert.deepEqual(calibrate([...at(0.8, true, 20), ...at(0.8, false, 1), ...at(0.1, false, 19)]), {
      ok: true,
      threshold: 0.8,
      precision: 20 / 21,
      recall: 1,
      relevant: 20,
      irrelevant: 20,
    })
    const refused = calibrate([...at(0.8, true, 20), ...at(0.8, false, 3), ...at(0.1, false, 17)])
    assert.ok(!refused.ok && refused.reason === 'no_threshold')
  })

  it('refuses all-equal scores: the only threshold keeps everything at the share of relevant pairs', () => {
    const result = calibrate([...at(0.5, true, 20), ...at(0.5, false, 20)])
    assert.ok(!result.ok)
    assert.equal(result.reason, 'no_threshold')
    assert.deepEqual(result.best, { threshold: 0.5, precision: 0.5, recall: 1 })
  })

  it('works on logit and negative scores and answers the same whatever the order of the pairs', () => {
    const pairs = [
      ...at(3.5, true, 12),
      ...at(1.25, true, 8),
      ...at(-0.5, false, 15),
      ...at(-4, false, 5),
      ...at(1.25, false, 1),
    ]
    const expected = { ok: true, threshold: 1.25, precision: 20 / 21, recall: 1, relevant: 20, irrelevant: 21 }
    assert.deepEqual(calibrate(pairs), expected)
    assert.deepEqual(calibrate([...pairs].reverse()), expected)
    assert.deepEqual(
      calibrate(pairs.filter((_, i) => i % 2 === 0).concat(pairs.filter((_, i) => i % 2 === 1))),
      expected,
    )
  })
})

describe('rerankDecision', () => {
  it("filters at the calibrated threshold when a calibration on the user's own pairs is in force", () => {
    assert.deepEqual(rerankDecision({ threshold: 0.42, pairSource: 'supplied' }), { filter: true, threshold: 0.42 })
  })

  it("only orders, reporting rerank_uncalibrated, when the calibration in force came from the library's proxy pairs", () => {
    assert.deepEqual(rerankDecision({ threshold: 0.42, pairSource: 'library' }), {
      filter: false,
      reason: 'rerank_uncalibrated',
    })
  })

  it('only orders, reporting rerank_uncalibrated, without one', () => {
    assert.deepEqual(rerankDecision(undefined), { filter: false, reason: 'rerank_uncalibrated' })
  })
})
