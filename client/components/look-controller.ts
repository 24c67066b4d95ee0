/** A Lit controller that tells when the user has looked at a view, as opposed to the view merely being loaded. */
import type { ReactiveController, ReactiveControllerHost } from 'lit'

/**
 * Calls `onLooked` once per connection, after the view has been armed (its content is on screen) and has then stayed
 * connected with the browser tab visible for `dwellMs` without a break. A hidden tab stops the clock and a visible
 * one starts it again from zero; leaving the view (disconnecting) forgets the visit. Reloads while the view is shown
 * (auto refresh, a change elsewhere on the page) arm it again, which changes nothing.
 */
export class LookController implements ReactiveController {
  private readonly dwellMs: number
  private readonly onLooked: () => void
  private armed = false
  private looked = false
  private timer: ReturnType<typeof setTimeout> | undefined

  /**
   * @param host - the view.
   * @param dwellMs - how long the content must be in view to count as looked at.
   * @param onLooked - what looking means; called at most once per connection.
   */
  constructor(host: ReactiveControllerHost, dwellMs: number, onLooked: () => void) {
    this.dwellMs = dwellMs
    this.onLooked = onLooked
    host.addController(this)
  }

  /** The view's content is on screen now: start the clock if the browser tab is visible. */
  arm(): void {
    if (this.armed) return
    this.armed = true
    this.restart()
  }

  hostConnected(): void {
    document.addEventListener('visibilitychange', this.onVisibility)
  }

  hostDisconnected(): void {
    document.removeEventListener('visibilitychange', this.onVisibility)
    this.stop()
    this.armed = false
    this.looked = false
  }

  private readonly onVisibility = (): void => {
    this.restart()
  }

  private restart(): void {
    this.stop()
    if (!this.armed || this.looked || document.visibilityState !== 'visible') return
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.looked = true
      this.onLooked()
    }, this.dwellMs)
  }

  private stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
  }
}
