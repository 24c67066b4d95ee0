/**
 * Bounded polling for tests that watch a live host from outside: ask again every 100 ms until an answer comes or
 * the deadline passes, then fail with a message naming what was awaited (and, optionally, what was last seen).
 */

/** How often a condition is asked. */
const POLL_MS = 100

/**
 * How many times its stated deadline every wait of the suite may take: `FACT_MEMORY_TEST_PATIENCE`, 3 by default.
 * npm test runs several host and browser files at once on two cores, where a page or a host that answers in one second
 * alone may take several; a deadline only decides how soon a wait that never ends is reported, never whether a test
 * passes, so a loaded machine gets more time and a broken test still fails.
 */
export const PATIENCE = patienceFrom(process.env['FACT_MEMORY_TEST_PATIENCE'])

function patienceFrom(text: string | undefined): number {
  const factor = Number(text ?? '3')
  return Number.isFinite(factor) && factor >= 1 ? factor : 3
}

/**
 * A deadline stretched by the suite's patience.
 * @param ms - the deadline a wait states.
 * @returns the milliseconds it may take.
 */
export function patient(ms: number): number {
  return ms * PATIENCE
}

/**
 * Poll until `read` returns a value other than undefined.
 * @param read - asked every 100 ms; may be async.
 * @param what - named in the timeout error; a function is called then, to report the last state seen.
 * @param timeoutMs - the deadline, stretched by PATIENCE.
 * @returns the first value read.
 */
export async function waitFor<T>(
  read: () => Promise<T | undefined> | T | undefined,
  what: string | (() => string | Promise<string>),
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + patient(timeoutMs)
  for (;;) {
    const value = await read()
    if (value !== undefined) return value
    if (Date.now() > deadline) {
      const described = typeof what === 'string' ? what : await what()
      throw new Error(`timed out after ${patient(timeoutMs) / 1000} s waiting for ${described}`)
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

/**
 * Poll until a condition holds.
 * @param condition - asked every 100 ms; may be async.
 * @param what - named in the timeout error.
 * @param timeoutMs - the deadline, stretched by PATIENCE.
 */
export async function until(
  condition: () => Promise<boolean> | boolean,
  what: string | (() => string | Promise<string>),
  timeoutMs = 15_000,
): Promise<void> {
  await waitFor(async () => ((await condition()) ? true : undefined), what, timeoutMs)
}
