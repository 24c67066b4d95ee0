/**
 * Hybrid logical clock: a wall-clock millisecond plus a counter, stamped with the device that made it. Every local
 * change ticks it (`tickLocal`), every record read from another device folds into it (`tickReceive`), so a change
 * made after seeing another always carries a larger clock, whatever the two machines' wall clocks say. Pure: the
 * caller passes the wall time. A remote clock far ahead is taken (the clock never runs backwards) and its skew is
 * reported, never refused; ordering stays correct with a clock an hour off because concurrency is decided by what each
 * record had seen (`merge.ts`), not by wall time.
 */

/** One clock reading. */
export interface Hlc {
  /** Epoch milliseconds, the largest wall time this clock has seen. */
  readonly wall: number
  /** Orders readings within one wall millisecond. */
  readonly counter: number
  /** The device that made the reading; breaks ties between devices. */
  readonly device: string
}

/** What a receive did to the local clock, and how far the remote wall clock was from ours. */
export interface Received {
  readonly hlc: Hlc
  /** Remote wall minus local wall, in milliseconds (positive: the other machine runs ahead). */
  readonly skewMs: number
}

/** A skew below this is ordinary network and sync-tool delay, not worth a word. */
export const NOTABLE_SKEW_MS = 5 * 60_000

const WALL_DIGITS = 13
const COUNTER_DIGITS = 6
const MAX_COUNTER = 10 ** COUNTER_DIGITS - 1
const DEVICE_ID = /^[a-z0-9][a-z0-9-]{0,63}$/u
const HLC_TEXT = /^(\d{13})-(\d{6})-([a-z0-9][a-z0-9-]{0,63})$/u

/**
 * A fresh clock for a device that has not ticked yet.
 * @param device - the device id (lowercase letters, digits and dashes).
 * @returns the zero reading.
 */
export function zeroHlc(device: string): Hlc {
  if (!DEVICE_ID.test(device)) throw new TypeError(`not a device id: ${JSON.stringify(device)}`)
  return { wall: 0, counter: 0, device }
}

/**
 * The reading for a local change: later than every reading this clock has made or received.
 * @param last - the clock's last reading.
 * @param now - the local wall time in epoch milliseconds.
 * @returns the new reading.
 */
export function tickLocal(last: Hlc, now: number): Hlc {
  if (now > last.wall) return { wall: now, counter: 0, device: last.device }
  return bump(last.wall, last.counter, last.device)
}

/**
 * Fold a reading from another device into the local clock: the result is later than both.
 * @param last - the local clock's last reading.
 * @param remote - the reading carried by a record from another device.
 * @param now - the local wall time in epoch milliseconds.
 * @returns the new local reading and the remote clock's skew.
 */
export function tickReceive(last: Hlc, remote: Hlc, now: number): Received {
  const wall = Math.max(last.wall, remote.wall, now)
  let hlc: Hlc
  if (wall === now && now > last.wall && now > remote.wall) hlc = { wall, counter: 0, device: last.device }
  else
    hlc = bump(
      wall,
      Math.max(wall === last.wall ? last.counter : -1, wall === remote.wall ? remote.counter : -1),
      last.device,
    )
  return { hlc, skewMs: remote.wall - now }
}

/**
 * Total order of readings: wall, then counter, then device id. Agrees with the order of `formatHlc` text.
 * @returns negative, zero or positive.
 */
export function compareHlc(a: Hlc, b: Hlc): number {
  return a.wall - b.wall || a.counter - b.counter || (a.device < b.device ? -1 : a.device > b.device ? 1 : 0)
}

/**
 * A reading as text that sorts like the reading: `1767225600000-000003-laptop-1a2b`.
 * @param hlc - the reading.
 * @returns the text.
 */
export function formatHlc(hlc: Hlc): string {
  return `${String(hlc.wall).padStart(WALL_DIGITS, '0')}-${String(hlc.counter).padStart(COUNTER_DIGITS, '0')}-${hlc.device}`
}

/**
 * Read a reading back from its text.
 * @param text - text made by `formatHlc`.
 * @returns the reading, or undefined when the text is not one.
 */
export function parseHlc(text: string): Hlc | undefined {
  const match = HLC_TEXT.exec(text)
  if (match === null) return undefined
  return { wall: Number(match[1]), counter: Number(match[2]), device: String(match[3]) }
}

/**
 * The sentence a notable skew is reported with, or undefined below {@link NOTABLE_SKEW_MS}.
 * @param deviceName - the other device's readable name.
 * @param skewMs - its skew (see {@link Received}).
 * @returns e.g. `the clock of "desktop" runs about 1 h ahead of this machine's; changes are still ordered by what each machine had seen`.
 */
export function describeSkew(deviceName: string, skewMs: number): string | undefined {
  const size = Math.abs(skewMs)
  if (size < NOTABLE_SKEW_MS) return undefined
  const minutes = Math.round(size / 60_000)
  const amount = minutes >= 60 ? `${Math.round(size / 3_600_000)} h` : `${minutes} min`
  return `the clock of "${deviceName}" runs about ${amount} ${skewMs > 0 ? 'ahead of' : 'behind'} this machine's; changes are still ordered by what each machine had seen`
}

function bump(wall: number, counter: number, device: string): Hlc {
  // A counter that would overflow its digits moves to the next millisecond instead, so the text form stays sortable.
  return counter + 1 > MAX_COUNTER ? { wall: wall + 1, counter: 0, device } : { wall, counter: counter + 1, device }
}
