/**
 * Applying other devices' records (store/sync-applier.ts through SyncLogStore.receive), on real SQLite files, both
 * drivers: two and three stores exchanging their logs reach identical libraries (current facts, history, conflicts,
 * tombstones, pins, aliases) read through the store's public reads; concurrent disagreeing statements become one
 * visible conflict on both, naming the machine each side came from, and a correction made after a sync supersedes on
 * both; a forget on one blocks relearning on the other; a received credential is refused and reported; applying
 * appends no record of this device's own and moves the generation only when facts changed; and every order and
 * repetition of the same records, over many generated sessions of every record kind, gives the same library; and a
 * process killed (SIGKILL) in the middle of applying loses and duplicates nothing.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { keysUnder } from '../src/fact-input.ts'
import { Database } from '../src/store/database.ts'
import { createStoreSet } from '../src/store/store-set.ts'
import type { ChangeRecord } from '../src/sync/change-record.ts'
import { canonicalEntity, claimKeyOf } from '../src/text/normalize.ts'
import { DRIVERS, removeDir, tempDir, write, writeFact } from './helpers/store.ts'
import { BARE_CLAIMS, randomSession, seededRandom, shuffled, SimDevice, slot } from './helpers/sync-devices.ts'
import { exportOfForgotten, importContent, verbHarness } from './helpers/verbs.ts'
import {
  deliver,
  deviceOf,
  disposeAll,
  exchangeAll,
  libraryOf,
  openDevice,
  pull,
  type StoreDevice,
} from './helpers/sync-stores.ts'

const PORT = { subject: 'billing-api', property: 'port' }
const CRASH = fileURLToPath(new URL('./fixtures/sync-receive-crash.ts', import.meta.url))
/** Seeds of the convergence property test: FACT_MEMORY_SYNC_SEEDS=31-100 widens a run, the default is 1-30. */
const SEEDS = seedRange(process.env['FACT_MEMORY_SYNC_SEEDS'] ?? '1-30')

