/**
 * The BM25 query planner: when broad terms would make ranking expensive, the split into (narrow AND broad) and
 * (narrow NOT broad) ranks exactly like the full OR query for every fact holding a narrow term, the second half ranked
 * as the narrow terms alone among the facts the first misses; a window ranks exactly an expression's newest matches
 * with unchanged scores; the identifier channel scores every identifier a candidate holds while each identifier
 * brings only its newest facts; and the directory counters kept by triggers always equal a fresh count.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { seedFacts } from '../scripts/bench-corpus.ts'
import { namedSubjects, subjectChannel, textChannel } from '../src/retrieval/channels.ts'
import { bm25Weight, planTextQuery } from '../src/retrieval/text-plan.ts'
import type { Database } from '../src/store/database.ts'
import { FactStore, type ChannelHit } from '../src/store/fact-store.ts'
import { orExpression } from '../src/text/tokenize.ts'
import type { FactInput } from '../src/types.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { DRIVERS, openMemory, type MemoryHandle } from './helpers/store.ts'

/** Facts in the index, for the plans' bonus weights. */
const DOCUMENTS = 10_000

describe('planTextQuery', () => {
  const counts = new Map([
    ['port', 900],
    ['api', 600],
    ['kalo', 4],
    ['region', 300],
    ['nothing', 0],
  ])

  it('keeps one OR query when the terms together match few enough facts', () => {
    assert.deepEqual(planTextQuery(['kalo', 'region'], counts, 1000, DOCUMENTS), {
      kind: 'single',
      match: '"kalo" OR "region"',
    })
  })

  it('drops terms that match nothing and plans nothing when no term matches', () => {
    assert.deepEqual(planTextQuery(['kalo', 'nothing'], counts, 1000, DOCUMENTS), { kind: 'single', match: '"kalo"' })
    assert.deepEqual(planTextQuery(['nothing'], counts, 1000, DOCUMENTS), { kind: 'none' })
  })

  it('splits off the broadest terms once the rarest ones fill the candidate cap', () => {
    const plan = planTextQuery(['port', 'api', 'kalo', 'region'], counts, 1000, DOCUMENTS)
    assert.deepEqual(plan, {
      kind: 'split',
      narrow: ['kalo', 'region', 'api'],
      broad: ['port'],
      withBroad: '("kalo" OR "region" OR "api") AND ("port")',
      withoutBroad: '("kalo" OR "region" OR "api") NOT ("port")',
      narrowOnly: '("kalo" OR "region" OR "api")',
    })
  })

  it('always keeps the rarest term narrow, even when it alone exceeds the cap, and then ranks only its newest matches', () => {
    const plan = planTextQuery(['port', 'api'], counts, 100, DOCUMENTS)
    assert.equal(plan.kind, 'split')
    assert.deepEqual(plan.kind === 'split' ? [plan.narrow, plan.broad] : [], [['api'], ['port']])
    assert.deepEqual(plan.kind === 'split' ? plan.window : undefined, { match: '("api")', newest: 100 })
  })

  it('ranks the facts holding the windowed word and another word of the question at any age, and plans no such pass without a window', () => {
    const split = planTextQuery(['port', 'api'], counts, 100, DOCUMENTS)
    assert.deepEqual(split.kind === 'split' ? split.older : undefined, { match: '("api") AND ("port")', newest: 100 })
    assert.deepEqual(split.kind === 'split' ? split.withBroad : undefined, '("api") AND ("port")')
    const fitting = planTextQuery(['port', 'api', 'kalo', 'region'], counts, 1000, DOCUMENTS)
    assert.equal(fitting.kind === 'split' ? fitting.older : 'not split', undefined)
    assert.equal(
      'older' in planTextQuery(['port', 'api'], counts, 1000, DOCUMENTS, 500),
      false,
      'a bonus without a window',
    )
    assert.equal('older' in planTextQuery(['port'], counts, 100, DOCUMENTS), false, 'one word has no other to hold')
  })

  it('windows a lone term that matches more than the cap, and nothing that fits under it', () => {
    assert.deepEqual(planTextQuery(['port'], counts, 100, DOCUMENTS), {
      kind: 'single',
      match: '"port"',
      window: { match: '"port"', newest: 100 },
    })
    assert.deepEqual(planTextQuery(['port'], counts, 900, DOCUMENTS), { kind: 'single', match: '"port"' })
    const fitting = planTextQuery(['port', 'api', 'kalo', 'region'], counts, 1000, DOCUMENTS)
    assert.equal(fitting.kind === 'split' ? fitting.window : 'not split', undefined)
  })

  it('ranks a broad word more facts hold than hugeAbove as a flat bonus, and keeps a narrow one inside BM25', () => {
    // "api" (600) is huge too, but narrow: the facts holding it are ranked either way, so it stays in the expression.
    assert.deepEqual(planTextQuery(['port', 'api', 'kalo', 'region'], counts, 1000, DOCUMENTS, 500), {
      kind: 'single',
      match: '"kalo" OR "region" OR "api"',
      bonus: [{ term: 'port', weight: Math.log((DOCUMENTS - 900 + 0.5) / 900.5) }],
    })
    // The broad words that are not huge still split off, and the huge ones are bonuses (rarest first).
    const split = planTextQuery(['port', 'api', 'kalo', 'region'], counts, 100, DOCUMENTS, 500)
    const alone = planTextQuery(['kalo', 'region'], counts, 100, DOCUMENTS)
    assert.equal(alone.kind, 'split')
    assert.deepEqual(split, {
      ...alone,
      bonus: [
        { term: 'api', weight: bm25Weight(600, DOCUMENTS) },
        { term: 'port', weight: bm25Weight(900, DOCUMENTS) },
      ],
    })
  })

  it('ranks the rarest word when every other is a bonus, keeps its window, and plans no bonus at hugeAbove or below', () => {
    assert.deepEqual(planTextQuery(['port', 'api', 'nothing'], counts, 1000, DOCUMENTS, 500), {
      kind: 'single',
      match: '"api"',
      bonus: [{ term: 'port', weight: bm25Weight(900, DOCUMENTS) }],
    })
    assert.deepEqual(planTextQuery(['port', 'api'], counts, 100, DOCUMENTS, 500), {
      kind: 'single',
      match: '"api"',
      window: { match: '("api")', newest: 100 },
      bonus: [{ term: 'port', weight: bm25Weight(900, DOCUMENTS) }],
      older: { match: '("api") AND ("port")', newest: 100 },
    })
    assert.deepEqual(
      planTextQuery(['port', 'api', 'kalo'], counts, 1000, DOCUMENTS, 900),
      planTextQuery(['port', 'api', 'kalo'], counts, 1000, DOCUMENTS),
      'a word held by exactly hugeAbove facts ranks',
    )
  })

  it('weighs a bonus word as FTS5 weighs one occurrence at average length, floored at 1e-6', () => {
    assert.equal(bm25Weight(10, 1000), Math.log(990.5 / 10.5))
    assert.equal(bm25Weight(600, 1000), 1e-6)
    assert.equal(bm25Weight(500, 1000), 1e-6, 'half the facts')
  })
})

