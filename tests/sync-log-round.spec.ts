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
import { FakeClock } from './helpers/fake-clock.ts'
import { DRIVERS, openMemory, removeDir, tempDir, writeFact, type MemoryHandle } from './helpers/store.ts'
import { libraryOf } from './helpers/sync-stores.ts'
import { storesOf } from './helpers/vectors.ts'

const OPTIONS = { compactAfterSegments: 64 }

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

    async function target(stores: StoreSet, now: string): Promise<RoundTarget> {
      const device = stores.sync.device()
      const opened = await SyncFolder.open(folder, device.id, device.name, undefined, now)
      assert.ok(opened.ok)
      return { kind: 'folder', folder: opened.folder }
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
  })
}
