/**
 * Opening the Fact memory page from the settings card. The host's Settings modal sits above the overlay layer the
 * page lives in, so opening the page under an open modal would leave it hidden: the modal around the card is closed
 * first, the way a person closes it, by a click on its mask (rc.8 draws the mask as the dialog's previous sibling,
 * marked aria-hidden, and closes Settings on its click). Without such a modal the page simply opens.
 */
import type { AppState, Tab } from './app-state.ts'

/**
 * Close the Settings modal that holds `from`, if any, then open the page.
 * @param app - the shared state.
 * @param from - the element that was clicked (inside the card, shadow roots included).
 * @param tab - the tab to open on.
 */
export function openPageFromSettings(app: AppState | undefined, from: Element, tab: Tab): void {
  closeModalAround(from)
  app?.open(tab)
}

/** Click the mask of the modal dialog around an element; false when there is none. */
function closeModalAround(from: Element): boolean {
  let node: Element | null = from
  while (node !== null && !(node.getAttribute('role') === 'dialog' && node.getAttribute('aria-modal') === 'true')) {
    const root = node.getRootNode()
    node = node.parentElement ?? (root instanceof ShadowRoot ? root.host : null)
  }
  const mask = node?.previousElementSibling
  if (!(mask instanceof HTMLElement) || mask.getAttribute('aria-hidden') !== 'true') return false
  mask.click()
  return true
}
