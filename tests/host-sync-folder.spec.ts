/**
 * Sync through a shared folder, through the real host: two DSH homes, each with its own store and web host, name one
 * folder as `syncTarget` and one passphrase. A write on A is sealed (encrypted) under devices/<A>/; B's round finds
 * device A and receives its records; "Sync now" and `status` say what happened; a wrong passphrase and a folder that
 * cannot be made are reported in words and cost a turn nothing; a one-shot headless run on A sends what it wrote
 * before it exits. Across the two machines: concurrent statements on one slot become one conflict on both, each
 * naming the machine the other side came from (on the page's conflict view and in B's memory_search answer), a later
 * correction supersedes on both, a forget on A blocks relearning on B, and a subject rename reaches B. One host pair
 * for the whole file.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { until } from './helpers/poll.ts'
import {
  assertCurrentOnB,
  callThrough,
  receivedFrom,
  segmentsOf,
  setTarget,
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

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'fact-memory-sync-'))
    folder = join(scratch, 'shared')
    pair = await startSyncPair(folder, PASSPHRASE)
    deviceA = (await syncStatus(pair.a)).device.id
  })
  after(async () => {
    await pair?.stop()
    rmSync(scratch, { recursive: true, force: true })
  })

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
    const answer = await callThrough(pair, pair.b, 'which port does the billing api use?', {
      name: 'memory_search',
      arguments: { query: 'billing api port' },
    })
    assert.match(answer, /^outcome: needs_selection\n/u)
    const line = (value: string): string => answer.split('\n').find((each) => each.startsWith(`   - ${value} [`)) ?? ''
    assert.ok(line('7810').endsWith(`] (from ${nameA})`), answer)
    assert.doesNotMatch(line('7820'), /\(from /u, answer)
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
    const forgot = await callThrough(pair, pair.a, 'forget the billing api port', {
      name: 'memory_forget',
      arguments: { subject: 'billing api', property: 'port' },
    })
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

    await setTarget(pair.a, folder)
    await until(
      async () => (await syncStatus(pair.a)).target?.where === folder,
      'the folder was not taken back',
      10_000,
    )
    const back = await syncNow(pair.a)
    assert.equal(back.round['ok'], true, JSON.stringify(back.round))
    assert.equal(back.status.pending, 0)
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
    const before = (await syncStatus(pair.b)).lastRound?.finishedAt
    const response = await fetch(`${pair.b.host?.url ?? ''}/api/fact-memory/sync-now`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://elsewhere.example' },
      body: '{}',
    })
    assert.equal(response.status, 403)
    assert.equal((await syncStatus(pair.b)).lastRound?.finishedAt, before)
  })

  it('a one-shot headless run on A sends what it wrote before it exits', async () => {
    await pair.halt(pair.a)
    const before = segmentsOf(folder, deviceA).length
    const code = await writeHeadless(pair, pair.a, 'nightly backup', 'time', '02:30')
    assert.equal(code, 0)
    assert.ok(segmentsOf(folder, deviceA).length > before, 'the headless run left its write unsent')
    const got = await syncNow(pair.b)
    assert.ok(Number(got.round['received']) >= 1, JSON.stringify(got.round))
  })
})
