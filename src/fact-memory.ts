/**
 * FactMemory: the application service behind the tools, the directory and the maintenance timer. It owns the open
 * store (or the reason it could not open), prepares writes, runs searches under the deadline, and caches the
 * directory per store generation. It knows nothing of the host.
 */
import { isoNow, type Clock } from './clock.ts'
import type { ResolvedConfig } from './config.ts'
import { CHARS_PER_TOKEN, renderDirectoryShown, type RenderedDirectory } from './directory.ts'
import { FactMemoryError, toPublicError, type ErrorCode } from './errors.ts'
import { prepareWrite } from './fact-input.ts'
import { MESSAGE_CHARS, recallFor } from './recall/recall-run.ts'
import { FactWordsCache } from './recall/relevance.ts'
import { POOL_SIZE, retrieveFacts, type SearchOutcome, type SearchRequest } from './retrieval/retrieve.ts'
import { otherMachines } from './sync/side-origins.ts'
import { isTeamDevice } from './team/team-records.ts'
import { searchFacts } from './retrieval/search.ts'
import type { OtherProjects } from './retrieval/project-rank.ts'
import type { SemanticLegs } from './retrieval/semantic-port.ts'
import { buildSearchValue, searchFailure, type SearchValue } from './retrieval/render.ts'
import type { BetterSqliteLoader, DriverChoice, DriverName } from './store/connection.ts'
import { Database, type StatementObserver } from './store/database.ts'
import type { FactStore, StoreCounts, SubjectForget, WriteResult } from './store/fact-store.ts'
import { rescanStoredPrivacy } from './review/privacy-rescan-run.ts'
import { COPY_MASKING, tendMigrationCopies } from './store-copies.ts'
import { rekeyFolderProjects, type RekeyReport } from './project-rekey/rekey-run.ts'
import type { ProjectLocator } from './project/project-locator.ts'
import type { UntoldPause } from './store/pause-store.ts'
import { createStoreSet, type OpenStores, type StoreSet } from './store/store-set.ts'
import { canonicalEntity, canonicalPredicate } from './text/normalize.ts'
import { dateArgumentInstant } from './text/dates.ts'
import type { Fact, FactInput, ProjectFactCount, ProjectRef } from './types.ts'

/** Directories kept at once (one per project with a live session, for the store's current generation). */
const DIRECTORY_CACHE_SIZE = 16

/** How the service opens stores. */
export interface FactMemoryOptions {
  readonly clock: Clock
  readonly driver?: DriverChoice
  readonly loader?: BetterSqliteLoader
  readonly migrationsDir?: string
  /** Told every statement the store sends (see OpenOptions.onStatement); for tests and probes. */
  readonly onStatement?: StatementObserver
  /** The semantic legs a search may use for a configuration; absent: every search is lexical. */
  readonly semantic?: SemanticFactory
  /** Finds the repository a folder-keyed project's folder holds, when the store opens; the file system's by default. */
  readonly locator?: Pick<ProjectLocator, 'repositoryOfFolder'>
}

/** Builds the semantic legs of one search from the live configuration and the open stores. */
export type SemanticFactory = (config: ResolvedConfig, stores: OpenStores) => SemanticLegs

/** The answer to a write. */
export type WriteAnswer =
  | WriteResult
  | { readonly kind: 'refused'; readonly code: ErrorCode; readonly message: string }
  | { readonly kind: 'unavailable'; readonly code: ErrorCode; readonly message: string }

/** Which facts a forget could reach. Its tombstones hold in every scope whatever it reached. */
export type ForgetReach =
  /** By id: that one fact, in its own scope. */
  | { readonly kind: 'fact' }
  /** By subject, for a caller outside any session (the page): every scope. */
  | { readonly kind: 'every_scope' }
  /** By subject, for a session: the global and labelled facts and its project's (null: outside any project). */
  | { readonly kind: 'session'; readonly project: ProjectRef | null }

/**
 * The answer to a forget; `untouched` names the projects a subject forget left alone that hold facts of it, and
 * `sameClaimKept` the current rows in other scopes holding a claim a forget by id tombstoned.
 */
export type ForgetAnswer =
  | {
      readonly kind: 'forgotten'
      readonly facts: readonly Fact[]
      readonly reach: ForgetReach
      readonly untouched: readonly ProjectFactCount[]
      readonly sameClaimKept: readonly Fact[]
    }
  | {
      readonly kind: 'not_found'
      readonly message: string
      readonly reach: ForgetReach
      readonly untouched: readonly ProjectFactCount[]
    }
  | { readonly kind: 'unavailable'; readonly code: ErrorCode; readonly message: string }

