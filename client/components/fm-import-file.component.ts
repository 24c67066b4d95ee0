/**
 * <fm-import-file>: the library's "Import file" action. The user picks a JSONL file; its text goes to the import
 * verb in preview mode (nothing written), and the dialog shows the preview's classes (new, already stored, repeated in
 * the file, conflict, forgotten, invalid) with the first invalid lines' reasons, and what else the commit changes
 * (stored facts the file forgets, pins it drops). Commit sends the same text with the preview's token behind the
 * fence; the toast says what landed, with Undo when the file forgot stored facts. Esc closes the dialog, not the page.
 */
import { css, html, LitElement, nothing } from 'lit'
import type { AppState } from '../app-state.ts'
import { callVerb } from '../api.ts'
import {
  IMPORT_CLASSES,
  importCountWords,
  importedWords,
  importSideWords,
  undoneImportWords,
  type ImportCounts,
} from '../add-words.ts'
import { baseStyles } from '../styles.ts'
import { EscapeCloses } from './escape-closes.ts'

/** What the dialog holds once a file was previewed. */
interface Preview {
  readonly name: string
  readonly content: string
  readonly token: string
  readonly total: number
  readonly counts: ImportCounts
  readonly invalid: readonly { readonly line: number; readonly reason: string }[]
  readonly invalidOmitted: number
  /** What else the commit changes: stored facts the file forgets, pins it drops. */
  readonly sides: readonly string[]
  /** How many stored facts the commit forgets. */
  readonly forgets: number
}

/** The Import file button and its preview dialog. */
export class FmImportFile extends LitElement {
  static override properties = {
    app: { attribute: false },
    opened: { state: true },
    busy: { state: true },
    preview: { state: true },
    error: { state: true },
  }

  static override styles = [
    baseStyles,
    css`
    :host { display: inline-block; }
    dialog { width: min(520px, 92vw); border: 1px solid var(--dsw-alias-border-l2); border-radius: 12px; padding: 16px;
      background: var(--dsw-alias-bg-base); color: var(--dsw-alias-label-primary); box-shadow: var(--dsw-shadow-lv3, none); }
    dialog::backdrop { background: var(--dsw-alias-bg-mask-1, rgba(0, 0, 0, 0.35)); }
    h2 { margin: 0 0 8px; font-size: 15px; line-height: 22px; }
    table { border-collapse: collapse; margin: 8px 0; }
    td { padding: 2px 12px 2px 0; }
    td.n { text-align: right; font-variant-numeric: tabular-nums; font-weight: 600; }
    ul { margin: 6px 0; padding-left: 18px; max-height: 140px; overflow: auto; word-break: break-word; }
    .error { color: var(--fm-error-text); }
    .actions { display: flex; gap: 8px; justify-content: flex-end; margin-top: 12px; }
  `,
  ]

  declare app: AppState | undefined
  declare opened: boolean
  declare busy: boolean
  declare preview: Preview | undefined
  declare error: string | null

  constructor() {
    super()
    this.opened = false
    this.busy = false
    this.preview = undefined
    this.error = null
  }

  /** Esc closes the open dialog before the host's panel hears it and closes the whole page. */
  private readonly escape = new EscapeCloses(this, () => {
    this.close()
  })

  private async show(): Promise<void> {
    this.preview = undefined
    this.error = null
    this.opened = true
    this.escape.listen()
    await this.updateComplete
    this.renderRoot.querySelector('dialog')?.showModal()
  }

  private close(): void {
    this.renderRoot.querySelector('dialog')?.close()
    this.opened = false
    this.escape.stop()
  }

  private async picked(event: Event): Promise<void> {
    const file = (event.target as HTMLInputElement).files?.[0]
    if (file === undefined) return
    this.preview = undefined
    this.error = null
    this.busy = true
    try {
      const content = await file.text()
      const answer = await callVerb('import', { mode: 'preview', content })
      if (!answer.ok) {
        this.error = answer.message
        return
      }
      const { token, total, counts, invalid, invalidOmitted, tombstones, pinsDropped } = answer.data
      const sides = importSideWords(tombstones.forgetsTotal, pinsDropped.count)
      this.preview = {
        name: file.name,
        content,
        token,
        total,
        counts,
        invalid,
        invalidOmitted,
        sides,
        forgets: tombstones.forgetsTotal,
      }
    } finally {
      this.busy = false
    }
  }

