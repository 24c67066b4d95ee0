/**
 * Keeps the page and the URL's hash in step (see page-link.ts): a link opens the page on its tab when the client
 * starts and whenever the hash changes; opening, switching tabs and closing rewrite the hash in place, so the
 * browser's history gains no entry per tab and Back leaves the app as it would without the page.
 */
import type { AppState } from './app-state.ts'
import { linkedPage, pageLink } from './page-link.ts'

/**
 * Follow the URL's hash into the page, and the page into the hash.
 * @param app - the shared state.
 * @returns a function that stops following.
 */
export function followPageLink(app: AppState): () => void {
  const openLinked = (): void => {
    const linked = linkedPage(location.hash)
    if (linked !== null) app.open(linked.tab)
  }
  const writeLink = (): void => {
    const hash = pageLink(app.page.getSnapshot(), location.hash)
    if (hash === null) return
    history.replaceState(history.state, '', `${location.pathname}${location.search}${hash}`)
  }
  const stop = app.page.subscribe(writeLink)
  window.addEventListener('hashchange', openLinked)
  openLinked()
  return () => {
    window.removeEventListener('hashchange', openLinked)
    stop()
  }
}
