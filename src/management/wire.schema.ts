/**
 * zod schemas for every route body under POST /api/fact-memory/<verb>. Objects are strict (unknown fields are
 * refused), strings are capped, ids are positive integers. Fenced verbs carry expectedGeneration and operationId.
 */
import { z } from 'zod'
import type { LabeledPair } from '../semantic/types.ts'
import { cuesField, dateField, nameField, qualifiersField, scopeTextField, textField } from '../text/fields.schema.ts'

const id = z.number().int('must be a whole number').positive('must be positive').max(Number.MAX_SAFE_INTEGER)

/** The precondition and idempotency key every row-editing verb carries. */
export const fence = {
  expectedGeneration: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  operationId: z
    .string()
    .min(8, 'at least 8 characters')
    .max(128, 'at most 128 characters')
    .regex(/^[A-Za-z0-9._:-]+$/u, 'letters, digits and . _ : - only'),
}

export const STATUS_VALUES = ['active', 'scheduled', 'conflict', 'superseded', 'retired', 'expired'] as const
export const EVIDENCE_VALUES = ['explicit_user', 'confirmed_user', 'observed', 'unverified'] as const

export const statusBody = z.strictObject({ force: z.boolean().optional(), summary: z.boolean().optional() })

export const factsBody = z.strictObject({
  cursor: z
    .string()
    .regex(/^\d{1,16}$/u, 'is not a cursor from this list')
    .optional(),
  limit: z.number().int().min(1).max(100).optional(),
  status: z.union([z.enum(['current', 'history', 'all']), z.array(z.enum(STATUS_VALUES)).min(1).max(6)]).optional(),
  evidence: z.array(z.enum(EVIDENCE_VALUES)).min(1).max(4).optional(),
  subject: nameField(200).optional(),
  text: nameField(500).optional(),
  /** Only facts first recorded in this conversation (the conversation drawer). */
  session: nameField(200).optional(),
  /** Only these facts (what a turn recalled, in the drawer). */
  ids: z.array(id).min(1).max(100).optional(),
  /** Only facts of this scope (a stored scope text, as the answer's `scopes` list gives it). */
  scope: scopeTextField.optional(),
})

export const factBody = z.strictObject({ id })

/** The parts of a claim an edit may change (fact-update, proposal-revise), each optional; a value never empty. */
const claimEdits = {
  subject: nameField(200).optional(),
  property: nameField(200).optional(),
  value: textField(4000)
    .refine((value) => value.trim() !== '', 'must not be empty')
    .optional(),
  qualifiers: qualifiersField.optional(),
}

export const factUpdateBody = z
  .strictObject({
    ...fence,
    id,
    ...claimEdits,
    scope: nameField(100).optional(),
    validFrom: dateField.optional(),
    validTo: dateField.optional(),
    /** The fact's cues as they should be (an empty list clears them). */
    cues: cuesField.optional(),
  })
  .refine(
    (body) =>
      ['subject', 'property', 'value', 'qualifiers', 'scope', 'validFrom', 'validTo', 'cues'].some(
        (key) => key in body,
      ),
    'change at least one of subject, property, value, qualifiers, scope, validFrom, validTo, cues',
  )

export const factExpireBody = z.strictObject({ ...fence, id })
/** fact-move: a current fact to another scope (a stored scope text; a project must already be known). */
export const factMoveBody = z.strictObject({ ...fence, id, scope: scopeTextField })
export const factRestoreBody = z.strictObject({ ...fence, editId: id })
/**
 * fact-pin: pin a fact (`pinned: true`) or unpin it (`pinned: false`); or undo an earlier fact-pin, named by its
 * operation id (`undoes`), which gives the row back exactly the pin it had before.
 */
export const factPinBody = z.union(
  [z.strictObject({ ...fence, id, pinned: z.boolean() }), z.strictObject({ ...fence, id, undoes: fence.operationId })],
  { error: 'pass {id, pinned} or {id, undoes}, with expectedGeneration and operationId' },
)
/** fact-forget: one fact by id, or a subject by entity key (optionally one of its properties), in every scope. */
export const factForgetBody = z.union(
  [
    z.strictObject({ ...fence, id }),
    z.strictObject({ ...fence, entityKey: nameField(200), property: nameField(200).optional() }),
  ],
  { error: 'pass {id} or {entityKey} (optionally with property), with expectedGeneration and operationId' },
)
/** fact-put-back: a past value (superseded, retired or expired) made current again. */
export const factPutBackBody = z.strictObject({ ...fence, id })

