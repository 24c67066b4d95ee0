/**
 * Being told of committed changes, on a real file with both SQLite bindings: Database.onChange fires once after each
 * commit that moved the generation (the change already visible to another connection), never for bookkeeping, an
 * empty or a rolled-back transaction, nor at a savepoint; a listener that throws undoes nothing and silences no other;
 * FactMemory.onChange follows whichever store is open, and the vector sweep's, the calibration's and the review's
 * bookkeeping never reach it (else every sweep would ask for the next).
 */
import { afterEach, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { FakeClock } from './helpers/fake-clock.ts'
import { count, DRIVERS, openMemory, write, writeFact, type MemoryHandle } from './helpers/store.ts'
import { rowFor, storesOf, TEST_IDENTITY, vectorSource } from './helpers/vectors.ts'

const NOW = '2026-03-01T09:00:00.000Z'

for (const driver of DRIVERS) {
  describe(`change listeners (${driver})`, () => {
    let h: MemoryHandle
    beforeEach(() => {
      h = openMemory(driver, new FakeClock(NOW))
    })
    afterEach(() => {
      h.dispose()
    })

    const facts = (): number => count(h.db(), 'SELECT count(*) AS n FROM facts')

    it('Database.onChange fires once after a committed change, when another connection already sees it', () => {
      const db = storesOf(h.memory).db
      const seen: { generation: number; facts: number }[] = []
      db.onChange(() => {
        seen.push({ generation: count(h.db(), "SELECT n FROM tallies WHERE tally = 'generation'"), facts: facts() })
      })
      writeFact(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' })
      assert.deepEqual(seen, [{ generation: db.generation(), facts: 1 }])
      db.run(`UPDATE facts SET confidence = 0.9 WHERE subject = 'billing-api'`)
      assert.equal(seen.length, 2, 'a statement outside a transaction commits on its own, and tells')
    })

    it('Database.onChange never fires for bookkeeping, an empty or a rolled-back transaction, and fires once for nested work at the outer commit', () => {
      const stores = storesOf(h.memory)
      const id = writeFact(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' }).id
      let calls = 0
      stores.db.onChange(() => {
        calls += 1
      })
      stores.meta.set('review_seen_at', NOW)
      stores.db.ledger(() => stores.db.run(`UPDATE facts SET confidence = 0.5 WHERE id = ?`, id))
      stores.db.transaction(() => undefined)
      assert.throws(
        () =>
          stores.db.transaction(() => {
            stores.db.run(`UPDATE facts SET confidence = 0.7 WHERE id = ?`, id)
            throw new Error('rolled back')
          }),
        /rolled back/u,
      )
      assert.equal(calls, 0)
      stores.db.transaction(() => {
        stores.db.transaction(() => stores.db.run(`UPDATE facts SET confidence = 0.8 WHERE id = ?`, id))
        assert.equal(calls, 0, 'a released savepoint is not a commit')
        stores.db.run(`UPDATE facts SET confidence = 0.85 WHERE id = ?`, id)
      })
      assert.equal(calls, 1)
    })

    it('a listener that throws undoes no commit and keeps no other listener from being told', () => {
      const db = storesOf(h.memory).db
      let told = 0
      db.onChange(() => {
        throw new Error('a broken listener')
      })
      db.onChange(() => {
        told += 1
      })
      const answer = write(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' })
      assert.equal(answer.kind, 'saved')
      assert.equal(facts(), 1, 'committed')
      assert.equal(told, 1)
    })

    it('a FactMemory listener that throws keeps the listeners after it from being told', () => {
      let told = 0
      h.memory.onChange(() => {
        throw new Error('a broken listener')
      })
      h.memory.onChange(() => {
        told += 1
      })
      assert.equal(write(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' }).kind, 'saved')
      assert.equal(told, 1)
    })

    it('unsubscribing stops the calls, on the database and on the memory', () => {
      const db = storesOf(h.memory).db
      let database = 0
      let memory = 0
      const offDatabase = db.onChange(() => {
        database += 1
      })
      const offMemory = h.memory.onChange(() => {
        memory += 1
      })
      writeFact(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' })
      offDatabase()
      offMemory()
      writeFact(h.memory, h.config, { subject: 'orders-api', property: 'port', value: '7802' })
      assert.deepEqual([database, memory], [1, 1])
    })

    it('FactMemory.onChange follows the store that is open: told once per change after a reopen, never after close', () => {
      let calls = 0
      h.memory.onChange(() => {
        calls += 1
      })
      writeFact(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' })
      assert.equal(calls, 1)
      h.memory.close()
      h.memory.open(h.dataDir)
      writeFact(h.memory, h.config, { subject: 'orders-api', property: 'port', value: '7802' })
      assert.equal(calls, 2, 'told once: the closed store no longer tells')
      const gone = h.memory.forgetById(1)
      assert.equal(gone.kind, 'forgotten')
      assert.equal(calls, 3)
      h.memory.close()
      assert.equal(
        write(h.memory, h.config, { subject: 'search', property: 'port', value: '7803' }).kind,
        'unavailable',
      )
      assert.equal(calls, 3)
    })

    it("the vector store, the calibration ledger and the review's verdicts never tell FactMemory listeners", () => {
      const stores = storesOf(h.memory)
      const a = writeFact(h.memory, h.config, { subject: 'user', property: 'coffee', value: 'espresso' })
      const b = writeFact(h.memory, h.config, { subject: 'user', property: 'drink', value: 'latte' })
      let calls = 0
      h.memory.onChange(() => {
        calls += 1
      })
      const generation = stores.db.generation()
      const space = stores.vectors.ensureSpace('emb-test', TEST_IDENTITY, NOW)
      stores.vectors.fixDimension(space.id, 16)
      const source = vectorSource(16)
      stores.vectors.storeVectors(
        space.id,
        [rowFor(a.id, a.revision, source.gaussianUnit()), rowFor(b.id, b.revision, source.gaussianUnit())],
        NOW,
      )
      stores.vectors.recheck(space.id, [{ factId: a.id, revision: a.revision }])
      stores.vectors.pruneIneligible()
      stores.calibrations.record({
        fingerprint: 'rr-test',
        outcome: 'refused',
        pairSource: 'supplied',
        relevant: 1,
        irrelevant: 1,
        threshold: null,
        precision: null,
        recall: null,
        reason: 'too_few_pairs',
        createdAt: NOW,
      })
      stores.review.rememberDistinct(
        [{ lowFactId: a.id, highFactId: b.id, lowClaimKey: a.claimKey, highClaimKey: b.claimKey }],
        NOW,
        space.id,
      )
      assert.equal(calls, 0)
      assert.equal(stores.db.generation(), generation)
    })
  })
}
