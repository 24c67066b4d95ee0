/**
 * Document counts for weighing words: exact up to a bound, then estimated from how far into the rowids the bounded
 * walk reached, never below the bound nor above the facts indexed.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { FakeClock } from './helpers/fake-clock.ts'
import { DRIVERS, openMemory, writeFact, type MemoryHandle } from './helpers/store.ts'
import { storesOf } from './helpers/vectors.ts'

for (const driver of DRIVERS) {
  describe(`term document counts (${driver})`, () => {
    let h: MemoryHandle
    beforeEach(() => {
      h = openMemory(driver, new FakeClock('2026-03-01T09:00:00.000Z'))
      for (let i = 0; i < 200; i += 1) {
        const words = [`unique${i}`, ...(i % 5 < 3 ? ['common'] : []), ...(i % 29 === 0 ? ['rare'] : [])]
        writeFact(h.memory, h.config, { subject: `service ${i}`, property: 'note', value: words.join(' ') })
      }
    })
    afterEach(() => h.dispose())

    it('counts exactly below the bound and estimates a common word from the rowids its walk spans', () => {
      const facts = storesOf(h.memory).facts
      const exact = facts.termDocumentCounts(['common', 'rare', 'absent'])
      assert.deepEqual(
        [...exact],
        [
          ['common', 120],
          ['rare', 7],
          ['absent', 0],
        ],
      )
      const bounded = facts.termDocumentCounts(['common', 'rare', 'absent'], 50)
      assert.equal(bounded.get('rare'), 7)
      assert.equal(bounded.get('absent'), 0)
      const estimate = bounded.get('common') ?? 0
      assert.ok(estimate >= 50 && estimate <= 200, `between the bound and the facts indexed: ${estimate}`)
      assert.ok(Math.abs(estimate - 120) <= 12, `within a tenth of the true 120: ${estimate}`)
    })
  })
}