/** subject-rename: a subject to a new name (a merge when the name is another subject's); `dryRun` only says which. */
export const subjectRenameBody = z.strictObject({
  ...fence,
  entityKey: nameField(200),
  to: nameField(200),
  dryRun: z.boolean().optional(),
})
/** property-rename: one subject's property to a new name (a merge when the subject has that property). */
export const propertyRenameBody = z.strictObject({
  ...fence,
  entityKey: nameField(200),
  property: nameField(200),
  to: nameField(200),
})
/** alias-remove: stop reading a name as an alias. */
export const aliasRemoveBody = z.strictObject({ ...fence, id })
/** fact-add: the user's own new statement. A project scope must be one the store already holds; a label may be new. */
export const factAddBody = z.strictObject({
  ...fence,
  subject: nameField(200),
  property: nameField(200),
  value: textField(4000).refine((value) => value.trim() !== '', 'must not be empty'),
  multi: z.boolean().optional(),
  scope: scopeTextField.optional(),
})

export const entityBody = z.union(
  [z.strictObject({ subject: nameField(200) }), z.strictObject({ entityKey: nameField(200) })],
  { error: 'pass {subject} or {entityKey}' },
)

/** subject-find: a name as typed (a subject, its key, or an alias) to look up. */
export const subjectFindBody = z.strictObject({ name: nameField(200) })

export const emptyBody = z.strictObject({})

export const resolveBody = z.strictObject({ ...fence, groupId: id, keepFactId: id })

/** session-pause: pause (`paused: true`) or resume memory in one conversation. */
export const sessionPauseBody = z.strictObject({ sessionId: nameField(200), paused: z.boolean() })

export const sessionsBody = z.strictObject({
  sessionIds: z.array(nameField(200)).min(1).max(50).optional(),
  limit: z.number().int().min(1).max(200).optional(),
})

export const proposalsBody = z.strictObject({
  status: z.enum(['pending', 'applied', 'rejected', 'stale', 'all']).optional(),
  cursor: z
    .string()
    .regex(/^\d{1,16}$/u, 'is not a cursor from this list')
    .optional(),
  limit: z.number().int().min(1).max(100).optional(),
  /** An instant (the digest's last look): the answer also counts the listed cards queued after it. */
  since: dateField.optional(),
})

/** search: a question as the user typed it, answered as memory_search would. */
export const searchBody = z.strictObject({
  query: nameField(500),
  limit: z.number().int().min(1).max(10).optional(),
})

const proposalRef = { ...fence, id, revision: z.number().int().min(1) }
export const proposalApplyBody = z.strictObject(proposalRef)
export const proposalRejectBody = z.strictObject(proposalRef)
export const proposalPruneBody = z.strictObject({ ...proposalRef, row: z.number().int().min(0).max(10_000) })
export const proposalReviseBody = z
  .strictObject({
    ...proposalRef,
    row: z.number().int().min(0).max(10_000).optional(),
    ...claimEdits,
  })
  .refine(
    (body) => ['subject', 'property', 'value', 'qualifiers'].some((key) => key in body),
    'change at least one of subject, property, value, qualifiers',
  )

/** export: JSONL (the exchange format, the default) or a Markdown document to read; sensitive values only on request. */
export const exportBody = z
  .strictObject({
    backup: z.boolean().optional(),
    format: z.enum(['jsonl', 'markdown']).optional(),
    includeSensitive: z.boolean().optional(),
  })
  .refine(
    (body) => body.includeSensitive === undefined || body.format === 'markdown',
    'includeSensitive applies to format "markdown" only: a JSONL export always carries every value, for the way back',
  )

/** A path inside the data directory, or inline JSONL content (an upload), for import. */
const importSource = {
  path: nameField(1000).optional(),
  content: z
    .string()
    .max(17 * 1024 * 1024, 'at most 16 MB: imports take files up to 16 MB')
    .optional(),
}
export const importBody = z
  .union(
    [
      z.strictObject({ ...importSource, mode: z.literal('preview') }),
      z.strictObject({ ...importSource, ...fence, mode: z.literal('commit'), token: nameField(200) }),
    ],
    {
      error:
        'pass mode "preview" with path or content, or mode "commit" with the preview token, expectedGeneration and operationId',
    },
  )
  .refine((body) => (body.path === undefined) !== (body.content === undefined), 'pass exactly one of path or content')

