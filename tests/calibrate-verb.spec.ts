/**
 * The calibrate verb through the verb table on a real store (one binding), with a fake reranker as the semantic
 * view: supplied pairs that calibrate (one call per distinct query, at most two at once, recorded as the record in
 * force without moving the generation), supplied pairs refused as too few (no call) or without a threshold, pairs
 * derived from the library (never a sensitive fact), a library too small, a failing reranker that records nothing,
 * no reranker at all, and invalid bodies refused with invalid_arguments that change nothing.
 */
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import type { SemanticView } from '../src/management/verb.ts'
import type { RerankPort } from '../src/semantic/types.ts'
import type { LabeledPair, RerankAnswer } from '../src/semantic/types.ts'
import { count, ONE_DRIVER } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

const FP = 'rr-00112233445566ff'

/** A fake reranker: scores by a rule, records every call, can fail on a chosen call. */
class FakeReranker implements RerankPort {
  readonly fingerprint = FP
  readonly calls: { query: string; documents: readonly string[] }[] = []
  inFlight = 0
  maxInFlight = 0
  failOn: number | undefined
  rule: (query: string, document: string) => number = wordOverlap

  async score(query: string, documents: readonly string[]): Promise<RerankAnswer> {
    this.calls.push({ query, documents })
    const call = this.calls.length
    this.inFlight += 1
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight)
    await new Promise((resolve) => setImmediate(resolve))
    this.inFlight -= 1
    if (call === this.failOn)
      return { ok: false, code: 'timeout', message: 'the rerank endpoint did not answer within 1500 ms' }
    return { ok: true, scores: documents.map((document) => this.rule(query, document)) }
  }
}

/** Share of the query's words that occur as words of the document. */
function wordOverlap(query: string, document: string): number {
  const words = new Set(document.split(/[\s·:]+/u))
  const asked = query.split(/\s+/u)
  return asked.filter((word) => words.has(word)).length / asked.length
}

const view = (reranker: FakeReranker | { unavailable: string }): SemanticView => ({ rerank: () => reranker })

/** `perQuery` relevant and `perQuery` irrelevant pairs for each of `queries` queries. */
function suppliedPairs(queries: number, perQuery: number, relevantExtra = 0): LabeledPair[] {
  const pairs: LabeledPair[] = []
  for (let q = 0; q < queries; q += 1) {
    for (let i = 0; i < perQuery; i += 1) {
      pairs.push({ query: `alpha${q} beta${q}`, document: `alpha${q} beta${q} doc ${i}`, relevant: true })
      pairs.push({ query: `alpha${q} beta${q}`, document: `gamma${q} doc ${i}`, relevant: false })
    }
  }
  for (let i = 0; i < relevantExtra; i += 1)
    pairs.push({ query: 'alpha0 beta0', document: `alpha0 beta0 extra ${i}`, relevant: true })
  return pairs
}

