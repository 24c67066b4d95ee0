/**
 * Automatic capture, wired to the session event stream. The listener only looks and enqueues; the conversation
 * never waits on it. Two paths:
 * - rules (autoCapture): a user message is matched right after it is committed. When the model path will read
 *   the message, only an explicit "remember this" is written at once, so one sentence never becomes two facts.
 * - the model (autoExtract): each turn/end queues a pass over the session's new text (see queue.ts and pass.ts).
 *   A range parked after repeated failures is read again (retry.ts) when the model next answers a pass, or when the
 *   user asks for it from the page.
 * Delegated subagent sessions are never read: the parent session stays the single writer.
 */
import { isoNow, type Clock } from '../clock.ts'
import type { ResolvedConfig } from '../config.ts'
import { messageOf } from '../errors.ts'
import type { FactMemory } from '../fact-memory.ts'
import type { ExtractSessionView, LoggerView, SessionEventView } from '../host/ports.ts'
import type { PendingRange } from '../store/extract-store.ts'
import { landCandidates } from './land.ts'
import { projectOfSession } from '../project/project-locator.ts'
import { PROJECT_SCOPE_WORD, statementNamesProject } from '../project/project-ref.ts'
import type { ExtractionModel } from '../host/model-client.ts'
import { parkRange, runPass } from './pass.ts'
import { extractText, type ManualExtraction } from './manual.ts'
import { ExtractionQueue, RETRY_LADDER_MS, type PassRequest, type PassResult, type QueueEntry } from './queue.ts'
import { retriesOnItsOwn, retryRange, type RetryCause, type RetryOutcome } from './retry.ts'
import { captureRules } from './rules.ts'
import { collectMessages } from './snapshot.ts'

/** What capture needs from its surroundings. */
export interface CaptureDeps {
  readonly clock: Clock
  readonly logger: LoggerView
  readonly memory: FactMemory
  /** The configuration in force; undefined before the plugin is configured. */
  readonly config: () => ResolvedConfig | undefined
  /** The extraction model for a session's text, or why there is none. */
  readonly model: (
    session: ExtractSessionView | undefined,
    config: ResolvedConfig,
  ) => Promise<ExtractionModel | { readonly unavailable: string }>
  /** Whether the user paused memory in a session: its turns are then neither captured nor extracted, ever. */
  readonly paused?: ((sessionId: string) => boolean) | undefined
  /** A session's events by id, live or persisted (the retry of a parked range), or why they cannot be read. */
  readonly session: (sessionId: string) => Promise<ExtractSessionView | { readonly unavailable: string }>
}

/** What asking for the retry of a parked range answers. */
export type ParkedRetry =
  /** `sessionRead`: the conversation's events could be read (a failure then came from the model). */
  | {
      readonly ok: true
      readonly outcome: RetryOutcome
      readonly range: PendingRange | undefined
      readonly sessionRead: boolean
    }
  | { readonly ok: false; readonly code: 'not_found' | 'unavailable'; readonly message: string }

/** The automatic capture of one applied plugin. */
export class AutoCapture {
  readonly queue: ExtractionQueue
  private readonly deps: CaptureDeps
  /** Live sessions with extraction work, so a pass can read their events later. */
  private readonly sessions = new Map<string, ExtractSessionView>()
  /** Cancels one-off extractions and retries of parked ranges when the plugin unloads. */
  private manual = new AbortController()
  /** Retries of parked ranges under way, by range id: a second ask joins the one running. */
  private readonly retrying = new Map<number, Promise<ParkedRetry>>()
  /** The automatic retry of every parked range, while it runs. */
  private retrySweep: Promise<void> | undefined

  /** @param deps - clock, logger, store, configuration and model resolution. */
  constructor(deps: CaptureDeps) {
    this.deps = deps
    this.queue = new ExtractionQueue({
      clock: deps.clock,
      delayMs: () => deps.config()?.extractDelayMs ?? 0,
      retryMs: () => deps.config()?.extractRetryMs ?? RETRY_LADDER_MS[0] ?? 0,
      runPass: (request) => this.pass(request),
      park: (request, error) => this.park(request, error),
    })
  }

