/**
 * The contract between the HTTP shell and the management handlers: what a verb receives besides its body, how a
 * handler is typed against the verb contract (its body and answer schemas, verb-contract.ts), and the fence every
 * row-editing verb runs inside (a generation precondition plus an idempotent operation id).
 */
import type { Clock } from '../clock.ts'
import type { ResolvedConfig } from '../config.ts'
import type { ErrorCode } from '../errors.ts'
import type { ParkedRetry } from '../extract/capture.ts'
import type { ManualExtraction } from '../extract/manual.ts'
import type { QueueEntry } from '../extract/queue.ts'
import type { CredentialsView } from '../host/credentials.ts'
import type { MemoryStatus, SearchAsk } from '../fact-memory.ts'
import type { SearchValue } from '../retrieval/render.ts'
import type { AuditView } from '../review/audit-service.ts'
import type { AskedOutcome, BegunSweep, SweepProgress } from '../review/sweep-service.ts'
import type { AskedVectorSweep } from '../semantic/vector-sweep-service.ts'
import type { VectorSweepResult } from '../semantic/vector-sweep-run.ts'
import type { HeldVectors } from '../semantic/vector-warmup.ts'
import type { RerankPort } from '../semantic/types.ts'
import type { BreakerReport } from '../semantic/endpoint-breaker.ts'
import type { OpenStores } from '../store/store-set.ts'
import type { SyncStatus } from '../sync/sync-status.schema.ts'
import type { SyncNowOutcome } from '../sync/sync-supervisor.ts'
import type { TeamSetOutcome } from '../team/team-memory.ts'
import type { TeamProjectStatus } from '../team/team-status.schema.ts'
import { canonicalJson } from '../text/canonical-json.ts'
import { sha256 } from '../text/normalize.ts'
import type { z } from 'zod'
import { VERB_CONTRACTS, type VerbAnswer, type VerbBody, type VerbContracts, type VerbName } from './verb-contract.ts'
import type { receiptSchema } from './answers.schema.ts'
import type { FenceFields } from './wire.schema.ts'
import type { WireOf } from '../wire.schema.ts'

/** A refusal with a closed code; `details` carries what the page needs besides the sentence (stale's generation). */
export interface Refusal {
  readonly ok: false
  readonly code: ErrorCode
  readonly message: string
  readonly details?: Readonly<Record<string, unknown>>
}

/** A verb's answer: its data on success (by default any object; a handler's is its contract's answer), or a refusal. */
export type VerbOutcome<T = Readonly<Record<string, unknown>>> = { readonly ok: true; readonly data: T } | Refusal

/** What runFenced adds to a row edit's answer. */
export type Receipt = WireOf<typeof receiptSchema>

/** A fenced verb's answer before runFenced adds the receipt: what its fenced work returns. */
export type Unfenced<V extends VerbName> =
  VerbAnswer<V> extends infer A ? (A extends unknown ? Omit<A, keyof Receipt> : never) : never

/** Short-lived confirmation tokens (the wipe's second click). */
export interface ConfirmationBook {
  /** Issue a token for a purpose, bound to a store generation. */
  issue(purpose: string, generation: number): { token: string; expiresAt: string }
  /** Consume a token: true when it was issued for this purpose and generation and has not expired. */
  consume(purpose: string, token: string, generation: number): boolean
}

/** The store service, as status and search need it (it also answers when the store is down). */
export interface MemoryView {
  status(): MemoryStatus
  advance(): { promoted: number; expired: number } | undefined
  /** memory_search's answer for one ask, under the live configuration. */
  search(ask: SearchAsk): Promise<SearchValue>
}

/** Automatic capture, as the extraction verbs see it (absent where no capture service runs). */
export interface ExtractionView {
  /** Sessions with work queued, waiting or running. */
  entries(): readonly QueueEntry[]
  /** The turns of a session that queued or running extraction has yet to settle. */
  pendingTurns(sessionId: string): readonly number[]
  /** One-off extraction of a text outside any conversation. */
  extractText(text: string, options: { readonly dryRun: boolean }): Promise<ManualExtraction>
  /** Start a session's extraction waiting out its merge window now (the user is pausing memory there). */
  settleBeforePause(sessionId: string): void
  /** Read a parked range again now. */
  retryParked(id: number): Promise<ParkedRetry>
}

/** The near-duplicate review, as the consolidate verb uses it (absent where no review service runs). */
export interface ReviewView {
  /** Start one sweep now with triple the budget, answering at once: the sweep started, the one under way, or why none. */
  beginNow(): BegunSweep
  /** The sweep under way, or undefined. */
  progress(): SweepProgress | undefined
  /** How the last sweep a person asked for ended, or undefined. */
  lastAsked(): AskedOutcome | undefined
  /** Epoch ms of the last sweep since the plugin loaded, or undefined. */
  lastSweepAt(): number | undefined
}

