/**
 * Team memory as the runtime drives it (runtime.ts, team/team-memory.ts), on a real store on both drivers, a real git
 * checkout and a fake clock: turning a project on with no sync target turns recording on and writes the project's
 * facts into `<root>/.fact-memory/` at once; a later project write follows once writes pause; a sync target set and
 * removed again leaves team memory running and recording on; turning the project off with sync off stops recording.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, it } from 'node:test'
import { configWith, type Config } from '../src/config.ts'
import { MemoryRuntime } from '../src/runtime.ts'
import type { DriverName } from '../src/store/connection.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { until } from './helpers/poll.ts'
import { DRIVERS, removeDir, tempDir, writeFact } from './helpers/store.ts'
import { segmentsOf } from './helpers/sync-hosts.ts'

/** The settings in force: UTC, and what the step changes. */
const settings = (overrides: Partial<Config> = {}): Config => configWith({ storeTimezone: 'UTC', ...overrides })

describe('team memory in the runtime', () => {
  const stops: (() => void)[] = []
  afterEach(() => {
    while (stops.length > 0) stops.pop()?.()
  })
  /** A runtime on its own home, configured, its store open; stopped and removed after the test. */
  const boot = (driver: DriverName = 'better-sqlite3') => {
    const root = tempDir()
    const clock = new FakeClock()
    const silent = () => undefined
    const runtime = new MemoryRuntime({
      store: { driver },
      clock,
      logger: { info: silent, warn: silent },
      home: () => ({ userHome: root, dshHome: root }),
      registerTools: () => silent,
    })
    stops.push(() => {
      runtime.stop()
      removeDir(root)
    })
    runtime.reconfigure(settings())
    return { root, clock, runtime }
  }

  for (const driver of DRIVERS) {
    it(`runs with and without a sync target, and stops recording only when nothing needs it (${driver})`, async () => {
      const { root, clock, runtime } = boot(driver)
      const checkout = join(root, 'shop')
      mkdirSync(join(checkout, 'src'), { recursive: true })
      execFileSync('git', ['init', '--quiet', checkout])
      const opened = runtime.memory.storeSet()
      assert.ok('stores' in opened)
      const { sync } = opened.stores
      const folder = join(checkout, '.fact-memory')

      const on = await runtime.team.setShared(join(checkout, 'src'), true)
      assert.ok(on.ok && on.round?.ok === true, JSON.stringify(on))
      assert.equal(on.folder, folder)
      assert.equal(sync.recording(), true, 'sharing a project turns recording on, with no sync target')
      assert.equal(runtime.sync.status()?.state, 'off')
      const device = sync.device().id
      const put = (value: string): void => {
        writeFact(runtime.memory, runtime.config(), {
          subject: 'shop api',
          property: 'port',
          value,
          scope: `project:${on.project.key}`,
        })
      }
      put('8080')
      clock.advance(3_000)
      await until(() => segmentsOf(folder, device).length >= 1, 'the project write did not reach the team folder')

      runtime.reconfigure(settings({ syncTarget: join(root, 'personal') }))
      const synced = await runtime.sync.syncNow()
      assert.ok(synced.ran && synced.report.ok, JSON.stringify(synced))
      runtime.reconfigure(settings({ syncTarget: '' }))
      await until(() => runtime.sync.status()?.state === 'off', 'sync did not stop')
      // The supervisor settles in the background: recording must not drop meanwhile (it did, before keepsRecording).
      const dropped = await until(() => !sync.recording(), 'recording dropped', 2_000).then(
        () => true,
        () => false,
      )
      assert.equal(dropped, false, 'a shared project keeps recording on when sync stops')
      const written = segmentsOf(folder, device).length
      put('8081')
      clock.advance(3_000)
      await until(() => segmentsOf(folder, device).length > written, 'team memory stopped with sync')
      assert.deepEqual(
        runtime.team.status().map((entry) => [entry.folder, entry.lastRound?.outcome]),
        [[folder, 'ok']],
      )

      const off = await runtime.team.setShared(checkout, false)
      assert.ok(off.ok && !off.shared, JSON.stringify(off))
      assert.equal(sync.recording(), false, 'nothing needs recording once the last project is off and sync is off')
      assert.deepEqual(runtime.team.status(), [])
    })
  }

  it('refuses a folder outside any git repository in words, changing nothing', async () => {
    const { root, runtime } = boot()
    const refused = await runtime.team.setShared(root, true)
    assert.deepEqual(refused.ok ? 'shared' : [refused.code, /not inside a git repository/u.test(refused.message)], [
      'invalid_path',
      true,
    ])
    assert.deepEqual(runtime.team.status(), [])
  })
})
