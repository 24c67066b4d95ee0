/** The clock and timer seam: production uses the system clock, tests pass a fake one. */

/** Time as the plugin reads it. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number
  /** Run `callback` every `ms` milliseconds; returns the canceller. */
  every(ms: number, callback: () => void): () => void
  /** Run `callback` once after `ms` milliseconds (0 or less: on the next tick); returns the canceller. */
  after(ms: number, callback: () => void): () => void
}

/** The system clock; its timers are unref'd so they never keep a process alive. */
export const systemClock: Clock = {
  now: () => Date.now(),
  every(ms, callback) {
    const handle = setInterval(callback, ms)
    handle.unref()
    return () => clearInterval(handle)
  },
  after(ms, callback) {
    const handle = setTimeout(callback, Math.max(0, ms))
    handle.unref()
    return () => clearTimeout(handle)
  },
}

/**
 * The current instant as ISO UTC text.
 * @param clock - the clock.
 * @returns e.g. `2026-11-29T12:00:00.000Z`.
 */
export function isoNow(clock: Clock): string {
  return new Date(clock.now()).toISOString()
}
