/**
 * The calibration ledger on a real store, both SQLite bindings: the newest calibrated row of a fingerprint is the
 * record in force, a refused run never replaces it (but is the latest attempt), another fingerprint's record never
 * applies, writing never moves the store generation; and the facts a library calibration reads are the active,
 * model-usable, non-sensitive ones, spread over the library and bounded.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { CalibrationEntry, CalibrationStore } from '../src/store/calibration-store.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { DRIVERS, openMemory, writeFact, type MemoryHandle } from './helpers/store.ts'

const FP = 'rr-0123456789abcdef'
const OTHER_FP = 'rr-fedcba9876543210'

const calibrated = (threshold: number, extra: Partial<CalibrationEntry> = {}): CalibrationEntry => ({
  fingerprint: FP,
  outcome: 'calibrated',
  pairSource: 'supplied',
  relevant: 20,
  irrelevant: 20,
  threshold,
  precision: 1,
  recall: 0.9,
  reason: null,
  createdAt: '2026-03-01T09:00:00.000Z',
  ...extra,
})
const refused = (extra: Partial<CalibrationEntry> = {}): CalibrationEntry => ({
  fingerprint: FP,
  outcome: 'refused',
  pairSource: 'library',
  relevant: 5,
  irrelevant: 5,
  threshold: null,
  precision: null,
  recall: null,
  reason: 'too_few_pairs',
  createdAt: '2026-03-01T10:00:00.000Z',
  ...extra,
})

for (const driver of DRIVERS) {
  describe(`calibration store (${driver})`, () => {
    let h: MemoryHandle
    let store: CalibrationStore
    beforeEach(() => {
      h = openMemory(driver, new FakeClock('2026-03-01T09:00:00.000Z'))
      const opened = h.memory.storeSet()
      if (!('stores' in opened)) throw new Error('store not open')
      store = opened.stores.calibrations
    })
    afterEach(() => {
      h.dispose()
    })

    it('has no record and no attempt for a fingerprint never calibrated', () => {
      assert.equal(store.current(FP), undefined)
      assert.equal(store.latest(FP), undefined)
    })

    it('keeps the newest calibrated row of a fingerprint as the record in force', () => {
      store.record(calibrated(0.3))
      const id = store.record(calibrated(0.6, { pairSource: 'library', precision: 0.95, recall: 0.8 }))
      assert.deepEqual(store.current(FP), {
        ...calibrated(0.6, { pairSource: 'library', precision: 0.95, recall: 0.8 }),
        id,
      })
    })

    it('never lets a refused run replace a calibration, though it is the latest attempt', () => {
      const id = store.record(calibrated(0.4))
      const refusedId = store.record(
        refused({ reason: 'no_threshold', threshold: 0.7, precision: 0.9, recall: 0.5, relevant: 30, irrelevant: 30 }),
      )
      assert.equal(store.current(FP)?.id, id)
      assert.equal(store.current(FP)?.threshold, 0.4)
      assert.deepEqual(store.latest(FP), {
        ...refused({
          reason: 'no_threshold',
          threshold: 0.7,
          precision: 0.9,
          recall: 0.5,
          relevant: 30,
          irrelevant: 30,
        }),
        id: refusedId,
      })
      assert.equal(store.current(OTHER_FP), undefined)
    })

    it("never applies another fingerprint's record", () => {
      store.record(calibrated(0.4, { fingerprint: OTHER_FP }))
      assert.equal(store.current(FP), undefined)
      assert.equal(store.latest(FP), undefined)
      assert.equal(store.current(OTHER_FP)?.threshold, 0.4)
    })

    it('never moves the store generation when it records', () => {
      writeFact(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' })
      const generation = h.memory.status().generation
      store.record(calibrated(0.5))
      store.record(refused())
      assert.equal(h.memory.status().generation, generation)
    })

    it('reads for library pairs only active, model-usable facts without a sensitivity mark', () => {
      const kept = writeFact(h.memory, h.config, {
        subject: 'billing-api',
        property: 'port',
        value: '7801',
        qualifiers: { env: 'prod' },
      })
      const replaced = writeFact(h.memory, h.config, { subject: 'orders-api', property: 'port', value: '7802' })
      writeFact(h.memory, h.config, { subject: 'orders-api', property: 'port', value: '7803' })
      writeFact(h.memory, h.config, { subject: 'user', property: 'email', value: 'alice@example.com' })
      const hidden = writeFact(h.memory, h.config, { subject: 'search', property: 'region', value: 'eu-west-1' })
      const forgotten = writeFact(h.memory, h.config, {
        subject: 'docs',
        property: 'url',
        value: 'https://docs.example.com',
      })
      h.memory.forgetById(forgotten.id)
      h.db().run('UPDATE facts SET model_use_allowed = 0 WHERE id = ?', hidden.id)
      const facts = store.pairFacts(100)
      assert.deepEqual(
        facts.map((fact) => fact.value),
        ['7801', '7803'],
      )
      assert.ok(!facts.some((fact) => fact.id === replaced.id))
      assert.deepEqual(facts[0], {
        id: kept.id,
        entityKey: kept.entityKey,
        subject: 'billing-api',
        property: 'port',
        predicateKey: kept.predicateKey,
        qualifiers: { env: 'prod' },
        value: '7801',
      })
    })

    it('reads at most the facts asked for, spread evenly over the library by id', () => {
      const ids = Array.from(
        { length: 30 },
        (_, i) =>
          writeFact(h.memory, h.config, { subject: `service-${i}`, property: `setting ${i}`, value: `value ${i}` }).id,
      )
      assert.deepEqual(
        store.pairFacts(10).map((fact) => fact.id),
        ids.filter((_, i) => i % 3 === 0),
      )
      assert.deepEqual(
        store.pairFacts(7).map((fact) => fact.id),
        ids.filter((_, i) => i % 5 === 0),
      )
      assert.equal(store.pairFacts(100).length, 30)
      assert.deepEqual(store.pairFacts(0), [])
    })
  })
}
