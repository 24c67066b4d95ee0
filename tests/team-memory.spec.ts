/**
 * Team memory in a repository's folder (issue 34 item 5), on real SQLite files, both drivers, through the real round
 * (sync/sync-round.ts) over a real `<root>/.fact-memory/` folder: only the project's non-sensitive records go there,
 * each device under its own folder, whatever the sync opt-in says; a teammate's statement arrives as observed and
 * named by the teammate's device; this user's own statement outranks it, and a teammate's correction or forget never
 * ends this user's own statement; a credential, a sensitive row or another project's record in a teammate's file is
 * refused in words; and a fact that arrives through personal sync as well keeps its full evidence.
 */
import assert from 'node:assert/strict'
import { cpSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, it } from 'node:test'
import { decodeSegment } from '../src/sync/segment-format.ts'
import { runSyncRound, type RoundReport } from '../src/sync/sync-round.ts'
import type { ChangeRecord } from '../src/sync/change-record.ts'
import { openTeamFolder, teamPort } from '../src/team/team-folder.ts'
import { isTeamDevice, TEAM_FOLDER } from '../src/team/team-records.ts'
import { DRIVERS, removeDir, tempDir, write, writeFact, type PartialFact } from './helpers/store.ts'
import { SimDevice, slot } from './helpers/sync-devices.ts'
import { disposeAll, libraryOf, openDevice, pull, type StoreDevice } from './helpers/sync-stores.ts'

const KEY = 'git:example.com/acme/shop'
const SCOPE = `project:${KEY}`
const PORT = { subject: 'shop api', property: 'port', scope: SCOPE }

/** One team round of a device in a checkout of the repository. */
async function teamRound(device: StoreDevice, root: string): Promise<RoundReport> {
  const opened = await openTeamFolder(root, device.stores.sync.device(), device.h.clock.iso())
  assert.ok(opened.ok, opened.ok ? '' : opened.reason)
  return runSyncRound(teamPort(device.stores.team, KEY), opened.target, { compactAfterSegments: 64 })
}

/** Every record sealed in a team folder, per device folder. */
function folderRecords(root: string): ChangeRecord[] {
  const devices = join(root, TEAM_FOLDER, 'devices')
  return readdirSync(devices).flatMap((device) =>
    readdirSync(join(devices, device, 'segments')).flatMap((file) => {
      const read = decodeSegment(readFileSync(join(devices, device, 'segments', file)), undefined)
      return read.ok ? [...read.records] : []
    }),
  )
}

/** A store's current values of a slot as `value|status|evidence`. */
function valuesOf(device: StoreDevice, subject: string): string[] {
  return libraryOf(device.stores)
    .current.filter((line) => line.startsWith(`${subject}|`))
    .map((line) => line.split('|').slice(4, 7).join('|'))
}

