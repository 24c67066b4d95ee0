/**
 * The library's labeled pairs (src/semantic/calibration-pairs.ts): per query "<subject> <property>" the fact's own
 * text is relevant and a fact of another subject and another property is irrelevant; the same facts in any order
 * give the same pairs; queries are spread over the library, a repeated query is taken once, a fact with nothing
 * unrelated to contrast gives no query, and the count never passes what was asked.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { LIBRARY_QUERIES, libraryPairs, type CalibrationFact } from '../src/semantic/calibration-pairs.ts'
import { factText } from '../src/semantic/input-text.ts'

const fact = (
  id: number,
  subject: string,
  property: string,
  value: string,
  qualifiers: Record<string, string> = {},
): CalibrationFact => ({
  id,
  subject,
  entityKey: subject.toLowerCase(),
  property,
  predicateKey: property.toLowerCase(),
  qualifiers,
  value,
})

/** `count` facts, each of its own subject and property. */
const distinct = (count: number): CalibrationFact[] =>
  Array.from({ length: count }, (_, i) => fact(i + 1, `service-${i + 1}`, `setting ${i + 1}`, `value ${i + 1}`))

describe('libraryPairs', () => {
  it('asks "<subject> <property>" with the fact\'s own text as relevant and an unrelated fact\'s text as irrelevant', () => {
    const facts = [
      fact(1, 'billing-api', 'port', '7801'),
      fact(2, 'orders-api', 'region', 'eu-west-3', { env: 'prod' }),
    ]
    assert.deepEqual(libraryPairs(facts, { queries: 10 }), [
      { query: 'billing-api port', document: 'billing-api · port: 7801', relevant: true },
      { query: 'billing-api port', document: 'orders-api · region (env: prod): eu-west-3', relevant: false },
      { query: 'orders-api region', document: 'orders-api · region (env: prod): eu-west-3', relevant: true },
      { query: 'orders-api region', document: 'billing-api · port: 7801', relevant: false },
    ])
  })

  it('never contrasts a fact with one of the same subject or the same property', () => {
    const facts = [
      fact(1, 'billing-api', 'port', '7801'),
      fact(2, 'orders-api', 'region', 'eu'),
      fact(3, 'billing-api', 'owner', 'team-a'),
      fact(4, 'Orders-API', 'port', '7802'),
      fact(5, 'search', 'Port', '9200'),
    ]
    const pairs = libraryPairs(facts, { queries: 10 })
    const byText = new Map(facts.map((entry) => [factText(entry), entry]))
    for (let i = 0; i < pairs.length; i += 2) {
      const asked = byText.get(pairs[i]?.document ?? '')
      const contrast = byText.get(pairs[i + 1]?.document ?? '')
      assert.ok(asked !== undefined && contrast !== undefined)
      assert.notEqual(contrast.entityKey, asked.entityKey, pairs[i]?.query)
      assert.notEqual(contrast.predicateKey, asked.predicateKey, pairs[i]?.query)
    }
    assert.equal(pairs.length, 10)
  })

  it('gives the same pairs for the same facts in any order', () => {
    const facts = distinct(60)
    const expected = libraryPairs(facts, { queries: 25 })
    assert.deepEqual(libraryPairs([...facts].reverse(), { queries: 25 }), expected)
    assert.deepEqual(libraryPairs([...facts.slice(30), ...facts.slice(0, 30)], { queries: 25 }), expected)
  })

  it('spreads its queries evenly over the library by id and stops at the number asked', () => {
    const pairs = libraryPairs(distinct(100), { queries: 10 })
    assert.equal(pairs.length, 20)
    assert.deepEqual(
      pairs.filter((pair) => pair.relevant).map((pair) => pair.query),
      [1, 11, 21, 31, 41, 51, 61, 71, 81, 91].map((n) => `service-${n} setting ${n}`),
    )
  })

  it('takes a repeated query once and fills the count from the rest of the library', () => {
    const facts = [
      fact(1, 'user', 'hobby', 'chess'),
      fact(2, 'user', 'hobby', 'piano'),
      fact(3, 'user', 'hobby', 'tennis'),
      ...distinct(3).map((entry) => ({ ...entry, id: entry.id + 10 })),
    ]
    const queries = libraryPairs(facts, { queries: 4 })
      .filter((pair) => pair.relevant)
      .map((pair) => pair.query)
    assert.deepEqual(queries, ['user hobby', 'service-1 setting 1', 'service-2 setting 2', 'service-3 setting 3'])
  })

  it('skips a fact with nothing of another subject and another property to contrast, and gives nothing when no fact has one', () => {
    const queries = libraryPairs(
      [fact(1, 'user', 'hobby', 'chess'), fact(2, 'user', 'city', 'Lyon'), fact(3, 'team', 'hobby', 'go')],
      { queries: 10 },
    )
      .filter((pair) => pair.relevant)
      .map((pair) => pair.query)
    assert.deepEqual(queries, ['user city', 'team hobby'])
    assert.deepEqual(
      libraryPairs([fact(1, 'user', 'hobby', 'chess'), fact(2, 'user', 'city', 'Lyon')], { queries: 10 }),
      [],
    )
    assert.deepEqual(libraryPairs([], { queries: LIBRARY_QUERIES }), [])
  })
})
