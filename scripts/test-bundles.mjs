// Which spec files npm test runs together in one Node process, and how it splits them. A process of its own costs a
// file about 1 CPU-second before its first test: Node strips the types of every source file the spec imports, afresh
// in each process (ten store specs took 13.5 CPU-s one process each, 3.1 s in one process; measured for issue 33). A
// browser file also pays for its own connection to the run's Chromium and a fresh browser context, about 2.5 CPU-s
// more than a page in a context another file kept. So the shorter files of each tier run in bundles: one process per
// bundle, running tests/helpers/bundle.ts, which runs its files one after another, each inside a suite of its own.
// Long files keep a process of their own: a bundle runs its files one at a time, and a long file's waits are better
// spent beside other files in the pool. So does a file that reads the state of its whole process (its live timers,
// its open files), which it marks with a line that starts `// npm test: a process of its own`.
import { readFileSync } from 'node:fs'

/** The script a bundle's process runs, with the bundle's files as its arguments. */
export const BUNDLE_ENTRY = 'tests/helpers/bundle.ts'

/** The line that keeps a spec file out of bundles. */
const OWN_PROCESS = /^\/\/ npm test: a process of its own\b/mu

/**
 * Per tier: a file's last wall time from which it keeps a process of its own, and about how many seconds of its files'
 * last wall times one bundle holds.
 */
export const BUNDLING = {
  unit: { aloneSeconds: 30, bundleSeconds: 40 },
  host: { aloneSeconds: 60, bundleSeconds: 45 },
  browser: { aloneSeconds: 150, bundleSeconds: 110 },
}

/**
 * Split the jobs into bundles and single jobs: per tier, the files under its aloneSeconds go into as many bundles as
 * their expected seconds fill at its bundleSeconds each, balanced longest first; every other file, and every file
 * marked for a process of its own, is a job of its own.
 * @template {{ file: string, path: string, tier: string, seconds: number }} J
 * @param {J[]} jobs - the files, with their path, tier and expected seconds.
 * @param {(path: string) => string} read - reads a file's source.
 * @returns {Array<{ files: J[], tier: string, seconds: number }>} the jobs to run, each one process.
 */
export function bundleJobs(jobs, read = (path) => readFileSync(path, 'utf8')) {
  const joins = (job) => job.seconds < (BUNDLING[job.tier]?.aloneSeconds ?? 0) && !OWN_PROCESS.test(read(job.path))
  const out = jobs.filter((job) => !joins(job)).map(alone)
  for (const [tier, { bundleSeconds }] of Object.entries(BUNDLING)) {
    const small = jobs.filter((job) => job.tier === tier && joins(job)).sort((a, b) => b.seconds - a.seconds)
    if (small.length === 0) continue
    const total = small.reduce((sum, job) => sum + job.seconds, 0)
    const count = Math.max(1, Math.ceil(total / bundleSeconds))
    const bundles = Array.from({ length: count }, () => ({ files: [], tier, seconds: 0 }))
    for (const job of small) {
      const lightest = bundles.reduce((best, bundle) => (bundle.seconds < best.seconds ? bundle : best))
      lightest.files.push(job)
      lightest.seconds += job.seconds
    }
    out.push(...bundles.filter((bundle) => bundle.files.length > 0))
  }
  return out
}

/**
 * One file as a job of its own.
 * @template {{ tier: string, seconds: number }} J
 * @param {J} job - the file.
 * @returns {{ files: J[], tier: string, seconds: number }}
 */
export function alone(job) {
  return { files: [job], tier: job.tier, seconds: job.seconds }
}
