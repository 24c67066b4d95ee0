/**
 * Team memory through the real host and the real `git` command line (issue 34 item 5): two DSH homes, no sync target
 * set, each working in its own clone of one bare repository. A turns team memory on for the project; the model on A
 * writes a project fact and A's sealed files appear in `<clone>/.fact-memory/devices/<A>/`, a sensitive fact staying
 * out; the test commits and pushes on A and pulls on B (the plugin never runs git in the user's repository); B turns
 * it on from the Sync panel (headless Chromium) and its memory_search shows A's fact as observed, naming A's device as
 * a teammate's; B's own explicit statement on the same slot then wins there. One host pair for the whole file.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { closeClean } from './helpers/page-host.ts'
import { launchBrowser, screenshot } from './helpers/browser.ts'
import {
  callThrough,
  openSyncPanel,
  startSyncPair,
  syncStatus,
  type SyncMachine,
  type SyncPair,
} from './helpers/sync-hosts.ts'
import { teamStatusSchema } from '../src/team/team-status.schema.ts'

/** Run git in a folder, as the user would. */
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/** A project statement the model makes in a session in the clone. */
function projectStatement(subject: string, property: string, value: string) {
  return {
    name: 'memory_write',
    arguments: {
      subject,
      property,
      value,
      scope: 'project',
      evidence: 'explicit_user',
      quote: `${subject} ${property} is ${value}`,
    },
  }
}

describe('team memory in the repository, two hosts and real git', { timeout: 300_000 }, () => {
  let pair: SyncPair
  let scratch: string
  let cloneA: string
  let cloneB: string
  let deviceA: string
  let browser: Browser

  /** B's model asks memory_search for the shop api's port, inside B's clone: the tool's answer as the model reads it. */
  function searchOnB(): Promise<string> {
    return callThrough(
      pair,
      pair.b,
      'which port does the shop api use?',
      { name: 'memory_search', arguments: { query: 'shop api port' } },
      cloneB,
    )
  }

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'fact-memory-team-git-'))
    const remote = join(scratch, 'shop.git')
    cloneA = join(scratch, 'a', 'shop')
    cloneB = join(scratch, 'b', 'shop')
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', remote])
    execFileSync('git', ['clone', '--quiet', remote, cloneA], { stdio: 'ignore' })
    writeFileSync(join(cloneA, 'README.md'), '# shop\n')
    git(cloneA, 'add', 'README.md')
    git(cloneA, 'commit', '--quiet', '-m', 'start')
    git(cloneA, 'push', '--quiet', 'origin', 'HEAD:main')
    execFileSync('git', ['clone', '--quiet', remote, cloneB], { stdio: 'ignore' })
    browser = await launchBrowser()
    // No sync target: team memory runs without sync between one user's machines.
    pair = await startSyncPair('', 'unused passphrase')
    deviceA = (await syncStatus(pair.a)).device.id
  })
  after(async () => {
    await pair?.stop()
    await browser?.close()
    rmSync(scratch, { recursive: true, force: true })
  })

  const teamOn = (machine: SyncMachine, folder: string) => machine.api.ok('team-memory', { folder, shared: true })

  it("A's project fact lands in A's own sealed files in the repository folder; a sensitive fact stays out", async () => {
    const on = await teamOn(pair.a, cloneA)
    assert.equal(on['shared'], true)
    assert.equal(on['folder'], join(cloneA, '.fact-memory'))
    await callThrough(
      pair,
      pair.a,
      'remember: shop api port is 8080',
      projectStatement('shop api', 'port', '8080'),
      cloneA,
    )
    await callThrough(
      pair,
      pair.a,
      'remember: release contact email is ada@example.com',
      projectStatement('release contact', 'email', 'ada@example.com'),
      cloneA,
    )
    const round = (await teamOn(pair.a, cloneA))['round'] as Record<string, unknown>
    assert.equal(round['ok'], true, JSON.stringify(round))

    const segments = join(cloneA, '.fact-memory', 'devices', deviceA, 'segments')
    const files = readdirSync(segments)
    assert.ok(files.length > 0, 'no segment of A in the repository folder')
    const text = files.map((file) => readFileSync(join(segments, file), 'utf8')).join('\n')
    assert.match(text, /8080/u)
    assert.doesNotMatch(text, /ada@example\.com/u)
    assert.deepEqual(readdirSync(join(cloneA, '.fact-memory', 'devices')), [deviceA])
    assert.equal(
      git(cloneA, 'status', '--porcelain', '--', '.fact-memory').includes('??'),
      true,
      'the plugin committed',
    )

    const team = teamStatusSchema.parse((await pair.a.api.ok('status'))['team'])
    assert.deepEqual(
      team.map((entry) => [entry.folder, entry.lastRound?.outcome]),
      [[join(cloneA, '.fact-memory'), 'ok']],
    )
  })

  it("after A commits and pushes and B pulls, B's memory_search shows the fact as observed, naming A's device", async () => {
    git(cloneA, 'add', '.fact-memory')
    git(cloneA, 'commit', '--quiet', '-m', 'team memory')
    git(cloneA, 'push', '--quiet', 'origin', 'HEAD:main')
    git(cloneB, 'pull', '--quiet', 'origin', 'main')

    // B turns it on from the Sync panel, with sync itself off.
    const opened = await openSyncPanel(browser, pair.b)
    const panel = opened.page.locator('fm-sync-panel fm-team-memory')
    await panel.locator('[data-fm="team-folder"]').fill(cloneB)
    await panel.locator('[data-fm="team-share"]').click()
    const message = panel.locator('[data-fm="team-message"]').filter({ hasText: /is shared in/u })
    await message.waitFor()
    assert.match(await message.innerText(), /read [1-9]\d* changes?/u)
    await panel
      .locator('[data-fm="team-projects"] li')
      .filter({ hasText: /Teammates' devices in the folder: /u })
      .waitFor()
    await panel.scrollIntoViewIfNeeded()
    await screenshot(opened.page, 'team-memory-panel')
    assert.deepEqual(opened.errors, [])
    await closeClean(opened)

    const found = await searchOnB()
    const line = found.split('\n').find((entry) => entry.includes('8080')) ?? ''
    assert.match(line, /observed/u, found)
    assert.match(line, /\(from teammate [^)]+\)/u, found)
    console.log(`# B's memory_search line for A's fact: ${line}`)
  })

  it("B's own explicit statement on the same slot wins on B", async () => {
    await callThrough(
      pair,
      pair.b,
      'remember: shop api port is 3000',
      projectStatement('shop api', 'port', '3000'),
      cloneB,
    )
    await teamOn(pair.b, cloneB)
    const found = await searchOnB()
    const current = found.split('\n').find((entry) => entry.includes('3000')) ?? ''
    assert.match(current, /since .*explicit_user/u, found)
    assert.doesNotMatch(found.split('\n').find((entry) => entry.includes('8080')) ?? '', /since|contested/u, found)
  })
})
