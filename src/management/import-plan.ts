/**
 * Reading an import file into a plan, with no store: split and parse the lines in slices that yield, check an
 * optional manifest and whether the lines still hash to it, validate every line (fact record, alias or tombstone),
 * and turn each record into the write the normal path would make, with what it keeps of its file.
 */
import type { ResolvedConfig } from '../config.ts'
import {
  EXCHANGE_FORMAT,
  EXCHANGE_FORMAT_VERSION,
  looksLikeAlias,
  looksLikeManifest,
  looksLikeTombstone,
  parseLine,
  RecordsHasher,
  splitLines,
  type AliasRecord,
  type ExchangeManifest,
  type ExchangeTombstone,
} from '../exchange/jsonl.ts'
import {
  parseAliasRecord,
  parseManifest,
  parseRecord,
  parseTombstone,
  type ImportRecord,
} from '../exchange/record.schema.ts'
import { prepareWrite, type PreparedWrite } from '../fact-input.ts'
import { projectKeyOfScope, projectNameOf } from '../project/project-ref.ts'
import { evidenceRank, PROPOSAL_CONFIDENCE_FLOOR } from '../rules/write-policy.ts'
import { dateArgumentInstant } from '../text/dates.ts'
import { scanPrivacy } from '../text/privacy.ts'
import type { Evidence, ProjectRef } from '../types.ts'
import { mapInSlices } from './slices.ts'

const HISTORY = new Set(['superseded', 'retired', 'expired'])

/** One non-manifest line: a schema-valid record, or why it is invalid. */
export type Entry =
  | { readonly line: number; readonly record: ImportRecord }
  | { readonly line: number; readonly reason: string }

/** The parsed file. */
export interface ParsedFile {
  readonly manifest: ExchangeManifest | null
  /** Whether the lines still hash to the manifest, each kind to its own count and hash (null without a manifest). */
  readonly untouched: boolean | null
  readonly entries: readonly Entry[]
  /** The alias lines, schema-valid (an invalid one is an invalid entry). */
  readonly aliases: readonly { readonly line: number; readonly alias: AliasRecord }[]
  /** The valid tombstone lines; an invalid one is an entry with its reason. */
  readonly tombstones: readonly ExchangeTombstone[]
}

/** One record ready for the store, with the times a new row takes from the file; or invalid before it reaches it. */
export type Planned =
  | { readonly line: number; readonly invalid: string }
  | {
      readonly line: number
      readonly write: PreparedWrite
      readonly observedAt: string
      readonly recordedAt: string
      /** A past value of a restored backup: put back as history. */
      readonly history: {
        readonly status: 'superseded' | 'retired' | 'expired'
        readonly validTo: string | null
      } | null
      /** The fold record the file states for a row that folded, put on the row it lands as. */
      readonly folds: FoldRecord | null
      /** The pin the file states, put on the row it lands as (never on an existing row it duplicates). */
      readonly pinnedAt: string | null
      /** Whether the file stated a pin that this import drops (the file is not this store's own export). */
      readonly pinDropped: boolean
    }

/** What a record keeps of its file. */
export interface PlanMode {
  /** The store's own untouched export: evidence and history come back as they were. */
  readonly restore: boolean
  /** The store's own export, edited or not: its pins were the user's, so they come back. */
  readonly keepPins: boolean
}

/** How many folds a row absorbed and its last prior values. */
interface FoldRecord {
  readonly count: number
  readonly from: readonly string[]
}

/**
 * Split the file, check an optional manifest on its first line, and validate every line, in slices that yield.
 * @param text - the decoded file.
 * @returns the parsed file, or why the whole file is refused (a manifest of another format or version).
 */
