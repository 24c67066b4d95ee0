/**
 * AppState: what the page's pieces share. It holds whether the page is open and on which tab (and which subject's
 * panel is open over it), the toast stack (with
 * undo actions), the badge summary, per-session counts for the header mark, turn cards and drawer, and the
 * generation the page last read (the precondition of every edit). One instance per applied client plugin.
 */
import {
  callVerb,
  GenerationTracker,
  type ApiResult,
  type EditFields,
  type FencedVerb,
  type VerbAnswerTo,
  type VerbRequest,
} from './api.ts'
import { createSource } from './source.ts'
import type { SessionCountsWire } from '../src/wire-types.ts'

/** The page's tabs. */
export type Tab = 'library' | 'graph' | 'proposals' | 'conflicts' | 'extraction'

/** Whether the page is open, where, and what it should focus. */
export interface PageState {
  readonly open: boolean
  readonly tab: Tab
  /** A fact to open in the library's detail pane. */
  readonly focusFact: number | null
}

/** The drawer listing what one conversation wrote. */
export interface DrawerState {
  readonly sessionId: string | null
  readonly turn: number | null
}

/** One toast. */
export interface Toast {
  readonly id: number
  readonly text: string
  readonly tone: 'info' | 'error'
  readonly action: { readonly label: string; readonly run: () => Promise<void> } | null
}

/**
 * The badge and availability summary: status's `{summary: true}` answer (whether capture, extraction and per-turn
 * recall are on, and the zone dates are shown in: storeTimezone, or the host's own zone when that is empty; '' until
 * read).
 */
export type Summary = VerbAnswerTo<'status', { readonly summary: true }>

/** How long a toast stays. */
const TOAST_MS = 8000

/** Shared client state. */
export class AppState {
  readonly page = createSource<PageState>({ open: false, tab: 'graph', focusFact: null })
  readonly drawer = createSource<DrawerState>({ sessionId: null, turn: null })
  readonly toasts = createSource<readonly Toast[]>([])
  readonly summary = createSource<Summary>({
    available: false,
    badge: 0,
    pendingProposals: 0,
    openConflictGroups: 0,
    generation: 0,
    autoCapture: false,
    autoExtract: false,
    recall: false,
    timeZone: '',
  })
  readonly sessions = createSource<Readonly<Record<string, SessionCountsWire>>>({})
  /** The subject whose panel is open over the page (its entity key), or null. */
  readonly subject = createSource<string | null>(null)
  /** Bumped whenever the page changed the store, so open views reload. */
  readonly changes = createSource(0)
  readonly generation = new GenerationTracker()
  /**
   * The nebula's places and colours when the graph tab last closed (opaque here), so reopening it after an edit
   * shows the same picture with only what changed moved.
   */
  graphMemory: object | undefined = undefined
  private toastSeq = 0
  private summaryRead: Promise<void> | undefined
  private summaryAgain = false
  private summaryKnown = false
  private readonly sessionReads = new Map<string, { again: boolean; done: Promise<void> }>()
  private readonly timers = new Set<ReturnType<typeof setTimeout>>()

  /** Open the page, optionally on a tab and a fact. */
  open(tab?: Tab, focusFact?: number): void {
    const current = this.page.getSnapshot()
    this.page.set({ open: true, tab: tab ?? current.tab, focusFact: focusFact ?? null })
  }

  /** Open the panel of one subject over the page: rename, merge, aliases. */
  openSubject(entityKey: string): void {
    this.subject.set(entityKey)
  }

  /** Close the subject's panel. */
  closeSubject(): void {
    this.subject.set(null)
  }

  /** Close the page. */
  close(): void {
    this.page.set({ ...this.page.getSnapshot(), open: false, focusFact: null })
    this.subject.set(null)
  }

  /** Switch tabs. */
  selectTab(tab: Tab): void {
    this.page.set({ ...this.page.getSnapshot(), tab, focusFact: null })
  }

