/**
 * Tombstones hold in every scope, on a real SQLite file with both bindings: a claim forgotten globally, under a
 * label or in one project is refused when written back under any other scope (global, a label, the same or another
 * project), with or without its quote, and memory_forget's subject forget reports the facts it left in other projects.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { landCandidates } from '../src/extract/land.ts'
import { describeForget } from '../src/tools/memory-forget.ts'
import type { ProjectRef } from '../src/types.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { readFileSync } from 'node:fs'
import {
  count,
  DRIVERS,
  expectKind,
  oneRow,
  openMemory,
  write,
  type MemoryHandle,
  type PartialFact,
} from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

const BILLING: ProjectRef = { key: '/home/ada/src/billing-api', name: 'billing-api' }
const SHOP: ProjectRef = { key: '/home/ada/src/shop-web', name: 'shop-web' }
const DOCS: ProjectRef = { key: '/home/ada/src/docs-site', name: 'docs-site' }
const BILLING_SCOPE = `project:${BILLING.key}`

/** The claim every case forgets and writes back, with the quote it was said in. */
const LINTER: PartialFact = { subject: 'linter', property: 'tool', value: 'eslint', quote: 'the linter is eslint' }

/** The scopes a claim can be written under: global, a label, and two projects. */
const SCOPES: readonly { readonly name: string; readonly scope: PartialFact }[] = [
  { name: 'global', scope: {} },
  { name: 'the label "infra"', scope: { scope: 'infra' } },
  { name: 'project billing-api', scope: { project: BILLING } },
  { name: 'project shop-web', scope: { project: SHOP } },
]

