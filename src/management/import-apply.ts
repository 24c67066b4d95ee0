/**
 * An import plan against the store: the preview (every record classed, in slices that yield, nothing written) and
 * the commit (one transaction run in slices, recorded as one edit that fact-restore undoes whole). Both read the file's
 * tombstones first: a record the file itself forgets is tombstoned, and a current fact a claim tombstone names is
 * forgotten by the commit, so no current fact is one a write would refuse. A record that repeats an earlier line of
 * the same file is counted as repeated, apart from a duplicate of what the store held before.
 */
import type { ExchangeTombstone } from '../exchange/jsonl.ts'
import { projectKeyOfScope } from '../project/project-ref.ts'
import type { StagedRow } from '../store/fact-store.ts'
import type { OpenStores } from '../store/store-set.ts'
import { evidenceKeyOf } from '../text/normalize.ts'
import { MASK } from '../text/privacy.ts'
import type { Fact, FactId } from '../types.ts'
import type { ParsedFile, Planned } from './import-plan.ts'
import { mapInSlices, nextTurn } from './slices.ts'
import { abandon, refuse } from './verb.ts'

/** How an import treats one record. */
export type RecordClass = 'new' | 'duplicate' | 'repeated' | 'conflict' | 'tombstoned' | 'invalid'

/** Records a preview lists. */
export const PREVIEW_ROWS = 200
/** Invalid lines a preview explains. */
export const PREVIEW_REASONS = 1000

/** The keys a file forgets, by kind. */
interface FileTombstones {
  readonly claims: ReadonlySet<string>
  readonly evidence: ReadonlySet<string>
}

/** A fact the file's tombstones will forget, as the preview and the receipt show it (a credential's value masked). */
export interface ForgottenView {
  readonly id: number
  readonly subject: string
  readonly property: string
  readonly value: string
  readonly status: string
}

/** What the preview found, before the verb adds the token and the file's own fields. */
export interface PreviewResult {
  readonly counts: Record<RecordClass, number>
  /** The first rows: line and class, then what the class says (the slot, the fact it duplicates, the reason). */
  readonly records: readonly ClassifiedLine[]
  readonly invalid: readonly { readonly line: number; readonly reason: string }[]
  readonly pinsDropped: { readonly count: number; readonly lines: readonly number[]; readonly reason: string }
  readonly tombstones: {
    readonly total: number
    readonly known: number
    readonly forgets: readonly ForgottenView[]
    readonly forgetsTotal: number
  }
}

/** Why a pin in a file is dropped, as the preview says it. */
const PIN_DROPPED =
  "a pin is the user's own act: pins are kept only from this store's own export, and this file is not one"

/**
 * Class every record without writing; records earlier in the file count as staged rows of their slot. Runs in
 * slices that yield; the caller binds its token to the generation read before, so a store that changed meanwhile
 * makes the commit stale.
 * @param stores - the open stores.
 * @param file - the parsed file.
 * @param plan - its planned records.
 * @returns the classes, the listed rows, the pins dropped and the facts the tombstones would forget.
 */
export async function previewImport(
  stores: OpenStores,
  file: ParsedFile,
  plan: readonly Planned[],
): Promise<PreviewResult> {
  const counts = emptyCounts()
  const rows: ClassifiedLine[] = []
  const reasons: { line: number; reason: string }[] = []
  const pinLines: number[] = []
  const staged = new Map<string, StagedRow[]>()
  const stagedLines = new Map<number, number>()
  const stagedHistory = new Map<string, number>()
  const forgetting = fileTombstones(file.tombstones)
  await mapInSlices(plan, (item) => {
    const row = classifyOne(stores, item, forgetting, { staged, stagedLines, stagedHistory })
    counts[row.class] += 1
    if (row.class === 'invalid' && reasons.length < PREVIEW_REASONS)
      reasons.push({ line: item.line, reason: String(row['reason']) })
    if (!('invalid' in item) && item.pinDropped) {
      pinLines.push(item.line)
      row['pinDropped'] = true
    }
    if (rows.length < PREVIEW_ROWS) rows.push(row)
  })
  const forgets = stores.exchange.currentFactsOfClaims([...forgetting.claims])
  return {
    counts,
    records: rows,
    invalid: reasons,
    pinsDropped: { count: pinLines.length, lines: pinLines.slice(0, PREVIEW_ROWS), reason: PIN_DROPPED },
    tombstones: {
      total: file.tombstones.length,
      known: stores.exchange.knownTombstones(file.tombstones),
      forgets: forgets.slice(0, PREVIEW_ROWS).map(forgottenView),
      forgetsTotal: forgets.length,
    },
  }
}

/** What the preview has staged so far. */
interface Staging {
  readonly staged: Map<string, StagedRow[]>
  /** Staged row ids (negative) to the line that stages them. */
  readonly stagedLines: Map<number, number>
  /** Past values the file brings back, by slot, claim, start and status, to their line. */
  readonly stagedHistory: Map<string, number>
}