/** The vector channel's services, as the index-vectors and status verbs see them. */
export interface VectorsView {
  /** Sweep now, whatever the interval. */
  sweepNow(): Promise<AskedVectorSweep>
  /** The last sweep since the plugin loaded. */
  last(): VectorSweepResult | undefined
  /** What this process's vector index holds for the model in force, or undefined when nothing is loaded. */
  held?(): HeldVectors | undefined
}

/** The semantic channels, as the calibrate verb uses them (absent where no semantic service runs). */
export interface SemanticView {
  /** The reranker in force, or why there is none (a sentence naming what is missing). */
  rerank(): RerankPort | { readonly unavailable: string }
  /** The query-time breaker of a channel's endpoint, for the endpoint of this fingerprint (status). */
  breaker?(channel: 'embedding' | 'rerank', fingerprint: string): BreakerReport
}

/** Sync between machines, as the status and sync-now verbs see it. */
export interface SyncView {
  /** The status; null while no store is open. */
  status(): SyncStatus | null
  /** Run a round now (or right after the one in flight). */
  syncNow(): Promise<SyncNowOutcome>
}

/** Team memory, as the status and team-memory verbs see it. */
export interface TeamView {
  /** Per shared project, its folder and last round. */
  status(): TeamProjectStatus[]
  /** Turn team memory on or off for the project a folder belongs to. */
  setShared(folder: string, shared: boolean): Promise<TeamSetOutcome>
}

/** What a handler receives besides its parsed body. */
export interface VerbContext {
  /** The open stores; only storeless verbs can see it undefined. */
  readonly stores: OpenStores
  readonly memory: MemoryView
  readonly config: ResolvedConfig
  readonly clock: Clock
  readonly now: () => string
  readonly credentials: CredentialsView | undefined
  readonly confirmations: ConfirmationBook
  readonly extraction?: ExtractionView | undefined
  /** The health check (absent where no runtime owns one). */
  readonly audit?: AuditView | undefined
  readonly review?: ReviewView | undefined
  /** The vector sweep; absent in hosts that do not run it. */
  readonly vectors?: VectorsView | undefined
  /** The reranker, for calibration; absent where no semantic service runs. */
  readonly semantic?: SemanticView | undefined
  /** Sync between machines; absent where no runtime owns it. */
  readonly sync?: SyncView | undefined
  /** Team memory in project repositories; absent where no runtime owns it. */
  readonly team?: TeamView | undefined
}

/** The handler of one verb: its body parsed by the contract's schema, its answer the contract's. */
export interface VerbDefinition<V extends VerbName = VerbName> {
  readonly name: V
  readonly schema: VerbContracts[V]['request']
  /** Largest accepted body in bytes. */
  readonly bodyLimit?: number
  /** Whether the verb works without an open store (it then gets no OpenStores). */
  readonly storeless?: boolean
  run(input: VerbBody<V>, context: VerbContext): VerbOutcome<VerbAnswer<V>> | Promise<VerbOutcome<VerbAnswer<V>>>
}

/**
 * A verb as the HTTP shell dispatches it by the name in the URL: its body is whatever its own schema parsed, its
 * answer any object. Every VerbDefinition is one.
 */
export interface DispatchedVerb {
  readonly name: string
  readonly schema: z.ZodType
  readonly bodyLimit?: number
  readonly storeless?: boolean
  run(input: unknown, context: VerbContext): VerbOutcome | Promise<VerbOutcome>
}

/**
 * Define a verb's handler: its body schema comes from the verb contract, and what it answers must be the contract's
 * answer (a handler answering another shape fails the type check).
 * @param name - the verb.
 * @param definition - limits and handler.
 * @returns the definition, with its schema.
 */
export function verb<V extends VerbName>(
  name: V,
  definition: Omit<VerbDefinition<V>, 'name' | 'schema'>,
): VerbDefinition<V> {
  return { ...definition, name, schema: VERB_CONTRACTS[name].request }
}

/** A successful answer. */
export function ok<T>(data: T): { readonly ok: true; readonly data: T } {
  return { ok: true, data }
}

/** A refusal with a closed code. */
export function refuse(code: ErrorCode, message: string, details?: Readonly<Record<string, unknown>>): Refusal {
  return details === undefined ? { ok: false, code, message } : { ok: false, code, message, details }
}

/**
 * Abandon the surrounding fenced transaction with a refusal: everything it wrote rolls back, no receipt is kept.
 * @param outcome - the refusal to answer.
 * @throws always.
 */
export function abandon(outcome: Refusal): never {
  throw new FencedRefusal(outcome)
}

