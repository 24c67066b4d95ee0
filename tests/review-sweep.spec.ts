/**
 * The near-duplicate review on a real store, both SQLite bindings, with only the model faked: the candidate query
 * (sensitive facts never read, pairs never across subjects or scopes), one sweep per verdict (same and unsure: one
 * merge card each with the keeper by rule; distinct: remembered, so the next sweep calls nothing; garbage: no answer;
 * a failing or missing model: nothing written, the pairs deferred), the budget and the subject interleaving, the
 * ledger, the timer on the fake clock, and the lexical leg's bound on a large subject.
 */
import { afterEach, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { ExtractionModel, ModelAnswer, ModelRequest } from '../src/host/model-client.ts'
import { FIRST_LOOK_MS, LOOK_EVERY_MS } from '../src/review/schedule.ts'
import { lexicalSource, SCORES_PER_PAUSE, SWEEP_GROUP_CAP } from '../src/review/sweep-candidates.ts'
import { runSweep } from '../src/review/sweep-run.ts'
import { SweepService } from '../src/review/sweep-service.ts'
import { SWEEP_LOG_KEEP } from '../src/store/review-store.ts'
import type { StoreSet } from '../src/store/store-set.ts'
import type { FactInput } from '../src/types.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { count, DRIVERS, expectKind, hexKey, openMemory, write, type MemoryHandle } from './helpers/store.ts'
import { instantColumn } from '../src/store/fact-rows.ts'

/** Twelve unrelated current facts: below that the lexical leg is off, as the gate is. */
const LIBRARY: readonly Pick<FactInput, 'subject' | 'property' | 'value'>[] = [
  { subject: 'billing-api', property: 'owner', value: 'the payments team in Berlin' },
  { subject: 'search-service', property: 'region', value: 'eu-west-1' },
  { subject: 'user', property: 'editor', value: 'Neovim with LazyVim' },
  { subject: 'user', property: 'home city', value: 'Hamburg' },
  { subject: 'user', property: 'coffee', value: 'black coffee every morning' },
  { subject: '支付服务', property: '端口', value: '7801' },
  { subject: '订单服务', property: '负责人', value: '张三' },
  { subject: 'docs site', property: 'url', value: 'https://docs.example.com' },
  { subject: 'payments team', property: 'standup', value: 'every day at 09:30' },
  { subject: 'user', property: 'shell', value: 'fish with the starship prompt' },
  { subject: 'release', property: 'cadence', value: 'every second Thursday' },
  { subject: 'staging', property: 'host', value: 'staging.internal' },
]

/** A scripted model: each call takes the next answer; `fail` answers as a failed call. */
class ScriptedModel implements ExtractionModel {
  readonly name = 'fake/verdicts'
  readonly requests: ModelRequest[] = []
  private readonly answers: (string | { readonly fail: string })[]
  constructor(...answers: (string | { readonly fail: string })[]) {
    this.answers = answers
  }
  async complete(request: ModelRequest): Promise<ModelAnswer> {
    this.requests.push(request)
    const next = this.answers.shift() ?? { fail: 'script exhausted' }
    return typeof next === 'string' ? { ok: true, text: next } : { ok: false, error: next.fail }
  }
}

const verdict = (word: string): string => JSON.stringify({ verdict: word })

for (const driver of DRIVERS) {
  describe(`near-duplicate review on the store (${driver})`, () => {
    let clock: FakeClock
    let h: MemoryHandle
    let stores: StoreSet
    beforeEach(() => {
      clock = new FakeClock('2026-03-01T09:00:00.000Z')
      h = openMemory(driver, clock)
      const opened = h.memory.storeSet()
      if (!('stores' in opened)) throw new Error('store not open')
      stores = opened.stores
    })
    afterEach(() => {
      h.dispose()
    })

    const put = (fact: Partial<FactInput>): number => {
      const answer = write(h.memory, h.config, { evidence: 'observed', origin: 'tool', ...fact })
      clock.advance(60_000)
      return expectKind(answer, 'saved').fact.id
    }
    const seed = (): void => {
      for (const fact of LIBRARY) put(fact)
    }
    /** One pair of restatements across two properties of one subject (the write-time gate compares one slot only). */
    const hobbyPair = (subject = 'user', extra: Partial<FactInput> = {}): [number, number] => [
      put({ subject, property: 'hobbies', value: 'plays the piano, mostly jazz standards', multi: true, ...extra }),
      put({ subject, property: 'pastime', value: 'plays jazz standards on the piano', multi: true, ...extra }),
    ]
    const sweep = (model: ExtractionModel | { unavailable: string }, budget = 8): ReturnType<typeof runSweep> =>
      runSweep({ stores, model: async () => model, now: () => clock.iso() }, { trigger: 'asked', budget })
    const reviewRows = (): number => count(h.db(), 'SELECT count(*) AS n FROM review_verdicts')
    const mergeCards = (): { id: number; rows: unknown }[] =>
      h
        .db()
        .all(`SELECT id, rows FROM proposals WHERE kind = 'merge' ORDER BY id`)
        .map((row) => ({ id: Number(row['id']), rows: (JSON.parse(String(row['rows'])) as { rows: unknown }).rows }))

    it('pairs facts only inside one subject and one scope, and never reads a sensitive fact', () => {
      seed()
      const [a, b] = hobbyPair()
      const partner = put({
        subject: 'partner',
        property: 'hobbies',
        value: 'plays jazz standards on the piano',
        multi: true,
      })
      const elsewhere = put({
        subject: 'user',
        property: 'pastime',
        value: 'plays the piano, mostly jazz standards',
        scope: 'project:band',
        multi: true,
      })
      const sensitive = put({
        subject: 'user',
        property: 'contact',
        value: 'plays jazz standards on the piano, mail alice@example.com',
      })
      put({ subject: 'orders-api', property: 'database', value: 'PostgreSQL 16 on the managed instance' })
      put({ subject: 'orders-api staging', property: 'database', value: 'PostgreSQL 16 on the managed instance' })
      assert.notEqual(
        h.db().get('SELECT sensitivity FROM facts WHERE id = ?', sensitive)?.['sensitivity'],
        null,
        'the contact row is marked sensitive',
      )
      const facts = stores.review.candidateFacts()
      assert.ok(!facts.some((fact) => fact.id === sensitive), 'a sensitive fact is not read')
      assert.ok(facts.some((fact) => fact.id === partner) && facts.some((fact) => fact.id === elsewhere))
      return sweep(new ScriptedModel(verdict('distinct'))).then((entry) => {
        assert.equal(entry.candidates, 1, 'one pair: user · hobbies / user · pastime in the global scope')
        assert.deepEqual(
          stores.review.distinctPairs().map((pair) => [pair.lowFactId, pair.highFactId]),
          [[a, b]],
        )
      })
    })

    it('sends the model the two statements and no fact id, and never the sensitive text', async () => {
      seed()
      hobbyPair()
      put({ subject: 'user', property: 'contact', value: 'plays jazz standards on the piano, mail alice@example.com' })
      const model = new ScriptedModel(verdict('distinct'))
      await sweep(model)
      assert.equal(model.requests.length, 1)
      const [request] = model.requests
      assert.match(
        request?.user ?? '',
        /^Statement A: user · hobbies: plays the piano, mostly jazz standards\nStatement B: user · pastime: plays jazz standards on the piano$/u,
      )
      assert.doesNotMatch(JSON.stringify(model.requests), /alice@example\.com|#\d/u)
    })

    it('a same verdict gives one merge card whose keeper is the stronger evidence', async () => {
      seed()
      const first = put({
        subject: 'user',
        property: 'hobbies',
        value: 'plays the piano, mostly jazz standards',
        multi: true,
      })
      const second = put({
        subject: 'user',
        property: 'pastime',
        value: 'plays jazz standards on the piano',
        multi: true,
        evidence: 'explicit_user',
      })
      const revisions = new Map(
        h
          .db()
          .all('SELECT id, revision FROM facts WHERE id IN (?, ?)', first, second)
          .map((row) => [Number(row['id']), Number(row['revision'])]),
      )
      const generation = stores.db.generation()
      const entry = await sweep(new ScriptedModel(verdict('same')))
      assert.equal(entry.same, 1)
      const cards = mergeCards()
      assert.equal(cards.length, 1)
      assert.deepEqual(entry.proposalIds, [cards[0]?.id])
      assert.deepEqual(cards[0]?.rows, [
        {
          keeper: { factId: second, revision: revisions.get(second) },
          loser: { factId: first, revision: revisions.get(first) },
        },
      ])
      assert.ok(stores.db.generation() > generation, 'a card is a change the page must see')
      assert.equal(reviewRows(), 0, 'same is not remembered as distinct')
      const again = await sweep(new ScriptedModel())
      assert.equal(again.asked, 0, 'a pair a card already holds costs nothing')
      assert.equal(mergeCards().length, 1)
    })

    it('an unsure verdict gives one merge card too, keeping the earlier observation', async () => {
      seed()
      const [first, second] = hobbyPair()
      const entry = await sweep(new ScriptedModel(verdict('unsure')))
      assert.equal(entry.unsure, 1)
      const cards = mergeCards()
      assert.equal(cards.length, 1)
      const [row] = cards[0]?.rows as { keeper: { factId: number }; loser: { factId: number } }[]
      assert.deepEqual([row?.keeper.factId, row?.loser.factId], [first, second])
    })

    it('keeps the first observation even after a duplicate write observed the earlier fact again, later than the other', async () => {
      seed()
      const [first, second] = hobbyPair()
      const again = write(h.memory, h.config, {
        subject: 'user',
        property: 'hobbies',
        value: 'plays the piano, mostly jazz standards',
        multi: true,
        evidence: 'observed',
        origin: 'tool',
      })
      assert.equal(expectKind(again, 'duplicate').fact.id, first)
      const observed = (id: number): string =>
        String(h.db().get(`SELECT ${instantColumn('observed_at')} FROM facts WHERE id = ?`, id)?.['observed_at'])
      assert.ok(
        observed(first) > observed(second),
        "the duplicate moved the first fact's observation past the second's",
      )
      await sweep(new ScriptedModel(verdict('unsure')))
      const [row] = mergeCards()[0]?.rows as { keeper: { factId: number }; loser: { factId: number } }[]
      assert.deepEqual([row?.keeper.factId, row?.loser.factId], [first, second])
    })

    it('a distinct verdict is remembered without bumping the generation, so the next sweep makes no call', async () => {
      seed()
      hobbyPair()
      const generation = stores.db.generation()
      const entry = await sweep(new ScriptedModel(verdict('distinct')))
      assert.deepEqual([entry.asked, entry.distinct, entry.proposalIds.length], [1, 1, 0])
      assert.equal(reviewRows(), 1)
      assert.equal(stores.db.generation(), generation, 'a verdict and the ledger are bookkeeping')
      const model = new ScriptedModel()
      const next = await sweep(model)
      assert.deepEqual([model.requests.length, next.asked, next.remembered, next.candidates], [0, 0, 1, 1])
      assert.equal(mergeCards().length, 0)
    })

    it('a changed value is a new pair: the remembered verdict was about the old wording', async () => {
      seed()
      const [, second] = hobbyPair()
      await sweep(new ScriptedModel(verdict('distinct')))
      stores.db.run(
        `UPDATE facts SET value = 'plays jazz standards on the piano!', claim_key = unhex(?) WHERE id = ?`,
        hexKey('changed'),
        second,
      )
      const model = new ScriptedModel(verdict('distinct'))
      const entry = await sweep(model)
      assert.equal(model.requests.length, 1)
      assert.equal(entry.remembered, 0)
    })

    it('a malformed answer is no answer: nothing is written and the pair is asked again', async () => {
      seed()
      hobbyPair()
      const entry = await sweep(new ScriptedModel('They look the same to me: {"verdict": "same"}'))
      assert.deepEqual([entry.asked, entry.unanswered, entry.same], [1, 1, 0])
      assert.equal(mergeCards().length, 0)
      assert.equal(reviewRows(), 0)
      const model = new ScriptedModel('{"verdict": "maybe"}')
      await sweep(model)
      assert.equal(model.requests.length, 1)
    })

    it('a failing model writes nothing and parks the pairs as deferred; so does no model at all', async () => {
      seed()
      hobbyPair('user')
      hobbyPair('partner')
      const generation = stores.db.generation()
      const failing = await sweep(new ScriptedModel({ fail: 'HTTP 500' }))
      assert.deepEqual([failing.outcome, failing.asked, failing.deferred], ['deferred', 0, 2])
      assert.match(failing.note ?? '', /HTTP 500/u)
      const missing = await sweep({ unavailable: 'the host offers no model service' })
      assert.deepEqual([missing.outcome, missing.deferred, missing.model], ['deferred', 2, null])
      assert.equal(mergeCards().length, 0)
      assert.equal(reviewRows(), 0)
      assert.equal(stores.db.generation(), generation, 'nothing the page holds changed')
      assert.deepEqual(
        stores.review.sweeps().map((entry) => entry.outcome),
        ['deferred', 'deferred'],
      )
    })

    it('never keeps a credential a failing model echoed in the ledger', async () => {
      seed()
      hobbyPair()
      const key = 'sk-proj-4fJq9ZxT2mWv8LrN6bYc1HsD'
      await sweep(new ScriptedModel({ fail: `HTTP 401: incorrect API key provided: ${key}` }))
      const [entry] = stores.review.sweeps()
      assert.match(entry?.note ?? '', /HTTP 401/u)
      assert.doesNotMatch(entry?.note ?? '', new RegExp(key, 'u'))
    })

    it('spends at most the budget and lets each subject take its turn', async () => {
      seed()
      put({ subject: 'orders-api', property: 'database', value: 'PostgreSQL 16 on the managed instance' })
      put({ subject: 'orders-api', property: 'storage', value: 'PostgreSQL 16 on a managed instance' })
      put({ subject: 'orders-api', property: 'db', value: 'a managed PostgreSQL 16 instance' })
      hobbyPair('user')
      const model = new ScriptedModel(
        verdict('distinct'),
        verdict('distinct'),
        verdict('distinct'),
        verdict('distinct'),
      )
      const entry = await sweep(model, 2)
      assert.equal(entry.candidates, 4, 'three orders-api pairs and one user pair')
      assert.equal(model.requests.length, 2)
      const asked = model.requests.map((request) => /^Statement A: ([^·]+)/u.exec(request.user)?.[1]?.trim())
      assert.deepEqual(asked, ['orders-api', 'user'], 'one subject with many pairs does not take every call')
      const rest = await sweep(model, 8)
      assert.deepEqual([rest.asked, rest.remembered], [2, 2])
    })

    it('is off below 12 current facts, as the gate is', async () => {
      hobbyPair()
      const model = new ScriptedModel(verdict('same'))
      const entry = await sweep(model)
      assert.deepEqual([entry.candidates, model.requests.length], [0, 0])
    })

    it(`keeps the last ${SWEEP_LOG_KEEP} sweeps in the ledger`, async () => {
      for (let i = 0; i < SWEEP_LOG_KEEP + 3; i += 1) await sweep(new ScriptedModel())
      assert.equal(stores.review.sweepCount(), SWEEP_LOG_KEEP)
    })

    it('the timer is armed only while the plugin and the review are on, and a settings change does not push it back', () => {
      const service = new SweepService({
        clock,
        logger: { warn: () => undefined },
        stores: () => stores,
        config: () => h.config,
        model: async () => new ScriptedModel(),
      })
      service.follow(h.config)
      assert.equal(service.armed, true)
      clock.advance(FIRST_LOOK_MS - 1000)
      const timers = clock.pendingTimers
      service.follow({ ...h.config, consolidateMaxPairs: 3 })
      assert.equal(clock.pendingTimers, timers, 'an armed timer is left as it is')
      for (const off of [{ autoConsolidate: false }, { consolidateIntervalMs: 0 }, { enabled: false }]) {
        service.follow({ ...h.config, ...off })
        assert.equal(service.armed, false, JSON.stringify(off))
        service.follow(h.config)
        assert.equal(service.armed, true)
      }
      service.follow(undefined)
      assert.equal(service.armed, false)
    })

    it('the timer first looks two minutes after start, then once a minute, and sweeps when the interval has passed', async () => {
      seed()
      hobbyPair()
      const models: ScriptedModel[] = []
      let config = { ...h.config, consolidateIntervalMs: 10 * 60_000 }
      const service = new SweepService({
        clock,
        logger: { warn: () => undefined },
        stores: () => stores,
        config: () => config,
        model: async () => {
          const model = new ScriptedModel(verdict('distinct'))
          models.push(model)
          return model
        },
      })
      const sweeps = (): number => stores.review.sweepCount()
      const settle = async (): Promise<void> => {
        for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve))
      }
      const timersBefore = clock.pendingTimers
      service.start()
      clock.advance(FIRST_LOOK_MS - 1)
      await settle()
      assert.equal(sweeps(), 0, 'nothing before the first look')
      clock.advance(1)
      await settle()
      assert.equal(sweeps(), 1, 'the first look sweeps: the clock lives in memory')
      assert.equal(stores.review.sweeps()[0]?.trigger, 'timer')
      assert.equal(stores.review.sweeps()[0]?.budget, 8, 'the timer spends consolidateMaxPairs')
      clock.advance(9 * LOOK_EVERY_MS)
      await settle()
      assert.equal(sweeps(), 1, 'not before the interval has passed')
      clock.advance(LOOK_EVERY_MS)
      await settle()
      assert.equal(sweeps(), 2)
      assert.equal(models.length, 1, 'the second sweep had nothing new to ask and resolved no model')
      config = { ...config, consolidateIntervalMs: 0 }
      clock.advance(30 * LOOK_EVERY_MS)
      await settle()
      assert.equal(sweeps(), 2, 'an interval of 0 leaves only the button and the route')
      const asked = await service.sweepNow()
      assert.ok(
        asked.ran && asked.sweep.budget === 24 && asked.sweep.trigger === 'asked',
        'the button sweeps with triple the budget',
      )
      config = { ...config, autoConsolidate: false, consolidateIntervalMs: 60_000 }
      assert.deepEqual(await service.sweepNow(), { ran: false, reason: 'disabled' })
      clock.advance(30 * LOOK_EVERY_MS)
      await settle()
      assert.equal(sweeps(), 3, 'autoConsolidate false turns the timer off')
      config = { ...config, autoConsolidate: true }
      await service.stop()
      clock.advance(30 * LOOK_EVERY_MS)
      await settle()
      assert.equal(sweeps(), 3, 'a stopped service never looks again')
      assert.equal(clock.pendingTimers, timersBefore, 'stop cancels its timers')
    })

    it('a sweep a person asks for runs in the background: it answers at once, reports progress, and a second ask says it runs', async () => {
      seed()
      hobbyPair()
      hobbyPair('billing-api')
      const held: ((answer: ModelAnswer) => void)[] = []
      const gated: ExtractionModel = {
        name: 'fake/gated',
        complete: () =>
          new Promise((resolve) => {
            held.push(resolve)
          }),
      }
      const service = new SweepService({
        clock,
        logger: { warn: () => undefined },
        stores: () => stores,
        config: () => h.config,
        model: async () => gated,
      })
      const settle = async (): Promise<void> => {
        for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve))
      }
      const begun = service.beginNow()
      assert.ok(begun.begun, 'the first ask starts a sweep')
      assert.deepEqual([begun.progress.trigger, begun.progress.budget, begun.progress.asked], ['asked', 24, 0])
      assert.equal(stores.review.sweepCount(), 0, 'the answer came before the sweep ended')
      await settle()
      assert.equal(held.length, 1, 'the sweep is asking the model')
      assert.deepEqual([service.progress()?.planned, service.progress()?.asked], [2, 0])
      const again = service.beginNow()
      assert.ok(!again.begun && again.reason === 'running', 'a second ask while it runs says so')
      assert.equal(again.progress?.startedAt, begun.progress.startedAt, 'and shows the sweep under way')
      held.shift()?.({ ok: true, text: verdict('same') })
      await settle()
      assert.deepEqual([service.progress()?.asked, service.progress()?.proposals], [1, 1])
      assert.equal(service.lastAsked(), undefined, 'no outcome before the sweep ends')
      held.shift()?.({ ok: true, text: verdict('distinct') })
      await settle()
      assert.equal(service.progress(), undefined, 'nothing runs once it ended')
      const outcome = service.lastAsked()
      assert.equal(outcome?.startedAt, begun.progress.startedAt)
      assert.deepEqual(
        [outcome?.sweep?.asked, outcome?.sweep?.same, outcome?.sweep?.distinct, outcome?.error],
        [2, 1, 1, null],
      )
      assert.equal(stores.review.sweepCount(), 1)
      await service.stop()
    })

    it('stop aborts the sweep under way even after a new interval re-armed the timer', async () => {
      seed()
      hobbyPair()
      let signal: AbortSignal | undefined
      const hanging: ExtractionModel = {
        name: 'fake/hanging',
        complete: (request) => {
          signal = request.signal
          return new Promise((resolve) => {
            request.signal.addEventListener(
              'abort',
              () => {
                resolve({ ok: false, error: 'aborted' })
              },
              { once: true },
            )
          })
        },
      }
      let config = { ...h.config, consolidateIntervalMs: 10 * 60_000 }
      const service = new SweepService({
        clock,
        logger: { warn: () => undefined },
        stores: () => stores,
        config: () => config,
        model: async () => hanging,
      })
      const settle = async (): Promise<void> => {
        for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve))
      }
      service.follow(config)
      clock.advance(FIRST_LOOK_MS)
      await settle()
      assert.ok(signal !== undefined, 'the sweep asked the model')
      config = { ...config, consolidateIntervalMs: 0 }
      service.follow(config)
      config = { ...config, consolidateIntervalMs: 20 * 60_000 }
      service.follow(config)
      assert.equal(service.armed, true)
      let stopped = false
      const stopping = service.stop().then(() => {
        stopped = true
      })
      await settle()
      assert.equal(signal.aborted, true, 'the sweep under way was not aborted')
      assert.equal(stopped, true, 'stop waited for the sweep instead of aborting it')
      await stopping
    })
  })
}

