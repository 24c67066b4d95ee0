/**
 * One bounded wait on the plugin's clock: race some work against a `clock.after` bound, then cancel the bound. With
 * no bound (0 or less) nothing is awaited and no timer is armed, so a stop that closes the store at once leaves the
 * clock bare. Used by the sync service's and supervisor's stops.
 */
import type { Clock } from '../clock.ts'

/**
 * Wait for `work` at most `ms` milliseconds.
 * @param clock - the clock whose timer bounds the wait.
 * @param ms - the bound; 0 or less waits for nothing and arms no timer.
 * @param work - what to wait for; a rejection counts as finished (the caller reports failures itself).
 * @returns true when `work` settled within the bound, false when the bound passed first or there was none.
 */
export async function withinBound(clock: Clock, ms: number, work: Promise<unknown>): Promise<boolean> {
  // Work not waited for may still fail (the store closed under it): that failure is the caller's to report, never an
  // unhandled rejection.
  work.catch(() => undefined)
  if (ms <= 0) return false
  let cancel = (): void => undefined
  const bound = new Promise<false>((resolve) => {
    cancel = clock.after(ms, () => resolve(false))
  })
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      bound,
    ])
  } finally {
    cancel()
  }
}
