/**
 * Pure JSONL exchange format: the manifest line, one record line per fact, one line per lasting alias, then one line
 * per tombstone (a forgotten claim's or evidence's hash, so an import keeps refusing it), a count and hash per line
 * kind, and splitting a file back into numbered lines. UTF-8 without BOM, LF endings; a record never carries a
 * credential's value or quote, nor a qualifier that is a credential, in clear. No database, no file system, no zod.
 */
import { createHash, type Hash } from 'node:crypto'
import { maskForFile } from '../text/credential-copy.ts'
import type { Evidence, Fact, FactStatus, Sensitivity } from '../types.ts'

/** The format name on the manifest line. */
export const EXCHANGE_FORMAT = 'dsh-fact-memory.facts'

/** The format version this plugin writes and reads. */
export const EXCHANGE_FORMAT_VERSION = 1

/** Line 1 of an export: what the file is, where it came from, and how to check its records. */
export interface ExchangeManifest {
  readonly format: typeof EXCHANGE_FORMAT
  readonly version: typeof EXCHANGE_FORMAT_VERSION
  readonly storeId: string
  readonly generation: number
  readonly exportedAt: string
  /** How many fact record lines follow. */
  readonly records: number
  /**
   * SHA-256 (hex) over the fact record lines exactly as written, each followed by "\n" (seed 000's definition). In a
   * file written before alias and tombstone lines had their own hashes, over every line after the manifest.
   */
  readonly records_sha256: string
  /** How many alias lines follow the fact records; absent in files written before the split. */
  readonly aliases?: number | undefined
  /** SHA-256 (hex) over the alias lines, as records_sha256 over the fact lines. */
  readonly aliases_sha256?: string | undefined
  /** How many tombstone lines follow the aliases; absent in files written before the split. */
  readonly tombstones?: number | undefined
  /** SHA-256 (hex) over the tombstone lines, as records_sha256 over the fact lines. */
  readonly tombstones_sha256?: string | undefined
}

/** One fact as an export writes it. A credential carries `valueWithheld: true` and neither value nor quote. */
export interface ExchangeRecord {
  readonly subject: string
  readonly property: string
  readonly qualifiers: Readonly<Record<string, string>>
  /** `global`, a free-text label, or `project:<key>`. */
  readonly scope: string
  /** Only on a project's fact: the project's name, which an import into a store that does not know the key takes. */
  readonly projectName?: string
  readonly value?: string
  readonly valueWithheld?: true
  readonly status: FactStatus
  readonly evidence: Evidence
  readonly confidence: number
  readonly sensitivity: Sensitivity | null
  readonly modelUseAllowed: boolean
  readonly multi: boolean
  readonly validFrom: string
  readonly validTo: string | null
  readonly observedAt: string
  readonly recordedAt: string
  readonly quote: string | null
  /** Only on a row that folded: how many writes of its line on other days it absorbed. */
  readonly foldedCount?: number
  /** Only on a row that folded: its last prior values, newest last. */
  readonly foldedFrom?: readonly string[]
  /** Only on a row the user pinned: the instant of the pin. */
  readonly pinnedAt?: string
  readonly cues?: readonly string[]
}

/**
 * One lasting alias as an export writes it, after the fact records: `{subject, aliasOf}` reads the subject as an
 * alias of the subject `aliasOf`; `{subject, property, aliasOf}` reads that subject's property as an alias of its
 * property `aliasOf`. Files without such lines (older exports, hand-written files) import as before.
 */
export interface AliasRecord {
  readonly subject: string
  readonly property?: string | undefined
  readonly aliasOf: string
}

/**
 * The exchange record of an alias.
 * @param alias - its kind, the name it reads as another, that other name, and for a property the subject's name.
 * @returns the record.
 */
