// A node:test reporter that finds the slow spec files: it records each file's wall time (the file-level test the
// runner wraps every file in, or in one of npm test's bundles the suite tests/helpers/bundle.ts names after the file)
// and how many tests it ran, and at the end prints one line per file, slowest first, with a sum per tier. npm test
// runs it on each process for its test count and each bundled file's seconds; to see a table of several files:
//   npm test -- --times                                   (npm test's own table, from each file's wall time)
//   node --test --test-reporter=./scripts/test-times.mjs --disable-warning=ExperimentalWarning tests/x.spec.ts
import { relative } from 'node:path'
import { BUNDLE_ENTRY } from './test-bundles.mjs'
import { tierOf } from './test-tiers.mjs'

/**
 * Counts and times per file from the runner's event stream; yields the table once the stream ends.
 * @param {AsyncIterable<{ type: string, data: any }>} source - the runner's events.
 */
export default async function* testTimes(source) {
  /** @type {Map<string, { seconds: number, tests: number, failed: number }>} */
  const files = new Map()
  const entry = (file) => {
    let row = files.get(file)
    if (row === undefined) {
      row = { seconds: 0, tests: 0, failed: 0 }
      files.set(file, row)
    }
    return row
  }
  for await (const { type, data } of source) {
    if (data.file === undefined) continue
    const file = relative(process.cwd(), data.file)
    if (data.nesting === 0 && file === BUNDLE_ENTRY) {
      // A bundled file's suite, named after the file: its duration is the file's time in the bundle.
      if (type === 'test:pass' || type === 'test:fail') entry(data.name).seconds = data.details.duration_ms / 1000
      if (type === 'test:fail') entry(data.name).failed += 1
      continue
    }
    const fileLevel = data.nesting === 0 && data.name === file
    if (type === 'test:complete' && fileLevel) {
      // The file-level test (reported only as complete): its duration is the file's wall time, start to exit.
      entry(file).seconds = data.details.duration_ms / 1000
      if (data.details.passed === false) entry(file).failed += 1
      continue
    }
    if ((type !== 'test:pass' && type !== 'test:fail') || fileLevel || data.details?.type === 'suite') continue
    entry(file).tests += 1
    if (type === 'test:fail') entry(file).failed += 1
  }
  const rows = [...files].sort((a, b) => b[1].seconds - a[1].seconds)
  const lines = ['', 'seconds  tests  tier     file']
  /** @type {Map<string, { seconds: number, tests: number, files: number }>} */
  const tiers = new Map()
  for (const [file, row] of rows) {
    const tier = tierOf(file)
    lines.push(
      `${row.seconds.toFixed(1).padStart(7)}  ${String(row.tests).padStart(5)}  ${tier.padEnd(7)}  ${file}${row.failed > 0 ? '  FAILED' : ''}`,
    )
    const sum = tiers.get(tier) ?? { seconds: 0, tests: 0, files: 0 }
    tiers.set(tier, { seconds: sum.seconds + row.seconds, tests: sum.tests + row.tests, files: sum.files + 1 })
  }
  lines.push('', 'sum of file times per tier (files overlap when run concurrently):')
  for (const [tier, sum] of [...tiers].sort()) {
    lines.push(
      `  ${tier.padEnd(7)} ${String(sum.files).padStart(3)} files ${String(sum.tests).padStart(5)} tests ${sum.seconds.toFixed(1).padStart(8)} s`,
    )
  }
  yield `${lines.join('\n')}\n`
}
