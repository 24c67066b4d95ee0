/**
 * <fm-settings-card>: the plugin's card on the host's settings page. A summary with live counts that points to
 * the page for real work (proposals are shown only there, the graph only as a small preview here); `enabled` alone
 * at the top, then the everyday keys, each labelled in words with its key name beside; an API key field that writes
 * to the host credential store; the busiest subject's one-hop preview (<fm-graph-preview>, which opens the page);
 * the open conflicts (settleable here); the maintenance buttons; and at the bottom every other key under a folded
 * Advanced section; the sync keys carry the Sync panel (<fm-sync-panel>) under them. "Rebuild vectors" and the vector
 * counts appear only while an embedding model is configured. An
 * export also reaches the browser as a download of the file it wrote.
 * Edits wait for Save (or Discard), as on the host's own cards; saved values go through the host settings scope and
 * apply live. Feedback is an inline status line: toasts would sit under the settings modal.
 */
import { recallCostLine, type RecallStatus } from '../recall-words.ts'
import { css, html, LitElement, nothing, type PropertyValues } from 'lit'
import type { AppState } from '../app-state.ts'
import { callVerb, type VerbAnswerTo, type VerbName, type VerbRequest } from '../api.ts'
import { exportDownload, exportedWords, startDownload, type ExportAnswer } from '../export-download.ts'
import { openPageFromSettings } from '../open-from-settings.ts'
import { humanLabel, readSettingsSchema, type SettingsField, type SettingsSection } from '../settings-schema.ts'
import { countOf } from '../format.ts'
import { baseStyles } from '../styles.ts'
import { followSweep } from '../sweep-follow.ts'
import { sweepProgressWords, sweepWords, type RunningSweepWire } from '../sweep-words.ts'
import { embeddingConfigured, rebuiltWords, vectorCount, type VectorCounts } from '../vector-words.ts'
import { ReloadOnChange } from './reload-on-change.ts'

/** The settings card. */
const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1)

export class FmSettingsCard extends LitElement {
  static override properties = {
    app: { attribute: false },
    schema: { attribute: false },
    value: { attribute: false },
    onfield: { attribute: false },
    counts: { state: true },
    pending: { state: true },
    message: { state: true },
    confirmWipe: { state: true },
    keyRef: { state: true },
  }

  static override styles = [
    baseStyles,
    css`
    :host { display: block; border: 1px solid var(--dsw-alias-border-l1); border-radius: 12px; padding: 16px; }
    h3 { margin: 0; font-size: 15px; line-height: 22px; }
    h4 { margin: 16px 0 8px; font-size: 13px; line-height: 18px; color: var(--dsw-alias-label-secondary); }
    .summary { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; margin: 8px 0 12px; }
    /* The counts wrap between their parts, never inside one. */
    .summary .count { white-space: nowrap; }
    /* Why the last vector sweep stopped: a sentence of its own under the counts, free to wrap. */
    .summary .warn { flex-basis: 100%; overflow-wrap: anywhere; color: var(--fm-error-text); }
    .field { display: grid; grid-template-columns: minmax(180px, 240px) minmax(0, 1fr); gap: 4px 12px; align-items: center; padding: 6px 0; border-top: 1px solid var(--dsw-alias-border-l1); }
    .field label { display: flex; flex-direction: column; }
    .field code { font-size: 11px; color: var(--dsw-alias-label-secondary); font-weight: 400; }
    .field.changed label { font-style: italic; }
    .save { display: flex; gap: 8px; align-items: center; justify-content: flex-end; margin-top: 8px; }
    .field .caption { grid-column: 2; }
    .field input[type='checkbox'] { justify-self: start; margin: 0; }
    .master { font-weight: 600; }
    details > summary { cursor: pointer; margin: 16px 0 4px; color: var(--dsw-alias-label-secondary); }
    .buttons { display: flex; gap: 8px; flex-wrap: wrap; }
    .key { display: flex; gap: 8px; flex-wrap: wrap; align-items: center; }
    .key input { flex: 1 1 16em; min-width: 16em; }
    [role=status] { min-height: 20px; margin-top: 8px; }
  `,
  ]

  declare app: AppState | undefined
  declare schema: unknown
  declare value: Readonly<Record<string, unknown>> | undefined
  declare onfield: ((key: string, value: unknown) => Promise<void>) | undefined
  declare counts: CardCounts | undefined
  /** Edits not saved yet, by key. */
  declare pending: ReadonlyMap<string, unknown>
  declare message: string
  declare confirmWipe: { token: string; facts: number } | undefined
  declare keyRef: 'llm' | 'embedding' | 'rerank' | 'sync'
  /** The start of the background sweep the status line follows, if any. */
  private following: string | undefined
  /** The followed sweep's progress as last told, in words; a read that says the same is not shown again. */
  private toldProgress: string | undefined
  /** Aborted when the card leaves the page, ending any following. */
  private leaving = new AbortController()