  private async commit(): Promise<void> {
    const app = this.app
    const preview = this.preview
    if (app === undefined || preview === undefined) return
    this.busy = true
    try {
      const answer = await callVerb('import', {
        mode: 'commit',
        content: preview.content,
        token: preview.token,
        ...app.generation.fence(),
      })
      if (!answer.ok) {
        if (answer.details['stale'] === true) app.generation.observe(answer.details)
        this.error =
          answer.details['stale'] === true
            ? 'The store changed since the preview; pick the file again to preview it anew.'
            : answer.message
        this.preview = undefined
        return
      }
      app.generation.observe(answer.data)
      this.close()
      const { counts, forgotten, undo } = answer.data
      app.toast(importedWords(counts, forgotten.length), {
        action: app.undoAction(undo.editId, undoneImportWords(forgotten.length)),
      })
      app.changed()
    } finally {
      this.busy = false
    }
  }

  override render(): unknown {
    return html`
      <button data-fm="import-file" @click=${() => {
        void this.show()
      }}>Import file…</button>
      ${this.opened ? this.renderDialog() : nothing}`
  }

  private renderDialog(): unknown {
    const preview = this.preview
    const landing = preview === undefined ? 0 : preview.counts.new + preview.counts.conflict
    // A file that only forgets stored facts still has something to commit.
    const forgets = preview?.forgets ?? 0
    return html`
      <dialog data-fm="import-dialog" aria-label="Import file" @close=${() => this.close()}>
        <h2>Import a JSONL file</h2>
        <p class="caption" style="margin:0 0 8px">One fact a line (subject, property, value), or a file another store exported. Nothing is written until you commit.</p>
        <input type="file" accept=".jsonl,.ndjson,.json,application/x-ndjson,application/json,text/plain" aria-label="JSONL file"
          data-fm="import-input" ?disabled=${this.busy} @change=${(event: Event) => {
            void this.picked(event)
          }}>
        ${this.busy && preview === undefined ? html`<p class="caption">Reading the file…</p>` : nothing}
        ${this.error === null ? nothing : html`<p class="error" role="alert" data-fm="import-error">${this.error}</p>`}
        ${
          preview === undefined
            ? nothing
            : html`
          <div data-fm="import-preview" aria-live="polite">
            <p style="margin:8px 0 0"><strong>${preview.name}</strong>: ${preview.total} record${preview.total === 1 ? '' : 's'} — ${importCountWords(preview.counts)}</p>
            <table>${IMPORT_CLASSES.map(([key, label]) => html`<tr data-class=${key}><td>${label}</td><td class="n">${preview.counts[key]}</td></tr>`)}</table>
            ${preview.sides.map((words) => html`<p class="caption" data-fm="import-side" style="margin:0 0 4px">${words}</p>`)}
            ${
              preview.invalid.length === 0
                ? nothing
                : html`<p class="caption" style="margin:0">Invalid lines (skipped):</p>
              <ul data-fm="import-invalid">${preview.invalid.map((entry) => html`<li>line ${entry.line}: ${entry.reason}</li>`)}
                ${preview.invalidOmitted > 0 ? html`<li class="caption">and ${preview.invalidOmitted} more</li>` : nothing}</ul>`
            }
          </div>`
        }
        <div class="actions">
          <button @click=${() => this.close()}>Cancel</button>
          <button class="primary" data-fm="import-commit" ?disabled=${this.busy || preview === undefined || landing + forgets === 0}
            @click=${() => {
              void this.commit()
            }}>${preview === undefined || landing === 0 ? 'Commit' : `Commit ${landing} fact${landing === 1 ? '' : 's'}`}</button>
        </div>
      </dialog>`
  }
}
