/**
 * The sync supervisor as the runtime drives it (runtime.ts, sync/sync-supervisor.ts), on a real store on both
 * drivers, a real sync folder and a fake clock: a valid target turns recording on and sends the library, a write is
 * noted and sent once writes pause, an empty target stops the service and the recording, and a new target receives
 * the whole library afresh; `syncDeviceName` names the device in the status and in its device.json, empty follows the
 * host name.
 */
import { afterEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { configWith, type Config } from '../src/config.ts'
import { MemoryRuntime } from '../src/runtime.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { until } from './helpers/poll.ts'
import type { DriverName } from '../src/store/connection.ts'
import { DRIVERS, removeDir, tempDir, writeFact } from './helpers/store.ts'
import { segmentsOf } from './helpers/sync-hosts.ts'

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined }

describe('the sync supervisor follows the settings', () => {
  const cleanup: (() => void)[] = []
  afterEach(() => {
    for (const step of cleanup.splice(0)) step()
  })

  /**
   * A runtime on a fresh data directory whose credential store answers `passphrase()` for the sync passphrase (an
   * Error: the store cannot be asked, as in a headless run).
   */
  function startRuntime(driver: DriverName, passphrase: () => string | undefined | Error) {
    const root = tempDir()
    const clock = new FakeClock()
    const runtime = new MemoryRuntime({
      clock,
      home: () => ({ dshHome: root, userHome: root }),
      logger: quiet,
      registerTools: () => () => undefined,
      store: { driver },
      resolveCredential: async (name) => {
        const answer = name === 'FACT_MEMORY_SYNC_PASSPHRASE' ? passphrase() : undefined
        if (answer instanceof Error) throw answer
        return answer
      },
    })
    cleanup.push(() => {
      runtime.stop()
      removeDir(root)
    })
    return { root, clock, runtime }
  }

  /** A runtime syncing to a folder that wrote one fact and ran its first round (which must succeed). */
  async function firstRound(driver: DriverName, passphrase: () => string | undefined | Error) {
    const { root, runtime } = startRuntime(driver, passphrase)
    const folder = join(root, 'folder')
    const settings = configWith({ storeTimezone: 'UTC', syncTarget: folder })
    runtime.reconfigure(settings)
    writeFact(runtime.memory, runtime.config(), { subject: 'staging server', property: 'port', value: '8000' })
    const first = await runtime.sync.syncNow()
    assert.ok(first.ran && first.report.ok, JSON.stringify(first))
    return { runtime, folder, settings, first, device: first.status.device.id }
  }

  for (const driver of DRIVERS) {
    it(`starts on a target, sends writes once they pause, stops on an empty target, re-sends to a new one (${driver})`, async () => {
      const { root, clock, runtime } = startRuntime(driver, () => 'pass phrase')
      const first = join(root, 'folder-one')
      const settings = (overrides: Partial<Config>): Config => configWith({ storeTimezone: 'UTC', ...overrides })
      runtime.reconfigure(settings({}))
      const opened = runtime.memory.storeSet()
      assert.ok('stores' in opened)
      const { sync } = opened.stores
      const put = (value: string): void => {
        writeFact(runtime.memory, runtime.config(), { subject: 'staging server', property: 'port', value })
      }
      put('8000')
      assert.equal(sync.recording(), false, 'nothing is recorded while sync is off')
      assert.equal(runtime.sync.status()?.state, 'off')

      runtime.reconfigure(settings({ syncTarget: first }))
      const started = await runtime.sync.syncNow()
      assert.ok(started.ran && started.report.ok, JSON.stringify(started))
      assert.equal(sync.recording(), true)
      assert.equal(started.status.encrypted, true)
      assert.equal(started.status.pending, 0)
      const device = sync.device().id
      const sent = segmentsOf(first, device).length
      assert.ok(sent >= 1, 'the library went out as the first segment')
      assert.equal(started.status.device.name, hostname().trim(), 'unnamed, the device follows the host name')

      runtime.reconfigure(settings({ syncTarget: first, syncDeviceName: ' work\tlaptop \n' }))
      assert.equal(runtime.sync.status()?.device.name, 'work laptop')
      const named = await runtime.sync.syncNow()
      assert.ok(named.ran && named.report.ok, JSON.stringify(named))
      const described = JSON.parse(readFileSync(join(first, 'devices', device, 'device.json'), 'utf8'))
      assert.equal(described.name, 'work laptop', 'the other machines read the name from device.json')
      runtime.reconfigure(settings({ syncTarget: first, syncDeviceName: '' }))
      assert.equal(runtime.sync.status()?.device.name, hostname().trim(), 'an empty name follows the host name again')

      put('8123')
      assert.equal(runtime.sync.status()?.pending, 1, 'the write waits to be sent')
      clock.advance(3_000)
      await until(() => segmentsOf(first, device).length > sent, 'the write was not sent after the debounce')

      runtime.reconfigure(settings({ syncTarget: '' }))
      await until(() => runtime.sync.status()?.state === 'off', 'sync did not stop')
      await until(() => !sync.recording(), 'recording did not stop')
      const refused = await runtime.sync.syncNow()
      assert.equal(refused.ran, false)

      const second = join(root, 'folder-two')
      runtime.reconfigure(settings({ syncTarget: second }))
      const moved = await runtime.sync.syncNow()
      assert.ok(moved.ran && moved.report.ok, JSON.stringify(moved))
      assert.ok(moved.report.sent >= 1, 'the new target received the library afresh')
      assert.equal(moved.status.pending, 0)
      const stopped = await runtime.stopSync(1_000)
      assert.equal(stopped?.finished, true)
    })

    it(`never goes on in plain files when its passphrase cannot be read after it sealed with one (${driver})`, async () => {
      let passphrase: string | undefined | Error = 'pass phrase'
      const { runtime, folder, settings, first, device } = await firstRound(driver, () => passphrase)
      assert.equal(first.status.encrypted, true)
      const sealed = segmentsOf(folder, device)
      assert.ok(sealed.length > 0)

      // A restart whose credential store does not answer yet: the service starts again without a passphrase.
      passphrase = undefined
      runtime.reconfigure({ ...settings, syncIntervalMinutes: 1 })
      writeFact(runtime.memory, runtime.config(), { subject: 'staging server', property: 'port', value: '8123' })
      const refused = await runtime.sync.syncNow()
      assert.ok(refused.ran && !refused.report.ok, JSON.stringify(refused))
      assert.equal(refused.status.problems[0]?.code, 'passphrase')
      assert.match(refused.status.problems[0]?.message ?? '', /nothing is sent in plain files/u)
      assert.deepEqual(segmentsOf(folder, device), sealed, 'nothing was written in plain')

      passphrase = 'pass phrase'
      const healed = await runtime.sync.syncNow()
      assert.ok(healed.ran && healed.report.ok, JSON.stringify(healed))
      assert.equal(healed.report.sent, 1)
      const newest = readFileSync(join(folder, 'devices', device, 'segments', segmentsOf(folder, device).at(-1) ?? ''))
      assert.doesNotMatch(newest.toString('utf8'), /8123/u, 'the change went out encrypted')

      // A run that cannot ask the credential store at all (headless): an encrypted log waits, in words.
      passphrase = new Error('the host credential store is not available')
      runtime.reconfigure({ ...settings, syncIntervalMinutes: 2 })
      writeFact(runtime.memory, runtime.config(), { subject: 'staging server', property: 'port', value: '8124' })
      const waiting = await runtime.sync.syncNow()
      assert.ok(waiting.ran && !waiting.report.ok, JSON.stringify(waiting))
      assert.equal(waiting.status.problems[0]?.code, 'passphrase')
    })

    it(`goes on in plain files when the credential store cannot be asked and its own files are plain (${driver})`, async () => {
      let passphrase: string | undefined | Error
      const { runtime, folder, settings, first, device } = await firstRound(driver, () => passphrase)
      assert.equal(first.status.encrypted, false)
      const sent = segmentsOf(folder, device).length

      passphrase = new Error('the host credential store is not available')
      runtime.reconfigure({ ...settings, syncIntervalMinutes: 1 })
      writeFact(runtime.memory, runtime.config(), { subject: 'staging server', property: 'port', value: '8123' })
      await runtime.sync.syncNow()
      const plain = await runtime.sync.syncNow()
      assert.ok(plain.ran && plain.report.ok, JSON.stringify(plain))
      assert.equal(plain.status.pending, 0)
      assert.equal(
        segmentsOf(folder, device).length,
        sent + 1,
        'a device that syncs plain files keeps syncing without its credential store',
      )
    })
  }
})
