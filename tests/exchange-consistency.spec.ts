/**
 * What an import leaves behind, both SQLite bindings: a tombstone in the file forgets the claim it names when that
 * claim is current here (one edit the user can undo), a pin survives only a file this store exported, and the
 * manifest hashes fact records as seed 000 defines them while alias and tombstone lines carry their own count and hash.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { instantColumn } from '../src/store/fact-rows.ts'
import { count, DRIVERS, oneRow, write, writeFact } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

const sha = (lines: readonly string[]): string =>
  createHash('sha256')
    .update(lines.map((line) => `${line}\n`).join(''), 'utf8')
    .digest('hex')

/** An export's lines: the manifest, then fact, alias and tombstone lines apart. */
function exportedLines(path: string): {
  manifest: Record<string, unknown>
  facts: string[]
  aliases: string[]
  tombstones: string[]
} {
  const [first, ...rest] = readFileSync(path, 'utf8').slice(0, -1).split('\n')
  const kind = (line: string): string => {
    const value = JSON.parse(line) as Record<string, unknown>
    return Object.hasOwn(value, 'tombstone') ? 'tombstone' : Object.hasOwn(value, 'aliasOf') ? 'alias' : 'fact'
  }
  return {
    manifest: JSON.parse(first ?? '') as Record<string, unknown>,
    facts: rest.filter((line) => kind(line) === 'fact'),
    aliases: rest.filter((line) => kind(line) === 'alias'),
    tombstones: rest.filter((line) => kind(line) === 'tombstone'),
  }
}