/** Thrown inside a fenced transaction to roll it back with a refusal. */
class FencedRefusal extends Error {
  readonly outcome: Refusal
  constructor(outcome: Refusal) {
    super('fenced operation refused')
    this.outcome = outcome
  }
}

/**
 * Run a row-editing operation behind the fence:
 * - the same operation id with the same payload answers the first receipt with `replayed: true`, bumping nothing;
 * - the same id with another payload is refused as a collision;
 * - a generation other than the store's is refused with `stale: true` and the fresh generation;
 * - otherwise `work` runs in one transaction with the receipt; a refusal rolls back and leaves no receipt.
 * @param stores - the open stores.
 * @param name - the verb.
 * @param body - the parsed body, fence fields included.
 * @param now - ISO instant.
 * @param work - synchronous store work.
 * @returns the receipt (with the generation after the write), or the refusal.
 */
export function runFenced<V extends VerbName>(
  stores: OpenStores,
  name: V,
  body: FenceFields,
  now: string,
  work: () => VerbOutcome<Unfenced<V>>,
): VerbOutcome<Unfenced<V> & Receipt> {
  const gate = passFence<Unfenced<V>>(stores, name, body)
  if ('answer' in gate) return gate.answer
  try {
    return stores.db.transaction(() => receiptOf(stores, name, gate, work(), now))
  } catch (error) {
    if (error instanceof FencedRefusal) return error.outcome
    throw error
  }
}

/**
 * runFenced for long work (a large import's commit): the same fence, but the work runs as one transaction in slices
 * that hand the event loop back (Database.transactionInSlices); other routes read meanwhile and their writes are
 * refused as busy. All of it commits with the receipt, or none of it.
 * @param stores - the open stores.
 * @param name - the verb.
 * @param body - the parsed body, fence fields included.
 * @param now - ISO instant.
 * @param work - the work; every store call inside `slice`.
 * @returns the receipt (with the generation after the write), or the refusal.
 */
export async function runFencedInSlices<V extends VerbName>(
  stores: OpenStores,
  name: V,
  body: FenceFields,
  now: string,
  work: (slice: <R>(step: () => R) => R) => Promise<VerbOutcome<Unfenced<V>>>,
): Promise<VerbOutcome<Unfenced<V> & Receipt>> {
  const gate = passFence<Unfenced<V>>(stores, name, body)
  if ('answer' in gate) return gate.answer
  try {
    return await stores.db.transactionInSlices(async (slice) => {
      const outcome = await work(slice)
      return slice(() => receiptOf(stores, name, gate, outcome, now))
    })
  } catch (error) {
    if (error instanceof FencedRefusal) return error.outcome
    throw error
  }
}

/** A request that passed the fence: its operation id and payload hash, for the receipt. */
interface FencePass {
  readonly operationId: string
  readonly payloadSha256: string
}

/** The fence's checks before any work: a replay answers its first receipt, a collision or a stale page is refused. */
function passFence<T>(
  stores: OpenStores,
  name: VerbName,
  body: FenceFields,
): FencePass | { readonly answer: VerbOutcome<T & Receipt> } {
  const { operationId, ...payload } = body as FenceFields & Record<string, unknown>
  const payloadSha256 = sha256(canonicalJson({ verb: name, payload }))
  const prior = stores.operations.find(operationId)
  if (prior !== undefined) {
    // The receipt is this verb's earlier answer (same name, same payload), so it has this answer's shape.
    if (prior.payloadSha256 === payloadSha256)
      return { answer: ok({ ...prior.receipt, replayed: true } as T & Receipt) }
    return {
      answer: refuse(
        'operation_collision',
        `operation ${operationId} was already used for a different request; send a new operation id`,
      ),
    }
  }
  const generation = stores.db.generation()
  if (generation !== body.expectedGeneration) {
    return {
      answer: refuse(
        'stale',
        `the store changed since this page read it (generation ${generation}, page had ${body.expectedGeneration}); refresh and try again`,
        { stale: true, generation },
      ),
    }
  }
  return { operationId, payloadSha256 }
}

/** Inside the fenced transaction: a refusal rolls it back; success records the receipt. */
function receiptOf<T extends object>(
  stores: OpenStores,
  name: VerbName,
  pass: FencePass,
  outcome: VerbOutcome<T>,
  now: string,
): VerbOutcome<T & Receipt> {
  if (!outcome.ok) throw new FencedRefusal(outcome)
  // The receipt row below is a change, so this transaction bumps the generation exactly once on commit.
  const receipt: T & Receipt = {
    ...outcome.data,
    generation: stores.db.generation() + 1,
    operationId: pass.operationId,
    replayed: false,
  }
  stores.operations.record(
    { operationId: pass.operationId, verb: name, payloadSha256: pass.payloadSha256, receipt },
    now,
  )
  return ok(receipt)
}
