/**
 * <fm-team-memory>: the Team memory part of the Sync panel. It lists the projects shared through their repository
 * (status's `team`, handed down by the panel) with a "Stop sharing" button each, and takes a repository folder to
 * share with a "Share" button; both call the `team-memory` verb and report in words. Emits `fm-team-changed` after a
 * change, so the panel reads the status again.
 */
import { css, html, LitElement } from 'lit'
import { callVerb } from '../api.ts'
import { baseStyles } from '../styles.ts'
import { TEAM_INTRO, teamAnswerWords, teamProjectWords, type TeamStatusWire } from '../team-words.ts'

/** The Team memory part. */
export class FmTeamMemory extends LitElement {
  static override properties = {
    team: { attribute: false },
    message: { state: true },
    busy: { state: true },
  }

  static override styles = [
    baseStyles,
    css`
    :host { display: block; margin-top: 8px; }
    p { margin: 0 0 4px; overflow-wrap: anywhere; }
    ul { margin: 4px 0 8px; padding-left: 20px; }
    li { overflow-wrap: anywhere; }
    .row { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin-top: 4px; }
    .row input { flex: 1 1 16em; min-width: 12em; }
    h5 { margin: 8px 0 2px; font-size: 12px; color: var(--dsw-alias-label-secondary); font-weight: 600; }
  `,
  ]

  declare team: TeamStatusWire
  declare message: string
  declare busy: boolean

  constructor() {
    super()
    this.team = []
    this.message = ''
    this.busy = false
  }

  private async setShared(folder: string, shared: boolean): Promise<void> {
    if (folder.trim() === '') {
      this.message = "Name the repository's folder first (its root, or any folder in it)."
      return
    }
    this.busy = true
    this.message = shared ? 'Sharing…' : 'Stopping…'
    const answer = await callVerb('team-memory', { folder: folder.trim(), shared })
    this.busy = false
    this.message = answer.ok ? teamAnswerWords(answer.data) : answer.message
    if (!answer.ok) return
    const input = this.renderRoot.querySelector<HTMLInputElement>('input[name=team-folder]')
    if (input !== null && shared) input.value = ''
    this.dispatchEvent(new CustomEvent('fm-team-changed', { bubbles: true, composed: true }))
  }

  override render(): unknown {
    const now = Date.now()
    return html`
      <h5>Team memory</h5>
      <p class="caption">${TEAM_INTRO}</p>
      <ul data-fm="team-projects">${this.team.map(
        (project) =>
          html`<li>${teamProjectWords(project, now).map((line) => html`<div>${line}</div>`)}<button data-fm="team-stop" ?disabled=${this.busy} @click=${() => {
            void this.setShared(project.root, false)
          }}>Stop sharing</button></li>`,
      )}</ul>
      <div class="row">
        <input name="team-folder" data-fm="team-folder" placeholder="/path/to/your/repository" aria-label="Repository folder" />
        <button data-fm="team-share" ?disabled=${this.busy} @click=${() => {
          const input = this.renderRoot.querySelector<HTMLInputElement>('input[name=team-folder]')
          void this.setShared(input?.value ?? '', true)
        }}>Share this project's facts</button>
      </div>
      <p role="status" class="muted" data-fm="team-message">${this.message}</p>`
  }
}
