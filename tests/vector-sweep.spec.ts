/**
 * The vector sweep on a real store (both SQLite bindings) against the fake embedding server on loopback. One sweep:
 * new facts embedded, a status-only change rechecked without a request, a value edit re-embedded, a forgotten fact's
 * vector pruned, a failing endpoint ending the sweep with its error (the next sweep retries), vectors of another
 * dimension refused as wrong_dimension, nothing sensitive or hidden ever sent, batches of at most 32 texts with at
 * most 2 requests in flight. Then the service on the fake clock: the first sweep 15 s after follow and one every
 * interval, a committed change asking for one 250 ms later (changes in the window riding along, a change during a
 * sweep asking for another after it), silence after a failure until the next timed or manual sweep, interval 0 for
 * manual sweeps only, a changed fingerprint re-arming the timer, drain flushing within its bound, stop aborting.
 */
import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Config } from '../src/config.ts'
import { factText } from '../src/semantic/input-text.ts'
import { embeddingSettings } from '../src/semantic/settings.ts'
import { runVectorSweep, type VectorSweepResult } from '../src/semantic/vector-sweep-run.ts'
import { startFakeSemantic, type FakeSemantic } from './helpers/fake-semantic.ts'
import {
  embedWith,
  openSemanticMemory,
  pause,
  semanticOverrides,
  settleUntil,
  TEST_KEY,
  type SemanticMemory,
} from './helpers/semantic-memory.ts'
import { count, DRIVERS, writeFact } from './helpers/store.ts'
import { INSTANT } from '../src/store/fact-rows.ts'

/** The first timed sweep after follow, and the delay of the sweep a change asks for (the numbers). */
const FIRST_SWEEP_MS = 15_000
const NARROW_MARGIN_MS = 5 * 60_000
const ASKED_DELAY_MS = 250

/** The texts of the embedding requests received, one list per request. */
function batches(fake: FakeSemantic): string[][] {
  return fake.requests
    .filter((request) => request.kind === 'embeddings')
    .map((request) => (request.body as { input: string[] }).input)
}

