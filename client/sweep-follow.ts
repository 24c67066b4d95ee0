/**
 * Follow a near-duplicate sweep that runs in the background, as the settings card does after "Find near-duplicates":
 * read the consolidate summary every {@link FOLLOW_EVERY_MS} while the sweep started at `startedAt` runs, tell each
 * progress, and answer with its outcome once it ends (the asked sweep's own, or the ledger's newest entry for a
 * scheduled sweep the press found under way). Stops quietly when the signal aborts.
 */
import { callVerb } from './api.ts'
import type { RunningSweepWire, SweepWire } from './sweep-words.ts'

/** How often the summary is read while a sweep runs. */
export const FOLLOW_EVERY_MS = 800

/** How a followed sweep ended: its ledger entry, or a sentence saying why there is none. */
export type FollowedSweep = { readonly sweep: SweepWire } | { readonly message: string }

/**
 * Follow one sweep to its end.
 * @param startedAt - the sweep's start, as the verb reported it.
 * @param onProgress - told each progress read while it runs.
 * @param signal - aborts the following (the card left the page).
 * @returns its outcome, or undefined when aborted.
 */
export async function followSweep(
  startedAt: string,
  onProgress: (running: RunningSweepWire) => void,
  signal: AbortSignal,
): Promise<FollowedSweep | undefined> {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_EVERY_MS))
    if (signal.aborted) return undefined
    const read = await callVerb('consolidate', { summary: true, limit: 1 }, signal)
    if (signal.aborted) return undefined
    if (!read.ok) return { message: read.message }
    const { running, lastAsked, sweeps } = read.data
    if (running !== null && running.startedAt === startedAt) {
      onProgress(running)
      continue
    }
    if (lastAsked !== null && lastAsked.startedAt === startedAt) {
      return lastAsked.sweep === null
        ? { message: `The sweep stopped: ${lastAsked.error ?? 'unknown reason'}.` }
        : { sweep: lastAsked.sweep }
    }
    const newest = sweeps[0]
    return newest !== undefined && newest.startedAt === startedAt
      ? { sweep: newest }
      : { message: 'The sweep ended; its outcome is in the ledger.' }
  }
}
