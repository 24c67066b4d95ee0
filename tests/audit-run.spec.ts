/**
 * The health check on a real store with both drivers: a forced run over a seeded library queues one aggregated card
 * per class (a long list as batch n/m), leaves sensitive facts out, logs itself in a ledger that never bumps the
 * generation and keeps its last 500 runs; its cards apply per row (a row edited since the sweep is skippedStale),
 * can lose a row to proposal-prune, and are not queued twice. The timer runs on the fake clock: not before two
 * minutes, again only once the interval has passed, never with autoAudit off or an interval of 0, and not after stop.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { Config } from '../src/config.ts'
import { MemoryRuntime } from '../src/runtime.ts'
import { AUDIT_LOG_KEEP } from '../src/store/audit-store.ts'
import type { StoreSet } from '../src/store/store-set.ts'
import type { Fact } from '../src/types.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { DRIVERS, openMemory, writeFact, type MemoryHandle, type PartialFact } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE

interface WireRun {
  readonly trigger: string
  readonly found: { retire: number; fold: number; alias: number }
  readonly cards: { kind: string; id: number; rows: number; batch: { index: number; count: number } | null }[]
  readonly alreadyQueued: number
  readonly declined: number
  readonly message: string
}

/** A library with 60 self-restating facts, two dated pipelines of three runs, a split subject, and plain facts. */
function seedLibrary(write: (partial: PartialFact) => Fact): Record<string, Fact[]> {
  const restating = Array.from({ length: 60 }, (_, n) =>
    write({ subject: `job-${n}`, property: 'error message', value: 'failed with an error message' }),
  )
  const nightly = ['2026-02-08', '2026-02-09', '2026-02-10'].map((day) =>
    write({ subject: 'nightly backup', property: `${day} result`, value: 'ok' }),
  )
  const chinese = ['2026年2月8日', '2026年2月9日', '2026年2月10日'].map((day) =>
    write({ subject: '构建任务', property: `${day} 构建结果`, value: '通过' }),
  )
  const canonical = [
    write({ subject: 'billing-api', property: 'port', value: '7801' }),
    write({ subject: 'billing-api', property: 'owner', value: 'team payments' }),
  ]
  const fragment = [write({ subject: 'billing', property: 'port', value: '7801' })]
  const plain = [
    write({ subject: 'job-0', property: 'port', value: '9100' }),
    write({ subject: '支付服务', property: '端口', value: '7802' }),
  ]
  return { restating, nightly, chinese, canonical, fragment, plain }
}

