// The end of an npm test log names what failed: a failed job's output is printed where it ended, often thousands of
// lines before the summary, and a CI page may show only the log's tail; so the summary repeats each failed job's
// own account of its failures.

/** Lines of one job's output repeated at most, so one noisy failure cannot bury the summary. */
export const RECAP_LINES = 120

/** The last lines repeated of a job that ended without node:test's section (a crash, a timeout, a killed process). */
const CRASH_LINES = 40

const FAILING = /^\u2716 failing tests:\s*$/u
const COLOUR = /\u001b\[[0-9;]*m/gu

/**
 * What a failed job said of its failures: node:test's "failing tests" section, or the last lines when the process
 * ended without one (a crash, a timeout, a killed process), capped at RECAP_LINES.
 * @param {string} output - the job's whole output, spec reporter and stderr.
 * @returns {string}
 */
export function failureRecap(output) {
  const lines = output.replace(/\n+$/u, '').split('\n')
  const section = lines.findIndex((line) => FAILING.test(line.replace(COLOUR, '')))
  const from = section === -1 ? Math.max(0, lines.length - CRASH_LINES) : section
  const kept = lines.slice(from, from + RECAP_LINES)
  const cut = lines.length - from - kept.length
  return [...kept, ...(cut > 0 ? [`… ${cut} more lines above, where the job ended`] : [])].join('\n')
}
