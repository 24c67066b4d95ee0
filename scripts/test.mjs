// npm test: build both halves (the booted host loads lib/ and lib/client.js; the build emits without checking), then
// type-check once: sources, tests and scripts in one pass (tests/tsconfig.json includes src/), and the browser half
// against the real host declarations; then run every tests/*.spec.ts with node:test in three tiers (scripts/test-tiers.mjs):
// unit files, then files that boot a DSH host, then files that drive Chromium, each tier's files run side by side up
// to its own concurrency, the browser tier against one shared Chromium. Each tier prints its time and test count;
// every tier runs even when an earlier one failed, and the run fails when any did.
//   --times            also print every file's wall time and test count, slowest first (scripts/test-times.mjs)
//   --tier=<name>      run only this tier (repeatable): unit, host or browser
//   tests/x.spec.ts    run only these files (still in their tiers); anything else is passed to node --test
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { TIERS, tierOf } from './test-tiers.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url))

/**
 * How many files of a tier run at once. Unit files mostly compute, so a few more than the cores keeps the cores busy
 * through each file's start-up; host and browser files mostly wait (on a host's boot, a page, a poll), but each
 * one's host and browser take a core while they work, and their waits are bounded: two at a time.
 */
const CONCURRENCY = { unit: 4, host: 2, browser: 2 }

function runStep(label, args) {
  const started = Date.now()
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' })
  if (result.status !== 0) {
    console.error(`\n${label} failed (exit ${result.status ?? result.signal})`)
    process.exit(result.status ?? 1)
  }
  console.log(`${label}: ok in ${seconds(started)} s`)
}

function seconds(since) {
  return ((Date.now() - since) / 1000).toFixed(1)
}

const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  console.error(
    `npm test needs Node >= 22.19 (this is ${process.version}); .ci/run shows how to get it from the npm registry`,
  )
  process.exit(1)
}

const argv = process.argv.slice(2)
const showTimes = argv.includes('--times')
const onlyTiers = argv.filter((arg) => arg.startsWith('--tier=')).map((arg) => arg.slice('--tier='.length))
for (const tier of onlyTiers) {
  if (!TIERS.includes(tier)) {
    console.error(`unknown tier "${tier}": one of ${TIERS.join(', ')}`)
    process.exit(1)
  }
}
const named = argv.filter((arg) => arg.endsWith('.ts'))
const extra = argv.filter((arg) => arg !== '--times' && !arg.startsWith('--tier=') && !arg.endsWith('.ts'))
const files =
  named.length > 0
    ? named
    : readdirSync(join(root, 'tests'))
        .filter((file) => file.endsWith('.spec.ts'))
        .sort()
        .map((file) => `tests/${file}`)

runStep('build', [tsc, '-p', 'tsconfig.json', '--noCheck'])
runStep('client build', ['scripts/build-client.mjs'])
runStep('typecheck', [tsc, '-p', 'tests/tsconfig.json'])
runStep('client typecheck', [tsc, '-p', 'client/tsconfig.json'])

const reports = mkdtempSync(join(tmpdir(), 'fact-memory-test-times-'))
const summaries = []
let failed = false
try {
  for (const tier of TIERS) {
    if (onlyTiers.length > 0 && !onlyTiers.includes(tier)) continue
    const tierFiles = files.filter((file) => tierOf(join(root, file)) === tier)
    if (tierFiles.length === 0) continue
    const summary = await runTier(tier, tierFiles)
    console.log(`\n${tierLine(summary)}\n`)
    summaries.push(summary)
    failed ||= !summary.ok
  }
} finally {
  rmSync(reports, { recursive: true, force: true })
}

console.log('')
for (const summary of summaries) console.log(tierLine(summary))
const total = summaries.reduce((sum, { tests }) => sum + tests, 0)
const wall = summaries.reduce((sum, { elapsed }) => sum + Number(elapsed), 0)
console.log(`tests: ${failed ? 'FAILED' : 'ok'}, ${total} tests in ${wall.toFixed(1)} s`)
process.exit(failed ? 1 : 0)

/** One tier's outcome, time and test count, as one line. */
function tierLine({ tier, ok, files: count, tests, elapsed }) {
  return `tests (${tier}): ${ok ? 'ok' : 'FAILED'}, ${count} files, ${tests} tests in ${elapsed} s`
}

/**
 * Run one tier's files with node --test, the spec reporter on stdout and the times reporter into a file.
 * @param {string} tier - its name.
 * @param {string[]} tierFiles - its files, relative to the root.
 * @returns {Promise<{ tier: string, ok: boolean, files: number, tests: number, elapsed: string }>}
 */
async function runTier(tier, tierFiles) {
  const started = Date.now()
  const timesFile = join(reports, `${tier}.txt`)
  const browser = tier === 'browser' ? await startSharedBrowser() : undefined
  try {
    const code = await new Promise((resolveRun) => {
      const child = spawn(
        process.execPath,
        [
          '--test',
          `--test-concurrency=${CONCURRENCY[tier]}`,
          '--test-reporter=spec',
          '--test-reporter-destination=stdout',
          '--test-reporter=./scripts/test-times.mjs',
          `--test-reporter-destination=${timesFile}`,
          '--disable-warning=ExperimentalWarning',
          ...extra,
          ...tierFiles,
        ],
        { cwd: root, stdio: 'inherit', env: browser === undefined ? process.env : { ...process.env, ...browser.env } },
      )
      child.once('exit', (status, signal) => resolveRun(status ?? signal))
    })
    const table = readFileSync(timesFile, 'utf8')
    if (showTimes) console.log(table)
    const tests = table
      .split('\n')
      .map((line) => /^\s*[\d.]+\s+(\d+)\s+\w+\s+\S+/u.exec(line))
      .filter((match) => match !== null)
      .reduce((sum, match) => sum + Number(match[1]), 0)
    return { tier, ok: code === 0, files: tierFiles.length, tests, elapsed: seconds(started) }
  } finally {
    browser?.stop()
  }
}

/**
 * Start the run's one Chromium (tests/helpers/browser-server.ts) and wait for its endpoint.
 * @returns the environment that points spec files at it, and how to stop it.
 */
async function startSharedBrowser() {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', 'tests/helpers/browser-server.ts'], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const endpoint = await new Promise((resolveEndpoint, reject) => {
    const lines = createInterface({ input: child.stdout })
    lines.once('line', (line) => resolveEndpoint(line.trim()))
    child.once('exit', (status) => reject(new Error(`the shared Chromium did not start (exit ${status})`)))
  })
  return {
    env: { FACT_MEMORY_BROWSER_WS: endpoint },
    stop: () => {
      child.stdin.end()
    },
  }
}