/** One line of the file as the preview shows it. */
type ClassifiedLine = Record<string, unknown> & { readonly line: number; readonly class: RecordClass }

function classifyOne(stores: OpenStores, item: Planned, forgetting: FileTombstones, staging: Staging): ClassifiedLine {
  if ('invalid' in item) return { line: item.line, class: 'invalid', reason: item.invalid }
  const given = item.write
  const value = given.sensitivity === 'credential' ? MASK : given.value
  const shown = {
    line: item.line,
    subject: given.subject,
    property: given.property,
    value,
    qualifiers: given.qualifiers,
  }
  // Keyed under the names the store reads them as, so a line under an alias meets the rows of what it stands for.
  const write = stores.facts.canonical(given)
  if (forgetting.claims.has(write.claimKey) || forgetting.evidence.has(write.evidenceKey)) {
    return { ...shown, class: 'tombstoned', reason: 'the file itself forgets this claim; it cannot be written back' }
  }
  const verdict = stores.facts.classify(write, staging.staged.get(write.slotKey) ?? [], staging.stagedLines.size)
  if (verdict.kind === 'tombstoned') return { ...shown, class: 'tombstoned', reason: verdict.message }
  if (item.history !== null) {
    const key = JSON.stringify([write.slotKey, write.claimKey, write.validFrom, item.history.status])
    const earlier = staging.stagedHistory.get(key)
    if (earlier !== undefined) return { ...shown, class: 'repeated', status: item.history.status, sameAsLine: earlier }
    staging.stagedHistory.set(key, item.line)
    return {
      ...shown,
      class: stores.facts.hasHistory(write.slotKey, write.claimKey, write.validFrom, item.history.status)
        ? 'duplicate'
        : 'new',
      status: item.history.status,
    }
  }
  const decision = verdict.decision
  if (decision.kind === 'propose')
    return { ...shown, class: 'invalid', reason: `the value would only be a proposal (${decision.reason})` }
  // An import never folds (its writes may not replace a row), but a fold would land on an existing row as well.
  if (decision.kind === 'duplicate' || decision.kind === 'fold') {
    const earlierLine = staging.stagedLines.get(decision.factId)
    return earlierLine === undefined
      ? { ...shown, class: 'duplicate', factId: decision.factId }
      : { ...shown, class: 'repeated', sameAsLine: earlierLine }
  }
  const id = -(staging.stagedLines.size + 1) as FactId
  staging.stagedLines.set(id, item.line)
  const slot = staging.staged.get(write.slotKey) ?? []
  slot.push({
    id,
    claimKey: write.claimKey,
    status: decision.status,
    evidence: write.evidence,
    multi: decision.multi,
    conflictGroupId: null,
    value: write.value,
    scope: write.scope,
    sensitive: write.sensitivity !== null,
    statement: { subject: write.subject, property: write.property, value: write.value },
    credential: write.sensitivity === 'credential',
  })
  staging.staged.set(write.slotKey, slot)
  if (decision.status !== 'conflict') return { ...shown, class: 'new', status: decision.status }
  return { ...shown, class: 'conflict', against: decision.conflict?.against.filter((rival) => rival > 0) ?? [] }
}

/** What the commit did, before the verb adds the aliases. */
export interface CommitResult {
  readonly counts: Record<RecordClass, number>
  readonly factIds: readonly number[]
  readonly duplicateIds: readonly number[]
  readonly tombstones: { readonly total: number; readonly added: number }
  /** The current facts the file's tombstones forgot. */
  readonly forgotten: readonly ForgottenView[]
  /** The one edit fact-restore undoes: what the import added, and what its tombstones forgot. */
  readonly undo: { readonly editId: number }
}

/**
 * Keep the file's tombstones (forgetting the current facts they name), record its aliases, then apply every planned
 * record through the normal write path, recorded as one edit whose undo takes all of it back. Runs inside the fenced
 * sliced transaction: every store call in `slice`, the event loop handed back between slices.
 * @param stores - the open stores.
 * @param file - the parsed file (its aliases and tombstones).
 * @param plan - the planned records.
 * @param now - ISO instant of the import.
 * @param slice - runs one synchronous step inside the transaction.
 * @returns what was written, forgotten and kept, and the aliases recorded.
 */
