/**
 * The git transport against a real bare repository with the real git command line: a device's segments reach
 * another through the remote; a push race between two clones is settled by re-committing on the new tip, never by a
 * merge, and leaves both devices' files; an unreachable remote, a timeout and a URL with a password are reported in
 * words with the secret masked; a lock left by a killed git is cleared. The sync target setting is classified.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { type AddressInfo, createServer, type Socket } from 'node:net'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { GitRemote } from '../src/sync/git-remote.ts'
import { SyncFolder } from '../src/sync/sync-folder.ts'
import { maskUrl, parseSyncTarget } from '../src/sync/sync-target.ts'
import { SimDevice, slot } from './helpers/sync-devices.ts'
import { removeDir, tempDir } from './helpers/store.ts'

const T0 = Date.parse('2026-03-01T09:00:00.000Z')
const NOW = '2026-03-01T09:00:00.000Z'

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } })
}

describe('the git transport', () => {
  let root: string
  let url: string
  beforeEach(() => {
    root = tempDir('fact-memory-git-')
    git(root, 'init', '--quiet', '--bare', '--initial-branch=main', 'remote.git')
    url = `file://${join(root, 'remote.git')}`
  })
  afterEach(() => removeDir(root))

  async function device(id: string, retries = 4): Promise<{ remote: GitRemote; folder: SyncFolder; sim: SimDevice }> {
    const remote = new GitRemote({
      url,
      workDir: join(root, id, 'data', 'sync', 'git'),
      device: id,
      retries,
      backoffMs: 1,
      timeoutMs: 30_000,
    })
    const prepared = await remote.prepare()
    assert.ok(prepared.ok, prepared.ok ? '' : prepared.error.message)
    const opened = await SyncFolder.open(remote.root, id, `${id} machine`, undefined, NOW)
    assert.ok(opened.ok)
    return { remote, folder: opened.folder, sim: new SimDevice(id, T0) }
  }

  it("carries one device's segments to another through the remote, and a quiet round pushes nothing", async () => {
    const laptop = await device('laptop')
    laptop.sim.write(slot('payments'), '7801')
    await laptop.folder.append(laptop.sim.log)
    const published = await laptop.remote.publish('sync: laptop')
    assert.deepEqual(published, { ok: true, value: { committed: true, attempts: 1 } })
    assert.deepEqual(await laptop.remote.publish('sync: laptop'), {
      ok: true,
      value: { committed: false, attempts: 0 },
    })

    const desktop = await device('desktop')
    const read = await desktop.folder.readPending({})
    assert.deepEqual(read.records, laptop.sim.log)
    assert.deepEqual(
      (await desktop.folder.others()).map((entry) => entry.name),
      ['laptop machine'],
    )
    // The remote's history holds one commit per device round, each touching only its own folder.
    assert.equal(git(join(root, 'remote.git'), 'log', '--format=%s', 'main').trim(), 'sync: laptop')
  })

  it("never commits a temporary file left in this device's folder by a write that did not finish", async () => {
    const laptop = await device('laptop')
    laptop.sim.write(slot('payments'), '7801')
    await laptop.folder.append(laptop.sim.log)
    // What a round killed between writing and renaming leaves (sealed-file.ts), young enough to outlive the cleanup.
    const folder = join(laptop.remote.root, 'devices', 'laptop')
    writeFileSync(join(folder, '.tmp-segment-half-written'), 'half a segment')
    const published = await laptop.remote.publish('sync: laptop')
    assert.ok(published.ok)
    const tree = git(join(root, 'remote.git'), 'ls-tree', '-r', '--name-only', 'main').trim().split('\n')
    assert.ok(
      tree.some((path) => path.startsWith('devices/laptop/')),
      `the device's files are committed: ${tree.join(', ')}`,
    )
    assert.deepEqual(
      tree.filter((path) => path.includes('.tmp-')),
      [],
    )
  })

  it("settles a push race between two clones by re-committing on the new tip, keeping both devices' files", async () => {
    const laptop = await device('laptop')
    const desktop = await device('desktop')
    laptop.sim.write(slot('payments'), '7801')
    desktop.sim.write(slot('payments'), '7802')
    await laptop.folder.append(laptop.sim.log)
    await desktop.folder.append(desktop.sim.log)
    assert.deepEqual(await laptop.remote.publish('sync: laptop'), { ok: true, value: { committed: true, attempts: 1 } })
    // The desktop's clone is behind: its first push is rejected, the round repeats on the laptop's commit.
    assert.deepEqual(await desktop.remote.publish('sync: desktop'), {
      ok: true,
      value: { committed: true, attempts: 2 },
    })
    const pulled = await laptop.remote.pull()
    assert.ok(pulled.ok)
    assert.deepEqual((await laptop.folder.readPending({})).records, desktop.sim.log)
    assert.deepEqual((await desktop.folder.readPending({})).records, laptop.sim.log)
    const history = git(join(root, 'remote.git'), 'log', '--format=%s %P', 'main').trim().split('\n')
    assert.equal(history.length, 2)
    assert.ok(
      history.every((line) => line.split(' ').length <= 3),
      'no merge commit',
    )
  })

  it('gives up after the retry bound when the race keeps being lost, in words', async () => {
    const laptop = await device('laptop')
    const desktop = await device('desktop', 0)
    laptop.sim.write(slot('payments'), '7801')
    desktop.sim.write(slot('payments'), '7802')
    await laptop.folder.append(laptop.sim.log)
    await desktop.folder.append(desktop.sim.log)
    await laptop.remote.publish('sync: laptop')
    assert.deepEqual(await desktop.remote.publish('sync: desktop'), {
      ok: false,
      error: { code: 'rejected', message: 'another device pushed first' },
    })
    // Nothing is lost: the next round (which starts with a pull) publishes it.
    assert.ok((await desktop.remote.pull()).ok)
    assert.deepEqual(await desktop.remote.publish('sync: desktop'), {
      ok: true,
      value: { committed: true, attempts: 1 },
    })
  })

  it("reports an unreachable remote and a timeout in words, with a URL's user masked", async () => {
    const missing = new GitRemote({
      url: `file://${join(root, 'nowhere.git')}`,
      workDir: join(root, 'a', 'git'),
      device: 'laptop',
      timeoutMs: 30_000,
    })
    const failed = await missing.prepare()
    assert.equal(failed.ok, false)
    if (!failed.ok) assert.equal(failed.error.code, 'unreachable')
    // A remote that takes the connection and never answers: the clone can only end by the timeout, however loaded
    // the machine (a 1 ms timeout on a real remote raced the clone, and a clone that won moved on to a fetch).
    const held: Socket[] = []
    const silent = createServer((socket) => held.push(socket))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const { port } = silent.address() as AddressInfo
    const slow = new GitRemote({
      url: `http://127.0.0.1:${port}/memory.git`,
      workDir: join(root, 'b', 'git'),
      device: 'laptop',
      timeoutMs: 300,
    })
    const timedOut = await slow.prepare().finally(() => {
      for (const socket of held) socket.destroy()
      silent.close()
    })
    assert.deepEqual(timedOut, {
      ok: false,
      error: { code: 'timeout', message: 'git clone did not finish in time; it was stopped and will be tried again' },
    })
    const named = new GitRemote({
      url: 'https://someone@127.0.0.1:9/memory.git',
      workDir: join(root, 'c', 'git'),
      device: 'laptop',
      timeoutMs: 30_000,
    })
    const refused = await named.prepare()
    assert.equal(refused.ok, false)
    if (!refused.ok) {
      assert.equal(refused.error.code, 'unreachable')
      assert.ok(!refused.error.message.includes('someone@'), refused.error.message)
    }
  })

  it('clears the lock a killed git left behind, and refuses a working copy of another remote', async () => {
    const laptop = await device('laptop')
    writeFileSync(join(laptop.remote.root, '.git', 'index.lock'), '')
    laptop.sim.write(slot('payments'), '7801')
    await laptop.folder.append(laptop.sim.log)
    assert.ok((await laptop.remote.prepare()).ok)
    assert.ok((await laptop.remote.publish('sync: laptop')).ok)
    assert.equal(existsSync(join(laptop.remote.root, '.git', 'index.lock')), false)
    const other = new GitRemote({ url: 'file:///elsewhere.git', workDir: laptop.remote.root, device: 'laptop' })
    const refused = await other.prepare()
    assert.deepEqual(refused.ok ? undefined : refused.error.code, 'not_a_sync_clone')
    assert.ok(readFileSync(join(laptop.remote.root, '.git', 'config'), 'utf8').includes(url))
  })
})

describe('the sync target setting', () => {
  it('reads off, a folder, and git remotes, and refuses a URL carrying a secret or a relative path', () => {
    assert.deepEqual(parseSyncTarget(''), { kind: 'off' })
    assert.deepEqual(parseSyncTarget('/home/ana/Sync/memory'), { kind: 'folder', path: '/home/ana/Sync/memory' })
    assert.deepEqual(parseSyncTarget('git@github.com:ana/memory.git'), {
      kind: 'git',
      url: 'git@github.com:ana/memory.git',
    })
    assert.deepEqual(parseSyncTarget('ssh://git@host/memory.git'), { kind: 'git', url: 'ssh://git@host/memory.git' })
    assert.deepEqual(parseSyncTarget('file:///srv/memory.git'), { kind: 'git', url: 'file:///srv/memory.git' })
    assert.equal(parseSyncTarget('https://ana:ghp_secret@github.com/ana/memory.git').kind, 'invalid')
    assert.equal(parseSyncTarget('http://host/memory.git').kind, 'invalid')
    assert.equal(parseSyncTarget('Sync/memory').kind, 'invalid')
    assert.equal(parseSyncTarget('\\\\server\\share').kind, 'invalid')
    assert.equal(
      maskUrl('fatal: unable to access https://ana:tok@host/x.git'),
      'fatal: unable to access https://***@host/x.git',
    )
  })
})
