/**
 * A test-only hold in a sync round, so a host spec can kill the process at an exact point of a round. It exists only
 * when the host runs with DSH_FACT_MEMORY_SYNC_HOLD naming a folder (the entry reads it once at apply; no user sets
 * it, and without it there is no hold and nothing is read). A round that reaches a point whose file is in that folder
 * (the test "arms" it) writes `<point>.held` beside it and waits until the arm file is gone:
 * - `sealed`: this device's new segment is sealed under its final name, not yet noted as published;
 * - `applying`: the other devices' records are applied inside the store's receive transaction, not yet committed
 *   (the wait blocks the process, as the transaction is synchronous).
 */
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** Where a round can be held. */
export type HoldPoint = 'sealed' | 'applying'

/** The hold a round consults at each point. */
export interface RoundHold {
  /** Wait at an asynchronous point while it is armed. */
  wait(point: 'sealed'): Promise<void>
  /** Block the process at a synchronous point while it is armed. */
  block(point: 'applying'): void
}

const POLL_MS = 50

/**
 * The hold for a folder of arm files.
 * @param folder - the value of DSH_FACT_MEMORY_SYNC_HOLD; empty or undefined: no hold.
 * @returns the hold, or undefined.
 */
export function roundHoldIn(folder: string | undefined): RoundHold | undefined {
  if (folder === undefined || folder === '') return undefined
  const armed = (point: HoldPoint): boolean => existsSync(join(folder, point))
  const held = (point: HoldPoint): void => writeFileSync(join(folder, `${point}.held`), `${process.pid}\n`)
  return {
    async wait(point) {
      if (!armed(point)) return
      held(point)
      while (armed(point)) await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    },
    block(point) {
      if (!armed(point)) return
      held(point)
      const pause = new Int32Array(new SharedArrayBuffer(4))
      while (armed(point)) Atomics.wait(pause, 0, 0, POLL_MS)
    },
  }
}
