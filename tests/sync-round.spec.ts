/**
 * Sync rounds end to end over real files and a real bare git repository, with the in-memory reference of the store's
 * sync log port (tests/helpers/sync-devices.ts): devices that change their libraries and sync now and then through a
 * folder converge, compaction included; through git an offline machine's statement becomes one conflict on both,
 * a correction made after a sync supersedes on both, a forget blocks relearning and a rename propagates; a crash
 * between sealing a segment and noting it sends nothing twice; an unreachable remote fails the round in words.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { GitRemote } from '../src/sync/git-remote.ts'
import { mergeRecords, slotId } from '../src/sync/merge.ts'
import { SyncFolder } from '../src/sync/sync-folder.ts'
import { runSyncRound, type RoundTarget } from '../src/sync/sync-round.ts'
import { seededRandom, SimDevice, slot } from './helpers/sync-devices.ts'
import { removeDir, tempDir } from './helpers/store.ts'

const T0 = Date.parse('2026-03-01T09:00:00.000Z')
const NOW = '2026-03-01T09:00:00.000Z'
const OPTIONS = { compactAfterSegments: 3 }
const PORT = slot('payments')

async function folderTarget(root: string, id: string): Promise<RoundTarget> {
  const opened = await SyncFolder.open(root, id, `${id} machine`, undefined, NOW)
  assert.ok(opened.ok)
  return { kind: 'folder', folder: opened.folder }
}

function standing(device: SimDevice, ref = PORT): string[] {
  const merged = device.state().slots.find((entry) => slotId(entry.slot) === slotId(ref))
  return (merged?.current ?? []).map((entry) => `${entry.value}:${entry.status}:${entry.devices.join('+')}`)
}

describe('sync rounds', () => {
  let root: string
  beforeEach(() => {
    root = tempDir('fact-memory-round-')
  })
  afterEach(() => removeDir(root))

  it('brings three devices that sync now and then through a folder to one library, across compactions', async () => {
    for (const seed of [1, 2, 3]) {
      const folder = join(root, `seed-${seed}`)
      const random = seededRandom(seed)
      const devices = [
        new SimDevice('laptop', T0),
        new SimDevice('desktop', T0 + 3_600_000),
        new SimDevice('container', T0),
      ]
      const targets = await Promise.all(devices.map((device) => folderTarget(folder, device.id)))
      for (let step = 0; step < 60; step += 1) {
        const index = Math.floor(random() * devices.length)
        const device = devices[index] as SimDevice
        device.wall += 1000
        const ref = slot(['svc-a', 'svc-b'][Math.floor(random() * 2)] as string)
        const roll = random()
        if (roll < 0.3) await runSyncRound(device, targets[index] as RoundTarget, OPTIONS)
        else if (roll < 0.85)
          device.write(ref, String(7800 + Math.floor(random() * 4)), random() < 0.7 ? 'explicit_user' : 'observed')
        else if ((device.slotState(ref)?.current.length ?? 0) > 0)
          device.forget(ref, device.slotState(ref)?.current[0]?.value as string)
      }
      for (let round = 0; round < 2; round += 1) {
        for (const [index, device] of devices.entries()) {
          const report = await runSyncRound(device, targets[index] as RoundTarget, OPTIONS)
          assert.deepEqual(report.problems, [])
        }
      }
      const expected = mergeRecords(devices.flatMap((device) => device.log))
      for (const device of devices) assert.deepEqual(device.state(), expected, `seed ${seed}: ${device.id}`)
      assert.ok(readdirSync(join(folder, 'devices', 'laptop', 'snapshots')).length > 0, 'the laptop compacted its log')
    }
  })

  it('sends nothing twice after a crash between sealing a segment and noting it', async () => {
    const laptop = new SimDevice('laptop', T0)
    const target = await folderTarget(root, 'laptop')
    laptop.write(PORT, '7801')
    laptop.write(PORT, '7802')
    // The segment is sealed, then the process dies before the store notes it.
    await target.folder.append(laptop.log)
    laptop.write(PORT, '7803')
    const report = await runSyncRound(laptop, target, { compactAfterSegments: 100 })
    assert.equal(report.sent, 1)
    const ops = readdirSync(join(root, 'devices', 'laptop', 'segments'))
      .flatMap((name) =>
        readFileSync(join(root, 'devices', 'laptop', 'segments', name), 'utf8')
          .split('\n')
          .slice(1, -1),
      )
      .map((line) => JSON.parse(line.slice(17)).op)
    assert.deepEqual(
      ops,
      laptop.log.map((record) => record.op),
    )
  })

  it("removes this device's own stale .tmp- files a kill left, at the start of a round, and nothing else", async () => {
    const laptop = new SimDevice('laptop', T0)
    const target = await folderTarget(root, 'laptop')
    await folderTarget(root, 'desktop')
    const old = new Date(Date.now() - 2 * 3_600_000)
    const left = (path: string, at: Date | undefined): string => {
      const file = join(root, path)
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, 'half a segment')
      if (at !== undefined) utimesSync(file, at, at)
      return path
    }
    const stale = [
      left('devices/laptop/segments/.tmp-0000000001.seg-4242-0a0b0c0d', old),
      left('devices/laptop/snapshots/.tmp-0000000003.snap-4242-0a0b0c0e', old),
      left('devices/laptop/.tmp-device.json-4242-0a0b0c0f', old),
    ]
    const kept = [
      // Young: another process of this device may be writing it right now.
      left('devices/laptop/segments/.tmp-0000000002.seg-4343-0a0b0c10', undefined),
      // Another device's folder is never touched, however old.
      left('devices/desktop/segments/.tmp-0000000001.seg-4444-0a0b0c11', old),
      // Not a temporary name.
      left('devices/laptop/segments/notes.txt', old),
    ]
    laptop.write(PORT, '7801')
    const report = await runSyncRound(laptop, target, OPTIONS)
    assert.deepEqual([report.ok, report.sent, report.problems], [true, 1, []])
    for (const path of stale) assert.equal(existsSync(join(root, path)), false, `${path} is removed`)
    for (const path of kept) assert.equal(existsSync(join(root, path)), true, `${path} stays`)
  })

  it('fails a round whose folder cannot be written, in words, and sends the records once it can', async () => {
    const laptop = new SimDevice('laptop', T0)
    const target = await folderTarget(root, 'laptop')
    const blocker = join(root, 'devices', 'laptop', 'segments')
    writeFileSync(blocker, 'not a folder')
    laptop.write(PORT, '7801')
    const report = await runSyncRound(laptop, target, OPTIONS)
    assert.equal(report.ok, false)
    assert.match(
      report.problems.at(-1) ?? '',
      /^the sync folder failed \(E[A-Z]+\); nothing was lost, the next round tries again$/u,
    )
    assert.equal(laptop.publishedThrough(), null)
    rmSync(blocker)
    assert.deepEqual(await runSyncRound(laptop, target, OPTIONS), {
      received: 0,
      sent: 1,
      compacted: false,
      devices: [],
      problems: [],
      ok: true,
    })
  })

  it("through git: an offline machine's statement is one conflict on both, a later correction settles both, forgets and renames travel", async () => {
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', join(root, 'remote.git')])
    const url = `file://${join(root, 'remote.git')}`
    const connect = async (device: SimDevice): Promise<RoundTarget> => {
      const remote = new GitRemote({
        url,
        workDir: join(root, device.id, 'sync', 'git'),
        device: device.id,
        backoffMs: 1,
      })
      assert.ok((await remote.prepare()).ok)
      const opened = await SyncFolder.open(remote.root, device.id, `${device.id} machine`, undefined, NOW)
      assert.ok(opened.ok)
      return { kind: 'git', folder: opened.folder, remote }
    }
    const laptop = new SimDevice('laptop', T0)
    const desktop = new SimDevice('desktop', T0 + 3_600_000)
    const a = await connect(laptop)
    const b = await connect(desktop)
    const both = async (): Promise<void> => {
      for (const [device, target] of [
        [laptop, a],
        [desktop, b],
        [laptop, a],
      ] as const) {
        const report = await runSyncRound(device, target, OPTIONS)
        assert.deepEqual([report.ok, report.problems], [true, []])
      }
    }
    laptop.write(PORT, '7801')
    await both()
    // The laptop is offline while both change the port.
    laptop.write(PORT, '7802')
    desktop.write(PORT, '7803')
    await both()
    for (const device of [laptop, desktop])
      assert.deepEqual(standing(device), ['7802:active:laptop', '7803:conflict:desktop'])
    desktop.write(PORT, '7804')
    laptop.forget(slot('payments', 'owner'), 'ana')
    desktop.rename('payments', 'pay-svc')
    await both()
    desktop.write(slot('pay-svc', 'owner'), 'ana')
    await both()
    for (const device of [laptop, desktop]) {
      assert.deepEqual(standing(device, slot('pay-svc')), ['7804:active:desktop'])
      assert.deepEqual(standing(device, slot('pay-svc', 'owner')), [])
    }
    assert.deepEqual(laptop.state(), desktop.state())
  })

  it('fails a round whose git remote cannot be reached, in words, and keeps the records for the first round that reaches it', async () => {
    const laptop = new SimDevice('laptop', T0)
    const remote = new GitRemote({
      url: `file://${join(root, 'remote.git')}`,
      workDir: join(root, 'laptop', 'git'),
      device: 'laptop',
      timeoutMs: 30_000,
    })
    assert.equal((await remote.prepare()).ok, false)
    const opened = await SyncFolder.open(join(root, 'laptop', 'git'), 'laptop', 'laptop machine', undefined, NOW)
    assert.ok(opened.ok)
    laptop.write(PORT, '7801')
    const report = await runSyncRound(laptop, { kind: 'git', folder: opened.folder, remote }, OPTIONS)
    assert.equal(report.ok, false)
    assert.match(report.problems[0] ?? '', /^the sync remote cannot be reached: /u)
    assert.equal(report.sent, 0, 'nowhere to seal before the first clone')
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', join(root, 'remote.git')])
    const back = await runSyncRound(laptop, { kind: 'git', folder: opened.folder, remote }, OPTIONS)
    assert.deepEqual([back.ok, back.sent, back.problems], [true, 1, []])
    const desktop = new SimDevice('desktop', T0)
    const other = new GitRemote({
      url: `file://${join(root, 'remote.git')}`,
      workDir: join(root, 'desktop', 'git'),
      device: 'desktop',
    })
    assert.ok((await other.prepare()).ok)
    const seen = await SyncFolder.open(other.root, 'desktop', 'desktop machine', undefined, NOW)
    assert.ok(seen.ok)
    await runSyncRound(desktop, { kind: 'git', folder: seen.folder, remote: other }, OPTIONS)
    assert.deepEqual(standing(desktop), ['7801:active:laptop'])
  })
})