for (const driver of DRIVERS) {
  describe(`an import leaves a consistent library (${driver})`, () => {
    let v: VerbHarness
    let other: VerbHarness

    beforeEach(() => {
      v = verbHarness(driver)
      other = verbHarness(driver)
    })
    afterEach(() => {
      v.dispose()
      other.dispose()
    })

    const exportOf = async (harness: VerbHarness): Promise<{ path: string; content: string }> => {
      const answer = await harness.ok('export', { backup: false })
      return { path: String(answer['relativePath']), content: readFileSync(String(answer['path']), 'utf8') }
    }
    const importInto = async (
      harness: VerbHarness,
      content: string,
    ): Promise<{ preview: Record<string, unknown>; commit: Record<string, unknown> }> => {
      const preview = await harness.ok('import', { mode: 'preview', content })
      const commit = await harness.ok('import', {
        mode: 'commit',
        content,
        token: preview['token'],
        ...harness.fence(),
      })
      return { preview, commit }
    }
    const statusOf = (harness: VerbHarness, id: number): string =>
      String(oneRow(harness.h.db(), 'SELECT status FROM facts WHERE id = ?', id)['status'])
    const pinOf = (harness: VerbHarness, value: string): unknown =>
      oneRow(
        harness.h.db(),
        `SELECT ${instantColumn('pinned_at')} FROM facts WHERE value = ? AND status <> 'forgotten'`,
        value,
      )['pinned_at']

    describe('a tombstone in the file', () => {
      it('forgets the current claim it names, drops it from search, and says so in the preview and the receipt', async () => {
        const kept = writeFact(v.h.memory, v.h.config, { subject: 'billing-api', property: 'port', value: '7801' })
        const named = writeFact(v.h.memory, v.h.config, {
          subject: 'billing-api',
          property: 'owner',
          value: 'team blue',
        })
        const gone = writeFact(other.h.memory, other.h.config, {
          subject: 'billing-api',
          property: 'owner',
          value: 'team blue',
        })
        other.h.memory.forgetById(gone.id)
        const file = await exportOf(other)
        const generation = v.generation()

        const preview = await v.ok('import', { mode: 'preview', content: file.content })
        assert.equal(v.generation(), generation, 'a preview writes nothing')
        assert.equal(statusOf(v, named.id), 'active')
        const forgets = preview['tombstones'] as {
          total: number
          forgets: { id: number; subject: string; property: string; value: string }[]
        }
        assert.deepEqual(
          forgets.forgets.map((row) => [row.id, row.subject, row.property, row.value]),
          [[named.id, 'billing-api', 'owner', 'team blue']],
        )

        const commit = await v.ok('import', {
          mode: 'commit',
          content: file.content,
          token: preview['token'],
          ...v.fence(),
        })
        assert.equal(statusOf(v, named.id), 'forgotten')
        assert.equal(statusOf(v, kept.id), 'active')
        assert.deepEqual(
          (commit['forgotten'] as { id: number }[]).map((row) => row.id),
          [named.id],
        )
        assert.equal(typeof (commit['undo'] as { editId: number }).editId, 'number')
        const listed = (await v.ok('facts', {}))['facts'] as { id: number }[]
        assert.deepEqual(
          listed.map((row) => row.id),
          [kept.id],
          'the library lists only what is still current',
        )
        const found = await v.h.memory.search(
          { query: 'billing-api owner team blue', limit: 10, asOf: undefined },
          v.h.config,
        )
        assert.doesNotMatch(JSON.stringify(found.results), /team blue/u, 'search no longer finds the forgotten claim')
        assert.equal(
          write(v.h.memory, v.h.config, { subject: 'billing-api', property: 'owner', value: 'team blue' }).kind,
          'refused',
          'a rewrite is refused, as for any forgotten claim',
        )
      })

      it("forgets a project's row of the claim it names, as it forgets the row outside any project", async () => {
        const project = { key: '/home/ada/src/billing-api', name: 'billing-api' }
        const named = writeFact(v.h.memory, v.h.config, {
          subject: 'billing-api',
          property: 'owner',
          value: 'team green',
          project,
        })
        const gone = writeFact(other.h.memory, other.h.config, {
          subject: 'billing-api',
          property: 'owner',
          value: 'team green',
        })
        other.h.memory.forgetById(gone.id)
        const { preview } = await importInto(v, (await exportOf(other)).content)
        const forgets = (preview['tombstones'] as { forgets: { id: number }[] }).forgets
        assert.deepEqual(
          forgets.map((row) => row.id),
          [named.id],
          'the preview names the project row',
        )
        assert.equal(statusOf(v, named.id), 'forgotten')
        assert.equal(
          write(v.h.memory, v.h.config, { subject: 'billing-api', property: 'owner', value: 'team green', project })
            .kind,
          'refused',
          'the project refuses it again, as the tombstone says',
        )
      })

      it('is undone by fact-restore: the claim is current again, its tombstones are gone, and it can be written again', async () => {
        const named = writeFact(v.h.memory, v.h.config, {
          subject: 'orders-api',
          property: 'queue',
          value: 'orders-eu',
        })
        const gone = writeFact(other.h.memory, other.h.config, {
          subject: 'orders-api',
          property: 'queue',
          value: 'orders-eu',
        })
        other.h.memory.forgetById(gone.id)
        const tombstonesBefore = count(v.h.db(), 'SELECT count(*) AS n FROM tombstones')
        const { commit } = await importInto(v, (await exportOf(other)).content)
        assert.equal(statusOf(v, named.id), 'forgotten')

        await v.ok('fact-restore', v.fence({ editId: (commit['undo'] as { editId: number }).editId }))
        assert.equal(statusOf(v, named.id), 'active')
        assert.equal(count(v.h.db(), 'SELECT count(*) AS n FROM tombstones'), tombstonesBefore)
        assert.equal(
          write(v.h.memory, v.h.config, { subject: 'orders-api', property: 'queue', value: 'orders-eu' }).kind,
          'duplicate',
        )
        const listed = (await v.ok('facts', {}))['facts'] as { id: number }[]
        assert.deepEqual(
          listed.map((row) => row.id),
          [named.id],
        )
      })

      it('refuses a record of the same file that the file itself forgets, and its undo has nothing to bring back', async () => {
        const gone = writeFact(other.h.memory, other.h.config, { subject: 'cache', property: 'ttl', value: '30 s' })
        other.h.memory.forgetById(gone.id)
        const file = await exportOf(other)
        const content = `${file.content}${JSON.stringify({ subject: 'cache', property: 'ttl', value: '30 s' })}\n`
        const { preview, commit } = await importInto(v, content)
        assert.deepEqual(preview['counts'], {
          new: 0,
          duplicate: 0,
          repeated: 0,
          conflict: 0,
          tombstoned: 1,
          invalid: 0,
        })
        assert.deepEqual(commit['counts'], preview['counts'])
        assert.equal(count(v.h.db(), `SELECT count(*) AS n FROM facts WHERE value = '30 s'`), 0)
        assert.deepEqual(commit['forgotten'], [])
        const undone = await v.ok('fact-restore', v.fence({ editId: (commit['undo'] as { editId: number }).editId }))
        assert.deepEqual(undone['facts'], [])
      })
    })

    describe('a pin in the file', () => {
      const pinned = (value: string, pinnedAt = '2026-02-01T08:00:00.000Z'): string =>
        `${JSON.stringify({ subject: 'deploys', property: 'day', value, evidence: 'observed', pinnedAt })}\n`

      it("is dropped from a file that is not this store's export, and the preview says which lines lost it", async () => {
        const { preview } = await importInto(v, pinned('Tuesday'))
        assert.equal(pinOf(v, 'Tuesday'), null)
        assert.deepEqual(preview['pinsDropped'], {
          count: 1,
          lines: [1],
          reason: preview['pinsDropped'] && (preview['pinsDropped'] as { reason: string }).reason,
        })
        assert.match((preview['pinsDropped'] as { reason: string }).reason, /pin is the user's own act/u)
        const row = (preview['records'] as { line: number; pinDropped?: boolean }[])[0]
        assert.equal(row?.pinDropped, true)
      })

      it("is dropped from another store's export", async () => {
        const fact = writeFact(other.h.memory, other.h.config, {
          subject: 'deploys',
          property: 'day',
          value: 'Tuesday',
        })
        await other.ok('fact-pin', other.fence({ id: fact.id, pinned: true }))
        const { preview } = await importInto(v, (await exportOf(other)).content)
        assert.equal(pinOf(v, 'Tuesday'), null)
        assert.equal((preview['pinsDropped'] as { count: number }).count, 1)
      })

      it("is kept from this store's own export, edited or not", async () => {
        const fact = writeFact(v.h.memory, v.h.config, { subject: 'deploys', property: 'day', value: 'Tuesday' })
        await v.ok('fact-pin', v.fence({ id: fact.id, pinned: true }))
        const pinnedAt = pinOf(v, 'Tuesday')
        const file = await exportOf(v)
        const wipeAsk = await v.call('wipe', v.fence())
        assert.equal(wipeAsk.ok, false)
        await v.ok('wipe', v.fence({ confirmToken: (!wipeAsk.ok && wipeAsk.details?.['confirmToken']) as string }))
        const edited = `${file.content}${pinned('Friday')}`.replace('"property":"day"', '"property":"weekday"')
        const { preview } = await importInto(v, edited)
        assert.equal(preview['untouched'], false)
        assert.equal((preview['pinsDropped'] as { count: number }).count, 0)
        assert.equal(pinOf(v, 'Tuesday'), pinnedAt)
        assert.equal(pinOf(v, 'Friday'), '2026-02-01T08:00:00.000Z')
      })
    })

    describe('the manifest', () => {
      it('hashes only the fact records as records_sha256, and gives alias and tombstone lines their own count and hash', async () => {
        const port = writeFact(v.h.memory, v.h.config, { subject: 'billing api', property: 'port', value: '7801' })
        writeFact(v.h.memory, v.h.config, { subject: 'billing api', property: 'region', value: 'eu-west' })
        await v.ok('subject-rename', v.fence({ entityKey: port.entityKey, to: 'payments-api' }))
        const gone = writeFact(v.h.memory, v.h.config, { subject: 'orders-api', property: 'owner', value: 'team blue' })
        v.h.memory.forgetById(gone.id)
        const answer = await v.ok('export', { backup: false })
        const { manifest, facts, aliases, tombstones } = exportedLines(String(answer['path']))
        assert.equal(facts.length, 2)
        assert.ok(aliases.length >= 1, 'the rename left an alias line')
        assert.ok(tombstones.length >= 2, 'the forget left claim and evidence tombstones')
        assert.equal(manifest['records'], facts.length)
        assert.equal(manifest['records_sha256'], sha(facts))
        assert.equal(manifest['aliases'], aliases.length)
        assert.equal(manifest['aliases_sha256'], sha(aliases))
        assert.equal(manifest['tombstones'], tombstones.length)
        assert.equal(manifest['tombstones_sha256'], sha(tombstones))
        assert.equal(answer['recordsSha256'], sha(facts))
        const preview = await v.ok('import', { mode: 'preview', path: String(answer['relativePath']) })
        assert.equal(preview['untouched'], true)
        assert.equal(preview['restore'], true)
      })

      it('still reads an export written before the split, whose records_sha256 covers every line, as untouched', async () => {
        writeFact(v.h.memory, v.h.config, { subject: 'billing-api', property: 'port', value: '7801' })
        const gone = writeFact(v.h.memory, v.h.config, { subject: 'orders-api', property: 'owner', value: 'team blue' })
        v.h.memory.forgetById(gone.id)
        const answer = await v.ok('export', { backup: false })
        const { manifest, facts, aliases, tombstones } = exportedLines(String(answer['path']))
        const all = [...facts, ...aliases, ...tombstones]
        const legacy = {
          format: manifest['format'],
          version: manifest['version'],
          storeId: manifest['storeId'],
          generation: manifest['generation'],
          exportedAt: manifest['exportedAt'],
          records: all.length,
          records_sha256: sha(all),
        }
        const preview = await v.ok('import', {
          mode: 'preview',
          content: [JSON.stringify(legacy), ...all].map((line) => `${line}\n`).join(''),
        })
        assert.equal(preview['untouched'], true)
        const edited = { ...manifest, tombstones_sha256: sha([]) }
        const changed = await v.ok('import', {
          mode: 'preview',
          content: [JSON.stringify(edited), ...all].map((line) => `${line}\n`).join(''),
        })
        assert.equal(
          changed['untouched'],
          false,
          'a tombstone line that no longer hashes to its manifest marks the file as edited',
        )
      })
    })
  })
}
