// The on-disk form of a stored vector: seven-bit magnitudes that, with the sign bits, give the int8 vector back
// exactly, the agreement check between the two, and the block's fact ids.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mulberry32 } from '../scripts/bench-corpus.ts'
import { ClusteredVectors } from '../scripts/bench-vector-corpus.ts'
import { quantize } from '../src/semantic/quantize.ts'
import {
  codeBytes,
  decodeIds,
  magnitudeBytes,
  packMagnitudes,
  signsAgree,
  unpackVector,
  writeId,
} from '../src/store/vector-codec.ts'

describe('vector codec', () => {
  it('gives back every int8 vector of several dimensions exactly from its magnitudes and sign bits', () => {
    for (const dim of [1, 7, 8, 9, 63, 64, 100, 384, 1024, 1536]) {
      const source = new ClusteredVectors(dim, 4, mulberry32(dim))
      for (let i = 0; i < 20; i += 1) {
        const { quantized, bits } = quantize(source.gaussianUnit())
        const magnitudes = packMagnitudes(quantized)
        assert.equal(magnitudes.length, magnitudeBytes(dim))
        assert.deepEqual(Array.from(unpackVector(magnitudes, bits, dim)), Array.from(quantized), `dim ${dim}`)
      }
    }
  })

  it('packs the extremes: every magnitude 0 to 127 in every position of a group, each sign', () => {
    const quantized = Int8Array.from({ length: 8 * 128 }, (_, i) => (i % 2 === 0 ? 1 : -1) * (Math.floor(i / 8) % 128))
    const bits = new Uint8Array(codeBytes(quantized.length))
    quantized.forEach((component, i) => {
      if (component > 0) bits[i >> 3] = (bits[i >> 3] ?? 0) | (1 << (i & 7))
    })
    assert.equal(packMagnitudes(quantized).length, 7 * 128, '1,024 components in 896 bytes')
    assert.deepEqual(Array.from(unpackVector(packMagnitudes(quantized), bits, quantized.length)), Array.from(quantized))
  })

  it('keeps a zero component zero whatever its sign bit says', () => {
    const quantized = Int8Array.from([0, 5, 0, -5])
    for (const bits of [Uint8Array.from([0b0010]), Uint8Array.from([0b0111])]) {
      assert.ok(signsAgree(quantized, bits))
      assert.deepEqual(Array.from(unpackVector(packMagnitudes(quantized), bits, 4)), [0, 5, 0, -5])
    }
  })

  it('finds sign bits that disagree with the components, or are of another length', () => {
    const { quantized, bits } = quantize(new ClusteredVectors(64, 2, mulberry32(5)).gaussianUnit())
    assert.ok(signsAgree(quantized, bits))
    const at = quantized.findIndex((component) => component !== 0)
    const flipped = Uint8Array.from(bits)
    flipped[at >> 3] = (flipped[at >> 3] ?? 0) ^ (1 << (at & 7))
    assert.equal(signsAgree(quantized, flipped), false)
    assert.equal(signsAgree(quantized, bits.subarray(1)), false)
  })

  it("reads and writes a block's fact ids as 32-bit little-endian integers", () => {
    const bytes = new Uint8Array(12)
    writeId(bytes, 0, 1)
    writeId(bytes, 2, 0x01020304)
    assert.deepEqual(Array.from(bytes), [1, 0, 0, 0, 0, 0, 0, 0, 4, 3, 2, 1])
    assert.deepEqual(Array.from(decodeIds(bytes)), [1, 0, 0x01020304])
    assert.deepEqual(Array.from(decodeIds(bytes.subarray(4))), [0, 0x01020304], 'from an offset into a larger buffer')
  })
})
