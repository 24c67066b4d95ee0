/**
 * The vector scan's WebAssembly kernel (src/semantic/vector-scan.wat) through its shell, the code arena: the module
 * committed is the one wabt assembles from the .wat; the Hamming shortlist, the asymmetric ranking and the rescoring's
 * dot products give exactly what plain JavaScript gives (tests/helpers/coarse-oracle.ts, and `cosineQuantized` for the
 * dot products, to the last bit) at code lengths that take every path of the kernel (256-bit runs, 64-bit runs, an odd
 * last word, bytes padded to a word); free slots never come back; and codes survive the arena growing.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { assemble, KERNEL_MODULE, KERNEL_SOURCE, kernelModuleText } from '../scripts/build-wasm.ts'
import { mulberry32 } from '../scripts/bench-corpus.ts'
import { ClusteredVectors } from '../scripts/bench-vector-corpus.ts'
import { ScanKernel, type CodeArena } from '../src/semantic/code-arena.ts'
import { cosineQuantized, quantize, signBits } from '../src/semantic/quantize.ts'
import { packMagnitudes } from '../src/store/vector-codec.ts'
import { coarseRank, hammingDistance, hammingNearest, type OracleCodes } from './helpers/coarse-oracle.ts'

const kernel = new ScanKernel()

function vectorSource(dim: number, seed = 13): ClusteredVectors {
  return new ClusteredVectors(dim, 4, mulberry32(seed))
}

/** An arena holding the sign bits of some vectors in slots 0…, the slots listed in `free` left without a vector. */
function arenaOf(
  vectors: readonly Float32Array[],
  dim: number,
  free: readonly number[] = [],
): { arena: CodeArena; codes: OracleCodes } {
  const arena = kernel.arena(dim)
  arena.reserve(vectors.length)
  const codes = vectors.map((vector, slot) => (free.includes(slot) ? undefined : signBits(vector)))
  codes.forEach((code, slot) => {
    arena.write(slot, code ?? new Uint8Array(Math.ceil(dim / 8)), Int32Array.of(code === undefined ? 0 : slot + 1), 1)
  })
  return { arena, codes }
}

describe('the vector scan kernel', () => {
  it('is the module wabt assembles from vector-scan.wat (run `npm run build:wasm` after editing the .wat)', async () => {
    const bytes = await assemble(readFileSync(KERNEL_SOURCE, 'utf8'), 'vector-scan.wat')
    assert.equal(readFileSync(KERNEL_MODULE, 'utf8'), kernelModuleText(bytes))
  })

  it('is made where WebAssembly cannot run, and says so when asked for an arena', () => {
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'WebAssembly')
    let without: ScanKernel
    try {
      Reflect.deleteProperty(globalThis, 'WebAssembly')
      without = new ScanKernel()
    } finally {
      if (saved !== undefined) Object.defineProperty(globalThis, 'WebAssembly', saved)
    }
    assert.throws(
      () => without.arena(64),
      /the vector scan's WebAssembly kernel cannot run here: this JavaScript runtime has no WebAssembly/u,
    )
    assert.equal(kernel.arena(64).dim, 64)
  })

  it('refuses a dimension the distances cannot measure, a write past its room and a query of another dimension', () => {
    assert.throws(() => kernel.arena(0), RangeError)
    assert.throws(() => kernel.arena(65_505), RangeError)
    const arena = kernel.arena(64)
    arena.reserve(2)
    assert.throws(() => {
      arena.write(1, new Uint8Array(16), Int32Array.of(1, 2), 2)
    }, RangeError)
    arena.write(0, new Uint8Array(8), Int32Array.of(1), 1)
    assert.throws(() => arena.nearest(new Float32Array(65), 1, 1, 1), RangeError)
    assert.throws(() => arena.dots(new Float32Array(32), [{ slot: 0, magnitudes: new Uint8Array(56) }]), RangeError)
  })
})

