/**
 * The contract of POST /api/fact-memory/<verb>, shared by the server and the page: every verb's name mapped to the
 * zod schema of its body and the zod schema of what it answers on success, and the types inferred from both. The
 * handlers are typed against it (src/management/verb.ts), the router holds exactly its verbs (verbs.ts), and the
 * page's callVerb is generic over its names (client/api.ts imports the types only, so no zod reaches the bundle).
 * Pure: imports schema files only.
 */
import type { z } from 'zod'
import type { DeepReadonly } from '../wire.schema.ts'
import * as answer from './answers.schema.ts'
import * as body from './wire.schema.ts'

/** One verb's two schemas. */
interface VerbSchemas {
  readonly request: z.ZodType
  readonly answer: z.ZodType
}

/** Every verb: its body schema and its answer schema. */
export const VERB_CONTRACTS = {
  status: { request: body.statusBody, answer: answer.statusAnswer },
  activity: { request: body.emptyBody, answer: answer.activityAnswer },
  'review-seen': { request: body.emptyBody, answer: answer.reviewSeenAnswer },
  sessions: { request: body.sessionsBody, answer: answer.sessionsAnswer },
  'session-pause': { request: body.sessionPauseBody, answer: answer.sessionPauseAnswer },
  facts: { request: body.factsBody, answer: answer.factsAnswer },
  fact: { request: body.factBody, answer: answer.factAnswer },
  entity: { request: body.entityBody, answer: answer.entityAnswer },
  'subject-find': { request: body.subjectFindBody, answer: answer.subjectFindAnswer },
  conflicts: { request: body.emptyBody, answer: answer.conflictsAnswer },
  search: { request: body.searchBody, answer: answer.searchAnswer },
  'fact-update': { request: body.factUpdateBody, answer: answer.factUpdateAnswer },
  'fact-expire': { request: body.factExpireBody, answer: answer.factExpireAnswer },
  'fact-restore': { request: body.factRestoreBody, answer: answer.factRestoreAnswer },
  'fact-move': { request: body.factMoveBody, answer: answer.factMoveAnswer },
  'fact-pin': { request: body.factPinBody, answer: answer.factPinAnswer },
  'fact-forget': { request: body.factForgetBody, answer: answer.factForgetAnswer },
  'fact-put-back': { request: body.factPutBackBody, answer: answer.factPutBackAnswer },
  'subject-rename': { request: body.subjectRenameBody, answer: answer.subjectRenameAnswer },
  'property-rename': { request: body.propertyRenameBody, answer: answer.propertyRenameAnswer },
  'alias-remove': { request: body.aliasRemoveBody, answer: answer.aliasRemoveAnswer },
  'fact-add': { request: body.factAddBody, answer: answer.factAddAnswer },
  resolve: { request: body.resolveBody, answer: answer.resolveAnswer },
  rebuild: { request: body.rebuildBody, answer: answer.rebuildAnswer },
  wipe: { request: body.wipeBody, answer: answer.wipeAnswer },
  key: { request: body.keyBody, answer: answer.keyAnswer },
  export: { request: body.exportBody, answer: answer.exportAnswer },
  import: { request: body.importBody, answer: answer.importAnswer },
  proposals: { request: body.proposalsBody, answer: answer.proposalsAnswer },
  'proposal-apply': { request: body.proposalApplyBody, answer: answer.proposalApplyAnswer },
  'proposal-reject': { request: body.proposalRejectBody, answer: answer.proposalRejectAnswer },
  'proposal-revise': { request: body.proposalReviseBody, answer: answer.proposalReviseAnswer },
  'proposal-prune': { request: body.proposalPruneBody, answer: answer.proposalPruneAnswer },
  audit: { request: body.auditBody, answer: answer.auditAnswer },
  graph: { request: body.graphBody, answer: answer.graphAnswer },
  extract: { request: body.extractBody, answer: answer.extractAnswer },
  'extract-run': { request: body.extractRunBody, answer: answer.extractRunAnswer },
  'extract-retry': { request: body.extractRetryBody, answer: answer.extractRetryAnswer },
  queue: { request: body.queueBody, answer: answer.queueAnswer },
  consolidate: { request: body.consolidateBody, answer: answer.consolidateAnswer },
  'index-vectors': { request: body.indexVectorsBody, answer: answer.indexVectorsAnswer },
  calibrate: { request: body.calibrateBody, answer: answer.calibrateAnswer },
  'sync-now': { request: body.emptyBody, answer: answer.syncNowAnswer },
  'team-memory': { request: body.teamMemoryBody, answer: answer.teamMemoryAnswer },
} as const satisfies Readonly<Record<string, VerbSchemas>>

/** The contract's table type. */
export type VerbContracts = typeof VERB_CONTRACTS
/** A verb's name. */
export type VerbName = keyof VerbContracts
/** What a verb accepts: the input type of its body schema (what the page sends). */
export type VerbRequest<V extends VerbName> = DeepReadonly<z.input<VerbContracts[V]['request']>>
/** A verb's body once parsed: what its handler receives. */
export type VerbBody<V extends VerbName> = z.output<VerbContracts[V]['request']>
/** What a verb answers on success (the fields beside `ok: true`), read-only all the way down. */
export type VerbAnswer<V extends VerbName> = DeepReadonly<z.output<VerbContracts[V]['answer']>>

/** A schema's answer type, read-only all the way down. */
type AnswerOf<S extends z.ZodType> = DeepReadonly<z.output<S>>

/**
 * What a verb answers to this body: the verbs whose body picks a mode answer that mode's shape (status's summary,
 * import's preview or commit, the ledger or a run of audit and consolidate, a rename's dry run); the rest answer
 * their one shape.
 */
export type VerbAnswerTo<V extends VerbName, B> = V extends 'status'
  ? B extends { readonly summary: true }
    ? AnswerOf<typeof answer.statusSummaryAnswer>
    : AnswerOf<typeof answer.statusFullAnswer>
  : V extends 'import'
    ? B extends { readonly mode: 'preview' }
      ? AnswerOf<typeof answer.importPreviewAnswer>
      : AnswerOf<typeof answer.importCommitAnswer>
    : V extends 'audit'
      ? B extends { readonly force: true }
        ? AnswerOf<typeof answer.auditRanAnswer>
        : AnswerOf<typeof answer.auditLedgerAnswer>
      : V extends 'consolidate'
        ? B extends { readonly force: true }
          ? AnswerOf<typeof answer.consolidateBegunAnswer>
          : AnswerOf<typeof answer.consolidateLedgerAnswer>
        : V extends 'subject-rename'
          ? B extends { readonly dryRun: true }
            ? AnswerOf<typeof answer.renamePreviewAnswer>
            : AnswerOf<typeof answer.propertyRenameAnswer>
          : VerbAnswer<V>
