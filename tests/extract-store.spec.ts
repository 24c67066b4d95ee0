/**
 * The extraction ledger on a real store, for both SQLite bindings: cursors only move forward, the run log keeps
 * what a pass sent (capped) and prunes old rows, parking moves the cursor in the same transaction, a failed retry
 * keeps a range parked (narrowed to what is unread) and resolving ends it, a parked error holds no credential, none of it
 * bumps the generation, and "Clear everything" keeps it.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { RUN_LOG_KEEP, RUN_TEXT_CAP, type ExtractRunRecord, type ExtractStore } from '../src/store/extract-store.ts'
import type { StoreSet } from '../src/store/store-set.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { DRIVERS, openMemory, write, type MemoryHandle } from './helpers/store.ts'

const RUN: ExtractRunRecord = {
  sessionId: 'session-1',
  trigger: 'turn',
  decision: 'extracted',
  startSeq: 0,
  endSeq: 12,
  turns: [1],
  messageCount: 2,
  chunkCount: 1,
  chars: 40,
  textSha256: 'ab'.repeat(32),
  textSent: '[user] we run the API on port 8123',
  model: 'fake/model',
  attempt: 1,
  written: 1,
  review: 0,
  refused: [{ reason: 'quote_not_in_input', subject: 'api', property: 'port', value: '9999' }],
  factIds: [1],
  proposalIds: [],
  note: null,
  error: null,
  startedAt: '2026-03-01T09:00:00.000Z',
  finishedAt: '2026-03-01T09:00:01.000Z',
  durationMs: 812,
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

    it("moves a session's cursor forward only", () => {
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
      assert.deepEqual(
        ledger.forSession('session-1').map((run) => run.id),
        [id],
      )
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
      const id = ledger.park(
        {
          sessionId: 'session-1',
          startSeq: 3,
          endSeq: 20,
          turns: [2, 3],
          textSha256: 'cd'.repeat(32),
          attempts: 3,
          lastError: 'model timed out',
        },
        h.clock.iso(),
      )
      assert.equal(ledger.cursor('session-1'), 20)
      assert.deepEqual(
        ledger
          .pending()
          .map((range) => [range.id, range.startSeq, range.endSeq, range.turns, range.attempts, range.lastError]),
        [[id, 3, 20, [2, 3], 3, 'model timed out']],
      )
      ledger.resolve(id, h.clock.iso())
      assert.deepEqual(ledger.pending(), [])
      assert.equal(ledger.pendingById(id)?.resolvedAt, h.clock.iso())
    })

    it('a failed retry keeps the range parked with one more attempt and its new error, narrowed to what is still unread', () => {
      const id = ledger.park(
        {
          sessionId: 'session-1',
          startSeq: 3,
          endSeq: 20,
          turns: [2, 3],
          textSha256: 'cd'.repeat(32),
          attempts: 4,
          lastError: 'HTTP 503',
        },
        h.clock.iso(),
      )
      assert.equal(ledger.retryFailed(id, { startSeq: 3, textSha256: 'cd'.repeat(32), error: 'HTTP 502' }), true)
      assert.deepEqual(
        ledger
          .pending()
          .map((range) => [range.id, range.startSeq, range.endSeq, range.attempts, range.lastError, range.textSha256]),
        [[id, 3, 20, 5, 'HTTP 502', 'cd'.repeat(32)]],
      )
      // The retry read the range's first segments before failing: the range now starts where they ended.
      ledger.retryFailed(id, { startSeq: 11, textSha256: 'ef'.repeat(32), error: 'timed out' })
      assert.deepEqual(
        ledger
          .pending()
          .map((range) => [range.startSeq, range.endSeq, range.attempts, range.lastError, range.textSha256]),
        [[11, 20, 6, 'timed out', 'ef'.repeat(32)]],
      )
      // A start outside the range (behind it, or past its end) never moves it.
      ledger.retryFailed(id, { startSeq: 5, textSha256: '00'.repeat(32), error: 'x' })
      ledger.retryFailed(id, { startSeq: 21, textSha256: '11'.repeat(32), error: 'y' })
      assert.deepEqual(
        ledger.pending().map((range) => [range.startSeq, range.attempts, range.textSha256]),
        [[11, 8, 'ef'.repeat(32)]],
      )
      assert.equal(ledger.cursor('session-1'), 20, 'a retry never moves the cursor')
    })

    it('resolving says whether the range was still parked; a resolved range takes no further retry', () => {
      const id = ledger.park(
        {
          sessionId: 'session-1',
          startSeq: 0,
          endSeq: 8,
          turns: [1],
          textSha256: 'ab'.repeat(32),
          attempts: 4,
          lastError: 'x',
        },
        h.clock.iso(),
      )
      assert.equal(ledger.resolve(id, h.clock.iso()), true)
      assert.equal(ledger.resolve(id, h.clock.iso()), false)
      assert.equal(ledger.resolve(id + 100, h.clock.iso()), false)
      assert.equal(ledger.retryFailed(id, { startSeq: 0, textSha256: 'ab'.repeat(32), error: 'late' }), false)
      assert.deepEqual([ledger.pendingById(id)?.attempts, ledger.pendingById(id)?.lastError], [4, 'x'])
    })

    it("keeps no credential in a parked range's error, when parked or retried", () => {
      const key = 'sk-proj-Q7vR2mXk9LpT4wZs8NbY3cHd6F-jG1aUe5KqW0_y'
      const id = ledger.park(
        {
          sessionId: 'session-1',
          startSeq: 0,
          endSeq: 8,
          turns: [1],
          textSha256: 'ab'.repeat(32),
          attempts: 4,
          lastError: `401: invalid key ${key}`,
        },
        h.clock.iso(),
      )
      assert.equal(ledger.pendingById(id)?.lastError.includes('Q7vR2mXk9LpT'), false, ledger.pendingById(id)?.lastError)
      assert.match(ledger.pendingById(id)?.lastError ?? '', /^401: invalid key /u)
      ledger.retryFailed(id, { startSeq: 0, textSha256: 'ab'.repeat(32), error: `Authorization: Bearer ${key}` })
      assert.equal(JSON.stringify(h.db().all('SELECT last_error FROM extract_pending')).includes('Q7vR2mXk9LpT'), false)
    })

    it('never bumps the generation, so a pass that only logged itself never makes the page stale', () => {
      const before = stores.db.generation()
      ledger.advance('session-1', 5, h.clock.iso())
      ledger.record(RUN)
      const parked = ledger.park(
        {
          sessionId: 'session-1',
          startSeq: 5,
          endSeq: 9,
          turns: [],
          textSha256: 'ef'.repeat(32),
          attempts: 3,
          lastError: 'x',
        },
        h.clock.iso(),
      )
      ledger.retryFailed(parked, { startSeq: 5, textSha256: 'ef'.repeat(32), error: 'y' })
      ledger.resolve(parked, h.clock.iso())
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
