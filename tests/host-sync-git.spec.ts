/**
 * Sync through a git remote, through the real host and the real `git` command line: two DSH homes ("work laptop" A
 * and "home desktop" B) name one bare repository as `syncTarget`, and every statement, forget and search is a model
 * turn through a host. A write on A reaches the remote under devices/<A>/ and B's round lists device A with records
 * received. While B's remote refuses (B apart), a turn costs nothing, status says so in words, and the settings
 * card's Sync panel (headless Chromium) shows the problem, the changes waiting to be sent and Sync now failing; back
 * on the remote, Sync now sends them and the panel shows every change sent, the last round and device A's last sync.
 * The statements A and B made on one slot while apart are one conflict on both: each one's memory_search answer ends
 * the other's side with "(from <its name>)". A correction on A after the sync supersedes on both; a pin on A reaches
 * B and B's unpin reaches A; a forget on B blocks relearning on A; a subject rename on A reaches B's search answer. A one-shot headless run on A pushes what it wrote before it exits. One host pair and one browser for the
 * whole file.
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
  answerLine,
  forgetThrough,
  searchThrough,
  endSyncSuite,
  openSyncPanel,
  receivedFrom,
  setTarget,
  startSyncPair,
  stateThrough,
  syncNow,
  syncStatus,
  writeHeadless,
  writeThrough,
  type SyncMachine,
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

/** A fact's row as the management API lists it. */
interface FactRow {
  readonly id: number
  readonly value: string
  readonly status: string
  readonly pinnedAt: string | null
}