/** One search as the tool asks for it. */
export interface SearchAsk {
  readonly query: string
  readonly limit: number
  /** `YYYY-MM-DD` or an ISO timestamp. */
  readonly asOf: string | undefined
  /** The calling session's project: its facts rank with the global ones. Absent or null: no project is home. */
  readonly project?: ProjectRef | null | undefined
  /**
   * Other projects' facts: `mark` (the default) ranks them after the session's and the global ones and names their
   * project in the answer; `exclude` leaves them out.
   */
  readonly otherProjects?: OtherProjects | undefined
}

/** One per-turn recall as the pre-step asks for it. */
export interface RecallAsk {
  /** The user's new text in this turn. */
  readonly text: string
  /** The session and turn it belongs to, for the ledger the turn's card reads. */
  readonly sessionId: string
  readonly turn: number | null
  /** The id the block's message will carry; absent, the ledger cannot tell later turns what it listed. */
  readonly messageId?: string
  /** Ids of this session's earlier recall messages still in the model's view: what they listed is not listed again. */
  readonly inView?: readonly string[]
  /** The session's project: its facts are recalled with the global ones, another project's never. */
  readonly project?: ProjectRef | null
}

/** What a per-turn recall added. */
export type RecallAnswer =
  /** A block to send with the user's message, and the facts it lists. */
  | { readonly kind: 'recalled'; readonly text: string; readonly factIds: readonly number[] }
  /** Nothing to add: switched off, nothing stored matched well enough, or the store could not answer. */
  | { readonly kind: 'none' }

/** What status displays need. */
export interface MemoryStatus {
  readonly available: boolean
  readonly driver: DriverName | null
  readonly fallbackReason: string | null
  readonly dataDir: string | null
  readonly storeId: string | null
  readonly generation: number
  readonly counts: StoreCounts | null
  readonly error: { readonly code: ErrorCode; readonly message: string } | null
}

type State =
  | { readonly kind: 'closed' }
  | {
      readonly kind: 'open'
      readonly dataDir: string
      readonly db: Database
      readonly store: FactStore
      readonly stores: StoreSet
    }
  | { readonly kind: 'failed'; readonly dataDir: string; readonly code: ErrorCode; readonly message: string }

/** The store-owning service. */
export class FactMemory {
  private readonly options: FactMemoryOptions
  private state: State = { kind: 'closed' }
  /** The directory per generation, settings and project: sessions in several projects each keep theirs. */
  private readonly directoryCache = new Map<string, RenderedDirectory>()
  private readonly changeListeners = new Set<() => void>()
  private unsubscribe: (() => void) | undefined
  /** The words of facts per-turn recall has judged, kept across messages (a project's facts are judged on each). */
  private readonly factWords = new FactWordsCache()
  /** What moving folder-keyed projects to repository keys did when the store last opened. */
  lastRekey: RekeyReport | null = null

  /** @param options - clock and driver choice. */
  constructor(options: FactMemoryOptions) {
    this.options = options
  }

  /**
   * Open the store in `dataDir` (closing any other), mask run-log rows kept from before the log was masked,
   * rescan the stored facts once per privacy rules version (see rescanStoredPrivacy) and then mask the migration
   * copies beside the store and keep the newest `backupKeep` of them (see tendMigrationCopies), then
   * advance scheduled and expired facts once. The copy a migration takes is masked before any migration runs. A
   * failure closes the store again and is kept as the reason every later call answers `unavailable`; it never throws.
   * @param dataDir - absolute data directory.
   * @param backupKeep - how many migration copies to keep (0 keeps all); undefined leaves them as they are.
   */
  open(dataDir: string, backupKeep?: number): void {
    this.close()
    try {
      const db = Database.open({
        dataDir,
        now: () => isoNow(this.options.clock),
        ...(this.options.driver === undefined ? {} : { driver: this.options.driver }),
        ...(this.options.loader === undefined ? {} : { loader: this.options.loader }),
        ...(this.options.migrationsDir === undefined ? {} : { migrationsDir: this.options.migrationsDir }),
        ...(this.options.onStatement === undefined ? {} : { onStatement: this.options.onStatement }),
        copyMasking: COPY_MASKING,
      })
      const stores = createStoreSet(db, dataDir)
      this.state = { kind: 'open', dataDir, db, store: stores.facts, stores }
      this.unsubscribe = db.onChange(() => {
        this.notifyChange()
      })
      stores.extract.maskOldRuns()
      const rescanned = rescanStoredPrivacy(stores, isoNow(this.options.clock)) !== undefined
      tendMigrationCopies(stores, rescanned, backupKeep)
      this.lastRekey = rekeyFolderProjects(stores, isoNow(this.options.clock), this.options.locator)
      this.advance()
    } catch (error) {
      this.close()
      const { code, message } = toPublicError(
        error instanceof FactMemoryError
          ? error
          : new FactMemoryError('storage_unavailable', `the fact store at ${dataDir} could not be opened`, {
              cause: error,
            }),
      )
      this.state = { kind: 'failed', dataDir, code, message }
    }
  }

