/**
 * <fm-extraction>: the extraction queue. What runs, waits out the merge window or a retry, and what was parked
 * after repeated failures, with why and a Retry that reads it again; then "Recently finished" — the last ten passes from the store, each with what it wrote,
 * what needs review, how long it took and how long ago. Opening a pass shows the exact text it sent, its message
 * and segment counts, the model, and why candidates were refused. When capture is off, the tab says how to turn it
 * on; an empty log explains itself.
 */
import { css, html, LitElement, nothing } from 'lit'
import type { AppState } from '../app-state.ts'
import { callVerb, type VerbAnswer } from '../api.ts'
import { formatAge, formatInstant } from '../format.ts'
import { baseStyles } from '../styles.ts'
import { ReloadOnChange } from './reload-on-change.ts'

/** The queue verb's answer. */
type QueueWire = VerbAnswer<'queue'>
/** A parked range. */
type PendingWire = QueueWire['parked'][number]
/** One finished pass; once opened, with the text it sent. */
type RunWire = QueueWire['recent'][number] & { readonly textSent?: string | null }

const DECISION_LABEL: Readonly<Record<RunWire['decision'], string>> = {
  extracted: '● read',
  skipped: '○ skipped',
  failed: '▲ failed',
  parked: '■ parked',
}

/** The extraction tab. */
export class FmExtraction extends LitElement {
  static override properties = {
    app: { attribute: false },
    queue: { state: true },
    opened: { state: true },
    error: { state: true },
    timeZone: { state: true },
    retrying: { state: true },
  }

  static override styles = [
    baseStyles,
    css`
    :host { display: block; padding: 16px; overflow: auto; }
    h2 { font-size: 14px; line-height: 20px; margin: 20px 0 8px; font-weight: 600; }
    h2:first-child { margin-top: 0; }
    .status { display: flex; gap: 8px; flex-wrap: wrap; align-items: center; }
    ul { list-style: none; padding: 0; margin: 0; }
    li { border-bottom: 1px solid var(--dsw-alias-border-l1); }
    .row { display: grid; grid-template-columns: 110px minmax(0, 1fr) auto; gap: 2px 12px; width: 100%; text-align: left; border: 0; border-radius: 0; padding: 8px 4px; }
    .row .counts { justify-self: end; }
    .pill.failed, .pill.parked { color: var(--fm-warn-text); border-color: currentColor; }
    .pill.extracted { color: var(--fm-success-text); }
    .detail { padding: 8px 4px 16px; }
    .detail dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 4px 12px; margin: 0 0 8px; }
    .detail dt { color: var(--dsw-alias-label-secondary); }
    .detail dd { margin: 0; }
    pre { white-space: pre-wrap; word-break: break-word; max-height: 320px; overflow: auto; padding: 8px; margin: 8px 0 0; border-radius: 8px;
      background: var(--dsw-alias-bg-module-platform, var(--dsw-alias-bg-layer-2)); font-family: var(--ds-font-family-code, ui-monospace, monospace); font-size: 12px; line-height: 18px; }
    .entry { padding: 8px 4px; }
    .parked-range { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 4px 12px; align-items: start; }
    .parked-range .caption { grid-column: 1; }
    .parked-range button { grid-column: 2; grid-row: 1 / span 3; align-self: center; }
  `,
  ]

  declare app: AppState | undefined
  declare queue: QueueWire | undefined
  declare opened: RunWire | undefined
  declare error: string | undefined
  /** The store's display zone, read with the queue. */
  declare timeZone: string
  /** Parked ranges whose Retry is under way. */
  declare retrying: ReadonlySet<number>

  constructor() {
    super()
    this.queue = undefined
    this.opened = undefined
    this.error = undefined
    this.timeZone = ''
    this.retrying = new Set()
    // Loaded on arrival of the page state, and again after every change the page makes to the store.
    new ReloadOnChange(this, () => this.refresh())
  }

  /** Reload the queue and the recent passes. */
  refresh(): void {
    void this.load()
  }