/** The current row of one value of a subject on a machine, as the API lists it (its pin among the fields). */
async function factOn(machine: SyncMachine, subject: string, value: string): Promise<FactRow> {
  const facts = (await machine.api.ok('facts', { subject }))['facts'] as FactRow[]
  const fact = facts.find((each) => each.value === value && each.status === 'active')
  assert.ok(fact !== undefined, `${machine.name}: ${JSON.stringify(facts)}`)
  return fact
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

  it("while B cannot reach the remote a turn costs nothing; status and the Sync panel say so, what waits, each device's last sync", async () => {
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

    // B, apart, states a value for a slot; A, not having seen it, states another and sends it.
    const turn = await writeThrough(pair, pair.b, 'billing api', 'port', '7820')
    assert.ok(
      turn < baseline + 2_000,
      `a turn took ${Math.round(turn)} ms with the remote refusing (${Math.round(baseline)} ms before)`,
    )
    console.log(`# turn with a working remote ${Math.round(baseline)} ms, with a refusing one ${Math.round(turn)} ms`)
    await writeThrough(pair, pair.a, 'billing api', 'port', '7810')
    assert.equal((await syncNow(pair.a)).round['ok'], true)
    assert.ok((await syncStatus(pair.b)).pending >= 1, 'B keeps its statement waiting')

    const opened = await openSyncPanel(browser, pair.b)
    const panel = opened.page.locator('fm-sync-panel')
    const text = (part: string): Promise<string> => panel.locator(`[data-fm="${part}"]`).innerText()
    await panel.locator('[data-fm="sync-problems"]').filter({ hasText: 'Cannot reach the target' }).waitFor()
    assert.match(await text('sync-state'), /the git remote .*encrypted with your passphrase/u)
    assert.match(await text('sync-rounds'), /^[1-9]\d* changes? waiting to be sent\.$/mu)
    assert.match(
      await text('sync-devices'),
      /^No other device has synced to this target yet\.$/u,
      'devices are per target',
    )
    await panel.locator('[data-fm="sync-now"]').click()
    await panel
      .locator('[data-fm="sync-message"]')
      .filter({ hasText: /^Sync failed/u })
      .waitFor()
    await panel.scrollIntoViewIfNeeded()
    await screenshot(opened.page, 'sync-panel-unreachable')

    // Back on the remote: the panel's Sync now sends what waited, and says every change has been sent.
    await backOnTarget(pair.b, url)
    await panel.locator('[data-fm="sync-now"]').click()
    await panel
      .locator('[data-fm="sync-message"]')
      .filter({ hasText: /^Synced/u })
      .waitFor()
    assert.match(await text('sync-state'), new RegExp(`^Syncing with the git remote ${url}, encrypted`, 'u'))
    assert.match(await text('sync-rounds'), /^Every change here has been sent\.$/mu)
    assert.match(await text('sync-rounds'), /^Last round (just now|\d+ min ago) \(.+\), done: sent /mu)
    assert.match(
      await text('sync-devices'),
      new RegExp(`^work laptop \\(${deviceA}\\): last change .+, last synced (just now|\\d+ min ago)$`, 'mu'),
    )
    await screenshot(opened.page, 'sync-panel')
    await closeClean(opened)
  })

  it('the statements A and B made apart on one slot are one conflict on both, each naming the other machine', async () => {
    await syncNow(pair.a)
    const sides: [SyncMachine, string, string, string][] = [
      [pair.a, '7810', '7820', 'home desktop'],
      [pair.b, '7820', '7810', 'work laptop'],
    ]
    for (const [machine, own, theirs, theirName] of sides) {
      const answer = await searchThrough(pair, machine, 'billing api port')
      assert.match(answer, /^outcome: needs_selection\n/u, `${machine.name}: ${answer}`)
      assert.ok(answerLine(answer, theirs).endsWith(`] (from ${theirName})`), `${machine.name}: ${answer}`)
      assert.doesNotMatch(answerLine(answer, own), /\(from /u, `${machine.name}: ${answer}`)
      // One conflict, as the page's conflict view lists it: one open group with both sides.
      const groups = (await machine.api.ok('conflicts'))['groups'] as { subject: string; rows: { value: string }[] }[]
      const open = groups.filter((group) => group.subject === 'billing api')
      assert.deepEqual(
        open.map((group) => group.rows.map((row) => row.value).sort()),
        [['7810', '7820']],
        machine.name,
      )
    }
  })

  it('a correction and a pin made on A after the sync reach B; the correction supersedes on both', async () => {
    await writeThrough(pair, pair.a, 'billing api', 'port', '7830')
    const staging = await factOn(pair.a, 'staging server', '8123')
    await pair.a.api.ok('fact-pin', await pair.a.api.fence({ id: staging.id, pinned: true }))
    await syncNow(pair.a)
    await syncNow(pair.b)
    for (const machine of [pair.a, pair.b]) {
      const answer = await searchThrough(pair, machine, 'billing api port')
      // One current value; the two sides are history lines now.
      assert.match(answer, /^outcome: ok\n/u, `${machine.name}: ${answer}`)
      assert.match(answerLine(answer, '7830'), /^ {3}- 7830 \[#\d+ · since /u, `${machine.name}: ${answer}`)
      for (const side of ['7810', '7820'])
        assert.match(answerLine(answer, side), / · (superseded|retired)/u, `${machine.name}: ${answer}`)
    }
    assert.notEqual((await factOn(pair.b, 'staging server', '8123')).pinnedAt, null, 'the pin did not reach B')
  })

  it('an unpin and a forget made on B reach A, and the forget blocks relearning there', async () => {
    const staging = await factOn(pair.b, 'staging server', '8123')
    await pair.b.api.ok('fact-pin', await pair.b.api.fence({ id: staging.id, pinned: false }))
    const forgot = await forgetThrough(pair, pair.b, 'billing api', 'port')
    assert.match(forgot, /^outcome: ok\n/u, forgot)
    await syncNow(pair.b)
    await syncNow(pair.a)
    assert.equal((await factOn(pair.a, 'staging server', '8123')).pinnedAt, null, 'the unpin did not reach A')
    assert.doesNotMatch(await searchThrough(pair, pair.a, 'billing api port'), /7830/u)
    const relearn = await stateThrough(pair, pair.a, 'billing api', 'port', '7830')
    assert.doesNotMatch(relearn, /^outcome: saved/u, relearn)
    assert.doesNotMatch(await searchThrough(pair, pair.a, 'billing api port'), /7830/u)
  })

  it('a subject rename on A reaches B', async () => {
    await pair.a.api.ok('subject-rename', await pair.a.api.fence({ entityKey: 'build cache', to: 'artifact cache' }))
    await syncNow(pair.a)
    await syncNow(pair.b)
    const answer = await searchThrough(pair, pair.b, 'artifact cache bucket')
    assert.match(answer, /^\d+\. artifact cache · bucket: fm-cache-eu \[/mu, answer)
    const old = (await pair.b.api.ok('facts', { subject: 'build cache' }))['facts'] as { status: string }[]
    assert.deepEqual(
      old.filter((fact) => fact.status === 'active'),
      [],
      'B still holds the fact under the old name',
    )
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
