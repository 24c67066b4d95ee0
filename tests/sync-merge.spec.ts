/**
 * The merge core: the same claim on two devices is one fact; a correction made after a sync supersedes; concurrent
 * disagreeing statements (an offline laptop coming back, an edit against a value that changed elsewhere) are one
 * conflict naming both machines; evidence picks the side shown as active; a tombstone from any device wins over
 * relearning; renames, moves, pins, put-backs and undos merge; and the merged library is the same for every delivery
 * order (a property test over many seeds).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { happenedBefore, type ChangeRecord } from '../src/sync/change-record.ts'
import { applicationOrder, mergeRecords, slotId, type MergedSlot, type MergedState } from '../src/sync/merge.ts'
import { randomSession, seededRandom, shuffled, SimDevice, slot } from './helpers/sync-devices.ts'

const T0 = Date.parse('2026-03-01T09:00:00.000Z')
const PORT = slot('payments')

function slotIn(state: MergedState, ref = PORT): MergedSlot | undefined {
  return state.slots.find((entry) => slotId(entry.slot) === slotId(ref))
}

function standing(state: MergedState, ref = PORT): string[] {
  return (slotIn(state, ref)?.current ?? []).map((entry) => `${entry.value}:${entry.status}`)
}

function pair(): [SimDevice, SimDevice] {
  return [new SimDevice('laptop', T0), new SimDevice('desktop', T0 + 3_600_000)]
}

describe('merging the records of several devices', () => {
  it('makes the same claim stated on two machines one fact that names both', () => {
    const [laptop, desktop] = pair()
    laptop.write(PORT, '7801')
    desktop.write(PORT, '7801', 'observed')
    laptop.syncWith(desktop)
    const merged = slotIn(laptop.state())
    assert.deepEqual(standing(laptop.state()), ['7801:active'])
    assert.equal(merged?.conflict, false)
    assert.deepEqual(merged?.current[0]?.devices, ['desktop', 'laptop'])
    assert.equal(merged?.current[0]?.evidence, 'explicit_user')
    assert.deepEqual(desktop.state(), laptop.state())
  })

  it('lets a correction made after a sync supersede on both machines', () => {
    const [laptop, desktop] = pair()
    laptop.write(PORT, '7801')
    desktop.pull(laptop)
    desktop.write(PORT, '7802')
    laptop.syncWith(desktop)
    assert.deepEqual(standing(laptop.state()), ['7802:active'])
    assert.deepEqual(
      slotIn(laptop.state())?.history.map((entry) => `${entry.value}:${entry.status}`),
      ['7801:superseded'],
    )
    assert.deepEqual(desktop.state(), laptop.state())
  })

  it('turns statements made while one machine was offline into one conflict on both, which a later correction settles', () => {
    const [laptop, desktop] = pair()
    laptop.write(PORT, '7801')
    desktop.syncWith(laptop)
    // The laptop goes offline; both change the port.
    laptop.write(PORT, '7802')
    desktop.write(PORT, '7803')
    laptop.syncWith(desktop)
    const merged = slotIn(laptop.state())
    assert.equal(merged?.conflict, true)
    assert.deepEqual(
      merged?.current.map((entry) => [entry.value, entry.devices]),
      [
        ['7802', ['laptop']],
        ['7803', ['desktop']],
      ],
    )
    assert.deepEqual(desktop.state(), laptop.state())
    desktop.write(PORT, '7804')
    laptop.syncWith(desktop)
    assert.deepEqual(standing(laptop.state()), ['7804:active'])
    assert.deepEqual(desktop.state(), laptop.state())
  })

  it('opens a conflict when an edit was made against a value that had since changed on another machine', () => {
    const [laptop, desktop] = pair()
    laptop.write(PORT, '7801')
    desktop.pull(laptop)
    laptop.write(PORT, '7802')
    desktop.write(PORT, '7801', 'explicit_user')
    desktop.write(PORT, '7809')
    laptop.syncWith(desktop)
    assert.deepEqual(standing(laptop.state()), ['7802:active', '7809:conflict'])
  })

  it('makes a value restated offline, against a correction the machine had not seen, a conflict whichever clock runs ahead', () => {
    for (const desktopOffset of [3_600_000, -3_600_000]) {
      const laptop = new SimDevice('laptop', T0)
      const desktop = new SimDevice('desktop', T0 + desktopOffset)
      laptop.write(PORT, '7801')
      desktop.pull(laptop)
      desktop.write(PORT, '7802')
      laptop.write(PORT, '7801', 'explicit_user')
      laptop.syncWith(desktop)
      assert.deepEqual(
        standing(laptop.state()),
        ['7802:active', '7801:conflict'],
        `desktop clock ${desktopOffset / 3_600_000} h`,
      )
      assert.deepEqual(desktop.state(), laptop.state())
    }
  })

  it('shows the stronger evidence as the active side of a concurrent disagreement, and keeps the other visible', () => {
    const [laptop, desktop] = pair()
    laptop.write(PORT, '7801', 'observed')
    desktop.write(PORT, '7802', 'explicit_user')
    laptop.syncWith(desktop)
    assert.deepEqual(standing(laptop.state()), ['7802:active', '7801:conflict'])
  })

  it('settles a conflict on the value the user kept, on every machine', () => {
    const [laptop, desktop] = pair()
    laptop.write(PORT, '7801')
    desktop.write(PORT, '7802')
    laptop.syncWith(desktop)
    laptop.settle(PORT, '7802')
    desktop.syncWith(laptop)
    assert.deepEqual(standing(desktop.state()), ['7802:active'])
    // As on one machine: the active side is superseded by the kept value (a conflict side would be retired).
    assert.deepEqual(
      slotIn(desktop.state())?.history.map((entry) => `${entry.value}:${entry.status}`),
      ['7801:superseded'],
    )
  })

  it('lets a tombstone from any machine forget the claim everywhere and block relearning, before or after', () => {
    const [laptop, desktop] = pair()
    laptop.write(PORT, '7801')
    desktop.pull(laptop)
    laptop.forget(PORT, '7801')
    desktop.write(PORT, '7801', 'explicit_user')
    laptop.syncWith(desktop)
    desktop.write(PORT, '7801', 'explicit_user')
    laptop.syncWith(desktop)
    for (const device of [laptop, desktop]) {
      assert.deepEqual(standing(device.state()), [])
      assert.deepEqual(slotIn(device.state())?.forgotten, ['7801'])
    }
    // The tombstone has no project: the claim is refused in a project's scope too.
    desktop.write(slot('payments', 'port', 'shop'), '7801')
    assert.deepEqual(standing(desktop.state(), slot('payments', 'port', 'shop')), [])
  })

  it('lifts a tombstone only for the forget that was undone, not for a concurrent forget of the same claim', () => {
    const [laptop, desktop] = pair()
    laptop.write(PORT, '7801')
    desktop.pull(laptop)
    const forget = laptop.forget(PORT, '7801')
    laptop.restore([forget.op])
    laptop.syncWith(desktop)
    assert.deepEqual(standing(laptop.state()), ['7801:active'])
    desktop.forget(PORT, '7801')
    laptop.syncWith(desktop)
    assert.deepEqual(standing(laptop.state()), [])
  })

  it('carries a rename to the other machine, where a write under the old name lands on the new one', () => {
    const [laptop, desktop] = pair()
    laptop.write(slot('pay-svc'), '7801')
    desktop.pull(laptop)
    laptop.rename('pay-svc', 'payments')
    desktop.write(slot('pay-svc', 'owner'), 'ana')
    laptop.syncWith(desktop)
    const state = desktop.state()
    assert.deepEqual(standing(state, slot('payments')), ['7801:active'])
    assert.deepEqual(standing(state, slot('payments', 'owner')), ['ana:active'])
    assert.equal(slotIn(state, slot('pay-svc')), undefined)
    assert.deepEqual(
      state.aliases.map((alias) => `${alias.from}>${alias.to}`),
      ['pay-svc>payments'],
    )
  })

  it('makes a merge of two subjects with different values a conflict, never a silent choice', () => {
    const [laptop, desktop] = pair()
    laptop.write(slot('pay-svc'), '7801')
    desktop.write(slot('payments'), '7802')
    laptop.syncWith(desktop)
    laptop.rename('pay-svc', 'payments')
    assert.deepEqual(standing(laptop.state(), slot('payments')), ['7801:active', '7802:conflict'])
  })

  it('resolves two concurrent renames into each other to the same name on both machines', () => {
    const [laptop, desktop] = pair()
    laptop.write(slot('alpha'), '1')
    desktop.pull(laptop)
    laptop.rename('alpha', 'beta')
    desktop.rename('beta', 'alpha')
    laptop.syncWith(desktop)
    assert.deepEqual(laptop.state(), desktop.state())
    assert.deepEqual(
      laptop.state().slots.map((entry) => entry.slot.entity),
      ['alpha'],
    )
  })

  it('moves a value into a project, keeps the move in history, and takes the latest pin', () => {
    const [laptop, desktop] = pair()
    laptop.write(PORT, '7801')
    desktop.pull(laptop)
    laptop.move(PORT, '7801', 'shop')
    desktop.pin(PORT, '7801', '2026-03-01T10:00:00.000Z')
    laptop.syncWith(desktop)
    laptop.pin(slot('payments', 'port', 'shop'), '7801', '2026-03-02T10:00:00.000Z')
    desktop.syncWith(laptop)
    const state = desktop.state()
    assert.deepEqual(standing(state), [])
    assert.deepEqual(
      slotIn(state)?.history.map((entry) => entry.status),
      ['moved'],
    )
    assert.equal(slotIn(state, slot('payments', 'port', 'shop'))?.current[0]?.pinnedAt, '2026-03-02T10:00:00.000Z')
  })

  it('keeps a put-back value as history that competes with nothing current', () => {
    const [laptop, desktop] = pair()
    laptop.write(PORT, '7802')
    desktop.putBack(PORT, '7801')
    laptop.syncWith(desktop)
    assert.deepEqual(standing(laptop.state()), ['7802:active'])
    assert.deepEqual(slotIn(laptop.state())?.history, [{ value: '7801', status: 'superseded', by: null }])
  })

  it('brings back the value an undone correction had replaced', () => {
    const [laptop, desktop] = pair()
    laptop.write(PORT, '7801')
    const edit = laptop.write(PORT, '7802')
    laptop.restore([edit.op])
    desktop.pull(laptop)
    assert.deepEqual(standing(desktop.state()), ['7801:active'])
  })

  it('orders application so every record comes after the records its device had seen', () => {
    const { records } = randomSession(7, 300)
    const order = applicationOrder(shuffled(records, seededRandom(1)))
    const position = new Map(order.map((record, index) => [record.op, index]))
    for (const later of order) {
      for (const earlier of order) {
        if (happenedBefore(earlier, later))
          assert.ok((position.get(earlier.op) ?? 0) < (position.get(later.op) ?? 0), `${earlier.op} before ${later.op}`)
      }
    }
  })
})

describe('convergence', () => {
  const SEEDS = 40
  const SHUFFLES = 4

  it(`gives the same library for every delivery order, with repeats, over ${SEEDS} seeded sessions of 300 changes on 3 devices`, () => {
    let conflicts = 0
    let forgotten = 0
    for (let seed = 1; seed <= SEEDS; seed += 1) {
      const { devices, records } = randomSession(seed, 300)
      const expected = mergeRecords(records)
      const random = seededRandom(seed * 7919)
      for (let round = 0; round < SHUFFLES; round += 1) {
        // Deliver in shuffled batches, some records twice, as a sync tool that retries would.
        const delivered: ChangeRecord[] = []
        for (const record of shuffled(records, random)) {
          delivered.push(record)
          if (random() < 0.1) delivered.push(structuredClone(record))
        }
        assert.deepEqual(mergeRecords(delivered), expected, `seed ${seed}, shuffle ${round}`)
      }
      // Every device that reads every log ends with the same library.
      for (const device of devices) for (const other of devices) device.pull(other)
      for (const device of devices) assert.deepEqual(device.state(), expected, `seed ${seed}, device ${device.id}`)
      for (const merged of expected.slots) {
        const active = merged.current.filter((entry) => entry.status === 'active')
        assert.equal(merged.conflict, !merged.multi && merged.current.length > 1, `seed ${seed}: conflict flag`)
        if (!merged.multi && merged.current.length > 0) assert.equal(active.length, 1, `seed ${seed}: one active value`)
        for (const entry of merged.current)
          assert.ok(!merged.forgotten.includes(entry.value), `seed ${seed}: a forgotten value stands`)
        // A conflict still open, or one a settle or a later correction closed (its sides retired or superseded by it).
        if (merged.conflict || merged.history.some((entry) => entry.status === 'retired')) conflicts += 1
        forgotten += merged.forgotten.length
      }
    }
    // The sessions exercise the interesting paths, not only quiet slots.
    assert.ok(conflicts >= SEEDS / 4, `conflicts: ${conflicts}`)
    assert.ok(forgotten > SEEDS, `forgotten values: ${forgotten}`)
  })
})
