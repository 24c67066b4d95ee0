// npm test: build both halves (the booted host loads lib/ and lib/client.js; the build emits without checking), and
// type-check once, beside the build and the spec files: sources, tests and scripts in one pass (tests/tsconfig.json
// includes src/), and the browser half against the real host declarations; and run every tests/*.spec.ts in one
// weighted pool over three tiers (scripts/test-tiers.mjs: unit files, files that boot a DSH host, files that drive
// Chromium, against one shared Chromium), the slowest first by the last run's times (scripts/test-pool.mjs): a long
// file in a Node process of its own, the shorter files of a tier in bundles, several to a process
// (scripts/test-bundles.mjs).
// Each tier prints its test count and its time from its first file's start to its last one's end; every file runs
// even when another failed, and the run fails when any did; a failed job's failures are repeated beside the summary.
//   --times            also print every file's wall time, CPU time and test count, slowest first, and the shared
//                      Chromium's CPU time (CPU read through /usr/bin/time, Debian's `time`, when it is installed)
//   --tier=<name>      run only this tier (repeatable): unit, host or browser
//   --serial-tiers     run the tiers one after another (unit, host, browser), as npm test did before the pool
//   --no-build         skip the build and the type-checks (lib/ must be current): to time the tiers alone
//   --no-bundles       run every file in a process of its own (scripts/test-bundles.mjs bundles the short ones)
//   --record-times     write this run's seconds per file into scripts/test-times.json, the committed record a fresh
//                      clone lays its run out by (re-record on the two-core reference machine after adding specs)
//   tests/x.spec.ts    run only these files (still in their tiers); anything else is passed to node with each file
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { alone, BUNDLE_ENTRY, bundleJobs } from './test-bundles.mjs'
import { failureRecap } from './test-failures.mjs'
import {
  expectedSeconds,
  knownTimings,
  RECORDED_TIMES,
  readTimings,
  recordedAfter,
  runPool,
  timingsFile,
  writeTimings,
} from './test-pool.mjs'
import { openScratch } from './test-scratch.mjs'
import { TIERS, tierOf } from './test-tiers.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url))

/** Run one build step to its end (the checks started before it go on meanwhile); a failure ends the run. */
async function runStep(label, args) {
  const started = Date.now()
  const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' })
  const [status, signal] = await new Promise((resolveStep) => {
    child.once('close', (code, killed) => resolveStep([code, killed]))
  })
  if (status !== 0) {
    console.error(`\n${label} failed (exit ${status ?? signal})`)
    process.exit(status ?? 1)
  }
  console.log(`${label}: ok in ${seconds(started)} s`)
}

/**
 * Start one check in the background, its output kept to be printed only when it fails.
 * @returns {Promise<{ label: string, ok: boolean, status: number | null, output: string, seconds: string }>}
 */
