/**
 * Bounded polling for tests that watch a live host from outside: ask again every 100 ms until an answer comes or
 * the deadline passes, then fail with a message naming what was awaited (and, optionally, what was last seen).
 */

/** How often a condition is asked. */
const POLL_MS = 100

/**
 * Poll until `read` returns a value other than undefined.
 * @param read - asked every 100 ms; may be async.
 * @param what - named in the timeout error; a function is called then, to report the last state seen.
 * @param timeoutMs - the deadline.
 * @returns the first value read.
 */
export async function waitFor<T>(
  read: () => Promise<T | undefined> | T | undefined,
  what: string | (() => string | Promise<string>),
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (value !== undefined) return value
    if (Date.now() > deadline) {
      const described = typeof what === 'string' ? what : await what()
      throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${described}`)
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

/**
 * Poll until a condition holds.
 * @param condition - asked every 100 ms; may be async.
 * @param what - named in the timeout error.
 * @param timeoutMs - the deadline.
 */
export async function until(
  condition: () => Promise<boolean> | boolean,
  what: string | (() => string | Promise<string>),
  timeoutMs = 15_000,
): Promise<void> {
  await waitFor(async () => ((await condition()) ? true : undefined), what, timeoutMs)
}
