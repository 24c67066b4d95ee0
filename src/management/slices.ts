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

/** Resolve on the event loop's next turn, after pending I/O. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    setImmediate(resolve)
  })
}
