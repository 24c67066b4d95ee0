/**
 * The benches' arithmetic: nearest-rank percentiles of timings, rounding, shares (as ratios and as percentages), and
 * timing one synchronous call.
 */
import { performance } from 'node:perf_hooks'

/** p50 / p95 / max of some samples, and how many. */
export interface Percentiles {
  readonly p50: number
  readonly p95: number
  readonly max: number
  readonly n: number
}

/**
 * Nearest-rank percentiles, rounded to thousandths.
 * @param samples - timings or sizes.
 * @returns p50, p95, max and n (zeros for no samples).
 */
export function percentiles(samples: readonly number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
  return { p50: round(at(0.5)), p95: round(at(0.95)), max: round(sorted.at(-1) ?? 0), n: samples.length }
}

/**
 * @param value - a number.
 * @returns it rounded to thousandths.
 */
export function round(value: number): number {
  return Math.round(value * 1000) / 1000
}

/**
 * @param work - a synchronous call.
 * @returns its wall time in ms.
 */
export function time(work: () => void): number {
  const started = performance.now()
  work()
  return performance.now() - started
}

/**
 * @param part - how many of the whole.
 * @param whole - the whole (0 gives 0).
 * @returns the share, rounded to thousandths.
 */
export function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 1000) / 1000
}

/**
 * @param share - a share from 0 to 1.
 * @returns it as a percentage with one decimal, `12.3%`.
 */
export function pct(share: number): string {
  return `${Math.round(share * 1000) / 10}%`
}
