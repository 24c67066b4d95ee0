/**
 * The Fact memory page's place in the URL, as pure functions: `#fact-memory/<tab>` opens the page on that tab, and
 * the open page keeps the hash naming its tab, so a reload or a shared link returns there. The host's own routes do
 * not use the hash (rc.8 routes nothing through the URL); the `fact-memory` prefix keeps the plugin's link apart
 * from anything else a host or another plugin might put there.
 */
import type { PageState, Tab } from './app-state.ts'

/** The hash every link to the page starts with. */
export const PAGE_LINK = '#fact-memory'

/** The tabs a link may name, in the page's order. */
const TABS: readonly Tab[] = ['graph', 'library', 'proposals', 'conflicts', 'extraction']

/**
 * What a URL hash asks of the page.
 * @param hash - `location.hash`, with its `#` (or '').
 * @returns null when the hash is not a link to the page; otherwise the tab it names, undefined for `#fact-memory`
 *   alone or a tab this page does not have (the page then opens on the tab it would open on anyway).
 */
export function linkedPage(hash: string): { readonly tab: Tab | undefined } | null {
  if (hash !== PAGE_LINK && !hash.startsWith(`${PAGE_LINK}/`)) return null
  const named = hash.slice(PAGE_LINK.length + 1)
  return { tab: TABS.find((tab) => tab === named) }
}

/**
 * The hash the URL should carry for the page's state.
 * @param page - the page's state.
 * @param hash - the URL's hash now.
 * @returns the hash to write (`''` clears it), or null to leave the URL as it is: a closed page leaves alone a hash
 *   that is not its own.
 */
export function pageLink(page: PageState, hash: string): string | null {
  const wanted = page.open ? `${PAGE_LINK}/${page.tab}` : linkedPage(hash) === null ? hash : ''
  return wanted === hash ? null : wanted
}
