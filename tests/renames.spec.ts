/**
 * Renames and merges on demand, through the real verb table and schemas on a real store (both bindings):
 * subject-rename (a new name, and a merge into a subject already there), property-rename, alias-remove; the fence
 * (stale generation refused, a replayed operation id answered once), the undo through fact-restore putting every
 * row and alias back exactly; a merge of two single-valued slots with different values opening a conflict; an
 * accepted health-check alias card recording the alias too; the export/import round trip of aliases (an older file
 * without them still imports); and a write under an alias landing on the canonical subject, after a restart too.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { landCandidates } from '../src/extract/land.ts'
import { CHARS_PER_TOKEN } from '../src/directory.ts'
import { renderSearchText } from '../src/retrieval/render.ts'
import { prepareWrite, retargetWrite } from '../src/fact-input.ts'
import type { Database } from '../src/store/database.ts'
import type { StoreSet } from '../src/store/store-set.ts'
import type { Fact, FactRef } from '../src/types.ts'
import { DRIVERS, expectKind, write, type PartialFact } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'
import { indexedTerms } from './helpers/fts-terms.ts'

/** Everything a rename may change and its undo must put back (a conflict group the rename opened is closed by the undo, as every undo does). */
function snapshot(db: Database): Record<string, unknown[]> {
  return {
    facts:
      db.all(`SELECT id, entity_id, subject, property, predicate_key, slot_key, claim_key, status, evidence, multi, valid_from,
      valid_to, superseded_by, conflict_group_id FROM facts ORDER BY id`),
    sources: db.all('SELECT id, fact_id FROM fact_sources ORDER BY id'),
    fts: [...indexedTerms(db.path)],
    identifiers: db.all('SELECT ident, fact_id FROM fact_identifiers ORDER BY fact_id, ident'),
    groups: db.all(
      `SELECT id, slot_key, status, closed_at, settled_by FROM conflict_groups WHERE status = 'open' ORDER BY id`,
    ),
    aliases: db.all('SELECT * FROM aliases ORDER BY id'),
  }
}

interface AliasWire {
  id: number
  kind: string
  alias: string
  canonical: string
  origin: string
}
interface EntityWire {
  entity: { key: string; display: string }
  properties: { property: string; facts: { id: number; value: string; status: string }[] }[]
  aliases: AliasWire[]
}

describe('a write under its canonical names', () => {
  it('keys a retargeted write exactly as a write under those names is keyed', () => {
    const policy = { refuseCredentials: true, timeZone: 'UTC' }
    const now = '2026-03-01T09:00:00.000Z'
    const given = {
      value: 'DeepSeek',
      qualifiers: { team: 'core' },
      quote: 'dsh was made by DeepSeek',
      evidence: 'explicit_user',
      origin: 'tool',
      scope: 'project:/home/ada/dsh',
    } as const
    const old = prepareWrite({ ...given, subject: 'DSH tool', property: 'created_by' }, now, policy)
    const fresh = prepareWrite({ ...given, subject: 'dsh', property: 'developed by' }, now, policy)
    assert.ok(old.ok && fresh.ok)
    if (!old.ok || !fresh.ok) return
    assert.deepEqual(retargetWrite(old.write, { subject: 'dsh', property: 'developed by' }), fresh.write)
    assert.equal(retargetWrite(old.write, { subject: old.write.subject, property: old.write.property }), old.write)
  })
})