  private async load(): Promise<void> {
    const [answer, timeZone] = await Promise.all([callVerb('queue', {}), this.app?.displayZone() ?? ''])
    if (!answer.ok) {
      this.error = answer.message
      return
    }
    this.error = undefined
    this.timeZone = timeZone
    this.queue = answer.data
    if (this.opened !== undefined && !answer.data.recent.some((run) => run.id === this.opened?.id))
      this.opened = undefined
  }

  /** Read a parked range again now; the toast says what landed or why it is still parked. */
  private async retry(range: PendingWire): Promise<void> {
    if (this.retrying.has(range.id)) return
    this.retrying = new Set([...this.retrying, range.id])
    const answer = await callVerb('extract-retry', { id: range.id })
    this.retrying = new Set([...this.retrying].filter((id) => id !== range.id))
    const app = this.app
    if (!answer.ok) app?.toast(`Could not retry: ${answer.message}`, { tone: 'error' })
    else if (answer.data.outcome.kind === 'failed')
      app?.toast(`Still parked: ${answer.data.outcome.error}`, { tone: 'error' })
    else {
      const { factIds, proposalIds } = answer.data.outcome
      app?.toast(
        `Read turn${range.turns.length === 1 ? '' : 's'} ${range.turns.join(', ') || '?'} again: ${factIds.length} fact${factIds.length === 1 ? '' : 's'} written, ${proposalIds.length} to review`,
      )
    }
    // Facts may have landed: every view reloads, this one included.
    if (app === undefined) this.refresh()
    else app.changed()
  }

  private async open(run: RunWire): Promise<void> {
    if (this.opened?.id === run.id) {
      this.opened = undefined
      return
    }
    const answer = await callVerb('extract-run', { id: run.id })
    this.opened = answer.ok ? answer.data.run : { ...run, textSent: null, error: answer.message }
  }

  override render(): unknown {
    const queue = this.queue
    if (this.error !== undefined)
      return html`<p class="empty" role="alert">Could not read the extraction queue: ${this.error}</p>`
    if (queue === undefined) return html`<div class="skeleton" style="height: 120px" aria-busy="true"></div>`
    return html`
      ${this.renderStatus(queue)}
      <h2>Queue</h2>
      ${
        queue.running.length === 0 && queue.parked.length === 0
          ? html`<p class="muted" data-fm="queue-empty">Nothing is waiting. ${queue.autoExtract ? 'Each finished turn queues a pass here.' : ''}</p>`
          : html`<ul data-fm="queue">${queue.running.map((entry) => this.renderEntry(entry))}${queue.parked.map((range) => this.renderParked(range))}</ul>`
      }
      <h2>Recently finished</h2>
      ${
        queue.recent.length === 0
          ? html`<p class="muted" data-fm="runs-empty">No pass has finished yet. Once automatic extraction reads a turn, the last ten passes are listed here with what they wrote.</p>`
          : html`<ul data-fm="runs">${queue.recent.map((run) => this.renderRun(run))}</ul>`
      }`
  }

  private renderStatus(queue: QueueWire): unknown {
    if (!queue.autoCapture && !queue.autoExtract) {
      return html`<div class="empty" data-fm="extraction-off">
        <p><strong>Automatic capture is off.</strong></p>
        <p>Turn on <em>autoCapture</em> (rules that catch "remember that …" and "the port is 8123") or <em>autoExtract</em>
          (a model reads each finished turn) in Settings → Plugins → Fact memory. Until then, facts are written by the
          assistant through memory_write, and by you with <button class="quiet" data-fm="goto-add" @click=${() => this.app?.selectTab('library')}>Add fact</button>
          or Import file in the Fact library.</p>
      </div>`
    }
    return html`<div class="status caption" data-fm="extraction-status">
      <span class="pill ${queue.autoCapture ? 'active' : ''}">${queue.autoCapture ? '● rules on' : '○ rules off'}</span>
      <span class="pill ${queue.autoExtract ? 'active' : ''}">${queue.autoExtract ? '● model extraction on' : '○ model extraction off'}</span>
      ${queue.autoExtract ? html`<span>Model: ${queue.model} · merge window ${Math.round(queue.delayMs / 100) / 10} s</span>` : nothing}
    </div>`
  }

