/**
 * zod schemas of what every verb under POST /api/fact-memory/<verb> answers on success (the fields beside `ok: true`).
 * The verb contract pairs each with its body schema; the handlers are typed against them, the page reads through
 * them, and a spec parses every answer of a real host with them. Objects are strict, so a field a handler adds
 * without saying so here fails that spec. Imports zod and other pure schema files only (the page type-checks it).
 */
import { z } from 'zod'
import { searchValueSchema } from '../retrieval/search-value.schema.ts'
import { syncProblemSchema, syncStatusSchema } from '../sync/sync-status.schema.ts'
import { teamStatusSchema } from '../team/team-status.schema.ts'
import {
  activityWireSchema,
  aliasMatchWireSchema,
  conflictGroupWireSchema,
  factViewSchema,
  graphPayloadSchema,
  proposalCardWireSchema,
  queueEntrySchema,
  scopeWireSchema,
  sessionCountsWireSchema,
  sourceViewSchema,
} from '../wire.schema.ts'

const count = z.number().int().min(0)
const id = z.number().int().positive()
const instant = z.string()
const generation = { generation: count }

/** What runFenced adds to a row edit's answer: the generation after it, its operation id, and whether it replayed. */
export const receiptFields = { generation: count, operationId: z.string(), replayed: z.boolean() }
export const receiptSchema = z.strictObject(receiptFields)

/** The edit id that undoes a row edit, given twice: flat and as the page's undo action. */
const undoable = { editId: id, undo: z.strictObject({ editId: id }) }

/** An alias as the page shows it. */
export const aliasViewSchema = z.strictObject({
  id,
  kind: z.enum(['entity', 'predicate']),
  alias: z.string(),
  canonical: z.string(),
  origin: z.enum(['rename', 'merge', 'card', 'import']),
  createdAt: instant,
})

/** A backup file the verb took. */
const backupReceipt = z.strictObject({ path: z.string(), relativePath: z.string(), at: instant })

// ---------------------------------------------------------------------------------------------------------------
// status, activity, sessions

const recallCost = z.strictObject({
  turns: count,
  withBlock: count,
  factsPerTurn: z.number(),
  charsPerTurn: z.number(),
  p95Ms: z.number(),
  lastAt: instant.nullable(),
})

const breakerReport = z.strictObject({
  state: z.enum(['closed', 'open', 'trying', 'off']),
  until: instant.nullable(),
  coolingMs: count,
  consecutiveFailures: count,
  lastError: z.strictObject({ code: z.string(), message: z.string(), at: instant }).nullable(),
})

/** A vector sweep's outcome. */
export const vectorSweepSchema = z.strictObject({
  outcome: z.enum(['swept', 'failed', 'cancelled']),
  fingerprint: z.string(),
  embedded: count,
  rechecked: count,
  pruned: count,
  error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
  startedAt: instant,
  finishedAt: instant,
})

/** How many eligible facts have a vector in the space in force. */
export const vectorCoverageSchema = z.strictObject({ current: count, stale: count, missing: count, excluded: count })

const calibrationEntry = {
  fingerprint: z.string(),
  outcome: z.enum(['calibrated', 'refused']),
  pairSource: z.enum(['supplied', 'library']),
  relevant: count,
  irrelevant: count,
  threshold: z.number().nullable(),
  precision: z.number().nullable(),
  recall: z.number().nullable(),
  reason: z.string().nullable(),
  createdAt: instant,
}
const storedCalibration = { id, ...calibrationEntry }

const notConfigured = z.strictObject({ configured: z.literal(false), reason: z.string() })

