/** A minimal observable value, the shape the host's slot `hooks` expect (stable identity, stable snapshots). */
import type { Source } from './host.ts'

/** A source the plugin can set. */
export interface WritableSource<T> extends Source<T> {
  set(next: T): void
  update(change: (current: T) => T): void
}

/**
 * Create a source.
 * @param initial - the first snapshot.
 * @returns the source; `getSnapshot` returns the same reference until `set` is called.
 */
export function createSource<T>(initial: T): WritableSource<T> {
  let snapshot = initial
  const listeners = new Set<() => void>()
  const set = (next: T): void => {
    if (Object.is(next, snapshot)) return
    snapshot = next
    for (const listener of [...listeners]) listener()
  }
  return {
    getSnapshot: () => snapshot,
    subscribe(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
    set,
    update: (change) => set(change(snapshot)),
  }
}
