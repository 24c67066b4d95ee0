/**
 * <fm-entity-panel>: one subject, opened over the page from the library's detail or the graph's selection. It
 * renames the subject or merges it into another (a name that is another subject's is a merge, said so before it
 * runs), renames one of its properties, and lists its aliases (old names and renamed properties, which later writes
 * land through) with Remove. Every change is a fenced edit; a rename or merge ends in a toast whose Undo goes
 * through fact-restore. Esc closes it first (<fm-page> listens before the tabs do).
 * @fires fm-close-subject - the user closed the panel.
 */
import { css, html, LitElement, nothing, type PropertyValues } from 'lit'
import type { AppState } from '../app-state.ts'
import { callVerb, type VerbAnswer } from '../api.ts'
import { listedValue, qualifierNote, sensitiveMark, STATUS_LABEL } from '../format.ts'
import { aliasLine, mergeNote, renameToast, type AliasWire } from '../rename-words.ts'
import { baseStyles } from '../styles.ts'

/** What the entity verb answers. */
type EntityWire = VerbAnswer<'entity'>

const CURRENT = new Set(['active', 'scheduled', 'conflict'])

/** The subject panel. */
export class FmEntityPanel extends LitElement {
  static override properties = {
    app: { attribute: false },
    entityKey: { attribute: false },
    entity: { state: true },
    error: { state: true },
    mergeInto: { state: true },
    renaming: { state: true },
    busy: { state: true },
    typed: { state: true },
  }

  static override styles = [
    baseStyles,
    css`
    :host { display: flex; flex-direction: column; gap: 12px; padding: 16px; overflow: auto; background: var(--dsw-alias-bg-base);
      border-left: 1px solid var(--dsw-alias-border-l2); box-shadow: -8px 0 24px rgb(0 0 0 / 12%); }
    header { display: flex; align-items: center; gap: 8px; }
    h2 { margin: 0; font-size: 18px; line-height: 26px; flex: 1; min-width: 0; overflow-wrap: anywhere; }
    h3 { margin: 8px 0 0; font-size: 13px; line-height: 18px; font-weight: 600; color: var(--dsw-alias-label-secondary); }
    form { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
    form input { flex: 1; min-width: 160px; }
    form label { flex-basis: 100%; }
    ul { list-style: none; margin: 0; padding: 0; }
    li { padding: 8px 0; border-bottom: 1px solid var(--dsw-alias-border-l1); display: flex; flex-wrap: wrap; gap: 4px 8px; align-items: center; }
    li .what { flex: 1; min-width: 0; overflow-wrap: anywhere; }
    .property { font-weight: 600; }
    .values { color: var(--dsw-alias-label-secondary); }
    .note { margin: 0; }
  `,
  ]

  declare app: AppState | undefined
  declare entityKey: string | null
  declare entity: EntityWire | undefined
  declare error: string | undefined
  /** The other subject the typed name reads as, once looked up: the rename is then a merge. */
  declare mergeInto: string | undefined
  /** The property whose rename field is open. */
  declare renaming: string | undefined
  declare busy: boolean
  /** What the rename field holds, once the user typed in it. */
  declare typed: string | undefined
  private stopChanges: (() => void) | undefined