  /** Close the store; idempotent. */
  close(): void {
    this.unsubscribe?.()
    this.unsubscribe = undefined
    if (this.state.kind === 'open') this.state.db.close()
    this.state = { kind: 'closed' }
    this.directoryCache.clear()
  }

  /**
   * The stores over the open database as code above the store takes them: the fact store through its front door,
   * and the database only as a handle that sends no SQL.
   * @returns the stores, or why there are none.
   */
  stores():
    | { readonly stores: OpenStores }
    | { readonly unavailable: { readonly code: ErrorCode; readonly message: string } } {
    return this.storeSet()
  }

  /**
   * The stores over the open database with the database itself, typed as the store knows them: for specs that read
   * rows. Code above the store (routes, verbs, benches) asks {@link stores}; tests/store-composition.spec.ts holds it
   * to that.
   * @returns the stores, or why there are none.
   */
  storeSet():
    | { readonly stores: StoreSet }
    | { readonly unavailable: { readonly code: ErrorCode; readonly message: string } } {
    if (this.state.kind === 'open') return { stores: this.state.stores }
    const { code, message } = this.unavailable()
    return { unavailable: { code, message } }
  }

  /**
   * Whether memory is paused in the session of this id (its own pause only). Reads the store's in-memory set, so it
   * costs no query; a closed store pauses nothing.
   * @param sessionId - the session id.
   * @returns true when paused.
   */
  pausedIn(sessionId: string): boolean {
    return this.state.kind === 'open' && this.state.stores.pauses.isPaused(sessionId)
  }

  /**
   * The pause or resume the model has yet to be told of in a session, marked as told: the next call answers
   * undefined until the user changes the state again (and while the store is closed).
   * @param sessionId - the session id.
   * @returns the change, or undefined.
   */
  takeUntoldPause(sessionId: string): UntoldPause | undefined {
    if (this.state.kind !== 'open') return undefined
    const pauses = this.state.stores.pauses
    const change = pauses.untoldChange(sessionId)
    if (change !== undefined) pauses.markTold(sessionId)
    return change
  }

