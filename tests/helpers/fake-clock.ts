/**
 * A fake Clock for tests: time stands still until `advance(ms)` moves it, and `every` and `after` callbacks fire at
 * each due instant crossed, in due order, with `now()` reading that instant while they run.
 */
import type { Clock } from '../../src/clock.ts'

interface Timer {
  readonly id: number
  /** 0 for a one-shot timer. */
  readonly intervalMs: number
  readonly callback: () => void
  nextDue: number
  cancelled: boolean
}

/** A manually driven clock. */
export class FakeClock implements Clock {
  private current: number
  private readonly timers: Timer[] = []
  private nextId = 1

  /** @param start - the starting instant (epoch ms or an ISO text). */
  constructor(start: number | string = '2026-03-01T09:00:00.000Z') {
    this.current = typeof start === 'number' ? start : Date.parse(start)
    if (Number.isNaN(this.current)) throw new Error(`bad fake clock start: ${String(start)}`)
  }

  now(): number {
    return this.current
  }

  every(ms: number, callback: () => void): () => void {
    if (!(ms > 0)) throw new Error(`every() needs a positive interval, got ${ms}`)
    const timer: Timer = { id: this.nextId++, intervalMs: ms, callback, nextDue: this.current + ms, cancelled: false }
    this.timers.push(timer)
    return () => this.cancel(timer)
  }

  after(ms: number, callback: () => void): () => void {
    const timer: Timer = {
      id: this.nextId++,
      intervalMs: 0,
      callback,
      nextDue: this.current + Math.max(0, ms),
      cancelled: false,
    }
    this.timers.push(timer)
    return () => this.cancel(timer)
  }

  private cancel(timer: Timer): void {
    timer.cancelled = true
    const index = this.timers.indexOf(timer)
    if (index >= 0) this.timers.splice(index, 1)
  }

  /** How many live timers (`every` and pending `after`) exist. */
  get pendingTimers(): number {
    return this.timers.length
  }

  /**
   * Move time forward, firing every due callback at its own instant.
   * @param ms - how far.
   * @returns how many callbacks fired.
   */
  advance(ms: number): number {
    if (ms < 0) throw new Error('a fake clock only moves forward')
    const target = this.current + ms
    let fired = 0
    for (;;) {
      const due = this.timers
        .filter((timer) => !timer.cancelled && timer.nextDue <= target)
        .sort((a, b) => a.nextDue - b.nextDue || a.id - b.id)[0]
      if (due === undefined) break
      this.current = due.nextDue
      if (due.intervalMs > 0) due.nextDue += due.intervalMs
      else this.cancel(due)
      fired += 1
      due.callback()
    }
    this.current = target
    return fired
  }

  /** Move time to an instant (never backwards). */
  advanceTo(iso: string): number {
    return this.advance(Date.parse(iso) - this.current)
  }

  /** The current instant as ISO UTC text. */
  iso(): string {
    return new Date(this.current).toISOString()
  }
}

/** Milliseconds in one day. */
export const DAY_MS = 86_400_000
