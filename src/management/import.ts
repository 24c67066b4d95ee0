/**
 * The import verb: preview a JSONL file (each record classed new / duplicate / conflict / tombstoned / invalid,
 * nothing written) and answer a token bound to the file hash, the store id and the generation; the fenced commit
 * re-checks that token and applies every record in one transaction, or nothing.
 *
 * Two kinds of file. Any file states what it believes, not what the user affirmed: records go through the normal
 * write path as origin import with evidence at most observed, a differing value enters the conflict queue, and past
 * values are skipped. A file this very store exported, whose records still hash to its manifest, is the user's own
 * backup and is restored as it was: evidence is kept and past values come back as history, so an export, a wipe,
 * an import and a second export give equal records. Alias lines (`{subject, aliasOf}`, `{subject, property, aliasOf}`)
 * are recorded before any fact line is written, so a line under an alias's name lands on the name it stands for.
 * an import and a second export give equal records. Tombstone lines (forgotten claims, as hashes) are kept by either
 * kind of import, after the records, so the claims they name stay refused.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import type { ResolvedConfig } from '../config.ts'
import {
  bytesSha256, decodeUtf8, EXCHANGE_FORMAT, EXCHANGE_FORMAT_VERSION, looksLikeAlias, looksLikeManifest, looksLikeTombstone, parseLines,
  RecordsHasher, type AliasRecord, type ExchangeManifest, type ExchangeTombstone,
} from '../exchange/jsonl.ts'
import { confinePath } from '../exchange/paths.ts'
import { parseAliasRecord, parseManifest, parseRecord, parseTombstone, type ImportRecord } from '../exchange/record.schema.ts'
import { prepareWrite, type PreparedWrite } from '../fact-input.ts'
import { projectKeyOfScope, projectNameOf } from '../project/project-ref.ts'
import { dateArgumentInstant } from '../text/dates.ts'
import { abandon, ok, refuse, runFenced, verb, type VerbOutcome } from './verb.ts'
import { importBody, type ImportBody } from './wire.schema.ts'
import type { StagedRow } from '../store/fact-store.ts'
import type { StoreSet } from '../store/store-set.ts'
import type { Evidence, FactId, ProjectRef } from '../types.ts'
import { evidenceRank, PROPOSAL_CONFIDENCE_FLOOR } from '../rules/write-policy.ts'
import { MASK, scanPrivacy } from '../text/privacy.ts'

/** import's body cap: 16 MiB of inline content plus room for the JSON around it. */
export const IMPORT_BODY_LIMIT = 17 * 1024 * 1024
/** The largest file an import reads from the data directory. */
export const IMPORT_FILE_LIMIT = 256 * 1024 * 1024
/** Records a preview lists. */
export const PREVIEW_ROWS = 200
/** Invalid lines a preview explains. */
export const PREVIEW_REASONS = 1000

/** How an import treats one record. */
export type RecordClass = 'new' | 'duplicate' | 'conflict' | 'tombstoned' | 'invalid'

/** Per-process key of preview tokens: a token cannot be forged from the three values it binds, nor outlive the process. */
const TOKEN_KEY = randomBytes(32)
const HISTORY = new Set(['superseded', 'retired', 'expired'])

/** import: `preview` classes a file's records and issues a token; `commit` applies them behind the fence. */
export const importVerb = verb({
  schema: importBody,
  bodyLimit: IMPORT_BODY_LIMIT,
  run(body, context) {
    const { stores, config } = context
    const now = context.now()
    const source = readSource(stores.dataDir, body)
    if (!source.ok) return source.refusal
    const file = readFile(source.text)
    if (!file.ok) return file.refusal
    const restore = file.manifest !== null && file.untouched === true && file.manifest.storeId === stores.db.storeId()
    const plan = file.entries.map((entry) => planRecord(entry, now, config, restore))
    if (body.mode === 'preview') return preview(stores, source, file, plan, file.aliases, restore)
    const tombstones = file.tombstones
    return runFenced(stores, 'import', body, now, () => {
      const generation = stores.db.generation()
      if (!sameToken(body.token, previewToken(source.sha256, stores.db.storeId(), generation))) {
        return refuse('stale', 'the preview no longer matches: the file, the store or its generation changed since; preview the import again',
          { stale: true, generation })
      }
      // Aliases first, so a fact line under an alias's name lands on the name it stands for.
      const aliases = stores.renames.importAliases(file.aliases.map((entry) => entry.alias), now)
      const committed = commit(stores, plan, tombstones, now, restore)
      return committed.ok ? ok({ ...committed.data, aliases }) : committed
    })
  },
})

