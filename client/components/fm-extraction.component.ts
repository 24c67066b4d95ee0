/** <fm-extraction>: the extraction queue. Automatic extraction is not active in this version; the tab says so. */
import { css, html, LitElement } from 'lit'
import { baseStyles } from '../styles.ts'

/** The extraction queue view. */
export class FmExtraction extends LitElement {
  static override styles = [baseStyles, css`:host { display: block; padding: 16px; overflow: auto; }`]

  /** Nothing to reload yet. */
  refresh(): void {}

  override render(): unknown {
    return html`<div class="empty" data-fm="extraction-inactive">
      <p><strong>Automatic extraction is not active in this version.</strong></p>
      <p>When it arrives, passes that read each finished turn will queue here (running, queued, waiting out the debounce
        or a retry, parked after failures), and the last ten finished passes will be listed with what they wrote.</p>
      <p class="caption">Facts are written today by the assistant through memory_write, and by you on this page.</p>
    </div>`
  }
}
