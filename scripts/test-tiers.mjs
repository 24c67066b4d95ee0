// Sorts the spec files into tiers by what they start: "browser" files drive Chromium, "host" files boot the real DSH
// host as a child process, "unit" files do neither (a real SQLite file, an in-process Cordis context at most). Read
// from each file's imports, so a new spec lands in the right tier without a list to keep.
import { readFileSync } from 'node:fs'

/** The tiers, in the order npm test runs them. */
export const TIERS = ['unit', 'host', 'browser']

// A browser file starts Chromium directly or through a helper that does (a page host, a store host, or the hooks
// usePageHost and useVectorRig register for the file).
const BROWSER = /\b(startPageHost|startStoreHost|usePageHost|useVectorRig|launchBrowser)\(/
const HOST =
  /from '\.\/helpers\/(page-host|dsh-host|headless-conversation|fact-memory-web)\.ts'|from '\.\.\/scripts\/dsh-profile\.ts'/

/**
 * The tier of one spec file.
 * @param {string} file - its path, relative to the repository root.
 * @returns {'unit' | 'host' | 'browser'}
 */
export function tierOf(file) {
  const text = readFileSync(file, 'utf8')
  if (BROWSER.test(text)) return 'browser'
  if (HOST.test(text)) return 'host'
  return 'unit'
}