/** The semantic channels as status reports them. */
export const semanticStatusSchema = z.strictObject({
  embedding: z.union([
    notConfigured,
    z.strictObject({
      configured: z.literal(true),
      source: z.string(),
      baseUrl: z.string(),
      model: z.string(),
      fingerprint: z.string(),
      dim: count.nullable(),
      intervalMs: count,
      keyName: z.string(),
      vectors: vectorCoverageSchema.nullable(),
      lastSweep: vectorSweepSchema.nullable(),
      error: vectorSweepSchema.shape.error,
      inMemory: z.strictObject({ vectors: count, bytes: count }).nullable(),
      breaker: breakerReport.nullable(),
    }),
  ]),
  rerank: z.union([
    notConfigured,
    z.strictObject({
      configured: z.literal(true),
      source: z.string(),
      baseUrl: z.string(),
      model: z.string(),
      scoreMode: z.string(),
      fingerprint: z.string(),
      keyName: z.string(),
      calibration: z.union([
        z.strictObject({ state: z.literal('uncalibrated') }),
        z.strictObject({ state: z.enum(['refused', 'calibrated']), ...storedCalibration }),
        z.strictObject({ state: z.literal('proxy'), ...storedCalibration, note: z.string() }),
      ]),
      breaker: breakerReport.nullable(),
    }),
  ]),
})

const storeCounts = z.strictObject({
  byStatus: z.record(z.string(), count),
  byEvidence: z.record(z.string(), count),
  openConflictGroups: count,
  pendingProposals: count,
})

/** status with `{summary: true}`: the badge and the switches the page needs at once. */
export const statusSummaryAnswer = z.strictObject({
  available: z.boolean(),
  generation: count,
  badge: count,
  pendingProposals: count,
  openConflictGroups: count,
  autoCapture: z.boolean(),
  autoExtract: z.boolean(),
  recall: z.boolean(),
  timeZone: z.string(),
})

/** status in full. */
export const statusFullAnswer = z.strictObject({
  available: z.boolean(),
  error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
  generation: count,
  storeId: z.string().nullable(),
  driver: z.enum(['better-sqlite3', 'node:sqlite']).nullable(),
  fallbackReason: z.string().nullable(),
  dataDir: z.string().nullable(),
  counts: storeCounts.nullable(),
  badge: count,
  lastBackup: z.strictObject({ path: z.string(), at: instant }).nullable(),
  reviewSeenAt: instant.nullable(),
  timeZone: z.string(),
  enabled: z.boolean(),
  autoCapture: z.boolean(),
  autoExtract: z.boolean(),
  semantic: semanticStatusSchema,
  recall: z.strictObject({
    on: z.boolean(),
    budgetChars: count,
    maxFacts: count,
    minScore: z.number(),
    timeoutMs: count,
    recent: recallCost.nullable(),
  }),
  maintenance: z.strictObject({
    intervalMs: count,
    advanced: z.strictObject({ promoted: count, expired: count }).nullable(),
  }),
  /** Sync between machines (sync-status.schema.ts); null while the store is not open. */
  sync: syncStatusSchema.nullable(),
  /** Team memory (team-status.schema.ts): the projects shared through their repository; empty when none is. */
  team: teamStatusSchema,
})

export const statusAnswer = z.union([statusSummaryAnswer, statusFullAnswer])
export const activityAnswer = activityWireSchema

/** What one round did (its problems in words with closed codes). */
const roundAnswer = z.strictObject({
  ok: z.boolean(),
  sent: count,
  received: count,
  compacted: z.boolean(),
  devices: z.array(z.strictObject({ id: z.string(), name: z.string() })),
  problems: z.array(syncProblemSchema),
})

/** sync-now: what the round did, and the sync status after it. */
export const syncNowAnswer = z.strictObject({ round: roundAnswer, status: syncStatusSchema })

/** team-memory: the project, its folder, whether it is shared now, the round run when turned on, and the status. */
export const teamMemoryAnswer = z.strictObject({
  project: z.strictObject({ key: z.string(), name: z.string() }),
  root: z.string(),
  folder: z.string(),
  shared: z.boolean(),
  round: roundAnswer.nullable(),
  team: teamStatusSchema,
})
export const reviewSeenAnswer = z.strictObject({ seenAt: instant, ...generation })
export const sessionsAnswer = z.strictObject({ sessions: z.array(sessionCountsWireSchema) })
export const sessionPauseAnswer = z.strictObject({ sessionId: z.string(), paused: z.boolean(), changed: z.boolean() })

// ---------------------------------------------------------------------------------------------------------------
// The library's reads