  /**
   * One committed session event. Never throws and never awaits: the work is queued.
   * @param session - the live session.
   * @param event - the event.
   */
  onEvent(session: ExtractSessionView, event: SessionEventView): void {
    const config = this.deps.config()
    if (config === undefined || !config.enabled || (!config.autoCapture && !config.autoExtract)) return
    if (session.header.origin === 'subagent' || (session.header.delegationDepth ?? 0) > 0) return
    try {
      if (this.deps.paused?.(session.id) === true) {
        // A paused turn is skipped for good: the cursor moves past it, so a pass after the resume starts beyond it.
        if (event.type === 'turn/end' && config.autoExtract) this.skipThrough(session.id, event.seq)
        return
      }
      if (event.type === 'turn/start' && config.autoExtract) this.startCursor(session.id, event.seq)
      else if (event.type === 'user/message' && config.autoCapture && isUsersOwn(event)) {
        setImmediate(() => this.captureMessage(session, event))
      } else if (event.type === 'turn/end' && config.autoExtract) {
        this.sessions.set(session.id, session)
        this.queue.enqueue(session.id, event.seq)
      }
    } catch (error) {
      this.deps.logger.warn('automatic capture skipped an event: %s', messageOf(error))
    }
  }

  /**
   * Whether the model path reads a session's text (and the rules keep quiet on all but explicit requests).
   * @param config - the configuration.
   * @returns true when autoExtract is on and a model is configured.
   */
  static modelReads(config: ResolvedConfig): boolean {
    return (
      config.autoExtract &&
      (config.llmSource === 'host' || (config.llmBaseUrl.trim() !== '' && config.llmModel.trim() !== ''))
    )
  }

  /**
   * Sessions with work queued, waiting or running.
   * @returns one entry per busy session.
   */
  entries(): QueueEntry[] {
    return this.queue.entries()
  }

  /**
   * Whether a session has extraction work in flight.
   * @param sessionId - the session.
   * @returns true while busy.
   */
  busy(sessionId: string): boolean {
    return this.queue.busy(sessionId)
  }

  /**
   * The turns of a session that a queued or running pass has yet to settle (the turn cards keep asking until their
   * turn is no longer listed).
   * @param sessionId - the session.
   * @returns turn numbers, ascending; empty when the session has no extraction work.
   */
  pendingTurns(sessionId: string): number[] {
    const entry = this.queue.entries().find((candidate) => candidate.sessionId === sessionId)
    const session = this.sessions.get(sessionId)
    if (entry === undefined || session === undefined) return []
    const opened = this.deps.memory.stores()
    const from = 'stores' in opened ? (opened.stores.extract.cursor(sessionId) ?? 0) : 0
    const to = Math.max(entry.endSeq, entry.queuedEndSeq ?? 0)
    const turns = new Set<number>()
    for (const event of session.events.slice(from, to + 1)) {
      const turn = (event.data as { turn?: unknown } | null)?.turn
      if (event.type === 'turn/end' && typeof turn === 'number') turns.add(turn)
    }
    return [...turns].sort((a, b) => a - b)
  }

  /**
   * One-off extraction of a text outside any conversation (the extract route).
   * @param text - the text.
   * @param options - dryRun: answer without writing.
   * @returns what was found and what landed.
   */
  /**
   * Start a session's extraction waiting out its merge window now, so the turns before a pause are still read.
   * @param sessionId - the session being paused.
   */
  settleBeforePause(sessionId: string): void {
    this.queue.flushSession(sessionId)
  }

  async extractText(text: string, options: { readonly dryRun: boolean }): Promise<ManualExtraction> {
    const config = this.deps.config()
    if (config === undefined || !config.enabled)
      return { ok: false, code: 'unavailable', message: 'fact memory is switched off' }
    const model = await this.deps.model(undefined, config)
    return extractText(text, options.dryRun, {
      memory: this.deps.memory,
      config,
      model,
      clock: this.deps.clock,
      signal: this.manual.signal,
    })
  }