export function aliasRecordOf(alias: {
  readonly kind: 'entity' | 'predicate'
  readonly subject: string
  readonly aliasText: string
  readonly canonicalText: string
}): AliasRecord {
  return alias.kind === 'entity'
    ? { subject: alias.aliasText, aliasOf: alias.canonicalText }
    : { subject: alias.subject, property: alias.aliasText, aliasOf: alias.canonicalText }
}

/**
 * Whether a parsed record line is an alias rather than a fact: a JSON object with `aliasOf`.
 * @param value - the parsed line.
 * @returns true for an alias-shaped object.
 */
export function looksLikeAlias(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, 'aliasOf')
}

/** A forgotten claim or evidence as an export writes it: only its hash, never what it said. */
export interface ExchangeTombstone {
  readonly tombstone: 'claim' | 'evidence'
  /** The SHA-256 key the write path checks. */
  readonly key: string
  readonly forgottenAt: string
}

/** One non-blank line of an import file, parsed as JSON or not. */
export type ParsedLine =
  | { readonly line: number; readonly text: string; readonly ok: true; readonly value: unknown }
  | { readonly line: number; readonly text: string; readonly ok: false; readonly reason: string }

/**
 * The exchange record of a fact. Qualifiers are written in key order, so equal facts give equal lines.
 * @param fact - a stored, non-forgotten fact.
 * @returns the record; a credential's value and quote are withheld and every other text of it masked (see maskForFile),
 *   and a qualifier that is a credential is masked.
 */
export function recordOf(fact: Fact): ExchangeRecord {
  const withheld = fact.sensitivity === 'credential'
  const shown = maskForFile(fact)
  const qualifiers = Object.fromEntries(
    Object.entries(shown.qualifiers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  )
  return {
    subject: shown.subject,
    property: shown.property,
    qualifiers,
    scope: fact.scope,
    ...(fact.projectName === null ? {} : { projectName: fact.projectName }),
    ...(withheld ? ({ valueWithheld: true } as const) : { value: fact.value }),
    status: fact.status,
    evidence: fact.evidence,
    confidence: fact.confidence,
    sensitivity: fact.sensitivity,
    modelUseAllowed: fact.modelUseAllowed,
    multi: fact.multi,
    validFrom: fact.validFrom,
    validTo: fact.validTo,
    observedAt: fact.observedAt,
    recordedAt: fact.recordedAt,
    quote: withheld ? null : fact.quote,
    // A row that never folded is written as before folding existed, so such exports keep their hash.
    ...(fact.foldedCount > 0 && !withheld ? { foldedCount: fact.foldedCount, foldedFrom: fact.foldedFrom } : {}),
    // Likewise a row that was never pinned: files written before pins existed read the same, and import as unpinned.
    ...(fact.pinnedAt === null ? {} : { pinnedAt: fact.pinnedAt }),
    // And a row without cues: files written before cues existed read the same.
    ...(fact.cues.length === 0 || withheld ? {} : { cues: fact.cues }),
  }
}

/**
 * One record line, without its line break. JSON.stringify keeps non-ASCII text as UTF-8 and escapes line breaks
 * inside values, so a line is always one physical line.
 * @param record - the record.
 * @returns the line.
 */
export function recordLine(record: ExchangeRecord | AliasRecord): string {
  return JSON.stringify(record)
}

/**
 * One tombstone line, without its line break, keys in a fixed order.
 * @param tombstone - the tombstone.
 * @returns the line.
 */
export function tombstoneLine(tombstone: ExchangeTombstone): string {
  return JSON.stringify({ tombstone: tombstone.tombstone, key: tombstone.key, forgottenAt: tombstone.forgottenAt })
}

/**
 * Whether a parsed line is a tombstone rather than a fact record: a JSON object with a `tombstone` field.
 * @param value - the parsed line.
 * @returns true for a tombstone-shaped object.
 */
export function looksLikeTombstone(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, 'tombstone')
}

/**
 * The manifest line, without its line break.
 * @param manifest - the manifest.
 * @returns the line, keys in a fixed order.
 */