export const factsAnswer = z.strictObject({
  facts: z.array(factViewSchema),
  nextCursor: z.string().nullable(),
  /** With a text filter, how many facts it matches on every page; null without one. */
  matched: count.nullable(),
  statusCounts: z.record(z.string(), count),
  scopes: z.array(scopeWireSchema),
  aliasMatches: z.array(aliasMatchWireSchema),
  ...generation,
})

/** An edit that touched a fact, as its detail lists it. */
const editLine = z.strictObject({ id, kind: z.string(), createdAt: instant, undoneAt: instant.nullable() })

export const factAnswer = z.strictObject({
  fact: factViewSchema,
  history: z.array(factViewSchema),
  sources: z.array(sourceViewSchema),
  edits: z.array(editLine),
  ...generation,
})

export const entityAnswer = z.strictObject({
  entity: z.strictObject({ key: z.string(), display: z.string(), createdAt: instant }),
  properties: z.array(z.strictObject({ property: z.string(), facts: z.array(factViewSchema) })),
  aliases: z.array(aliasViewSchema),
  ...generation,
})

export const subjectFindAnswer = z.strictObject({
  entityKey: z.string().nullable(),
  display: z.string().nullable(),
  ...generation,
})
export const conflictsAnswer = z.strictObject({ groups: z.array(conflictGroupWireSchema), ...generation })
export const searchAnswer = z.strictObject({ ...searchValueSchema.shape, ...generation })
export const graphAnswer = graphPayloadSchema

// ---------------------------------------------------------------------------------------------------------------
// Row edits (all fenced: each answer carries the receipt fields)

export const factUpdateAnswer = z.strictObject({ fact: factViewSchema, previousId: id, ...undoable, ...receiptFields })
export const factExpireAnswer = z.strictObject({ fact: factViewSchema, ...undoable, ...receiptFields })
export const resolveAnswer = z.strictObject({ kept: factViewSchema, groupId: id, ...undoable, ...receiptFields })
export const factRestoreAnswer = z.strictObject({
  editId: id,
  kind: z.string(),
  /** The first 200 facts the undo touched; factsTotal counts them all. */
  facts: z.array(factViewSchema),
  factsTotal: count,
  ...receiptFields,
})
export const factMoveAnswer = z.strictObject({
  fact: factViewSchema,
  moved: z.array(id),
  from: z.strictObject({ kind: z.enum(['global', 'project', 'label']), name: z.string() }),
  ...undoable,
  ...receiptFields,
})
export const factPinAnswer = z.strictObject({
  fact: factViewSchema,
  factId: id,
  pinned: z.boolean(),
  pinnedAt: instant.nullable(),
  previousPinnedAt: instant.nullable(),
  /** The body that undoes this pin (with a fresh fence). */
  undo: z.strictObject({ id, undoes: z.string() }),
  ...receiptFields,
})
export const factForgetAnswer = z.strictObject({ forgotten: z.array(factViewSchema), ...undoable, ...receiptFields })
export const factPutBackAnswer = z.strictObject({
  fact: factViewSchema,
  putBackFrom: id,
  ...undoable,
  ...receiptFields,
})

const renameKind = z.enum(['rename', 'merge'])
/** subject-rename with `dryRun: true`: which it would be, and nothing written. */
export const renamePreviewAnswer = z.strictObject({
  kind: renameKind,
  from: z.string(),
  to: z.string(),
  dryRun: z.literal(true),
})
export const propertyRenameAnswer = z.strictObject({
  kind: renameKind,
  from: z.string(),
  to: z.string(),
  moved: count,
  merged: count,
  contested: count,
  ...undoable,
  ...receiptFields,
})
export const subjectRenameAnswer = z.union([renamePreviewAnswer, propertyRenameAnswer])
export const aliasRemoveAnswer = z.strictObject({ removed: aliasViewSchema, ...receiptFields })