describe('the Hamming shortlist', () => {
  // 1024: 256-bit runs; 384: one run, then two 64-bit ones; 352: one run, one 64-bit run and an odd word; 1056: four
  // runs and an odd word; 264: one run and an odd word; 160: two 64-bit runs and an odd word; 96: one and an odd word;
  // 1000: 125 bytes padded to 128; 12: two bytes padded to a word.
  for (const dim of [1024, 384, 352, 1056, 264, 160, 96, 1000, 12]) {
    it(`keeps the codes nearest by Hamming distance, ties at the cut in slot order, at ${dim} dimensions`, () => {
      const source = vectorSource(dim, dim)
      const centre = source.gaussianUnit()
      // Every code three times over (slots i, i + 100, i + 200), so distances come in threes and cuts split ties.
      const distinct = Array.from({ length: 100 }, (_, i) => source.near(centre, 0.5 + (i % 7) * 0.3))
      const free = [3, 50, 151, 299]
      const { arena, codes } = arenaOf([...distinct, ...distinct, ...distinct], dim, free)
      const query = source.near(centre, 0.4)
      const bits = signBits(query)
      for (const keep of [1, 40, 41, 150, 296, 400]) {
        const kept = Array.from(arena.nearest(query, 300, keep, keep)).sort((a, b) => a - b)
        assert.deepEqual(kept, hammingNearest(codes, bits, keep), `keep ${keep}`)
        assert.ok(
          kept.every((slot) => !free.includes(slot)),
          'no free slot comes back',
        )
      }
      const kept = Array.from(arena.nearest(query, 300, 40, 40))
      const cut = Math.max(...kept.map((slot) => hammingDistance(codes[slot] ?? bits, bits)))
      const droppedAtCut = codes.flatMap((code, slot) =>
        code !== undefined && !kept.includes(slot) && hammingDistance(code, bits) === cut ? [slot] : [],
      )
      assert.ok(droppedAtCut.length > 0, 'the corpus has a tie at the cut to break')
    })
  }

  it('keeps every slot holding a vector when there are no more than it keeps, and only slots below the size', () => {
    const source = vectorSource(64)
    const { arena } = arenaOf(
      Array.from({ length: 6 }, () => source.gaussianUnit()),
      64,
      [4],
    )
    const query = source.gaussianUnit()
    assert.deepEqual(
      Array.from(arena.nearest(query, 6, 9, 9)).sort((a, b) => a - b),
      [0, 1, 2, 3, 5],
    )
    assert.deepEqual(
      Array.from(arena.nearest(query, 3, 9, 9)).sort((a, b) => a - b),
      [0, 1, 2],
    )
    assert.deepEqual(Array.from(arena.nearest(query, 6, 0, 0)), [])
  })
})

describe('the coarse ranking', () => {
  for (const dim of [1024, 1000, 160, 12]) {
    it(`ranks as plain JavaScript does, best first, at ${dim} dimensions`, () => {
      const source = vectorSource(dim, 7)
      const vectors = Array.from({ length: 500 }, () => source.gaussianUnit())
      const { arena, codes } = arenaOf(vectors, dim, [10, 11, 250])
      for (let q = 0; q < 5; q += 1) {
        const query = source.near(vectors[q * 97] ?? source.gaussianUnit(), 0.5)
        assert.deepEqual(
          Array.from(arena.nearest(query, 500, 100, 20)),
          coarseRank(codes, query, 100, 20),
          `query ${q}`,
        )
      }
    })
  }

  it('ranks the kept slots best first by asymmetric score, ties the lower slot first', () => {
    const query = Float32Array.from([0.5, -0.5, 0.5, -0.5, 0, 0, 0, 0])
    // Slots 1 and 3 hold the same code; slot 2 agrees with the query everywhere, slot 0 nowhere.
    const vectors = [
      [-1, 1, -1, 1],
      [1, 1, -1, 1],
      [1, -1, 1, -1],
      [1, 1, -1, 1],
    ].map((signs) => Float32Array.from([...signs, 0, 0, 0, 0]))
    const { arena } = arenaOf(vectors, 8)
    assert.deepEqual(Array.from(arena.nearest(query, 4, 4, 3)), [2, 1, 3])
  })

  it("prefers a code that agrees with the query's large components over one that merely differs in fewer signs", () => {
    // Component 0 carries most of the query; the others are small. `fewer` differs only there (Hamming 1), `larger`
    // agrees there and differs in five small components (Hamming 5): its true cosine is far higher.
    const query = Float32Array.from({ length: 32 }, (_, i) => (i === 0 ? 0.9 : 0.08))
    const fewer = Float32Array.from(query, (component, i) => (i === 0 ? -component : component))
    const larger = Float32Array.from(query, (component, i) => (i >= 1 && i <= 5 ? -component : component))
    const { arena } = arenaOf([fewer, larger], 32)
    assert.deepEqual(Array.from(arena.nearest(query, 2, 1, 1)), [0], 'the Hamming scan alone keeps the wrong one')
    assert.deepEqual(Array.from(arena.nearest(query, 2, 2, 1)), [1])
  })

  it('sums a score a 32-bit word at a time, as the JavaScript scan did, so the same ties break the same way', () => {
    // Component 0 gives each code 1; components 32 and 40 give ±2^-53 each. Code A (slot 1) has both bits set, code B
    // (slot 0) only bit 40. A word at a time: A = 1 + (2^-53 + 2^-53) = 1 + 2^-52, B = 1 + (-2^-53 + 2^-53) = 1, so A
    // ranks first. A byte at a time, 1 + 2^-53 rounds back to 1 and both score 1: the tie would put B first.
    const tiny = 2 ** -53
    const query = Float32Array.from({ length: 64 }, (_, i) => (i === 0 ? 1 : i === 32 || i === 40 ? tiny : 0))
    const code = (bits: readonly number[]): Uint8Array => {
      const bytes = new Uint8Array(8)
      for (const bit of bits) bytes[bit >> 3] = (bytes[bit >> 3] ?? 0) | (1 << (bit & 7))
      return bytes
    }
    const codes = [code([0, 40]), code([0, 32, 40])]
    const arena = kernel.arena(64)
    arena.reserve(2)
    codes.forEach((bytes, slot) => {
      arena.write(slot, bytes, Int32Array.of(slot + 1), 1)
    })
    assert.deepEqual(coarseRank(codes, query, 2, 1), [1])
    assert.deepEqual(Array.from(arena.nearest(query, 2, 2, 1)), [1])
  })

  it("scores the query's own sign bits highest", () => {
    const source = vectorSource(256, 5)
    const query = source.gaussianUnit()
    const { arena } = arenaOf([...Array.from({ length: 50 }, () => source.near(query, 0.3)), query], 256)
    assert.equal(arena.nearest(query, 51, 51, 1)[0], 50)
  })

  it('keeps no more than the shortlist holds', () => {
    const source = vectorSource(64, 3)
    const { arena } = arenaOf(
      Array.from({ length: 30 }, () => source.gaussianUnit()),
      64,
    )
    assert.equal(arena.nearest(source.gaussianUnit(), 30, 5, 10).length, 5)
  })
})