for (const driver of DRIVERS) {
  describe(`team memory in the repository (${driver})`, () => {
    const opened: StoreDevice[] = []
    const roots: string[] = []
    /** A device with the project shared, checked out at its own root (two teammates, two clones). */
    const teammate = async (name: string): Promise<{ device: StoreDevice; root: string }> => {
      const device = await openDevice(driver, name)
      opened.push(device)
      const root = tempDir('fact-memory-team-')
      roots.push(root)
      device.stores.team.share({ key: KEY, name: 'shop' }, root, device.h.clock.iso())
      return { device, root }
    }
    /** The other clone's device folders, copied in as a pull brings them (git itself: tests/host-team-memory.spec.ts). */
    const gitPull = (from: string, to: string): void => {
      cpSync(join(from, TEAM_FOLDER, 'devices'), join(to, TEAM_FOLDER, 'devices'), { recursive: true })
    }
    /** The user states a value on a device (explicit), a second after its last change. */
    const say = (at: StoreDevice, fields: PartialFact) => {
      const { memory, config, clock } = at.h
      clock.advance(1000)
      return write(memory, config, { ...fields, evidence: fields.evidence ?? 'explicit_user' })
    }
    afterEach(() => {
      disposeAll(opened.splice(0))
      for (const root of roots.splice(0)) removeDir(root)
    })

    it("writes only the project's non-sensitive records, whatever the sync opt-in says, under the device's own folder", async () => {
      const a = await teammate('laptop-a')
      a.device.stores.sync.setIncludeSensitive(true)
      say(a.device, { ...PORT, value: '8080' })
      say(a.device, { subject: 'ada', property: 'email', value: 'ada@example.com', scope: SCOPE })
      say(a.device, { subject: 'editor', property: 'theme', value: 'dark' })
      say(a.device, {
        subject: 'other api',
        property: 'port',
        value: '9090',
        scope: 'project:git:example.com/acme/other',
      })
      const pinned = writeFact(a.device.h.memory, a.device.h.config, { ...PORT, subject: 'shop db', value: 'postgres' })
      a.device.stores.pins.setPin(pinned.id, a.device.h.clock.iso())

      const report = await teamRound(a.device, a.root)
      assert.equal(report.ok, true, JSON.stringify(report))
      assert.deepEqual(readdirSync(join(a.root, TEAM_FOLDER, 'devices')), [a.device.id])
      const records = folderRecords(a.root)
      const text = JSON.stringify(records)
      assert.deepEqual(records.map((record) => `${record.kind} ${'value' in record ? record.value : ''}`).sort(), [
        'write 8080',
        'write postgres',
      ])
      assert.doesNotMatch(text, /ada@example\.com|dark|9090|pinnedAt|quote/u)
      assert.equal(report.sent, 2)
      assert.equal((await teamRound(a.device, a.root)).sent, 0, 'a quiet round writes nothing')
    })

    it("a teammate's fact arrives as observed, named by the teammate's device", async () => {
      const a = await teammate('laptop-a')
      const b = await teammate('desk-b')
      say(a.device, { ...PORT, value: '8080' })
      await teamRound(a.device, a.root)
      gitPull(a.root, b.root)
      const got = await teamRound(b.device, b.root)
      assert.equal(got.received, 1, JSON.stringify(got))
      assert.deepEqual(valuesOf(b.device, 'shop api'), ['8080|active|observed'])
      const ids = b.device.h
        .db()
        .all("SELECT id FROM facts WHERE status = 'active'")
        .map((row) => Number(row['id']))
      const rows = b.device.stores.sync.sidesOf(ids)
      assert.deepEqual(
        rows.map((row) => row.devices.map((entry) => [isTeamDevice(entry.id), entry.name])),
        [[[true, 'teammate laptop-a']]],
      )
    })

    it("this user's own statement outranks a teammate's, and a teammate's correction never ends it", async () => {
      const a = await teammate('laptop-a')
      const b = await teammate('desk-b')
      say(b.device, { ...PORT, value: '3000' })
      say(a.device, { ...PORT, value: '8080' })
      await teamRound(a.device, a.root)
      gitPull(a.root, b.root)
      await teamRound(b.device, b.root)
      assert.deepEqual(valuesOf(b.device, 'shop api'), ['3000|active|explicit_user', '8080|conflict|observed'])

      // B corrects after reading A's value: on B it ends A's (and B's own 3000); on A it ends B's 3000, never A's own.
      say(b.device, { ...PORT, value: '3001' })
      await teamRound(b.device, b.root)
      gitPull(b.root, a.root)
      await teamRound(a.device, a.root)
      assert.deepEqual(valuesOf(b.device, 'shop api'), ['3001|active|explicit_user'])
      assert.deepEqual(valuesOf(a.device, 'shop api'), ['3001|conflict|observed', '8080|active|explicit_user'])
    })

    it("a teammate's forget withdraws the teammate's word, not this user's own, and blocks nothing here", async () => {
      const a = await teammate('laptop-a')
      const b = await teammate('desk-b')
      const fact = writeFact(a.device.h.memory, a.device.h.config, {
        ...PORT,
        value: '8080',
        evidence: 'explicit_user',
      })
      await teamRound(a.device, a.root)
      gitPull(a.root, b.root)
      await teamRound(b.device, b.root)
      say(b.device, { ...PORT, subject: 'shop cache', value: 'redis' })
      assert.deepEqual(valuesOf(b.device, 'shop api'), ['8080|active|observed'])

      a.device.h.clock.advance(1000)
      a.device.h.memory.forgetById(fact.id)
      await teamRound(a.device, a.root)
      gitPull(a.root, b.root)
      await teamRound(b.device, b.root)
      assert.deepEqual(valuesOf(b.device, 'shop api'), [])
      assert.deepEqual(libraryOf(b.device.stores).tombstones, [])
      const again = say(b.device, { ...PORT, value: '8080' })
      assert.equal(again.kind, 'saved', JSON.stringify(again))
      assert.deepEqual(valuesOf(b.device, 'shop api'), ['8080|active|explicit_user'])
    })

    it("refuses a credential, a sensitive row and another project's record from a teammate's file, in words", async () => {
      const b = await teammate('desk-b')
      const rogue = new SimDevice('rogue', Date.parse('2026-03-01T09:00:00.000Z'))
      const token = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB'
      const email = rogue.write(slot('ada', 'email', KEY), 'ada@example.com')
      const records = [
        rogue.write(slot('deploy', 'api token', KEY), token),
        email.kind === 'write' ? { ...email, row: { ...email.row, sensitivity: 'email' as const } } : email,
        rogue.write(slot('editor'), 'vim'),
        rogue.write(slot('shop api', 'port', KEY), '8080'),
      ]
      const port = teamPort(b.device.stores.team, KEY)
      const got = port.receive(records, { rogue: 1 }, { rogue: 'rogue laptop' })
      assert.equal(got.refused.length, 3, JSON.stringify(got.refused))
      assert.match(got.refused.join('\n'), /credential/u)
      assert.match(got.refused.join('\n'), /sensitive value from teammate rogue laptop/u)
      assert.match(got.refused.join('\n'), /another project/u)
      assert.doesNotMatch(JSON.stringify(got.refused), /ghp_|ada@/u)
      assert.deepEqual(
        libraryOf(b.device.stores).current.map((line) => line.split('|')[4]),
        ['8080'],
      )
      assert.deepEqual(b.device.stores.team.cursor(KEY), { rogue: 1 })
    })

    it('a fact that also arrives through personal sync keeps its full evidence', async () => {
      const a = await teammate('laptop-a')
      const a2 = await teammate('desk-a')
      say(a.device, { ...PORT, value: '8080' })
      await teamRound(a.device, a.root)
      gitPull(a.root, a2.root)
      await teamRound(a2.device, a2.root)
      assert.deepEqual(valuesOf(a2.device, 'shop api'), ['8080|active|observed'])
      pull(a2.device, a.device)
      assert.deepEqual(valuesOf(a2.device, 'shop api'), ['8080|active|explicit_user'])
    })
  })
}
