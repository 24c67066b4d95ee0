/**
 * Sync through a shared folder, through the real host: two DSH homes, each with its own store and web host, name one
 * folder as `syncTarget` and one passphrase. A write on A is sealed (encrypted) under devices/<A>/; B's round finds
 * device A and receives its records; "Sync now" and `status` say what happened; a wrong passphrase and a folder that
 * cannot be made are reported in words and cost a turn nothing; a one-shot headless run on A sends what it wrote
 * before it exits. Across the two machines: concurrent statements on one slot become one conflict on both, each
 * naming the machine the other side came from (on the page's conflict view and in B's memory_search answer), a later
 * correction supersedes on both, a forget on A blocks relearning on B, a subject rename reaches B, and the alias it
 * left, removed on A, is gone on B. Each machine is
 * named by `syncDeviceName`. Through the real host, what the store-level specs prove: kill -9 of the sending host
 * between sealing and noting a segment, and of the receiving host inside its apply transaction, loses and
 * duplicates nothing (the two libraries compared through the API); a truncated segment and a damaged record are
 * reported in words on status and the Sync panel while the rest is applied, and heal when the files do; a machine
 * whose clock runs an hour ahead keeps the order of statements and is named on the other's status and page; a full
 * disk under the sync folder (a 16 KiB tmpfs in the host's own mount namespace) costs a turn nothing and is reported
 * in words. One host pair and one browser for the whole file.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { launchBrowser, screenshot } from './helpers/browser.ts'
import type { WebHost } from './helpers/dsh-host.ts'
import { converse } from './helpers/fact-memory-web.ts'
import { closeClean, openFactPage, openTabOf } from './helpers/page-host.ts'
import { until } from './helpers/poll.ts'
import {
  armHold,
  assertCurrentOnB,
  backOnTarget,
  answerLine,
  forgetThrough,
  searchThrough,
  clockOffsetEnv,
  disarmHolds,
  endSyncSuite,
  libraryOf,
  openSyncPanel,
  receivedFrom,
  segmentsOf,
  setSyncSettings,
  setTarget,
  statement,
  stateThrough,
  startSyncPair,
  syncNow,
  syncStatus,
  writeHeadless,
  writeThrough,
  type SyncMachine,
  type SyncPair,
} from './helpers/sync-hosts.ts'
import { conflictGroupWireSchema } from '../src/wire.schema.ts'
import { z } from 'zod'

const PASSPHRASE = 'correct horse battery staple'

/** A machine's open conflicts, as the page's conflict view reads them (validated). */
async function conflictsOf(machine: SyncMachine): Promise<z.infer<typeof conflictGroupWireSchema>[]> {
  const answer = await machine.api.ok('conflicts')
  return z.array(conflictGroupWireSchema).parse(answer['groups'])
}

/** A machine's running host. */
function hostOf(machine: SyncMachine): WebHost {
  assert.ok(machine.host !== undefined, `${machine.name} is not running`)
  return machine.host
}

/** The current values (active or contested) of one slot on a machine, sorted. */
async function currentValues(machine: SyncMachine, subject: string, property: string): Promise<string[]> {
  const answer = await machine.api.ok('facts', { subject })
  return (answer['facts'] as { property: string; value: string; status: string }[])
    .filter((fact) => fact.property === property && (fact.status === 'active' || fact.status === 'conflict'))
    .map((fact) => fact.value)
    .sort()
}

