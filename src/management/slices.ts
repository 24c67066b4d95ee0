/**
 * Long work in slices: a loop that hands the event loop back between slices, so other routes keep answering while
 * a large import is read, checked and previewed.
 */

/** How long one slice may hold the event loop, in milliseconds. */
export const SLICE_MS = 25

/**
 * Map every item in order, yielding to the event loop whenever a slice has run SLICE_MS.
 * @param items - the items.
 * @param work - synchronous work on one item (its index given); must not rely on state another route may change
 *   between slices, unless the caller checks that state again afterwards.
 * @returns the results, in order.
 */
export async function mapInSlices<T, R>(items: readonly T[], work: (item: T, index: number) => R): Promise<R[]> {
  const out: R[] = []
  let started = performance.now()
  for (let index = 0; index < items.length; index += 1) {
    out.push(work(items[index] as T, index))
    if (performance.now() - started >= SLICE_MS) {
      await nextTurn()
      started = performance.now()
    }
  }
  return out
}

/**
 * Hand items to `work` in runs of about SLICE_MS each (the run's size learnt from the last one), yielding between runs.
 * @param items - the items.
 * @param work - synchronous work on one run of items, in order.
 */
export async function forEachInSlices<T>(items: readonly T[], work: (part: readonly T[]) => void): Promise<void> {
  let size = 16
  for (let start = 0; start < items.length;) {
    const began = performance.now()
    const part = items.slice(start, start + size)
    work(part)
    start += part.length
    const spent = performance.now() - began
    size = Math.max(1, Math.min(4096, Math.round(part.length * SLICE_MS / Math.max(spent, 1))))
    if (start < items.length) await nextTurn()
  }
}

/** Resolve on the event loop's next turn, after pending I/O. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => { setImmediate(resolve) })
}
