/**
 * The store's sync log (store/sync-log-store.ts, store/sync-recorder.ts) on a real file, both drivers: nothing is
 * recorded while sync is off; turning it on writes the library as a snapshot that merges (sync/merge.ts) back to the
 * same current facts; then a write, a supersede, a forget and a pin each append exactly one valid record in the
 * change's own transaction (a change that fails leaves no record, and a record that fails leaves no change);
 * credentials never enter the log and other sensitive values leave the machine only on opt-in; receiving other
 * devices' records is idempotent by operation id and atomic with its cursor.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { parseChangeRecord } from '../src/sync/change-record.schema.ts'
import type { ChangeRecord } from '../src/sync/change-record.ts'
import { mergeRecords, slotId } from '../src/sync/merge.ts'
import type { StoreSet } from '../src/store/store-set.ts'
import { canonicalValue } from '../src/text/normalize.ts'
import type { Fact } from '../src/types.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { DRIVERS, expectKind, openMemory, write, writeFact, type MemoryHandle } from './helpers/store.ts'
import { SimDevice, slot } from './helpers/sync-devices.ts'
import { storesOf } from './helpers/vectors.ts'

const BILLING = { key: '/home/ada/src/billing-api', name: 'billing-api' }

for (const driver of DRIVERS) {
  describe(`the store's sync log (${driver})`, () => {
    let h: MemoryHandle
    let stores: StoreSet
    beforeEach(() => {
      h = openMemory(driver, new FakeClock('2026-03-01T09:00:00.000Z'))
      stores = storesOf(h.memory)
    })
    afterEach(() => {
      h.dispose()
    })

    const ownCount = (): number => Number(h.db().get('SELECT count(*) AS n FROM sync_own_records')?.['n'])
    /** Run a change and return the records it appended, each checked against the record schema. */
    const appended = (change: () => unknown): ChangeRecord[] => {
      const before = stores.sync.ownLog().length
      h.clock.advance(1000)
      change()
      const added = stores.sync.ownLog().slice(before)
      for (const record of added)
        assert.equal(
          parseChangeRecord(JSON.parse(JSON.stringify(record))).ok,
          true,
          JSON.stringify(parseChangeRecord(record)),
        )
      return added
    }

    it('names this device with a stable id and the host name until the user names it', () => {
      const device = stores.sync.device()
      assert.match(device.id, /^[0-9a-f]{16}$/u)
      assert.ok(device.name.length > 0)
      stores.sync.setDeviceName('  work laptop ')
      assert.deepEqual(stores.sync.device(), { id: device.id, name: 'work laptop' })
      assert.throws(() => {
        stores.sync.setDeviceName(' ')
      }, RangeError)
    })

    it('records nothing while sync is off', () => {
      const fact = writeFact(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' })
      writeFact(h.memory, h.config, {
        subject: 'billing-api',
        property: 'port',
        value: '7802',
        evidence: 'explicit_user',
      })
      stores.pins.setPin(fact.id, h.clock.iso())
      h.memory.forgetById(fact.id)
      assert.equal(stores.sync.recording(), false)
      assert.equal(ownCount(), 0)
    })

    it('turning sync on writes a snapshot that merges back to the same current facts, pins and forgets', async () => {
      writeFact(h.memory, h.config, {
        subject: 'billing-api',
        property: 'port',
        value: '7801',
        evidence: 'explicit_user',
      })
      writeFact(h.memory, h.config, {
        subject: 'billing-api',
        property: 'port',
        value: '7802',
        evidence: 'explicit_user',
      })
      writeFact(h.memory, h.config, {
        subject: 'shop-web',
        property: 'owner',
        value: 'payments team',
        evidence: 'explicit_user',
      })
      expectKind(
        write(h.memory, h.config, { subject: 'shop-web', property: 'owner', value: 'growth team' }),
        'conflict',
      )
      const pinned = writeFact(h.memory, h.config, {
        subject: 'linter',
        property: 'tool',
        value: 'eslint',
        project: BILLING,
      })
      stores.pins.setPin(pinned.id, h.clock.iso())
      writeFact(h.memory, h.config, { subject: 'languages', property: 'spoken', value: 'English', multi: true })
      writeFact(h.memory, h.config, { subject: 'languages', property: 'spoken', value: 'French', multi: true })
      const gone = writeFact(h.memory, h.config, { subject: 'editor', property: 'preferred', value: 'vim' })
      h.memory.forgetById(gone.id)

      const start = await stores.sync.enableSync(h.clock.iso())
      assert.equal(start.started, true)
      const log = stores.sync.ownLog()
      assert.equal(start.records, log.length)
      assert.deepEqual(
        log.map((record) => record.kind).sort(),
        ['forget', 'pin', ...Array<string>(6).fill('write')].sort(),
      )
      for (const record of log) assert.equal(parseChangeRecord(record).ok, true)
      assert.deepEqual(
        await stores.sync.enableSync(h.clock.iso()),
        { started: false, records: 0 },
        'a second switch-on writes nothing',
      )

      const merged = mergeRecords(log)
      const current = currentFacts(h)
      const fromStore = current
        .map(
          (fact) =>
            `${fact.entityKey}|${fact.predicateKey}|${canonicalValue(fact.value)}|${fact.status}|${fact.pinnedAt ?? ''}`,
        )
        .sort()
      const fromMerge = merged.slots
        .flatMap((entry) =>
          entry.current.map(
            (value) =>
              `${entry.slot.entity}|${entry.slot.predicate}|${value.value}|${value.status}|${value.pinnedAt ?? ''}`,
          ),
        )
        .sort()
      assert.deepEqual(fromMerge, fromStore)
      assert.equal(merged.slots.filter((entry) => entry.conflict).length, 1)
      assert.equal(merged.tombstones.length, 1)
      const stored = h
        .db()
        .all('SELECT kind, key FROM tombstones')
        .map((row) => `${String(row['kind'])}:${String(row['key'])}`)
        .sort()
      assert.deepEqual(merged.storeTombstones.map((key) => `${key.kind}:${key.key}`).sort(), stored)
    })

    describe('with sync on', () => {
      beforeEach(async () => {
        await stores.sync.enableSync(h.clock.iso())
      })

      it('a write leaves one record with its full row and the clock of this device', () => {
        const [record, ...more] = appended(() =>
          writeFact(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801', project: BILLING }),
        )
        assert.deepEqual(more, [])
        assert.ok(record?.kind === 'write')
        assert.equal(record.device, stores.sync.device().id)
        assert.ok(record.hlc.startsWith(String(Date.parse(h.clock.iso()))))
        assert.deepEqual(record.slot, {
          entity: 'billing api',
          predicate: 'port',
          qualifiers: '{}',
          project: BILLING.key,
        })
        assert.equal(record.value, '7801')
        assert.equal(record.row.value, '7801')
        assert.equal(record.row.scope, `project:${BILLING.key}`)
        assert.deepEqual(record.ends, [])
      })

      it('a supersede leaves one write record that ends the old value, and clocks only rise', () => {
        const first = appended(() =>
          writeFact(h.memory, h.config, {
            subject: 'billing-api',
            property: 'port',
            value: '7801',
            evidence: 'explicit_user',
          }),
        )
        const second = appended(() =>
          writeFact(h.memory, h.config, {
            subject: 'billing-api',
            property: 'port',
            value: '7802',
            evidence: 'explicit_user',
          }),
        )
        assert.equal(second.length, 1)
        assert.ok(second[0]?.kind === 'write')
        assert.deepEqual(second[0].ends, [{ value: '7801', as: 'superseded' }])
        assert.ok((first[0]?.hlc ?? '') < second[0].hlc)
      })

      it('a forget leaves one record with the tombstones the store wrote', () => {
        const fact = writeFact(h.memory, h.config, {
          subject: 'editor',
          property: 'preferred',
          value: 'vim',
          quote: 'I use vim',
        })
        const [record, ...more] = appended(() => h.memory.forgetById(fact.id))
        assert.deepEqual(more, [])
        assert.ok(record?.kind === 'forget')
        assert.equal(record.value, 'vim')
        const stored = h
          .db()
          .all('SELECT kind, key FROM tombstones ORDER BY id')
          .map((row) => ({ kind: String(row['kind']), key: String(row['key']) }))
        assert.deepEqual(record.tombstones, stored)
      })

      it('a pin and an unpin each leave one record; a pin that changes nothing leaves none', () => {
        const fact = writeFact(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' })
        const at = h.clock.iso()
        const [pin, ...more] = appended(() => stores.pins.setPin(fact.id, at))
        assert.deepEqual(more, [])
        assert.ok(pin?.kind === 'pin')
        assert.equal(pin.pinnedAt, at)
        assert.deepEqual(
          appended(() => stores.pins.setPin(fact.id, at)),
          [],
        )
        const [unpin] = appended(() => stores.pins.setPin(fact.id, null))
        assert.ok(unpin?.kind === 'pin')
        assert.equal(unpin.pinnedAt, null)
      })

      it('a change that fails inside its transaction leaves no record, and a record that fails leaves no change', () => {
        const before = ownCount()
        assert.throws(
          () =>
            stores.db.transaction(() => {
              writeFact(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' })
              throw new Error('disk full')
            }),
          /disk full/u,
        )
        assert.equal(ownCount(), before)
        assert.equal(stores.facts.currentFactCount(), 0)
        h.db().run(
          "CREATE TRIGGER refuse_records BEFORE INSERT ON sync_own_records BEGIN SELECT RAISE(ABORT, 'log refused'); END",
        )
        const refused = write(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' })
        assert.ok(refused.kind !== 'saved', JSON.stringify(refused))
        assert.match(JSON.stringify(refused), /internal_error/u)
        assert.equal(stores.facts.currentFactCount(), 0, 'the write rolled back with its record')
        h.db().run('DROP TRIGGER refuse_records')
        writeFact(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' })
        assert.equal(ownCount(), before + 1)
      })

      it('never records a credential; other sensitive values leave the machine only on opt-in', () => {
        const token = write(h.memory, h.reconfigure({ refuseCredentials: false }), {
          subject: 'deploy',
          property: 'api token',
          value: 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB',
        })
        assert.ok(token.kind === 'saved' && token.fact.sensitivity === 'credential', JSON.stringify(token))
        stores.pins.setPin(token.fact.id, h.clock.iso())
        h.memory.forgetById(token.fact.id)
        assert.equal(ownCount(), 0)
        const mail = writeFact(h.memory, h.config, {
          subject: 'ada',
          property: 'email',
          value: 'ada@example.com',
          evidence: 'explicit_user',
        })
        assert.equal(mail.sensitivity, 'email')
        writeFact(h.memory, h.config, {
          subject: 'ada',
          property: 'email',
          value: 'ada@work.example',
          evidence: 'explicit_user',
        })
        assert.equal(ownCount(), 2, 'kept on this machine')
        assert.deepEqual(stores.sync.ownLog(), [])
        assert.doesNotMatch(JSON.stringify(stores.sync.ownLog()), /example/u)
        assert.equal(stores.sync.pending(), 0, 'nothing waits to leave')
        stores.sync.setIncludeSensitive(true)
        assert.equal(stores.sync.pending(), 2, 'opted in, both wait to be sealed')
        assert.deepEqual(
          stores.sync.ownLog().map((record) => (record.kind === 'write' ? [record.value, record.ends] : [])),
          [
            ['ada@example.com', []],
            ['ada@work.example', [{ value: 'ada@example.com', as: 'superseded' }]],
          ],
        )
      })

      it('a plain value that ends a sensitive one leaves the machine without naming it, unless opted in', () => {
        writeFact(h.memory, h.config, {
          subject: 'ada',
          property: 'contact',
          value: 'ada@example.com',
          evidence: 'explicit_user',
        })
        writeFact(h.memory, h.config, {
          subject: 'ada',
          property: 'contact',
          value: 'on slack',
          evidence: 'explicit_user',
        })
        const shipped = stores.sync.ownLog()
        assert.deepEqual(
          shipped.map((record) => (record.kind === 'write' ? [record.value, record.ends] : [])),
          [['on slack', []]],
        )
        stores.sync.setIncludeSensitive(true)
        assert.deepEqual(
          stores.sync.ownLog().at(-1)?.kind === 'write'
            ? (stores.sync.ownLog().at(-1) as { ends: unknown }).ends
            : undefined,
          [{ value: 'ada@example.com', as: 'superseded' }],
        )
      })

      it('own records carry what this device has seen of the others', () => {
        const desktop = new SimDevice('desktop', Date.parse('2026-03-01T08:00:00.000Z'))
        const made = desktop.write(slot('billing api'), '7801')
        stores.sync.receive([made], { desktop: 1 })
        const [record] = appended(() =>
          writeFact(h.memory, h.config, {
            subject: 'billing-api',
            property: 'port',
            value: '7802',
            evidence: 'explicit_user',
          }),
        )
        assert.deepEqual(record?.seen, { desktop: made.hlc })
      })
    })

    it("keeps other devices' records once each, with the cursor, and names the slots they touch", () => {
      const desktop = new SimDevice('desktop', Date.parse('2026-03-01T10:00:00.000Z'))
      const records = [
        desktop.write(slot('billing api'), '7801'),
        desktop.write(slot('billing api'), '7802'),
        desktop.pin(slot('shop web', 'owner'), 'ops', '2026-03-01T10:00:00.000Z'),
      ]
      const first = stores.sync.receive(records, { desktop: 1 })
      assert.equal(first.fresh, 3)
      assert.equal(first.changedSlots, 1, 'the port slot holds the value; a pin of a value not here changes nothing')
      assert.deepEqual(
        first.touched.map(slotId).sort(),
        [slotId(slot('billing api')), slotId(slot('shop web', 'owner'))].sort(),
      )
      const again = stores.sync.receive([...records].reverse(), { desktop: 2 })
      assert.equal(again.fresh, 0)
      assert.deepEqual(again.touched, [])
      assert.equal(stores.sync.receivedRecords().length, 3)
      assert.deepEqual(
        stores.sync.receivedRecords().map((record) => record.op),
        records.map((record) => record.op),
      )
      assert.deepEqual(stores.sync.cursor(), { desktop: 2 })
      const own = {
        ...records[0],
        op: `${stores.sync.device().id}.x-000001`,
        device: stores.sync.device().id,
      } as ChangeRecord
      assert.equal(stores.sync.receive([own], { desktop: 2 }).fresh, 0, "this device's own records are not received")
      assert.equal(stores.facts.currentFactCount(), 1, 'the desktop corrected its port; the pin names no value here')
    })

    it('a throw before receiving commits leaves the records and the cursor as they were', () => {
      const desktop = new SimDevice('desktop', Date.parse('2026-03-01T10:00:00.000Z'))
      const kept = desktop.write(slot('billing api'), '7801')
      stores.sync.receive([kept], { desktop: 1 })
      const more = [desktop.write(slot('billing api'), '7802'), desktop.write(slot('shop web', 'owner'), 'ops')]
      assert.throws(
        () =>
          stores.db.transaction(() => {
            stores.sync.receive(more, { desktop: 2 })
            throw new Error('killed')
          }),
        /killed/u,
      )
      // A record that cannot be stored, after one that could: the whole call rolls back.
      const broken = {
        ...more[1],
        row: { ...(more[1] as { row: object }).row, confidence: 1n },
      } as unknown as ChangeRecord
      assert.throws(() => stores.sync.receive([more[0] as ChangeRecord, broken], { desktop: 2 }), /BigInt/u)
      assert.deepEqual(
        stores.sync.receivedRecords().map((record) => record.op),
        [kept.op],
      )
      assert.deepEqual(stores.sync.cursor(), { desktop: 1 })
      assert.equal(stores.sync.receive(more, { desktop: 2 }).fresh, 2, 'the same files read again are fresh')
    })

    it('moves the published watermark forward only', () => {
      assert.equal(stores.sync.publishedThrough(), null)
      stores.sync.markPublished('1772359200000-000002-aaaa')
      stores.sync.markPublished('1772359200000-000001-aaaa')
      assert.equal(stores.sync.publishedThrough(), '1772359200000-000002-aaaa')
    })
  })
}

/** The store's current facts (active and conflict), read on the probe connection. */
function currentFacts(h: MemoryHandle): Fact[] {
  const ids = h
    .db()
    .all("SELECT id FROM facts WHERE status IN ('active', 'conflict') ORDER BY id")
    .map((row) => Number(row['id']))
  return storesOf(h.memory).facts.getFacts(ids)
}
