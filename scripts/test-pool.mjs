// The order and the pool npm test runs spec files in: the two-lane jobs first, then the slowest first among equals
// (longest-processing-time order), from each file's wall time in the last run, kept in a JSON file under the OS temp
// dir (never committed), else its time in the committed record (scripts/test-times.json, so a fresh clone lays the
// run out as a measured one does), else a guess from the file's size; and one weighted pool over all tiers, so a lane
// a tier leaves idle (its tail, a file waiting on a host or a page) is taken by the next file of any tier instead of
// waiting for the whole tier to end.
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * How much of the pool a file of each tier takes, and how many of a tier run at once. Unit files mostly compute: one
 * lane each, four lanes on two cores keeping the cores busy through each file's start-up. A host or browser file
 * takes two lanes and at most two run at once, so two heavy files fill the pool, or one heavy file and two unit files.
 * A browser or host file keeps about a third of a core busy (--times), yet four browser files at once beside unit
 * files held two cores at a load of 12-13, and page waits of 15 s timed out: the page tests' timeouts, not the CPU,
 * set this limit.
 */
export const LANES = 4
export const WEIGHT = { unit: 1, host: 2, browser: 2 }
export const AT_ONCE = { unit: 4, host: 2, browser: 2 }

/** Seconds per kilobyte of spec source, per tier: the guess for a file with no time from an earlier run. */
const SECONDS_PER_KB = { unit: 0.15, host: 0.6, browser: 2 }

/**
 * Where one checkout keeps its files' last wall times (a checkout of its own: worktrees do not share timings).
 * @param {string} root - the repository root.
 */
export function timingsFile(root) {
  const key = createHash('sha256').update(root).digest('hex').slice(0, 12)
  return join(tmpdir(), 'dsh-fact-memory-test-times', `${key}.json`)
}

/**
 * The committed record of every spec file's seconds on the reference two-core machine (`npm test -- --record-times`
 * writes it): what a checkout with no run of its own yet lays its run out by.
 */
export const RECORDED_TIMES = 'scripts/test-times.json'

/**
 * The seconds to expect per file: this checkout's last run, else the committed record.
 * @param {string} root - the repository root.
 * @returns {Record<string, number>}
 */
export function knownTimings(root) {
  return { ...readTimings(join(root, RECORDED_TIMES)), ...readTimings(timingsFile(root)) }
}

/**
 * The committed record after a run: this run's seconds, rounded to a tenth, over the record's, for the spec files
 * that still exist, sorted by name (so a re-recording diffs line by line).
 * @param {Record<string, number>} recorded - the record as it was.
 * @param {Record<string, number>} measured - this run's seconds per file.
 * @param {readonly string[]} existing - the spec files there are now.
 * @returns {Record<string, number>}
 */
export function recordedAfter(recorded, measured, existing) {
  const merged = { ...recorded, ...measured }
  return Object.fromEntries(
    [...existing]
      .sort()
      .flatMap((file) => (merged[file] === undefined ? [] : [[file, Math.round(merged[file] * 10) / 10]])),
  )
}

/**
 * The last run's wall time per file; empty when there is none or it cannot be read (the order only gets worse).
 * @param {string} path - the timings file.
 * @returns {Record<string, number>}
 */
export function readTimings(path) {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8'))
    if (parsed === null || typeof parsed !== 'object') return {}
    return Object.fromEntries(Object.entries(parsed).filter(([, seconds]) => typeof seconds === 'number'))
  } catch {
    return {}
  }
}

/**
 * Keep this run's wall times beside the earlier ones (files this run did not reach keep theirs).
 * @param {string} path - the timings file.
 * @param {Record<string, number>} measured - seconds per file from this run.
 */
export function writeTimings(path, measured) {
  const merged = { ...readTimings(path), ...measured }
  mkdirSync(join(path, '..'), { recursive: true })
  const partial = `${path}.${process.pid}`
  writeFileSync(partial, `${JSON.stringify(merged, null, 2)}\n`)
  renameSync(partial, path)
}

/**
 * A file's expected wall time: its last one, or a guess from its size.
 * @param {{ file: string, path: string, tier: string }} job - the file, relative and absolute, and its tier.
 * @param {Record<string, number>} timings - the last run's times.
 */
export function expectedSeconds({ file, path, tier }, timings) {
  return timings[file] ?? (statSync(path).size / 1024) * SECONDS_PER_KB[tier]
}

/**
 * Run jobs in a weighted pool, starting the heaviest first and, among equally heavy ones, the slowest. A job starts as
 * soon as its weight fits in the free lanes and its tier is under its own limit; a later, lighter job may start ahead
 * of one that does not fit yet. With `tierOrder`, a tier's files wait until every file of the tiers before it has
 * ended (the tiers one after another).
 * @template J, R
 * @param {Array<J & { tier: string, seconds: number }>} jobs - the files, with their expected seconds.
 * @param {{ tierOrder?: readonly string[], run: (job: J) => Promise<R> }} options - how to run one.
 * @returns {Promise<R[]>} the results, in the order the jobs ended.
 */
export function runPool(jobs, { tierOrder, run }) {
  const rank = (tier) => (tierOrder === undefined ? 0 : tierOrder.indexOf(tier))
  // Heavier jobs first, then the slowest first: the run ends on one-lane jobs, which pack the lanes evenly, not on a
  // two-lane job running alone beside an idle half of the pool.
  const queue = [...jobs].sort(
    (a, b) => rank(a.tier) - rank(b.tier) || WEIGHT[b.tier] - WEIGHT[a.tier] || b.seconds - a.seconds,
  )
  const running = new Map(Object.keys(WEIGHT).map((tier) => [tier, 0]))
  const results = []
  let free = LANES
  let unfinished = queue.length
  return new Promise((resolvePool, rejectPool) => {
    if (unfinished === 0) resolvePool(results)
    const fill = () => {
      for (let index = 0; index < queue.length; ) {
        const job = queue[index]
        const blocked = queue.some((other) => rank(other.tier) < rank(job.tier)) || leftOf(job) > 0
        if (blocked || WEIGHT[job.tier] > free || running.get(job.tier) >= AT_ONCE[job.tier]) {
          index += 1
          continue
        }
        queue.splice(index, 1)
        free -= WEIGHT[job.tier]
        running.set(job.tier, running.get(job.tier) + 1)
        run(job).then((result) => {
          free += WEIGHT[job.tier]
          running.set(job.tier, running.get(job.tier) - 1)
          results.push(result)
          unfinished -= 1
          if (unfinished === 0) resolvePool(results)
          else fill()
        }, rejectPool)
      }
    }
    /** In tier order, how many files of earlier tiers are still running. */
    const leftOf = (job) =>
      tierOrder === undefined
        ? 0
        : [...running].filter(([tier]) => rank(tier) < rank(job.tier)).reduce((sum, [, count]) => sum + count, 0)
    fill()
  })
}