  /**
   * Show a toast; with an action it offers a button (undo).
   * @param text - the message.
   * @param options - tone and action.
   */
  toast(text: string, options: { tone?: 'info' | 'error'; action?: Toast['action'] } = {}): void {
    this.toastSeq += 1
    const id = this.toastSeq
    this.toasts.update((list) => [
      ...list.slice(-3),
      { id, text, tone: options.tone ?? 'info', action: options.action ?? null },
    ])
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      this.dismiss(id)
    }, TOAST_MS)
    this.timers.add(timer)
  }

  /** Remove one toast. */
  dismiss(id: number): void {
    this.toasts.update((list) => list.filter((toast) => toast.id !== id))
  }

  /**
   * Make a fenced edit: the verb is called with the generation this page last read. A refusal is shown as an error
   * toast (a stale refusal's generation noted) and the views reload; an answer's generation is noted.
   * @param verb - the edit verb.
   * @param body - its fields, without the fence.
   * @returns the answer's data, or undefined when the edit was refused.
   */
  async fencedEdit<V extends FencedVerb, const B extends EditFields<V>>(
    verb: V,
    body: B,
  ): Promise<VerbAnswerTo<V, B> | undefined> {
    // The body with its fence is the verb's whole body; the answer is the one this body asks for.
    const answer = (await callVerb(verb, { ...body, ...this.generation.fence() } as VerbRequest<V>)) as
      | { ok: true; data: VerbAnswerTo<V, B> }
      | Extract<ApiResult, { ok: false }>
    if (!answer.ok) {
      if (answer.details['stale'] === true) this.generation.observe(answer.details)
      this.toast(answer.message, { tone: 'error' })
      this.changed()
      return undefined
    }
    this.generation.observe(answer.data)
    return answer.data
  }

  /**
   * The Undo action of a toast: restores the store as it was before one edit.
   * @param editId - the edit to undo.
   * @param done - what the toast says once it is undone.
   * @returns the action.
   */
  undoAction(editId: number, done: string): NonNullable<Toast['action']> {
    return {
      label: 'Undo',
      run: async () => {
        const undone = await callVerb('fact-restore', { editId, ...this.generation.fence() })
        if (undone.ok) this.generation.observe(undone.data)
        this.toast(undone.ok ? done : undone.message, { tone: undone.ok ? 'info' : 'error' })
        this.changed()
      },
    }
  }

  /** Note that the page changed the store: views reload, the badge refreshes. */
  changed(): void {
    this.changes.update((n) => n + 1)
    void this.refreshSummary()
  }

  /**
   * Re-read the badge counts. Calls made while a read is in flight share it, and one more read follows it: the
   * read in flight may have started before the change that prompted the call.
   */
  refreshSummary(): Promise<void> {
    if (this.summaryRead !== undefined) {
      this.summaryAgain = true
      return this.summaryRead
    }
    this.summaryRead = (async () => {
      do {
        this.summaryAgain = false
        await this.readSummary()
      } while (this.summaryAgain)
    })().finally(() => {
      this.summaryRead = undefined
    })
    return this.summaryRead
  }

  /**
   * The zone every date the page shows is in: storeTimezone, or the host's own zone when that is empty, as the host
   * resolved it. Waits for the first summary, so no date is ever drawn in the browser's zone while it is on its way;
   * only a host that never answered leaves '' (the browser's zone).
   * @returns an IANA zone name, or ''.
   */
  async displayZone(): Promise<string> {
    if (!this.summaryKnown) await this.refreshSummary()
    return this.summary.getSnapshot().timeZone
  }

  private async readSummary(): Promise<void> {
    const answer = await callVerb('status', { summary: true })
    if (!answer.ok) {
      this.summary.set({ ...this.summary.getSnapshot(), available: false })
      return
    }
    this.generation.observe(answer.data)
    this.summaryKnown = true
    this.summary.set({
      available: answer.data.available,
      badge: answer.data.badge,
      pendingProposals: answer.data.pendingProposals,
      openConflictGroups: answer.data.openConflictGroups,
      generation: answer.data.generation,
      autoCapture: answer.data.autoCapture === true,
      autoExtract: answer.data.autoExtract === true,
      recall: answer.data.recall === true,
      timeZone: answer.data.timeZone,
    })
  }

  /**
   * Re-read one conversation's counts (the header mark, turn cards and drawer read them), and the badge with them.
   * Many cards ask at once when a conversation opens: calls for a session share the read in flight, plus one more.
   */
  refreshSession(sessionId: string): Promise<void> {
    void this.refreshSummary()
    const inFlight = this.sessionReads.get(sessionId)
    if (inFlight !== undefined) {
      inFlight.again = true
      return inFlight.done
    }
    const entry = { again: false, done: Promise.resolve() }
    entry.done = (async () => {
      do {
        entry.again = false
        await this.readSession(sessionId)
      } while (entry.again)
    })().finally(() => {
      this.sessionReads.delete(sessionId)
    })
    this.sessionReads.set(sessionId, entry)
    return entry.done
  }

  private async readSession(sessionId: string): Promise<void> {
    const answer = await callVerb('sessions', { sessionIds: [sessionId] })
    if (!answer.ok) return
    const found = answer.data.sessions.find((session) => session.sessionId === sessionId)
    const empty: SessionCountsWire = {
      sessionId,
      facts: 0,
      pending: 0,
      unsettled: 0,
      lastAt: '',
      turns: [],
      extractingTurns: [],
    }
    this.sessions.update((all) => ({ ...all, [sessionId]: found ?? empty }))
  }

  /** Stop timers (the plugin is unloading). */
  dispose(): void {
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
  }
}
