/**
 * Scopes on the page's routes, through the real verb table and schemas on a real store (one binding): the facts
 * list's scope filter and its list of scopes (a project by name, never its path), fact-move behind the fence (stale,
 * replay, undo, a slot already holding a value in the target scope, a project the store does not know), and the
 * exchange round trip of a project's fact with its name.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { FactView, ScopeWire } from '../src/wire-types.ts'
import { count, expectKind, ONE_DRIVER, oneRow, write } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'
import type { ProjectRef } from '../src/types.ts'

const BILLING: ProjectRef = { key: '/home/ada/src/billing-api', name: 'billing-api' }
const SHOP: ProjectRef = { key: '/home/ada/src/shop-web', name: 'shop-web' }
const BILLING_SCOPE = `project:${BILLING.key}`

for (const driver of ONE_DRIVER) {
  describe(`scopes on the page's routes (${driver})`, () => {
    let v: VerbHarness
    beforeEach(() => {
      v = verbHarness(driver)
    })
    afterEach(() => {
      v.dispose()
    })

    const put = (partial: Parameters<typeof write>[2]) =>
      expectKind(write(v.h.memory, v.h.config, partial), 'saved').fact
    const move = (id: number, scope: string, extra: Record<string, unknown> = {}) =>
      v.call('fact-move', { ...v.fence(), id, scope, ...extra })

    it('lists every scope by what a person reads, and filters the library by one', async () => {
      put({ subject: 'user', property: 'editor', value: 'helix' })
      put({ subject: 'dev server', property: 'port', value: '5173', project: BILLING })
      put({ subject: 'dev server', property: 'port', value: '3000', project: SHOP })
      put({ subject: 'cluster', property: 'region', value: 'eu-west-1', scope: 'infra' })
      const all = await v.ok('facts', {})
      assert.deepEqual(
        (all['scopes'] as ScopeWire[]).map((scope) => [scope.kind, scope.name, scope.facts]),
        [
          ['global', 'global', 1],
          ['project', 'billing-api', 1],
          ['project', 'shop-web', 1],
          ['label', 'infra', 1],
        ],
      )
      const rows = all['facts'] as FactView[]
      assert.deepEqual(rows.map((row) => [row.value, row.scopeKind, row.scopeName]).sort(), [
        ['3000', 'project', 'shop-web'],
        ['5173', 'project', 'billing-api'],
        ['eu-west-1', 'label', 'infra'],
        ['helix', 'global', 'global'],
      ])
      const billing = await v.ok('facts', { scope: BILLING_SCOPE })
      assert.deepEqual(
        (billing['facts'] as FactView[]).map((row) => row.value),
        ['5173'],
      )
      assert.deepEqual(
        ((await v.ok('facts', { scope: 'global' }))['facts'] as FactView[]).map((row) => row.value),
        ['helix'],
      )
    })

    it('reads the list of scopes without walking every fact: the global count comes from the kept counts, the others by their index', async () => {
      for (let index = 0; index < 40; index += 1)
        put({ subject: `service-${index}`, property: 'owner', value: `team ${index}` })
      put({ subject: 'dev server', property: 'port', value: '5173', project: BILLING })
      put({ subject: 'cluster', property: 'region', value: 'eu-west-1', scope: 'infra' })
      const forgotten = put({ subject: 'old', property: 'note', value: 'gone', scope: 'attic' })
      v.h.memory.forgetById(forgotten.id)
      const opened = v.h.memory.storeSet()
      assert.ok('stores' in opened)
      if (!('stores' in opened)) return
      const { db, library } = opened.stores
      const seen: { sql: string; params: unknown[] }[] = []
      const spied = db as unknown as Record<'get' | 'all', (sql: string, ...params: unknown[]) => unknown>
      const originals = { get: spied.get.bind(db), all: spied.all.bind(db) }
      for (const method of ['get', 'all'] as const)
        spied[method] = (sql, ...params) => {
          seen.push({ sql, params })
          return originals[method](sql, ...params)
        }
      let scopes: ReturnType<typeof library.scopes>
      try {
        scopes = library.scopes()
      } finally {
        spied.get = originals.get
        spied.all = originals.all
      }
      assert.deepEqual(
        scopes.map((scope) => [scope.scope, scope.facts]),
        [
          ['global', 40],
          ['infra', 1],
          [BILLING_SCOPE, 1],
        ],
        'a scope of forgotten facts only is not listed',
      )
      for (const { sql, params } of seen) {
        const plan = (originals.all(`EXPLAIN QUERY PLAN ${sql}`, ...params) as { detail: string }[])
          .map((row) => row.detail)
          .join('\n')
        assert.doesNotMatch(plan, /\bSCAN facts\b/u, `${sql}\n${plan}`)
      }
    })

    it("moves a global fact into a project behind the fence, and the toast's undo puts it back", async () => {
      const fact = put({
        subject: 'dev server',
        property: 'port',
        value: '5173',
        evidence: 'explicit_user',
        quote: 'the dev server runs on 5173',
      })
      put({ subject: 'test command', property: 'value', value: 'pnpm test', project: BILLING })
      const moved = await v.ok('fact-move', { ...v.fence(), id: fact.id, scope: BILLING_SCOPE })
      const view = moved['fact'] as FactView
      assert.deepEqual(
        [view.id, view.scopeKind, view.scopeName, view.evidence, view.status],
        [fact.id, 'project', 'billing-api', 'explicit_user', 'active'],
      )
      assert.deepEqual(moved['from'], { kind: 'global', name: 'global' })
      assert.equal(
        v.h.memory.directory(v.h.config, SHOP).includes('5173'),
        false,
        "out of every other project's directory",
      )
      assert.match(v.h.memory.directory(v.h.config, BILLING), /dev server · port: 5173 \([^)]*project billing-api\)/u)
      assert.notEqual(
        oneRow(v.h.db(), 'SELECT lower(hex(slot_key)) AS slot_key FROM facts WHERE id = ?', fact.id)['slot_key'],
        fact.slotKey,
      )

      await v.ok('fact-restore', { ...v.fence(), editId: moved['editId'] })
      const row = oneRow(
        v.h.db(),
        'SELECT scope, lower(hex(slot_key)) AS slot_key, lower(hex(claim_key)) AS claim_key, status FROM facts WHERE id = ?',
        fact.id,
      )
      assert.deepEqual(
        [row['scope'], row['slot_key'], row['claim_key'], row['status']],
        ['global', fact.slotKey, fact.claimKey, 'active'],
      )
      assert.match(v.h.memory.directory(v.h.config, SHOP), /dev server · port: 5173 \(\d{4}-\d{2}-\d{2}\)/u)
    })

    it('moves a single value with its history, and a project fact out to global', async () => {
      put({ subject: 'dev server', property: 'port', value: '5173', evidence: 'explicit_user', project: BILLING })
      v.clock.advance(1000)
      const current = put({
        subject: 'dev server',
        property: 'port',
        value: '5174',
        evidence: 'explicit_user',
        project: BILLING,
      })
      const moved = await v.ok('fact-move', { ...v.fence(), id: current.id, scope: 'global' })
      assert.equal((moved['moved'] as number[]).length, 2)
      assert.deepEqual(
        v.h
          .db()
          .all('SELECT value, status, scope FROM facts ORDER BY id')
          .map((row) => [row['value'], row['status'], row['scope']]),
        [
          ['5173', 'superseded', 'global'],
          ['5174', 'active', 'global'],
        ],
      )
    })

    it('refuses a move into a slot that already holds a value there with slot_occupied, and moves nothing', async () => {
      const global = put({ subject: 'dev server', property: 'port', value: '5173' })
      const inProject = put({ subject: 'dev server', property: 'port', value: '3000', project: BILLING })
      const before = v.generation()
      const refused = await move(global.id, BILLING_SCOPE)
      assert.equal(!refused.ok && refused.code, 'slot_occupied')
      assert.match(!refused.ok ? refused.message : '', /billing-api already holds dev server · port = 3000 \(#\d+\)/u)
      assert.deepEqual(!refused.ok ? refused.details : undefined, { occupantId: inProject.id })
      assert.doesNotMatch(!refused.ok ? refused.message : '', /\/home\/ada/u)
      assert.equal(v.generation(), before)
      assert.equal(oneRow(v.h.db(), 'SELECT scope FROM facts WHERE id = ?', global.id)['scope'], 'global')
      const back = await move(inProject.id, 'global')
      assert.equal(!back.ok && back.code, 'slot_occupied')
    })

    it('refuses a stale generation with stale: true, and replays the same operation id without moving again', async () => {
      const fact = put({ subject: 'dev server', property: 'port', value: '5173' })
      put({ subject: 'test command', property: 'value', value: 'pnpm test', project: BILLING })
      const stale = await v.call('fact-move', {
        expectedGeneration: v.generation() - 1,
        operationId: v.op(),
        id: fact.id,
        scope: BILLING_SCOPE,
      })
      assert.equal(!stale.ok && stale.code, 'stale')
      assert.equal(!stale.ok && stale.details?.['stale'], true)
      const body = { ...v.fence(), id: fact.id, scope: BILLING_SCOPE }
      const first = await v.ok('fact-move', body)
      const generation = v.generation()
      const again = await v.ok('fact-move', body)
      assert.equal(again['replayed'], true)
      assert.equal(again['editId'], first['editId'])
      assert.equal(v.generation(), generation)
      assert.equal(count(v.h.db(), 'SELECT count(*) AS n FROM fact_edits'), 1)
    })

    it('refuses a project no fact was ever written in, the scope the fact is in, and a contested fact', async () => {
      const fact = put({ subject: 'dev server', property: 'port', value: '5173', evidence: 'explicit_user' })
      const unknown = await move(fact.id, 'project:/nowhere/known')
      assert.equal(!unknown.ok && unknown.code, 'not_found')
      const same = await move(fact.id, 'global')
      assert.equal(!same.ok && same.code, 'refused')
      expectKind(
        write(v.h.memory, v.h.config, { subject: 'dev server', property: 'port', value: '5999', evidence: 'observed' }),
        'conflict',
      )
      const contested = await move(fact.id, 'infra')
      assert.match(!contested.ok ? contested.message : '', /contested; settle its conflict/u)
    })

    it('refuses an undo once a new value took the slot the fact left', async () => {
      const fact = put({ subject: 'dev server', property: 'port', value: '5173' })
      put({ subject: 'test command', property: 'value', value: 'pnpm test', project: BILLING })
      const moved = await v.ok('fact-move', { ...v.fence(), id: fact.id, scope: BILLING_SCOPE })
      put({ subject: 'dev server', property: 'port', value: '8080' })
      const undo = await v.call('fact-restore', { ...v.fence(), editId: moved['editId'] })
      assert.equal(!undo.ok && undo.code, 'refused')
      assert.equal(oneRow(v.h.db(), 'SELECT scope FROM facts WHERE id = ?', fact.id)['scope'], BILLING_SCOPE)
    })

    it('refuses to change a project scope through fact-update', async () => {
      const fact = put({ subject: 'dev server', property: 'port', value: '5173', project: BILLING })
      const refused = await v.call('fact-update', { ...v.fence(), id: fact.id, value: '5174', scope: 'global' })
      assert.match(!refused.ok ? refused.message : '', /fact-move/u)
    })

    it('exports a project fact with its scope and name, and an import into a store that does not know it keeps both', async () => {
      put({ subject: 'dev server', property: 'port', value: '5173', project: BILLING })
      put({ subject: 'user', property: 'editor', value: 'helix' })
      const exported = await v.ok('export', { backup: false })
      const records = readFileSync(String(exported['path']), 'utf8')
        .split('\n')
        .slice(1, -1)
        .map((line) => JSON.parse(line) as Record<string, unknown>)
      assert.deepEqual(
        records.map((record) => [record['value'], record['scope'], record['projectName']]),
        [
          ['5173', BILLING_SCOPE, 'billing-api'],
          ['helix', 'global', undefined],
        ],
      )

      const elsewhere = verbHarness(driver)
      try {
        const content = readFileSync(String(exported['path']), 'utf8').replace(
          '"projectName":"billing-api"',
          '"projectName":"Billing API"',
        )
        const seen = await elsewhere.ok('import', { mode: 'preview', content })
        await elsewhere.ok('import', {
          mode: 'commit',
          content,
          token: seen['token'],
          expectedGeneration: elsewhere.generation(),
          operationId: elsewhere.op(),
        })
        const row = oneRow(elsewhere.h.db(), 'SELECT scope FROM facts WHERE value = ?', '5173')
        assert.equal(row['scope'], BILLING_SCOPE)
        assert.equal(
          oneRow(elsewhere.h.db(), 'SELECT name FROM projects WHERE project_key = ?', BILLING.key)['name'],
          'Billing API',
        )
        assert.match(
          elsewhere.h.memory.directory(elsewhere.h.config, BILLING),
          /dev server · port: 5173 \([^)]*project Billing API\)/u,
        )
        // A store that knows the key keeps its own name for it.
        const seenHere = await v.ok('import', { mode: 'preview', content })
        await v.ok('import', { mode: 'commit', content, token: seenHere['token'], ...v.fence() })
        assert.equal(
          oneRow(v.h.db(), 'SELECT name FROM projects WHERE project_key = ?', BILLING.key)['name'],
          'billing-api',
        )
      } finally {
        elsewhere.dispose()
      }
    })
  })
}