for (const driver of DRIVERS) {
  describe(`split ranking on a real store (${driver})`, () => {
    let h: MemoryHandle
    let store: FactStore
    let db: Database

    before(() => {
      h = openMemory(driver, new FakeClock())
      const words = ['port', 'owner', 'region', 'timeout', 'api', 'worker']
      for (let i = 0; i < 400; i += 1) {
        h.memory.write(
          {
            subject: `svc${i % 37}-${words[i % 6]}`,
            property: words[(i * 7) % 6] as string,
            value: `${words[(i * 5) % 6]} ${i % 11 === 0 ? 'kalo' : 'plain'} ${i}`,
            evidence: 'observed',
            origin: 'tool',
          },
          h.config,
        )
      }
      // A subject few facts hold, whose facts hold "kalo" and "port", only "port", or neither.
      for (let i = 0; i < 12; i += 1) {
        const value = ['port kalo', 'port only', 'plain words'][i % 3] as string
        h.memory.write(
          {
            subject: 'hub-gateway',
            property: `setting ${i}`,
            value: `${value} ${i}`,
            evidence: 'observed',
            origin: 'tool',
          },
          h.config,
        )
      }
      db = h.db()
      store = new FactStore(db)
    })
    after(() => h.dispose())

    it('gives every fact holding a narrow term the same BM25 score as the full OR query', () => {
      const terms = ['port', 'owner', 'api', 'kalo']
      const plan = planTextQuery(terms, store.termDocumentCounts(terms), 60, store.indexedFactCount())
      assert.equal(plan.kind, 'split')
      if (plan.kind !== 'split') return
      const full = new Map(store.matchText(orExpression(terms), 1000, undefined).map((hit) => [hit.id, hit.score]))
      const split = [
        ...store.matchText(plan.withBroad, 1000, undefined),
        ...store.matchText(plan.withoutBroad, 1000, undefined),
      ]
      assert.ok(split.length > 10)
      for (const hit of split) {
        const expected = full.get(hit.id)
        assert.ok(expected !== undefined, `fact ${hit.id} is in the full result`)
        assert.ok(Math.abs(expected - hit.score) < 1e-9, `fact ${hit.id}: ${hit.score} vs ${expected}`)
      }
      const narrowOnly = new Set(store.matchText(orExpression(plan.narrow), 1000, undefined).map((hit) => hit.id))
      assert.deepEqual(
        new Set(split.map((hit) => hit.id)),
        narrowOnly,
        'the split covers exactly the facts with a narrow term',
      )
    })

    it('ranks the second half as the narrow terms among the facts the first misses, with the scores of the NOT query', () => {
      const terms = ['port', 'owner', 'api', 'kalo']
      const plan = planTextQuery(terms, store.termDocumentCounts(terms), 60, store.indexedFactCount())
      if (plan.kind !== 'split') assert.fail('a split plan')
      const expected = store.matchText(plan.withoutBroad, 1000, undefined)
      const ranked = store.matchText(plan.narrowOnly, 1000, undefined, { excluding: plan.withBroad })
      assert.ok(expected.length > 4, `${expected.length} facts hold a narrow term and no broad one`)
      assert.deepEqual(new Set(ranked.map((hit) => hit.id)), new Set(expected.map((hit) => hit.id)))
      const scores = new Map(expected.map((hit) => [hit.id, hit.score]))
      for (const hit of ranked)
        assert.ok(Math.abs((scores.get(hit.id) ?? Number.NaN) - hit.score) < 1e-9, `fact ${hit.id}`)
      // Best first, and a shorter list is the head of the longer one.
      assert.deepEqual(
        ranked.map((hit) => hit.score),
        [...ranked.map((hit) => hit.score)].sort((a, b) => b - a),
      )
      assert.deepEqual(
        store.matchText(plan.narrowOnly, 3, undefined, { excluding: plan.withBroad }),
        ranked.slice(0, 3),
      )
    })

    it('ranks a window as exactly the newest matches of its expression, with the scores of an unbounded ranking', () => {
      const match = orExpression(['port'])
      const all = store.matchText(match, 1000, undefined)
      assert.ok(all.length > 60, `port matches ${all.length} facts`)
      const from = store.newestMatchStart(match, 60)
      assert.ok(from !== undefined)
      const newest = all
        .map((hit) => hit.id)
        .sort((a, b) => b - a)
        .slice(0, 60)
      const windowed = store.matchText(match, 1000, undefined, { fromId: from })
      assert.deepEqual(
        windowed.map((hit) => hit.id).sort((a, b) => b - a),
        newest,
      )
      const scores = new Map(all.map((hit) => [hit.id, hit.score]))
      for (const hit of windowed)
        assert.ok(Math.abs((scores.get(hit.id) ?? Number.NaN) - hit.score) < 1e-9, `fact ${hit.id}`)
      assert.equal(store.newestMatchStart(match, all.length), undefined, 'no window when the expression fits')
      assert.equal(store.newestMatchStart(match, all.length - 1), Math.min(...all.map((hit) => hit.id)) + 1)
    })

    it('ranks every fact holding the windowed word and another word of the question, however old, as a ranking without the window does', () => {
      const aside = openMemory(driver, new FakeClock())
      try {
        const fact = (value: string, i: number): FactInput => ({
          subject: `unit${i}`,
          property: 'note',
          value,
          evidence: 'observed',
          origin: 'tool',
        })
        const facts = [
          ...['alpha beta', 'alpha beta beta', 'alpha beta gamma'].map(fact),
          ...Array.from({ length: 30 }, (_, i) => fact(`alpha ${i}`, 10 + i)),
          ...Array.from({ length: 40 }, (_, i) => fact(`beta ${i}`, 50 + i)),
          ...['alpha beta delta', 'beta alpha'].map((value, i) => fact(value, 100 + i)),
        ]
        seedFacts(aside.db(), facts, aside.clock, aside.config)
        const asideStore = new FactStore(aside.db())
        const both = new Set(asideStore.matchText('"alpha" AND "beta"', 100, undefined).map((hit) => hit.id))
        assert.equal(both.size, 5)
        // By id: equal scores come newest first from a merged ranking and oldest first from FTS5.
        const holdingBoth = (hits: readonly ChannelHit[]): ChannelHit[] =>
          hits.filter((hit) => both.has(hit.id)).sort((a, b) => a.id - b.id)
        const terms = ['alpha', 'beta']
        const windowed = textChannel(asideStore, terms, undefined, {
          candidateCap: 10,
          hugeAbove: Number.POSITIVE_INFINITY,
        })
        assert.deepEqual(
          holdingBoth(windowed),
          holdingBoth(textChannel(asideStore, terms, undefined, { candidateCap: Number.POSITIVE_INFINITY })),
        )
        const windowStart = asideStore.newestMatchStart('"alpha"', 10) ?? 0
        assert.equal(
          holdingBoth(windowed).filter((hit) => hit.id < windowStart).length,
          3,
          'the three older than the window are ranked',
        )
        // The other word as a bonus: the facts holding both rank as they do when the rarest word fits under the cap.
        assert.deepEqual(
          holdingBoth(textChannel(asideStore, terms, undefined, { candidateCap: 10, hugeAbove: 1 })),
          holdingBoth(textChannel(asideStore, terms, undefined, { candidateCap: 35, hugeAbove: 1 })),
        )
      } finally {
        aside.dispose()
      }
    })

    it("adds a bonus word's weight to each ranked fact holding it", () => {
      const ranked = store.matchText('"kalo"', 1000, undefined)
      const holders = new Set(store.matchText('("kalo") AND "port"', 1000, undefined).map((hit) => hit.id))
      assert.ok(
        holders.size > 2 && holders.size < ranked.length - 2,
        `${holders.size} of ${ranked.length} kalo facts hold port`,
      )
      const base = new Map(ranked.map((hit) => [hit.id, hit.score]))
      const withBonus = store.matchText('"kalo"', 1000, undefined, { bonus: [{ term: 'port', weight: 0.75 }] })
      assert.deepEqual(new Set(withBonus.map((hit) => hit.id)), new Set(base.keys()))
      for (const hit of withBonus) {
        const expected = (base.get(hit.id) ?? Number.NaN) + (holders.has(hit.id) ? 0.75 : 0)
        assert.ok(Math.abs(hit.score - expected) < 1e-9, `fact ${hit.id}: ${hit.score} vs ${expected}`)
      }
      assert.deepEqual(
        withBonus.map((hit) => hit.score),
        [...withBonus.map((hit) => hit.score)].sort((a, b) => b - a),
        'best first',
      )
    })

    it("scores the text channel, and the subject channel for a name few facts hold, as exact BM25 with each huge word's share replaced by its bonus", () => {
      const exactShare = (term: string): Map<number, number> =>
        new Map(store.matchText(orExpression([term]), 1000, undefined).map((hit) => [hit.id, hit.score]))
      const check = (
        exact: readonly { id: number; score: number }[],
        planned: readonly { id: number; score: number }[],
        huge: readonly string[],
      ): void => {
        assert.ok(exact.length > 5, `${exact.length} facts ranked`)
        assert.deepEqual(
          new Set(planned.map((hit) => hit.id)),
          new Set(exact.map((hit) => hit.id)),
          'the same facts are ranked',
        )
        const counts = store.termDocumentCounts(huge)
        const documents = store.indexedFactCount()
        const exactScores = new Map(exact.map((hit) => [hit.id, hit.score]))
        const shares = huge.map((term) => ({
          share: exactShare(term),
          weight: bm25Weight(counts.get(term) ?? 0, documents),
        }))
        const expected = new Map(
          [...exactScores].map(([id, score]) => [
            id,
            shares.reduce((sum, { share, weight }) => sum + (share.has(id) ? weight - (share.get(id) ?? 0) : 0), score),
          ]),
        )
        for (const hit of planned)
          assert.ok(
            Math.abs(hit.score - (expected.get(hit.id) ?? Number.NaN)) < 1e-9,
            `fact ${hit.id}: ${hit.score} vs ${expected.get(hit.id)}`,
          )
        assert.deepEqual(
          planned.map((hit) => hit.score),
          [...planned.map((hit) => hit.score)].sort((a, b) => b - a),
          'best first',
        )
      }
      const terms = ['port', 'owner', 'api', 'kalo']
      const counts = store.termDocumentCounts(terms)
      const huge = terms.filter((term) => (counts.get(term) ?? 0) > 60)
      assert.deepEqual(huge, ['port', 'owner', 'api'])
      check(
        textChannel(store, terms, undefined, { candidateCap: 60, hugeAbove: Number.POSITIVE_INFINITY }),
        textChannel(store, terms, undefined, { candidateCap: 60, hugeAbove: 60 }),
        huge,
      )
      // The rarer word alone past the cap: both rank its newest 30 matches.
      check(
        textChannel(store, terms, undefined, { candidateCap: 30, hugeAbove: Number.POSITIVE_INFINITY }),
        textChannel(store, terms, undefined, { candidateCap: 30, hugeAbove: 60 }),
        huge,
      )

      // The subject channel, for a name few facts hold (hub-gateway's, seeded above).
      const named = namedSubjects(store, 'what is the kalo port of hub-gateway').map((subject) => subject.entityKey)
      assert.equal(named.length, 1)
      const exactly = (words: readonly string[]): ChannelHit[] =>
        subjectChannel(store, named, words, undefined, { hugeAbove: Number.POSITIVE_INFINITY })
      const planned = subjectChannel(store, named, ['port', 'kalo'], undefined, { hugeAbove: 60 })
      check(exactly(['port', 'kalo']), planned, ['port'])
      const kaloFacts = new Set(store.matchText('"kalo"', 1000, undefined).map((hit) => hit.id))
      assert.ok(
        planned.some((hit) => !kaloFacts.has(hit.id)),
        'facts holding the name and only the huge word are ranked too',
      )
      check(exactly(['port']), subjectChannel(store, named, ['port'], undefined, { hugeAbove: 60 }), ['port'])
      assert.deepEqual(
        subjectChannel(store, named, ['port', 'kalo'], undefined, { hugeAbove: 60, bonusNamesUpTo: 11 }),
        exactly(['port', 'kalo']),
        'a name more facts hold than bonusNamesUpTo keeps every word inside BM25',
      )
    })

    it('gives a bonus word the weight FTS5 gives one occurrence in a fact of average length', () => {
      const even = openMemory(driver, new FakeClock())
      try {
        for (let i = 0; i < 40; i += 1) {
          even.memory.write(
            {
              subject: `unit${i}`,
              property: 'note',
              value: i % 4 === 0 ? 'alpha zeta' : 'alpha beta',
              evidence: 'observed',
              origin: 'tool',
            },
            even.config,
          )
        }
        const evenDb = even.db()
        const sizes = new Set(evenDb.all('SELECT hex(sz) AS sz FROM facts_fts_docsize').map((row) => String(row['sz'])))
        assert.equal(sizes.size, 1, 'every fact holds as many terms (so each is of average length)')
        const evenStore = new FactStore(evenDb)
        const hits = evenStore.matchText('"zeta"', 100, undefined)
        assert.equal(hits.length, 10)
        for (const hit of hits)
          assert.ok(Math.abs(hit.score - bm25Weight(10, evenStore.indexedFactCount())) < 1e-9, `${hit.score}`)
      } finally {
        even.dispose()
      }
    })

    it('counts every identifier a candidate holds, though each brings only its newest facts', () => {
      const write = (subject: string, value: string): number => {
        const outcome = h.memory.write(
          { subject, property: 'rotation', value, evidence: 'observed', origin: 'tool' },
          h.config,
        )
        if (outcome.kind !== 'saved') assert.fail(`written: ${JSON.stringify(outcome)}`)
        return outcome.fact.id
      }
      const both = write('pager-team', 'on-call via zx-41.internal')
      const later = Array.from({ length: 25 }, (_, i) => write(`team-${i}`, `on-call week ${i}`))
      const capped = store.matchIdentifiers(['on-call', 'zx-41.internal'], 50, undefined, 10)
      assert.equal(
        capped[0]?.id,
        both,
        'the fact holding both ranks first, though it is the oldest holder of the common one',
      )
      assert.equal(capped[0]?.score, 2)
      assert.deepEqual(
        new Set(capped.slice(1).map((hit) => hit.id)),
        new Set(later.slice(-10)),
        'the common one brings its newest ten',
      )
      const commonOnly = store.matchIdentifiers(['on-call'], 50, undefined, 10)
      assert.deepEqual(
        commonOnly.map((hit) => hit.id),
        later.slice(-10).reverse(),
        'newest first among equal scores',
      )
      assert.deepEqual(
        store.matchIdentifiers(['on-call', 'zx-41.internal', 'on-call'], 50, undefined),
        [both, ...[...later].reverse()].map((id, i) => ({ id, score: i === 0 ? 2 : 1 })),
        'uncapped, and a repeated identifier counts once',
      )
    })

    it('keeps the trigger counters equal to a fresh count through writes, conflicts, forgets and a wipe', () => {
      const count = (): number =>
        Number(
          db.get(
            `SELECT count(*) AS n FROM facts WHERE status = 'active' AND model_use_allowed = 1 AND sensitivity IS NULL`,
          )?.['n'],
        )
      const counted = (): number => store.countDirectoryFacts({ includeSensitive: false })
      assert.equal(counted(), count())
      h.memory.write(
        { subject: 'svc1-port', property: 'port', value: '7801', evidence: 'explicit_user', origin: 'tool' },
        h.config,
      )
      h.memory.write(
        { subject: 'svc1-port', property: 'port', value: '7802', evidence: 'observed', origin: 'tool' },
        h.config,
      )
      h.memory.write(
        { subject: 'svc1-port', property: 'port', value: '7803', evidence: 'explicit_user', origin: 'tool' },
        h.config,
      )
      h.memory.write(
        { subject: 'user', property: 'email', value: 'bob@example.com', evidence: 'observed', origin: 'tool' },
        h.config,
      )
      assert.equal(counted(), count())
      assert.equal(store.countDirectoryFacts({ includeSensitive: true }), count() + 1)
      h.memory.forgetBySubject('svc1-port', undefined)
      assert.equal(counted(), count())
      const fresh = (): Record<string, number> =>
        Object.fromEntries(
          db
            .all('SELECT status, evidence, count(*) AS n FROM facts GROUP BY status, evidence')
            .map((row) => [`${String(row['status'])}/${String(row['evidence'])}`, Number(row['n'])]),
        )
      const kept = (): Record<string, number> =>
        Object.fromEntries(
          db
            .all('SELECT status, evidence, n FROM fact_counts WHERE n > 0')
            .map((row) => [`${String(row['status'])}/${String(row['evidence'])}`, Number(row['n'])]),
        )
      assert.deepEqual(kept(), fresh(), 'status and evidence counters equal a fresh count')
      store.wipe()
      assert.deepEqual(kept(), {})
      assert.equal(counted(), 0)
    })
  })
}