export async function readImportFile(
  text: string,
): Promise<{ readonly ok: true; readonly file: ParsedFile } | { readonly ok: false; readonly reason: string }> {
  const numbered = splitLines(text)
  const head = numbered[0]
  const first = head === undefined ? undefined : parseLine(head)
  let manifest: ExchangeManifest | null = null
  let records = numbered
  if (first?.ok && looksLikeManifest(first.value)) {
    const parsed = parseManifest(first.value)
    if (!parsed.ok)
      return {
        ok: false,
        reason: `line ${first.line} is not a ${EXCHANGE_FORMAT} version ${EXCHANGE_FORMAT_VERSION} manifest: ${parsed.reason}`,
      }
    manifest = parsed.value
    records = numbered.slice(1)
  }
  const hashers = {
    every: new RecordsHasher(),
    fact: new RecordsHasher(),
    alias: new RecordsHasher(),
    tombstone: new RecordsHasher(),
  }
  const aliases: { line: number; alias: AliasRecord }[] = []
  const tombstones: ExchangeTombstone[] = []
  const read = await mapInSlices(records, (numberedLine): Entry | undefined => {
    const line = parseLine(numberedLine)
    hashers.every.add(line.text)
    if (!line.ok) {
      hashers.fact.add(line.text)
      return { line: line.line, reason: line.reason }
    }
    if (looksLikeAlias(line.value)) {
      hashers.alias.add(line.text)
      const alias = parseAliasRecord(line.value)
      if (!alias.ok) return { line: line.line, reason: alias.reason }
      aliases.push({ line: line.line, alias: alias.value })
      return undefined
    }
    if (looksLikeTombstone(line.value)) {
      hashers.tombstone.add(line.text)
      const tombstone = parseTombstone(line.value)
      if (!tombstone.ok) return { line: line.line, reason: tombstone.reason }
      tombstones.push(tombstone.value)
      return undefined
    }
    hashers.fact.add(line.text)
    const parsed = parseRecord(line.value)
    return parsed.ok ? { line: line.line, record: parsed.value } : { line: line.line, reason: parsed.reason }
  })
  const entries = read.filter((entry): entry is Entry => entry !== undefined)
  const untouched = manifest === null ? null : hashesMatch(manifest, hashers)
  return { ok: true, file: { manifest, untouched, entries, aliases, tombstones } }
}

/**
 * Plan every entry, in slices that yield.
 * @param entries - the file's entries.
 * @param now - ISO instant of the import.
 * @param config - the live configuration.
 * @param mode - what the records keep of their file.
 * @returns one planned record per entry, in order.
 */
export function planImport(
  entries: readonly Entry[],
  now: string,
  config: ResolvedConfig,
  mode: PlanMode,
): Promise<Planned[]> {
  return mapInSlices(entries, (entry) => planRecord(entry, now, config, mode))
}

/**
 * Whether the lines still hash to the manifest: each kind to its own count and hash, or, in a file written before
 * alias and tombstone lines had their own, every line to records_sha256.
 */
function hashesMatch(
  manifest: ExchangeManifest,
  hashers: Readonly<Record<'every' | 'fact' | 'alias' | 'tombstone', RecordsHasher>>,
): boolean {
  const matches = (hasher: RecordsHasher, count: number | undefined, sha256: string | undefined): boolean =>
    hasher.count === count && hasher.digest() === sha256
  if (manifest.aliases_sha256 === undefined) return matches(hashers.every, manifest.records, manifest.records_sha256)
  return (
    matches(hashers.fact, manifest.records, manifest.records_sha256) &&
    matches(hashers.alias, manifest.aliases, manifest.aliases_sha256) &&
    matches(hashers.tombstone, manifest.tombstones, manifest.tombstones_sha256)
  )
}

/**
 * Turn a record into the write the normal path would make, with origin import and evidence at most observed.
 * Withheld credentials, past values and values below the confidence floor are invalid here. Restoring the store's
 * own untouched export keeps evidence and visibility as recorded and keeps past values as history. A pin is the
 * user's act: it is kept only from the store's own export, edited or not, and dropped from any other file.
 */