for (const driver of ONE_DRIVER) {
  describe(`calibrate verb (${driver})`, () => {
    let v: VerbHarness | undefined
    afterEach(() => {
      v?.dispose()
    })

    const open = (reranker: FakeReranker | { unavailable: string } | undefined): VerbHarness => {
      v = verbHarness(driver, {}, reranker === undefined ? {} : { semantic: view(reranker) })
      return v
    }
    const rows = (harness: VerbHarness): number =>
      count(harness.h.db(), 'SELECT count(*) AS n FROM rerank_calibrations')
    const calibrations = (harness: VerbHarness) => {
      const opened = harness.h.memory.storeSet()
      if (!('stores' in opened)) throw new Error('store not open')
      return opened.stores.calibrations
    }

    it('calibrates supplied pairs, one rerank call per distinct query and at most two at once, without moving the generation', async () => {
      const reranker = new FakeReranker()
      const harness = open(reranker)
      const generation = harness.generation()
      const answer = await harness.ok('calibrate', { pairs: suppliedPairs(5, 5) })
      assert.deepEqual(answer, {
        outcome: 'calibrated',
        fingerprint: FP,
        pairSource: 'supplied',
        relevant: 25,
        irrelevant: 25,
        precision: 1,
        recall: 1,
        threshold: 1,
        message:
          'calibrated: scores at or above 1 count as relevant (precision 100%, recall 100%, 25 relevant and 25 irrelevant pairs)',
      })
      assert.deepEqual(
        reranker.calls.map((call) => [call.query, call.documents.length]),
        [0, 1, 2, 3, 4].map((q) => [`alpha${q} beta${q}`, 10]),
      )
      assert.equal(reranker.maxInFlight, 2)
      assert.deepEqual(calibrations(harness).current(FP), {
        id: 1,
        fingerprint: FP,
        outcome: 'calibrated',
        pairSource: 'supplied',
        relevant: 25,
        irrelevant: 25,
        threshold: 1,
        precision: 1,
        recall: 1,
        reason: null,
        createdAt: '2026-03-01T09:00:00.000Z',
      })
      assert.equal(harness.generation(), generation)
    })

    it('refuses 19 relevant pairs as too few without calling the reranker, records the refusal and keeps the calibration in force', async () => {
      const reranker = new FakeReranker()
      const harness = open(reranker)
      await harness.ok('calibrate', { pairs: suppliedPairs(4, 5) })
      const calls = reranker.calls.length
      const pairs = suppliedPairs(4, 5).filter((pair, i) => !(pair.relevant && i === 0))
      const answer = await harness.ok('calibrate', { pairs })
      assert.deepEqual(
        [answer['outcome'], answer['reason'], answer['relevant'], answer['irrelevant'], answer['threshold']],
        ['refused', 'too_few_pairs', 19, 20, null],
      )
      assert.match(
        String(answer['message']),
        /at least 20 relevant and 20 irrelevant pairs; got 19 relevant and 20 irrelevant/u,
      )
      assert.equal(reranker.calls.length, calls)
      assert.equal(calibrations(harness).latest(FP)?.reason, 'too_few_pairs')
      assert.equal(calibrations(harness).current(FP)?.id, 1)
    })

    it('refuses supplied pairs no threshold separates, and reports the threshold that came closest', async () => {
      const reranker = new FakeReranker()
      reranker.rule = () => 0.5
      const harness = open(reranker)
      const answer = await harness.ok('calibrate', { pairs: suppliedPairs(2, 10) })
      assert.deepEqual(
        [answer['outcome'], answer['reason'], answer['threshold'], answer['precision'], answer['recall']],
        ['refused', 'no_threshold', 0.5, 0.5, 1],
      )
      assert.match(String(answer['message']), /^not calibrated: no threshold reaches 95% precision/u)
      assert.equal(calibrations(harness).current(FP), undefined)
      assert.deepEqual(
        [calibrations(harness).latest(FP)?.outcome, calibrations(harness).latest(FP)?.threshold],
        ['refused', 0.5],
      )
    })

    it('derives pairs from the library when none are supplied, and never sends a sensitive fact', async () => {
      const reranker = new FakeReranker()
      const harness = open(reranker)
      for (let i = 0; i < 30; i += 1) {
        harness.h.memory.write(
          { subject: `service${i}`, property: `setting${i}`, value: `value${i}`, evidence: 'observed', origin: 'tool' },
          harness.h.config,
        )
      }
      harness.h.memory.write(
        { subject: 'user', property: 'email', value: 'alice@example.com', evidence: 'observed', origin: 'tool' },
        harness.h.config,
      )
      const answer = await harness.ok('calibrate', {})
      assert.deepEqual(
        [answer['outcome'], answer['pairSource'], answer['relevant'], answer['irrelevant'], answer['threshold']],
        ['calibrated', 'library', 30, 30, 1],
      )
      assert.equal(reranker.calls.length, 30)
      assert.ok(reranker.calls.every((call) => call.documents.length === 2))
      assert.doesNotMatch(JSON.stringify(reranker.calls), /alice@example\.com/u)
      assert.equal(calibrations(harness).current(FP)?.pairSource, 'library')
      assert.match(
        String(answer['message']),
        /a proxy for real questions: the reranker orders with it and filters nothing; supply pairs of your own to let it filter/u,
      )
    })

    it('refuses a library too small to give 20 queries, saying how many facts it needs and found', async () => {
      const reranker = new FakeReranker()
      const harness = open(reranker)
      for (let i = 0; i < 5; i += 1) {
        harness.h.memory.write(
          { subject: `service${i}`, property: `setting${i}`, value: `value${i}`, evidence: 'observed', origin: 'tool' },
          harness.h.config,
        )
      }
      const answer = await harness.ok('calibrate', {})
      assert.deepEqual(
        [answer['outcome'], answer['reason'], answer['pairSource'], answer['relevant']],
        ['refused', 'too_few_pairs', 'library', 5],
      )
      assert.match(String(answer['message']), /20 such facts are needed and 5 were found, or supply pairs/u)
      assert.equal(reranker.calls.length, 0)
      assert.equal(rows(harness), 1)
    })

    it("refuses with the endpoint's reason when a rerank call fails, starts no further call and records nothing", async () => {
      const reranker = new FakeReranker()
      const harness = open(reranker)
      reranker.failOn = 1
      const outcome = await harness.call('calibrate', { pairs: suppliedPairs(6, 4) })
      assert.ok(!outcome.ok)
      assert.equal(outcome.code, 'unavailable')
      assert.deepEqual(outcome.details, { reason: 'timeout' })
      assert.match(
        outcome.message,
        /the reranker failed, nothing was recorded: the rerank endpoint did not answer within 1500 ms/u,
      )
      assert.ok(reranker.calls.length <= 2, `${reranker.calls.length} calls`)
      assert.equal(rows(harness), 0)
    })

    it('refuses as unavailable, naming the keys to set, when no reranker is configured or none runs', async () => {
      for (const reranker of [{ unavailable: 'rerankSource is "none"' }, undefined]) {
        const harness = open(reranker)
        const outcome = await harness.call('calibrate', { pairs: suppliedPairs(4, 5) })
        assert.ok(!outcome.ok)
        assert.equal(outcome.code, 'unavailable')
        assert.match(outcome.message, /set rerankSource to "json", rerankBaseUrl and rerankModel/u)
        if (reranker !== undefined) assert.match(outcome.message, /rerankSource is "none"/u)
        assert.equal(rows(harness), 0)
        harness.dispose()
        v = undefined
      }
    })

    it('refuses invalid bodies with invalid_arguments and changes nothing', async () => {
      const reranker = new FakeReranker()
      const harness = open(reranker)
      const pair = { query: 'alpha beta', document: 'alpha beta doc', relevant: true }
      const bodies: unknown[] = [
        { pairs: [] },
        { pairs: [{ ...pair, query: '' }] },
        { pairs: [{ ...pair, document: '   ' }] },
        { pairs: [{ query: 'a', document: 'b' }] },
        { pairs: [{ ...pair, relevant: 'yes' }] },
        { pairs: [{ ...pair, score: 1 }] },
        { pairs: [pair], force: true },
        { pairs: Array.from({ length: 401 }, () => pair) },
        { pairs: [{ ...pair, document: 'x'.repeat(2001) }] },
        { pairs: [{ ...pair, query: 'alpha\u0000beta' }] },
        { pairs: 'all' },
      ]
      const generation = harness.generation()
      for (const body of bodies) {
        const outcome = await harness.call('calibrate', body)
        assert.equal(!outcome.ok && outcome.code, 'invalid_arguments', JSON.stringify(body).slice(0, 120))
      }
      assert.equal(reranker.calls.length, 0)
      assert.equal(rows(harness), 0)
      assert.equal(harness.generation(), generation)
    })
  })
}
