/**
 * A Lit controller for a dialog a component opens over the page: while it is open, Esc closes that dialog and
 * nothing else (the window hears it first, in the capture phase, so the host's panel never closes the whole page).
 * The listener is added when the dialog opens, removed when it closes, and never outlives the component.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit'

export class EscapeCloses implements ReactiveController {
  private readonly close: () => void
  private listening = false

  /**
   * @param host - the component.
   * @param close - how the component closes its dialog.
   */
  constructor(host: ReactiveControllerHost, close: () => void) {
    this.close = close
    host.addController(this)
  }

  /** The dialog opened: Esc now closes it. */
  listen(): void {
    if (this.listening) return
    this.listening = true
    window.addEventListener('keydown', this.onKey, { capture: true })
  }

  /** The dialog closed: Esc goes back to whoever else listens. */
  stop(): void {
    if (!this.listening) return
    this.listening = false
    window.removeEventListener('keydown', this.onKey, { capture: true })
  }

  hostDisconnected(): void {
    this.stop()
  }

  private readonly onKey = (event: KeyboardEvent): void => {
    if (event.key !== 'Escape') return
    event.preventDefault()
    event.stopImmediatePropagation()
    this.close()
  }
}