describe('sync through a shared folder, two hosts', { timeout: 300_000 }, () => {
  let pair: SyncPair
  let scratch: string
  let folder: string
  let deviceA: string
  let browser: Browser

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'fact-memory-sync-'))
    folder = join(scratch, 'shared')
    pair = await startSyncPair(folder, PASSPHRASE, { fullDisk: true })
    deviceA = (await syncStatus(pair.a)).device.id
    browser = await launchBrowser()
  })
  after(() => endSyncSuite(pair, browser, scratch))

  it("seals A's write as encrypted segments under devices/<A>/, and B's round lists device A with records received", async () => {
    await writeThrough(pair, pair.a, 'staging server', 'port', '8123')
    const sent = await syncNow(pair.a)
    assert.equal(sent.round['ok'], true, JSON.stringify(sent.round))
    assert.equal(sent.status.state, 'on')
    assert.equal(sent.status.encrypted, true)
    assert.equal(sent.status.pending, 0)
    assert.deepEqual(sent.status.target, { kind: 'folder', where: folder })
    const files = segmentsOf(folder, deviceA)
    assert.ok(files.length > 0, 'no segment under devices/<A>/segments')
    const text = files.map((file) => readFileSync(join(folder, 'devices', deviceA, 'segments', file), 'utf8')).join('')
    assert.doesNotMatch(text, /8123|staging server/u, 'the segment body is not encrypted')

    await receivedFrom(pair.b, deviceA)
  })

  it("A's fact is current on B after B's round", async () => {
    await assertCurrentOnB(pair)
  })

  it('concurrent statements on one slot on A and B become one conflict on both, naming the other machine', async () => {
    const nameA = (await syncStatus(pair.a)).device.name
    const nameB = (await syncStatus(pair.b)).device.name
    assert.deepEqual([nameA, nameB], ['work laptop', 'home desktop'], 'each machine goes by its syncDeviceName')
    await writeThrough(pair, pair.a, 'billing api', 'port', '7810')
    await writeThrough(pair, pair.b, 'billing api', 'port', '7820')
    await syncNow(pair.a)
    await syncNow(pair.b)
    await syncNow(pair.a)
    const sides: [SyncMachine, string, string][] = [
      [pair.a, '7820', nameB],
      [pair.b, '7810', nameA],
    ]
    for (const [machine, theirs, theirName] of sides) {
      const groups = (await conflictsOf(machine)).filter((group) => group.subject === 'billing api')
      assert.equal(groups.length, 1, `${machine.name}: ${JSON.stringify(groups)}`)
      const [group] = groups
      assert.deepEqual(group?.rows.map((row) => row.value).sort(), ['7810', '7820'])
      const other = group?.rows.find((row) => row.value === theirs)
      assert.deepEqual(
        group?.fromDevices,
        [{ factId: other?.id, devices: [theirName], note: ` (from ${theirName})` }],
        machine.name,
      )
    }
    const answer = await searchThrough(pair, pair.b, 'billing api port', 'which port does the billing api use?')
    assert.match(answer, /^outcome: needs_selection\n/u)
    assert.ok(answerLine(answer, '7810').endsWith(`] (from ${nameA})`), answer)
    assert.doesNotMatch(answerLine(answer, '7820'), /\(from /u, answer)

    // The page's conflict view on A: the side B stated reads "(from home desktop)", A's own side names no machine.
    const opened = await openFactPage({ browser, host: hostOf(pair.a) })
    await openTabOf(opened.page, 'conflicts')
    const group = opened.page.locator('fm-conflicts [data-fm="conflict"]').filter({ hasText: 'billing api' })
    const side = (value: string) => group.locator('[data-fm="conflict-side"]').filter({ hasText: value })
    await side('7820').locator('[data-fm="side-from"]').filter({ hasText: '(from home desktop)' }).waitFor()
    assert.match(await side('7820').locator('[data-fm="side-source"]').innerText(), / \(from home desktop\)$/u)
    assert.equal(await side('7810').locator('[data-fm="side-from"]').count(), 0)
    await screenshot(opened.page, 'sync-conflict-from-device')
    await closeClean(opened)
  })

  it('a correction on A made after the sync supersedes on both', async () => {
    await writeThrough(pair, pair.a, 'billing api', 'port', '7830')
    await syncNow(pair.a)
    await syncNow(pair.b)
    for (const machine of [pair.a, pair.b]) {
      assert.deepEqual(await currentValues(machine, 'billing api', 'port'), ['7830'], machine.name)
      assert.deepEqual(
        (await conflictsOf(machine)).filter((group) => group.subject === 'billing api'),
        [],
        machine.name,
      )
    }
  })

  it('a forget on A blocks relearning on B', async () => {
    const forgot = await forgetThrough(pair, pair.a, 'billing api', 'port')
    assert.match(forgot, /^outcome: ok\n/u, forgot)
    await syncNow(pair.a)
    await syncNow(pair.b)
    assert.deepEqual(await currentValues(pair.b, 'billing api', 'port'), [])
    const relearn = await stateThrough(pair, pair.b, 'billing api', 'port', '7830')
    assert.doesNotMatch(relearn, /^outcome: saved/u, relearn)
    assert.deepEqual(await currentValues(pair.b, 'billing api', 'port'), [])
  })

  it('a subject rename on A reaches B', async () => {
    await writeThrough(pair, pair.a, 'payments svc', 'owner', 'ledger team')
    await syncNow(pair.a)
    await syncNow(pair.b)
    await pair.a.api.ok('subject-rename', await pair.a.api.fence({ entityKey: 'payments svc', to: 'ledger service' }))
    await syncNow(pair.a)
    await syncNow(pair.b)
    for (const machine of [pair.a, pair.b]) {
      assert.deepEqual(await currentValues(machine, 'ledger service', 'owner'), ['ledger team'], machine.name)
      assert.deepEqual(await currentValues(machine, 'payments svc', 'owner'), [], machine.name)
    }
  })

  it('an alias removed on A is gone on B after a round; the facts it moved stay', async () => {
    const aliasesOf = async (machine: SyncMachine): Promise<{ id: number; alias: string }[]> =>
      (await machine.api.ok('entity', { subject: 'ledger service' }))['aliases'] as { id: number; alias: string }[]
    const [alias] = await aliasesOf(pair.a)
    assert.equal(alias?.alias, 'payments svc')
    assert.deepEqual(
      (await aliasesOf(pair.b)).map((each) => each.alias),
      ['payments svc'],
    )
    await pair.a.api.ok('alias-remove', await pair.a.api.fence({ id: alias.id }))
    await syncNow(pair.a)
    await syncNow(pair.b)
    for (const machine of [pair.a, pair.b]) {
      assert.deepEqual(await aliasesOf(machine), [], machine.name)
      assert.deepEqual(await currentValues(machine, 'ledger service', 'owner'), ['ledger team'], machine.name)
    }
  })

  it('a write syncs by itself a few seconds after it, with no button pressed', async () => {
    const before = segmentsOf(folder, deviceA).length
    await writeThrough(pair, pair.a, 'release train', 'day', 'Wednesday')
    await until(() => segmentsOf(folder, deviceA).length > before, 'the write was not sent within 20 s', 20_000)
    await until(async () => (await syncStatus(pair.a)).pending === 0, 'A still has changes pending', 10_000)
  })

  it('a wrong passphrase on B is reported in words, and the right one heals it', async () => {
    await pair.b.api.ok('key', { ref: 'sync', value: 'not the passphrase' })
    await writeThrough(pair, pair.a, 'ci runner', 'image', 'ubuntu-24.04')
    await syncNow(pair.a)
    const wrong = await syncNow(pair.b)
    const problem = wrong.status.problems.find((entry) => entry.code === 'passphrase')
    assert.ok(problem !== undefined, JSON.stringify(wrong.status.problems))
    assert.match(problem.message, /passphrase/u)
    assert.equal(wrong.status.lastRound?.outcome, 'partial')

    await pair.b.api.ok('key', { ref: 'sync', value: PASSPHRASE })
    const healed = await syncNow(pair.b)
    assert.ok(Number(healed.round['received']) >= 1, JSON.stringify(healed.round))
    assert.deepEqual(healed.status.problems, [])
  })

  it('a truncated segment and a damaged record are reported in words on status and the page, the rest applied', async () => {
    // Plain files, so one record can be damaged alone (an encrypted file fails or opens whole).
    for (const machine of [pair.a, pair.b]) {
      await setSyncSettings(machine, { syncPassphraseRef: '' })
      await until(async () => !(await syncStatus(machine)).encrypted, `${machine.name} still encrypts`, 10_000)
    }
    const sealTurn = async (values: [string, string][]): Promise<string> => {
      const calls = values.map(([property, value]) => statement('lint tool', property, value))
      await converse(hostOf(pair.a).url, pair.model, pair.a.home.workspace, 'remember the lint tool', {
        toolCalls: calls,
      })
      const sent = await syncNow(pair.a)
      assert.equal(sent.round['sent'], values.length, JSON.stringify(sent.round))
      return join(folder, 'devices', deviceA, 'segments', segmentsOf(folder, deviceA).at(-1) ?? '')
    }
    const cut = await sealTurn([
      ['version', '9.1'],
      ['config', '.lintrc'],
    ])
    const damaged = await sealTurn([
      ['runner', 'ci-fast'],
      ['cache', 'on'],
    ])
    const cutBytes = readFileSync(cut)
    const damagedText = readFileSync(damaged, 'utf8')
    // A sync tool still copying: the file ends in the middle of its second record. A bad disk: one byte of a record.
    writeFileSync(cut, cutBytes.subarray(0, cutBytes.length - 40))
    assert.match(damagedText, /ci-fast/u)
    writeFileSync(damaged, damagedText.replace('ci-fast', 'ci-fist'))
    await sealTurn([['owner', 'dx team']])

    const read = await syncNow(pair.b)
    assert.equal(read.round['ok'], true, 'damaged files fail no round')
    assert.equal(read.status.lastRound?.outcome, 'partial')
    const damage = read.status.problems.filter((problem) => problem.code === 'damaged_file')
    const words = damage.map((problem) => problem.message).join('\n')
    assert.match(
      words,
      /^work laptop: devices\/\S+\.seg: the file is truncated or damaged: its header promises 2 records, 1 could be read$/mu,
    )
    assert.match(
      words,
      /^work laptop: devices\/\S+\.seg: record 1: its checksum does not match \(the line is damaged\); skipped$/mu,
    )
    const lint = async (): Promise<string[]> =>
      ((await pair.b.api.ok('facts', { subject: 'lint tool' }))['facts'] as { property: string; value: string }[])
        .map((fact) => `${fact.property}=${fact.value}`)
        .sort()
    assert.deepEqual(await lint(), ['cache=on', 'owner=dx team', 'version=9.1'], 'every intact record is applied')

    const opened = await openSyncPanel(browser, pair.b)
    const problems = opened.page.locator('fm-sync-panel [data-fm="sync-problems"]')
    await problems.filter({ hasText: 'Damaged file: work laptop: devices/' }).waitFor()
    assert.match(await problems.innerText(), /the file is truncated or damaged/u)
    assert.match(await problems.innerText(), /its checksum does not match/u)
    await opened.page.locator('fm-sync-panel').scrollIntoViewIfNeeded()
    await screenshot(opened.page, 'sync-panel-damaged-files')
    await closeClean(opened)

    // The sync tool finishes its copy: the next round reads both files again and applies what was missing.
    writeFileSync(cut, cutBytes)
    writeFileSync(damaged, damagedText)
    const healed = await syncNow(pair.b)
    assert.deepEqual(healed.status.problems, [])
    assert.deepEqual(await lint(), ['cache=on', 'config=.lintrc', 'owner=dx team', 'runner=ci-fast', 'version=9.1'])
    for (const machine of [pair.a, pair.b]) {
      await setSyncSettings(machine, { syncPassphraseRef: 'FACT_MEMORY_SYNC_PASSPHRASE' })
      await until(async () => (await syncStatus(machine)).encrypted, `${machine.name} does not encrypt again`, 10_000)
    }
  })

  it('kill -9 of A between sealing a segment and noting it sends nothing twice and loses nothing', async () => {
    const hold = armHold(pair.a, 'sealed')
    await writeThrough(pair, pair.a, 'search index', 'shards', '12')
    const round = pair.a.api.post('sync-now').catch(() => undefined)
    await hold.held()
    const sealed = segmentsOf(folder, deviceA)
    await pair.kill(pair.a)
    await round
    disarmHolds(pair.a)
    await pair.boot(pair.a)
    const again = await syncNow(pair.a)
    assert.equal(again.round['ok'], true, JSON.stringify(again.round))
    assert.equal(again.status.pending, 0, 'the sealed segment counts as sent')
    assert.deepEqual(segmentsOf(folder, deviceA), sealed, 'no segment was written again')
    await syncNow(pair.b)
    assert.deepEqual(await currentValues(pair.b, 'search index', 'shards'), ['12'])

    // What A writes after the restart goes out sealed with the passphrase, as before it.
    await writeThrough(pair, pair.a, 'search index', 'owner', 'search team')
    const next = await syncNow(pair.a)
    assert.equal(next.round['sent'], 1, JSON.stringify(next.round))
    const newest = readFileSync(join(folder, 'devices', deviceA, 'segments', segmentsOf(folder, deviceA).at(-1) ?? ''))
    assert.doesNotMatch(newest.toString('utf8'), /search team/u, 'the segment after the restart is not encrypted')
  })

  it('kill -9 of B inside its apply transaction loses and duplicates nothing, and both libraries agree', async () => {
    await writeThrough(pair, pair.a, 'search index', 'replicas', '3')
    await writeThrough(pair, pair.a, 'search index', 'shards', '16')
    await syncNow(pair.a)
    const hold = armHold(pair.b, 'applying')
    const round = pair.b.api.post('sync-now').catch(() => undefined)
    await hold.held()
    await pair.kill(pair.b)
    await round
    disarmHolds(pair.b)
    await pair.boot(pair.b)
    await syncNow(pair.b)
    assert.deepEqual(await currentValues(pair.b, 'search index', 'shards'), ['16'])
    assert.deepEqual(await currentValues(pair.b, 'search index', 'replicas'), ['3'])

    // A full exchange: both libraries list the same current facts, each once.
    await syncNow(pair.a)
    await syncNow(pair.b)
    const onA = await libraryOf(pair.a)
    const onB = await libraryOf(pair.b)
    assert.deepEqual(onB, onA)
    assert.equal(new Set(onA).size, onA.length, `a fact is listed twice: ${onA.join('\n')}`)
    console.log(`# ${onA.length} current facts, the same on both machines after two kills`)
  })

  it('a folder that cannot be made costs a turn nothing and is shown in words on status', async () => {
    const blocker = join(scratch, 'a-file')
    writeFileSync(blocker, 'not a folder')
    const unreachable = join(blocker, 'sync')
    const baseline = await writeThrough(pair, pair.a, 'docs site', 'host', 'docs.example.org')
    await setTarget(pair.a, unreachable)
    await until(
      async () => (await syncStatus(pair.a)).target?.where === unreachable,
      'the new target was not taken',
      10_000,
    )
    // The new target's start round fails first; Sync now's round is counted after it, whichever came first.
    await until(async () => (await syncStatus(pair.a)).failures === 1, 'the start round did not fail', 10_000)
    const failed = await syncNow(pair.a)
    assert.equal(failed.round['ok'], false)
    const problem = failed.status.problems[0]
    assert.ok(problem !== undefined && problem.code !== 'failed', JSON.stringify(failed.status.problems))
    assert.match(problem.message, /cannot|sync folder/u)
    assert.equal(failed.status.failures, 2)

    const turn = await writeThrough(pair, pair.a, 'docs site', 'owner', 'platform team')
    const status = await syncStatus(pair.a)
    assert.ok(status.pending >= 1, 'the change waits to be sent')
    assert.ok(
      turn < baseline + 2_000,
      `a turn took ${Math.round(turn)} ms with the target failing (${Math.round(baseline)} ms before)`,
    )
    console.log(
      `# turn with a working target ${Math.round(baseline)} ms, with an unreachable one ${Math.round(turn)} ms`,
    )

    await backOnTarget(pair.a, folder)
  })

  it('a relative target is refused in words, and an empty one turns sync off and refuses Sync now', async () => {
    await setTarget(pair.b, '')
    await until(async () => (await syncStatus(pair.b)).state === 'off', 'sync did not turn off', 10_000)
    await setTarget(pair.b, 'relative/folder')
    await until(async () => (await syncStatus(pair.b)).state === 'invalid', 'a relative path was not refused', 10_000)
    const invalid = await syncStatus(pair.b)
    assert.equal(invalid.problems[0]?.code, 'settings')
    assert.match(invalid.problems[0]?.message ?? '', /^syncTarget: the sync target must be an absolute folder path/u)
    await setTarget(pair.b, '')
    await until(async () => (await syncStatus(pair.b)).state === 'off', 'sync did not turn off', 10_000)
    const refused = await pair.b.api.post('sync-now')
    assert.equal(refused.status, 409)
    assert.match(JSON.stringify(refused.json), /sync is off/u)
    await setTarget(pair.b, folder)
    await until(async () => (await syncStatus(pair.b)).state === 'on', 'sync did not turn on again', 10_000)
  })

  it('Sync now is fenced like every verb: a request from another origin is refused and runs no round', async () => {
    // The round that turning sync on again starts may still run (on a loaded machine it ends seconds later): one Sync
    // now from the page's own origin waits for it, so the last round below is one no other request can move.
    await syncNow(pair.b)
    const before = (await syncStatus(pair.b)).lastRound?.finishedAt
    assert.ok(before !== undefined)
    const response = await fetch(`${pair.b.host?.url ?? ''}/api/fact-memory/sync-now`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://elsewhere.example' },
      body: '{}',
    })
    assert.equal(response.status, 403)
    assert.equal((await syncStatus(pair.b)).lastRound?.finishedAt, before)
  })

  it('a machine whose clock runs an hour ahead keeps the order of statements, and the other names it', async () => {
    await pair.halt(pair.a)
    await pair.boot(pair.a, clockOffsetEnv(3_600_000))
    await writeThrough(pair, pair.a, 'deploy window', 'day', 'Tuesday')
    await syncNow(pair.a)
    await syncNow(pair.b)
    // B corrects it after seeing it: by wall clocks B's word is an hour older, yet it is the later statement.
    await writeThrough(pair, pair.b, 'deploy window', 'day', 'Thursday')
    await syncNow(pair.b)
    await syncNow(pair.a)
    for (const machine of [pair.a, pair.b]) {
      assert.deepEqual(await currentValues(machine, 'deploy window', 'day'), ['Thursday'], machine.name)
      assert.deepEqual(
        (await conflictsOf(machine)).filter((group) => group.subject === 'deploy window'),
        [],
        machine.name,
      )
    }
    const skew = (await syncStatus(pair.b)).problems.find((problem) => problem.code === 'clock_skew')
    assert.match(
      skew?.message ?? '',
      /^the clock of "work laptop" runs about 1 h ahead of this machine's; changes are still ordered by what each machine had seen$/u,
    )
    assert.deepEqual(
      (await syncStatus(pair.a)).problems.filter((problem) => problem.code === 'clock_skew'),
      [],
      'A cannot tell that its own clock is off',
    )
    const opened = await openSyncPanel(browser, pair.b)
    await opened.page
      .locator('fm-sync-panel [data-fm="sync-problems"]')
      .filter({ hasText: 'Clock: the clock of "work laptop" runs about 1 h ahead' })
      .waitFor()
    await closeClean(opened)
  })

  it('a full disk under the sync folder costs a turn nothing and is reported in words on status and the page', async (t) => {
    const full = pair.a.fullDisk
    if (full === undefined) {
      t.skip('no mount namespace for a small tmpfs here (unshare --user --mount)')
      return
    }
    const baseline = await writeThrough(pair, pair.a, 'status page', 'host', 'status.example.org')
    await setTarget(pair.a, full)
    await until(async () => (await syncStatus(pair.a)).target?.where === full, 'the full disk was not taken', 10_000)
    // The new target's first round sends the whole library afresh, which does not fit in 16 KiB.
    const failed = await syncNow(pair.a)
    assert.equal(failed.round['ok'], false)
    const problem = failed.status.problems.find((entry) => entry.code === 'target_full')
    assert.equal(
      problem?.message,
      "the sync folder's disk is full; nothing was lost, the next round tries again",
      JSON.stringify(failed.status.problems),
    )
    const turn = await writeThrough(pair, pair.a, 'status page', 'owner', 'sre team')
    assert.ok(
      turn < baseline + 2_000,
      `a turn took ${Math.round(turn)} ms with the disk full (${Math.round(baseline)} ms before)`,
    )
    console.log(`# turn with a working folder ${Math.round(baseline)} ms, with a full disk ${Math.round(turn)} ms`)
    const opened = await openSyncPanel(browser, pair.a)
    const panel = opened.page.locator('fm-sync-panel')
    await panel
      .locator('[data-fm="sync-problems"]')
      .filter({ hasText: "Target is full: the sync folder's disk is full" })
      .waitFor()
    await panel.scrollIntoViewIfNeeded()
    await screenshot(opened.page, 'sync-panel-full-disk')
    await closeClean(opened)

    await backOnTarget(pair.a, folder)
    await syncNow(pair.b)
    assert.deepEqual(await currentValues(pair.b, 'status page', 'owner'), ['sre team'])
  })

  it('a one-shot headless run on A sends what it wrote before it exits, encrypted, and never in plain', async () => {
    await pair.halt(pair.a)
    const before = segmentsOf(folder, deviceA).length
    // A run that cannot read the passphrase keeps its write for a later run: an encrypted log never turns plain. (A
    // run whose host let it reach the credential store after all sends it, encrypted: either way nothing plain.)
    assert.equal(await writeHeadless(pair, pair.a, 'nightly backup', 'time', '02:30', false), 0)
    const code = await writeHeadless(pair, pair.a, 'nightly backup', 'window', '30 min')
    assert.equal(code, 0)
    const files = segmentsOf(folder, deviceA)
    assert.ok(files.length > before, 'the headless run left its write unsent')
    for (const file of files.slice(before)) {
      const sent = readFileSync(join(folder, 'devices', deviceA, 'segments', file), 'utf8')
      assert.doesNotMatch(sent, /nightly backup|02:30|30 min/u, `a headless run sent plain text in ${file}`)
    }
    const got = await syncNow(pair.b)
    assert.ok(Number(got.round['received']) >= 2, JSON.stringify(got.round))
    assert.deepEqual(await currentValues(pair.b, 'nightly backup', 'time'), ['02:30'])
  })
})
