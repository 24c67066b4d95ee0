/**
 * Runs several spec files in this one Node process, one after another: npm test's bundles (scripts/test-bundles.mjs).
 * Each file is imported inside a suite named by its path, so what it registers at its top level (tests, before,
 * after, beforeEach, usePageHost…) belongs to that suite and runs around its own tests alone, as when the file runs
 * by itself. Browser files in a bundle share one connection to the run's Chromium and the contexts it keeps
 * (tests/helpers/browser.ts), closed once every file has run.
 *   node --disable-warning=ExperimentalWarning tests/helpers/bundle.ts tests/a.spec.ts tests/b.spec.ts
 */
import { resolve } from 'node:path'
import { after, describe } from 'node:test'
import { pathToFileURL } from 'node:url'
import { endBundle, markBundle } from './bundle-state.ts'

markBundle()
for (const file of process.argv.slice(2)) {
  describe(file, async () => {
    await import(pathToFileURL(resolve(file)).href)
  })
}
after(endBundle)
