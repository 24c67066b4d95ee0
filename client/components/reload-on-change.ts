/** A Lit controller that keeps a tab view current with the store the page edits. */
import type { ReactiveController, ReactiveControllerHost } from 'lit'
import type { AppState } from '../app-state.ts'

/** A view that reads the store through the page's shared state. */
interface StoreView extends ReactiveControllerHost {
  readonly app: AppState | undefined
}

/**
 * Loads the view when it receives (another) AppState, and again whenever the page changed the store, for as long
 * as the view is connected; a view that is reconnected subscribes and loads again.
 */
export class ReloadOnChange implements ReactiveController {
  private readonly host: StoreView
  private readonly reload: () => void
  private app: AppState | undefined
  private unsubscribe: (() => void) | undefined

  /**
   * @param host - the view; it must expose `app`.
   * @param reload - what loading the view means.
   */
  constructor(host: StoreView, reload: () => void) {
    this.host = host
    this.reload = reload
    host.addController(this)
  }

  hostConnected(): void {
    // The next update attaches to whatever AppState the view has by then.
    this.host.requestUpdate()
  }

  hostUpdate(): void {
    const app = this.host.app
    if (app === this.app) return
    this.detach()
    this.app = app
    if (app === undefined) return
    this.unsubscribe = app.changes.subscribe(this.reload)
    this.reload()
  }

  hostDisconnected(): void {
    this.detach()
    this.app = undefined
  }

  private detach(): void {
    this.unsubscribe?.()
    this.unsubscribe = undefined
  }
}