for (const driver of DRIVERS) {
  describe(`applying other devices' records (${driver})`, () => {
    const opened: StoreDevice[] = []
    const device = async (name: string): Promise<StoreDevice> => {
      const made = await openDevice(driver, name)
      opened.push(made)
      return made
    }
    afterEach(() => {
      disposeAll(opened.splice(0))
    })

    /** Rename a subject on one store, a second after its last change. */
    const renameOn = (at: StoreDevice, entityKey: string, to: string): void => {
      at.h.clock.advance(1000)
      const renamed = at.stores.facts.renames.renameSubject(entityKey, to, keysUnder, at.h.clock.iso())
      assert.ok(renamed.ok, JSON.stringify(renamed))
    }

    const say = (at: StoreDevice, fields: Record<string, unknown>) => {
      at.h.clock.advance(1000)
      return write(at.h.memory, at.h.config, { evidence: 'explicit_user', ...fields })
    }

    it('two stores that write, correct, pin and forget reach the same library', async () => {
      const laptop = await device('laptop')
      const desktop = await device('desktop')
      say(laptop, { ...PORT, value: '7801' })
      say(laptop, { ...PORT, value: '7802' })
      const pinned = writeFact(laptop.h.memory, laptop.h.config, {
        subject: 'linter',
        property: 'tool',
        value: 'eslint',
        evidence: 'explicit_user',
      })
      laptop.stores.pins.setPin(pinned.id, laptop.h.clock.iso())
      say(desktop, { subject: 'editor', property: 'preferred', value: 'vim' })
      const gone = writeFact(desktop.h.memory, desktop.h.config, {
        subject: 'shell',
        property: 'preferred',
        value: 'zsh',
      })
      desktop.h.memory.forgetById(gone.id)
      say(desktop, { subject: 'languages', property: 'spoken', value: 'English', multi: true })
      say(laptop, { subject: 'languages', property: 'spoken', value: 'French', multi: true })

      const ownBefore = laptop.stores.sync.ownLog().length
      exchangeAll([laptop, desktop])
      assert.equal(laptop.stores.sync.ownLog().length, ownBefore, 'applying records nothing as this device’s own')
      const library = libraryOf(laptop.stores)
      assert.deepEqual(libraryOf(desktop.stores), library)
      assert.ok(library.current.some((line) => line.startsWith('billing api|port|') && line.includes('|7802|active')))
      assert.ok(library.history.some((line) => line.includes('|7801|superseded')))
      assert.ok(library.current.some((line) => line.includes('|eslint|') && !line.endsWith('pin -')))
      assert.equal(library.current.filter((line) => line.startsWith('languages|spoken|')).length, 2)
      assert.equal(library.tombstones.length, 1)
      assert.deepEqual(library.conflicts, [])
    })

    it("a project moved to its repository's key on one store moves on the other, and its old key leads there", async () => {
      const laptop = await device('laptop')
      const desktop = await device('desktop')
      const folder = { key: '/home/ada/src/billing-api', name: 'billing-api', repository: true }
      const repo = { key: 'github.com/ada/billing-api', name: 'billing-api', repository: true }
      say(laptop, { subject: 'builder', property: 'tool', value: 'make', project: folder })
      say(desktop, { subject: 'linter', property: 'tool', value: 'eslint', project: folder })
      exchangeAll([laptop, desktop])
      laptop.h.clock.advance(1000)
      laptop.stores.projectRekeys.rekeyProject(
        folder.key,
        repo,
        (fact, scope) => keysUnder({ ...fact, scope }, fact.subject),
        laptop.h.clock.iso(),
      )
      // The desktop, not having seen the move, corrects a value under the old key: it lands on the new key on both.
      say(desktop, { subject: 'builder', property: 'tool', value: 'just', project: folder })
      exchangeAll([laptop, desktop])
      const library = libraryOf(laptop.stores)
      assert.deepEqual(libraryOf(desktop.stores), library)
      assert.deepEqual(
        library.current.map((line) => line.split('|').slice(0, 6).join('|')),
        [`builder|tool|{}|project:${repo.key}|just|active`, `linter|tool|{}|project:${repo.key}|eslint|active`],
      )
      assert.deepEqual(library.history, [`builder|tool|{}|project:${repo.key}|make|superseded`])
      for (const at of [laptop, desktop])
        assert.deepEqual(
          [at.stores.facts.scopes.knownProject(folder.key)?.name, at.stores.facts.scopes.knownProject(repo.key)?.name],
          [undefined, repo.name],
          `${at.name} knows the project by its new key only`,
        )
    })

    it('a subject renamed on one leaves nothing under its old name on the other', async () => {
      const laptop = await device('laptop')
      const desktop = await device('desktop')
      say(laptop, { ...PORT, value: '7801' })
      say(desktop, { subject: 'billing-api', property: 'owner', value: 'payments team' })
      exchangeAll([laptop, desktop])
      renameOn(laptop, 'billing api', 'billing-backend')
      exchangeAll([laptop, desktop])
      const library = libraryOf(laptop.stores)
      assert.deepEqual(libraryOf(desktop.stores), library)
      assert.deepEqual(
        [...library.current, ...library.history].filter((line) => line.startsWith('billing api|')),
        [],
        'the old name holds no row on either machine',
      )
      assert.equal(library.current.filter((line) => line.startsWith('billing backend|')).length, 2)
    })

    it('an alias removed on one is gone on every other; what it moved stays, and the old name is its own again', async () => {
      const laptop = await device('laptop')
      const desktop = await device('desktop')
      const phone = await device('phone')
      say(laptop, { ...PORT, value: '7801' })
      exchangeAll([laptop, desktop, phone])
      renameOn(laptop, 'billing api', 'billing-backend')
      // The desktop reads the rename before the removal; the phone reads both at once.
      exchangeAll([laptop, desktop])
      const [alias] = laptop.stores.facts.renames.aliasesOf(canonicalEntity('billing-backend'))
      assert.ok(alias !== undefined)
      laptop.h.clock.advance(1000)
      assert.ok(laptop.stores.facts.renames.removeAlias(alias.id, laptop.h.clock.iso()))
      // Stated after the removal, under the old name: its own subject again.
      say(laptop, { subject: 'billing-api', property: 'owner', value: 'payments team' })
      exchangeAll([laptop, desktop, phone])
      const library = libraryOf(laptop.stores)
      assert.deepEqual(libraryOf(desktop.stores), library)
      assert.deepEqual(libraryOf(phone.stores), library)
      assert.deepEqual(library.aliases, [])
      assert.deepEqual(
        library.current.map((line) => line.split('|').slice(0, 5).join('|')),
        ['billing api|owner|{}|global|payments team', 'billing backend|port|{}|global|7801'],
      )
      // A later write under the old name lands there on the desktop too, as it does on the laptop.
      say(desktop, { ...PORT, value: '7802' })
      exchangeAll([laptop, desktop, phone])
      assert.deepEqual(libraryOf(laptop.stores), libraryOf(desktop.stores))
      assert.ok(libraryOf(laptop.stores).current.some((line) => line.startsWith('billing api|port|{}|global|7802|')))
    })

    it('a display-only rename of a subject or a property on one shows the new spelling on the other', async () => {
      const laptop = await device('laptop')
      const desktop = await device('desktop')
      say(laptop, { subject: 'billing api', property: 'port', value: '7801' })
      say(laptop, { subject: 'billing api', property: 'port', value: '7802' })
      exchangeAll([laptop, desktop])
      laptop.h.clock.advance(1000)
      assert.ok(
        laptop.stores.facts.renames.renameSubject('billing api', 'Billing API', keysUnder, laptop.h.clock.iso()).ok,
      )
      assert.ok(
        laptop.stores.facts.renames.renameProperty('billing api', 'port', 'Port', keysUnder, laptop.h.clock.iso()).ok,
      )
      exchangeAll([laptop, desktop])
      const library = libraryOf(laptop.stores)
      assert.deepEqual(library.names, ['billing api|Billing API|Billing API|Port'])
      assert.deepEqual(libraryOf(desktop.stores), library)
    })

    it("an import's tombstones of claims never held here block them on the other too, and forget a row held there", async () => {
      const importer = verbHarness(driver)
      try {
        const content = await exportOfForgotten(driver, { subject: 'shell', property: 'preferred', value: 'zsh' })
        const laptop = await deviceOf(importer.h, 'laptop')
        const desktop = await device('desktop')
        // The desktop learned the claim on its own, offline.
        say(desktop, { subject: 'shell', property: 'preferred', value: 'zsh' })
        await importContent(importer, content)
        assert.ok(laptop.stores.sync.ownLog().some((record) => record.kind === 'tombstone'))
        exchangeAll([laptop, desktop])
        const library = libraryOf(laptop.stores)
        assert.deepEqual(libraryOf(desktop.stores), library)
        assert.deepEqual(library.current, [])
        assert.equal(library.tombstones.length, 1)
        const again = write(desktop.h.memory, desktop.h.config, {
          subject: 'shell',
          property: 'preferred',
          value: 'zsh',
        })
        assert.equal(again.kind, 'refused', JSON.stringify(again))
      } finally {
        importer.dispose()
      }
    })

    it('three stores reach the same library whatever order they read each other in', async () => {
      const [a, b, c] = [await device('a'), await device('b'), await device('c')]
      say(a, { ...PORT, value: '7801' })
      pull(b, a)
      say(b, { ...PORT, value: '7802' })
      say(c, { subject: 'editor', property: 'preferred', value: 'helix' })
      pull(c, b)
      say(c, { ...PORT, value: '7803' })
      pull(a, c)
      exchangeAll([c, b, a])
      const library = libraryOf(a.stores)
      assert.deepEqual(libraryOf(b.stores), library)
      assert.deepEqual(libraryOf(c.stores), library)
      assert.ok(
        library.current.some((line) => line.includes('|7803|active')),
        JSON.stringify(library),
      )
      assert.deepEqual(
        library.history.filter((line) => line.startsWith('billing api|port|')).map((line) => line.split('|')[4]),
        ['7801', '7802'],
      )
    })

    it('concurrent disagreeing statements become one conflict on both, naming each machine; a later correction settles both', async () => {
      const laptop = await device('work laptop')
      const desktop = await device('home desktop')
      say(laptop, { ...PORT, value: '7801' })
      exchangeAll([laptop, desktop])
      // The laptop goes offline and both change the port.
      say(laptop, { ...PORT, value: '7810' })
      say(desktop, { ...PORT, value: '7820' })
      exchangeAll([laptop, desktop])
      const library = libraryOf(laptop.stores)
      assert.deepEqual(libraryOf(desktop.stores), library)
      assert.deepEqual(library.conflicts, ['billing api|port|{}|global'])
      const sides = library.current.filter((line) => line.startsWith('billing api|port|'))
      assert.equal(sides.length, 2, JSON.stringify(sides))
      assert.ok(sides.some((line) => line.includes('|conflict|')))
      for (const at of [laptop, desktop]) {
        const named = at.stores.sync.sidesOf(currentIds(at, 'billing api'))
        assert.deepEqual(
          named.map((side) => side.devices.map((each) => each.name)).sort(),
          [['home desktop'], ['work laptop']],
          `${at.name} names the machine each side came from`,
        )
      }

      say(desktop, { ...PORT, value: '7830' })
      exchangeAll([laptop, desktop])
      const settled = libraryOf(laptop.stores)
      assert.deepEqual(libraryOf(desktop.stores), settled)
      assert.deepEqual(settled.conflicts, [])
      assert.deepEqual(
        settled.current.filter((line) => line.startsWith('billing api|port|')).map((line) => line.split('|')[4]),
        ['7830'],
      )
    })

    it('a conflict settled on one raises the kept value’s evidence on the other, as it did where it was settled', async () => {
      const laptop = await device('work laptop')
      const desktop = await device('home desktop')
      say(laptop, { ...PORT, value: '7810', evidence: 'observed' })
      say(desktop, { ...PORT, value: '7820', evidence: 'observed' })
      exchangeAll([laptop, desktop])
      const [groupId] = laptop.h
        .db()
        .all("SELECT id FROM conflict_groups WHERE status = 'open'")
        .map((row) => Number(row['id']))
      const keep = currentIds(laptop, 'billing api').find(
        (id) => laptop.stores.facts.getFacts([id])[0]?.value === '7820',
      )
      assert.ok(groupId !== undefined && keep !== undefined)
      laptop.h.clock.advance(1000)
      const settled = laptop.stores.facts.resolveGroup(groupId, keep, laptop.h.clock.iso())
      assert.ok(settled.ok)
      assert.equal(settled.kept.evidence, 'confirmed_user')
      exchangeAll([laptop, desktop])
      const library = libraryOf(laptop.stores)
      assert.deepEqual(libraryOf(desktop.stores), library)
      assert.deepEqual(
        library.current
          .filter((line) => line.startsWith('billing api|port|'))
          .map((line) => line.split('|').slice(4, 7)),
        [['7820', 'active', 'confirmed_user']],
      )
    })

    it('a forget on one blocks relearning on the other', async () => {
      const laptop = await device('laptop')
      const desktop = await device('desktop')
      const fact = writeFact(laptop.h.memory, laptop.h.config, { ...PORT, value: '7801', evidence: 'explicit_user' })
      exchangeAll([laptop, desktop])
      laptop.h.memory.forgetById(fact.id)
      pull(desktop, laptop)
      assert.equal(libraryOf(desktop.stores).current.length, 0)
      const again = write(desktop.h.memory, desktop.h.config, { ...PORT, value: '7801' })
      assert.equal(again.kind, 'refused', JSON.stringify(again))
      assert.deepEqual(libraryOf(desktop.stores), libraryOf(laptop.stores))
    })

    it('a received credential is refused and reported, masked; the rest applies', async () => {
      const laptop = await device('laptop')
      const peer = new SimDevice('rogue', Date.parse('2026-03-01T09:00:00.000Z'))
      const token = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB'
      const records = [peer.write(slot('deploy', 'api token'), token), peer.write(slot('billing api'), '7801')]
      const got = deliver(laptop, records)
      assert.equal(got.fresh, 2)
      assert.equal(got.refused.length, 1, JSON.stringify(got.refused))
      assert.match(got.refused[0] ?? '', /credential/u)
      assert.doesNotMatch(JSON.stringify(got.refused), /ghp_/u)
      assert.deepEqual(
        libraryOf(laptop.stores).current.map((line) => line.split('|')[4]),
        ['7801'],
      )
    })

    it('moves the generation only when facts changed, and a repeat changes nothing', async () => {
      const laptop = await device('laptop')
      const desktop = await device('desktop')
      say(desktop, { ...PORT, value: '7801' })
      const before = laptop.stores.db.generation()
      const first = pull(laptop, desktop)
      assert.equal(first.changedSlots, 1)
      assert.equal(laptop.stores.db.generation(), before + 1)
      const again = pull(laptop, desktop)
      assert.deepEqual([again.fresh, again.changedSlots], [0, 0])
      assert.equal(laptop.stores.db.generation(), before + 1)
      say(desktop, { ...PORT, value: '7801' })
      const repeat = pull(laptop, desktop)
      assert.deepEqual([repeat.fresh, repeat.changedSlots], [1, 0], 'a repeat of a value held changes no slot')
      assert.equal(laptop.stores.db.generation(), before + 1)
    })

    it('a receive killed in the middle of applying loses and duplicates nothing', async () => {
      const desktop = new SimDevice('desktop', Date.parse('2026-03-01T09:00:00.000Z'))
      const records: ChangeRecord[] = []
      for (let index = 0; index < 30; index += 1) {
        desktop.wall += 1000
        records.push(desktop.write(slot(`service ${index % 12}`), String(7800 + index)))
      }
      const root = tempDir()
      try {
        const file = join(root, 'records.json')
        writeFileSync(file, JSON.stringify(records))
        const crashed = join(root, 'crashed')
        const child = spawnSync(
          process.execPath,
          ['--disable-warning=ExperimentalWarning', CRASH, crashed, driver, file, '10', '5'],
          { encoding: 'utf8', timeout: 60_000 },
        )
        assert.equal(child.signal, 'SIGKILL', `the child should die by SIGKILL; stderr:\n${child.stderr}`)
        assert.deepEqual(child.stdout.trim().split('\n'), ['committed 10', 'killing'])

        const reference = (dir: string, count: number) => {
          const db = Database.open({ dataDir: join(root, dir), driver, now: () => '2026-03-01T09:00:00.000Z' })
          const stores = createStoreSet(db, join(root, dir))
          stores.sync.receive(records.slice(0, count), { desktop: 1 })
          const library = libraryOf(stores)
          db.close()
          return library
        }
        const db = Database.open({ dataDir: crashed, driver, now: () => '2026-03-01T09:00:00.000Z' })
        try {
          const stores = createStoreSet(db, crashed)
          assert.equal(String(db.get('PRAGMA integrity_check')?.['integrity_check']), 'ok')
          assert.deepEqual(stores.sync.cursor(), { desktop: 1 }, 'the cursor stays before the batch that died')
          assert.equal(stores.sync.receivedRecords().length, 10)
          assert.deepEqual(libraryOf(stores), reference('first', 10), 'nothing of the killed receive is left')
          const again = stores.sync.receive(records.slice(10), { desktop: 2 })
          assert.equal(again.fresh, 20, 'the same records read again are applied once')
          assert.deepEqual(libraryOf(stores), reference('all', 30))
          assert.equal(
            Number(db.get("SELECT count(*) AS n FROM facts WHERE status IN ('active', 'conflict')")?.['n']),
            12,
          )
        } finally {
          db.close()
        }
      } finally {
        removeDir(root)
      }
    })

    it(`every order and repetition of the same records gives the same library (seeds ${SEEDS.label} × 40 changes)`, async () => {
      const started = performance.now()
      // Two stores for every seed: each seed's session lives under its own subject names and operation ids.
      const whole = await device('whole')
      const pieces = await device('pieces')
      for (let seed = SEEDS.first; seed <= SEEDS.last; seed += 1) {
        const records = underSeed(randomSession(seed, 40).records, seed)
        const random = seededRandom(seed * 7919)
        deliver(whole, records)
        for (const batch of batches(shuffled([...records, ...records.slice(0, 10)], random), random))
          deliver(pieces, batch)
        assert.deepEqual(libraryOf(pieces.stores), libraryOf(whole.stores), `seed ${seed}`)
      }
      assert.ok(libraryOf(whole.stores).current.length > 10 * (SEEDS.last - SEEDS.first + 1))
      // Measured on the shared 2-core machine; printed, not asserted.
      console.log(`# ${driver}: seeds ${SEEDS.label} × 40 changes in ${Math.round(performance.now() - started)} ms`)
    })

    /** Records given whole to one store and in the batches of `order` to another give the same library. */
    const sameWhateverOrder = async (records: readonly ChangeRecord[], order: readonly (readonly ChangeRecord[])[]) => {
      const whole = await device('whole')
      const pieces = await device('pieces')
      deliver(whole, records)
      for (const batch of order) deliver(pieces, batch)
      assert.deepEqual(libraryOf(pieces.stores), libraryOf(whole.stores))
      return libraryOf(whole.stores)
    }

    it('an undone put-back of a value also stated leaves the same history whether applied before the undo or not', async () => {
      const desktop = new SimDevice('desktop', Date.parse('2026-03-01T09:00:00.000Z'))
      const putBack = desktop.putBack(slot('svc b'), '7802')
      const write = desktop.write(slot('svc b'), '7802')
      const undo = desktop.restore([putBack.op])
      const library = await sameWhateverOrder([putBack, write, undo], [[putBack], [write], [undo]])
      assert.deepEqual(
        library.current.map((line) => line.split('|')[4]),
        ['7802'],
      )
      // The put-back's row, undone, stays as a retired trace, as an undone statement's row does.
      assert.deepEqual(library.history, ['svc b|port|{}|global|7802|retired'])
    })

    it('an undone move of a value stated again leaves the same history whether the move ended a row or not', async () => {
      const laptop = new SimDevice('laptop', Date.parse('2026-03-01T09:00:00.000Z'))
      const first = laptop.write(slot('svc b'), '7803')
      const move = laptop.move(slot('svc b'), '7803', 'proj')
      const again = laptop.write(slot('svc b'), '7803')
      const undo = laptop.restore([move.op])
      // Read in this order, the move ends the first statement's row beside the current one before it is undone.
      const library = await sameWhateverOrder([first, move, again, undo], [[again], [move], [first], [undo]])
      assert.deepEqual(
        library.current.map((line) => line.split('|').slice(3, 5).join('|')),
        ['global|7803'],
      )
      assert.deepEqual(library.history, [
        'svc b|port|{}|global|7803|retired',
        'svc b|port|{}|project:proj|7803|retired',
      ])
    })

    it('a forget of a conflict’s active side arriving with a stronger new value leaves the new value active', async () => {
      const desktop = new SimDevice('desktop', Date.parse('2026-03-01T09:00:00.000Z'))
      const container = new SimDevice('container', Date.parse('2026-03-01T08:00:00.000Z'))
      const stronger = container.write(slot('svc a'), '7801', 'confirmed_user')
      const forget = desktop.forget(slot('svc a'), '7801')
      const weaker = desktop.write(slot('svc a'), '7802', 'observed')
      const strongest = new SimDevice('laptop', Date.parse('2026-03-01T10:00:00.000Z')).write(
        slot('svc a'),
        '7804',
        'confirmed_user',
      )
      const records = [stronger, forget, weaker, strongest]
      const whole = await device('whole')
      const pieces = await device('pieces')
      deliver(whole, records)
      // A conflict of 7801 (active) and 7802 first; then the forget of 7801 and 7804 in one batch.
      deliver(pieces, [weaker, stronger])
      deliver(pieces, [forget, strongest])
      assert.deepEqual(libraryOf(pieces.stores), libraryOf(whole.stores))
      assert.deepEqual(
        libraryOf(whole.stores).current.map((line) => line.split('|').slice(4, 6).join('|')),
        ['7802|conflict', '7804|active'],
      )
    })

    it('a value forgotten before its subject was renamed elsewhere leaves nothing when both arrive together', async () => {
      const laptop = new SimDevice('laptop', Date.parse('2026-03-01T09:00:00.000Z'))
      const desktop = new SimDevice('desktop', Date.parse('2026-03-01T10:00:00.000Z'))
      const write = laptop.write(slot('svc c', 'owner'), '7803')
      const forget = laptop.forget(slot('svc c', 'owner'), '7803')
      const rename = desktop.rename('svc c', 'svc b')
      const library = await sameWhateverOrder([write, forget, rename], [[write], [forget, rename]])
      assert.deepEqual([...library.current, ...library.history], [])
    })

    it('an undone project move returns a row it moved, beside a global put-back of the same value', async () => {
      const laptop = new SimDevice('laptop', Date.parse('2026-03-01T09:00:00.000Z'))
      const moved = laptop.renameProject('repo', 'proj')
      const undo = laptop.restore([moved.op])
      const write = new SimDevice('desktop', Date.parse('2026-03-01T10:00:00.000Z')).write(
        slot('svc a', 'owner', 'repo'),
        '7803',
      )
      const putBack = new SimDevice('container', Date.parse('2026-03-01T10:00:00.000Z')).putBack(
        slot('svc a', 'owner'),
        '7803',
      )
      const library = await sameWhateverOrder([moved, undo, write, putBack], [[moved], [putBack], [write], [undo]])
      assert.deepEqual(
        library.current.map((line) => line.split('|').slice(3, 5).join('|')),
        ['project:repo|7803'],
      )
    })

    it('a rename taken back (to its own name) leaves nothing renamed on a store that read the rename first', async () => {
      const laptop = new SimDevice('laptop', Date.parse('2026-03-01T09:00:00.000Z'))
      const records = [
        laptop.write(slot('svc c', 'owner'), '7801'),
        laptop.write(slot('svc b'), '7801'),
        laptop.rename('svc b', 'svc c'),
        laptop.rename('svc b', 'svc b'),
      ]
      const library = await sameWhateverOrder(
        records,
        records.map((record) => [record]),
      )
      assert.deepEqual(library.aliases, [])
      assert.deepEqual(library.current, [
        'svc b|port|{}|global|7801|active|explicit_user|pin -',
        'svc c|owner|{}|global|7801|active|explicit_user|pin -',
      ])
    })

    it('an undone statement that a kept expiry had ended leaves the same history whether the expiry met it or not', async () => {
      const laptop = new SimDevice('laptop', Date.parse('2026-03-01T09:00:00.000Z'))
      const desktop = new SimDevice('desktop', Date.parse('2026-03-01T10:00:00.000Z'))
      const first = laptop.write(slot('svc a'), '7801')
      desktop.pull(laptop)
      const expiry = desktop.expire(slot('svc a'), '7801')
      // The laptop, not having seen the expiry, states the value again, then takes its first statement back.
      const again = laptop.write(slot('svc a'), '7801')
      const undo = laptop.restore([first.op])
      // Read before the undo, the expiry ends the first statement's row beside the current one.
      const library = await sameWhateverOrder([first, expiry, again, undo], [[first, expiry, again], [undo]])
      assert.deepEqual(
        library.current.map((line) => line.split('|').slice(4, 6).join('|')),
        ['7801|active'],
      )
      assert.deepEqual(library.history, ['svc a|port|{}|global|7801|retired'])
    })

    it('a forget read while two renames into each other are half read blocks the claim under both names', async () => {
      const laptop = new SimDevice('laptop', Date.parse('2026-03-01T09:00:00.000Z'))
      const container = new SimDevice('container', Date.parse('2026-03-01T09:00:00.000Z'))
      const desktop = new SimDevice('desktop', Date.parse('2026-03-01T10:00:00.000Z'))
      const stated = laptop.write(slot('svc b'), '7802')
      const intoA = container.rename('svc b', 'svc a')
      const intoB = laptop.rename('svc a', 'svc b')
      const forget = desktop.forget(slot('svc a'), '7802')
      // Read with the rename into "svc b" alone, the forget is held under "svc b"; the two renames settle on "svc a".
      const bare = await sameWhateverOrder([intoA, intoB, forget], [[intoB], [forget], [intoA]])
      const stating = await sameWhateverOrder([stated, intoA, intoB, forget], [[intoB], [forget], [stated, intoA]])
      for (const library of [bare, stating]) {
        assert.deepEqual([...library.current, ...library.history], [], 'the forgotten claim leaves no row')
        assert.equal(library.tombstones.length, 3, 'the forget’s own key, and the claim under "svc a" and "svc b"')
      }
    })

    it('a forget undone on its device lifts its tombstones on a store that had read the forget', async () => {
      const laptop = new SimDevice('laptop', Date.parse('2026-03-01T09:00:00.000Z'))
      const desktop = new SimDevice('desktop', Date.parse('2026-03-01T10:00:00.000Z'))
      const write = laptop.write(slot('svc a'), '7801')
      const forget = laptop.forget(slot('svc a'), '7801')
      const undo = laptop.restore([forget.op])
      const lifted = await sameWhateverOrder([write, forget, undo], [[write, forget], [undo]])
      assert.deepEqual(lifted.current, ['svc a|port|{}|global|7801|active|explicit_user|pin -'])
      assert.deepEqual(lifted.tombstones, [], 'the undone forget leaves no tombstone')
      // A forget of the same claim from another device, not undone, keeps it blocked on every store.
      const again = desktop.forget(slot('svc a'), '7801')
      const held = await sameWhateverOrder([write, forget, undo, again], [[write, forget], [again], [undo]])
      assert.deepEqual([...held.current, ...held.history], [])
      assert.equal(held.tombstones.length, 2, 'the standing forget’s own key and the claim’s')
    })

    it('a forget undone on its device leaves a key that a standing forget of another subject carries too', async () => {
      const laptop = new SimDevice('laptop', Date.parse('2026-03-01T09:00:00.000Z'))
      const desktop = new SimDevice('desktop', Date.parse('2026-03-01T10:00:00.000Z'))
      // Two facts stated with one quote share its evidence key: each forget carries it.
      const shared = { kind: 'claim' as const, key: 'f'.repeat(64) }
      const write = laptop.write(slot('svc a'), '7801')
      const forget = { ...laptop.forget(slot('svc a'), '7801'), tombstones: [shared] } as ChangeRecord
      const undo = laptop.restore([forget.op])
      const other = { ...desktop.forget(slot('svc b'), '7802'), tombstones: [shared] } as ChangeRecord
      const library = await sameWhateverOrder([write, forget, other, undo], [[write, forget, other], [undo]])
      assert.deepEqual(library.current, ['svc a|port|{}|global|7801|active|explicit_user|pin -'])
      assert.ok(library.tombstones.includes(shared.key), 'the standing forget’s key stays')
    })

    it('a rename taken back returns its row to the subject it came from, not to another stating the same value', async () => {
      const laptop = new SimDevice('laptop', Date.parse('2026-03-01T09:00:00.000Z'))
      const container = new SimDevice('container', Date.parse('2026-03-01T08:58:30.000Z'))
      const stated = container.write(slot('svc b', 'owner'), '7804', 'observed')
      laptop.pull(container)
      const renamed = laptop.rename('svc b', 'svc c')
      // The same value stated under a third subject, then corrected there.
      const elsewhere = laptop.write(slot('svc a', 'owner'), '7804', 'observed')
      const corrected = laptop.write(slot('svc a', 'owner'), '7801')
      const undo = laptop.restore([renamed.op])
      const library = await sameWhateverOrder(
        [stated, renamed, elsewhere, corrected, undo],
        [
          [renamed, stated, elsewhere],
          [corrected, undo],
        ],
      )
      assert.deepEqual(library.current, [
        'svc a|owner|{}|global|7801|active|explicit_user|pin -',
        'svc b|owner|{}|global|7804|active|observed|pin -',
      ])
      // With a value of its own in the subject the rename led to, the row left behind there was a second active row.
      const own = new SimDevice('desktop', Date.parse('2026-03-01T10:00:00.000Z')).write(slot('svc c', 'owner'), '7802')
      const crowded = await sameWhateverOrder(
        [stated, renamed, own, elsewhere, corrected, undo],
        [
          [renamed, own, stated, elsewhere],
          [corrected, undo],
        ],
      )
      assert.deepEqual(crowded.current, [...library.current, 'svc c|owner|{}|global|7802|active|explicit_user|pin -'])
    })

    it('a bare tombstone of a claim as stated blocks it after its subject was renamed, in every order', async () => {
      const laptop = new SimDevice('laptop', Date.parse('2026-03-01T09:00:00.000Z'))
      const desktop = new SimDevice('desktop', Date.parse('2026-03-01T10:00:00.000Z'))
      const tombstone = laptop.bareTombstone(slot('svc c', 'owner'), '7801')
      const stated = desktop.write(slot('svc c', 'owner'), '7801')
      const renamed = desktop.rename('svc c', 'svc b')
      const records = [tombstone, stated, renamed]
      // Read with the rename, the row is held under "svc b", where the tombstone's key (of "svc c") names no row.
      const afterRename = await sameWhateverOrder(records, [[stated, renamed], [tombstone]])
      // Read before the rename, the row was forgotten under "svc c", where the rename would leave a trace.
      const beforeRename = await sameWhateverOrder(records, [[stated], [tombstone], [renamed]])
      for (const library of [afterRename, beforeRename]) {
        assert.deepEqual([...library.current, ...library.history], [], 'the blocked claim leaves no row')
        assert.equal(library.tombstones.length, 2, 'the claim under "svc c" (the bare key) and under "svc b"')
      }
    })

    it('a bare tombstone blocks its claim under every name a chain of renames passed through', async () => {
      const container = new SimDevice('container', Date.parse('2026-03-01T08:58:30.000Z'))
      const desktop = new SimDevice('desktop', Date.parse('2026-03-01T10:00:00.000Z'))
      const intoC = container.rename('svc a', 'svc c')
      const intoB = desktop.rename('svc c', 'svc b')
      const tombstone = desktop.bareTombstone(slot('svc a'), '7804')
      desktop.pull(container)
      const putBack = desktop.putBack(slot('svc a'), '7804')
      const records = [intoC, intoB, tombstone, putBack]
      // Read with the first rename alone, the put-back's row is held under "svc c", and the tombstone there too.
      const halfRenamed = await sameWhateverOrder(records, [[tombstone, putBack, intoC], [intoB]])
      const rowHalfRenamed = await sameWhateverOrder(records, [
        [putBack, intoC],
        [intoB, tombstone],
      ])
      for (const library of [halfRenamed, rowHalfRenamed]) {
        assert.deepEqual([...library.current, ...library.history], [], 'the blocked claim leaves no row')
        assert.equal(library.tombstones.length, 3, 'the claim under "svc a" (the bare key), "svc c" and "svc b"')
      }
    })

    it('a bare tombstone forgets a project-scoped row of its claim on a store that held the row first', async () => {
      const container = new SimDevice('container', Date.parse('2026-03-01T08:58:30.000Z'))
      const stated = container.write(slot('svc a', 'owner', 'proj'), '7803', 'observed')
      // The tombstone's key is the claim's outside any project; the row's own claim key names its project.
      const tombstone = container.bareTombstone(slot('svc a', 'owner'), '7803')
      const library = await sameWhateverOrder([stated, tombstone], [[stated], [tombstone]])
      assert.deepEqual([...library.current, ...library.history], [], 'the blocked claim leaves no row')
      assert.equal(library.tombstones.length, 1)
    })

    it('a bare tombstone undone on its device lifts its key, and brings back a row it forgot', async () => {
      const container = new SimDevice('container', Date.parse('2026-03-01T08:58:30.000Z'))
      const stated = container.write(slot('svc a'), '7801')
      const tombstone = container.bareTombstone(slot('svc a'), '7801')
      const undo = container.restore([tombstone.op])
      const bare = await sameWhateverOrder([tombstone, undo], [[tombstone], [undo]])
      assert.deepEqual(bare.tombstones, [], 'the undone tombstone leaves no key')
      const stating = await sameWhateverOrder([stated, tombstone, undo], [[stated], [tombstone], [undo]])
      assert.deepEqual(stating.current, ['svc a|port|{}|global|7801|active|explicit_user|pin -'])
      assert.deepEqual(stating.tombstones, [])
      // Read with the tombstone, the value was never inserted here: no row of it names the subject to bring it back.
      const together = await sameWhateverOrder([stated, tombstone, undo], [[stated, tombstone], [undo]])
      assert.deepEqual(together, stating)
    })

    it('a forget undone on its device lifts the key it carried though a bare tombstone blocks its claim', async () => {
      const container = new SimDevice('container', Date.parse('2026-03-01T08:58:30.000Z'))
      const desktop = new SimDevice('desktop', Date.parse('2026-03-01T10:00:00.000Z'))
      const tombstone = desktop.bareTombstone(slot('svc b', 'owner'), '7802')
      const stated = container.write(slot('svc b', 'owner'), '7802')
      const forget = container.forget(slot('svc b', 'owner'), '7802')
      const undo = container.restore([forget.op])
      const library = await sameWhateverOrder([tombstone, stated, forget, undo], [[tombstone, stated, forget], [undo]])
      assert.deepEqual([...library.current, ...library.history], [])
      assert.deepEqual(library.tombstones, [tombstone.kind === 'tombstone' ? tombstone.tombstones[0]?.key : ''])
    })

    it('a project rename taken back leaves an undone statement’s trace under its own key only', async () => {
      const laptop = new SimDevice('laptop', Date.parse('2026-03-01T09:00:00.000Z'))
      const container = new SimDevice('container', Date.parse('2026-03-01T08:58:30.000Z'))
      const desktop = new SimDevice('desktop', Date.parse('2026-03-01T10:00:00.000Z'))
      const renamed = laptop.renameProject('proj', 'repo')
      const stated = container.write(slot('svc a', 'owner', 'proj'), '7803')
      const undo = container.restore([stated.op])
      desktop.pull(laptop)
      const back = desktop.renameProject('proj', 'proj')
      // Read before the rename was taken back, the undone statement left a trace under the key in force too.
      const library = await sameWhateverOrder([renamed, stated, undo, back], [[stated, renamed, undo], [back]])
      assert.deepEqual(library.current, [])
      assert.deepEqual(library.history, ['svc a|owner|{}|project:proj|7803|retired'])
    })

    it('a value stated under two names an overridden rename joined keeps its twin’s history on every store', async () => {
      const container = new SimDevice('container', Date.parse('2026-03-01T08:58:30.000Z'))
      const laptop = new SimDevice('laptop', Date.parse('2026-03-01T09:00:00.000Z'))
      const desktop = new SimDevice('desktop', Date.parse('2026-03-01T10:00:00.000Z'))
      const intoC = container.rename('svc a', 'svc c')
      laptop.pull(container)
      const underC = laptop.write(slot('svc c', 'owner'), '7802', 'observed')
      const underA = laptop.write(slot('svc a', 'owner'), '7802', 'confirmed_user')
      // A later rename of "svc a" overrides the first: the two statements no longer share a slot.
      const intoB = desktop.rename('svc a', 'svc b')
      const records = [intoC, underC, underA, intoB]
      // Read before the override, the rename into "svc c" merged the two statements there, leaving a superseded twin.
      const library = await sameWhateverOrder(records, [[underC, intoC, underA], [intoB]])
      assert.ok(library.history.includes('svc c|owner|{}|global|7802|superseded'), JSON.stringify(library))
    })

    it('a subject renamed on another device shows the new name as it was typed, not its key', async () => {
      const laptop = await device('laptop')
      const desktop = await device('desktop')
      say(laptop, { subject: 'payments svc', property: 'owner', value: 'ledger team' })
      pull(desktop, laptop)
      const renamed = laptop.stores.facts.renames.renameSubject(
        'payments svc',
        'ledger service',
        keysUnder,
        laptop.h.clock.iso(),
      )
      assert.ok(renamed.ok, JSON.stringify(renamed))
      pull(desktop, laptop)
      const shown = (at: StoreDevice) =>
        at.h
          .db()
          .all(
            `SELECT e.display FROM facts f JOIN entities e ON e.id = f.entity_id
            WHERE f.status IN ('active', 'conflict') AND e.entity_key = ?`,
            canonicalEntity('ledger service'),
          )
          .map((row) => String(row['display']))
      assert.deepEqual(shown(laptop), ['ledger service'])
      assert.deepEqual(shown(desktop), ['ledger service'])
    })
  })
}