export const wipeBody = z.strictObject({ ...fence, confirmToken: nameField(200).optional() })
export const rebuildBody = z.strictObject({ ...fence })
/** team-memory: share the project of a folder (absolute, inside its repository) through that repository, or stop. */
export const teamMemoryBody = z.strictObject({
  folder: z
    .string()
    .min(1)
    .max(4096)
    .refine((path) => path.startsWith('/') || /^[A-Za-z]:[\\/]/u.test(path), 'must be an absolute path'),
  shared: z.boolean(),
})

export const keyBody = z.strictObject({
  ref: z.enum(['llm', 'embedding', 'rerank', 'sync']),
  value: textField(8192).refine((v) => v.trim() !== '', 'must not be empty'),
})

/** The health check: `force` runs it now; `summary` (or nothing) reads the ledger's latest `limit` runs. */
export const auditBody = z
  .strictObject({
    force: z.boolean().optional(),
    summary: z.boolean().optional(),
    limit: z.number().int().min(1).max(100).optional(),
  })
  .refine((body) => !(body.force === true && body.summary === true), 'pass force or summary, not both')

/** consolidate: `{force: true}` runs one sweep now, `{summary: true}` reads the ledger (its latest `limit` sweeps). */
export const consolidateBody = z.union(
  [
    z.strictObject({ force: z.literal(true) }),
    z.strictObject({ summary: z.literal(true), limit: z.number().int().min(1).max(500).optional() }),
  ],
  { error: 'pass {"force": true} to run one sweep now, or {"summary": true} to read the ledger of sweeps' },
)

/** Most labeled pairs one calibrate call may supply. */
export const CALIBRATION_PAIRS_MAX = 400
/** Longest query or document of a supplied labeled pair. */
export const CALIBRATION_TEXT_MAX = 2000

const pairText = textField(CALIBRATION_TEXT_MAX).refine((value) => value.trim() !== '', 'must not be empty')

/** calibrate: `pairs` supplies the labeled pairs; without it they are derived from the library. */
export const calibrateBody = z.strictObject({
  pairs: z
    .array(z.strictObject({ query: pairText, document: pairText, relevant: z.boolean() }))
    .min(1, 'pass at least one pair, or leave pairs out to derive them from the library')
    .max(CALIBRATION_PAIRS_MAX, `at most ${CALIBRATION_PAIRS_MAX} pairs`)
    .optional(),
}) satisfies z.ZodType<{ readonly pairs?: readonly LabeledPair[] | undefined }>

/** Longest text a one-off extraction reads. */
export const EXTRACT_TEXT_MAX = 100_000

export const extractBody = z.strictObject({
  text: textField(EXTRACT_TEXT_MAX).refine((value) => value.trim() !== '', 'must not be empty'),
  /** Answer what would be written, and write nothing. */
  dryRun: z.boolean().optional(),
})
export const extractRunBody = z.strictObject({ id })
/** extract-retry: the parked range to read again. */
export const extractRetryBody = z.strictObject({ id })
export const queueBody = z.strictObject({ limit: z.number().int().min(1).max(50).optional() })

export type FactsBody = z.infer<typeof factsBody>
export type FactUpdateBody = z.infer<typeof factUpdateBody>
export type ProposalsBody = z.infer<typeof proposalsBody>
export type ProposalReviseBody = z.infer<typeof proposalReviseBody>
export type ImportBody = z.infer<typeof importBody>
export type FenceFields = { readonly expectedGeneration: number; readonly operationId: string }

/** The graph: the nebula (default) or the one-hop tree around `center` (a subject or entity key, tree only). */
export const graphBody = z
  .strictObject({
    view: z.enum(['nebula', 'tree']).optional(),
    scope: z.enum(['current', 'all']).optional(),
    center: nameField(200).optional(),
  })
  .refine(
    (body) => body.view !== 'tree' || body.center !== undefined,
    'pass center (a subject or entity key) with view "tree"',
  )
  .refine((body) => body.view === 'tree' || body.center === undefined, 'center applies to view "tree" only')

/** index-vectors: one vector sweep now; `force` is what the settings card sends and changes nothing. */
export const indexVectorsBody = z.strictObject({ force: z.literal(true).optional() })
