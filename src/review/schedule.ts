/**
 * Pure: when a background review (the near-duplicate sweep, the health check) runs. The plugin runs no cron job and
 * asks nothing of the host: a timer looks at the clock once a minute, starting two minutes after the plugin loads,
 * and a run is due when its interval has passed since the last run. The last run's time lives in memory, so a
 * restart runs one about two minutes after the start rather than waiting out the rest of an interval. An interval of
 * 0 leaves only the button and the route; the feature's switch off turns even those into a refusal.
 */

/** The first look at the clock after the plugin loads. */
export const FIRST_LOOK_MS = 120_000
/** How often the timer looks at the clock after that. */
export const LOOK_EVERY_MS = 60_000

/** What decides whether a run is due. */
export interface ReviewSchedule {
  /** The feature's switch (`autoConsolidate`, `autoAudit`). */
  readonly enabled: boolean
  /** `consolidateIntervalMs` / `auditIntervalMs`; 0 keeps it to the button and the route. */
  readonly intervalMs: number
}

/** Why a run starts, or why it does not. */
export type RunDecision =
  | { readonly run: true; readonly reason: 'first' | 'interval' | 'asked' }
  | { readonly run: false; readonly reason: 'disabled' | 'manual_only' | 'not_due' | 'running' }

/**
 * Decide at one look of the timer, or when a person asks.
 * @param schedule - the live settings.
 * @param lastRunAt - epoch ms of the last run since the plugin loaded, or undefined for none yet.
 * @param now - epoch ms now.
 * @param running - whether a run is under way (runs never overlap).
 * @param asked - a person asked for it (the settings card's button, the route with `force`).
 * @returns whether to run now, and why.
 */
export function decideRun(
  schedule: ReviewSchedule,
  lastRunAt: number | undefined,
  now: number,
  running: boolean,
  asked: boolean,
): RunDecision {
  if (!schedule.enabled) return { run: false, reason: 'disabled' }
  if (running) return { run: false, reason: 'running' }
  if (asked) return { run: true, reason: 'asked' }
  if (!(schedule.intervalMs > 0)) return { run: false, reason: 'manual_only' }
  if (lastRunAt === undefined) return { run: true, reason: 'first' }
  return now - lastRunAt >= schedule.intervalMs ? { run: true, reason: 'interval' } : { run: false, reason: 'not_due' }
}