for (const driver of DRIVERS) {
  describe(`the health check run (${driver})`, () => {
    let v: VerbHarness
    beforeEach(() => {
      v = verbHarness(driver)
    })
    afterEach(() => v.dispose())
    const stores = (): StoreSet => {
      const opened = v.h.memory.storeSet()
      if (!('stores' in opened)) throw new Error('store not open')
      return opened.stores
    }
    const write = (partial: PartialFact): Fact => writeFact(v.h.memory, v.h.config, partial)
    const status = (id: number): string | undefined => stores().facts.getFacts([id])[0]?.status
    const force = async (): Promise<WireRun> => (await v.ok('audit', { force: true }))['run'] as WireRun

    it('queues one aggregated card per class, a list past 50 rows as batch 1/2 and 2/2, and says what it queued', async () => {
      const seeded = seedLibrary(write)
      const answer = await v.ok('audit', { force: true })
      const run = answer['run'] as WireRun
      assert.deepEqual(run.found, { retire: 60, fold: 2, alias: 1 })
      assert.deepEqual(
        run.cards.map((card) => [card.kind, card.rows, card.batch]),
        [
          ['retire', 50, { index: 1, count: 2 }],
          ['retire', 10, { index: 2, count: 2 }],
          ['fold', 2, null],
          ['alias', 1, null],
        ],
      )
      assert.equal(
        answer['message'],
        '4 cards queued: retire 60 facts that only restate their property; fold 2 dated pipelines; alias 1 split subject',
      )
      const fold = stores().proposals.get(run.cards[2]?.id ?? 0)
      assert.ok(fold?.kind === 'fold')
      assert.deepEqual(
        fold.rows.map((row) => [row.survivor.factId, row.runs.map((one) => one.factId)]),
        [
          [seeded['nightly']?.[2]?.id, seeded['nightly']?.slice(0, 2).map((one) => one.id)],
          [seeded['chinese']?.[2]?.id, seeded['chinese']?.slice(0, 2).map((one) => one.id)],
        ],
      )
      const alias = stores().proposals.get(run.cards[3]?.id ?? 0)
      assert.ok(alias?.kind === 'alias')
      assert.deepEqual(
        alias.rows.map((row) => [row.fragment, row.canonical, row.facts.map((one) => one.factId)]),
        [['billing', 'billing api', seeded['fragment']?.map((one) => one.id)]],
      )
      const retired = new Set(
        stores()
          .proposals.list('pending', undefined, 10)
          .proposals.flatMap((card) => (card.kind === 'retire' ? card.rows.map((row) => row.fact.factId) : [])),
      )
      assert.equal(retired.size, 60)
      for (const one of seeded['plain'] ?? []) assert.equal(retired.has(one.id), false)
    })

    it('queues nothing twice: a second run finds the same rows already queued, and declined rows stay declined', async () => {
      seedLibrary(write)
      const first = await force()
      const fold = first.cards.find((card) => card.kind === 'fold')
      await v.ok('proposal-reject', v.fence({ id: fold?.id, revision: 1 }))
      const generation = v.generation()
      const again = await v.ok('audit', { force: true })
      const run = again['run'] as WireRun
      assert.deepEqual(run.cards, [])
      assert.deepEqual([run.alreadyQueued, run.declined], [61, 2])
      assert.equal(again['message'], 'nothing new: 61 rows already queued, 2 rows declined before')
      assert.equal(v.generation(), generation, 'a run that queues nothing leaves the generation where it was')
    })

    it('applies its cards per row: a row edited between the sweep and the click is skippedStale, a struck row stays, the rest lands', async () => {
      const seeded = seedLibrary(write)
      const run = await force()
      const [firstRetire, , fold, alias] = run.cards
      const edited = seeded['restating']?.[3]
      await v.ok('fact-update', v.fence({ id: edited?.id, validFrom: '2026-02-01' }))
      const applied = await v.ok('proposal-apply', v.fence({ id: firstRetire?.id, revision: 1 }))
      assert.deepEqual(applied['skippedStale'], [3])
      assert.equal((applied['applied'] as unknown[]).length, 49)
      assert.deepEqual([status(seeded['restating']?.[0]?.id ?? 0), status(edited?.id ?? 0)], ['retired', 'active'])

      await v.ok('proposal-prune', v.fence({ id: fold?.id, revision: 1, row: 1 }))
      await v.ok('proposal-apply', v.fence({ id: fold?.id, revision: 2 }))
      assert.deepEqual(
        seeded['nightly']?.map((one) => status(one.id)),
        ['superseded', 'superseded', 'active'],
      )
      assert.deepEqual(
        seeded['chinese']?.map((one) => status(one.id)),
        ['active', 'active', 'active'],
      )
      assert.equal(stores().facts.getFacts([seeded['nightly']?.[2]?.id ?? 0])[0]?.foldedCount, 2)

      await v.ok('proposal-apply', v.fence({ id: alias?.id, revision: 1 }))
      assert.deepEqual(
        stores()
          .facts.getFacts([seeded['fragment']?.[0]?.id ?? 0])
          .map((one) => one.entityKey),
        ['billing api'],
      )
    })

    it('finds a pipeline with three letters beside its date ("db-backup · 2026-02-05 run") and keeps numbered properties apart', async () => {
      const runs = ['2026-02-05', '2026-02-06', '2026-02-07'].map((day) =>
        write({ subject: 'db-backup', property: `${day} run`, value: 'done' }),
      )
      for (const property of ['port 7801', 'port 7802', '187', '188'])
        write({ subject: 'db-backup', property, value: 'open' })
      const run = await force()
      assert.deepEqual(run.found, { retire: 0, fold: 1, alias: 0 })
      const fold = stores().proposals.get(run.cards[0]?.id ?? 0)
      assert.ok(fold?.kind === 'fold')
      assert.deepEqual(
        fold.rows.map((row) => [row.survivor.factId, row.runs.map((one) => one.factId)]),
        [[runs[2]?.id, runs.slice(0, 2).map((one) => one.id)]],
      )
    })

    it('refuses a card whose every row was edited since the sweep, and changes no fact', async () => {
      const facts = ['a', 'b'].map((name) =>
        write({ subject: `job-${name}`, property: 'status', value: 'has a status' }),
      )
      const run = await force()
      for (const one of facts) await v.ok('fact-update', v.fence({ id: one.id, validFrom: '2026-02-01' }))
      const refused = await v.call('proposal-apply', v.fence({ id: run.cards[0]?.id, revision: 1 }))
      assert.equal(!refused.ok && refused.code, 'refused')
      assert.deepEqual(!refused.ok && refused.details?.['skippedStale'], [0, 1])
      assert.deepEqual(
        facts.map((one) => status(one.id)),
        ['active', 'active'],
      )
    })

    it('leaves sensitive facts out of every class', async () => {
      for (const day of ['2026-02-08', '2026-02-09'])
        write({ subject: 'on call', property: `${day} contact`, value: 'ana@example.com' })
      const run = await force()
      assert.deepEqual(run.found, { retire: 0, fold: 0, alias: 0 })
      assert.equal(run.message, 'the library looks clean')
    })

    it('logs every run in a ledger that never bumps the generation, keeps the last 500, and answers it as the summary', async () => {
      const generation = v.generation()
      await force()
      assert.equal(v.generation(), generation, 'a run over a clean library changes nothing the pages hold')
      const summary = await v.ok('audit', { summary: true })
      assert.deepEqual(
        [summary['total'], (summary['runs'] as WireRun[]).length, (summary['lastRun'] as WireRun).trigger],
        [1, 1, 'asked'],
      )
      assert.deepEqual(await v.ok('audit', {}), summary, 'an empty body reads the summary')
      const audit = stores().audit
      const record = {
        trigger: 'timer' as const,
        found: { retire: 0, fold: 0, alias: 0 },
        cards: [],
        alreadyQueued: 0,
        declined: 0,
        error: null,
        startedAt: v.clock.iso(),
        finishedAt: v.clock.iso(),
        durationMs: 0,
      }
      for (let n = 0; n < AUDIT_LOG_KEEP + 5; n += 1) audit.record(record)
      assert.equal(audit.runCount(), AUDIT_LOG_KEEP)
      assert.equal(v.generation(), generation)
      assert.equal(((await v.ok('audit', { summary: true, limit: 3 }))['runs'] as unknown[]).length, 3)
    })

    it('refuses a forced run while autoAudit is off, and a body asking for both a run and the summary', async () => {
      v.h.config = v.h.reconfigure({ autoAudit: false })
      const off = await v.call('audit', { force: true })
      assert.equal(!off.ok && off.code, 'unavailable')
      assert.match(!off.ok ? off.message : '', /autoAudit/u)
      const both = await v.call('audit', { force: true, summary: true })
      assert.equal(!both.ok && both.code, 'invalid_arguments')
    })

    it('still runs on request when auditIntervalMs is 0', async () => {
      v.h.config = v.h.reconfigure({ auditIntervalMs: 0 })
      write({ subject: 'job', property: 'status', value: 'has a status' })
      assert.equal((await force()).found.retire, 1)
    })
  })

  describe(`the health check's timer (${driver})`, () => {
    let clock: FakeClock
    let h: MemoryHandle
    let runtime: MemoryRuntime
    beforeEach(() => {
      clock = new FakeClock('2026-03-01T09:00:00.000Z')
      h = openMemory(driver, clock)
      h.memory.close()
    })
    afterEach(() => {
      runtime.stop()
      h.dispose()
    })
    let warnings: string[] = []
    const start = (overrides: Partial<Config> = {}): void => {
      warnings = []
      runtime = new MemoryRuntime({
        clock,
        home: () => ({ dshHome: h.root, userHome: h.root }),
        logger: {
          info: () => undefined,
          warn: (format, ...args) => {
            warnings.push([format, ...args].map(String).join(' '))
          },
        },
        registerTools: () => () => undefined,
        store: { driver },
      })
      runtime.reconfigure({
        ...Config({} as Config),
        dataDir: h.dataDir,
        storeTimezone: 'UTC',
        advanceIntervalMs: 0,
        ...overrides,
      })
    }
    const runs = (): number => {
      const opened = runtime.memory.storeSet()
      if (!('stores' in opened)) throw new Error('store not open')
      return opened.stores.audit.runCount()
    }

    it('looks first two minutes after loading, then runs again only once the interval has passed', () => {
      start({ auditIntervalMs: HOUR })
      clock.advance(2 * MINUTE - 1)
      assert.equal(runs(), 0, 'not before two minutes')
      clock.advance(1)
      assert.equal(runs(), 1)
      clock.advance(HOUR - MINUTE)
      assert.equal(runs(), 1, 'not before the interval has passed')
      clock.advance(MINUTE)
      assert.equal(runs(), 2)
      runtime.stop()
      assert.equal(clock.pendingTimers, 0, 'stopping the plugin cancels the timers')
    })

    it('counts a run a person asked for as the last run', () => {
      start({ auditIntervalMs: HOUR })
      clock.advance(MINUTE)
      assert.equal(runtime.audit.runNow().ran, true)
      clock.advance(HOUR - MINUTE)
      assert.equal(runs(), 1, 'the looks until then found a run less than an interval old')
      clock.advance(MINUTE)
      assert.equal(runs(), 2)
    })

    it('starts no timer with autoAudit off, and refuses a run asked for', () => {
      start({ autoAudit: false })
      assert.equal(clock.pendingTimers, 0)
      clock.advance(HOUR)
      assert.equal(runs(), 0)
      assert.deepEqual(runtime.audit.runNow(), { ran: false, reason: 'disabled' })
    })

    it('starts no timer with an interval of 0, yet runs when asked', () => {
      start({ auditIntervalMs: 0 })
      assert.equal(clock.pendingTimers, 0)
      clock.advance(HOUR)
      assert.equal(runs(), 0)
      assert.equal(runtime.audit.runNow().ran, true)
      assert.equal(runs(), 1)
    })

    it('reports a run that cannot log itself as a warning instead of throwing into the timer, and keeps looking', () => {
      start({ auditIntervalMs: HOUR })
      h.db().run('DROP TABLE audit_runs')
      assert.doesNotThrow(() => clock.advance(2 * MINUTE))
      assert.equal(warnings.length, 1)
      assert.match(warnings[0] ?? '', /the health check failed/u)
      assert.equal(clock.pendingTimers, 1, 'the minute timer still runs')
    })

    it('stops the timer when autoAudit is switched off in the settings', () => {
      start({ auditIntervalMs: HOUR })
      runtime.reconfigure({
        ...Config({} as Config),
        dataDir: h.dataDir,
        storeTimezone: 'UTC',
        advanceIntervalMs: 0,
        autoAudit: false,
      })
      clock.advance(HOUR)
      assert.equal(runs(), 0)
      assert.equal(clock.pendingTimers, 0)
    })
  })
}
