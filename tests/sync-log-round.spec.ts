/**
 * The store's sync log driven by a real sync round (sync/sync-round.ts) through a real sync folder, both drivers: two
 * stores, each with sync on; what one writes, pins and forgets is sealed once, published, and kept by the other once
 * (a second round reads nothing new) and applied, so the other holds the same library and knows the sender's name,
 * with the cursor and the watermark where the round left them.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { SyncFolder } from '../src/sync/sync-folder.ts'
import { runSyncRound, type RoundTarget } from '../src/sync/sync-round.ts'
import type { StoreSet } from '../src/store/store-set.ts'
import type { ChangeRecord } from '../src/sync/change-record.ts'
import type { SyncLogPort } from '../src/sync/sync-log-port.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { DRIVERS, openMemory, removeDir, tempDir, writeFact, type MemoryHandle } from './helpers/store.ts'
import { libraryOf } from './helpers/sync-stores.ts'
import { storesOf } from './helpers/vectors.ts'

const OPTIONS = { compactAfterSegments: 64 }

/** The port as a round sees it, refusing a read of the whole own log and keeping what the reads after the mark gave. */
function watched(port: SyncLogPort, handed: ChangeRecord[][]): SyncLogPort {
  return new Proxy(port, {
    get(held, key) {
      if (key === 'ownLog')
        return () => {
          throw new Error('the round read the whole own log')
        }
      if (key === 'ownLogAfter')
        return (hlc: string | null) => {
          const records = held.ownLogAfter(hlc)
          handed.push([...records])
          return records
        }
      const value: unknown = Reflect.get(held, key, held)
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(held) : value
    },
  })
}

