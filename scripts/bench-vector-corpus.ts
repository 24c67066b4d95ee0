/**
 * Synthetic clustered vectors for the vector bench and the vector-index tests: deterministic for a given PRNG, unit
 * length, grouped the way fact embeddings are (topics of very unequal size, facts of one subject close inside a
 * topic), so that a scan has near neighbours to tell apart rather than uniform noise. They measure the scan, not
 * retrieval quality.
 */
import { normalize } from '../src/semantic/quantize.ts'

/** A deterministic stream of clustered unit vectors. */
export class ClusteredVectors {
  readonly dim: number
  private readonly random: () => number
  private readonly topics: Float32Array[]
  /** Cumulative Zipf weights over the topics: a few large topics, many small ones. */
  private readonly weights: number[]
  private spare: number | undefined

  /**
   * @param dim - the dimension.
   * @param topics - how many topic centres.
   * @param random - a PRNG in [0, 1) (scripts/bench-corpus.ts `mulberry32`).
   */
  constructor(dim: number, topics: number, random: () => number) {
    this.dim = dim
    this.random = random
    this.topics = Array.from({ length: topics }, () => this.gaussianUnit())
    let total = 0
    this.weights = this.topics.map((_, rank) => (total += 1 / (rank + 1)))
  }

  /**
   * A batch of vectors: each picks a topic, a subject centre near it, and `perSubject` facts near that centre.
   * @param perSubject - facts per subject.
   * @returns `perSubject` unit vectors.
   */
  subject(perSubject: number): Float32Array[] {
    const topic = this.topics[this.pickTopic()] ?? this.gaussianUnit()
    const centre = this.near(topic, 0.9)
    return Array.from({ length: perSubject }, () => this.near(centre, 0.6))
  }

  /**
   * A unit vector near another: `normalize(vector + spread × g)` for a random unit g, so the cosine to `vector` is
   * about 1 / √(1 + spread²).
   * @param vector - a unit vector.
   * @param spread - how far.
   * @returns the new vector.
   */
  near(vector: Float32Array, spread: number): Float32Array {
    const noise = this.gaussianUnit()
    const out = new Float32Array(this.dim)
    for (let i = 0; i < this.dim; i += 1) out[i] = (vector[i] ?? 0) + spread * (noise[i] ?? 0)
    return normalize(out) ?? noise
  }

  /** @returns a uniformly random unit vector. */
  gaussianUnit(): Float32Array {
    const out = new Float32Array(this.dim)
    for (let i = 0; i < this.dim; i += 1) out[i] = this.gaussian()
    return normalize(out) ?? out
  }

  private pickTopic(): number {
    const target = this.random() * (this.weights.at(-1) ?? 1)
    const index = this.weights.findIndex((weight) => weight >= target)
    return Math.max(index, 0)
  }

  private gaussian(): number {
    if (this.spare !== undefined) {
      const value = this.spare
      this.spare = undefined
      return value
    }
    const u = Math.max(this.random(), Number.MIN_VALUE)
    const v = this.random()
    const radius = Math.sqrt(-2 * Math.log(u))
    this.spare = radius * Math.sin(2 * Math.PI * v)
    return radius * Math.cos(2 * Math.PI * v)
  }
}