/** The bytes of an import, from the data directory or inline. */
interface Source {
  readonly ok: true
  readonly sha256: string
  readonly text: string
  readonly bytes: number
  /** The confined path relative to the data directory, or null for inline content. */
  readonly relativePath: string | null
}

/** One non-manifest line: a schema-valid record, or why it is invalid. */
type Entry = { readonly line: number; readonly record: ImportRecord } | { readonly line: number; readonly reason: string }

/** The parsed file. */
interface ParsedFile {
  readonly ok: true
  readonly manifest: ExchangeManifest | null
  /** Whether the record lines still hash to the manifest's records_sha256 and count (null without a manifest). */
  readonly untouched: boolean | null
  readonly entries: readonly Entry[]
  /** The alias lines, schema-valid (an invalid one is an invalid entry). */
  readonly aliases: readonly { readonly line: number; readonly alias: AliasRecord }[]
  /** The valid tombstone lines; an invalid one is an entry with its reason. */
  readonly tombstones: readonly ExchangeTombstone[]
}

/** One record ready for the store, with the times a new row takes from the file; or invalid before it reaches it. */
type Planned =
  | { readonly line: number; readonly invalid: string }
  | {
    readonly line: number
    readonly write: PreparedWrite
    readonly observedAt: string
    readonly recordedAt: string
    /** A past value of a restored backup: put back as history. */
    readonly history: { readonly status: 'superseded' | 'retired' | 'expired'; readonly validTo: string | null } | null
    /** The fold record the file states for a row that folded, put on the row it lands as. */
    readonly folds: FoldRecord | null
    /** The pin the file states, put on the row it lands as (never on an existing row it duplicates). */
    readonly pinnedAt: string | null
  }

/** How many folds a row absorbed and its last prior values. */
interface FoldRecord {
  readonly count: number
  readonly from: readonly string[]
}

function readSource(dataDir: string, body: ImportBody): Source | { readonly ok: false; readonly refusal: VerbOutcome } {
  let bytes: Buffer
  let relativePath: string | null = null
  if (body.content !== undefined) {
    bytes = Buffer.from(body.content, 'utf8')
  } else {
    const confined = confinePath(dataDir, body.path ?? '')
    if (!confined.ok) return { ok: false, refusal: refuse('invalid_path', `${JSON.stringify(body.path ?? '')}: ${confined.reason}`) }
    relativePath = confined.relativePath
    try {
      const stat = statSync(confined.path)
      if (!stat.isFile()) return { ok: false, refusal: refuse('invalid_path', `${relativePath} is not a file`) }
      if (stat.size > IMPORT_FILE_LIMIT) {
        return { ok: false, refusal: refuse('refused', `${relativePath} is larger than ${IMPORT_FILE_LIMIT / 1024 / 1024} MiB`) }
      }
      bytes = readFileSync(confined.path)
    } catch (error) {
      return { ok: false, refusal: refuse('not_found', `cannot read ${relativePath} in the data directory (${errorCode(error)})`) }
    }
  }
  const text = decodeUtf8(bytes)
  if (text === undefined) return { ok: false, refusal: refuse('invalid_arguments', 'the file is not valid UTF-8') }
  return { ok: true, sha256: bytesSha256(bytes), text, bytes: bytes.byteLength, relativePath }
}