export function manifestLine(manifest: ExchangeManifest): string {
  return JSON.stringify({
    format: manifest.format,
    version: manifest.version,
    storeId: manifest.storeId,
    generation: manifest.generation,
    exportedAt: manifest.exportedAt,
    records: manifest.records,
    records_sha256: manifest.records_sha256,
    aliases: manifest.aliases,
    aliases_sha256: manifest.aliases_sha256,
    tombstones: manifest.tombstones,
    tombstones_sha256: manifest.tombstones_sha256,
  })
}

/** An incremental SHA-256 over record lines, each followed by "\n". */
export class RecordsHasher {
  private readonly hash: Hash = createHash('sha256')
  private lines = 0

  /** Add one line (without its line break). */
  add(line: string): void {
    this.hash.update(line, 'utf8')
    this.hash.update('\n', 'utf8')
    this.lines += 1
  }

  /** How many lines were added. */
  get count(): number {
    return this.lines
  }

  /** The hex digest; the hasher cannot be used afterwards. */
  digest(): string {
    return this.hash.digest('hex')
  }
}

/**
 * SHA-256 over record lines, each followed by "\n".
 * @param lines - the lines, without line breaks.
 * @returns the hex digest.
 */
export function recordsSha256(lines: readonly string[]): string {
  const hasher = new RecordsHasher()
  for (const line of lines) hasher.add(line)
  return hasher.digest()
}

/**
 * SHA-256 over raw bytes (the file hash an import token is bound to).
 * @param bytes - the file's bytes.
 * @returns the hex digest.
 */
export function bytesSha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

/**
 * Decode a file as UTF-8, refusing malformed bytes instead of replacing them.
 * @param bytes - the file's bytes.
 * @returns the text, or undefined when the bytes are not UTF-8.
 */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    // A TypeError here means malformed UTF-8; the caller refuses the file.
    return undefined
  }
}

/**
 * Split an import file into its non-blank lines, numbered from 1, and parse each as JSON. Lenient with what
 * editors add: a leading BOM and CR before LF are dropped; blank lines are skipped but still counted.
 * @param text - the decoded file.
 * @returns one entry per non-blank line, in file order.
 */
export function parseLines(text: string): ParsedLine[] {
  return splitLines(text).map(parseLine)
}

/**
 * Split an import file into its non-blank lines, numbered from 1, without parsing them (see parseLines).
 * @param text - the decoded file.
 * @returns one entry per non-blank line, in file order.
 */
export function splitLines(text: string): { readonly line: number; readonly text: string }[] {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text
  const out: { line: number; text: string }[] = []
  const raw = body.split('\n')
  for (let index = 0; index < raw.length; index += 1) {
    const lineText = (raw[index] ?? '').replace(/\r$/u, '')
    if (lineText.trim() !== '') out.push({ line: index + 1, text: lineText })
  }
  return out
}

/**
 * Parse one numbered line as JSON.
 * @param numbered - the line and its number.
 * @returns the parsed line, or why it is not JSON (never quoting the line).
 */
export function parseLine(numbered: { readonly line: number; readonly text: string }): ParsedLine {
  try {
    return { line: numbered.line, text: numbered.text, ok: true, value: JSON.parse(numbered.text) as unknown }
  } catch (error) {
    return { line: numbered.line, text: numbered.text, ok: false, reason: `not valid JSON (${jsonProblem(error)})` }
  }
}

/**
 * Whether a parsed line is a manifest rather than a record: a JSON object naming a format.
 * @param value - the parsed line.
 * @returns true for a manifest-shaped object.
 */
export function looksLikeManifest(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, 'format')
}

/** The parser's complaint without the excerpt of the line it quotes, which may hold a secret. */
function jsonProblem(error: unknown): string {
  return error instanceof Error ? error.message.replace(/,\s*".*$/su, '') : 'parse error'
}
