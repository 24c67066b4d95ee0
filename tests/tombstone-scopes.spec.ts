/**
 * Tombstones hold in every scope, on a real SQLite file with both bindings: a claim forgotten globally, under a
 * label or in one project is refused when written back under any other scope (global, a label, the same or another
 * project), with or without its quote, and memory_forget's subject forget reports the facts it left in other projects.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { ProjectRef } from '../src/types.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { count, DRIVERS, expectKind, openMemory, write, type MemoryHandle, type PartialFact } from './helpers/store.ts'

const BILLING: ProjectRef = { key: '/home/ada/src/billing-api', name: 'billing-api' }
const SHOP: ProjectRef = { key: '/home/ada/src/shop-web', name: 'shop-web' }

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
    beforeEach(() => { h = openMemory(driver, new FakeClock()) })
    afterEach(() => { h.dispose() })

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
      const other = expectKind(write(h.memory, h.config, { subject: 'formatter', property: 'tool', value: 'prettier', quote: LINTER.quote, project: SHOP }), 'refused')
      assert.equal(other.code, 'tombstoned')
      assert.match(other.message, /evidence was forgotten/u)
    })

    it('leaves another value of the same slot free in every scope', () => {
      const saved = expectKind(write(h.memory, h.config, { ...LINTER, project: BILLING }), 'saved')
      h.memory.forgetById(saved.fact.id)
      for (const to of SCOPES) {
        const kind = write(h.memory, h.config, { subject: 'linter', property: 'tool', value: 'biome', ...to.scope }).kind
        assert.ok(kind === 'saved' || kind === 'duplicate', `${to.name}: ${kind}`)
      }
    })
  })
}