  constructor() {
    super()
    // Loaded on arrival of the page state, and again after every change the page makes to the store.
    new ReloadOnChange(this, () => {
      void this.load()
    })
    this.schema = undefined
    this.value = undefined
    this.counts = undefined
    this.pending = new Map()
    this.message = ''
    this.confirmWipe = undefined
    this.keyRef = 'llm'
  }

  private async load(): Promise<void> {
    const status = await callVerb('status', {})
    if (status.ok && status.data.counts !== null) {
      const by = status.data.counts.byStatus
      this.counts = {
        current: (by['active'] ?? 0) + (by['scheduled'] ?? 0) + (by['conflict'] ?? 0),
        pending: status.data.counts.pendingProposals,
        conflicts: status.data.counts.openConflictGroups,
        generation: status.data.generation,
        vectors:
          status.data.semantic?.embedding?.configured === true
            ? (status.data.semantic.embedding.vectors ?? null)
            : null,
        sweepError:
          status.data.semantic?.embedding?.configured === true
            ? (status.data.semantic.embedding.error?.message ?? null)
            : null,
        recall: status.data.recall ?? null,
      }
      this.app?.generation.observe(status.data)
    }
  }

  override updated(changed: PropertyValues<this>): void {
    // Saved settings can switch the embedding channel on or off: the counts follow what status then reports.
    if (changed.has('value') && changed.get('value') !== undefined) void this.load()
  }

  /** Holds an edit until Save. */
  private edit(field: SettingsField, raw: unknown): void {
    const value = field.kind === 'number' ? Number(raw) : raw
    if (field.kind === 'number' && Number.isNaN(value)) return
    const next = new Map(this.pending)
    if (value === this.value?.[field.key]) next.delete(field.key)
    else next.set(field.key, value)
    this.pending = next
    this.message = ''
  }

  /** Saves every held edit through the host settings scope; what failed stays held. */
  private async save(): Promise<void> {
    const saved: string[] = []
    const left = new Map(this.pending)
    for (const [key, value] of this.pending) {
      try {
        await this.onfield?.(key, value)
        saved.push(humanLabel(key))
        left.delete(key)
      } catch (error) {
        this.message = `Could not save ${humanLabel(key)} (${key}): ${error instanceof Error ? error.message : 'refused'}`
        this.pending = left
        return
      }
    }
    this.pending = left
    this.message = `Saved ${saved.join(', ')}`
    // Sync starts or stops with its keys: the panel shows it once the service has followed.
    if (saved.some((label) => label.startsWith('Sync'))) {
      const panel = this.renderRoot.querySelector('fm-sync-panel') as { load(): Promise<void> } | null
      setTimeout(() => void panel?.load(), 300)
    }
  }

  private discard(): void {
    this.pending = new Map()
    this.message = 'Discarded the changes'
  }

  /** An export's file goes to the browser as a download too (the copy in exports/ stays); the status line says what it wrote. */
  private downloaded(data: ExportAnswer): string {
    const file = exportDownload(data.relativePath)
    if (file !== undefined) startDownload(this.renderRoot, file)
    return exportedWords(data)
  }

  private async run<V extends VerbName, const B extends VerbRequest<V>>(
    verb: V,
    body: B,
    done: (data: VerbAnswerTo<V, B>) => string,
  ): Promise<void> {
    this.message = 'Working…'
    const answer = await callVerb(verb, body)
    this.message = answer.ok ? done(answer.data) : answer.message
    if (answer.ok) this.app?.changed()
    // A refused run may still have changed what status reports (a vector sweep that stopped names its error there).
    else void this.load()
  }

  /**
   * "Find near-duplicates": the sweep runs in the background, so the status line follows its progress and then says
   * what it found; a press while one runs says so and follows that one.
   */
  private async findNearDuplicates(): Promise<void> {
    this.message = 'Working…'
    const answer = await callVerb('consolidate', { force: true })
    if (!answer.ok) {
      this.message = answer.message
      return
    }
    const running = answer.data.running
    if (running === null) {
      this.message = 'message' in answer.data ? answer.data.message : 'A sweep is already running.'
      return
    }
    this.message = answer.data.begun ? sweepProgressWords(running) : `${capitalized(answer.data.message)}.`
    this.toldProgress = sweepProgressWords(running)
    if (this.following === running.startedAt) return
    this.following = running.startedAt
    const outcome = await followSweep(
      running.startedAt,
      (progress) => {
        this.tellProgress(progress)
      },
      this.leaving.signal,
    )
    if (this.following === running.startedAt) this.following = undefined
    if (outcome === undefined) return
    this.message = 'sweep' in outcome ? sweepWords(outcome.sweep) : outcome.message
    this.app?.changed()
  }

