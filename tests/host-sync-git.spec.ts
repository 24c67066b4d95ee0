/**
 * Sync through a git remote, through the real host and the real `git` command line: two DSH homes name one bare
 * repository as `syncTarget`. A write on A reaches the remote under devices/<A>/ and B's round lists device A with
 * records received; a remote that refuses costs a turn nothing and is shown in words on status and in the settings
 * card's Sync panel (looked at in headless Chromium); a one-shot headless run on A pushes what it wrote before it
 * exits. One host pair and one browser for the whole file.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser } from 'playwright-core'
import { closeClean } from './helpers/page-host.ts'
import { launchBrowser, screenshot } from './helpers/browser.ts'
import { until } from './helpers/poll.ts'
import {
  assertCurrentOnB,
  backOnTarget,
  endSyncSuite,
  openSyncPanel,
  receivedFrom,
  setTarget,
  startSyncPair,
  syncNow,
  syncStatus,
  writeHeadless,
  writeThrough,
  type SyncPair,
} from './helpers/sync-hosts.ts'

const PASSPHRASE = 'a passphrase both machines share'

/** The files of one device on the remote's main branch. */
function remoteSegments(remote: string, device: string): string[] {
  const listed = execFileSync('git', ['--git-dir', remote, 'ls-tree', '-r', '--name-only', 'main'], {
    encoding: 'utf8',
  })
  return listed.split('\n').filter((path) => path.startsWith(`devices/${device}/segments/`))
}

describe('sync through a bare git remote, two hosts', { timeout: 300_000 }, () => {
  let pair: SyncPair
  let scratch: string
  let remote: string
  let url: string
  let deviceA: string
  let browser: Browser

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'fact-memory-sync-git-'))
    remote = join(scratch, 'memory.git')
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', remote])
    url = pathToFileURL(remote).href
    pair = await startSyncPair(url, PASSPHRASE)
    deviceA = (await syncStatus(pair.a)).device.id
    browser = await launchBrowser()
  })
  after(() => endSyncSuite(pair, browser, scratch))

  it("pushes A's write under devices/<A>/ on the remote, and B's round lists device A with records received", async () => {
    await writeThrough(pair, pair.a, 'staging server', 'port', '8123')
    const sent = await syncNow(pair.a)
    assert.equal(sent.round['ok'], true, JSON.stringify(sent.round))
    assert.deepEqual(sent.status.target, { kind: 'git', where: url })
    assert.equal(sent.status.pending, 0)
    assert.ok(remoteSegments(remote, deviceA).length > 0, 'no segment of A on the remote')

    await receivedFrom(pair.b, deviceA)
  })

  it("A's fact is current on B after B's round through git", async () => {
    await assertCurrentOnB(pair)
  })

  it('the Sync panel shows the remote, this device, the devices seen and what is pending, with Sync now', async () => {
    const opened = await openSyncPanel(browser, pair.b)
    const panel = opened.page.locator('fm-sync-panel')
    await panel.locator('[data-fm="sync-state"]').filter({ hasText: 'the git remote' }).waitFor()
    assert.match(await panel.locator('[data-fm="sync-state"]').innerText(), /encrypted with your passphrase/u)
    assert.match(await panel.locator('[data-fm="sync-devices"]').innerText(), new RegExp(deviceA, 'u'))
    await panel.locator('[data-fm="sync-now"]').click()
    await panel
      .locator('[data-fm="sync-message"]')
      .filter({ hasText: /^Synced/u })
      .waitFor()
    await panel.scrollIntoViewIfNeeded()
    await screenshot(opened.page, 'sync-panel')
    assert.deepEqual(opened.errors, [])
    await closeClean(opened)
  })

  it('a remote that refuses costs a turn nothing and is shown in words on status and the page', async () => {
    const missing = pathToFileURL(join(scratch, 'no-such-remote.git')).href
    const baseline = await writeThrough(pair, pair.b, 'docs site', 'host', 'docs.example.org')
    await setTarget(pair.b, missing)
    await until(
      async () => (await syncStatus(pair.b)).target?.where === missing,
      'the new remote was not taken',
      10_000,
    )
    const failed = await syncNow(pair.b)
    assert.equal(failed.round['ok'], false)
    const problem = failed.status.problems.find((entry) => entry.code === 'unreachable')
    assert.ok(problem !== undefined, JSON.stringify(failed.status.problems))

    const turn = await writeThrough(pair, pair.b, 'docs site', 'owner', 'platform team')
    assert.ok(
      turn < baseline + 2_000,
      `a turn took ${Math.round(turn)} ms with the remote refusing (${Math.round(baseline)} ms before)`,
    )
    console.log(`# turn with a working remote ${Math.round(baseline)} ms, with a refusing one ${Math.round(turn)} ms`)

    const opened = await openSyncPanel(browser, pair.b)
    const panel = opened.page.locator('fm-sync-panel')
    await panel.locator('[data-fm="sync-problems"]').filter({ hasText: 'Cannot reach the target' }).waitFor()
    await panel.locator('[data-fm="sync-now"]').click()
    await panel
      .locator('[data-fm="sync-message"]')
      .filter({ hasText: /^Sync failed/u })
      .waitFor()
    await panel.scrollIntoViewIfNeeded()
    await screenshot(opened.page, 'sync-panel-unreachable')
    await closeClean(opened)

    await backOnTarget(pair.b, url)
  })

  it('a one-shot headless run on A pushes what it wrote before it exits', async () => {
    await pair.halt(pair.a)
    const before = remoteSegments(remote, deviceA).length
    const code = await writeHeadless(pair, pair.a, 'nightly backup', 'time', '02:30')
    assert.equal(code, 0)
    assert.ok(remoteSegments(remote, deviceA).length > before, 'the headless run left its write unpushed')
    const got = await syncNow(pair.b)
    assert.ok(Number(got.round['received']) >= 1, JSON.stringify(got.round))
  })
})
