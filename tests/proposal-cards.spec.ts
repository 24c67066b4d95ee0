/**
 * The cards that change stored facts (merge, retire, fold, alias), up to the queue: the pure rules of their rows
 * (keys, problems, batches of at most 50 numbered n/m, fingerprints), and their creation on a real store with one
 * driver: aggregated cards read back through the row schemas, a change already queued or declined is not queued
 * again, a row the user struck is remembered, and a card whose rows cannot be read lists none.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { batchRows, cardFingerprint, CARD_ROW_LIMIT, rowKey, rowProblem } from '../src/rules/proposal-cards.ts'
import type { StoreSet } from '../src/store/store-set.ts'
import type { Fact, FactRef } from '../src/types.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { ONE_DRIVER, openMemory, writeFact, type MemoryHandle } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

const ref = (fact: Fact): FactRef => ({ factId: fact.id, revision: fact.revision })
const r = (factId: number, revision = 1): FactRef => ({ factId, revision })

describe('review card rows', () => {
  it('splits a long list into cards of at most 50 rows numbered n/m, and a short one into one card without a number', () => {
    const rows = Array.from({ length: 120 }, (_, index) => index)
    const cards = batchRows(rows)
    assert.equal(CARD_ROW_LIMIT, 50)
    assert.deepEqual(
      cards.map((card) => [card.rows.length, card.batch]),
      [
        [50, { index: 1, count: 3 }],
        [50, { index: 2, count: 3 }],
        [20, { index: 3, count: 3 }],
      ],
    )
    assert.deepEqual(
      cards.flatMap((card) => card.rows),
      rows,
    )
    assert.deepEqual(
      batchRows(rows.slice(0, 50)).map((card) => card.batch),
      [null],
    )
    assert.deepEqual(batchRows([]), [])
  })

  it('keys a change without the revisions it saw, and a fold or a card whatever the order of its runs or rows', () => {
    assert.equal(
      rowKey('merge', { keeper: r(12), loser: r(31) }),
      rowKey('merge', { keeper: r(12, 4), loser: r(31, 9) }),
    )
    assert.notEqual(rowKey('merge', { keeper: r(12), loser: r(31) }), rowKey('merge', { keeper: r(31), loser: r(12) }))
    assert.equal(
      rowKey('fold', { survivor: r(40), runs: [r(3), r(2)] }),
      rowKey('fold', { survivor: r(40), runs: [r(2), r(3)] }),
    )
    assert.equal(
      rowKey('alias', { fragment: 'billing', canonical: 'billing-api', facts: [r(1)] }),
      rowKey('alias', { fragment: 'billing', canonical: 'billing-api', facts: [r(1), r(2)] }),
    )
    assert.equal(
      cardFingerprint('retire', [{ fact: r(1) }, { fact: r(2) }]),
      cardFingerprint('retire', [{ fact: r(2) }, { fact: r(1) }]),
    )
    assert.notEqual(cardFingerprint('retire', [{ fact: r(1) }]), cardFingerprint('retire', [{ fact: r(2) }]))
  })

  it('names the rows that make no sense whatever the store holds', () => {
    const cases: [string, string | undefined][] = [
      [String(rowProblem('merge', { keeper: r(5), loser: r(5) })), 'the row names one fact twice'],
      [String(rowProblem('fold', { survivor: r(40), runs: [] })), 'a fold needs at least one run to absorb'],
      [String(rowProblem('fold', { survivor: r(40), runs: [r(40)] })), 'the row names one fact twice'],
      [
        String(rowProblem('alias', { fragment: '计费', canonical: '计费', facts: [r(1)] })),
        'an entity cannot be an alias of itself',
      ],
      [
        String(rowProblem('alias', { fragment: 'billing', canonical: 'billing-api', facts: [] })),
        'the fragment has no fact to move',
      ],
      [String(rowProblem('retire', { fact: r(3) })), 'undefined'],
    ]
    for (const [found, expected] of cases) assert.equal(found, String(expected))
  })
})

for (const driver of ONE_DRIVER) {
  describe(`review cards in the store (${driver})`, () => {
    let h: MemoryHandle
    let stores: StoreSet
    beforeEach(() => {
      h = openMemory(driver, new FakeClock('2026-03-01T09:00:00.000Z'))
      const opened = h.memory.storeSet()
      if (!('stores' in opened)) throw new Error('store not open')
      stores = opened.stores
    })
    afterEach(() => h.dispose())
    const now = (): string => h.clock.iso()
    const fact = (subject: string, property: string, value: string): Fact =>
      writeFact(h.memory, h.config, { subject, property, value })

    it('queues 120 self-restating rows as three cards of 50, 50 and 20, numbered 1/3 to 3/3, each pending and read back as written', () => {
      const facts = Array.from({ length: 120 }, (_, index) =>
        fact(`job-${index}`, 'status', 'failed with an error message'),
      )
      const made = stores.proposals.proposeRetires(
        facts.map((one) => ({ fact: ref(one) })),
        now(),
      )
      assert.deepEqual(
        made.cards.map((card) => [card.rows, card.batch]),
        [
          [50, { index: 1, count: 3 }],
          [50, { index: 2, count: 3 }],
          [20, { index: 3, count: 3 }],
        ],
      )
      assert.deepEqual([made.queued, made.declined, made.invalid], [[], [], []])
      const cards = made.cards.map((card) => stores.proposals.get(card.id))
      assert.deepEqual(
        cards.map((card) => [card?.kind, card?.status, card?.reason, card?.batch?.index, card?.unreadable]),
        [
          ['retire', 'pending', 'self_restating', 1, null],
          ['retire', 'pending', 'self_restating', 2, null],
          ['retire', 'pending', 'self_restating', 3, null],
        ],
      )
      assert.deepEqual(
        cards.flatMap((card) => (card?.kind === 'retire' ? card.rows.map((row) => row.fact) : [])),
        facts.map(ref),
      )
    })

    it('queues one card per kind with the rows each kind holds', () => {
      const keeper = fact('billing-api', 'port', '7801')
      const loser = fact('billing-api', 'listening port', '7801')
      const runs = ['2026-02-01', '2026-02-02', '2026-02-03'].map((day) =>
        fact('nightly report', `${day} result`, 'ok'),
      )
      const fragment = fact('billing', 'owner', 'team payments')
      const [survivor, ...older] = [...runs].reverse()
      assert.ok(survivor !== undefined)
      const merge = stores.proposals.proposeMerges([{ keeper: ref(keeper), loser: ref(loser) }], now())
      const fold = stores.proposals.proposeFolds([{ survivor: ref(survivor), runs: older.map(ref) }], now())
      const alias = stores.proposals.proposeAliases(
        [{ fragment: 'billing', canonical: 'billing api', facts: [ref(fragment)] }],
        now(),
      )
      const read = [merge, fold, alias].map((made) => stores.proposals.get(made.cards[0]?.id ?? 0))
      assert.deepEqual(
        read.map((card) => [card?.kind, card?.reason, card?.batch, card?.rows.length]),
        [
          ['merge', 'near_duplicate', null, 1],
          ['fold', 'pipeline', null, 1],
          ['alias', 'split_entity', null, 1],
        ],
      )
      const [mergeCard] = read
      assert.deepEqual(mergeCard?.kind === 'merge' && mergeCard.rows[0], { keeper: ref(keeper), loser: ref(loser) })
    })

    it('does not queue again a change a pending card holds, or one the user rejected, and names what it left out', () => {
      const facts = ['a', 'b', 'c'].map((name) => fact(`worker-${name}`, 'state', 'has a state'))
      const rows = facts.map((one) => ({ fact: ref(one) }))
      const first = stores.proposals.proposeRetires(rows.slice(0, 2), now())
      const firstId = first.cards[0]?.id ?? 0
      const again = stores.proposals.proposeRetires(rows, now())
      assert.deepEqual(again.queued, [
        { row: 0, proposalId: firstId },
        { row: 1, proposalId: firstId },
      ])
      assert.deepEqual(
        again.cards.map((card) => card.rows),
        [1],
      )
      stores.proposals.setStatus(firstId, 'rejected', now())
      const later = stores.proposals.proposeRetires(rows.slice(0, 1), now())
      assert.deepEqual([later.cards, later.declined], [[], [{ row: 0, proposalId: firstId }]])
    })

    it('refuses rows that make no sense or repeat a change, and queues the rest', () => {
      const one = fact('svc', 'port', '1')
      const two = fact('svc', 'port number', '1')
      const made = stores.proposals.proposeMerges(
        [
          { keeper: ref(one), loser: ref(one) },
          { keeper: ref(one), loser: ref(two) },
          { keeper: ref(one), loser: ref(two) },
        ],
        now(),
      )
      assert.deepEqual(made.invalid, [
        { row: 0, problem: 'the row names one fact twice' },
        { row: 2, problem: 'the list names this change twice' },
      ])
      assert.deepEqual(
        made.cards.map((card) => card.rows),
        [1],
      )
    })

    it('lists a card whose stored rows cannot be read with no rows and says why', () => {
      const made = stores.proposals.proposeRetires([{ fact: ref(fact('svc', 'state', 'is in a state')) }], now())
      const id = made.cards[0]?.id ?? 0
      h.db().run('UPDATE proposals SET rows = ? WHERE id = ?', '{"batch":null,"rows":[{"fact":{"factId":"x"}}]}', id)
      const card = stores.proposals.get(id)
      assert.deepEqual(card?.rows, [])
      assert.match(card?.unreadable ?? '', /factId/u)
    })
  })

  describe(`striking a row of a review card (${driver})`, () => {
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

    it("strikes one row of each kind of aggregated card, keeps the card's batch number, and never queues the struck change again", async () => {
      const f = (subject: string, property: string, value: string) =>
        ref(writeFact(v.h.memory, v.h.config, { subject, property, value }))
      const now = v.clock.iso()
      const struck = { fact: f('c', 'state', 'has a state') }
      const kept = { fact: f('d', 'state', 'has a state') }
      const made = [
        stores().proposals.proposeMerges(
          [
            { keeper: f('a', 'port', '1'), loser: f('a', 'port no', '1') },
            { keeper: f('b', 'port', '2'), loser: f('b', 'port no', '2') },
            { keeper: f('b2', 'port', '3'), loser: f('b2', 'port no', '3') },
          ],
          now,
          2,
        ),
        stores().proposals.proposeRetires([struck, kept], now),
        stores().proposals.proposeFolds(
          [
            { survivor: f('run', '2026-01-03 result', 'ok'), runs: [f('run', '2026-01-02 result', 'ok')] },
            { survivor: f('other', '2026-01-03 result', 'ok'), runs: [f('other', '2026-01-02 result', 'ok')] },
          ],
          now,
        ),
        stores().proposals.proposeAliases(
          [
            { fragment: 'e', canonical: 'a', facts: [f('e', 'colour', 'red')] },
            { fragment: 'g', canonical: 'b', facts: [f('g', 'colour', 'blue')] },
          ],
          now,
        ),
      ].map((cards) => cards.cards[0]?.id ?? 0)
      for (const id of made) {
        const before = stores().proposals.get(id)
        const pruned = await v.ok('proposal-prune', v.fence({ id, revision: 1, row: 0 }))
        assert.equal(pruned['revision'], 2)
        const after = stores().proposals.get(id)
        assert.deepEqual([after?.kind, after?.rows.length, after?.batch], [before?.kind, 1, before?.batch])
        assert.deepEqual(after?.rows[0], before?.rows[1], 'the second row is what is left')
      }
      assert.deepEqual(stores().proposals.get(made[0] ?? 0)?.batch, { index: 1, count: 2 })
      const last = await v.call('proposal-prune', v.fence({ id: made[1], revision: 2, row: 0 }))
      assert.equal(!last.ok && last.code, 'refused', 'the last row is rejected with its card, not pruned')
      const again = stores().proposals.proposeRetires([struck, kept], v.clock.iso())
      assert.deepEqual(
        [again.declined, again.queued, again.cards],
        [[{ row: 0, proposalId: made[1] }], [{ row: 1, proposalId: made[1] }], []],
      )
    })
  })
}
