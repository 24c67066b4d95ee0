/**
 * The sync supervisor as the runtime drives it (runtime.ts, sync/sync-supervisor.ts), on a real store on both
 * drivers, a real sync folder and a fake clock: a valid target turns recording on and sends the library, a write is
 * noted and sent once writes pause, an empty target stops the service and the recording, and a new target receives
 * the whole library afresh.
 */
import { afterEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { configWith, type Config } from '../src/config.ts'
import { MemoryRuntime } from '../src/runtime.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { until } from './helpers/poll.ts'
import { DRIVERS, removeDir, tempDir, writeFact } from './helpers/store.ts'
import { segmentsOf } from './helpers/sync-hosts.ts'

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined }

describe('the sync supervisor follows the settings', () => {
  const cleanup: (() => void)[] = []
  afterEach(() => {
    for (const step of cleanup.splice(0)) step()
  })

  for (const driver of DRIVERS) {
    it(`starts on a target, sends writes once they pause, stops on an empty target, re-sends to a new one (${driver})`, async () => {
      const root = tempDir()
      const clock = new FakeClock()
      const runtime = new MemoryRuntime({
        clock,
        home: () => ({ dshHome: root, userHome: root }),
        logger: quiet,
        registerTools: () => () => undefined,
        store: { driver },
        resolveCredential: (name) =>
          Promise.resolve(name === 'FACT_MEMORY_SYNC_PASSPHRASE' ? 'pass phrase' : undefined),
      })
      cleanup.push(() => {
        runtime.stop()
        removeDir(root)
      })
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
  }
})
