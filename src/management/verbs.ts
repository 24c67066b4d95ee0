/** The verb table of POST /api/fact-memory/<verb>: every verb of the specification, and nothing else. */
import { auditVerb } from './audit.ts'
import { calibrateVerb } from './calibrate.ts'
import { consolidateVerb } from './consolidate.ts'
import { entityVerb, conflictsVerb, factVerb, factsVerb, subjectFindVerb } from './library.ts'
import { factExpireVerb, factRestoreVerb, factUpdateVerb, resolveVerb } from './edits.ts'
import { factForgetVerb } from './forget.ts'
import { factPutBackVerb } from './put-back.ts'
import { factAddVerb } from './fact-add.ts'
import { factMoveVerb } from './scope-move.ts'
import { factPinVerb } from './pin.ts'
import { aliasRemoveVerb, propertyRenameVerb, subjectRenameVerb } from './renames.ts'
import { exportVerb } from './export.ts'
import { importVerb } from './import.ts'
import { extractRetryVerb, extractRunVerb, extractVerb, queueVerb } from './extraction.ts'
import { graphVerb } from './graph.ts'
import { indexVectorsVerb } from './vectors.ts'
import { keyVerb, rebuildVerb, wipeVerb } from './maintenance.ts'
import {
  proposalApplyVerb,
  proposalPruneVerb,
  proposalRejectVerb,
  proposalReviseVerb,
  proposalsVerb,
} from './proposals.ts'
import { sessionPauseVerb } from './session-pause.ts'
import { searchVerb } from './search.ts'
import { syncNowVerb } from './sync.ts'
import { teamMemoryVerb } from './team-memory.ts'
import { activityVerb, reviewSeenVerb, sessionsVerb, statusVerb } from './status.ts'
import type { DispatchedVerb, VerbDefinition } from './verb.ts'
import type { VerbName } from './verb-contract.ts'

/** The verbs the specification names, in its order. */
export const SPEC_VERBS = [
  'status',
  'export',
  'rebuild',
  'import',
  'conflicts',
  'resolve',
  'proposals',
  'proposal-apply',
  'proposal-reject',
  'proposal-revise',
  'proposal-prune',
  'audit',
  'review-seen',
  'graph',
  'index-vectors',
  'calibrate',
  'consolidate',
  'extract',
  'key',
  'activity',
  'sessions',
  'queue',
  'facts',
  'fact',
  'fact-update',
  'fact-expire',
  'fact-restore',
  'extract-run',
  'entity',
  'wipe',
  'fact-move',
  'search',
  'session-pause',
  'extract-retry',
  'fact-pin',
  'fact-forget',
  'fact-put-back',
  'subject-rename',
  'property-rename',
  'alias-remove',
  'fact-add',
  'subject-find',
  'sync-now',
  'team-memory',
] as const

/** Every verb of the contract: name → handler (a verb missing here, or one the contract lacks, fails the type check). */
export const VERBS: { readonly [V in VerbName]: VerbDefinition<V> } = {
  status: statusVerb,
  activity: activityVerb,
  'review-seen': reviewSeenVerb,
  sessions: sessionsVerb,
  'session-pause': sessionPauseVerb,
  facts: factsVerb,
  fact: factVerb,
  entity: entityVerb,
  'subject-find': subjectFindVerb,
  conflicts: conflictsVerb,
  search: searchVerb,
  'fact-update': factUpdateVerb,
  'fact-expire': factExpireVerb,
  'fact-restore': factRestoreVerb,
  'fact-move': factMoveVerb,
  'fact-pin': factPinVerb,
  'fact-forget': factForgetVerb,
  'fact-put-back': factPutBackVerb,
  'subject-rename': subjectRenameVerb,
  'property-rename': propertyRenameVerb,
  'alias-remove': aliasRemoveVerb,
  'fact-add': factAddVerb,
  resolve: resolveVerb,
  rebuild: rebuildVerb,
  wipe: wipeVerb,
  key: keyVerb,
  export: exportVerb,
  import: importVerb,
  proposals: proposalsVerb,
  'proposal-apply': proposalApplyVerb,
  'proposal-reject': proposalRejectVerb,
  'proposal-revise': proposalReviseVerb,
  'proposal-prune': proposalPruneVerb,
  audit: auditVerb,
  graph: graphVerb,
  extract: extractVerb,
  'extract-run': extractRunVerb,
  'extract-retry': extractRetryVerb,
  queue: queueVerb,
  consolidate: consolidateVerb,
  'index-vectors': indexVectorsVerb,
  calibrate: calibrateVerb,
  'sync-now': syncNowVerb,
  'team-memory': teamMemoryVerb,
}

/**
 * The verb a name from outside (a URL, a test) names, as the HTTP shell dispatches it.
 * @param name - the verb's name.
 * @returns its handler, or undefined when no verb has that name.
 */
export function verbNamed(name: string): DispatchedVerb | undefined {
  return Object.hasOwn(VERBS, name) ? VERBS[name as VerbName] : undefined
}