for (const driver of DRIVERS) {
  describe(`the store's sync log in a sync round (${driver})`, () => {
    let laptop: MemoryHandle
    let desktop: MemoryHandle
    let folder: string
    beforeEach(() => {
      laptop = openMemory(driver, new FakeClock('2026-03-01T09:00:00.000Z'))
      desktop = openMemory(driver, new FakeClock('2026-03-01T09:00:05.000Z'))
      folder = tempDir('fact-memory-sync-')
    })
    afterEach(() => {
      laptop.dispose()
      desktop.dispose()
      removeDir(folder)
    })

    async function target(stores: StoreSet, now: string, root = folder): Promise<RoundTarget> {
      const device = stores.sync.device()
      const opened = await SyncFolder.open(root, device.id, device.name, undefined, now)
      assert.ok(opened.ok)
      return { kind: 'folder', folder: opened.folder }
    }

    /** Both stores with sync on. */
    async function bothSyncing(): Promise<{ a: StoreSet; b: StoreSet }> {
      const a = storesOf(laptop.memory)
      const b = storesOf(desktop.memory)
      await a.sync.enableSync(laptop.clock.iso())
      await b.sync.enableSync(desktop.clock.iso())
      return { a, b }
    }

    /** The laptop states the ports of `count` services, a second apart. */
    function writeServices(count: number): void {
      for (let index = 1; index <= count; index += 1) {
        const value = String(7800 + index)
        laptop.clock.advance(1000)
        writeFact(laptop.memory, laptop.config, { subject: `service ${value}`, property: 'port', value })
      }
    }

    /** Every record of `stores` in the folder, as another device reads it. */
    async function publishedBy(stores: StoreSet, root = folder): Promise<ChangeRecord[]> {
      const opened = await SyncFolder.open(root, 'reader', 'reader', undefined, laptop.clock.iso())
      assert.ok(opened.ok)
      const read = await opened.folder.readPending({})
      return read.records.filter((record) => record.device === stores.sync.device().id)
    }

    it('seals what one store recorded once, and the other keeps it once', async () => {
      const a = storesOf(laptop.memory)
      const b = storesOf(desktop.memory)
      writeFact(laptop.memory, laptop.config, { subject: 'billing-api', property: 'owner', value: 'payments team' })
      await a.sync.enableSync(laptop.clock.iso())
      await b.sync.enableSync(desktop.clock.iso())
      laptop.clock.advance(1000)
      const port = writeFact(laptop.memory, laptop.config, {
        subject: 'billing-api',
        property: 'port',
        value: '7801',
        evidence: 'explicit_user',
      })
      a.pins.setPin(port.id, laptop.clock.iso())
      laptop.clock.advance(1000)
      writeFact(laptop.memory, laptop.config, {
        subject: 'billing-api',
        property: 'port',
        value: '7802',
        evidence: 'explicit_user',
      })
      const gone = writeFact(laptop.memory, laptop.config, { subject: 'editor', property: 'preferred', value: 'vim' })
      laptop.memory.forgetById(gone.id)
      const sent = a.sync.ownLog()
      assert.deepEqual(
        sent.map((record) => record.kind),
        ['write', 'write', 'pin', 'write', 'write', 'forget'],
      )

      const fromLaptop = await runSyncRound(a.sync, await target(a, laptop.clock.iso()), OPTIONS)
      assert.deepEqual(
        { ok: fromLaptop.ok, sent: fromLaptop.sent, problems: fromLaptop.problems },
        { ok: true, sent: sent.length, problems: [] },
      )
      assert.equal(a.sync.publishedThrough(), sent.at(-1)?.hlc)
      assert.equal(
        (await runSyncRound(a.sync, await target(a, laptop.clock.iso()), OPTIONS)).sent,
        0,
        'nothing is sealed twice',
      )

      const atDesktop = await runSyncRound(b.sync, await target(b, desktop.clock.iso()), OPTIONS)
      assert.deepEqual({ ok: atDesktop.ok, received: atDesktop.received }, { ok: true, received: sent.length })
      assert.deepEqual(b.sync.receivedRecords(), sent)
      assert.deepEqual(b.sync.cursor(), { [a.sync.device().id]: 1 })
      assert.deepEqual(libraryOf(b), libraryOf(a), 'the round applied what the laptop holds')
      assert.deepEqual(b.sync.peerNames(), { [a.sync.device().id]: a.sync.device().name }, 'and kept its name')
      assert.equal(
        (await runSyncRound(b.sync, await target(b, desktop.clock.iso()), OPTIONS)).received,
        0,
        'a second round reads nothing new',
      )
      desktop.clock.advance(1000)
      const [answer] = (() => {
        writeFact(desktop.memory, desktop.config, {
          subject: 'billing-api',
          property: 'port',
          value: '7803',
          evidence: 'explicit_user',
        })
        return b.sync.ownLog()
      })()
      assert.deepEqual(
        answer?.seen,
        { [a.sync.device().id]: sent.at(-1)?.hlc },
        "the desktop's next change carries what it has seen of the laptop",
      )
    })

    it('reads only the own records after the published mark, and keeps the pending count as records come', async () => {
      const a = storesOf(laptop.memory)
      await a.sync.enableSync(laptop.clock.iso())
      for (const value of ['7801', '7802', '7803']) {
        laptop.clock.advance(1000)
        writeFact(laptop.memory, laptop.config, { subject: 'billing-api', property: 'port', value })
      }
      const all = a.sync.ownLog()
      assert.equal(a.sync.pending(), all.length, 'every record waits to be sealed')
      const handed: ChangeRecord[][] = []
      const port = watched(a.sync, handed)

      const first = await runSyncRound(port, await target(a, laptop.clock.iso()), OPTIONS)
      assert.deepEqual(
        { ok: first.ok, sent: first.sent, problems: first.problems },
        { ok: true, sent: all.length, problems: [] },
      )
      assert.deepEqual(handed.at(-1), all)
      assert.equal(a.sync.pending(), 0)

      const quiet = await runSyncRound(port, await target(a, laptop.clock.iso()), OPTIONS)
      assert.deepEqual({ ok: quiet.ok, sent: quiet.sent }, { ok: true, sent: 0 })
      assert.deepEqual(handed.at(-1), [], 'a quiet round reads no own record')

      laptop.clock.advance(1000)
      writeFact(laptop.memory, laptop.config, { subject: 'editor', property: 'preferred', value: 'vim' })
      assert.equal(a.sync.pending(), 1)
      const next = await runSyncRound(port, await target(a, laptop.clock.iso()), OPTIONS)
      assert.equal(next.sent, 1)
      assert.deepEqual(
        handed.at(-1)?.map((record) => record.kind),
        ['write'],
      )
      assert.equal(a.sync.pending(), 0)
      assert.deepEqual(await publishedBy(a), a.sync.ownLog(), 'the folder holds the whole log once')
    })

    it('publishes none of the records of an import still in its slices, and all that commits afterwards', async () => {
      const { a, b } = await bothSyncing()
      laptop.clock.advance(1000)
      writeFact(laptop.memory, laptop.config, { subject: 'editor', property: 'preferred', value: 'vim' })
      let release = (): void => undefined
      const gate = new Promise<void>((resolve) => {
        release = resolve
      })
      let importing: Promise<unknown> | undefined
      const plain = (await target(a, laptop.clock.iso())) as Extract<RoundTarget, { kind: 'folder' }>
      // The import opens between the round's receiving and its sealing, writes a slice, and fails later.
      const racing = Object.create(plain.folder) as SyncFolder
      racing.ownHighWater = () => {
        importing ??= a.db.transactionInSlices(async (slice) => {
          slice(() => {
            laptop.clock.advance(1000)
            writeFact(laptop.memory, laptop.config, { subject: 'billing-api', property: 'port', value: '7801' })
          })
          await gate
          throw new Error('the import failed')
        })
        return plain.folder.ownHighWater()
      }
      const during = await runSyncRound(a.sync, { kind: 'folder', folder: racing }, OPTIONS)
      assert.ok(importing !== undefined, 'the import was open during the round')
      assert.equal(during.sent, 0, 'nothing is sealed while a change is unfinished')
      release()
      await assert.rejects(importing, /the import failed/u)
      assert.doesNotMatch(JSON.stringify(await publishedBy(a)), /7801/u, 'the rolled-back slice never left the machine')

      laptop.clock.advance(1000)
      writeFact(laptop.memory, laptop.config, { subject: 'shell', property: 'preferred', value: 'zsh' })
      const after = await runSyncRound(a.sync, await target(a, laptop.clock.iso()), OPTIONS)
      assert.deepEqual({ ok: after.ok, sent: after.sent }, { ok: true, sent: a.sync.ownLog().length })
      assert.deepEqual(await publishedBy(a), a.sync.ownLog(), 'what committed is published, once')
      await runSyncRound(b.sync, await target(b, desktop.clock.iso()), OPTIONS)
      assert.deepEqual(libraryOf(b), libraryOf(a))
    })

    it('reads each target from its own cursor: a target switched to is read from its start', async () => {
      const { a, b } = await bothSyncing()
      const first = folder
      const second = tempDir('fact-memory-sync-')
      try {
        for (const value of ['7801', '7802', '7803']) {
          laptop.clock.advance(1000)
          writeFact(laptop.memory, laptop.config, { subject: 'billing-api', property: 'port', value })
          await runSyncRound(a.sync.forTarget(first), await target(a, laptop.clock.iso(), first), OPTIONS)
        }
        await runSyncRound(b.sync.forTarget(first), await target(b, desktop.clock.iso(), first), OPTIONS)
        const laptopId = a.sync.device().id
        assert.deepEqual(b.sync.forTarget(first).cursor(), { [laptopId]: 3 })

        // The laptop moves to another folder (a fresh snapshot there, as the supervisor does), then writes again.
        a.sync.disableSync()
        laptop.clock.advance(1000)
        await a.sync.enableSync(laptop.clock.iso())
        await runSyncRound(a.sync.forTarget(second), await target(a, laptop.clock.iso(), second), OPTIONS)
        laptop.clock.advance(1000)
        writeFact(laptop.memory, laptop.config, { subject: 'editor', property: 'preferred', value: 'vim' })
        await runSyncRound(a.sync.forTarget(second), await target(a, laptop.clock.iso(), second), OPTIONS)

        const moved = await runSyncRound(
          b.sync.forTarget(second),
          await target(b, desktop.clock.iso(), second),
          OPTIONS,
        )
        assert.ok(moved.received > 0, 'the second folder is read from its first segment')
        assert.deepEqual(libraryOf(b), libraryOf(a))
        assert.deepEqual(b.sync.forTarget(second).cursor(), { [laptopId]: 2 })
        assert.deepEqual(b.sync.forTarget(first).cursor(), { [laptopId]: 3 }, 'the first folder keeps its own cursor')
      } finally {
        removeDir(second)
      }
    })

    it('seals a long run of records in segments of a bounded size, each published as it lands', async () => {
      const { a, b } = await bothSyncing()
      writeServices(5)
      const all = a.sync.ownLog()
      const opened = (await target(a, laptop.clock.iso())) as Extract<RoundTarget, { kind: 'folder' }>
      // A crash while the second segment is written: the first stays sealed and published.
      const failing = Object.create(opened.folder) as SyncFolder
      let appends = 0
      failing.append = (records) => {
        appends += 1
        if (appends === 2) return Promise.reject(Object.assign(new Error('no space'), { code: 'ENOSPC' }))
        return opened.folder.append(records)
      }
      const broken = await runSyncRound(a.sync, { kind: 'folder', folder: failing }, { ...OPTIONS, sealSlice: 2 })
      assert.deepEqual({ ok: broken.ok, sent: broken.sent }, { ok: false, sent: 2 })
      assert.equal(a.sync.publishedThrough(), all[1]?.hlc, 'the first segment is published')
      assert.equal(a.sync.pending(), all.length - 2)

      const round = await runSyncRound(a.sync, await target(a, laptop.clock.iso()), { ...OPTIONS, sealSlice: 2 })
      assert.deepEqual({ ok: round.ok, sent: round.sent }, { ok: true, sent: all.length - 2 })
      assert.equal(await opened.folder.ownSegmentCount(), Math.ceil(all.length / 2), 'at most two records a segment')
      assert.deepEqual(await publishedBy(a), all, 'every record sealed once, in order')
      await runSyncRound(b.sync, await target(b, desktop.clock.iso()), OPTIONS)
      assert.deepEqual(libraryOf(b), libraryOf(a))
    })

    it('receives a long file in slices, the cursor moving only once the whole file is kept', async () => {
      const { a, b } = await bothSyncing()
      writeServices(5)
      await runSyncRound(a.sync, await target(a, laptop.clock.iso()), OPTIONS)
      const sent = a.sync.ownLog()
      // The desktop's process dies during its second slice: the first is kept, the cursor has not moved.
      const calls: number[] = []
      const dying = new Proxy(b.sync, {
        get(held, key) {
          if (key === 'receive')
            return (...args: Parameters<typeof held.receive>) => {
              calls.push(args[0].length)
              if (calls.length === 2) throw new Error('killed')
              return held.receive(...args)
            }
          const value: unknown = Reflect.get(held, key, held)
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(held) : value
        },
      })
      const died = await runSyncRound(dying, await target(b, desktop.clock.iso()), { ...OPTIONS, receiveSlice: 2 })
      assert.equal(died.ok, false)
      assert.deepEqual(calls, [2, 2], 'records are handed over two at a time')
      assert.deepEqual(b.sync.cursor(), {}, 'the cursor waits for the whole file')
      assert.equal(b.sync.receivedRecords().length, 2)

      const again = await runSyncRound(b.sync, await target(b, desktop.clock.iso()), { ...OPTIONS, receiveSlice: 2 })
      assert.deepEqual({ ok: again.ok, received: again.received }, { ok: true, received: sent.length - 2 })
      assert.deepEqual(b.sync.cursor(), { [a.sync.device().id]: 1 })
      assert.deepEqual(libraryOf(b), libraryOf(a))
    })
  })
}