  /**
   * Retry one parked range now (the page's Retry). A retry of the same range already under way is joined, not
   * started twice.
   * @param id - the parked range's id.
   * @returns how the retry ended and the range as it now stands, or why none could run.
   */
  retryParked(id: number): Promise<ParkedRetry> {
    const config = this.deps.config()
    if (config === undefined || !config.enabled)
      return Promise.resolve({ ok: false, code: 'unavailable', message: 'fact memory is switched off' })
    const opened = this.deps.memory.stores()
    if (!('stores' in opened))
      return Promise.resolve({ ok: false, code: 'unavailable', message: opened.unavailable.message })
    const range = opened.stores.extract.pendingById(id)
    if (range === undefined)
      return Promise.resolve({ ok: false, code: 'not_found', message: `no parked extraction range has id ${id}` })
    if (range.resolvedAt !== null) {
      return Promise.resolve({
        ok: false,
        code: 'not_found',
        message: `parked range #${id} was already read again at ${range.resolvedAt}; nothing is left to retry`,
      })
    }
    return this.retry(range, 'asked', config)
  }

  /**
   * Unloading: start the passes still in their merge window, wait for the running passes up to `limitMs`, then stop
   * (aborting what is left; its range stays behind the cursor for a later pass).
   * @param limitMs - the longest wait.
   * @returns when the queue is idle or the limit passed, and everything is stopped.
   */
  async drain(limitMs: number): Promise<void> {
    this.queue.flush()
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      this.queue.idle(),
      new Promise((resolve) => {
        timer = setTimeout(resolve, limitMs).unref()
      }),
    ])
    clearTimeout(timer)
    this.stop()
  }

  /** Stop timers and abort running passes. */
  stop(): void {
    this.queue.stop()
    this.sessions.clear()
    this.manual.abort()
    this.manual = new AbortController()
    this.retrying.clear()
    this.retrySweep = undefined
  }

  /** A session first seen at a turn/start starts there: history from before capture was on is not swept up. */
  private skipThrough(sessionId: string, seq: number): void {
    const opened = this.deps.memory.stores()
    if ('stores' in opened) opened.stores.extract.advance(sessionId, seq + 1, isoNow(this.deps.clock))
  }

  private startCursor(sessionId: string, seq: number): void {
    const opened = this.deps.memory.stores()
    if (!('stores' in opened) || opened.stores.extract.cursor(sessionId) !== undefined) return
    opened.stores.extract.advance(sessionId, seq, isoNow(this.deps.clock))
  }

  private captureMessage(session: ExtractSessionView, event: SessionEventView): void {
    const config = this.deps.config()
    if (config === undefined || !config.enabled || !config.autoCapture) return
    try {
      const messages = collectMessages(session.events, event.seq, event.seq + 1, { includeAssistant: false })
      const message = messages[0]
      if (message === undefined) return
      const explicitOnly = AutoCapture.modelReads(config)
      const project = projectOfSession(session)
      // The rules cannot tell a codebase's convention from a personal one: only a statement naming the project is its,
      // and only a repository's name is known to name a project (a home folder's is the user's own name).
      const names = (quote: string): boolean => project?.repository === true && statementNamesProject(quote, project)
      const candidates = captureRules(message.text)
        .filter((candidate) => !explicitOnly || candidate.explicit)
        .map((candidate) => (names(candidate.quote) ? { ...candidate, scope: PROJECT_SCOPE_WORD } : candidate))
      if (candidates.length === 0) return
      landCandidates(
        candidates,
        { origin: 'rule', messages, sessionId: session.id, usersWords: true, project },
        this.deps.memory,
        config,
      )
    } catch (error) {
      this.deps.logger.warn('rule capture failed: %s', messageOf(error))
    }
  }

  private async pass(request: PassRequest): Promise<PassResult> {
    const config = this.deps.config()
    const session = this.sessions.get(request.sessionId)
    if (config === undefined || session === undefined || !config.enabled || !config.autoExtract) return { kind: 'done' }
    try {
      const model = await this.deps.model(session, config)
      const result = await runPass(request, {
        memory: this.deps.memory,
        config,
        events: session.events,
        model,
        clock: this.deps.clock,
        project: projectOfSession(session),
      })
      if (result.kind !== 'failed' && result.answered === true) this.retryParkedOnTheirOwn()
      return result
    } finally {
      this.forgetIdleSessions(request.sessionId)
    }
  }

  /**
   * The model answered a pass: retry every parked range it may still take, one after another, in the background
   * (the session's queue does not wait for it). A sweep already under way is not started twice.
   */
  private retryParkedOnTheirOwn(): void {
    if (this.retrySweep !== undefined) return
    const signal = this.manual.signal
    const sweep = (async () => {
      const opened = this.deps.memory.stores()
      if (!('stores' in opened)) return
      for (const range of opened.stores.extract.pending().filter(retriesOnItsOwn)) {
        const config = this.deps.config()
        if (signal.aborted || config === undefined || !config.enabled || !config.autoExtract) return
        const answer = await this.retry(range, 'answered', config)
        // The model failed again: the rest waits for the next pass it answers. A conversation that could not be read
        // says nothing of the model, so the next range is still tried.
        if (answer.ok && answer.outcome.kind === 'failed' && answer.sessionRead) return
      }
    })()
      .catch((error: unknown) => {
        this.deps.logger.warn('the retry of parked extraction ranges failed: %s', messageOf(error))
      })
      .finally(() => {
        if (this.retrySweep === sweep) this.retrySweep = undefined
      })
    this.retrySweep = sweep
  }

  /** Retry one range, or join its retry under way. */
  private retry(range: PendingRange, cause: RetryCause, config: ResolvedConfig): Promise<ParkedRetry> {
    const running = this.retrying.get(range.id)
    if (running !== undefined) return running
    const signal = this.manual.signal
    const retried = (async (): Promise<ParkedRetry> => {
      const session = await this.deps.session(range.sessionId)
      // A session that cannot be read leaves nothing to send: its reason stands in for the events and the model.
      const read =
        'unavailable' in session
          ? { events: session, model: session, project: null }
          : {
              events: session.events,
              model: await this.deps.model(session, config),
              project: projectOfSession(session),
            }
      const outcome = await retryRange(range, cause, {
        memory: this.deps.memory,
        config,
        clock: this.deps.clock,
        signal,
        ...read,
      })
      const opened = this.deps.memory.stores()
      const now = 'stores' in opened ? opened.stores.extract.pendingById(range.id) : undefined
      if (outcome.kind === 'resolved')
        this.deps.logger.info(
          'extraction read parked range #%d again: %d facts, %d to review',
          range.id,
          outcome.factIds.length,
          outcome.proposalIds.length,
        )
      else this.deps.logger.warn('the retry of parked extraction range #%d failed: %s', range.id, outcome.error)
      return { ok: true, outcome, range: now, sessionRead: !('unavailable' in session) }
    })().finally(() => {
      if (this.retrying.get(range.id) === retried) this.retrying.delete(range.id)
    })
    this.retrying.set(range.id, retried)
    return retried
  }

  private park(request: PassRequest, error: string): void {
    const config = this.deps.config()
    const session = this.sessions.get(request.sessionId)
    if (config === undefined || session === undefined) return
    try {
      parkRange(request, error, { memory: this.deps.memory, config, events: session.events, clock: this.deps.clock })
      this.deps.logger.warn(
        'extraction parked session %s up to seq %d after %d attempts: %s',
        request.sessionId,
        request.endSeq,
        request.attempt,
        error,
      )
    } catch (parkError) {
      this.deps.logger.warn('could not park an extraction range: %s', messageOf(parkError))
    }
  }

  /** Drop references to sessions the queue no longer works on (the current one is still settling). */
  private forgetIdleSessions(current: string): void {
    for (const sessionId of this.sessions.keys()) {
      if (sessionId !== current && !this.queue.busy(sessionId)) this.sessions.delete(sessionId)
    }
  }
}

/** A user message typed by the user (not a plugin notice, a tool result or the model). */
function isUsersOwn(event: SessionEventView): boolean {
  const source = (event.data as { source?: { kind?: unknown } } | null)?.source
  return source?.kind === 'user'
}
