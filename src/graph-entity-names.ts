/**
 * Which known entity a fact's value names: a fast scan that refuses most values without canonicalizing them, then
 * canonicalEntity for the rest. Pure; used by the graph projection to turn values into edges.
 */
import { canonicalEntity, foldText } from './text/normalize.ts'

/** Known entity keys: a set of them, or a map keyed by them. */
export interface KnownKeys {
  has(key: string): boolean
  keys(): Iterable<string>
}

/**
 * A function telling which known entity a value names, if any: its canonical form when that is a known key other
 * than the subject's own. Most values are refused by a scan of their leading words, without canonicalizing them.
 * @param entities - known entity keys.
 * @returns value, own key → named key or undefined.
 */
export function entityNamer(entities: KnownKeys): (value: string, own: string) => string | undefined {
  const namer = new GrowingEntityNamer()
  namer.add(entities.keys())
  return (value, own) => namer.name(value, own, entities)
}

/**
 * The same answers as {@link entityNamer} over a key set that only grows: keys are added as entities appear, so a
 * caller keeping one across changes pays for the new keys only, not for every key again.
 */
export class GrowingEntityNamer {
  private readonly byFirstWord = new Map<string, string[]>()
  private readonly known = new Set<string>()
  private longest = 0
  // Whether canonicalEntity drops a trailing word, asked of canonicalEntity itself, once per word.
  private readonly dropped = new Map<string, boolean>()
  private readonly isDropped = (word: string): boolean => {
    let answer = this.dropped.get(word)
    if (answer === undefined) {
      answer = canonicalEntity(`x ${word}`) === 'x'
      this.dropped.set(word, answer)
    }
    return answer
  }

  /**
   * Learn more keys; a key already known is ignored.
   * @param keys - entity keys.
   */
  add(keys: Iterable<string>): void {
    for (const key of keys) {
      if (this.known.has(key)) continue
      this.known.add(key)
      const word = key.split(' ', 1)[0] ?? key
      const list = this.byFirstWord.get(word)
      if (list === undefined) this.byFirstWord.set(word, [key])
      else list.push(key)
      this.longest = Math.max(this.longest, word.length)
    }
  }

  /**
   * Which known entity a value names.
   * @param value - the fact's value.
   * @param own - the fact's own subject key, never named.
   * @param entities - the keys to answer from; the keys added by default.
   * @returns the named key, or undefined.
   */
  name(value: string, own: string, entities: KnownKeys = this.known): string | undefined {
    if (!mayName(value, this.byFirstWord, this.longest, this.isDropped)) return undefined
    const key = canonicalEntity(value)
    return key !== own && entities.has(key) ? key : undefined
  }
}

/** ASCII separators that canonicalEntity folds (its SEPARATORS, ASCII part, with ASCII whitespace): 1 by code. */
const ASCII_SEPARATOR = Uint8Array.from({ length: 128 }, (_, code) =>
  /[\s_\-.,:;|]/u.test(String.fromCharCode(code)) ? 1 : 0,
)

/**
 * False only when canonicalEntity(value) surely is no known key. Text is read without normalizing while it holds
 * ASCII and CJK unified ideographs (U+4E00-U+9FFF): NFKC leaves those alone and composes nothing across them unless
 * a non-ASCII mark follows, and lower-casing touches only ASCII; anything else answers true (canonicalize in full).
 * - A key keeps the value's first word, except that a last word loses a CJK role suffix (keeping two characters
 *   or more), so a first word with ideographs is looked up with its prefixes.
 * - An ASCII first word must start a key, and the value's words must be that key's words followed by words that
 *   canonicalEntity drops (role words); it changes nothing else in ASCII words.
 */
function mayName(
  value: string,
  byFirstWord: ReadonlyMap<string, readonly string[]>,
  longest: number,
  isDropped: (word: string) => boolean,
): boolean {
  let start = 0
  while (start < value.length && ASCII_SEPARATOR[value.charCodeAt(start)] === 1) start += 1
  let end = start
  let upper = false
  let ideographs = false
  for (; end < value.length; end += 1) {
    const code = value.charCodeAt(end)
    if (code < 0x80) {
      if (ASCII_SEPARATOR[code] === 1) break
      if (code >= 65 && code <= 90) upper = true
    } else if (code >= 0x4e00 && code <= 0x9fff) {
      ideographs = true
    } else {
      return true
    }
  }
  const raw = value.slice(start, end)
  const word = upper ? raw.toLowerCase() : raw
  if (ideographs) {
    for (let length = Math.min(word.length, longest); length >= 1; length -= 1) {
      if (byFirstWord.has(length === word.length ? word : word.slice(0, length))) return true
    }
    return false
  }
  const keys = byFirstWord.get(word)
  return keys?.some((key) => mayBe(value, start, key, isDropped)) === true
}

/**
 * False only when the value's words, from `at`, surely are not the key's words followed by dropped words (ASCII
 * compared as canonicalEntity would see it; a non-ASCII character on the way answers true).
 */
function mayBe(value: string, at: number, key: string, isDropped: (word: string) => boolean): boolean {
  let i = at
  for (let j = 0; j < key.length; j += 1) {
    if (i >= value.length) return false
    let code = value.charCodeAt(i)
    if (code >= 0x80) return true
    if (key.charCodeAt(j) === 32) {
      if (ASCII_SEPARATOR[code] !== 1) return false
      while (i < value.length) {
        code = value.charCodeAt(i)
        if (code >= 0x80 || ASCII_SEPARATOR[code] !== 1) break
        i += 1
      }
      if (i < value.length && code >= 0x80) return true
      continue
    }
    if (code >= 65 && code <= 90) code += 32
    // A mark after this character may compose it into the key's character.
    if (code !== key.charCodeAt(j)) return i + 1 < value.length && value.charCodeAt(i + 1) >= 0x80
    i += 1
  }
  while (i < value.length) {
    const code = value.charCodeAt(i)
    if (code >= 0x80) return true
    if (ASCII_SEPARATOR[code] !== 1) return false
    while (i < value.length && value.charCodeAt(i) < 0x80 && ASCII_SEPARATOR[value.charCodeAt(i)] === 1) i += 1
    const start = i
    while (i < value.length && value.charCodeAt(i) < 0x80 && ASCII_SEPARATOR[value.charCodeAt(i)] !== 1) i += 1
    if (i < value.length && value.charCodeAt(i) >= 0x80) return true
    if (i > start && !isDropped(value.slice(start, i).toLowerCase())) return false
  }
  return true
}

/** foldText, skipping the work for text it would return unchanged (lower-case ASCII, single inner spaces). */
export function foldValue(value: string): string {
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i)
    const plain =
      code >= 0x20 &&
      code < 0x7f &&
      !(code >= 65 && code <= 90) &&
      !(code === 32 && (i === 0 || i === value.length - 1 || value.charCodeAt(i + 1) === 32))
    if (!plain) return foldText(value)
  }
  return value
}
