/**
 * Project scope in the store, on a real SQLite file with both bindings: a write scoped to a project is stored under
 * project:<key> and keyed by its project (two projects' same property are two slots; a forget's tombstone holds in
 * every scope, see tombstone-scopes.spec.ts), global writes keep the keys they always had, the projects table names each key; the directory lists the
 * global facts and the session's project's, never another's; search ranks the session's and the global facts first
 * and marks or leaves out the others.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { renderSearchText } from '../src/retrieval/render.ts'
import {
  canonicalEntity,
  canonicalPredicate,
  canonicalQualifiers,
  canonicalValue,
  claimKeyOf,
  slotKeyOf,
} from '../src/text/normalize.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { count, DRIVERS, expectKind, oneRow, openMemory, write, type MemoryHandle } from './helpers/store.ts'
import type { ProjectRef } from '../src/types.ts'

const BILLING: ProjectRef = { key: '/home/ada/src/billing-api', name: 'billing-api' }
const SHOP: ProjectRef = { key: '/home/ada/src/shop-web', name: 'shop-web' }

for (const driver of DRIVERS) {
  describe(`project-scoped writes (${driver})`, () => {
    let h: MemoryHandle
    let clock: FakeClock
    beforeEach(() => {
      clock = new FakeClock()
      h = openMemory(driver, clock)
    })
    afterEach(() => {
      h.dispose()
    })

    it('stores a project-scoped fact under project:<key> and names the project in the projects table', () => {
      const saved = expectKind(
        write(h.memory, h.config, { subject: 'dev server', property: 'port', value: '5173', project: BILLING }),
        'saved',
      )
      assert.equal(saved.fact.scope, 'project:/home/ada/src/billing-api')
      assert.equal(saved.fact.projectName, 'billing-api')
      const row = oneRow(h.db(), 'SELECT name, first_seen, last_seen FROM projects WHERE project_key = ?', BILLING.key)
      assert.equal(row['name'], 'billing-api')
      assert.equal(row['first_seen'], '2026-03-01T09:00:00.000Z')
      clock.advance(60_000)
      write(h.memory, h.config, { subject: 'test command', property: 'value', value: 'pnpm test', project: BILLING })
      const later = oneRow(h.db(), 'SELECT first_seen, last_seen FROM projects WHERE project_key = ?', BILLING.key)
      assert.equal(later['first_seen'], '2026-03-01T09:00:00.000Z')
      assert.equal(later['last_seen'], '2026-03-01T09:01:00.000Z')
    })

    it('keeps the same property of the same subject in two projects as two current facts, not a conflict', () => {
      const a = expectKind(
        write(h.memory, h.config, {
          subject: 'dev server',
          property: 'port',
          value: '5173',
          evidence: 'explicit_user',
          project: BILLING,
        }),
        'saved',
      )
      const b = expectKind(
        write(h.memory, h.config, {
          subject: 'dev server',
          property: 'port',
          value: '3000',
          evidence: 'observed',
          project: SHOP,
        }),
        'saved',
      )
      assert.notEqual(a.fact.slotKey, b.fact.slotKey)
      assert.deepEqual(b.superseded, [])
      assert.equal(count(h.db(), `SELECT count(*) AS n FROM facts WHERE status = 'active'`), 2)
      assert.equal(count(h.db(), `SELECT count(*) AS n FROM conflict_groups`), 0)
      // The same value in both projects is two claims too.
      const c = expectKind(
        write(h.memory, h.config, { subject: 'linter', property: 'tool', value: 'eslint', project: BILLING }),
        'saved',
      )
      const d = expectKind(
        write(h.memory, h.config, { subject: 'linter', property: 'tool', value: 'eslint', project: SHOP }),
        'saved',
      )
      assert.notEqual(c.fact.claimKey, d.fact.claimKey)
    })

    it('keeps the keys of global and free-text facts as they were before projects existed', () => {
      const global = expectKind(
        write(h.memory, h.config, { subject: 'Editor', property: 'preferred', value: 'vim' }),
        'saved',
      ).fact
      const labelled = expectKind(
        write(h.memory, h.config, { subject: 'cluster', property: 'region', value: 'eu-west-1', scope: 'infra' }),
        'saved',
      ).fact
      for (const fact of [global, labelled]) {
        const [entity, predicate, qualifiers] = [
          canonicalEntity(fact.subject),
          canonicalPredicate(fact.property),
          canonicalQualifiers(fact.qualifiers),
        ]
        assert.equal(fact.slotKey, slotKeyOf(entity, predicate, qualifiers))
        assert.equal(fact.claimKey, claimKeyOf(entity, predicate, qualifiers, canonicalValue(fact.value)))
        assert.equal(fact.projectName, null)
      }
      assert.equal(global.scope, 'global')
      assert.equal(labelled.scope, 'infra')
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM projects'), 0)
    })

    it('reads a project scope text given as scope the same as the project (a proposal or an import carries the text)', () => {
      const byText = expectKind(
        write(h.memory, h.config, {
          subject: 'dev server',
          property: 'port',
          value: '5173',
          scope: `project:${BILLING.key}`,
        }),
        'saved',
      ).fact
      const byRef = expectKind(
        write(h.memory, h.config, { subject: 'dev server', property: 'port', value: '5173', project: BILLING }),
        'duplicate',
      ).fact
      assert.equal(byRef.id, byText.id)
      assert.equal(byText.projectName, 'billing-api')
    })

    it("reads a project scope text with spaces around it as that project, never as a label holding a project's scope under global keys", () => {
      const spaced = expectKind(
        write(h.memory, h.config, {
          subject: 'dev server',
          property: 'port',
          value: '5173',
          scope: `  project:${BILLING.key} `,
        }),
        'saved',
      ).fact
      assert.equal(spaced.scope, `project:${BILLING.key}`)
      assert.equal(spaced.projectName, 'billing-api')
      assert.equal(
        expectKind(
          write(h.memory, h.config, { subject: 'dev server', property: 'port', value: '5173', project: BILLING }),
          'duplicate',
        ).fact.id,
        spaced.id,
      )
    })

    it('clears the known projects with everything else', () => {
      write(h.memory, h.config, { subject: 'dev server', property: 'port', value: '5173', project: BILLING })
      const opened = h.memory.storeSet()
      assert.ok('stores' in opened)
      opened.stores.facts.wipe()
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM projects'), 0)
    })
  })

  describe(`the directory by project (${driver})`, () => {
    let h: MemoryHandle
    beforeEach(() => {
      h = openMemory(driver, new FakeClock())
      write(h.memory, h.config, {
        subject: 'user',
        property: 'preferred editor',
        value: 'helix',
        evidence: 'explicit_user',
      })
      write(h.memory, h.config, { subject: 'cluster', property: 'region', value: 'eu-west-1', scope: 'infra' })
      write(h.memory, h.config, { subject: 'dev server', property: 'port', value: '5173', project: BILLING })
      write(h.memory, h.config, { subject: 'dev server', property: 'port', value: '3000', project: SHOP })
    })
    afterEach(() => {
      h.dispose()
    })

    it("lists global and free-text facts and the session's project's, named, never another project's or a path", () => {
      const text = h.memory.directory(h.config, BILLING)
      assert.match(text, /- user · preferred editor: helix \(/u)
      assert.match(text, /- cluster · region: eu-west-1 \(/u)
      assert.match(text, /- dev server · port: 5173 \(\d{4}-\d{2}-\d{2}, project billing-api\)/u)
      assert.doesNotMatch(text, /3000|shop-web/u)
      assert.doesNotMatch(text, /\/home\/ada/u)
      const other = h.memory.directory(h.config, SHOP)
      assert.match(other, /- dev server · port: 3000 \(\d{4}-\d{2}-\d{2}, project shop-web\)/u)
      assert.doesNotMatch(other, /5173|billing-api/u)
    })

    it("counts the directory without walking other projects' facts: the kept counts, and a seek on the session's own project", () => {
      const opened = h.memory.storeSet()
      assert.ok('stores' in opened)
      if (!('stores' in opened)) return
      const { db, facts } = opened.stores
      const seen: { sql: string; params: unknown[] }[] = []
      const spied = db as unknown as Record<'get' | 'all', (sql: string, ...params: unknown[]) => unknown>
      const originals = { get: spied.get.bind(db), all: spied.all.bind(db) }
      for (const method of ['get', 'all'] as const)
        spied[method] = (sql, ...params) => {
          seen.push({ sql, params })
          return originals[method](sql, ...params)
        }
      let counts: number[]
      try {
        counts = [
          facts.countDirectoryFacts({ includeSensitive: false }, BILLING.key),
          facts.countDirectoryFacts({ includeSensitive: false }, null),
        ]
      } finally {
        spied.get = originals.get
        spied.all = originals.all
      }
      assert.deepEqual(counts, [3, 2])
      for (const { sql, params } of seen) {
        const plan = (originals.all(`EXPLAIN QUERY PLAN ${sql}`, ...params) as { detail: string }[])
          .map((row) => row.detail)
          .join('\n')
        assert.doesNotMatch(plan, /\bSCAN facts\b|scope>\?/u, `${sql}\n${plan}`)
      }
    })

    it('keeps the project counts through a move, a status change and a delete', async () => {
      const opened = h.memory.storeSet()
      assert.ok('stores' in opened)
      if (!('stores' in opened)) return
      const recount = (): number[] =>
        [BILLING.key, SHOP.key, null].map((key) =>
          opened.stores.facts.countDirectoryFacts({ includeSensitive: false }, key),
        )
      assert.deepEqual(recount(), [3, 3, 2])
      const billingPort = oneRow(h.db(), "SELECT id FROM facts WHERE value = '5173'")
      h.memory.forgetById(Number(billingPort['id']))
      assert.deepEqual(recount(), [2, 3, 2])
      opened.stores.facts.wipe()
      assert.deepEqual(recount(), [0, 0, 0])
    })

    it("lists no project's facts for a session without a project", () => {
      const text = h.memory.directory(h.config, null)
      assert.match(text, /helix/u)
      assert.doesNotMatch(text, /dev server/u)
    })

    it('counts only the facts it could list in its "more" footer', () => {
      assert.doesNotMatch(
        h.memory.directory(h.config, BILLING),
        /more, use memory_search/u,
        'the other project\'s fact is not "more"',
      )
      let footers = 0
      for (let budget = 50; budget <= 130; budget += 5) {
        const text = h.memory.directory(h.reconfigure({ directoryBudget: budget }), BILLING)
        const more = /(\d+) more, use memory_search/u.exec(text)
        if (text === '' || more === null) continue
        footers += 1
        const listed = text.split('\n').filter((line) => line.startsWith('- ')).length
        assert.equal(
          listed + Number(more[1]),
          3,
          `budget ${budget}: helix, eu-west-1 and billing-api's port, not shop-web's\n${text}`,
        )
      }
      assert.ok(footers > 0, 'some budget cuts the directory short')
    })

    it('gives the same bytes for one project while the store is unchanged, and changes when the store does', () => {
      const first = h.memory.directory(h.config, BILLING)
      h.memory.directory(h.config, SHOP)
      assert.equal(h.memory.directory(h.config, { ...BILLING }), first)
      write(h.memory, h.config, { subject: 'test command', property: 'value', value: 'pnpm vitest', project: SHOP })
      assert.equal(
        h.memory.directory(h.config, BILLING),
        first,
        "another project's write leaves this directory's bytes alone",
      )
      write(h.memory, h.config, { subject: 'test command', property: 'value', value: 'pnpm test', project: BILLING })
      assert.notEqual(h.memory.directory(h.config, BILLING), first)
    })
  })

  describe(`search by project (${driver})`, () => {
    let h: MemoryHandle
    beforeEach(() => {
      h = openMemory(driver, new FakeClock())
      write(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '8123', project: BILLING })
      write(h.memory, h.config, { subject: 'dev server', property: 'port', value: '3000', project: SHOP })
      write(h.memory, h.config, { subject: 'proxy', property: 'port', value: '8080' })
    })
    afterEach(() => {
      h.dispose()
    })

    const ask = (project: ProjectRef | null, otherProjects?: 'mark' | 'exclude') => ({
      query: 'port',
      limit: 5,
      asOf: undefined,
      project,
      ...(otherProjects === undefined ? {} : { otherProjects }),
    })

    it("ranks the session's project and the global facts first and marks other projects' facts with their name", async () => {
      const value = await h.memory.search(ask(SHOP), h.config)
      assert.equal(value.outcome, 'ok')
      const order = value.results.map(
        (result) => `${result.subject}:${result.project ?? '-'}:${String(result.otherProject)}`,
      )
      assert.equal(order.length, 3)
      assert.deepEqual(order.slice(2), ['billing-api:billing-api:true'])
      assert.deepEqual(new Set(order.slice(0, 2)), new Set(['dev server:shop-web:false', 'proxy:-:false']))
      const text = renderSearchText(value)
      assert.match(text, /\d\. billing-api · port \(another project: billing-api\): 8123 \[/u)
      assert.match(text, /\d\. dev server · port \(project shop-web\): 3000 \[/u)
      assert.match(text, /\d\. proxy · port: 8080 \[/u)
      assert.doesNotMatch(text, /\/home\/ada/u, 'never a path')
    })

    it("still finds another project's fact asked by name from elsewhere", async () => {
      const value = await h.memory.search(
        { query: 'what port does billing-api use in the other repo', limit: 5, asOf: undefined, project: SHOP },
        h.config,
      )
      const hit = value.results.find((result) => result.subject === 'billing-api')
      assert.ok(hit !== undefined, renderSearchText(value))
      assert.equal(hit.project, 'billing-api')
      assert.equal(hit.otherProject, true)
    })

    it("leaves other projects' facts out with exclude, in both the lexical and the full search", async () => {
      for (const value of [
        await h.memory.search(ask(SHOP, 'exclude'), h.config),
        h.memory.searchLexical(ask(SHOP, 'exclude'), h.config),
      ]) {
        assert.deepEqual(value.results.map((result) => result.subject).sort(), ['dev server', 'proxy'])
        assert.ok(value.results.every((result) => !result.otherProject))
      }
      const byIdentifier = await h.memory.search(
        { query: '8123', limit: 5, asOf: undefined, project: SHOP, otherProjects: 'exclude' },
        h.config,
      )
      assert.equal(byIdentifier.outcome, 'not_found')
    })

    it('treats every project as another outside a project, and ranks global facts first', async () => {
      const value = await h.memory.search(ask(null), h.config)
      assert.equal(value.results[0]?.subject, 'proxy')
      assert.ok(value.results.slice(1).every((result) => result.otherProject))
    })
  })
}