for (const driver of DRIVERS) {
  describe(`renames and merges (${driver})`, () => {
    let v: VerbHarness
    beforeEach(() => {
      v = verbHarness(driver)
    })
    afterEach(() => {
      v.dispose()
    })

    const put = (partial: PartialFact): Fact => expectKind(write(v.h.memory, v.h.config, partial), 'saved').fact
    const fence = <T extends Record<string, unknown>>(body: T) => ({
      expectedGeneration: v.generation(),
      operationId: v.op(),
      ...body,
    })
    const stores = (): StoreSet => {
      const opened = v.h.memory.storeSet()
      if (!('stores' in opened)) throw new Error('store not open')
      return opened.stores
    }
    const entity = async (subject: string): Promise<EntityWire> =>
      (await v.ok('entity', { subject })) as unknown as EntityWire
    const keyOf = (fact: Fact): string => fact.entityKey

    it('renames a subject: its facts move to the new name, the old name is listed as an alias, and the next write under it lands on the new one', async () => {
      const port = put({ subject: 'Billing Svc', property: 'port', value: '7801', quote: 'billing svc runs on 7801' })
      put({ subject: 'Billing Svc', property: 'owner', value: 'team payments' })
      const renamed = await v.ok('subject-rename', fence({ entityKey: keyOf(port), to: 'billing-api' }))
      assert.deepEqual(
        [renamed['kind'], renamed['from'], renamed['to'], renamed['moved']],
        ['rename', 'Billing Svc', 'billing-api', 2],
      )
      const opened = await entity('billing-api')
      assert.deepEqual(opened.properties.map((group) => group.property).sort(), ['owner', 'port'])
      assert.deepEqual(
        opened.aliases.map((alias) => [alias.kind, alias.alias, alias.canonical, alias.origin]),
        [['entity', 'Billing Svc', 'billing-api', 'rename']],
      )
      assert.equal(
        (await entity('Billing Svc')).entity.display,
        'billing-api',
        'the old name opens the subject it names',
      )
      const next = expectKind(
        write(v.h.memory, v.h.config, { subject: 'billing svc', property: 'region', value: 'eu-west' }),
        'saved',
      ).fact
      assert.equal(next.subject, 'billing-api')
      const again = write(v.h.memory, v.h.config, { subject: 'Billing Svc', property: 'port', value: '7801' })
      assert.equal(again.kind, 'duplicate', 'the old name restating the moved value is the same fact, not a split')
      assert.equal(
        v.h.memory.searchLexical({ query: 'billing-api region', limit: 5, asOf: undefined }, v.h.config).results[0]
          ?.values[0]?.value,
        'eu-west',
      )
    })

    it('merges a subject into one already there; two different values of a single-valued slot stand as a conflict for the user to settle', async () => {
      const canonical = put({ subject: 'billing-api', property: 'port', value: '7801' })
      put({ subject: 'billing-api', property: 'owner', value: 'team payments' })
      v.clock.advance(3_600_000)
      const fragment = put({ subject: 'billing', property: 'port', value: '7802', evidence: 'explicit_user' })
      put({ subject: 'billing', property: 'owner', value: 'team payments' })
      put({ subject: 'billing', property: 'tier', value: 'gold' })
      const merged = await v.ok('subject-rename', fence({ entityKey: keyOf(fragment), to: 'Billing API' }))
      assert.deepEqual(
        [merged['kind'], merged['to'], merged['moved'], merged['merged'], merged['contested']],
        ['merge', 'billing-api', 3, 1, 2],
      )
      const [kept, moved] = stores().facts.getFacts([canonical.id, fragment.id])
      assert.deepEqual(
        [kept?.status, moved?.status, moved?.subject],
        ['active', 'conflict', 'billing-api'],
        'no silent choice, whatever the evidence',
      )
      assert.equal(kept?.conflictGroupId, moved?.conflictGroupId)
      const conflicts = (await v.ok('conflicts', {}))['groups'] as { facts?: unknown[] }[]
      assert.equal(conflicts.length, 1)
      const opened = await entity('billing-api')
      assert.deepEqual(
        opened.aliases.map((alias) => [alias.alias, alias.canonical, alias.origin]),
        [['billing', 'billing-api', 'merge']],
      )
      assert.equal(
        expectKind(write(v.h.memory, v.h.config, { subject: 'billing', property: 'language', value: 'Rust' }), 'saved')
          .fact.subject,
        'billing-api',
      )
    })

    it('renames a property of one subject: created_by becomes developed_by, merging with a developed_by already there, and later writes under created_by land there', async () => {
      const made = put({ subject: 'dsh', property: 'created_by', value: 'DeepSeek' })
      put({ subject: 'dsh', property: 'created_by', value: 'the harness team', multi: true })
      put({ subject: 'other tool', property: 'created_by', value: 'someone else' })
      const renamed = await v.ok(
        'property-rename',
        fence({ entityKey: keyOf(made), property: 'created_by', to: 'developed_by' }),
      )
      assert.deepEqual(
        [renamed['kind'], renamed['from'], renamed['to'], renamed['moved']],
        ['rename', 'created_by', 'developed_by', 2],
      )
      const opened = await entity('dsh')
      assert.deepEqual(
        opened.properties.map((group) => group.property),
        ['developed_by'],
      )
      assert.deepEqual(
        opened.aliases.map((alias) => [alias.kind, alias.alias, alias.canonical]),
        [['predicate', 'created_by', 'developed_by']],
      )
      const next = expectKind(
        write(v.h.memory, v.h.config, { subject: 'dsh', property: 'Created By', value: 'a third author', multi: true }),
        'saved',
      ).fact
      assert.equal(next.property, 'developed_by')
      assert.equal(
        expectKind(
          write(v.h.memory, v.h.config, { subject: 'other tool', property: 'created_by', value: 'another' }),
          'saved',
        ).fact.property,
        'created_by',
        "another subject's property of that name is left alone",
      )
    })

    it('a property merge of two single-valued slots with different values opens a conflict', async () => {
      const developed = put({ subject: 'dsh', property: 'developed_by', value: 'DeepSeek' })
      const created = put({ subject: 'dsh', property: 'created_by', value: 'the harness team' })
      const merged = await v.ok(
        'property-rename',
        fence({ entityKey: keyOf(created), property: 'created_by', to: 'developed by' }),
      )
      assert.deepEqual([merged['kind'], merged['to'], merged['contested']], ['merge', 'developed_by', 2])
      const [one, two] = stores().facts.getFacts([developed.id, created.id])
      assert.deepEqual([one?.status, two?.status, two?.property], ['active', 'conflict', 'developed_by'])
    })

    it('refuses a stale generation and answers a replayed operation id once, renaming nothing twice', async () => {
      const port = put({ subject: 'svc a', property: 'port', value: '1' })
      const stale = await v.call('subject-rename', {
        expectedGeneration: v.generation() - 1,
        operationId: v.op(),
        entityKey: keyOf(port),
        to: 'svc b',
      })
      assert.equal(!stale.ok && stale.code, 'stale')
      assert.equal(stores().facts.getFacts([port.id])[0]?.subject, 'svc a')
      const body = fence({ entityKey: keyOf(port), to: 'svc b' })
      const first = await v.ok('subject-rename', body)
      const generation = v.generation()
      const replay = await v.ok('subject-rename', body)
      assert.deepEqual([replay['replayed'], replay['editId'], v.generation()], [true, first['editId'], generation])
      assert.equal(Number(stores().db.get('SELECT count(*) AS n FROM aliases')?.['n']), 1)
      const bad = await v.call('subject-rename', fence({ entityKey: 'no such subject', to: 'x' }))
      assert.equal(!bad.ok && bad.code, 'refused')
      const credential = await v.call(
        'subject-rename',
        fence({ entityKey: keyOf(port), to: 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789' }),
      )
      assert.equal(!credential.ok && credential.code, 'credential_refused')
    })

    it('undoes a merge, a rename back and a property rename exactly: every row, index entry, group and alias as it was', async () => {
      put({ subject: 'billing-api', property: 'port', value: '7801' })
      const fragment = put({ subject: 'billing', property: 'port', value: '7802', quote: 'billing moved to 7802' })
      put({ subject: 'billing', property: 'created_by', value: 'ada' })
      const before = snapshot(v.h.db())
      const merged = await v.ok('subject-rename', fence({ entityKey: keyOf(fragment), to: 'billing-api' }))
      assert.notDeepEqual(snapshot(v.h.db()), before)
      await v.ok('fact-restore', fence({ editId: merged['editId'] }))
      assert.deepEqual(snapshot(v.h.db()), before)
      assert.equal(
        expectKind(write(v.h.memory, v.h.config, { subject: 'billing', property: 'tier', value: 'gold' }), 'saved').fact
          .subject,
        'billing',
        'the undone alias no longer redirects',
      )

      const renamed = await v.ok(
        'property-rename',
        fence({ entityKey: keyOf(fragment), property: 'created_by', to: 'developed_by' }),
      )
      const chained = snapshot(v.h.db())
      const back = await v.ok(
        'property-rename',
        fence({ entityKey: keyOf(fragment), property: 'developed_by', to: 'created_by' }),
      )
      assert.equal(
        Number(stores().db.get('SELECT count(*) AS n FROM aliases')?.['n']),
        1,
        'renaming back leaves one alias, never a cycle',
      )
      await v.ok('fact-restore', fence({ editId: back['editId'] }))
      assert.deepEqual(snapshot(v.h.db()), chained)
      assert.deepEqual(
        (await entity('billing')).aliases.map((alias) => [alias.alias, alias.canonical]),
        [['created_by', 'developed_by']],
      )
      const older = await v.call('fact-restore', fence({ editId: renamed['editId'] }))
      assert.equal(
        !older.ok && older.code,
        'refused',
        'an earlier edit whose facts the later undo moved is refused, as for every edit',
      )
    })

    it('renames a subject to another spelling of the same name, and the undo shows it as it was', async () => {
      const port = put({ subject: 'billing API', property: 'port', value: '7801' })
      const before = { ...snapshot(v.h.db()), entities: v.h.db().all('SELECT * FROM entities ORDER BY id') }
      const renamed = await v.ok('subject-rename', fence({ entityKey: keyOf(port), to: 'Billing-API' }))
      assert.deepEqual(
        [renamed['kind'], renamed['to'], (await entity('billing api')).entity.display],
        ['rename', 'Billing-API', 'Billing-API'],
      )
      assert.equal(stores().facts.getFacts([port.id])[0]?.subject, 'Billing-API')
      assert.deepEqual((await entity('billing api')).aliases, [], 'the same key needs no alias')
      await v.ok('fact-restore', fence({ editId: renamed['editId'] }))
      assert.deepEqual({ ...snapshot(v.h.db()), entities: v.h.db().all('SELECT * FROM entities ORDER BY id') }, before)
    })

    it('refuses to undo a rename once its alias was removed, and a removed alias no longer redirects', async () => {
      const port = put({ subject: 'svc a', property: 'port', value: '1' })
      const renamed = await v.ok('subject-rename', fence({ entityKey: keyOf(port), to: 'svc b' }))
      const [alias] = (await entity('svc b')).aliases
      assert.ok(alias !== undefined)
      await v.ok('alias-remove', fence({ id: alias.id }))
      assert.deepEqual((await entity('svc b')).aliases, [])
      const undo = await v.call('fact-restore', fence({ editId: renamed['editId'] }))
      assert.equal(!undo.ok && undo.code, 'refused')
      assert.equal(
        expectKind(write(v.h.memory, v.h.config, { subject: 'svc a', property: 'port', value: '2' }), 'saved').fact
          .subject,
        'svc a',
      )
      const missing = await v.call('alias-remove', fence({ id: alias.id }))
      assert.equal(!missing.ok && missing.code, 'not_found')
    })

    it('an accepted health-check alias card records the alias, so the next write under the fragment lands on the canonical entity', async () => {
      put({ subject: 'billing-api', property: 'port', value: '7801' })
      const fragment = put({ subject: 'billing', property: 'tier', value: 'gold' })
      const ref: FactRef = { factId: fragment.id, revision: fragment.revision }
      const id =
        stores().proposals.proposeAliases(
          [{ fragment: keyOf(fragment), canonical: 'billing api', facts: [ref] }],
          v.clock.iso(),
        ).cards[0]?.id ?? 0
      const applied = await v.ok('proposal-apply', fence({ id, revision: 1 }))
      assert.deepEqual(
        (await entity('billing-api')).aliases.map((alias) => [alias.alias, alias.origin]),
        [['billing', 'card']],
      )
      assert.equal(
        expectKind(write(v.h.memory, v.h.config, { subject: 'billing', property: 'region', value: 'eu' }), 'saved').fact
          .subject,
        'billing-api',
      )
      await v.ok('fact-restore', fence({ editId: applied['editId'] }))
      assert.deepEqual((await entity('billing-api')).aliases, [], 'undoing the card takes its alias back')
    })

    it('keeps aliases through export and import, and an older file without them still imports', async () => {
      const port = put({ subject: 'Billing Svc', property: 'port', value: '7801' })
      put({ subject: 'dsh', property: 'created_by', value: 'DeepSeek' })
      await v.ok('subject-rename', fence({ entityKey: keyOf(port), to: 'billing-api' }))
      await v.ok('property-rename', fence({ entityKey: 'dsh', property: 'created_by', to: 'developed_by' }))
      const exported = await v.ok('export', { backup: false })
      const text = readFileSync(String(exported['path']), 'utf8')
      const lines = text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
      assert.deepEqual(
        lines.filter((line) => 'aliasOf' in line),
        [
          { subject: 'Billing Svc', aliasOf: 'billing-api' },
          { subject: 'dsh', property: 'created_by', aliasOf: 'developed_by' },
        ],
      )
      const asked = await v.call('wipe', fence({}))
      await v.ok('wipe', fence({ confirmToken: asked.ok ? undefined : asked.details?.['confirmToken'] }))
      assert.equal(
        Number(stores().db.get('SELECT count(*) AS n FROM aliases')?.['n']),
        0,
        'a wipe takes the aliases with the facts',
      )
      const preview = await v.ok('import', { mode: 'preview', content: text })
      assert.equal((preview['aliases'] as unknown[]).length, 2)
      const committed = await v.ok('import', fence({ mode: 'commit', content: text, token: preview['token'] }))
      assert.equal(committed['aliases'], 2)
      assert.equal(
        expectKind(write(v.h.memory, v.h.config, { subject: 'billing svc', property: 'tier', value: 'gold' }), 'saved')
          .fact.subject,
        'billing-api',
      )
      assert.equal(
        expectKind(
          write(v.h.memory, v.h.config, { subject: 'dsh', property: 'created by', value: 'x', multi: true }),
          'saved',
        ).fact.property,
        'developed_by',
      )

      const older = `${JSON.stringify({ subject: 'billing svc', property: 'owner', value: 'team payments' })}\n`
      const hand = `${JSON.stringify({ subject: 'Old Name', aliasOf: 'billing-api' })}\n${JSON.stringify({ subject: 'old name', property: 'on call', value: 'alice' })}\n`
      const olderPreview = await v.ok('import', { mode: 'preview', content: older })
      assert.deepEqual([olderPreview['aliases'], (olderPreview['counts'] as Record<string, number>)['new']], [[], 1])
      const handPreview = await v.ok('import', { mode: 'preview', content: hand })
      await v.ok('import', fence({ mode: 'commit', content: hand, token: handPreview['token'] }))
      assert.deepEqual(
        (await entity('billing-api')).properties.map((group) => group.property).includes('on call'),
        true,
        'a fact line under an alias the same file names lands on the subject it stands for',
      )
      const bad = await v.ok('import', {
        mode: 'preview',
        content: `${JSON.stringify({ subject: 'x', aliasOf: '' })}\n`,
      })
      assert.equal((bad['counts'] as Record<string, number>)['invalid'], 1)
    })

    it('memory_forget under an old name forgets what it stands for, once nothing is left under the old name itself', async () => {
      const port = put({ subject: 'svc a', property: 'created_by', value: 'ada' })
      put({ subject: 'svc a', property: 'port', value: '1' })
      await v.ok('subject-rename', fence({ entityKey: keyOf(port), to: 'svc b' }))
      await v.ok('property-rename', fence({ entityKey: 'svc b', property: 'created_by', to: 'developed_by' }))
      const forgotten = v.h.memory.forgetBySubject('svc a', 'created_by')
      assert.equal(forgotten.kind, 'forgotten', JSON.stringify(forgotten))
      assert.deepEqual(
        (await entity('svc b')).properties.map((group) => group.property),
        ['port'],
      )
      assert.equal(
        write(v.h.memory, v.h.config, { subject: 'svc a', property: 'created by', value: 'ada' }).kind,
        'refused',
        'and it stays forgotten',
      )
    })

    it("reads a write's aliases by their index, never scanning the aliases or the entities", async () => {
      const port = put({ subject: 'svc a', property: 'created_by', value: 'ada' })
      await v.ok('subject-rename', fence({ entityKey: keyOf(port), to: 'svc b' }))
      const db = stores().db
      const seen: { sql: string; params: unknown[] }[] = []
      const spied = db as unknown as Record<'get', (sql: string, ...params: unknown[]) => unknown>
      const original = spied.get.bind(db)
      spied.get = (sql, ...params) => {
        if (/FROM aliases/u.test(sql)) seen.push({ sql, params })
        return original(sql, ...params)
      }
      try {
        expectKind(write(v.h.memory, v.h.config, { subject: 'svc a', property: 'port', value: '2' }), 'saved')
      } finally {
        spied.get = original
      }
      assert.ok(seen.length >= 2)
      for (const { sql, params } of seen) {
        const plan = (db.all(`EXPLAIN QUERY PLAN ${sql}`, ...(params as string[])) as { detail: string }[])
          .map((row) => row.detail)
          .join('\n')
        assert.match(plan, /USING (COVERING )?INDEX aliases_by_key/u, `${sql}\n${plan}`)
        assert.doesNotMatch(plan, /\bSCAN (aliases|entities|a|e)\b/u, `${sql}\n${plan}`)
      }
    })

    it("the rules' and extraction's candidates under an old name land on the new one, as the model's writes do", async () => {
      const port = put({ subject: 'Billing Svc', property: 'created_by', value: 'ada' })
      await v.ok('subject-rename', fence({ entityKey: keyOf(port), to: 'billing-api' }))
      await v.ok('property-rename', fence({ entityKey: 'billing api', property: 'created_by', to: 'developed_by' }))
      const text = 'Billing Svc runs on port 7801. Billing Svc was created by the payments team too.'
      const messages = [{ role: 'user' as const, seq: 1, turn: 1, text }]
      for (const origin of ['rule', 'extract'] as const) {
        const landed = landCandidates(
          [
            {
              subject: 'Billing Svc',
              property: 'port',
              value: '7801',
              quote: 'Billing Svc runs on port 7801',
              confidence: 0.95,
            },
            {
              subject: 'billing svc',
              property: 'created_by',
              value: 'the payments team',
              quote: 'Billing Svc was created by the payments team',
              confidence: 0.95,
              multi: true,
            },
          ],
          { origin, messages, sessionId: `session-${origin}`, usersWords: true, project: null },
          v.h.memory,
          v.h.config,
        )
        if (origin === 'rule') {
          assert.deepEqual(landed.refused, [])
          const facts = stores().facts.getFacts([...landed.factIds])
          assert.deepEqual(
            facts.map((fact) => [fact.subject, fact.property]),
            [
              ['billing-api', 'port'],
              ['billing-api', 'developed_by'],
            ],
          )
        } else {
          assert.deepEqual(
            landed.refused.map((refused) => refused.reason),
            ['duplicate', 'duplicate'],
            'extraction restating them meets the same facts',
          )
        }
      }
      assert.deepEqual((await entity('billing-api')).properties.map((group) => group.property).sort(), [
        'developed_by',
        'port',
      ])
    })

    it('a write under an alias lands on the canonical subject after a restart', async () => {
      const port = put({ subject: '小明', property: 'city', value: '杭州' })
      await v.ok('subject-rename', fence({ entityKey: keyOf(port), to: '王小明' }))
      v.h.memory.close()
      v.h.memory.open(v.h.config.resolvedDataDir)
      const next = expectKind(
        write(v.h.memory, v.h.config, { subject: '小明', property: 'job', value: 'engineer' }),
        'saved',
      ).fact
      assert.equal(next.subject, '王小明')
      const same = write(v.h.memory, v.h.config, { subject: '小明', property: 'city', value: '杭州' })
      assert.equal(same.kind, 'duplicate')
    })

    /** search-svc (port, owner) renamed search-service, 小明 (city) renamed 王小明, and unrelated-svc sharing a word. */
    const renamedLibrary = async (): Promise<void> => {
      const port = put({ subject: 'search-svc', property: 'port', value: '9200' })
      put({ subject: 'search-svc', property: 'owner', value: 'team relevance' })
      put({ subject: 'unrelated-svc', property: 'port', value: '9300' })
      await v.ok('subject-rename', fence({ entityKey: keyOf(port), to: 'search-service' }))
      const city = put({ subject: '小明', property: 'city', value: '杭州' })
      await v.ok('subject-rename', fence({ entityKey: keyOf(city), to: '王小明' }))
    }

    it('an old name still finds the subject in search, and the hit says which old name matched (English and Chinese)', async () => {
      await renamedLibrary()
      const search = (query: string) => v.h.memory.searchLexical({ query, limit: 5, asOf: undefined }, v.h.config)

      const old = search('search-svc')
      assert.deepEqual(
        old.results
          .slice(0, 2)
          .map((result) => [result.subject, result.property, result.matchedAlias])
          .sort(),
        [
          ['search-service', 'owner', 'search-svc'],
          ['search-service', 'port', 'search-svc'],
        ],
        'the renamed subject first',
      )
      assert.deepEqual(
        old.results.slice(2).map((result) => [result.subject, result.matchedAlias]),
        [['unrelated-svc', null]],
        'another subject holding a word of it after, unmarked',
      )
      assert.match(renderSearchText(old), /\d\. search-service · port \(matched old name search-svc\): 9200 \[/u)
      const withProperty = search('search-svc port')
      assert.equal(withProperty.results[0]?.subject, 'search-service')
      assert.equal(withProperty.results[0]?.property, 'port')
      assert.equal(withProperty.results[0]?.matchedAlias, 'search-svc')
      const current = search('search-service port')
      assert.equal(current.results[0]?.matchedAlias, null, 'its own name matches no alias')
      assert.doesNotMatch(renderSearchText(current), /old name/u)

      const chinese = search('小明住在哪个城市')
      assert.equal(chinese.results[0]?.subject, '王小明')
      assert.equal(chinese.results[0]?.matchedAlias, '小明')
      assert.match(renderSearchText(chinese), /1\. 王小明 · city \(matched old name 小明\): 杭州/u)
    })

    it('a search under an old name stays within the search budget, the old name said on every hit it shows', async () => {
      let first: Fact | undefined
      for (let index = 0; index < 30; index += 1) {
        const fact = put({
          subject: 'search-svc',
          property: `shard ${index} host`,
          value: `search-node-${index}.internal.example.com, rack ${index % 4}`,
        })
        first ??= fact
      }
      if (first === undefined) throw new Error('nothing written')
      await v.ok('subject-rename', fence({ entityKey: keyOf(first), to: 'search-service' }))
      const config = v.h.reconfigure({ searchBudgetTokens: 300 })
      const value = v.h.memory.searchLexical({ query: 'search-svc', limit: 10, asOf: undefined }, config)
      const text = renderSearchText(value)
      assert.ok(text.length <= 300 * CHARS_PER_TOKEN, `${text.length} characters`)
      assert.ok(value.omitted > 0, 'the budget left some out')
      assert.ok(value.results.length > 0 && value.results.every((result) => result.matchedAlias === 'search-svc'))
      assert.equal(text.match(/\(matched old name search-svc\)/gu)?.length, value.results.length)
    })

    it("the library's text filter finds a subject by an old name, and the answer says which old name matched", async () => {
      await renamedLibrary()
      type Page = {
        facts: { subject: string; property: string; entityKey: string }[]
        matched: number
        aliasMatches: { alias: string; subject: string; entityKey: string }[]
      }
      const filter = async (text: string): Promise<Page> => (await v.ok('facts', { text })) as unknown as Page
      const old = await filter('search-svc')
      assert.deepEqual(old.facts.map((fact) => `${fact.subject} · ${fact.property}`).sort(), [
        'search-service · owner',
        'search-service · port',
      ])
      assert.equal(old.matched, 2)
      assert.deepEqual(old.aliasMatches, [
        { alias: 'search-svc', subject: 'search-service', entityKey: old.facts[0]?.entityKey },
      ])
      const narrowed = await filter('search-svc port')
      assert.deepEqual(
        narrowed.facts.map((fact) => fact.property),
        ['port'],
        "the other words still narrow the subject's facts",
      )
      const chinese = await filter('小明')
      assert.deepEqual(
        chinese.facts.map((fact) => fact.subject),
        ['王小明'],
      )
      assert.deepEqual(
        chinese.aliasMatches.map((match) => [match.alias, match.subject]),
        [['小明', '王小明']],
      )
      const own = await filter('search-service')
      assert.deepEqual(own.aliasMatches, [], 'its own name matches no alias')
    })
  })
}