describe('the lexical leg on a large subject', () => {
  it(`compares only the newest ${SWEEP_GROUP_CAP} facts of one subject and scope, pausing every ${SCORES_PER_PAUSE} scores`, async () => {
    const facts = Array.from({ length: SWEEP_GROUP_CAP + 50 }, (_, index) => ({
      id: index + 1,
      subjectKey: 'user',
      scope: 'global',
      subject: 'user',
      property: 'hobbies',
      value: 'plays the piano, mostly jazz standards',
      claimKey: `claim-${index + 1}`,
      revision: 1,
      evidence: 'observed' as const,
      firstObservedAt: '2026-03-01T09:00:00.000Z',
    }))
    let pauses = 0
    const leg = lexicalSource(
      { currentFacts: 1000, statistics: () => ({ documents: 1000, frequency: new Map() }) },
      async () => {
        pauses += 1
      },
    )
    const pairs = await leg.pairs(facts)
    const compared = (SWEEP_GROUP_CAP * (SWEEP_GROUP_CAP - 1)) / 2
    assert.equal(pairs.length, compared, 'identical values: every pair of the newest facts is a candidate')
    assert.ok(
      pairs.every((pair) => pair.low.id > 50),
      'the oldest facts past the cap are not compared',
    )
    assert.equal(pauses, Math.floor(compared / SCORES_PER_PAUSE))
  })
})

describe('the lexical leg and negations', () => {
  it('never proposes a statement and its negation as a pair, and still proposes two negated restatements', async () => {
    const values = [
      'does not want meetings scheduled before ten in the morning',
      'wants meetings scheduled before ten in the morning',
      "doesn't want meetings scheduled before ten in the morning",
      '不想在早上十点前安排会议',
      '想在早上十点前安排会议',
    ]
    const facts = values.map((value, index) => ({
      id: index + 1,
      subjectKey: 'user',
      scope: 'global',
      subject: 'user',
      property: 'meeting preferences',
      value,
      claimKey: `claim-${index + 1}`,
      revision: 1,
      evidence: 'observed' as const,
      firstObservedAt: '2026-03-01T09:00:00.000Z',
    }))
    const leg = lexicalSource({ currentFacts: 1000, statistics: () => ({ documents: 1000, frequency: new Map() }) })
    const pairs = (await leg.pairs(facts)).map((pair) => [pair.low.id, pair.high.id])
    assert.deepEqual(pairs, [[1, 3]])
  })
})