  constructor() {
    super()
    this.entityKey = null
    this.busy = false
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback()
    this.stopChanges?.()
    this.stopChanges = undefined
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('app')) {
      this.stopChanges?.()
      const app = this.app
      // Reloaded after every change the page makes, and whenever the summary brings another store generation.
      const stopChanges = app?.changes.subscribe(() => {
        void this.load()
      })
      const stopSummary = app?.summary.subscribe(() => {
        if (this.entity !== undefined && app.summary.getSnapshot().generation !== this.entity.generation)
          void this.load()
      })
      this.stopChanges = () => {
        stopChanges?.()
        stopSummary?.()
      }
    }
    if (changed.has('entityKey')) {
      this.mergeInto = undefined
      this.typed = undefined
      this.renaming = undefined
      void this.load()
    }
  }

  private close(): void {
    this.dispatchEvent(new CustomEvent('fm-close-subject', { bubbles: true, composed: true }))
  }

  private async load(): Promise<void> {
    if (this.entityKey === null) return
    const answer = await callVerb('entity', { entityKey: this.entityKey })
    if (!answer.ok) {
      this.error = answer.message
      this.entity = undefined
      return
    }
    this.app?.generation.observe(answer.data)
    this.error = undefined
    this.entity = answer.data
  }

  /** Look the typed name up: a name another subject already has turns Rename into Merge. */
  private async lookUp(name: string): Promise<void> {
    const typed = name.trim()
    this.typed = typed
    if (typed === '' || this.entity === undefined) {
      this.mergeInto = undefined
      return
    }
    const answer = await callVerb('subject-rename', {
      entityKey: this.entity.entity.key,
      to: typed,
      dryRun: true,
      ...(this.app?.generation.fence() ?? { expectedGeneration: 0, operationId: 'page-dry-run' }),
    })
    if (this.renderRoot.querySelector<HTMLInputElement>('input[name="subject-to"]')?.value.trim() !== typed) return
    this.mergeInto = answer.ok && answer.data.kind === 'merge' ? answer.data.to : undefined
  }

  private async renameSubject(event: Event): Promise<void> {
    event.preventDefault()
    const app = this.app
    const entity = this.entity
    const to = this.renderRoot.querySelector<HTMLInputElement>('input[name="subject-to"]')?.value.trim() ?? ''
    if (app === undefined || entity === undefined || to === '' || this.busy) return
    this.busy = true
    const answer = await app.fencedEdit('subject-rename', { entityKey: entity.entity.key, to })
    this.busy = false
    if (answer === undefined) return
    const before = entity.entity.key
    const opened = await callVerb('entity', { subject: answer.to })
    app.toast(renameToast(answer, { kind: 'subject' }), { action: this.undo(answer.editId, before) })
    this.mergeInto = undefined
    this.typed = undefined
    if (opened.ok) this.entityKey = opened.data.entity.key
    app.changed()
  }

  private async renameProperty(event: Event, property: string): Promise<void> {
    event.preventDefault()
    const app = this.app
    const entity = this.entity
    const to = this.renderRoot.querySelector<HTMLInputElement>('input[name="property-to"]')?.value.trim() ?? ''
    if (app === undefined || entity === undefined || to === '' || this.busy) return
    this.busy = true
    const answer = await app.fencedEdit('property-rename', { entityKey: entity.entity.key, property, to })
    this.busy = false
    if (answer === undefined) return
    this.renaming = undefined
    app.toast(renameToast(answer, { kind: 'property', subject: entity.entity.display }), {
      action: this.undo(answer.editId, entity.entity.key),
    })
    app.changed()
  }

  private async removeAlias(alias: AliasWire): Promise<void> {
    const app = this.app
    if (app === undefined) return
    const answer = await app.fencedEdit('alias-remove', { id: alias.id })
    if (answer === undefined) return
    app.toast(
      `“${alias.alias}” no longer leads here; a later write under it starts its own ${alias.kind === 'entity' ? 'subject' : 'property'} again.`,
    )
    app.changed()
  }

  /** The toast's Undo: fact-restore, then the panel shows the subject as it was. */
  private undo(editId: number, entityKey: string): { label: string; run: () => Promise<void> } {
    return {
      label: 'Undo',
      run: async () => {
        const app = this.app
        if (app === undefined) return
        const undone = await callVerb('fact-restore', { editId, ...app.generation.fence() })
        if (undone.ok) {
          app.generation.observe(undone.data)
          this.entityKey = entityKey
        }
        app.toast(undone.ok ? 'Undone: the old name is its own again' : undone.message, {
          tone: undone.ok ? 'info' : 'error',
        })
        app.changed()
      },
    }
  }

  override render(): unknown {
    if (this.error !== undefined) {
      return html`<header><h2>Subject</h2><button class="quiet" aria-label="Close the subject" @click=${() => this.close()}>✕</button></header>
        <p role="alert">${this.error}</p>`
    }
    const entity = this.entity
    if (entity === undefined) return html`<div class="skeleton" style="height: 120px"></div>`
    return html`
      <header>
        <h2 data-fm="entity-name">${entity.entity.display}</h2>
        <button class="quiet" aria-label="Close the subject" title="Close (Esc)" @click=${() => this.close()}>✕</button>
      </header>
      <form data-fm="subject-rename" @submit=${(event: Event) => {
        void this.renameSubject(event)
      }}>
        <label class="caption" for="subject-to">Rename, or merge into another subject</label>
        <input id="subject-to" name="subject-to" aria-label="New name or another subject" .value=${entity.entity.display}
          @input=${(event: Event) => {
            void this.lookUp((event.target as HTMLInputElement).value)
          }}>
        <button class="primary" type="submit" data-fm="subject-rename-submit"
          ?disabled=${this.busy || this.typed === undefined || this.typed === '' || this.typed === entity.entity.display}>${this.mergeInto === undefined ? 'Rename' : `Merge into ${this.mergeInto}`}</button>
      </form>
      ${this.mergeInto === undefined ? nothing : html`<p class="caption note" data-fm="merge-note">${mergeNote(this.mergeInto)}</p>`}
      <h3>Properties</h3>
      <ul data-fm="entity-properties">${entity.properties.map((group) => this.renderProperty(group))}</ul>
      <h3>Aliases</h3>
      ${
        entity.aliases.length === 0
          ? html`<p class="caption note" data-fm="aliases-empty">No aliases yet. A rename or a merge keeps the old name here, so a later write under it lands on this subject.</p>`
          : html`<ul data-fm="entity-aliases">${entity.aliases.map((alias) => {
              const line = aliasLine(alias)
              return html`<li data-fm="entity-alias"><span class="what">${line.text} <span class="caption">${line.note}</span></span>
            <button class="danger" @click=${() => {
              void this.removeAlias(alias)
            }}>Remove</button></li>`
            })}</ul>`
      }`
  }

  private renderProperty(group: EntityWire['properties'][number]): unknown {
    const current = group.facts.filter((fact) => CURRENT.has(fact.status))
    // Each value with what tells it apart (its qualifiers) and, sensitive, withheld behind its mark (format.ts, listedValue).
    const values = current
      .map(
        (fact) =>
          `${listedValue(fact)}${qualifierNote(fact.qualifiers)}${sensitiveMark(fact) === '' ? '' : ` (${sensitiveMark(fact)})`}` +
          `${fact.status === 'active' ? '' : ` (${STATUS_LABEL[fact.status] ?? fact.status})`}`,
      )
      .join(' · ')
    if (this.renaming === group.property) {
      return html`<li data-fm="entity-property"><form style="flex: 1" @submit=${(event: Event) => {
        void this.renameProperty(event, group.property)
      }}>
        <input name="property-to" aria-label=${`Rename the property ${group.property}`} .value=${group.property}>
        <button class="primary" type="submit" ?disabled=${this.busy}>Save</button>
        <button type="button" @click=${() => {
          this.renaming = undefined
        }}>Cancel</button></form></li>`
    }
    return html`<li data-fm="entity-property"><span class="what"><span class="property">${group.property}</span>
      <span class="values">${values === '' ? `${group.facts.length} in history` : values}</span></span>
      <button class="quiet" aria-label=${`Rename the property ${group.property}`} @click=${() => {
        this.renaming = group.property
      }}>Rename</button></li>`
  }
}