  /**
   * Be told after each committed change to the memory in whichever store is open (writes, passes, imports, edits;
   * not bookkeeping). Listeners run synchronously after the commit; one that throws is ignored.
   * @param listener - called with no arguments.
   * @returns the unsubscriber.
   */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener)
    return () => {
      this.changeListeners.delete(listener)
    }
  }

  /** Whether the store is open. */
  get available(): boolean {
    return this.state.kind === 'open'
  }

  /** The open data directory, if any. */
  get dataDir(): string | null {
    return this.state.kind === 'closed' ? null : this.state.dataDir
  }

  /**
   * Write one fact through the slot rules.
   * @param input - the fact.
   * @param config - the live configuration.
   * @returns what happened.
   */
  write(input: FactInput, config: ResolvedConfig): WriteAnswer {
    const state = this.state
    if (state.kind !== 'open') return this.unavailable()
    const now = isoNow(this.options.clock)
    const prepared = prepareWrite(input, now, {
      refuseCredentials: config.refuseCredentials,
      timeZone: config.displayTimeZone,
    })
    if (!prepared.ok) return { kind: 'refused', code: prepared.code, message: prepared.message }
    return this.guard(() => state.store.write(prepared.write, now))
  }

  /**
   * Forget one fact by id.
   * @param id - the fact id.
   * @returns the forgotten rows, or not_found.
   */
  forgetById(id: number): ForgetAnswer {
    const state = this.state
    if (state.kind !== 'open') return this.unavailable()
    return this.guardForget(
      () => {
        const forgotten = state.store.forgetById(id, isoNow(this.options.clock))
        return { forgotten, untouched: [], sameClaimKept: state.store.currentWithClaimOf(forgotten) }
      },
      { kind: 'fact' },
      `no live fact has id ${id}`,
    )
  }

  /**
   * Forget every live fact of a subject, or of one of its properties.
   * @param subject - the subject as written (canonicalized here).
   * @param property - the property, or undefined for all of them.
   * @param project - a session's project (or null outside one): other projects' facts are left alone, and the
   *   answer counts them per project; absent, every scope's facts are forgotten.
   * @returns the forgotten rows, or not_found; either way what it reached and the projects it left alone.
   */
  forgetBySubject(subject: string, property: string | undefined, project?: ProjectRef | null): ForgetAnswer {
    const state = this.state
    if (state.kind !== 'open') return this.unavailable()
    const predicate = property === undefined ? undefined : canonicalPredicate(property)
    const what = property === undefined ? `subject "${subject}"` : `"${subject} · ${property}"`
    const projectKey = project === undefined ? undefined : (project?.key ?? null)
    return this.guardForget(
      () => state.store.forgetBySubject(canonicalEntity(subject), predicate, isoNow(this.options.clock), projectKey),
      project === undefined ? { kind: 'every_scope' } : { kind: 'session', project },
      `the store has no live fact for ${what}`,
    )
  }

  /**
   * Search for the model with every configured channel: the lexical channels, and the vector channel and the
   * reranker when an endpoint is configured (each within its budget; a failure degrades to the others and the answer
   * says so). Visibility follows the privacy switches, the answer is cut to the search budget and the query to the
   * deadline.
   * @param ask - query, limit and optional as-of date.
   * @param config - the live configuration.
   * @returns the canonical search value.
   */
  async search(ask: SearchAsk, config: ResolvedConfig): Promise<SearchValue> {
    const prepared = this.prepareSearch(ask, config)
    if ('value' in prepared) return prepared.value
    const { stores, request, asOf } = prepared
    try {
      const legs = this.options.semantic?.(config, stores) ?? {}
      const outcome = await searchFacts(stores.facts, request, legs)
      return searchAnswer(stores, outcome, ask.query, asOf, request.timeZone, config.searchBudgetTokens)
    } catch (error) {
      return searchFailure('unavailable', ask.query, toPublicError(error).message, request.timeZone)
    }
  }

  /**
   * The same search with the lexical channels only, synchronously: what {@link search} answers when no semantic
   * channel is configured.
   * @param ask - query, limit and optional as-of date.
   * @param config - the live configuration.
   * @returns the canonical search value.
   */
  searchLexical(ask: SearchAsk, config: ResolvedConfig): SearchValue {
    const prepared = this.prepareSearch(ask, config)
    if ('value' in prepared) return prepared.value
    const { stores, request, asOf } = prepared
    try {
      const outcome = retrieveFacts(stores.facts, request)
      return searchAnswer(stores, outcome, ask.query, asOf, request.timeZone, config.searchBudgetTokens)
    } catch (error) {
      return searchFailure('unavailable', ask.query, toPublicError(error).message, request.timeZone)
    }
  }

  private prepareSearch(
    ask: SearchAsk,
    config: ResolvedConfig,
  ): { value: SearchValue } | { stores: StoreSet; request: SearchRequest; asOf: string | null } {
    const state = this.state
    const timeZone = config.displayTimeZone
    if (state.kind !== 'open')
      return { value: searchFailure('unavailable', ask.query, this.unavailable().message, timeZone) }
    let asOf: string | null = null
    if (ask.asOf !== undefined) {
      asOf = dateArgumentInstant(ask.asOf, timeZone, 'end') ?? null
      if (asOf === null)
        return {
          value: searchFailure('refused', ask.query, 'as_of must be a date (YYYY-MM-DD) or an ISO timestamp', timeZone),
        }
    }
    const started = this.options.clock.now()
    return {
      stores: state.stores,
      asOf,
      request: {
        query: ask.query,
        limit: ask.limit,
        asOf: asOf ?? undefined,
        visibility: { includeSensitive: config.sensitiveModelVisible },
        timeZone,
        deadline: started + config.queryTimeoutMs,
        clock: () => this.options.clock.now(),
        project: ask.project ?? null,
        otherProjects: ask.otherProjects ?? 'mark',
      },
    }
  }

  /**
   * The directory text for the live configuration and one session's project: the global and free-text scopes'
   * facts and that project's, never another project's. Cached until the store, the settings or the project change.
   * @param config - the live configuration.
   * @param project - the session's project, or null outside one (then no project's facts are listed).
   * @returns the directory, or `''` when disabled, empty or unavailable.
   */
  directory(config: ResolvedConfig, project: ProjectRef | null): string {
    return this.renderedDirectory(config, project).text
  }

  private renderedDirectory(config: ResolvedConfig, project: ProjectRef | null): RenderedDirectory {
    const none: RenderedDirectory = { text: '', shown: new Set() }
    const state = this.state
    if (state.kind !== 'open' || !config.enabled || !config.injectDirectory) return none
    const budgetChars = config.directoryBudget * CHARS_PER_TOKEN
    const visibility = { includeSensitive: config.sensitiveModelVisible }
    const projectKey = project?.key ?? null
    try {
      const key = JSON.stringify([
        state.db.generation(),
        budgetChars,
        visibility.includeSensitive,
        config.displayTimeZone,
        projectKey,
      ])
      const cached = this.directoryCache.get(key)
      if (cached !== undefined) return cached
      // A line takes at least ~12 characters, so the budget bounds how many rows can possibly fit.
      const rows = Math.min(Math.ceil(budgetChars / 12) + 1, 5000)
      const facts = state.store.directoryFacts(rows, visibility, projectKey)
      const projectFacts = projectKey === null ? [] : state.store.projectDirectoryFacts(rows, visibility, projectKey)
      const rendered = renderDirectoryShown({
        facts,
        projectFacts,
        total: state.store.countDirectoryFacts(visibility, projectKey),
        contested: state.store.contestedSlots([...new Set([...facts, ...projectFacts].map((fact) => fact.slotKey))]),
        budgetChars,
        timeZone: config.displayTimeZone,
      })
      // Entries of an older generation are never asked for again; past the bound they go first, then everything.
      if (this.directoryCache.size >= DIRECTORY_CACHE_SIZE) {
        const current = `[${state.db.generation()},`
        for (const old of [...this.directoryCache.keys()]) if (!old.startsWith(current)) this.directoryCache.delete(old)
        if (this.directoryCache.size >= DIRECTORY_CACHE_SIZE) this.directoryCache.clear()
      }
      // Read between the slices of a long transaction (a large import), it shows rows that may yet roll back: not kept.
      if (!state.db.busy) this.directoryCache.set(key, rendered)
      return rendered
    } catch {
      // A failing read leaves the request without a directory rather than failing the user's turn.
      return none
    }
  }

  /**
   * Per-turn recall: search the store with the user's new text through every configured channel (within the recall's
   * own deadline), and render the current, model-visible facts that match it well enough and that the directory does
   * not already show, within the recall budget. Each recall is logged (an empty one too) for the turn's card and for
   * status. It never throws and never fails the turn: a store that cannot answer adds nothing.
   * @param ask - the user's text, its session and turn.
   * @param config - the live configuration.
   * @returns the block, or none.
   */
  async recall(ask: RecallAsk, config: ResolvedConfig): Promise<RecallAnswer> {
    const state = this.state
    const none: RecallAnswer = { kind: 'none' }
    const query = ask.text.slice(0, MESSAGE_CHARS).trim()
    if (state.kind !== 'open' || !config.enabled || config.recallBudgetTokens === 0 || query === '') return none
    const started = this.options.clock.now()
    try {
      // What the model already has in front of it: the directory's facts, and those of earlier blocks still in view.
      const project = ask.project ?? null
      const shown = new Set([
        ...this.renderedDirectory(config, project).shown,
        ...state.stores.recalls.recalledInView(ask.sessionId, ask.inView ?? []),
      ])
      const request: SearchRequest = {
        query,
        // Candidates beyond the cap: the floor and the directory take some away.
        limit: Math.min(POOL_SIZE, config.recallMaxFacts * 3),
        asOf: undefined,
        visibility: { includeSensitive: config.sensitiveModelVisible },
        timeZone: config.displayTimeZone,
        deadline: started + config.recallTimeoutMs,
        clock: () => this.options.clock.now(),
        project,
        otherProjects: 'exclude',
      }
      const legs = this.options.semantic?.(config, state.stores) ?? {}
      const result = await recallFor(
        state.store,
        request,
        legs,
        {
          budgetChars: config.recallBudgetTokens * CHARS_PER_TOKEN,
          maxFacts: config.recallMaxFacts,
          minScore: config.recallMinScore,
          timeZone: config.displayTimeZone,
        },
        shown,
        this.factWords,
      )
      const factIds = result.facts.map((fact) => fact.id)
      this.logRecall(state.stores, {
        sessionId: ask.sessionId,
        turn: ask.turn,
        messageId: result.text === '' ? null : (ask.messageId ?? null),
        recalledAt: isoNow(this.options.clock),
        factIds,
        chars: result.text.length,
        elapsedMs: Math.max(0, this.options.clock.now() - started),
        channels: result.channels,
        degraded: result.degraded.map((item) => item.channel),
      })
      return result.text === '' ? none : { kind: 'recalled', text: result.text, factIds }
    } catch {
      return none
    }
  }

  private logRecall(stores: StoreSet, record: Parameters<StoreSet['recalls']['record']>[0]): void {
    try {
      stores.recalls.record(record)
    } catch {
      // The ledger is bookkeeping: a failure to log costs the card its count, never the turn its block.
    }
  }

  /**
   * Promote scheduled facts that have started and expire those that ended.
   * @returns counts, or undefined when the store is not open.
   */
  advance(): { promoted: number; expired: number } | undefined {
    const state = this.state
    if (state.kind !== 'open') return undefined
    return state.store.advance(isoNow(this.options.clock))
  }

  /** A snapshot for status displays. */
  status(): MemoryStatus {
    const state = this.state
    if (state.kind === 'open') {
      return {
        available: true,
        driver: state.db.driver,
        fallbackReason: state.db.fallbackReason ?? null,
        dataDir: state.dataDir,
        storeId: state.db.storeId(),
        generation: state.db.generation(),
        counts: state.store.counts(),
        error: null,
      }
    }
    return {
      available: false,
      driver: null,
      fallbackReason: null,
      dataDir: state.kind === 'failed' ? state.dataDir : null,
      storeId: null,
      generation: 0,
      counts: null,
      error: state.kind === 'failed' ? { code: state.code, message: state.message } : null,
    }
  }

  /** Tell every change listener; one that throws does not keep the others from hearing. */
  private notifyChange(): void {
    for (const listener of [...this.changeListeners]) {
      try {
        listener()
      } catch {
        // The change is committed; a listener's failure is its own.
      }
    }
  }

  private unavailable(): { kind: 'unavailable'; code: ErrorCode; message: string } {
    if (this.state.kind === 'failed') return { kind: 'unavailable', code: this.state.code, message: this.state.message }
    return { kind: 'unavailable', code: 'storage_unavailable', message: 'the fact store is not open' }
  }

  private guard(work: () => WriteResult): WriteAnswer {
    try {
      return work()
    } catch (error) {
      const { code, message } = toPublicError(error)
      return { kind: 'unavailable', code, message }
    }
  }

  private guardForget(
    work: () => SubjectForget & { readonly sameClaimKept?: readonly Fact[] },
    reach: ForgetReach,
    notFound: string,
  ): ForgetAnswer {
    try {
      const { forgotten, untouched, sameClaimKept = [] } = work()
      return forgotten.length === 0
        ? { kind: 'not_found', message: notFound, reach, untouched }
        : { kind: 'forgotten', facts: forgotten, reach, untouched, sameClaimKept }
    } catch (error) {
      const { code, message } = toPublicError(error)
      return { kind: 'unavailable', code, message }
    }
  }
}