  /** Show a followed sweep's progress when it is news: a press's answer stays until the sweep moves on. */
  private tellProgress(progress: RunningSweepWire): void {
    const words = sweepProgressWords(progress)
    if (words === this.toldProgress) return
    this.toldProgress = words
    this.message = words
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback()
    this.leaving.abort()
    this.leaving = new AbortController()
    this.following = undefined
  }

  private async wipe(): Promise<void> {
    const app = this.app
    if (app === undefined) return
    if (this.confirmWipe === undefined) {
      const first = await callVerb('wipe', app.generation.fence())
      if (!first.ok && first.code === 'confirm_required' && typeof first.details['confirmToken'] === 'string') {
        const counts = first.details['counts'] as { byStatus?: Record<string, number> } | undefined
        const facts = Object.values(counts?.byStatus ?? {}).reduce((sum, n) => sum + n, 0)
        this.confirmWipe = { token: first.details['confirmToken'], facts }
        this.message = `Click again to clear ${facts} facts${first.details['backupBeforeWipe'] === true ? ' (a backup is taken first)' : ''}.`
      } else {
        this.message = first.ok ? '' : first.message
      }
      return
    }
    const done = await callVerb('wipe', { ...app.generation.fence(), confirmToken: this.confirmWipe.token })
    this.confirmWipe = undefined
    this.message = done.ok
      ? `Cleared.${done.data.backup === null ? '' : ` Backup: ${done.data.backup.relativePath}`}`
      : done.message
    app.changed()
  }

  private async saveKey(event: Event): Promise<void> {
    event.preventDefault()
    const input = this.renderRoot.querySelector<HTMLInputElement>('input[name=api-key]')
    const value = input?.value ?? ''
    if (value.trim() === '') return
    await this.run(
      'key',
      { ref: this.keyRef, value },
      (data) => `Key stored as ${data.name} in the host credential store.`,
    )
    if (input !== null) input.value = ''
  }

  override render(): unknown {
    const sections = readSettingsSchema(this.schema)
    const value = this.value ?? {}
    const embeddings = embeddingConfigured(value)
    return html`
      <h3>Fact memory</h3>
      <div class="summary">
        <span data-fm="card-counts">${this.counts === undefined ? 'Loading counts…' : countParts(this.counts).map((part, index) => html`${index === 0 ? '' : ' · '}<span class="count">${part}</span>`)}</span>
        ${this.counts?.sweepError === null || this.counts === undefined ? nothing : html`<span class="caption warn" data-fm="vector-sweep-error">The last vector sweep stopped: ${this.counts.sweepError}</span>`}
        ${this.counts?.recall === null || this.counts === undefined ? nothing : html`<span class="caption" data-fm="card-recall">${recallCostLine(this.counts.recall)}</span>`}
        <button class="primary" data-fm="card-open-page" @click=${() => {
          openPageFromSettings(this.app, this, 'library')
        }}>Open the Fact memory page</button>
      </div>
      <p class="caption">Browse, edit and review facts, proposals and the graph on the page; this card holds the settings and quick actions.</p>
      ${sections.map((section, index) => (section.folded ? nothing : this.renderSection(section, index, value)))}
      ${this.renderSave()}
      <h4>API key for an endpoint</h4>
      <form class="key" @submit=${(event: Event) => {
        void this.saveKey(event)
      }}>
        <select aria-label="Which endpoint" @change=${(event: Event) => {
          this.keyRef = (event.target as HTMLSelectElement).value as 'llm' | 'embedding' | 'rerank' | 'sync'
        }}>
          <option value="llm">Extraction model</option><option value="embedding">Embeddings</option><option value="rerank">Reranker</option><option value="sync">Sync passphrase</option>
        </select>
        <input name="api-key" type="password" autocomplete="off" aria-label="API key" placeholder="Paste a key">
        <button type="submit">Store key</button>
      </form>
      <p class="caption">The key is stored in the host credential store and never shown again.</p>
      <fm-graph-preview .app=${this.app}></fm-graph-preview>
      <h4>Open conflicts</h4>
      <fm-conflicts compact .app=${this.app}></fm-conflicts>
      <h4>Maintenance</h4>
      <div class="buttons">
        <button @click=${() => {
          void this.run('export', {}, (data) => this.downloaded(data))
        }}>Export</button>
        <button data-fm="export-markdown" title="A document to read and share: one section per subject, sensitive values withheld" @click=${() => {
          void this.run('export', { format: 'markdown' }, (data) => this.downloaded(data))
        }}>Export as Markdown</button>
        <button @click=${() => {
          const app = this.app
          if (app !== undefined)
            void this.run('rebuild', app.generation.fence(), (data) => `Reindexed ${data.indexed} facts.`)
        }}>Reindex</button>
        ${
          embeddings
            ? html`<button data-fm="index-vectors" @click=${() => {
                void this.run('index-vectors', { force: true }, (data) => rebuiltWords(data))
              }}>Rebuild vectors</button>`
            : nothing
        }
        <button data-fm="consolidate" @click=${() => {
          void this.findNearDuplicates()
        }}>Find near-duplicates</button>
        <button data-fm="run-audit" title="Look for self-restating facts, dated pipelines and split subjects; nothing changes until you accept a card" @click=${() => {
          void this.run('audit', { force: true }, (data) => `Health check: ${data.message}.`)
        }}>Run the health check</button>
        <button class="danger" data-fm="wipe" @click=${() => {
          void this.wipe()
        }}>${this.confirmWipe === undefined ? 'Clear everything' : 'Click again to clear everything'}</button>
      </div>
      <div role="status" class="muted" data-fm="card-status">${this.message}</div>
      ${sections.map((section, index) => (section.folded ? this.renderSection(section, index, value) : nothing))}
      ${this.renderSave()}`
  }