function planRecord(entry: Entry, now: string, config: ResolvedConfig, { restore, keepPins }: PlanMode): Planned {
  if ('reason' in entry) return { line: entry.line, invalid: entry.reason }
  const record = entry.record
  const invalid = (reason: string): Planned => ({ line: entry.line, invalid: reason })
  if (record.valueWithheld === true || record.value === undefined)
    return invalid('a credential whose value the export withheld; it cannot be imported')
  if (record.sensitivity === 'credential') return invalid('credentials are never imported from a file')
  const past = record.status !== undefined && HISTORY.has(record.status)
  if (past && !restore) {
    return invalid(`a past value (status ${record.status}); only a store's own untouched export brings history back`)
  }
  const confidence = record.confidence ?? 1
  if (confidence < PROPOSAL_CONFIDENCE_FLOOR) {
    return invalid(
      `confidence ${confidence} is below ${PROPOSAL_CONFIDENCE_FLOOR}; such a value is a proposal, never an imported fact`,
    )
  }
  const prepared = prepareWrite(
    {
      subject: record.subject,
      property: record.property,
      value: record.value,
      qualifiers: record.qualifiers,
      cues: record.cues,
      scope: record.scope,
      ...projectOfRecord(record),
      quote: record.quote ?? undefined,
      evidence: restore ? (record.evidence ?? 'observed') : downgrade(record.evidence ?? 'observed'),
      confidence,
      multi: record.multi,
      validFrom: record.validFrom,
      // A past value's end is in the past by definition; it is kept on the history row, not checked as a current one.
      validTo: past ? undefined : (record.validTo ?? undefined),
      // A backup comes back as it was: two rows it holds stay two, however alike their words.
      exactOnly: restore,
      origin: 'import',
    },
    now,
    { refuseCredentials: config.refuseCredentials, timeZone: config.displayTimeZone },
  )
  if (!prepared.ok) return invalid(prepared.message)
  // A file that marks a value sensitive keeps it hidden from the model even where the scan finds nothing.
  const sensitivity = prepared.write.sensitivity ?? record.sensitivity ?? null
  const folds = foldsOf(record, sensitivity)
  if (typeof folds === 'string') return invalid(folds)
  const modelUseAllowed = restore
    ? sensitivity !== 'credential' && record.modelUseAllowed !== false
    : prepared.write.modelUseAllowed && sensitivity === null && record.modelUseAllowed !== false
  // A restored row keeps when it was observed and recorded; a time the file lacks, or one still ahead, is now.
  const stamp = (text: string | null | undefined): string => {
    const instant =
      text === null || text === undefined ? undefined : dateArgumentInstant(text, config.displayTimeZone, 'start')
    return instant === undefined || instant > now ? now : instant
  }
  return {
    line: entry.line,
    write: { ...prepared.write, sensitivity, modelUseAllowed },
    observedAt: stamp(record.observedAt),
    recordedAt: stamp(record.recordedAt),
    history: past
      ? { status: record.status as 'superseded' | 'retired' | 'expired', validTo: record.validTo ?? null }
      : null,
    folds,
    pinnedAt: record.pinnedAt === undefined || !keepPins ? null : stamp(record.pinnedAt),
    pinDropped: record.pinnedAt !== undefined && !keepPins,
  }
}

/**
 * The fold record a record states, or why it cannot be kept: a sensitive value never folds, and a prior value is
 * scanned as its row's value would be, since the history is shown wherever the row is.
 */
function foldsOf(record: ImportRecord, sensitivity: string | null): FoldRecord | null | string {
  const count = record.foldedCount ?? 0
  const from = record.foldedFrom ?? []
  if (count === 0) return null
  if (sensitivity !== null)
    return 'a sensitive value carries no fold history (its prior values would be stored unmasked)'
  for (const [index, value] of from.entries()) {
    const finding = scanPrivacy(record.property, value)
    if (finding !== undefined) return `foldedFrom.${index} holds personal data or a credential (${finding.reason})`
  }
  return { count, from }
}

/** The project a record's scope names, under the record's name for it (a store that knows the key keeps its own). */
function projectOfRecord(record: ImportRecord): { project?: ProjectRef } {
  const key = record.scope === undefined ? null : projectKeyOfScope(record.scope)
  return key === null ? {} : { project: { key, name: record.projectName ?? projectNameOf(key) } }
}

/** An import states what a file believes: at most observed. */
function downgrade(evidence: Evidence): Evidence {
  return evidenceRank(evidence) < evidenceRank('observed') ? 'observed' : evidence
}