/** Split the file, check an optional manifest on its first line, and validate every record line. */
function readFile(text: string): ParsedFile | { readonly ok: false; readonly refusal: VerbOutcome } {
  const lines = parseLines(text)
  const first = lines[0]
  let manifest: ExchangeManifest | null = null
  let records = lines
  if (first !== undefined && first.ok && looksLikeManifest(first.value)) {
    const parsed = parseManifest(first.value)
    if (!parsed.ok) {
      return { ok: false, refusal: refuse('invalid_arguments',
        `line ${first.line} is not a ${EXCHANGE_FORMAT} version ${EXCHANGE_FORMAT_VERSION} manifest: ${parsed.reason}`) }
    }
    manifest = parsed.value
    records = lines.slice(1)
  }
  const hasher = new RecordsHasher()
  const aliases: { line: number; alias: AliasRecord }[] = []
  const tombstones: ExchangeTombstone[] = []
  const entries = records.flatMap((line): Entry[] => {
    hasher.add(line.text)
    if (!line.ok) return [{ line: line.line, reason: line.reason }]
    if (looksLikeAlias(line.value)) {
      const alias = parseAliasRecord(line.value)
      if (!alias.ok) return [{ line: line.line, reason: alias.reason }]
      aliases.push({ line: line.line, alias: alias.value })
      return []
    }
    if (looksLikeTombstone(line.value)) {
      const tombstone = parseTombstone(line.value)
      if (!tombstone.ok) return [{ line: line.line, reason: tombstone.reason }]
      tombstones.push(tombstone.value)
      return []
    }
    const parsed = parseRecord(line.value)
    return [parsed.ok ? { line: line.line, record: parsed.value } : { line: line.line, reason: parsed.reason }]
  })
  const untouched = manifest === null ? null : hasher.count === manifest.records && hasher.digest() === manifest.records_sha256
  return { ok: true, manifest, untouched, entries, aliases, tombstones }
}

/**
 * Turn a record into the write the normal path would make, with origin import and evidence at most observed.
 * Withheld credentials, past values and values below the confidence floor are invalid here. Restoring the store's
 * own untouched export keeps evidence and visibility as recorded and keeps past values as history.
 */