for (const driver of DRIVERS) {
  describe(`a tombstone holds in every scope (${driver})`, () => {
    let h: MemoryHandle
    beforeEach(() => {
      h = openMemory(driver, new FakeClock())
    })
    afterEach(() => {
      h.dispose()
    })

    for (const from of SCOPES) {
      it(`refuses a claim forgotten in ${from.name} when it is written back in any scope, with its quote or without`, () => {
        const saved = expectKind(write(h.memory, h.config, { ...LINTER, ...from.scope }), 'saved')
        assert.equal(h.memory.forgetById(saved.fact.id).kind, 'forgotten')
        for (const to of SCOPES) {
          for (const quote of [LINTER.quote, undefined]) {
            const answer = write(h.memory, h.config, { ...LINTER, quote, ...to.scope })
            const refused = expectKind(answer, 'refused')
            assert.equal(refused.code, 'tombstoned', `${to.name}, quote ${String(quote)}`)
            assert.match(refused.message, /forgotten at the user's request/u)
          }
        }
        assert.equal(count(h.db(), `SELECT count(*) AS n FROM facts WHERE status <> 'forgotten'`), 0)
      })
    }

    it('refuses the forgotten quote under another claim in another project, as it does in the same scope', () => {
      const saved = expectKind(write(h.memory, h.config, { ...LINTER, project: BILLING }), 'saved')
      h.memory.forgetById(saved.fact.id)
      const other = expectKind(
        write(h.memory, h.config, {
          subject: 'formatter',
          property: 'tool',
          value: 'prettier',
          quote: LINTER.quote,
          project: SHOP,
        }),
        'refused',
      )
      assert.equal(other.code, 'tombstoned')
      assert.match(other.message, /evidence was forgotten/u)
    })

    it('forgets a subject from a session in global, labels and its project, and counts what other projects still hold', () => {
      write(h.memory, h.config, { subject: 'linter', property: 'tool', value: 'eslint' })
      write(h.memory, h.config, { subject: 'linter', property: 'config', value: 'strict', scope: 'infra' })
      write(h.memory, h.config, { subject: 'linter', property: 'version', value: '9', project: BILLING })
      write(h.memory, h.config, { subject: 'linter', property: 'version', value: '8', project: SHOP })
      write(h.memory, h.config, { subject: 'linter', property: 'version', value: '7', project: DOCS })
      write(h.memory, h.config, { subject: 'linter', property: 'tool', value: 'oxlint', project: DOCS })
      const answer = h.memory.forgetBySubject('linter', undefined, BILLING)
      assert.equal(answer.kind, 'forgotten')
      if (answer.kind !== 'forgotten') return
      assert.deepEqual(answer.facts.map((fact) => fact.value).sort(), ['9', 'eslint', 'strict'])
      assert.deepEqual(
        answer.untouched.map((entry) => [entry.projectName, entry.facts]),
        [
          ['docs-site', 2],
          ['shop-web', 1],
        ],
      )
      const told = describeForget(answer)
      assert.deepEqual(told.reached, ['global', 'labels', 'project billing-api'])
      assert.deepEqual(told.untouched, [
        { project: 'docs-site', facts: 2 },
        { project: 'shop-web', facts: 1 },
      ])
      assert.deepEqual(told.forgotten.map((fact) => fact.scope).sort(), [
        'global',
        'label infra',
        'project billing-api',
      ])
      assert.match(
        told.message,
        /Reached: global, labels, project billing-api\. Their claims are tombstoned in every scope/u,
      )
      assert.match(
        told.message,
        /Not reached: 3 facts of this subject in other projects \(docs-site: 2, shop-web: 1\)/u,
      )
      assert.doesNotMatch(told.message, /\/home\/ada/u, 'a project is named, never its path')

      // Outside any project nothing of a project is reached, and a subject found only there says where it is.
      const outside = h.memory.forgetBySubject('linter', 'version', null)
      assert.equal(outside.kind, 'not_found')
      const toldOutside = describeForget(outside)
      assert.deepEqual(toldOutside.reached, ['global', 'labels'])
      assert.match(
        toldOutside.message,
        /nothing was forgotten\. Reached: global, labels\. Not reached: 2 facts of this subject in other projects \(docs-site: 1, shop-web: 1\)/u,
      )

      // The page's forget (no session) reaches every scope and leaves nothing behind.
      const everywhere = h.memory.forgetBySubject('linter', undefined)
      assert.equal(everywhere.kind, 'forgotten')
      assert.deepEqual(everywhere.kind === 'forgotten' ? everywhere.untouched : undefined, [])
      assert.deepEqual(describeForget(everywhere).reached, ['every scope'])
      assert.equal(count(h.db(), `SELECT count(*) AS n FROM facts WHERE status <> 'forgotten'`), 0)
    })

    for (const origin of ['extract', 'rule'] as const) {
      it(`refuses a candidate of the ${origin} path scoped to the session's project whose claim was forgotten globally, and logs it as tombstoned`, () => {
        h.memory.forgetById(expectKind(write(h.memory, h.config, LINTER), 'saved').fact.id)
        const messages = [{ role: 'user' as const, seq: 1, turn: 1, text: 'the linter is eslint' }]
        const candidate = {
          subject: 'linter',
          property: 'tool',
          value: 'eslint',
          quote: 'the linter is eslint',
          confidence: 0.9,
          scope: 'project',
        }
        const landed = landCandidates(
          [candidate],
          { origin, messages, sessionId: 'session-1', usersWords: true, project: BILLING },
          h.memory,
          h.config,
        )
        assert.deepEqual(landed.factIds, [])
        assert.deepEqual(
          landed.refused.map((entry) => entry.reason),
          ['tombstoned'],
        )
        assert.equal(count(h.db(), `SELECT count(*) AS n FROM facts WHERE status <> 'forgotten'`), 0)
      })
    }

    it('forgetting one fact by id names the current facts of other scopes that hold the same claim', () => {
      const global = expectKind(write(h.memory, h.config, LINTER), 'saved').fact
      const billing = expectKind(
        write(h.memory, h.config, { ...LINTER, quote: 'we lint with eslint', project: BILLING }),
        'saved',
      ).fact
      write(h.memory, h.config, { ...LINTER, value: 'biome', project: SHOP })
      const answer = h.memory.forgetById(global.id)
      assert.equal(answer.kind, 'forgotten')
      assert.deepEqual(answer.kind === 'forgotten' ? answer.sameClaimKept.map((fact) => fact.id) : undefined, [
        billing.id,
      ])
      const told = describeForget(answer)
      assert.deepEqual(told.reached, ['global'])
      assert.deepEqual(told.sameClaimKept, [{ id: billing.id, scope: 'project billing-api' }])
      assert.match(
        told.message,
        new RegExp(
          `Forgot 1 fact: #${global.id} linter · tool = eslint \\(global\\)\\. Its claim is tombstoned in every scope`,
          'u',
        ),
      )
      assert.match(
        told.message,
        new RegExp(
          `The same claim still stands as #${billing.id} \\(project billing-api\\): the tombstone keeps it from being written again`,
          'u',
        ),
      )
      assert.equal(expectKind(write(h.memory, h.config, { ...LINTER, project: SHOP }), 'refused').code, 'tombstoned')
    })

    it('leaves another value of the same slot free in every scope', () => {
      const saved = expectKind(write(h.memory, h.config, { ...LINTER, project: BILLING }), 'saved')
      h.memory.forgetById(saved.fact.id)
      for (const to of SCOPES) {
        const kind = write(h.memory, h.config, {
          subject: 'linter',
          property: 'tool',
          value: 'biome',
          ...to.scope,
        }).kind
        assert.ok(kind === 'saved' || kind === 'duplicate', `${to.name}: ${kind}`)
      }
    })
  })
}

for (const driver of DRIVERS) {
  describe(`every write path meets a tombstone of another scope (${driver})`, () => {
    let v: VerbHarness
    beforeEach(() => {
      v = verbHarness(driver)
    })
    afterEach(() => {
      v.dispose()
    })

    const put = (partial: PartialFact) => expectKind(write(v.h.memory, v.h.config, partial), 'saved').fact
    /** Write the claim in a scope and forget it there. */
    const forgetIn = (scope: PartialFact): void => {
      v.h.memory.forgetById(put({ ...LINTER, ...scope }).id)
    }
    const refusedAs = (outcome: Awaited<ReturnType<VerbHarness['call']>>, code: string): string => {
      assert.equal(outcome.ok, false, JSON.stringify(outcome))
      assert.equal(!outcome.ok && outcome.code, code)
      return outcome.ok ? '' : outcome.message
    }

    it('refuses a page add into a project of a claim forgotten globally, and changes nothing', async () => {
      put({ subject: 'dev server', property: 'port', value: '5173', project: BILLING })
      forgetIn({})
      const before = v.generation()
      const message = refusedAs(
        await v.call(
          'fact-add',
          v.fence({ subject: 'linter', property: 'tool', value: 'eslint', scope: BILLING_SCOPE }),
        ),
        'tombstoned',
      )
      assert.match(message, /forgotten at the user's request/u)
      assert.equal(v.generation(), before)
    })

    it('refuses a page edit that turns a global value into a claim forgotten in a project', async () => {
      const global = put({ subject: 'linter', property: 'tool', value: 'biome' })
      forgetIn({ project: BILLING })
      refusedAs(await v.call('fact-update', v.fence({ id: global.id, value: 'eslint' })), 'tombstoned')
      assert.equal(oneRow(v.h.db(), 'SELECT value FROM facts WHERE id = ?', global.id)['value'], 'biome')
    })

    it('refuses to move a project fact to global or a label once its claim was forgotten in another project, and moves nothing', async () => {
      const billing = put({ ...LINTER, project: BILLING })
      forgetIn({ project: SHOP })
      for (const scope of ['global', 'infra']) {
        const message = refusedAs(await v.call('fact-move', v.fence({ id: billing.id, scope })), 'tombstoned')
        assert.match(message, /forgot this claim/u)
      }
      assert.equal(oneRow(v.h.db(), 'SELECT scope FROM facts WHERE id = ?', billing.id)['scope'], BILLING_SCOPE)
    })

    it("refuses to apply a project's proposal whose claim was forgotten globally after it was queued", async () => {
      const proposed = expectKind(
        write(v.h.memory, v.h.config, { ...LINTER, inferred: true, project: BILLING }),
        'proposed',
      )
      forgetIn({})
      const outcome = await v.call('proposal-apply', v.fence({ id: proposed.proposalId, revision: 1 }))
      refusedAs(outcome, 'refused')
      const reasons = (!outcome.ok ? outcome.details?.['skippedRefused'] : []) as { reason: string }[]
      assert.match(reasons[0]?.reason ?? '', /forgotten at the user's request/u)
      assert.equal(count(v.h.db(), `SELECT count(*) AS n FROM facts WHERE status <> 'forgotten'`), 0)
    })

    it("classes a project's record as tombstoned when the importing store forgot the claim globally, and imports it nowhere", async () => {
      const elsewhere = verbHarness(driver)
      try {
        expectKind(write(elsewhere.h.memory, elsewhere.h.config, { ...LINTER, project: BILLING }), 'saved')
        const content = readFileSync(String((await elsewhere.ok('export', { backup: false }))['path']), 'utf8')
        forgetIn({})
        const preview = await v.ok('import', { mode: 'preview', content })
        assert.deepEqual(preview['counts'], {
          new: 0,
          duplicate: 0,
          repeated: 0,
          conflict: 0,
          tombstoned: 1,
          invalid: 0,
        })
        const committed = await v.ok('import', { mode: 'commit', content, token: preview['token'], ...v.fence() })
        assert.equal((committed['counts'] as Record<string, number>)['tombstoned'], 1)
        assert.equal(count(v.h.db(), `SELECT count(*) AS n FROM facts WHERE status <> 'forgotten'`), 0)
      } finally {
        elsewhere.dispose()
      }
    })

    it("carries a project forget's tombstones in an export, so the importing store refuses the claim globally", async () => {
      const elsewhere = verbHarness(driver)
      try {
        elsewhere.h.memory.forgetById(
          expectKind(write(elsewhere.h.memory, elsewhere.h.config, { ...LINTER, project: BILLING }), 'saved').fact.id,
        )
        const content = readFileSync(String((await elsewhere.ok('export', { backup: false }))['path']), 'utf8')
        const preview = await v.ok('import', { mode: 'preview', content })
        await v.ok('import', { mode: 'commit', content, token: preview['token'], ...v.fence() })
        for (const scope of [{}, { project: SHOP }] as const) {
          assert.equal(expectKind(write(v.h.memory, v.h.config, { ...LINTER, ...scope }), 'refused').code, 'tombstoned')
        }
      } finally {
        elsewhere.dispose()
      }
    })
  })
}