const sensitivityReason = { sensitivityReason: z.string().nullable() }
export const factAddAnswer = z.discriminatedUnion('outcome', [
  z.strictObject({
    outcome: z.literal('saved'),
    fact: factViewSchema,
    superseded: z.array(factViewSchema),
    retired: z.array(factViewSchema),
    ...sensitivityReason,
    ...undoable,
    ...receiptFields,
  }),
  z.strictObject({
    outcome: z.literal('conflict'),
    fact: factViewSchema,
    rivals: z.array(factViewSchema),
    ...sensitivityReason,
    ...undoable,
    ...receiptFields,
  }),
  z.strictObject({
    outcome: z.literal('duplicate'),
    fact: factViewSchema,
    upgraded: z.boolean(),
    restated: z.boolean(),
    editId: id.nullable(),
    undo: z.strictObject({ editId: id }).nullable(),
    ...receiptFields,
  }),
  z.strictObject({ outcome: z.literal('folded'), fact: factViewSchema, ...undoable, ...receiptFields }),
  z.strictObject({
    outcome: z.literal('proposed'),
    proposalId: id,
    reason: z.string(),
    editId: z.null(),
    undo: z.null(),
    ...receiptFields,
  }),
])

// ---------------------------------------------------------------------------------------------------------------
// Proposals

export const proposalsAnswer = z.strictObject({
  proposals: z.array(proposalCardWireSchema),
  nextCursor: z.string().nullable(),
  total: count,
  /** With `since`, how many of the listed status were queued after it; null without. */
  newSince: count.nullable(),
  ...generation,
})

const skipped = {
  skippedStale: z.array(count),
  skippedRefused: z.array(z.strictObject({ row: count, reason: z.string() })),
}
export const proposalApplyAnswer = z.union([
  z.strictObject({
    id,
    applied: z.array(z.strictObject({ row: count, factId: id, outcome: z.string() })),
    ...skipped,
    ...undoable,
    ...receiptFields,
  }),
  // A review card (merge, retire, fold, alias): each applied row with what it did, which differs by kind.
  z.strictObject({
    id,
    kind: z.enum(['merge', 'retire', 'fold', 'alias']),
    applied: z.array(z.looseObject({ row: count })),
    ...skipped,
    ...undoable,
    ...receiptFields,
  }),
])
export const proposalRejectAnswer = z.strictObject({ id, status: z.literal('rejected'), ...receiptFields })
export const proposalReviseAnswer = z.strictObject({
  id,
  revision: count,
  card: proposalCardWireSchema,
  ...receiptFields,
})
export const proposalPruneAnswer = proposalReviseAnswer

// ---------------------------------------------------------------------------------------------------------------
// Store maintenance

export const rebuildAnswer = z.strictObject({ indexed: count, ...receiptFields })
export const wipeAnswer = z.strictObject({
  removed: z.strictObject({ facts: count, proposals: count }),
  backup: backupReceipt.nullable(),
  ...receiptFields,
})
export const keyAnswer = z.strictObject({
  ref: z.enum(['llm', 'embedding', 'rerank', 'sync']),
  name: z.string(),
  configured: z.boolean(),
  source: z.string().nullable(),
  writable: z.boolean(),
})

export const exportAnswer = z.discriminatedUnion('format', [
  z.strictObject({
    format: z.literal('jsonl'),
    path: z.string(),
    relativePath: z.string(),
    records: count,
    recordsSha256: z.string(),
    aliases: count.optional(),
    tombstones: count.optional(),
    storeId: z.string(),
    ...generation,
    backup: backupReceipt.nullable(),
  }),
  z.strictObject({
    format: z.literal('markdown'),
    path: z.string(),
    relativePath: z.string(),
    facts: count,
    subjects: count,
    withheld: count,
    ...generation,
    backup: backupReceipt.nullable(),
  }),
])