function planRecord(entry: Entry, now: string, config: ResolvedConfig, restore: boolean): Planned {
  if ('reason' in entry) return { line: entry.line, invalid: entry.reason }
  const record = entry.record
  const invalid = (reason: string): Planned => ({ line: entry.line, invalid: reason })
  if (record.valueWithheld === true || record.value === undefined) return invalid('a credential whose value the export withheld; it cannot be imported')
  if (record.sensitivity === 'credential') return invalid('credentials are never imported from a file')
  const past = record.status !== undefined && HISTORY.has(record.status)
  if (past && !restore) {
    return invalid(`a past value (status ${record.status}); only a store's own untouched export brings history back`)
  }
  const confidence = record.confidence ?? 1
  if (confidence < PROPOSAL_CONFIDENCE_FLOOR) {
    return invalid(`confidence ${confidence} is below ${PROPOSAL_CONFIDENCE_FLOOR}; such a value is a proposal, never an imported fact`)
  }
  const prepared = prepareWrite({
    subject: record.subject,
    property: record.property,
    value: record.value,
    qualifiers: record.qualifiers,
    cues: record.cues,
    scope: record.scope,
    ...projectOfRecord(record),
    quote: record.quote ?? undefined,
    evidence: restore ? record.evidence ?? 'observed' : downgrade(record.evidence ?? 'observed'),
    confidence,
    multi: record.multi,
    validFrom: record.validFrom,
    // A past value's end is in the past by definition; it is kept on the history row, not checked as a current one.
    validTo: past ? undefined : record.validTo ?? undefined,
    // A backup comes back as it was: two rows it holds stay two, however alike their words.
    exactOnly: restore,
    origin: 'import',
  }, now, { refuseCredentials: config.refuseCredentials, timeZone: config.displayTimeZone })
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
    const instant = text === null || text === undefined ? undefined : dateArgumentInstant(text, config.displayTimeZone, 'start')
    return instant === undefined || instant > now ? now : instant
  }
  return {
    line: entry.line,
    write: { ...prepared.write, sensitivity, modelUseAllowed },
    observedAt: stamp(record.observedAt),
    recordedAt: stamp(record.recordedAt),
    history: past ? { status: record.status as 'superseded' | 'retired' | 'expired', validTo: record.validTo ?? null } : null,
    folds,
    pinnedAt: record.pinnedAt === undefined ? null : stamp(record.pinnedAt),
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
  if (sensitivity !== null) return 'a sensitive value carries no fold history (its prior values would be stored unmasked)'
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

/** Class every record without writing; records earlier in the file count as staged rows of their slot. */
function preview(stores: StoreSet, source: Source, file: ParsedFile, plan: readonly Planned[], aliases: ParsedFile['aliases'], restore: boolean): VerbOutcome {
  const generation = stores.db.generation()
  const storeId = stores.db.storeId()
  const counts = emptyCounts()
  const rows: Record<string, unknown>[] = []
  const reasons: { line: number; reason: string }[] = []
  const staged = new Map<string, StagedRow[]>()
  const stagedLines = new Map<number, number>()
  for (const item of plan) {
    const row = classifyOne(stores, item, staged, stagedLines)
    counts[row.class] += 1
    if (row.class === 'invalid' && reasons.length < PREVIEW_REASONS) reasons.push({ line: item.line, reason: String(row['reason']) })
    if (rows.length < PREVIEW_ROWS) rows.push(row)
  }
  return ok({
    token: previewToken(source.sha256, storeId, generation),
    fileSha256: source.sha256,
    storeId,
    generation,
    source: { path: source.relativePath, bytes: source.bytes },
    manifest: file.manifest,
    untouched: file.untouched,
    restore,
    total: plan.length,
    counts,
    records: rows,
    invalid: reasons,
    invalidOmitted: counts.invalid - reasons.length,
    aliases: aliases.map((entry) => ({ line: entry.line, ...entry.alias })),
    tombstones: { total: file.tombstones.length, known: stores.exchange.knownTombstones(file.tombstones) },
  })
}

function classifyOne(stores: StoreSet, item: Planned, staged: Map<string, StagedRow[]>, stagedLines: Map<number, number>):
  Record<string, unknown> & { class: RecordClass } {
  if ('invalid' in item) return { line: item.line, class: 'invalid', reason: item.invalid }
  const { write } = item
  const value = write.sensitivity === 'credential' ? MASK : write.value
  const shown = { line: item.line, subject: write.subject, property: write.property, value, qualifiers: write.qualifiers }
  const verdict = stores.facts.classify(write, staged.get(write.slotKey) ?? [], stagedLines.size)
  if (item.history !== null) {
    if (verdict.kind === 'tombstoned') return { ...shown, class: 'tombstoned', reason: verdict.message }
    return { ...shown, class: stores.facts.hasHistory(write.slotKey, write.claimKey, write.validFrom, item.history.status) ? 'duplicate' : 'new', status: item.history.status }
  }
  if (verdict.kind === 'tombstoned') return { ...shown, class: 'tombstoned', reason: verdict.message }
  const decision = verdict.decision
  if (decision.kind === 'propose') return { ...shown, class: 'invalid', reason: `the value would only be a proposal (${decision.reason})` }
  // An import never folds (its writes may not replace a row), but a fold would land on an existing row as well.
  if (decision.kind === 'duplicate' || decision.kind === 'fold') {
    const earlierLine = stagedLines.get(decision.factId)
    return { ...shown, class: 'duplicate', ...(earlierLine === undefined ? { factId: decision.factId } : { sameAsLine: earlierLine }) }
  }
  const id = -(stagedLines.size + 1) as FactId
  stagedLines.set(id, item.line)
  const slot = staged.get(write.slotKey) ?? []
  slot.push({
    id, claimKey: write.claimKey, status: decision.status, evidence: write.evidence, multi: decision.multi, conflictGroupId: null,
    value: write.value, scope: write.scope, sensitive: write.sensitivity !== null,
    statement: { subject: write.subject, property: write.property, value: write.value }, credential: write.sensitivity === 'credential',
  })
  staged.set(write.slotKey, slot)
  if (decision.status !== 'conflict') return { ...shown, class: 'new', status: decision.status }
  return { ...shown, class: 'conflict', against: decision.conflict?.against.filter((rival) => rival > 0) ?? [] }
}

/** Apply every planned record through the normal write path; runs inside the fenced transaction. */
function commit(stores: StoreSet, plan: readonly Planned[], tombstones: readonly ExchangeTombstone[], now: string, restore: boolean): VerbOutcome {
  const counts = emptyCounts()
  const factIds: number[] = []
  const duplicateIds: number[] = []
  for (const item of plan) {
    if ('invalid' in item) {
      counts.invalid += 1
      continue
    }
    if (item.history !== null) {
      const restored = stores.facts.restoreHistory(item.write, item.history.status, item.history.validTo, now)
      if (restored.kind === 'tombstoned') counts.tombstoned += 1
      else if (restored.kind === 'duplicate') {
        counts.duplicate += 1
        duplicateIds.push(restored.factId)
      } else {
        counts.new += 1
        factIds.push(restored.fact.id)
        stores.exchange.restoreTimes(restored.fact.id, item.observedAt, item.recordedAt)
        if (item.folds !== null) stores.exchange.restoreFolds(restored.fact.id, item.folds.count, item.folds.from)
        if (item.pinnedAt !== null) stores.exchange.restorePin(restored.fact.id, item.pinnedAt)
      }
      continue
    }
    const result = stores.facts.write(item.write, now)
    switch (result.kind) {
      case 'saved':
      case 'conflict':
        counts[result.kind === 'saved' ? 'new' : 'conflict'] += 1
        factIds.push(result.fact.id)
        stores.exchange.restoreTimes(result.fact.id, item.observedAt, item.recordedAt)
        if (item.folds !== null) stores.exchange.restoreFolds(result.fact.id, item.folds.count, item.folds.from)
        if (item.pinnedAt !== null) stores.exchange.restorePin(result.fact.id, item.pinnedAt)
        break
      case 'duplicate':
      case 'folded':
        counts.duplicate += 1
        duplicateIds.push(result.fact.id)
        break
      case 'refused':
        counts.tombstoned += 1
        break
      case 'proposed':
        // planRecord keeps every value above the floor and nothing inferred, so this means the rules moved.
        abandon(refuse('refused', `line ${item.line} would only become a proposal; nothing was imported`))
    }
  }
  const added = stores.exchange.restoreTombstones(tombstones)
  return ok({ total: plan.length, counts, factIds, duplicateIds, restore, tombstones: { total: tombstones.length, added } })
}

function emptyCounts(): Record<RecordClass, number> {
  return { new: 0, duplicate: 0, conflict: 0, tombstoned: 0, invalid: 0 }
}

/** The preview token: an HMAC under the per-process key over the file hash, the store id and the generation. */
function previewToken(fileSha256: string, storeId: string, generation: number): string {
  return createHmac('sha256', TOKEN_KEY).update(JSON.stringify([fileSha256, storeId, generation])).digest('base64url')
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8')
  const b = Buffer.from(expected, 'utf8')
  return a.byteLength === b.byteLength && timingSafeEqual(a, b)
}

/**
 * @param error - a thrown file-system error
 * @returns its code (ENOENT, EACCES, …), or "I/O error"
 */
export function errorCode(error: unknown): string {
  return error instanceof Error && 'code' in error ? String(error.code) : 'I/O error'
}