for (const driver of DRIVERS) {
  describe(`one vector sweep (${driver})`, () => {
    let fake: FakeSemantic
    let m: SemanticMemory | undefined
    before(async () => {
      fake = await startFakeSemantic()
    })
    after(async () => {
      await fake.close()
    })
    afterEach(async () => {
      await m?.dispose()
      m = undefined
      fake.reset()
    })

    const open = (overrides: Partial<Config> = {}): SemanticMemory => {
      m = openSemanticMemory(driver, { ...semanticOverrides(fake, { embedding: true }), ...overrides })
      return m
    }
    const sweep = (memory: SemanticMemory, signal = new AbortController().signal): Promise<VectorSweepResult> => {
      const settings = embeddingSettings(memory.config)
      if (!settings.configured) throw new Error(settings.reason)
      return runVectorSweep({
        vectors: memory.stores().vectors,
        settings,
        embed: embedWith(memory.access, settings),
        now: () => memory.clock.iso(),
        signal,
      })
    }
    const put = (
      memory: SemanticMemory,
      subject: string,
      property = 'port',
      value = `${7000 + subject.length}`,
    ): number => writeFact(memory.memory, memory.config, { subject, property, value }).id
    const vectorRows = (memory: SemanticMemory): Map<number, number> =>
      new Map(
        memory
          .db()
          .all('SELECT fact_id, id FROM fact_vectors')
          .map((row) => [Number(row['fact_id']), Number(row['id'])]),
      )
    const coverage = (memory: SemanticMemory) => {
      const settings = embeddingSettings(memory.config)
      const space = settings.configured ? memory.stores().vectors.space(settings.fingerprint) : undefined
      return memory.stores().vectors.coverage(space?.id ?? 0)
    }

    it('embeds every new fact once, and a sweep with nothing new sends nothing', async () => {
      const memory = open()
      const ids = ['billing-api', 'orders-api', 'search-service'].map((subject) => put(memory, subject))
      const result = await sweep(memory)
      assert.deepEqual(
        [result.outcome, result.embedded, result.rechecked, result.pruned, result.error],
        ['swept', 3, 0, 0, null],
      )
      const settings = embeddingSettings(memory.config)
      assert.equal(result.fingerprint, settings.configured ? settings.fingerprint : undefined)
      assert.deepEqual(batches(fake), [
        memory
          .stores()
          .facts.getFacts(ids)
          .map((fact) => factText(fact)),
      ])
      assert.deepEqual([...vectorRows(memory).keys()].sort(), ids)
      assert.deepEqual(coverage(memory), { current: 3, stale: 0, missing: 0, excluded: 0 })
      fake.reset()
      const again = await sweep(memory)
      assert.deepEqual([again.outcome, again.embedded, again.rechecked], ['swept', 0, 0])
      assert.equal(fake.requests.length, 0)
    })

    it('keeps the vector of a fact whose status alone changed (rechecked, no request) and re-embeds a fact whose value changed', async () => {
      const memory = open()
      const old = put(memory, 'billing-api', 'port', '7801')
      await sweep(memory)
      const kept = vectorRows(memory).get(old)
      const replacement = put(memory, 'billing-api', 'port', '7802')
      assert.equal(
        memory.stores().facts.getFacts([old])[0]?.status,
        'superseded',
        'the old value was retired: its revision moved, its text did not',
      )
      fake.reset()
      const result = await sweep(memory)
      assert.deepEqual([result.embedded, result.rechecked], [1, 1])
      assert.deepEqual(batches(fake), [['billing-api · port: 7802']])
      assert.equal(vectorRows(memory).get(old), kept, 'the same vector row')
      // Coverage counts the current facts: the superseded value keeps its vector but is history.
      assert.deepEqual(coverage(memory), { current: 1, stale: 0, missing: 0, excluded: 0 })
      memory.db().run(`UPDATE facts SET value = '7803', revision = revision + 1 WHERE id = ?`, replacement)
      assert.deepEqual(coverage(memory), { current: 0, stale: 1, missing: 0, excluded: 0 })
      fake.reset()
      const edited = await sweep(memory)
      assert.deepEqual([edited.embedded, edited.rechecked], [1, 0])
      assert.deepEqual(batches(fake), [['billing-api · port: 7803']])
    })

    it('passes over facts that get no usable vector instead of reading them again in front of the rest', async () => {
      const memory = open()
      const blanks = Array.from({ length: 130 }, (_, n) => put(memory, `blank-${n}`, 'note', `blank note ${n}`))
      const last = put(memory, 'billing-api', 'port', '7801')
      const settings = embeddingSettings(memory.config)
      if (!settings.configured) throw new Error(settings.reason)
      // An endpoint that answers all-zero vectors for the blank notes: no vector can be stored for them.
      const embed = async (texts: readonly string[]) => ({
        ok: true as const,
        dim: 8,
        vectors: texts.map((text) => Float32Array.from({ length: 8 }, (_, i) => (text.includes('blank') ? 0 : i + 1))),
      })
      const result = await runVectorSweep({
        vectors: memory.stores().vectors,
        settings,
        embed,
        now: () => memory.clock.iso(),
        signal: new AbortController().signal,
      })
      assert.equal(result.outcome, 'swept')
      assert.ok(vectorRows(memory).has(last), 'the fact after 130 unusable ones got its vector')
      assert.equal(blanks.filter((id) => vectorRows(memory).has(id)).length, 0)
    })

    it('keeps the good answers of a round in which another request failed', async () => {
      const memory = open()
      const ids = Array.from({ length: 40 }, (_, n) => put(memory, `service-${n}`))
      const settings = embeddingSettings(memory.config)
      if (!settings.configured) throw new Error(settings.reason)
      let calls = 0
      const embed = async (texts: readonly string[]) => {
        calls += 1
        if (calls === 1)
          return {
            ok: false as const,
            code: 'http_error' as const,
            message: 'the embedding endpoint answered HTTP 502',
          }
        return {
          ok: true as const,
          dim: 8,
          vectors: texts.map(() => Float32Array.from({ length: 8 }, (_, i) => i + 1)),
        }
      }
      const result = await runVectorSweep({
        vectors: memory.stores().vectors,
        settings,
        embed,
        now: () => memory.clock.iso(),
        signal: new AbortController().signal,
      })
      assert.deepEqual(
        [result.outcome, result.error?.code, result.embedded],
        ['failed', 'http_error', 8],
        'the second request of the round held 8 texts',
      )
      assert.equal(ids.filter((id) => vectorRows(memory).has(id)).length, 8)
    })

    it('prunes the vector of a fact forgotten since', async () => {
      const memory = open()
      const gone = put(memory, 'billing-api')
      put(memory, 'orders-api')
      await sweep(memory)
      assert.equal(memory.memory.forgetById(gone).kind, 'forgotten')
      fake.reset()
      const result = await sweep(memory)
      assert.deepEqual([result.pruned, result.embedded], [1, 0])
      assert.ok(!vectorRows(memory).has(gone))
      assert.equal(vectorRows(memory).size, 1)
      assert.equal(fake.requests.length, 0)
    })

    it('ends at the first failing answer with its error and sends nothing more; the next sweep retries and finishes', async () => {
      const memory = open()
      for (let i = 0; i < 200; i += 1) put(memory, `service-${i}`)
      fake.script.embedStatus = 503
      const failed = await sweep(memory)
      assert.equal(failed.outcome, 'failed')
      assert.equal(failed.error?.code, 'http_error')
      assert.match(failed.error?.message ?? '', /the embedding endpoint answered HTTP 503/u)
      assert.doesNotMatch(
        JSON.stringify(failed),
        new RegExp(TEST_KEY, 'u'),
        'the fake echoed the key; the error does not',
      )
      assert.equal(failed.embedded, 0)
      assert.equal(fake.requests.length, 2, 'one round of requests, then the sweep stopped')
      fake.script.embedStatus = undefined
      const retried = await sweep(memory)
      assert.deepEqual([retried.outcome, retried.embedded], ['swept', 200])
      assert.equal(coverage(memory).current, 200)
    })

    it('stops with wrong_dimension when the vectors disagree with the dimension stored, or with the one configured', async () => {
      const memory = open()
      put(memory, 'billing-api')
      await sweep(memory)
      put(memory, 'orders-api')
      fake.script.embedDim = 32
      const stored = await sweep(memory)
      assert.deepEqual([stored.outcome, stored.error?.code, stored.embedded], ['failed', 'wrong_dimension', 0])
      assert.match(stored.error?.message ?? '', /32-dimensional.*64/u)
      memory.reconfigure({ ...semanticOverrides(fake, { embedding: true }), embeddingDim: 64 })
      const configured = await sweep(memory)
      assert.deepEqual(
        [configured.outcome, configured.error?.code, configured.embedded],
        ['failed', 'wrong_dimension', 0],
      )
      assert.match(configured.error?.message ?? '', /32-dimensional vectors, but 64 dimensions are configured/u)
    })

    it('never sends the text of a sensitive fact or of one hidden from the model', async () => {
      const memory = open()
      put(memory, 'billing-api')
      const email = writeFact(memory.memory, memory.config, {
        subject: 'ops team',
        property: 'email',
        value: 'ops-oncall@example.com',
      })
      assert.notEqual(email.sensitivity, null)
      const hidden = put(memory, 'vault', 'address', 'vault.internal:8200')
      memory.db().run('UPDATE facts SET model_use_allowed = 0 WHERE id = ?', hidden)
      const result = await sweep(memory)
      assert.equal(result.embedded, 1)
      const sent = fake.sentTexts().join('\n')
      assert.doesNotMatch(sent, /ops-oncall@example\.com|vault\.internal/u)
      assert.deepEqual(coverage(memory), { current: 1, stale: 0, missing: 0, excluded: 2 })
    })

    it('sends at most 32 texts per request and at most 2 requests at once', async () => {
      const memory = open()
      for (let i = 0; i < 100; i += 1) put(memory, `service-${i}`)
      fake.script.embedDelayMs = 40
      memory.fetch.reset()
      const result = await sweep(memory)
      assert.deepEqual([result.outcome, result.embedded], ['swept', 100])
      assert.deepEqual(
        batches(fake).map((texts) => texts.length),
        [32, 32, 32, 4],
      )
      assert.equal(memory.fetch.maxInFlight(), 2)
      assert.equal(count(memory.db(), 'SELECT count(*) AS n FROM fact_vectors'), 100)
    })

    it('sends nothing when its signal is already aborted', async () => {
      const memory = open()
      put(memory, 'billing-api')
      const result = await sweep(memory, AbortSignal.abort())
      assert.deepEqual([result.outcome, result.embedded, result.error], ['cancelled', 0, null])
      assert.equal(fake.requests.length, 0)
    })
  })

  describe(`the vector sweep service on the fake clock (${driver})`, () => {
    let fake: FakeSemantic
    let m: SemanticMemory | undefined
    before(async () => {
      fake = await startFakeSemantic()
    })
    after(async () => {
      await fake.close()
    })
    afterEach(async () => {
      await m?.dispose()
      m = undefined
      fake.reset()
    })

    /** A memory whose committed changes ask the service for a sweep, as the plugin wires it. */
    const open = (overrides: Partial<Config> = {}, wired = true): SemanticMemory => {
      m = openSemanticMemory(driver, {
        ...semanticOverrides(fake, { embedding: true }),
        vectorIndexIntervalMs: 60_000,
        ...overrides,
      })
      const memory = m
      if (wired)
        memory.memory.onChange(() => {
          memory.vectors.changed()
        })
      return memory
    }
    const put = (memory: SemanticMemory, subject: string): void => {
      writeFact(memory.memory, memory.config, { subject, property: 'port', value: '7801' })
    }
    const requests = (): number => fake.requests.length
    const sweepDone = (memory: SemanticMemory, after: VectorSweepResult | undefined): Promise<void> =>
      settleUntil(() => memory.vectors.last() !== after && memory.vectors.last() !== undefined, 'a sweep to end')

    it(`sweeps first ${FIRST_SWEEP_MS / 1000} s after follow, then once every interval`, async () => {
      const memory = open({}, false)
      put(memory, 'billing-api')
      memory.vectors.follow(memory.config)
      assert.equal(memory.vectors.armed, true)
      memory.clock.advance(FIRST_SWEEP_MS - 1)
      await pause()
      assert.equal(requests(), 0, 'nothing before the first timed sweep')
      memory.clock.advance(1)
      await sweepDone(memory, undefined)
      const first = memory.vectors.last()
      assert.deepEqual([first?.embedded, first?.startedAt], [1, memory.clock.iso()])
      put(memory, 'orders-api')
      memory.clock.advance(60_000 - 1)
      await pause()
      assert.equal(memory.vectors.last(), first, 'nothing before the interval has passed')
      memory.clock.advance(1)
      await sweepDone(memory, first)
      assert.deepEqual([memory.vectors.last()?.embedded, memory.vectors.last()?.startedAt], [1, memory.clock.iso()])
      assert.deepEqual(batches(fake), [['billing-api · port: 7801'], ['orders-api · port: 7801']])
    })

    it(`a committed change asks for a sweep ${ASKED_DELAY_MS} ms later, and changes within that window share it`, async () => {
      const memory = open()
      memory.vectors.follow(memory.config)
      put(memory, 'billing-api')
      memory.clock.advance(100)
      put(memory, 'orders-api')
      memory.clock.advance(ASKED_DELAY_MS - 100 - 1)
      await pause()
      assert.equal(requests(), 0)
      memory.clock.advance(1)
      await sweepDone(memory, undefined)
      assert.deepEqual(
        batches(fake),
        [['billing-api · port: 7801', 'orders-api · port: 7801']],
        'one sweep, one request for both',
      )
      const shared = memory.vectors.last()
      memory.clock.advance(ASKED_DELAY_MS * 4)
      await pause()
      assert.equal(memory.vectors.last(), shared, 'the second change asked for no sweep of its own')
    })

    it('an asked-for sweep reads only the facts changed since the last sweep began (less the margin); the next timed sweep reads all', async () => {
      const memory = open()
      memory.vectors.follow(memory.config)
      put(memory, 'billing-api')
      memory.clock.advance(ASKED_DELAY_MS)
      await sweepDone(memory, undefined)
      const first = memory.vectors.last()
      // A fact another process changed long before (its clock far behind): outside the asked-for sweep's window.
      writeFact(memory.memory, memory.config, { subject: 'orders-api', property: 'port', value: '7802' })
      const stale = new Date(memory.clock.now() - NARROW_MARGIN_MS - 60_000).toISOString()
      memory.db().run(`UPDATE facts SET updated_at = ${INSTANT} WHERE subject = 'orders-api'`, stale)
      put(memory, 'checkout-web')
      memory.clock.advance(ASKED_DELAY_MS)
      await sweepDone(memory, first)
      const asked = memory.vectors.last()
      assert.deepEqual(
        batches(fake).at(-1),
        ['checkout-web · port: 7801'],
        'the asked-for sweep read only the recent change',
      )
      memory.clock.advance(FIRST_SWEEP_MS)
      await sweepDone(memory, asked)
      assert.deepEqual(batches(fake).at(-1), ['orders-api · port: 7802'], 'the timed sweep read every fact')
    })

    it('a change during a sweep asks for another right after it', async () => {
      const memory = open()
      memory.vectors.follow(memory.config)
      fake.script.embedDelayMs = 300
      put(memory, 'billing-api')
      memory.clock.advance(ASKED_DELAY_MS)
      await settleUntil(() => requests() === 1, 'the first request')
      put(memory, 'orders-api')
      await sweepDone(memory, undefined)
      const first = memory.vectors.last()
      assert.equal(first?.embedded, 2, 'the sweep under way reads again after each round and takes the new fact along')
      memory.clock.advance(ASKED_DELAY_MS - 1)
      await pause()
      assert.equal(memory.vectors.last(), first)
      memory.clock.advance(1)
      await sweepDone(memory, first)
      assert.equal(memory.vectors.last()?.startedAt, memory.clock.iso(), 'the change asked for one more sweep after it')
    })

    it('after a failure, changes ask for nothing until the next timed sweep or a manual one', async () => {
      const memory = open()
      memory.vectors.follow(memory.config)
      fake.script.embedStatus = 500
      put(memory, 'billing-api')
      memory.clock.advance(ASKED_DELAY_MS)
      await sweepDone(memory, undefined)
      const failed = memory.vectors.last()
      assert.equal(failed?.outcome, 'failed')
      put(memory, 'orders-api')
      memory.clock.advance(ASKED_DELAY_MS * 4)
      await pause()
      assert.equal(requests(), 1, 'silenced: no retry in a loop')
      fake.script.embedStatus = undefined
      memory.clock.advance(FIRST_SWEEP_MS - ASKED_DELAY_MS * 5)
      await sweepDone(memory, failed)
      assert.deepEqual(
        [memory.vectors.last()?.outcome, memory.vectors.last()?.embedded],
        ['swept', 2],
        'the timed sweep retried',
      )
      fake.script.embedStatus = 500
      put(memory, 'search-service')
      memory.clock.advance(ASKED_DELAY_MS)
      await sweepDone(memory, memory.vectors.last())
      assert.equal(memory.vectors.last()?.outcome, 'failed', 'after a good sweep a change asks again')
      put(memory, 'docs-site')
      memory.clock.advance(ASKED_DELAY_MS)
      await pause()
      const silenced = requests()
      fake.script.embedStatus = undefined
      const manual = await memory.vectors.sweepNow()
      assert.ok(manual.ran && manual.sweep.outcome === 'swept' && manual.sweep.embedded === 2)
      put(memory, 'wiki')
      memory.clock.advance(ASKED_DELAY_MS)
      await settleUntil(() => requests() === silenced + 2, 'the sweep a change asks for after a manual one')
    })

    it('with an interval of 0 only a manual sweep runs', async () => {
      const memory = open({ vectorIndexIntervalMs: 0 })
      const timers = memory.clock.pendingTimers
      memory.vectors.follow(memory.config)
      assert.equal(memory.vectors.armed, false)
      assert.equal(memory.clock.pendingTimers, timers)
      put(memory, 'billing-api')
      memory.clock.advance(FIRST_SWEEP_MS * 10)
      await pause()
      assert.equal(requests(), 0)
      assert.equal(memory.vectors.last(), undefined)
      const manual = await memory.vectors.sweepNow()
      assert.ok(manual.ran && manual.sweep.embedded === 1)
    })

    it('leaves an armed timer alone for an unchanged configuration and re-arms it when the fingerprint changes', async () => {
      const memory = open()
      memory.vectors.follow(memory.config)
      const timers = memory.clock.pendingTimers
      memory.clock.advance(10_000)
      memory.vectors.follow({ ...memory.config })
      assert.equal(memory.clock.pendingTimers, timers)
      memory.clock.advance(FIRST_SWEEP_MS - 10_000)
      await sweepDone(memory, undefined)
      const first = memory.vectors.last()
      assert.equal(first?.startedAt, '2026-03-01T09:00:15.000Z', 'the first sweep kept its time')
      memory.clock.advance(30_000)
      memory.vectors.follow(
        memory.reconfigure({
          ...semanticOverrides(fake, { embedding: true }),
          embeddingModel: 'fake-embed-2',
          vectorIndexIntervalMs: 60_000,
        }),
      )
      memory.clock.advance(FIRST_SWEEP_MS - 1)
      await pause()
      assert.equal(memory.vectors.last(), first)
      memory.clock.advance(1)
      await sweepDone(memory, first)
      const renewed = memory.vectors.last()
      assert.deepEqual(
        [renewed?.startedAt, renewed?.fingerprint === first?.fingerprint],
        ['2026-03-01T09:01:00.000Z', false],
        'first sweep of the new fingerprint',
      )
      memory.clock.advance(15_000)
      await pause()
      assert.equal(memory.vectors.last(), renewed, 'the old interval (due at 09:01:15) no longer fires')
      memory.clock.advance(45_000)
      await sweepDone(memory, renewed)
      assert.equal(memory.vectors.last()?.startedAt, '2026-03-01T09:02:00.000Z', 'the new interval')
    })

    it('drain starts an asked-for sweep at once and waits for it', async () => {
      const memory = open()
      memory.vectors.follow(memory.config)
      put(memory, 'billing-api')
      await memory.vectors.drain(4_000)
      assert.equal(memory.vectors.last()?.embedded, 1, 'the fact has its vector before unload goes on')
      assert.equal(requests(), 1)
    })

    it('drain waits at most the time given for a slow sweep', async () => {
      const memory = open()
      memory.vectors.follow(memory.config)
      fake.script.embedDelayMs = 10_000
      put(memory, 'billing-api')
      let drained = false
      const draining = memory.vectors.drain(1_000).then(() => {
        drained = true
      })
      await settleUntil(() => requests() === 1, "the flushed sweep's request")
      memory.clock.advance(999)
      await pause()
      assert.equal(drained, false)
      memory.clock.advance(1)
      await settleUntil(() => drained, 'drain to give up at its bound')
      await draining
    })

    it('drain flushes a change that arrived while a manual sweep ran, once that sweep ends', async () => {
      const memory = open()
      memory.vectors.follow(memory.config)
      fake.script.embedDelayMs = 200
      put(memory, 'billing-api')
      const manual = memory.vectors.sweepNow()
      await settleUntil(() => requests() === 1, 'the manual sweep under way')
      // A change during the manual sweep, its fact written after the sweep read the library; the sweep the first
      // write asked for is still waiting on its timer.
      put(memory, 'orders-api')
      await memory.vectors.drain(4_000)
      await manual
      const vectors = memory
        .db()
        .all('SELECT f.subject FROM fact_vectors v JOIN facts f ON f.id = v.fact_id')
        .map((row) => String(row['subject']))
        .sort()
      assert.deepEqual(
        vectors,
        ['billing-api', 'orders-api'],
        'the change made during the manual sweep has its vector before unload goes on',
      )
    })

    it('drain puts the facts written since the plugin loaded first, whatever backlog the library holds', async () => {
      const memory = open()
      const backlog = Array.from({ length: 300 }, (_, n) => put(memory, `old-service-${n}`))
      void backlog
      const old = new Date(memory.clock.now() - NARROW_MARGIN_MS - 60_000).toISOString()
      memory.db().run(`UPDATE facts SET updated_at = ${INSTANT}`, old)
      memory.vectors.follow(memory.config)
      put(memory, 'new-service')
      await memory.vectors.drain(4_000)
      assert.deepEqual(batches(fake), [['new-service · port: 7801']], 'only the new fact was read by the flushed sweep')
    })

    it('a timed sweep that comes while another runs is not lost: it runs, reading every fact, when that one ends', async () => {
      const memory = open({ vectorIndexIntervalMs: 60_000 })
      memory.vectors.follow(memory.config)
      assert.equal((await memory.vectors.sweepNow()).ran, true, 'a completed sweep: asked-for sweeps now look from it')
      fake.script.embedDelayMs = 300
      put(memory, 'billing-api')
      memory.clock.advance(ASKED_DELAY_MS)
      await settleUntil(() => requests() === 1, 'the asked-for sweep under way')
      // Another process changed a fact long ago: only a sweep reading every fact finds it.
      writeFact(memory.memory, memory.config, { subject: 'orders-api', property: 'port', value: '7802' })
      memory
        .db()
        .run(
          `UPDATE facts SET updated_at = ${INSTANT} WHERE subject = 'orders-api'`,
          new Date(memory.clock.now() - NARROW_MARGIN_MS - 60_000).toISOString(),
        )
      memory.clock.advance(FIRST_SWEEP_MS)
      fake.script.embedDelayMs = 0
      await settleUntil(
        () => batches(fake).some((batch) => batch.includes('orders-api · port: 7802')),
        'the timed sweep after the one under way',
      )
    })

    it('drain waits at most the time given when a change arrived during the sweep under way', async () => {
      const memory = open()
      memory.vectors.follow(memory.config)
      fake.script.embedDelayMs = 10_000
      put(memory, 'billing-api')
      memory.clock.advance(ASKED_DELAY_MS)
      await settleUntil(() => requests() === 1, 'the sweep under way')
      put(memory, 'orders-api')
      let drained = false
      const draining = memory.vectors.drain(1_000).then(() => {
        drained = true
      })
      memory.clock.advance(1_000)
      await settleUntil(() => drained, 'drain to give up within 1000 ms of fake time', 1_000).catch(() => undefined)
      assert.equal(drained, true, 'drain waited past its bound')
      await draining
    })

    it('stop aborts the sweep under way and cancels every timer', async () => {
      const memory = open()
      const timers = memory.clock.pendingTimers
      memory.vectors.follow(memory.config)
      fake.script.embedDelayMs = 10_000
      put(memory, 'billing-api')
      memory.clock.advance(ASKED_DELAY_MS)
      await settleUntil(() => requests() === 1, 'the sweep under way')
      const started = Date.now()
      await memory.vectors.stop()
      assert.ok(Date.now() - started < 2_000, `stop took ${Date.now() - started} ms`)
      assert.equal(memory.vectors.last()?.outcome, 'cancelled')
      assert.equal(memory.clock.pendingTimers, timers)
      assert.equal(memory.vectors.armed, false)
    })

    it('stop aborts the sweep under way even after a new fingerprint re-armed the timer', async () => {
      const memory = open()
      memory.vectors.follow(memory.config)
      fake.script.embedDelayMs = 10_000
      put(memory, 'billing-api')
      memory.clock.advance(ASKED_DELAY_MS)
      await settleUntil(() => requests() === 1, 'the sweep under way')
      memory.vectors.follow(
        memory.reconfigure({
          ...semanticOverrides(fake, { embedding: true }),
          embeddingModel: 'fake-embed-2',
          vectorIndexIntervalMs: 60_000,
        }),
      )
      let stopped = false
      const stopping = memory.vectors.stop().then(() => {
        stopped = true
      })
      await settleUntil(() => stopped, 'stop to abort the sweep', 2_000).catch(() => undefined)
      assert.equal(stopped, true, 'stop waited for the sweep instead of aborting it')
      assert.equal(memory.vectors.last()?.outcome, 'cancelled')
      fake.script.embedDelayMs = 0
      await stopping
    })
  })
}
