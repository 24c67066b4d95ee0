/**
 * Pure: the fake embedding model. A text's vector is the sum of one direction per lexicon concept it names (in
 * English or Chinese), a small sparse hashed component per word (so "port" and "ports" differ slightly, and words
 * outside the lexicon still count), and a tiny component of the whole text (so different texts never coincide),
 * scaled by a factor between 1 and 11 drawn from the text (so a client that forgets to normalize ranks wrongly).
 * Concept directions are exactly orthogonal when the dimension is a power of two above the concept count (rows of
 * a sign-scrambled Hadamard matrix), random signs otherwise. Deterministic: the same text and dimension always give
 * the same vector.
 */
import { FAKE_CONCEPTS, FAKE_STOPWORDS } from './fake-semantic-lexicon.ts'

/** How much one concept, one word's surface form, one unknown word and the whole text weigh. */
const WEIGHT = { concept: 1, surface: 0.1, unknown: 0.3, text: 0.05 } as const
/** How many coordinates a hashed component touches. */
const SPARSITY = 8
/** A run of Chinese characters, or a run of other letters and digits. */
const TOKEN = /\p{Script=Han}+|(?:(?!\p{Script=Han})[\p{L}\p{N}])+/gu
const HAN = /^\p{Script=Han}/u

/** English form → concept index. */
const EN_INDEX: ReadonlyMap<string, number> = new Map(
  FAKE_CONCEPTS.flatMap((concept, index) => concept.en.map((form) => [form, index] as const)),
)
/** Chinese word → concept index, longest words first. */
const ZH_WORDS: readonly (readonly [string, number])[] = FAKE_CONCEPTS.flatMap((concept, index) =>
  concept.zh.map((word) => [word, index] as const),
).sort((a, b) => b[0].length - a[0].length)
const ZH_STOPWORDS: readonly string[] = [...FAKE_STOPWORDS]
  .filter((word) => HAN.test(word))
  .sort((a, b) => b.length - a.length)

/**
 * The fake embedding of a text.
 * @param text - any text.
 * @param dim - the dimension (64 in tests, 1024 in benches; any positive integer).
 * @returns a deterministic, unnormalized vector of `dim` numbers.
 */
export function fakeEmbedding(text: string, dim: number): Float32Array {
  const vector = new Float64Array(dim)
  const { concepts, words } = readText(text)
  for (const concept of concepts) addConcept(vector, concept, dim)
  for (const word of words)
    addHashed(vector, `surface:${word.form}`, word.concept === undefined ? WEIGHT.unknown : WEIGHT.surface)
  addHashed(vector, `text:${text}`, WEIGHT.text)
  const scale = 1 + (hash(`scale:${text}`) % 1000) / 100
  const scaled = new Float32Array(dim)
  for (let index = 0; index < dim; index += 1) scaled[index] = (vector[index] ?? 0) * scale
  return scaled
}

/**
 * Cosine similarity of two vectors of one length.
 * @param a - a vector.
 * @param b - a vector of the same length.
 * @returns the cosine, 0 when either is all zeros.
 */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0
  let aa = 0
  let bb = 0
  for (let index = 0; index < a.length; index += 1) {
    const x = a[index] ?? 0
    const y = b[index] ?? 0
    dot += x * y
    aa += x * x
    bb += y * y
  }
  return aa === 0 || bb === 0 ? 0 : dot / Math.sqrt(aa * bb)
}

/** A word of a text and the concept it names, if any. */
interface Word {
  readonly form: string
  readonly concept: number | undefined
}

/** The concepts a text names (each once) and its words (stopwords dropped). */
function readText(text: string): { readonly concepts: ReadonlySet<number>; readonly words: readonly Word[] } {
  const words: Word[] = []
  for (const token of text.toLowerCase().match(TOKEN) ?? []) {
    if (HAN.test(token)) words.push(...hanWords(token))
    else if (!FAKE_STOPWORDS.has(token)) words.push({ form: token, concept: EN_INDEX.get(token) })
  }
  return { concepts: new Set(words.flatMap((word) => (word.concept === undefined ? [] : [word.concept]))), words }
}

/** A Chinese run, read left to right by longest lexicon word; other characters are unknown words of one character. */
function hanWords(run: string): Word[] {
  const words: Word[] = []
  let at = 0
  while (at < run.length) {
    const known = ZH_WORDS.find(([word]) => run.startsWith(word, at))
    if (known !== undefined) {
      words.push({ form: known[0], concept: known[1] })
      at += known[0].length
      continue
    }
    const stop = ZH_STOPWORDS.find((word) => run.startsWith(word, at))
    if (stop !== undefined) {
      at += stop.length
      continue
    }
    words.push({ form: run.charAt(at), concept: undefined })
    at += 1
  }
  return words
}

/** Add a concept's unit direction. */
function addConcept(vector: Float64Array, concept: number, dim: number): void {
  const unit = WEIGHT.concept / Math.sqrt(dim)
  const hadamard = dim > FAKE_CONCEPTS.length && (dim & (dim - 1)) === 0
  const random = random32(hash(`concept:${concept}:${dim}`))
  for (let index = 0; index < dim; index += 1) {
    const positive = hadamard ? parity(((concept + 1) & index) ^ (mix(index) & 1)) === 0 : random() < 0.5
    vector[index] = (vector[index] ?? 0) + (positive ? unit : -unit)
  }
}

/** Add a sparse signed component of the given weight at coordinates drawn from the key. */
function addHashed(vector: Float64Array, key: string, weight: number): void {
  const random = random32(hash(key))
  const touched = Math.min(SPARSITY, vector.length)
  const unit = weight / Math.sqrt(touched)
  for (let count = 0; count < touched; count += 1) {
    const index = Math.floor(random() * vector.length)
    vector[index] = (vector[index] ?? 0) + (random() < 0.5 ? unit : -unit)
  }
}

/** FNV-1a over the UTF-16 code units. */
function hash(text: string): number {
  let value = 0x811c9dc5
  for (let index = 0; index < text.length; index += 1) {
    value ^= text.charCodeAt(index)
    value = Math.imul(value, 0x01000193) >>> 0
  }
  return value
}

/** murmur3's finalizer: a well-spread integer hash (it scrambles the Hadamard rows' signs per coordinate). */
function mix(value: number): number {
  let bits = value >>> 0
  bits = Math.imul(bits ^ (bits >>> 16), 0x85ebca6b)
  bits = Math.imul(bits ^ (bits >>> 13), 0xc2b2ae35)
  return (bits ^ (bits >>> 16)) >>> 0
}

/** mulberry32: a seeded generator of numbers in [0, 1). */
function random32(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let value = Math.imul(state ^ (state >>> 15), 1 | state)
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
}

/** 1 when a 32-bit value has an odd number of set bits. */
function parity(value: number): number {
  let bits = value ^ (value >>> 16)
  bits ^= bits >>> 8
  bits ^= bits >>> 4
  bits ^= bits >>> 2
  bits ^= bits >>> 1
  return bits & 1
}