const importCounts = z.strictObject({
  new: count,
  duplicate: count,
  repeated: count,
  conflict: count,
  tombstoned: count,
  invalid: count,
})
const forgottenLine = z.strictObject({
  id,
  subject: z.string(),
  property: z.string(),
  value: z.string(),
  status: z.string(),
})
const manifest = z.strictObject({
  format: z.string(),
  version: z.number(),
  storeId: z.string(),
  ...generation,
  exportedAt: instant,
  records: count,
  records_sha256: z.string(),
  aliases: count.optional(),
  aliases_sha256: z.string().optional(),
  tombstones: count.optional(),
  tombstones_sha256: z.string().optional(),
})
export const importPreviewAnswer = z.strictObject({
  token: z.string(),
  fileSha256: z.string(),
  storeId: z.string(),
  ...generation,
  source: z.strictObject({ path: z.string().nullable(), bytes: count }),
  manifest: manifest.nullable(),
  untouched: z.boolean().nullable(),
  restore: z.boolean(),
  total: count,
  counts: importCounts,
  // The first rows of the file with the class each falls in; what else a row says depends on its class.
  records: z.array(
    z.looseObject({
      line: count,
      class: z.enum(['new', 'duplicate', 'repeated', 'conflict', 'tombstoned', 'invalid']),
    }),
  ),
  invalid: z.array(z.strictObject({ line: count, reason: z.string() })),
  invalidOmitted: count,
  pinsDropped: z.strictObject({ count, lines: z.array(count), reason: z.string() }),
  aliases: z.array(z.looseObject({ line: count })),
  tombstones: z.strictObject({ total: count, known: count, forgets: z.array(forgottenLine), forgetsTotal: count }),
})
export const importCommitAnswer = z.strictObject({
  total: count,
  counts: importCounts,
  factIds: z.array(id),
  duplicateIds: z.array(id),
  tombstones: z.strictObject({ total: count, added: count }),
  forgotten: z.array(forgottenLine),
  undo: z.strictObject({ editId: id }),
  aliases: count,
  restore: z.boolean(),
  ...receiptFields,
})
export const importAnswer = z.union([importPreviewAnswer, importCommitAnswer])

// ---------------------------------------------------------------------------------------------------------------
// Health check, near-duplicate review, vectors, calibration

const auditRun = z.strictObject({
  id,
  trigger: z.enum(['timer', 'asked']),
  found: z.strictObject({ retire: count, fold: count, alias: count }),
  cards: z.array(
    z.strictObject({
      kind: z.enum(['merge', 'retire', 'fold', 'alias']),
      id,
      rows: count,
      batch: z.strictObject({ index: count, count }).nullable(),
    }),
  ),
  alreadyQueued: count,
  declined: count,
  error: z.string().nullable(),
  startedAt: instant,
  finishedAt: instant,
  durationMs: count,
  message: z.string(),
})
const auditSettings = { autoAudit: z.boolean(), intervalMs: count }
export const auditRanAnswer = z.strictObject({
  ran: z.literal(true),
  run: auditRun,
  message: z.string(),
  ...generation,
  ...auditSettings,
})
export const auditLedgerAnswer = z.strictObject({
  ...auditSettings,
  total: count,
  runs: z.array(auditRun),
  lastRun: auditRun.nullable(),
})
export const auditAnswer = z.union([auditRanAnswer, auditLedgerAnswer])

const sweepProgress = z.strictObject({
  trigger: z.enum(['asked', 'timer']),
  startedAt: instant,
  budget: count,
  planned: count,
  asked: count,
  proposals: count,
})
const sweepEntry = z.strictObject({
  id,
  trigger: z.enum(['timer', 'asked']),
  outcome: z.enum(['swept', 'deferred']),
  budget: count,
  candidates: count,
  remembered: count,
  asked: count,
  same: count,
  distinct: count,
  unsure: count,
  unanswered: count,
  deferred: count,
  proposalIds: z.array(id),
  model: z.string().nullable(),
  note: z.string().nullable(),
  startedAt: instant,
  finishedAt: instant,
})
export const consolidateLedgerAnswer = z.strictObject({
  running: sweepProgress.nullable(),
  lastAsked: z
    .strictObject({ startedAt: instant, sweep: sweepEntry.nullable(), error: z.string().nullable() })
    .nullable(),
  enabled: z.boolean(),
  intervalMs: count,
  maxPairs: count,
  lastSweepAt: instant.nullable(),
  total: count,
  sweeps: z.array(sweepEntry),
})
export const consolidateBegunAnswer = z.union([
  z.strictObject({ begun: z.literal(true), running: sweepProgress }),
  z.strictObject({ begun: z.literal(false), running: sweepProgress.nullable(), message: z.string() }),
])
export const consolidateAnswer = z.union([consolidateLedgerAnswer, consolidateBegunAnswer])