/** Parse "first-last" (or one seed) into an inclusive seed range; anything else stops the run with a clear error. */
function seedRange(text: string): { first: number; last: number; label: string } {
  const match = /^(\d+)(?:-(\d+))?$/u.exec(text.trim())
  const first = Number(match?.[1])
  const last = Number(match?.[2] ?? match?.[1])
  if (!match || first < 1 || last < first) throw new Error(`FACT_MEMORY_SYNC_SEEDS must be "first-last", got "${text}"`)
  return { first, last, label: `${first}-${last}` }
}

/**
 * A session's records under subject names, project keys and operation ids of their own seed; a bare tombstone's key
 * is that of its claim under the seed's subject name.
 */
function underSeed(records: readonly ChangeRecord[], seed: number): ChangeRecord[] {
  return records.map((record) => {
    const moved = JSON.parse(
      JSON.stringify(record)
        .replaceAll('"svc ', `"s${seed} svc `)
        .replace(/([":])(proj|repo)"/gu, `$1s${seed}-$2"`)
        .replace(/"(laptop|desktop|container):(\d{6})"/gu, `"$1:${seed}-$2"`),
    ) as ChangeRecord
    if (moved.kind !== 'tombstone') return moved
    const tombstones = moved.tombstones.map((key) => {
      const claim = BARE_CLAIMS.get(key.key)
      if (claim === undefined) return key
      const { entity, predicate, qualifiers } = claim.slot
      return { ...key, key: claimKeyOf(`s${seed} ${entity}`, predicate, qualifiers, claim.value) }
    })
    return { ...moved, tombstones }
  })
}

/** Split records into 1 to 6 random batches. */
function batches(records: readonly ChangeRecord[], random: () => number): ChangeRecord[][] {
  const out: ChangeRecord[][] = []
  let rest = [...records]
  while (rest.length > 0) {
    const take = 1 + Math.floor(random() * Math.max(1, rest.length / 2))
    out.push(rest.slice(0, take))
    rest = rest.slice(take)
  }
  return out
}

/** Ids of a subject's current rows, read on the probe connection. */
function currentIds(at: StoreDevice, entity: string): number[] {
  return at.h
    .db()
    .all(
      `SELECT f.id FROM facts f JOIN entities e ON e.id = f.entity_id
      WHERE e.entity_key = ? AND f.status IN ('active', 'conflict') ORDER BY f.id`,
      entity,
    )
    .map((row) => Number(row['id']))
}
