/**
 * The hybrid logical clock and the change record schema: ticks never run backwards, a receive is later than both
 * sides, a clock an hour off is taken and reported in words, the text form sorts like the clock; every record kind
 * validates, and a misspelt field, a foreign clock or an unknown kind is refused with a sentence.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseChangeRecord } from '../src/sync/change-record.schema.ts'
import { CHANGE_KINDS, happenedBefore } from '../src/sync/change-record.ts'
import {
  compareHlc,
  describeSkew,
  formatHlc,
  parseHlc,
  tickLocal,
  tickReceive,
  zeroHlc,
  type Hlc,
} from '../src/sync/hlc.ts'
import { seededRandom, SimDevice, slot } from './helpers/sync-devices.ts'

const T0 = Date.parse('2026-03-01T09:00:00.000Z')
const HOUR = 3_600_000

describe('hybrid logical clock', () => {
  it('moves forward on every local change, even when the wall clock stands still or steps back', () => {
    let clock = zeroHlc('laptop')
    const readings: Hlc[] = []
    for (const wall of [T0, T0, T0 - 5000, T0 + 1]) {
      clock = tickLocal(clock, wall)
      readings.push(clock)
    }
    for (let index = 1; index < readings.length; index += 1)
      assert.ok(compareHlc(readings[index - 1] as Hlc, readings[index] as Hlc) < 0)
    assert.deepEqual(
      readings.map((reading) => [reading.wall - T0, reading.counter]),
      [
        [0, 0],
        [0, 1],
        [0, 2],
        [1, 0],
      ],
    )
  })

  it('takes a remote clock an hour ahead, stays later than it, and says so in words', () => {
    const local = tickLocal(zeroHlc('laptop'), T0)
    const remote = tickLocal(zeroHlc('desktop'), T0 + HOUR)
    const received = tickReceive(local, remote, T0 + 10)
    assert.ok(compareHlc(received.hlc, remote) > 0 && compareHlc(received.hlc, local) > 0)
    assert.equal(received.skewMs, HOUR - 10)
    assert.equal(
      describeSkew('desktop', received.skewMs),
      'the clock of "desktop" runs about 1 h ahead of this machine\'s; changes are still ordered by what each machine had seen',
    )
    assert.equal(describeSkew('desktop', -20 * 60_000)?.includes('about 20 min behind'), true)
    assert.equal(describeSkew('desktop', 30_000), undefined)
    // The next local change, an hour "early" by this wall clock, still comes after what was received.
    assert.ok(compareHlc(tickLocal(received.hlc, T0 + 20), received.hlc) > 0)
  })

  it('writes text that sorts exactly as the clock does, and reads it back', () => {
    const random = seededRandom(3)
    const readings: Hlc[] = Array.from({ length: 200 }, () => ({
      wall: T0 + Math.floor(random() * 1000),
      counter: Math.floor(random() * 20),
      device: random() < 0.5 ? 'laptop' : 'desktop-2',
    }))
    const byClock = [...readings].sort(compareHlc).map(formatHlc)
    assert.deepEqual([...readings].map(formatHlc).sort(), byClock)
    for (const reading of readings) assert.deepEqual(parseHlc(formatHlc(reading)), reading)
    assert.equal(parseHlc('17-1-laptop'), undefined)
    assert.equal(parseHlc(`${formatHlc(readings[0] as Hlc)}X`), undefined)
    assert.throws(() => zeroHlc('Laptop One'), /not a device id/u)
  })
})

describe('change records', () => {
  function sampleRecords() {
    const laptop = new SimDevice('laptop', T0)
    const desktop = new SimDevice('desktop', T0 + HOUR)
    const port = slot('payments')
    const write = laptop.write(port, '7801')
    desktop.pull(laptop)
    return [
      write,
      desktop.write(port, '7802'),
      desktop.settle(port, '7802'),
      desktop.expire(port, '7802'),
      desktop.forget(port, '7801'),
      desktop.pin(port, '7802', '2026-03-01T10:00:00.000Z'),
      desktop.rename('payments', 'pay'),
      desktop.move(port, '7802', 'shop'),
      desktop.putBack(port, '7800'),
      desktop.restore([write.op]),
      desktop.unalias('payments'),
      desktop.display('shop', 'Shop'),
      desktop.bareTombstone(slot('billing'), '7900'),
    ]
  }

  it('validates a record of every kind as written, and knows which came after which', () => {
    const records = sampleRecords()
    assert.deepEqual([...new Set(records.map((record) => record.kind))].sort(), [...CHANGE_KINDS].sort())
    for (const record of records)
      assert.deepEqual(parseChangeRecord(JSON.parse(JSON.stringify(record))), { ok: true, record })
    assert.equal(happenedBefore(records[0]!, records[1]!), true)
    assert.equal(happenedBefore(records[1]!, records[0]!), false)
  })

  it('refuses a misspelt field, an unknown kind, a clock stamped by another device and a row without its value, in words', () => {
    const [write] = sampleRecords()
    const cases: [unknown, RegExp][] = [
      [{ ...write, vaule: '1' }, /unknown field "vaule"/u],
      [{ ...write, kind: 'teleport' }, /kind/u],
      [
        { ...write, hlc: write!.hlc.replace(/laptop$/u, 'desktop') },
        /hlc: the clock must be stamped by the record's own device/u,
      ],
      [{ ...write, row: { subject: 'payments', property: 'port', valueWithheld: true } }, /row/u],
      [{ ...write, seen: { 'Bad Device': write!.hlc } }, /seen/u],
    ]
    for (const [value, pattern] of cases) {
      const parsed = parseChangeRecord(value)
      assert.equal(parsed.ok, false)
      if (!parsed.ok) assert.match(parsed.reason, pattern)
    }
  })
})
