/**
 * <fm-export>: the library toolbar's Export menu. The button opens a menu of two exports, JSONL (every fact with its
 * history, to import elsewhere) and Markdown (a document to read and share, sensitive values withheld); choosing one
 * runs the export verb, which leaves the file in the data directory's exports/ as ever, and the browser downloads that
 * same file. Keyboard: Enter, Space or ArrowDown on the button opens the menu on its first item; ArrowUp/ArrowDown,
 * Home and End move; Enter chooses; Esc closes the menu (not the page) and Tab leaves it, focus back on the button.
 */
import { css, html, LitElement, nothing } from 'lit'
import type { AppState } from '../app-state.ts'
import { callVerb } from '../api.ts'
import { exportDownload, exportedWords, startDownload } from '../export-download.ts'
import { MENU_ICON } from '../icons.ts'
import { baseStyles } from '../styles.ts'
import { EscapeCloses } from './escape-closes.ts'
import { icon } from './icon.ts'

/** The menu's choices: the export verb's body and the item's words. */
const CHOICES = [
  {
    body: {},
    label: 'Export JSONL',
    title: 'Every fact with its history, aliases and forgotten claims, to import elsewhere; secrets stay masked',
  },
  {
    body: { format: 'markdown' },
    label: 'Export Markdown',
    title: 'A document to read and share: one section per subject, sensitive values withheld',
  },
] as const

/** The Export button and its menu. */
export class FmExport extends LitElement {
  static override properties = { app: { attribute: false }, opened: { state: true }, busy: { state: true } }

  static override styles = [
    baseStyles,
    css`
    :host { display: inline-block; position: relative; }
    button[data-fm='export'] { display: inline-flex; align-items: center; gap: 4px; white-space: nowrap; }
    svg.icon { width: 14px; height: 14px; flex: none; }
    [role='menu'] { position: absolute; right: 0; top: calc(100% + 4px); z-index: 10; min-width: 190px; display: flex; flex-direction: column;
      padding: 4px; border: 1px solid var(--dsw-alias-border-l2); border-radius: 10px; background: var(--dsw-alias-bg-base);
      box-shadow: var(--dsw-shadow-lv3, 0 4px 16px rgba(0, 0, 0, 0.2)); }
    [role='menuitem'] { border: 0; text-align: left; white-space: nowrap; padding: 6px 10px; border-radius: 6px; }
    [role='menuitem']:focus-visible { outline-offset: -2px; }
  `,
  ]

  declare app: AppState | undefined
  declare opened: boolean
  declare busy: boolean

  constructor() {
    super()
    this.opened = false
    this.busy = false
  }

  /** Esc closes the menu before the host's panel hears it and closes the whole page. */
  private readonly escape = new EscapeCloses(this, () => {
    this.close(true)
  })

  override disconnectedCallback(): void {
    super.disconnectedCallback()
    document.removeEventListener('pointerdown', this.onOutside, { capture: true })
  }

  private get items(): HTMLButtonElement[] {
    return [...this.renderRoot.querySelectorAll<HTMLButtonElement>('[role="menuitem"]')]
  }

  private async open(): Promise<void> {
    this.opened = true
    this.escape.listen()
    document.addEventListener('pointerdown', this.onOutside, { capture: true })
    await this.updateComplete
    this.items[0]?.focus()
  }

  /** Close the menu; with `refocus`, the focus goes back to the button. */
  private close(refocus: boolean): void {
    if (!this.opened) return
    this.opened = false
    this.escape.stop()
    document.removeEventListener('pointerdown', this.onOutside, { capture: true })
    if (refocus) this.renderRoot.querySelector<HTMLButtonElement>('button[data-fm="export"]')?.focus()
  }

  /** A press anywhere outside closes the menu. */
  private readonly onOutside = (event: Event): void => {
    if (!event.composedPath().includes(this)) this.close(false)
  }

  private onButtonKey(event: KeyboardEvent): void {
    if (event.key === 'ArrowDown' && !this.opened) {
      event.preventDefault()
      void this.open()
    }
  }

  private onMenuKey(event: KeyboardEvent): void {
    const items = this.items
    const target = event.composedPath()[0]
    // biome-ignore lint/complexity/useIndexOf: the target is any EventTarget, which indexOf on buttons does not take
    const at = items.findIndex((item) => item === target)
    const move = (to: number): void => {
      event.preventDefault()
      items[(to + items.length) % items.length]?.focus()
    }
    if (event.key === 'ArrowDown') move(at + 1)
    else if (event.key === 'ArrowUp') move(at - 1)
    else if (event.key === 'Home') move(0)
    else if (event.key === 'End') move(items.length - 1)
    else if (event.key === 'Tab') this.close(false)
  }

  private async choose(choice: (typeof CHOICES)[number]): Promise<void> {
    const app = this.app
    this.close(true)
    if (app === undefined || this.busy) return
    this.busy = true
    try {
      const answer = await callVerb('export', choice.body)
      if (!answer.ok) {
        app.toast(`Could not export: ${answer.message}`, { tone: 'error' })
        return
      }
      const file = exportDownload(answer.data.relativePath)
      if (file !== undefined) startDownload(this.renderRoot, file)
      app.toast(`${exportedWords(answer.data)}${file === undefined ? '' : ' Your browser downloads the same file.'}`)
    } finally {
      this.busy = false
    }
  }

  override render(): unknown {
    return html`
      <button type="button" data-fm="export" aria-haspopup="menu" aria-expanded=${String(this.opened)} ?disabled=${this.busy}
        title="Download the library as a file (a copy stays in the data directory's exports/)"
        @click=${() => {
          if (this.opened) this.close(false)
          else void this.open()
        }} @keydown=${(event: KeyboardEvent) => this.onButtonKey(event)}>
        ${this.busy ? 'Exporting…' : 'Export'}${icon(MENU_ICON)}</button>
      ${
        this.opened
          ? html`<div role="menu" data-fm="export-menu" aria-label="Export" @keydown=${(event: KeyboardEvent) => this.onMenuKey(event)}>
        ${CHOICES.map(
          (choice) => html`<button type="button" role="menuitem" tabindex="-1" title=${choice.title}
          @click=${() => {
            void this.choose(choice)
          }}>${choice.label}</button>`,
        )}
      </div>`
          : nothing
      }`
  }
}