export const indexVectorsAnswer = z.strictObject({
  sweep: vectorSweepSchema,
  coverage: vectorCoverageSchema.nullable(),
})

export const calibrateAnswer = z.strictObject({
  outcome: calibrationEntry.outcome,
  fingerprint: z.string(),
  pairSource: calibrationEntry.pairSource,
  relevant: count,
  irrelevant: count,
  precision: z.number().nullable(),
  recall: z.number().nullable(),
  threshold: z.number().nullable(),
  /** Why it did not calibrate; absent when it did. */
  reason: z.string().optional(),
  message: z.string(),
})

// ---------------------------------------------------------------------------------------------------------------
// Extraction

const refusedCandidate = z.strictObject({
  reason: z.string(),
  subject: z.string().optional(),
  property: z.string().optional(),
  value: z.string().optional(),
})
const extractRunFields = {
  id,
  sessionId: z.string().nullable(),
  trigger: z.enum(['turn', 'manual', 'flush']),
  decision: z.enum(['extracted', 'skipped', 'failed', 'parked']),
  startSeq: count.nullable(),
  endSeq: count.nullable(),
  turns: z.array(count),
  messageCount: count,
  chunkCount: count,
  chars: count,
  textSha256: z.string().nullable(),
  model: z.string().nullable(),
  attempt: count,
  written: count,
  review: count,
  refused: z.array(refusedCandidate),
  factIds: z.array(id),
  proposalIds: z.array(id),
  note: z.string().nullable(),
  error: z.string().nullable(),
  startedAt: instant,
  finishedAt: instant,
  durationMs: count,
}
const parkedRange = {
  id,
  sessionId: z.string(),
  startSeq: count,
  endSeq: count,
  turns: z.array(count),
  textSha256: z.string(),
  attempts: count,
  lastError: z.string(),
  parkedAt: instant,
  resolvedAt: instant.nullable(),
}

export const queueAnswer = z.strictObject({
  autoCapture: z.boolean(),
  autoExtract: z.boolean(),
  /** Which model extraction uses, in words. */
  model: z.string(),
  delayMs: count,
  running: z.array(queueEntrySchema),
  parked: z.array(z.strictObject({ ...parkedRange, retriesOnItsOwn: z.boolean() })),
  recent: z.array(z.strictObject(extractRunFields)),
  lastRun: z
    .strictObject({
      ...extractRunFields,
      snapshot: z.strictObject({
        startSeq: count.nullable(),
        endSeq: count.nullable(),
        messageCount: count,
        chars: count,
        textSha256: z.string().nullable(),
      }),
    })
    .nullable(),
})
/** extract-run: one pass, with the text it sent (capped when stored). */
export const extractRunAnswer = z.strictObject({
  run: z.strictObject({ ...extractRunFields, textSent: z.string().nullable() }),
})

const candidate = z.strictObject({
  subject: z.string(),
  property: z.string(),
  value: z.string(),
  quote: z.string(),
  confidence: z.number(),
  scope: z.string().optional(),
  qualifiers: z.record(z.string(), z.string()).optional(),
  cues: z.array(z.string()).optional(),
  multi: z.boolean().optional(),
  validFrom: z.string().optional(),
  validTo: z.string().optional(),
})
export const extractAnswer = z.strictObject({
  runId: id,
  model: z.string(),
  candidates: z.array(candidate),
  factIds: z.array(id),
  proposalIds: z.array(id),
  refused: z.array(refusedCandidate),
  notes: z.array(z.string()),
  ...generation,
})
export const extractRetryAnswer = z.strictObject({
  outcome: z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('resolved'), factIds: z.array(id), proposalIds: z.array(id) }),
    z.strictObject({ kind: z.literal('failed'), error: z.string() }),
  ]),
  range: z.strictObject(parkedRange).nullable(),
  ...generation,
})
