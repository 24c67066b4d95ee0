/**
 * <fm-conflicts>: every open conflict group; each side shows its value, the words it was said in, where and when
 * it was said and its evidence, the machine it came from when sync brought it from another, since when it was
 * observed, and is kept in one click.
 */
import { css, html, LitElement } from 'lit'
import type { AppState } from '../app-state.ts'
import { callVerb } from '../api.ts'
import { describeSource, formatInstant, observedSince, seenNote, slotWords, STATUS_LABEL } from '../format.ts'
import { baseStyles } from '../styles.ts'
import { ReloadOnChange } from './reload-on-change.ts'
import type { ConflictGroupWire, FactView } from '../../src/wire-types.ts'

/** The conflict list; also used compactly on the settings card. */
export class FmConflicts extends LitElement {
  static override properties = {
    app: { attribute: false },
    compact: { type: Boolean },
    groups: { state: true },
    timeZone: { state: true },
  }

  static override styles = [
    baseStyles,
    css`
    :host { display: block; overflow: auto; padding: 16px; }
    :host([compact]) { padding: 0; overflow: visible; }
    .group { border: 1px solid var(--dsw-alias-border-l2); border-radius: 12px; padding: 12px; margin-bottom: 12px; }
    .sides { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 8px; margin-top: 8px; }
    .side { border: 1px solid var(--dsw-alias-border-l1); border-radius: 8px; padding: 8px 10px; display: flex; flex-direction: column; gap: 6px; align-items: flex-start; }
    .value { font-weight: 600; font-size: 15px; word-break: break-word; }
    .quote { margin: 0; padding-left: 8px; border-left: 3px solid var(--dsw-alias-border-l2); color: var(--dsw-alias-label-secondary); font-style: italic; word-break: break-word; }
    .side .caption { word-break: break-word; }
  `,
  ]

  declare app: AppState | undefined
  declare compact: boolean
  declare groups: readonly ConflictGroupWire[] | undefined
  /** The store's display zone, read with the groups. */
  declare timeZone: string

  constructor() {
    super()
    // Loaded on arrival of the page state, and again after every change the page makes to the store.
    new ReloadOnChange(this, () => this.refresh())
    this.compact = false
    this.groups = undefined
    this.timeZone = ''
  }

  /** Reload the groups. */
  refresh(): void {
    void this.load()
  }

  private async load(): Promise<void> {
    const [answer, timeZone] = await Promise.all([callVerb('conflicts', {}), this.app?.displayZone() ?? ''])
    if (!answer.ok) {
      this.groups = []
      return
    }
    this.app?.generation.observe(answer.data)
    this.timeZone = timeZone
    this.groups = answer.data.groups
  }

  private async keep(group: ConflictGroupWire, row: FactView): Promise<void> {
    const app = this.app
    if (app === undefined) return
    const settled = await app.fencedEdit('resolve', { groupId: group.id, keepFactId: row.id })
    if (settled === undefined) return
    app.toast(`Settled ${group.subject} · ${group.property} on ${row.value}`, {
      action: app.undoAction(settled.editId, 'Undone: the conflict is open again'),
    })
    app.changed()
  }

  /** ` (from home desktop)` for a side that came from another machine through sync; nothing for this machine's own. */
  private fromWords(group: ConflictGroupWire, row: FactView): unknown {
    const note = group.fromDevices.find((side) => side.factId === row.id)?.note ?? ''
    return note === '' ? '' : html`<span data-fm="side-from">${note}</span>`
  }

  override render(): unknown {
    if (this.groups === undefined) return html`<div class="skeleton" style="height: 80px"></div>`
    if (this.groups.length === 0)
      return html`<p class="empty" data-fm="conflicts-empty">No conflicts. When a weaker source contradicts what you said, both values wait here until you choose.</p>`
    return html`${this.groups.map(
      (group) => html`<section class="group" data-fm="conflict" data-id=${group.id}>
      <strong>${slotWords(group)}</strong> <span class="caption">open since ${formatInstant(group.openedAt, this.timeZone)}</span>
      <div class="sides">${group.rows.map(
        (row) => html`<div class="side" data-fm="conflict-side">
        <span class="value">${row.value}</span>
        ${row.quote === null || row.quote === '' ? html`<span class="caption">No words recorded with it.</span>` : html`<blockquote class="quote" data-fm="side-quote">“${row.quote}”</blockquote>`}
        <span class="caption" data-fm="side-source">${describeSource(row, this.timeZone)}${this.fromWords(group, row)}</span>
        <span><span class="pill ${row.status}">${STATUS_LABEL[row.status] ?? row.status}</span> <span class="caption" data-fm="side-since">since ${formatInstant(observedSince(row), this.timeZone)}${seenNote(row.foldedCount)}</span></span>
        <button class="primary" @click=${() => {
          void this.keep(group, row)
        }}>Keep this</button>
      </div>`,
      )}</div>
    </section>`,
    )}`
  }
}