  /** Save and Discard, while an edit is held (shown below the everyday keys and again at the foot). */
  private renderSave(): unknown {
    if (this.pending.size === 0) return nothing
    return html`<div class="save" data-fm="card-save"><span class="caption">${countOf(this.pending.size, 'unsaved change')}</span>
      <button @click=${() => this.discard()}>Discard</button><button class="primary" @click=${() => {
        void this.save()
      }}>Save</button></div>`
  }

  private renderSection(section: SettingsSection, index: number, value: Readonly<Record<string, unknown>>): unknown {
    const fields = section.fields.map((field) =>
      this.renderField(field, value[field.key] ?? field.defaultValue, index === 0),
    )
    if (section.folded) return html`<details><summary>${section.title}</summary>${fields}</details>`
    // The master switch stands alone at the top; the everyday keys follow under their own heading, and the sync keys
    // with the Sync panel under them.
    if (index === 0) return html`${fields}`
    const sync = section.fields.some((field) => field.key === 'syncTarget')
      ? html`<fm-sync-panel .app=${this.app}></fm-sync-panel>`
      : nothing
    return html`<h4>${section.title}</h4>${fields}${sync}`
  }

  private renderField(field: SettingsField, stored: unknown, master: boolean): unknown {
    const id = `fm-setting-${field.key}`
    const changed = this.pending.has(field.key)
    const current = changed ? this.pending.get(field.key) : stored
    let control: unknown
    switch (field.kind) {
      case 'boolean':
        control = html`<input id=${id} type="checkbox" .checked=${current === true} @change=${(event: Event) => {
          this.edit(field, (event.target as HTMLInputElement).checked)
        }}>`
        break
      case 'enum':
        control = html`<select id=${id} @change=${(event: Event) => {
          this.edit(field, (event.target as HTMLSelectElement).value)
        }}>
          ${field.options.map((option) => html`<option value=${option} ?selected=${current === option}>${option}</option>`)}</select>`
        break
      case 'number':
        control = html`<input id=${id} type="number" .value=${String(current ?? '')} min=${field.min ?? nothing} max=${field.max ?? nothing} step=${field.step ?? 'any'}
          @change=${(event: Event) => {
            this.edit(field, (event.target as HTMLInputElement).value)
          }}>`
        break
      case 'string':
        control = html`<input id=${id} .value=${String(current ?? '')} @change=${(event: Event) => {
          this.edit(field, (event.target as HTMLInputElement).value)
        }}>`
        break
    }
    return html`<div class="field ${changed ? 'changed' : ''}" data-field=${field.key}>
      <label for=${id} class=${master ? 'master' : ''}>${humanLabel(field.key)}<code>${field.key}</code></label>${control}
      ${field.description === '' ? nothing : html`<span class="caption">${field.description}</span>`}</div>`
  }
}

/** The live counts the card shows. */
interface CardCounts {
  readonly current: number
  readonly pending: number
  readonly conflicts: number
  readonly generation: number
  /** The embedding channel's coverage, or null without one. */
  readonly vectors: VectorCounts | null
  /** Why the last vector sweep stopped, if it failed. */
  readonly sweepError: string | null
  /** Per-turn recall's setting and recent cost. */
  readonly recall: RecallStatus | null
}

/** The parts of the counts line, each kept on one line. */
function countParts(counts: CardCounts): string[] {
  const vectors = vectorCount(counts.vectors)
  return [
    countOf(counts.current, 'current fact'),
    countOf(counts.pending, 'pending proposal'),
    countOf(counts.conflicts, 'open conflict'),
    ...(vectors === null ? [] : [vectors]),
  ]
}
