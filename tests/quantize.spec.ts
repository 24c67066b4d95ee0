// The stored form of a vector: normalization, int8 components with one scale, sign bits, and the Hamming helpers.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { bitBytes, cosineQuantized, normalize, quantize } from '../src/semantic/quantize.ts'
import { mulberry32 } from '../scripts/bench-corpus.ts'
import { ClusteredVectors } from '../scripts/bench-vector-corpus.ts'

function vectorSource(dim: number, seed = 7): ClusteredVectors {
  return new ClusteredVectors(dim, 4, mulberry32(seed))
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0
  for (let i = 0; i < a.length; i += 1) sum += (a[i] ?? 0) * (b[i] ?? 0)
  return sum
}

describe('normalize', () => {
  it('scales a vector to unit length and keeps its direction', () => {
    const unit = normalize(Float32Array.from([3, 0, -4]))
    assert.deepEqual(Array.from(unit ?? []), [Math.fround(0.6), 0, Math.fround(-0.8)])
  })

  it('has no unit vector for a zero, empty or non-finite vector', () => {
    assert.equal(normalize(new Float32Array(8)), undefined)
    assert.equal(normalize(new Float32Array(0)), undefined)
    assert.equal(normalize(Float32Array.from([1, Number.NaN])), undefined)
    assert.equal(normalize(Float32Array.from([1, Number.POSITIVE_INFINITY])), undefined)
  })
})

describe('quantize', () => {
  it('keeps the cosine of random 1024-d vectors within 0.01 of the exact cosine', () => {
    const source = vectorSource(1024, 3)
    let worst = 0
    for (let i = 0; i < 200; i += 1) {
      const stored = source.gaussianUnit()
      // Near pairs and unrelated pairs, so both ends of the cosine range are checked.
      const query = i % 2 === 0 ? source.near(stored, 0.5) : source.gaussianUnit()
      const { scale, quantized } = quantize(stored)
      worst = Math.max(worst, Math.abs(cosineQuantized(query, quantized, scale) - dot(query, stored)))
    }
    assert.ok(worst < 0.01, `worst error ${worst}`)
  })

  it('dequantizes to a unit vector: a stored vector scores about 1 against itself', () => {
    const unit = vectorSource(1024, 5).gaussianUnit()
    const { scale, quantized } = quantize(unit)
    assert.ok(Math.abs(cosineQuantized(unit, quantized, scale) - 1) < 1e-3)
    assert.equal(quantized.length, 1024)
    assert.ok(quantized.every((code) => code >= -127 && code <= 127))
    assert.ok(
      quantized.some((code) => Math.abs(code) === 127),
      'the largest component uses the full range',
    )
  })

  it('stores one sign bit per component, least significant bit first', () => {
    const vector = Float32Array.from([0.5, -0.5, 0, 0.1, -0.2, 0.3, 0.4, -0.1, 0.2, -0.9])
    const bits = quantize(normalize(vector) ?? vector).bits
    assert.equal(bits.length, bitBytes(10))
    assert.deepEqual(Array.from(bits), [0b01101001, 0b01])
    const decoded = Array.from({ length: 10 }, (_, i) => (((bits[i >> 3] ?? 0) >> (i & 7)) & 1) === 1)
    assert.deepEqual(
      decoded,
      Array.from(vector, (component) => component > 0),
    )
  })

  it('scores 0 when the query has another dimension', () => {
    const { scale, quantized } = quantize(vectorSource(64).gaussianUnit())
    assert.equal(cosineQuantized(vectorSource(32).gaussianUnit(), quantized, scale), 0)
  })
})
