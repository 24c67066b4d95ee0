/**
 * Call management verbs in process, through their zod schemas, on a real store: the same table and context the
 * HTTP shell uses, without the HTTP. For handler logic; the HTTP surface has its own tests against a real host. Every
 * answer is parsed with its verb's answer schema from the verb contract, so a spec that reaches a drifted answer fails.
 */
import { readFileSync } from 'node:fs'
import type { Config } from '../../src/config.ts'
import type { DriverName } from '../../src/store/connection.ts'
import type { StatementObserver } from '../../src/store/database.ts'
import { createConfirmationBook } from '../../src/routes/confirmations.ts'
import type { ExtractionView, SemanticView, VectorsView, VerbContext, VerbOutcome } from '../../src/management/verb.ts'
import type { CredentialsView } from '../../src/host/credentials.ts'
import { verbNamed } from '../../src/management/verbs.ts'
import { VERB_CONTRACTS, type VerbName } from '../../src/management/verb-contract.ts'
import { AuditService } from '../../src/review/audit-service.ts'
import { FakeClock } from './fake-clock.ts'
import { writeFact } from './store.ts'
import { openMemory, type MemoryHandle } from './store.ts'

/** A store plus a way to call verbs on it. */
export interface VerbHarness {
  readonly h: MemoryHandle
  readonly clock: FakeClock
  /** Credentials written through the key verb (an in-memory stand-in for the host store). */
  readonly credentials: Map<string, string>
  /** Call a verb: the body is validated by the verb's schema first, as the HTTP shell does. */
  call(name: string, body: unknown): Promise<VerbOutcome>
  /** Call and expect success; returns the data. */
  ok(name: string, body: unknown): Promise<Record<string, unknown>>
  /** The store generation now. */
  generation(): number
  /** A fresh operation id. */
  op(): string
  /** A fenced edit's body: the generation now and a fresh operation id, then `extra`. */
  fence(extra?: Record<string, unknown>): Record<string, unknown>
  dispose(): void
}

/** Services a test hands the verbs besides the store (each absent unless given). */
export interface HarnessServices {
  /** The semantic channels (a fake reranker, say). */
  readonly semantic?: SemanticView
  /** The vector sweep, built over the harness's store and clock. */
  readonly vectors?: (h: MemoryHandle, clock: FakeClock) => VectorsView
  /** Automatic capture as the extraction verbs see it (one-off extraction with a scripted model, say). */
  readonly extraction?: (h: MemoryHandle, clock: FakeClock) => ExtractionView
  /** Told every statement the harness's store sends. */
  readonly onStatement?: StatementObserver
  /** The fake clock's first instant; 2026-03-01T09:00:00.000Z by default. */
  readonly startAt?: string
  /** Called with the data directory before the store opens (a test that places an older store file there). */
  readonly beforeOpen?: (dataDir: string) => void
}

/**
 * Open a harness.
 * @param driver - the SQLite binding.
 * @param overrides - configuration overrides.
 * @param services - services the verbs see.
 * @returns the harness.
 */
export function verbHarness(
  driver: DriverName,
  overrides: Partial<Config> = {},
  services: HarnessServices = {},
): VerbHarness {
  const clock = new FakeClock(services.startAt ?? '2026-03-01T09:00:00.000Z')
  const h = openMemory(driver, clock, overrides, services.onStatement, services.beforeOpen)
  const credentials = new Map<string, string>()
  const vectors = services.vectors?.(h, clock)
  const extraction = services.extraction?.(h, clock)
  const credentialsView: CredentialsView = {
    set: async (ref, value) => {
      credentials.set(ref, value)
    },
    describe: async (ref) => ({ configured: credentials.has(ref), source: 'file', writable: true }),
  }
  const confirmations = createConfirmationBook(clock)
  let ops = 0
  // The health check as the runtime owns it, without its timer: the verb asks it for a run.
  const audit = new AuditService({
    clock,
    config: () => h.config,
    stores: () => {
      const opened = h.memory.storeSet()
      return 'stores' in opened ? opened.stores : undefined
    },
    warn: () => undefined,
  })
  const context = (): VerbContext => {
    const opened = h.memory.storeSet()
    if (!('stores' in opened)) throw new Error('store not open')
    return {
      stores: opened.stores,
      config: h.config,
      clock,
      now: () => clock.iso(),
      credentials: credentialsView,
      confirmations,
      memory: {
        status: () => h.memory.status(),
        advance: () => h.memory.advance(),
        search: (ask) => h.memory.search(ask, h.config),
      },
      audit,
      semantic: services.semantic,
      vectors,
      extraction,
    }
  }
  const generation = (): number => h.memory.status().generation
  const op = (): string => `op-${Date.now().toString(36)}-${(ops += 1)}`
  const call = async (name: string, body: unknown): Promise<VerbOutcome> => {
    const definition = verbNamed(name)
    if (definition === undefined) throw new Error(`no verb ${name}`)
    const parsed = definition.schema.safeParse(body)
    if (!parsed.success) return { ok: false, code: 'invalid_arguments', message: parsed.error.message }
    const outcome = await definition.run(parsed.data, context())
    if (outcome.ok) {
      const answer = VERB_CONTRACTS[name as VerbName].answer.safeParse(outcome.data)
      if (!answer.success)
        throw new Error(
          `${name} answered outside its contract: ${answer.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
        )
    }
    return outcome
  }
  return {
    h,
    clock,
    credentials,
    call,
    async ok(name, body) {
      const outcome = await call(name, body)
      if (!outcome.ok)
        throw new Error(`${name} refused: ${outcome.code} ${outcome.message} ${JSON.stringify(outcome.details ?? {})}`)
      return outcome.data as Record<string, unknown>
    },
    generation,
    op,
    fence: (extra = {}) => ({ expectedGeneration: generation(), operationId: op(), ...extra }),
    dispose: () => h.dispose(),
  }
}

/**
 * Import a file through the verbs as the page does: a preview, then the commit with its token.
 * @returns the commit's answer.
 */
export async function importContent(v: VerbHarness, content: string): Promise<Record<string, unknown>> {
  const preview = await v.ok('import', { mode: 'preview', content })
  return v.ok('import', { mode: 'commit', content, token: preview['token'], ...v.fence() })
}

/**
 * The export file of a store that stated one fact and forgot it: it carries that claim's tombstones and no fact.
 * @param driver - the SQLite binding.
 * @param fact - subject, property and value.
 * @returns the file's content.
 */
export async function exportOfForgotten(
  driver: DriverName,
  fact: { readonly subject: string; readonly property: string; readonly value: string },
): Promise<string> {
  const other = verbHarness(driver)
  try {
    const gone = writeFact(other.h.memory, other.h.config, fact)
    await other.ok('fact-forget', other.fence({ id: gone.id }))
    return readFileSync(String((await other.ok('export', { backup: false }))['path']), 'utf8')
  } finally {
    other.dispose()
  }
}