  private renderEntry(entry: QueueWire['running'][number]): unknown {
    const when = formatInstant(entry.at, this.timeZone)
    const state =
      entry.state === 'running'
        ? `running since ${when}`
        : entry.state === 'debounce'
          ? `waiting out the merge window until ${when}`
          : `waiting to retry at ${when} (attempt ${entry.attempt})`
    return html`<li class="entry" data-fm="queue-entry" data-state=${entry.state}>
      <span class="pill ${entry.state === 'retry' ? 'failed' : 'active'}">${entry.state}</span>
      conversation ${entry.sessionId.slice(0, 16)} · ${state}
      ${entry.queuedEndSeq === null ? nothing : html`<span class="caption"> · another turn waits behind it</span>`}
      ${entry.lastError === null ? nothing : html`<div class="caption">Last error: ${entry.lastError}</div>`}
    </li>`
  }

  private renderParked(range: PendingWire): unknown {
    const busy = this.retrying.has(range.id)
    return html`<li class="entry parked-range" data-fm="parked" data-id=${range.id}>
      <span><span class="pill parked">■ parked</span>
        conversation ${range.sessionId.slice(0, 16)} · turn${range.turns.length === 1 ? '' : 's'} ${range.turns.join(', ') || '?'} · ${range.attempts} attempts, parked ${formatAge(range.parkedAt)}</span>
      <div class="caption" data-fm="parked-reason">Why: ${range.lastError}</div>
      <div class="caption">Its words are kept in the conversation and nothing was written from them yet. ${
        range.retriesOnItsOwn
          ? 'It is read again on its own once the model answers the next pass, or now with Retry.'
          : 'The model failed on it again and again, so it is no longer retried on its own: Retry reads it again.'
      }</div>
      <button class="primary" data-fm="parked-retry" ?disabled=${busy} @click=${() => {
        void this.retry(range)
      }}>${busy ? 'Retrying…' : 'Retry'}</button>
    </li>`
  }

  private renderRun(run: RunWire): unknown {
    const opened = this.opened?.id === run.id ? this.opened : undefined
    const where =
      run.sessionId === null
        ? 'one-off text'
        : `conversation ${run.sessionId?.slice(0, 16) ?? '?'}${run.turns.length === 0 ? '' : ` · turn${run.turns.length === 1 ? '' : 's'} ${run.turns.join(', ')}`}`
    return html`<li data-fm="run" data-id=${run.id}>
      <button class="row quiet" aria-expanded=${String(opened !== undefined)} @click=${() => {
        void this.open(run)
      }}>
        <span class="pill ${run.decision}">${DECISION_LABEL[run.decision]}</span>
        <span>${where}</span>
        <span class="counts caption">${run.written} written · ${run.review} to review · ${(run.durationMs / 1000).toFixed(1)} s · ${formatAge(run.finishedAt)}</span>
      </button>
      ${opened === undefined ? nothing : this.renderDetail(opened)}
    </li>`
  }

  private renderDetail(run: RunWire): unknown {
    return html`<div class="detail" data-fm="run-detail">
      <dl>
        <dt>Decision</dt><dd>${run.decision}${run.attempt > 1 ? ` (attempt ${run.attempt})` : ''}</dd>
        <dt>Read</dt><dd>${run.messageCount} message${run.messageCount === 1 ? '' : 's'} · ${run.chars} characters · ${run.chunkCount} segment${run.chunkCount === 1 ? '' : 's'}</dd>
        <dt>Model</dt><dd>${run.model ?? 'no model was called'}</dd>
        ${run.note === null ? nothing : html`<dt>Note</dt><dd>${run.note}</dd>`}
        ${run.error === null ? nothing : html`<dt>Error</dt><dd>${run.error}</dd>`}
      </dl>
      ${
        run.refused.length === 0
          ? nothing
          : html`<div>Refused:</div><ul>${run.refused.map(
              (entry) => html`<li class="caption">
        ${entry.reason.replaceAll('_', ' ')}${entry.subject === undefined ? '' : ` — ${entry.subject} · ${entry.property ?? ''}: ${entry.value ?? ''}`}</li>`,
            )}</ul>`
      }
      ${run.textSent === null || run.textSent === undefined ? nothing : html`<div class="caption">Text sent to the model (at most 20,000 characters):</div><pre data-fm="run-text">${run.textSent}</pre>`}
    </div>`
  }
}