export async function commitImport(
  stores: OpenStores,
  file: Pick<ParsedFile, 'aliases' | 'tombstones'>,
  plan: readonly Planned[],
  now: string,
  slice: <R>(step: () => R) => R,
): Promise<CommitResult & { readonly aliases: number }> {
  const recorder = slice(() => stores.edits.recordImport())
  // Aliases first, so a fact line under an alias's name lands on the name it stands for.
  const aliases = slice(() =>
    stores.facts.renames.importAliases(
      file.aliases.map((entry) => entry.alias),
      now,
    ),
  )
  const kept = slice(() => keepTombstones(stores, file.tombstones, now))
  const counts = emptyCounts()
  const factIds: number[] = []
  const created = new Set<number>()
  const duplicateIds: number[] = []
  const landed = (id: number, item: Extract<Planned, { write: unknown }>): void => {
    factIds.push(id)
    created.add(id)
    stores.exchange.restoreTimes(id, item.observedAt, item.recordedAt)
    if (item.folds !== null) stores.exchange.restoreFolds(id, item.folds.count, item.folds.from)
    if (item.pinnedAt !== null) stores.exchange.restorePin(id, item.pinnedAt)
  }
  const matched = (id: number): void => {
    if (created.has(id)) counts.repeated += 1
    else {
      counts.duplicate += 1
      duplicateIds.push(id)
    }
  }
  const applyOne = (item: Planned): void => {
    if ('invalid' in item) {
      counts.invalid += 1
      return
    }
    recorder.watch(stores.facts.canonical(item.write).slotKey)
    if (item.history !== null) {
      const restored = stores.facts.restoreHistory(item.write, item.history.status, item.history.validTo, now)
      if (restored.kind === 'tombstoned') counts.tombstoned += 1
      else if (restored.kind === 'duplicate') matched(restored.factId)
      else {
        counts.new += 1
        landed(restored.fact.id, item)
      }
      return
    }
    const result = stores.facts.write(item.write, now)
    switch (result.kind) {
      case 'saved':
      case 'conflict':
        counts[result.kind === 'saved' ? 'new' : 'conflict'] += 1
        landed(result.fact.id, item)
        break
      case 'duplicate':
      case 'folded':
        matched(result.fact.id)
        break
      case 'refused':
        counts.tombstoned += 1
        break
      case 'proposed':
        // planRecord keeps every value above the floor and nothing inferred, so this means the rules moved.
        abandon(refuse('refused', `line ${item.line} would only become a proposal; nothing was imported`))
    }
  }
  await mapInSlices(plan, (item) => {
    slice(() => {
      applyOne(item)
    })
  })
  const editId = await recorder.record(
    { created: factIds, aliases: aliases.changes, forgetEdit: kept.forgetEdit },
    now,
    slice,
    nextTurn,
  )
  return {
    counts,
    factIds,
    duplicateIds,
    tombstones: kept.tombstones,
    forgotten: kept.forgotten,
    undo: { editId },
    aliases: aliases.recorded,
  }
}

/**
 * Keep a file's tombstones. Those naming a current fact (its claim, or its evidence) are kept inside one tracked forget
 * of those facts, whose undo takes back both; the rest are kept as they are.
 */
function keepTombstones(
  stores: OpenStores,
  tombstones: readonly ExchangeTombstone[],
  now: string,
): {
  readonly tombstones: CommitResult['tombstones']
  readonly forgotten: readonly ForgottenView[]
  readonly forgetEdit: number | null
} {
  const named = stores.exchange.currentFactsOfClaims([...fileTombstones(tombstones).claims])
  // The evidence tombstones of those facts go with them, so an undo leaves nothing that refuses their rewrite.
  const namedKeys = new Set(
    named.flatMap((fact) => [
      `claim:${fact.claimKey}`,
      `evidence:${evidenceKeyOf(fact.quote, fact.claimKey, projectKeyOfScope(fact.scope))}`,
    ]),
  )
  const naming = tombstones.filter((entry) => namedKeys.has(`${entry.tombstone}:${entry.key}`))
  let added = stores.exchange.keepBareTombstones(
    tombstones.filter((entry) => !naming.includes(entry)),
    now,
  )
  if (named.length === 0) return { tombstones: { total: tombstones.length, added }, forgotten: [], forgetEdit: null }
  const { result, editId } = stores.edits.trackedForget(
    named.map((fact) => fact.slotKey),
    undefined,
    now,
    () => {
      added += stores.exchange.restoreTombstones(naming)
      return named.flatMap((fact) => stores.facts.forgetById(fact.id, now))
    },
  )
  return { tombstones: { total: tombstones.length, added }, forgotten: result.map(forgottenView), forgetEdit: editId }
}

function fileTombstones(tombstones: readonly ExchangeTombstone[]): FileTombstones {
  return {
    claims: new Set(tombstones.filter((entry) => entry.tombstone === 'claim').map((entry) => entry.key)),
    evidence: new Set(tombstones.filter((entry) => entry.tombstone === 'evidence').map((entry) => entry.key)),
  }
}

function forgottenView(fact: Fact): ForgottenView {
  return {
    id: fact.id,
    subject: fact.subject,
    property: fact.property,
    value: fact.sensitivity === 'credential' ? MASK : fact.value,
    status: fact.status,
  }
}

function emptyCounts(): Record<RecordClass, number> {
  return { new: 0, duplicate: 0, repeated: 0, conflict: 0, tombstoned: 0, invalid: 0 }
}
