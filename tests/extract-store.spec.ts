/**
 * The extraction ledger on a real store, for both SQLite bindings: cursors only move forward, the run log keeps
 * what a pass sent (capped) and prunes old rows, parking moves the cursor in the same transaction, none of it
 * bumps the generation, and "Clear everything" keeps it.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { RUN_LOG_KEEP, RUN_TEXT_CAP, type ExtractRunRecord, type ExtractStore } from '../src/store/extract-store.ts'
import type { StoreSet } from '../src/store/store-set.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { DRIVERS, openMemory, write, type MemoryHandle } from './helpers/store.ts'

const RUN: ExtractRunRecord = {
  sessionId: 'session-1', trigger: 'turn', decision: 'extracted', startSeq: 0, endSeq: 12, turns: [1], messageCount: 2,
  chunkCount: 1, chars: 40, textSha256: 'ab'.repeat(32), textSent: '[user] we run the API on port 8123', model: 'fake/model',
  attempt: 1, written: 1, review: 0, refused: [{ reason: 'quote_not_in_input', subject: 'api', property: 'port', value: '9999' }],
  factIds: [1], proposalIds: [], note: null, error: null, startedAt: '2026-03-01T09:00:00.000Z', finishedAt: '2026-03-01T09:00:01.000Z', durationMs: 812,
}

for (const driver of DRIVERS) {
  describe(`the extraction ledger (${driver})`, () => {
    let h: MemoryHandle
    let stores: StoreSet
    let ledger: ExtractStore
    beforeEach(() => {
      h = openMemory(driver, new FakeClock('2026-03-01T09:00:00.000Z'))
      const opened = h.memory.storeSet()
      if (!('stores' in opened)) throw new Error('store not open')
      stores = opened.stores
      ledger = stores.extract
    })
    afterEach(() => h.dispose())

    it('moves a session\'s cursor forward only', () => {
      assert.equal(ledger.cursor('session-1'), undefined)
      ledger.advance('session-1', 10, h.clock.iso())
      ledger.advance('session-1', 4, h.clock.iso())
      assert.equal(ledger.cursor('session-1'), 10)
      ledger.advance('session-1', 25, h.clock.iso())
      assert.equal(ledger.cursor('session-1'), 25)
      assert.equal(ledger.cursor('session-2'), undefined)
    })

    it('logs a pass with everything the page shows, and lists recent passes without their text', () => {
      const id = ledger.record(RUN)
      assert.deepEqual(ledger.run(id), { ...RUN, id })
      const [listed] = ledger.recent(10)
      assert.deepEqual(listed, { ...RUN, id, textSent: null })
      assert.deepEqual(ledger.forSession('session-1').map((run) => run.id), [id])
      assert.deepEqual(ledger.forSession('session-2'), [])
    })

    it('caps the stored text at 20,000 characters and keeps only the newest runs', () => {
      const id = ledger.record({ ...RUN, textSent: '字'.repeat(RUN_TEXT_CAP + 500) })
      assert.equal(ledger.run(id)?.textSent?.length, RUN_TEXT_CAP)
      for (let i = 0; i < RUN_LOG_KEEP + 5; i += 1) ledger.record({ ...RUN, note: `run ${i}` })
      const recent = ledger.recent(RUN_LOG_KEEP + 100)
      assert.equal(recent.length, RUN_LOG_KEEP)
      assert.equal(recent[0]?.note, `run ${RUN_LOG_KEEP + 4}`)
      assert.equal(ledger.run(id), undefined)
    })

    it('parks a range and moves the cursor past it in the same transaction', () => {
      ledger.advance('session-1', 3, h.clock.iso())
      const id = ledger.park({ sessionId: 'session-1', startSeq: 3, endSeq: 20, turns: [2, 3], textSha256: 'cd'.repeat(32), attempts: 3, lastError: 'model timed out' }, h.clock.iso())
      assert.equal(ledger.cursor('session-1'), 20)
      assert.deepEqual(ledger.pending().map((range) => [range.id, range.startSeq, range.endSeq, range.turns, range.attempts, range.lastError]),
        [[id, 3, 20, [2, 3], 3, 'model timed out']])
      ledger.resolve(id, h.clock.iso())
      assert.deepEqual(ledger.pending(), [])
      assert.equal(ledger.pendingById(id)?.resolvedAt, h.clock.iso())
    })

    it('never bumps the generation, so a pass that only logged itself never makes the page stale', () => {
      const before = stores.db.generation()
      ledger.advance('session-1', 5, h.clock.iso())
      ledger.record(RUN)
      ledger.park({ sessionId: 'session-1', startSeq: 5, endSeq: 9, turns: [], textSha256: 'ef'.repeat(32), attempts: 3, lastError: 'x' }, h.clock.iso())
      assert.equal(stores.db.generation(), before)
      write(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' })
      assert.equal(stores.db.generation(), before + 1)
    })

    it('survives "Clear everything": the log, the cursors and the parked ranges stay', () => {
      ledger.advance('session-1', 7, h.clock.iso())
      const id = ledger.record(RUN)
      write(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' })
      stores.facts.wipe()
      assert.equal(ledger.cursor('session-1'), 7)
      assert.equal(ledger.run(id)?.note, RUN.note)
    })
  })
}
