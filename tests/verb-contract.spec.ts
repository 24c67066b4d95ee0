/**
 * The verb contract and the router hold the same verbs: every verb the router dispatches has a body schema and an
 * answer schema in the contract, every verb of the contract has a handler, both are the specification's list, and
 * each handler parses its body with the contract's own schema (the HTTP shell has no other). The type checks hold
 * too: a handler answering another shape, or a page call with a body its verb does not take, fails to compile
 * (`@ts-expect-error` below fails the tests' type check the day either compiles).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { VERB_CONTRACTS, type VerbName } from '../src/management/verb-contract.ts'
import { SPEC_VERBS, VERBS, verbNamed } from '../src/management/verbs.ts'
import { ok, verb } from '../src/management/verb.ts'
import { callVerb } from '../client/api.ts'

const sorted = (names: Iterable<string>): string[] => [...names].sort()

describe('the verb contract', () => {
  it("names the router's verbs, and only those, which are the specification's", () => {
    assert.deepEqual(sorted(Object.keys(VERB_CONTRACTS)), sorted(Object.keys(VERBS)))
    assert.deepEqual(sorted(Object.keys(VERBS)), sorted(SPEC_VERBS))
  })

  it("gives each handler its own name and the contract's body schema", () => {
    for (const name of Object.keys(VERB_CONTRACTS) as VerbName[]) {
      const handler = verbNamed(name)
      assert.equal(handler?.name, name)
      assert.equal(handler?.schema, VERB_CONTRACTS[name].request, name)
    }
  })

  it('dispatches no name outside the contract', () => {
    for (const name of ['', 'constructor', '__proto__', 'toString', 'facts ', 'FACTS'])
      assert.equal(verbNamed(name), undefined, JSON.stringify(name))
  })

  it('types handlers and page calls by the contract', () => {
    // @ts-expect-error subject-find answers entityKey and display as text or null, with the generation
    const drifted = verb('subject-find', { run: () => ok({ entityKey: 7 }) })
    assert.equal(drifted.schema, VERB_CONTRACTS['subject-find'].request)
    // @ts-expect-error facts takes no subjectKey
    const wrongBody = (): unknown => callVerb('facts', { subjectKey: 'billing-api' })
    // The answer's type is the contract's: no assertion at the call.
    const typed = async (): Promise<number | undefined> => {
      const answer = await callVerb('facts', { subject: 'billing-api' })
      return answer.ok ? answer.data.facts[0]?.id : undefined
    }
    assert.equal(typeof wrongBody, 'function')
    assert.equal(typeof typed, 'function')
  })
})
