/**
 * The index of the changes review cards hold, on a real store (both bindings): a sweep, an audit and a held-change
 * check read row keys from `proposal_changes`, never the cards' JSON, so the declined memory holds even when a card
 * is unreadable or gone; decided cards are kept for {@link DECIDED_CARD_DAYS} days and at most
 * {@link DECIDED_CARD_KEEP} of them, pending cards always; a store from before the index rebuilds it on first use;
 * wiping the store empties it.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { DECIDED_CARD_DAYS, DECIDED_CARD_KEEP } from '../src/store/proposal-changes.ts'
import type { StoreSet } from '../src/store/store-set.ts'
import type { MergeRow } from '../src/types.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { count, DRIVERS, expectKind, openMemory, write, type MemoryHandle } from './helpers/store.ts'

const merge = (keeper: number, loser: number): MergeRow => ({
  keeper: { factId: keeper, revision: 1 },
  loser: { factId: loser, revision: 1 },
})
const DAY_MS = 86_400_000
/** Every key the tests ask about, and one no card names. */
const ASKED = ['merge:1<2', 'merge:3<4', 'merge:5<6', 'merge:7<8']

for (const driver of DRIVERS) {
  describe(`the index of proposed changes (${driver})`, () => {
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

    const propose = (...rows: MergeRow[]): number[] =>
      stores.proposals.proposeMerges(rows, clock.iso()).cards.map((card) => card.id)

    it('answers held and declined changes from the index, not from the cards', () => {
      const [held] = propose(merge(1, 2))
      const [rejected] = propose(merge(3, 4), merge(5, 6))
      assert.ok(held !== undefined && rejected !== undefined)
      stores.proposals.setStatus(rejected, 'rejected', clock.iso())
      assert.deepEqual([...stores.proposals.heldChanges('merge', ASKED)].sort(), [
        'merge:1<2',
        'merge:3<4',
        'merge:5<6',
      ])
      // A card whose JSON can no longer be read still remembers what it held and what the user declined.
      h.db().run(`UPDATE proposals SET rows = 'not json' WHERE id IN (?, ?)`, held, rejected)
      const again = stores.proposals.proposeMerges([merge(1, 2), merge(5, 6), merge(7, 8)], clock.iso())
      assert.deepEqual(again.queued, [{ row: 0, proposalId: held }])
      assert.deepEqual(again.declined, [{ row: 1, proposalId: rejected }])
      assert.equal(again.cards.length, 1)
    })

    it('a struck row is declined at once; a card put back to pending holds its rows again', () => {
      const [id] = propose(merge(1, 2), merge(3, 4))
      assert.ok(id !== undefined)
      const card = stores.proposals.get(id)
      assert.ok(card?.kind === 'merge')
      stores.proposals.revise(card, [merge(1, 2)], clock.iso(), ['merge:3<4'])
      const after = stores.proposals.proposeMerges([merge(1, 2), merge(3, 4)], clock.iso())
      assert.deepEqual([after.queued, after.declined], [[{ row: 0, proposalId: id }], [{ row: 1, proposalId: id }]])
      stores.proposals.setStatus(id, 'applied', clock.iso())
      assert.deepEqual(
        [...stores.proposals.heldChanges('merge', ASKED)],
        ['merge:3<4'],
        'an applied card holds nothing; the struck row stays declined',
      )
      assert.equal(stores.proposals.reopen(id, clock.iso()), true)
      assert.deepEqual([...stores.proposals.heldChanges('merge', ASKED)].sort(), ['merge:1<2', 'merge:3<4'])
    })

    it(`keeps decided cards ${DECIDED_CARD_DAYS} days, never a pending one, and remembers a declined change after its card is gone`, () => {
      const [applied] = propose(merge(1, 2))
      const [rejected] = propose(merge(3, 4))
      const [pending] = propose(merge(5, 6))
      assert.ok(applied !== undefined && rejected !== undefined && pending !== undefined)
      stores.proposals.setStatus(applied, 'applied', clock.iso())
      stores.proposals.setStatus(rejected, 'rejected', clock.iso())
      const inferred = { subject: 'Bob', property: 'timezone', value: 'Asia/Shanghai', inferred: true } as const
      const proposedFact = expectKind(write(h.memory, h.config, inferred), 'proposed')
      stores.proposals.setStatus(proposedFact.proposalId, 'rejected', clock.iso())
      clock.advance(DECIDED_CARD_DAYS * DAY_MS - 60_000)
      propose(merge(7, 8))
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM proposals'), 5, 'nothing is pruned before its time')
      clock.advance(120_000)
      propose(merge(9, 10))
      const left = h
        .db()
        .all('SELECT id FROM proposals ORDER BY id')
        .map((row) => Number(row['id']))
      assert.ok(
        !left.includes(applied) && !left.includes(rejected) && !left.includes(proposedFact.proposalId),
        'the old decided cards are pruned',
      )
      assert.ok(left.includes(pending), 'a pending card is never pruned')
      const again = stores.proposals.proposeMerges([merge(3, 4)], clock.iso())
      assert.deepEqual(
        [again.cards.length, again.declined],
        [0, [{ row: 0, proposalId: rejected }]],
        'the declined merge is not proposed again',
      )
      const refused = expectKind(write(h.memory, h.config, inferred), 'refused')
      assert.match(
        refused.message,
        new RegExp(`the user rejected this change on 2026-03-01 \\(proposal #${proposedFact.proposalId}\\)`, 'u'),
      )
    })

    it(`keeps at most ${DECIDED_CARD_KEEP} decided cards, the newest`, () => {
      const rows = Array.from({ length: DECIDED_CARD_KEEP + 5 }, (_, index) => merge(2 * index + 1, 2 * index + 2))
      const ids = stores.proposals.proposeMerges(rows, clock.iso(), 1).cards.map((card) => card.id)
      for (const id of ids) stores.proposals.setStatus(id, 'stale', clock.iso())
      propose(merge(100_001, 100_002))
      const decided = h
        .db()
        .all(`SELECT id FROM proposals WHERE status <> 'pending' ORDER BY id`)
        .map((row) => Number(row['id']))
      assert.equal(decided.length, DECIDED_CARD_KEEP)
      assert.deepEqual(decided.slice(0, 1), ids.slice(5, 6), 'the oldest five went')
    })

    it('a store from before the index rebuilds it on first use, and a wipe empties it', () => {
      const [held] = propose(merge(1, 2))
      const [rejected] = propose(merge(3, 4))
      assert.ok(held !== undefined && rejected !== undefined)
      stores.proposals.setStatus(rejected, 'rejected', clock.iso())
      // As a store migrated from an older version finds it: the table empty, no stamp.
      h.db().run('DELETE FROM proposal_changes')
      h.db().run(`DELETE FROM store_meta WHERE key = 'proposal_changes_version'`)
      h.memory.close()
      h.memory.open(h.dataDir)
      const opened = h.memory.storeSet()
      if (!('stores' in opened)) throw new Error('store not open')
      stores = opened.stores
      assert.deepEqual([...stores.proposals.heldChanges('merge', ASKED)].sort(), ['merge:1<2', 'merge:3<4'])
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM proposal_changes'), 2)
      stores.facts.wipe()
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM proposal_changes'), 0)
    })
  })
}
