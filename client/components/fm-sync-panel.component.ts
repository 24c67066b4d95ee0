/**
 * <fm-sync-panel>: the Sync panel of the settings card, under the sync keys. It shows where memory syncs to (URLs
 * masked) and whether the files are encrypted, this device, the devices seen with the last change and the last sync
 * of each, what waits to be sent, the last and next rounds, the problems in words, and a "Sync now" button; below it,
 * Team memory (<fm-team-memory>, which works with sync off). It reads the `status` verb's `sync` and `team` on
 * arrival, after every change the page makes, and every few seconds while shown.
 */
import { css, html, LitElement, nothing } from 'lit'
import type { AppState } from '../app-state.ts'
import { callVerb } from '../api.ts'
import { baseStyles } from '../styles.ts'
import {
  peerWords,
  problemWords,
  roundWords,
  syncNowWords,
  syncStateWords,
  thisDeviceWords,
  type SyncStatusWire,
} from '../sync-words.ts'
import { ReloadOnChange } from './reload-on-change.ts'
import type { TeamStatusWire } from '../team-words.ts'

/** How often the panel reads the status again while it is shown. */
const REFRESH_MS = 5_000

/** The Sync panel. */
export class FmSyncPanel extends LitElement {
  static override properties = {
    app: { attribute: false },
    status: { state: true },
    team: { state: true },
    timeZone: { state: true },
    message: { state: true },
    busy: { state: true },
  }

  static override styles = [
    baseStyles,
    css`
    :host { display: block; margin: 8px 0 4px; padding: 12px; border: 1px solid var(--dsw-alias-border-l1); border-radius: 8px; }
    p { margin: 0 0 4px; overflow-wrap: anywhere; }
    ul { margin: 4px 0 8px; padding-left: 20px; }
    li { overflow-wrap: anywhere; }
    .problems li { color: var(--fm-error-text); }
    .row { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin-top: 8px; }
    h5 { margin: 8px 0 2px; font-size: 12px; color: var(--dsw-alias-label-secondary); font-weight: 600; }
  `,
  ]

  declare app: AppState | undefined
  declare status: SyncStatusWire | null | undefined
  declare team: TeamStatusWire
  declare timeZone: string
  declare message: string
  declare busy: boolean
  private timer: ReturnType<typeof setInterval> | undefined

  constructor() {
    super()
    new ReloadOnChange(this, () => {
      void this.load()
    })
    this.status = undefined
    this.team = []
    this.timeZone = ''
    this.message = ''
    this.busy = false
  }

  override connectedCallback(): void {
    super.connectedCallback()
    this.timer = setInterval(() => {
      if (document.visibilityState !== 'hidden') void this.load()
    }, REFRESH_MS)
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback()
    clearInterval(this.timer)
    this.timer = undefined
  }

  /** Read the status again (the card calls it after saving settings). */
  async load(): Promise<void> {
    const answer = await callVerb('status', {})
    if (!answer.ok) return
    this.status = answer.data.sync
    this.team = answer.data.team
    this.timeZone = answer.data.timeZone
  }

  private async syncNow(): Promise<void> {
    this.busy = true
    this.message = 'Syncing…'
    const answer = await callVerb('sync-now', {})
    this.busy = false
    if (answer.ok) {
      this.status = answer.data.status
      this.message = syncNowWords(answer.data.round)
      if (answer.data.round.received > 0) this.app?.changed()
    } else this.message = answer.message
  }

  override render(): unknown {
    const status = this.status
    if (status === undefined) return html`<p class="muted">Loading the sync status…</p>`
    if (status === null) return html`<p class="muted">Sync needs the store, which is not open.</p>`
    const now = Date.now()
    return html`
      <p data-fm="sync-state">${syncStateWords(status)}</p>
      <p class="caption" data-fm="sync-device">${thisDeviceWords(status)}</p>
      ${status.state === 'on' ? this.renderRounds(status, now) : nothing}
      ${
        status.problems.length === 0
          ? nothing
          : html`<h5>Problems</h5><ul class="problems" data-fm="sync-problems">${status.problems.map((problem) => html`<li>${problemWords(problem)}</li>`)}</ul>`
      }
      ${
        status.state === 'on'
          ? html`<div class="row"><button data-fm="sync-now" ?disabled=${this.busy} @click=${() => {
              void this.syncNow()
            }}>Sync now</button><span role="status" class="muted" data-fm="sync-message">${this.message}</span></div>`
          : nothing
      }
      <fm-team-memory .team=${this.team} @fm-team-changed=${() => {
        void this.load()
        this.app?.changed()
      }}></fm-team-memory>`
  }

  private renderRounds(status: SyncStatusWire, now: number): unknown {
    return html`
      <ul data-fm="sync-rounds">${roundWords(status, this.timeZone, now).map((line) => html`<li>${line}</li>`)}</ul>
      <h5>Devices seen</h5>
      ${
        status.devices.length === 0
          ? html`<p class="muted" data-fm="sync-devices">No other device has synced to this target yet.</p>`
          : html`<ul data-fm="sync-devices">${status.devices.map((peer) => html`<li>${peerWords(peer, this.timeZone, now)}</li>`)}</ul>`
      }`
  }
}
