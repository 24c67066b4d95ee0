/**
 * The speed bench's arithmetic: nearest-rank percentiles of timings, rounding, and timing one synchronous call.
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