function startCheck(label, args) {
  const from = Date.now()
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
  const output = []
  child.stdout.on('data', (chunk) => output.push(chunk))
  child.stderr.on('data', (chunk) => output.push(chunk))
  return new Promise((resolveCheck) => {
    child.once('close', (status) =>
      resolveCheck({
        label,
        ok: status === 0,
        status,
        output: Buffer.concat(output).toString(),
        seconds: seconds(from),
      }),
    )
  })
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
/** Each file's CPU seconds (its process and every process it started and waited for), when asked and measurable. */
const TIME = '/usr/bin/time'
const measureCpu = showTimes && existsSync(TIME)
const serialTiers = argv.includes('--serial-tiers')
const noBuild = argv.includes('--no-build')
const noBundles = argv.includes('--no-bundles')
const recordTimes = argv.includes('--record-times')
const onlyTiers = argv.filter((arg) => arg.startsWith('--tier=')).map((arg) => arg.slice('--tier='.length))
for (const tier of onlyTiers) {
  if (!TIERS.includes(tier)) {
    console.error(`unknown tier "${tier}": one of ${TIERS.join(', ')}`)
    process.exit(1)
  }
}
const named = argv.filter((arg) => arg.endsWith('.ts'))
const extra = argv.filter(
  (arg) =>
    !['--times', '--serial-tiers', '--no-build', '--no-bundles', '--record-times'].includes(arg) &&
    !arg.startsWith('--tier=') &&
    !arg.endsWith('.ts'),
)
const files = named.length > 0 ? named : allSpecFiles()

/** Every spec file, as npm test names them: tests/x.spec.ts. */
function allSpecFiles() {
  return readdirSync(join(root, 'tests'))
    .filter((file) => file.endsWith('.spec.ts'))
    .sort()
    .map((file) => `tests/${file}`)
}

// The type-checks read files and emit nothing, so they run beside the build (which uses one core) and the spec files;
// their outcome joins the run's.
const checks = noBuild
  ? []
  : [
      startCheck('typecheck', [tsc, '-p', 'tests/tsconfig.json']),
      startCheck('client typecheck', [tsc, '-p', 'client/tsconfig.json']),
    ]
if (!noBuild) {
  await runStep('build', [tsc, '-p', 'tsconfig.json', '--noCheck'])
  await runStep('client build', ['scripts/build-client.mjs'])
}

const reports = mkdtempSync(join(tmpdir(), 'fact-memory-test-times-'))
const timingsPath = timingsFile(root)
const timings = knownTimings(root)
const fileJobs = files
  .map((file) => ({ file, path: join(root, file), tier: tierOf(join(root, file)) }))
  .filter(({ tier }) => onlyTiers.length === 0 || onlyTiers.includes(tier))
  .map((job) => ({ ...job, seconds: expectedSeconds(job, timings) }))
const jobs = (noBundles ? fileJobs.map(alone) : bundleJobs(fileJobs)).map((job, index) => ({ ...job, index }))
const scratch = openScratch()
console.log(`scratch files: ${scratch.label}`)
const started = Date.now()
const browser = jobs.some(({ tier }) => tier === 'browser') ? await startSharedBrowser() : undefined
/** @type {Array<{ label: string, files: string[], tier: string, ok: boolean, recap?: string, tests: number, seconds: Map<string, number>, started: number, ended: number }>} */
let results
/** @type {number | undefined} */
let browserCpu
try {
  results = await runPool(jobs, { tierOrder: serialTiers ? TIERS : undefined, run: (job) => runJob(job, browser) })
} finally {
  browserCpu = await browser?.stop()
  rmSync(reports, { recursive: true, force: true })
  scratch.remove()
}
const measuredTimes = Object.fromEntries(
  results.flatMap(({ files: ran, seconds: measured, ended, started: from }) =>
    ran.map((file) => [file, ran.length === 1 ? (ended - from) / 1000 : (measured.get(file) ?? 0)]),
  ),
)
writeTimings(timingsPath, measuredTimes)
if (recordTimes) {
  const recordPath = join(root, RECORDED_TIMES)
  const record = recordedAfter(readTimings(recordPath), measuredTimes, allSpecFiles())
  writeFileSync(recordPath, `${JSON.stringify(record, null, 2)}\n`)
  console.log(`recorded ${Object.keys(record).length} files' seconds in ${RECORDED_TIMES}`)
}

const checked = await Promise.all(checks)
const summaries = TIERS.map((tier) => tierSummary(tier, results)).filter((summary) => summary !== undefined)
if (showTimes) console.log(timesTable(results, browserCpu))
for (const { label, tier, recap } of results.filter(({ ok }) => !ok)) {
  process.stdout.write(`\n── FAILED: ${label} (${tier}), its failures again\n${recap}\n`)
}
console.log('')
for (const check of checked) {
  if (!check.ok) process.stdout.write(check.output)
  console.log(
    `${check.label}: ${check.ok ? 'ok' : `FAILED (exit ${check.status})`} in ${check.seconds} s, beside the tests`,
  )
}
for (const summary of summaries) console.log(tierLine(summary))
const failed = results.some(({ ok }) => !ok) || checked.some(({ ok }) => !ok)
const total = results.reduce((sum, { tests }) => sum + tests, 0)
console.log(`tests: ${failed ? 'FAILED' : 'ok'}, ${total} tests in ${seconds(started)} s`)
process.exit(failed ? 1 : 0)

/**
 * One tier's outcome, test count and time: from its first file's start to its last file's end (tiers overlap in the
 * pool, so the tiers' times add up to more than the run's).
 */
function tierSummary(tier, all) {
  const ours = all.filter((result) => result.tier === tier)
  if (ours.length === 0) return undefined
  const from = Math.min(...ours.map((result) => result.started))
  const to = Math.max(...ours.map((result) => result.ended))
  return {
    tier,
    ok: ours.every((result) => result.ok),
    files: fileCount(ours),
    tests: ours.reduce((sum, result) => sum + result.tests, 0),
    elapsed: ((to - from) / 1000).toFixed(1),
  }
}

/** How many spec files some jobs ran. */
function fileCount(jobs) {
  return jobs.reduce((count, job) => count + job.files.length, 0)
}

/** One tier's outcome, time and test count, as one line. */
function tierLine({ tier, ok, files: count, tests, elapsed }) {
  return `tests (${tier}): ${ok ? 'ok' : 'FAILED'}, ${count} files, ${tests} tests in ${elapsed} s`
}

/**
 * Every file's wall time, CPU time (when measured) and test count, slowest first, then the sums per tier and the
 * shared Chromium's CPU time (the pages of every browser file, not counted in their files' own CPU).
 */
function timesTable(all, chromiumCpu) {
  const rows = [...all].sort((a, b) => b.ended - b.started - (a.ended - a.started))
  const cpuText = (cpu) => (cpu === undefined ? '      -' : cpu.toFixed(1).padStart(7))
  const lines = ['', 'seconds  cpu s  tests  tier     file']
  for (const row of rows) {
    const wall = ((row.ended - row.started) / 1000).toFixed(1).padStart(7)
    lines.push(
      `${wall}  ${cpuText(row.cpu)}  ${String(row.tests).padStart(5)}  ${row.tier.padEnd(7)}  ${row.label}${row.ok ? '' : '  FAILED'}`,
    )
  }
  lines.push('', 'sums per tier (files overlap when run concurrently): wall s, cpu s')
  for (const tier of TIERS) {
    const ours = all.filter((row) => row.tier === tier)
    if (ours.length === 0) continue
    const sum = ours.reduce((total, row) => total + (row.ended - row.started) / 1000, 0)
    const cpu = ours.every((row) => row.cpu !== undefined) ? ours.reduce((total, row) => total + row.cpu, 0) : undefined
    const tests = ours.reduce((total, row) => total + row.tests, 0)
    lines.push(
      `  ${tier.padEnd(7)} ${String(fileCount(ours)).padStart(3)} files ${String(tests).padStart(5)} tests ${sum.toFixed(1).padStart(8)} ${cpuText(cpu)}`,
    )
  }
  if (chromiumCpu !== undefined) lines.push(`  shared Chromium cpu s: ${chromiumCpu.toFixed(1)}`)
  return `${lines.join('\n')}\n`
}

/**
 * Run one spec file, or one bundle of files of one tier, in its own Node process (node:test runs a file's tests when
 * the file is run; a bundle's files one after another, in that process), the spec reporter into a buffer printed whole
 * when the process ends, so files running side by side do not interleave, and the times reporter into a file for the
 * test count and each bundled file's seconds.
 * @param {{ files: Array<{ file: string }>, tier: string, index: number }} job - the file or files.
 * @param {{ env: Record<string, string> } | undefined} browser - the shared Chromium, for browser files.
 */
function runJob({ files: ours, tier, index }, browser) {
  const ran = ours.map(({ file }) => file)
  const label = ran.length === 1 ? ran[0] : `${ran.length} ${tier} files in one process`
  const timesOut = join(reports, `${index}.txt`)
  const cpuOut = join(reports, `${index}.cpu`)
  const from = Date.now()
  const command = measureCpu ? [TIME, '--format=%U %S', `--output=${cpuOut}`, process.execPath] : [process.execPath]
  return new Promise((resolveRun) => {
    const child = spawn(
      command[0],
      [
        ...command.slice(1),
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        '--test-reporter=./scripts/test-times.mjs',
        `--test-reporter-destination=${timesOut}`,
        '--disable-warning=ExperimentalWarning',
        ...extra,
        // One file runs as the script itself; a bundle's files one after another under tests/helpers/bundle.ts.
        ...(ran.length === 1 ? ran : [BUNDLE_ENTRY, ...ran]),
      ],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          ...scratch.env,
          ...(tier === 'browser' && browser !== undefined ? browser.env : {}),
          ...(process.stdout.isTTY ? { FORCE_COLOR: '1' } : {}),
        },
      },
    )
    const output = []
    child.stdout.on('data', (chunk) => output.push(chunk))
    child.stderr.on('data', (chunk) => output.push(chunk))
    child.once('close', (status, signal) => {
      const ended = Date.now()
      const ok = status === 0
      process.stdout.write(
        `\n── ${label} (${tier}, ${((ended - from) / 1000).toFixed(1)} s${ok ? '' : `, FAILED: exit ${status ?? signal}`})\n`,
      )
      if (ran.length > 1) process.stdout.write(`${ran.join(' ')}\n`)
      const text = Buffer.concat(output)
      process.stdout.write(text)
      const counted = countsIn(timesOut)
      const recap = ok ? undefined : failureRecap(text.toString())
      resolveRun({ label, files: ran, tier, ok, recap, ...counted, cpu: cpuIn(cpuOut), started: from, ended })
    })
  })
}

