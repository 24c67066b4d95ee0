/**
 * What spec helpers need to know of tests/helpers/bundle.ts: whether this process runs several spec files one after
 * another, and what to end once the last of them has run. Kept apart from browser.ts, so a bundle of unit files never
 * loads Playwright (about 0.9 CPU-s).
 */
let bundled = false
const endings: Array<() => Promise<void>> = []

/** Say that this process runs a bundle (tests/helpers/bundle.ts does, before it imports the files). */
export function markBundle(): void {
  bundled = true
}

/** Whether this process runs a bundle. */
export function inBundle(): boolean {
  return bundled
}

/** Have `end` run once every file of the bundle has run. */
export function atBundleEnd(end: () => Promise<void>): void {
  endings.push(end)
}

/** Run what the bundle's files left to end, in the order it was asked. */
export async function endBundle(): Promise<void> {
  for (const end of endings.splice(0)) await end()
}