describe("the rescoring's dot products", () => {
  for (const dim of [1, 7, 8, 9, 63, 64, 100, 384, 1000, 1024, 1536]) {
    it(`are the stored vector's cosine with the query to the last bit at ${dim} dimensions`, () => {
      const source = new ClusteredVectors(dim, 4, mulberry32(dim + 1))
      const stored = Array.from({ length: 8 }, () => quantize(source.gaussianUnit()))
      const arena = kernel.arena(dim)
      arena.reserve(stored.length)
      stored.forEach((vector, slot) => {
        arena.write(slot, vector.bits, Int32Array.of(slot + 1), 1)
      })
      const query = source.gaussianUnit()
      const dots = arena.dots(
        query,
        stored.map((vector, slot) => ({ slot, magnitudes: packMagnitudes(vector.quantized) })),
      )
      stored.forEach((vector, slot) => {
        assert.equal(
          (dots[slot] ?? Number.NaN) * vector.scale,
          cosineQuantized(query, vector.quantized, vector.scale),
          `slot ${slot}`,
        )
      })
    })
  }
})

describe("the rescoring's dot products at the packing's extremes", () => {
  it('reads every magnitude 0 to 127 in every position of a group, each sign', () => {
    const quantized = Int8Array.from({ length: 8 * 128 }, (_, i) => (i % 2 === 0 ? 1 : -1) * (Math.floor(i / 8) % 128))
    const bits = new Uint8Array(Math.ceil(quantized.length / 8))
    quantized.forEach((component, i) => {
      if (component > 0) bits[i >> 3] = (bits[i >> 3] ?? 0) | (1 << (i & 7))
    })
    const arena = kernel.arena(quantized.length)
    arena.reserve(1)
    arena.write(0, bits, Int32Array.of(1), 1)
    const query = vectorSource(quantized.length, 9).gaussianUnit()
    const [dot] = arena.dots(query, [{ slot: 0, magnitudes: packMagnitudes(quantized) }])
    assert.equal(dot, cosineQuantized(query, quantized, 1))
  })
})

describe('a growing arena', () => {
  // 1024: codes fill whole words; 1000: each code is padded, and the padding must read as zeros after every move.
  for (const dim of [1024, 1000])
    it(`keeps every code and fact id as it grows, and scans what it holds, at ${dim} dimensions`, () => {
      const source = vectorSource(dim, 21)
      const vectors = Array.from({ length: 700 }, () => source.gaussianUnit())
      const arena = kernel.arena(dim)
      const codes: (Uint8Array | undefined)[] = []
      // Slot by slot, as a sweep adds vectors: the room grows many times, moving the ids each time.
      vectors.forEach((vector, slot) => {
        arena.reserve(slot + 1)
        arena.write(slot, signBits(vector), Int32Array.of(1000 + slot), 1)
        codes.push(signBits(vector))
      })
      assert.ok(arena.capacity >= 700)
      arena.clear(5, 6)
      codes[5] = undefined
      vectors.forEach((vector, slot) => {
        assert.equal(arena.factId(slot), slot === 5 ? 0 : 1000 + slot)
        assert.deepEqual(arena.code(slot), signBits(vector))
      })
      assert.equal(arena.live(700), 699)
      assert.equal(arena.live(10), 9)
      assert.equal(arena.live(arena.capacity), 699, 'the room past the last slot holds no vector')
      const query = source.near(vectors[42] ?? source.gaussianUnit(), 0.5)
      assert.deepEqual(Array.from(arena.nearest(query, 700, 200, 20)), coarseRank(codes, query, 200, 20))
    })
})