/** The user and system seconds /usr/bin/time wrote for one file, or undefined when it was not measured. */
function cpuIn(cpuOut) {
  if (!measureCpu) return undefined
  try {
    const match = /(\d+\.\d+) (\d+\.\d+)\s*$/u.exec(readFileSync(cpuOut, 'utf8'))
    return match === null ? undefined : Number(match[1]) + Number(match[2])
  } catch {
    return undefined
  }
}

/**
 * How many tests the times reporter counted in one process's run, and its seconds per file (none when the process
 * never got to report).
 * @returns {{ tests: number, seconds: Map<string, number> }}
 */
function countsIn(timesOut) {
  try {
    const rows = readFileSync(timesOut, 'utf8')
      .split('\n')
      .map((line) => /^\s*([\d.]+)\s+(\d+)\s+\w+\s+(\S+)/u.exec(line))
      .filter((match) => match !== null)
    return {
      tests: rows.reduce((sum, match) => sum + Number(match[2]), 0),
      seconds: new Map(rows.map((match) => [match[3], Number(match[1])])),
    }
  } catch {
    return { tests: 0, seconds: new Map() }
  }
}

/**
 * Start the run's one Chromium (tests/helpers/browser-server.ts) and wait for its endpoint.
 * @returns the environment that points spec files at it, and how to stop it.
 */
async function startSharedBrowser() {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', 'tests/helpers/browser-server.ts'], {
    cwd: root,
    env: { ...process.env, ...scratch.env },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  /** @type {number | undefined} */
  let cpu
  const endpoint = await new Promise((resolveEndpoint, reject) => {
    const lines = createInterface({ input: child.stdout })
    lines.once('line', (line) => resolveEndpoint(line.trim()))
    lines.on('line', (line) => {
      const match = /^cpu (\d+(?:\.\d+)?)$/u.exec(line.trim())
      if (match !== null) cpu = Number(match[1])
    })
    child.once('exit', (status) => reject(new Error(`the shared Chromium did not start (exit ${status})`)))
  })
  return {
    env: { FACT_MEMORY_BROWSER_WS: endpoint },
    /** Close it; resolves to its CPU seconds (Chromium and every process under it), when it reported them. */
    stop: () =>
      new Promise((resolveStop) => {
        child.once('close', () => resolveStop(cpu))
        child.stdin.end()
      }),
  }
}