/** The answer the model reads for an outcome, within the search budget, naming the machines behind contested sides. */
function searchAnswer(
  stores: StoreSet,
  outcome: SearchOutcome,
  query: string,
  asOf: Parameters<typeof buildSearchValue>[2],
  timeZone: Parameters<typeof buildSearchValue>[3],
  budgetTokens: number,
): SearchValue {
  return buildSearchValue(
    outcome,
    query,
    asOf,
    timeZone,
    budgetTokens * CHARS_PER_TOKEN,
    contestedOrigins(stores, outcome),
  )
}

/**
 * The other machines each side of a contested slot in the outcome came from through sync, and the teammates any
 * other row came from through its repository's team folder (a teammate's word is always named).
 */
function contestedOrigins(stores: StoreSet, outcome: SearchOutcome): Map<number, string[]> {
  const contested = new Set<number>(
    outcome.slots.filter((slot) => slot.contested).flatMap((slot) => slot.rows.map((row) => row.fact.id)),
  )
  const ids = outcome.slots.flatMap((slot) => slot.rows.map((row) => row.fact.id))
  const sides = stores.sync
    .sidesOf(ids)
    .filter((side) => contested.has(side.factId) || side.devices.every((device) => isTeamDevice(device.id)))
  return otherMachines(sides)
}
