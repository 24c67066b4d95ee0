/**
 * Preload for a host process on a machine whose clock runs off: loaded with `--import` (NODE_OPTIONS), it moves
 * `Date.now()`, `new Date()` and `Date()` by FACT_MEMORY_TEST_CLOCK_OFFSET_MS for the whole process, plugin and
 * host alike, as a wrong system clock would. Timers and `performance.now()` keep real time. Only host processes load
 * it (see `clockOffsetEnv` in sync-hosts.ts); importing it elsewhere would move that process's clock too.
 */
const offset = Number(process.env['FACT_MEMORY_TEST_CLOCK_OFFSET_MS'] ?? '0')
const RealDate = Date
const shifted = (): number => RealDate.now() + offset

globalThis.Date = new Proxy(RealDate, {
  construct(target, args, newTarget) {
    return Reflect.construct(target, args.length === 0 ? [shifted()] : args, newTarget)
  },
  apply() {
    return new RealDate(shifted()).toString()
  },
  get(target, key, receiver) {
    return key === 'now' ? shifted : Reflect.get(target, key, receiver)
  },
})
