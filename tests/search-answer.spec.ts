/**
 * What memory_search answers, read from the value and the rendered text the model receives: the matched rows are
 * the answer (a multi-valued slot lists the values that matched and counts the rest, a single-valued slot keeps its
 * history below its current value), `limit` counts matched facts, the budget goes to matched rows first, as_of
 * answers follow the same rules, and values that rank alike come newest first.
 */
import { afterEach, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { renderSearchText, searchFailure, type SearchValue } from '../src/retrieval/render.ts'
import { MASK } from '../src/text/privacy.ts'
import { DAY_MS, FakeClock } from './helpers/fake-clock.ts'
import { expectKind, ONE_DRIVER, openMemory, write, writeFact, type MemoryHandle } from './helpers/store.ts'

/** Sentences that share no word with the questions below (beyond the subject's name). */
/** A project key's shape, as a model might paste it into a query. */
const KEY = 'sk-proj-Q7vR2mXk9LpT4wZs8NbY3cHd6F-jG1aUe5KqW0_y'

const FILLER = [
  'read a novel about sailors',
  'walked along the river',
  'baked bread with rye',
  'fixed an old bicycle',
  'planted tomatoes in spring',
  'watched a documentary on whales',
  'knitted a blue scarf',
  'visited an aquarium',
  'wrote letters to a cousin',
  'learned a card trick',
]

for (const driver of ONE_DRIVER) {
  describe(`search answers (${driver})`, () => {
    let clock: FakeClock
    let h: MemoryHandle
    beforeEach(() => {
      clock = new FakeClock('2026-03-01T09:00:00.000Z')
      h = openMemory(driver, clock)
    })
    afterEach(() => {
      h.dispose()
    })

    const search = (query: string, extra: { limit?: number; asOf?: string } = {}): SearchValue =>
      h.memory.searchLexical({ query, limit: extra.limit ?? 10, asOf: extra.asOf }, h.config)
    const observe = (value: string): void => {
      writeFact(h.memory, h.config, { subject: 'Melanie', property: 'observation', value, multi: true })
      clock.advance(60_000)
    }

    it('answers a question about one value of a 100-value multi-valued slot with that value first, and counts the others', () => {
      observe('Melanie signed up for a pottery class')
      for (let i = 0; i < 99; i += 1) observe(`Melanie ${FILLER[i % FILLER.length]} (${i})`)
      const value = search('What class did Melanie sign up for?')
      assert.equal(value.outcome, 'ok')
      const [slot] = value.results
      assert.equal(slot?.multi, true)
      assert.equal(slot?.values[0]?.value, 'Melanie signed up for a pottery class')
      assert.equal(slot?.values.length, 1, 'only the value that matched is listed')
      assert.equal(slot?.moreValues, 99)
      const text = renderSearchText(value)
      assert.match(
        text,
        /1\. Melanie · observation\n {3}- Melanie signed up for a pottery class \[#1 · since 2026-03-01 · observed · memory_write\]\n {3}\+ 99 other values of Melanie · observation\n/u,
      )
      assert.doesNotMatch(text, /older values/u, 'the other values are other statements, not older versions')
    })

    it('counts matched facts against limit, not slots', () => {
      for (let i = 0; i < 12; i += 1) observe(`Melanie painted canvas ${i}`)
      for (let i = 0; i < 5; i += 1) observe(`Melanie ${FILLER[i]}`)
      const five = search('painted canvas', { limit: 5 })
      assert.equal(five.results.length, 1)
      assert.equal(five.results[0]?.values.length, 5)
      assert.equal(five.results[0]?.moreValues, 12, 'seven more painted values and five others')
      const ten = search('painted canvas', { limit: 10 })
      assert.equal(ten.results[0]?.values.length, 10)
      assert.match(renderSearchText(ten), /10 matching facts\./u)
    })

    it("keeps a single-valued slot's history below its current value without counting it against limit", () => {
      for (const port of ['7801', '7802', '7803']) {
        writeFact(h.memory, h.config, { subject: 'billing-api', property: 'port', value: port })
        clock.advance(DAY_MS)
      }
      writeFact(h.memory, h.config, { subject: 'billing-worker', property: 'port', value: '9100' })
      writeFact(h.memory, h.config, { subject: 'billing-cron', property: 'port', value: '9200' })
      const value = search('billing port', { limit: 3 })
      assert.equal(value.results.length, 3, 'three slots for limit 3, whatever the history')
      const api = value.results.find((result) => result.subject === 'billing-api')
      assert.deepEqual(
        api?.values.map((row) => [row.value, row.status]),
        [
          ['7803', 'active'],
          ['7802', 'superseded'],
          ['7801', 'superseded'],
        ],
      )
      assert.equal(api?.multi, false)
      const text = renderSearchText(value)
      assert.ok(
        text.indexOf('7803 [#') < text.indexOf('7802 [#') && text.indexOf('7802 [#') < text.indexOf('7801 [#'),
        'newest first',
      )
    })

    it("shows a single-valued slot's current value first even when only an old value matched", () => {
      writeFact(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' })
      clock.advance(DAY_MS)
      writeFact(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7802' })
      const value = search('7801')
      assert.deepEqual(
        value.results[0]?.values.map((row) => [row.value, row.matched]),
        [
          ['7802', true],
          ['7801', true],
        ],
      )
    })

    it('spends the budget on matched rows first, then fills it with counts and history', () => {
      const long = (n: number): string =>
        `deploy target host-${n} in the primary region, reached through the bastion gateway and its jump account`
      for (let n = 0; n < 8; n += 1) {
        writeFact(h.memory, h.config, { subject: 'web tier', property: 'deploy target', value: long(n) })
        clock.advance(DAY_MS)
      }
      writeFact(h.memory, h.config, {
        subject: 'api tier',
        property: 'deploy target',
        value: 'deploy target api-host-1',
      })
      writeFact(h.memory, h.config, { subject: 'db tier', property: 'deploy target', value: 'deploy target db-host-1' })
      const config = h.reconfigure({ searchBudgetTokens: 400 })
      const value = h.memory.searchLexical({ query: 'deploy target', limit: 5, asOf: undefined }, config)
      const text = renderSearchText(value)
      assert.ok(text.length <= 800, `rendered ${text.length} characters for a budget of 800:\n${text}`)
      assert.deepEqual(
        value.results.map((result) => result.subject).sort(),
        ['api tier', 'db tier', 'web tier'],
        'every matched slot is answered before any history is shown',
      )
      assert.equal(value.omitted, 0)
      const web = value.results.find((result) => result.subject === 'web tier')
      assert.equal(web?.values[0]?.value, long(7), 'the current value leads its slot')
      assert.ok((web?.values.length ?? 0) < 8, 'not all of the history fits')
      assert.equal(web?.moreValues, 8 - (web?.values.length ?? 0))
      assert.match(text, new RegExp(`\\+ ${web?.moreValues ?? 0} older values?\\n`, 'u'))
    })

    it('answers as of a past day with the matched values valid then, under the same limit', () => {
      for (let i = 0; i < 6; i += 1) observe(`Melanie painted canvas ${i}`)
      clock.advance(2 * DAY_MS)
      for (let i = 6; i < 12; i += 1) observe(`Melanie painted canvas ${i}`)
      const then = search('painted canvas', { asOf: '2026-03-01', limit: 4 })
      assert.equal(then.outcome, 'ok')
      const rows = then.results[0]?.values ?? []
      assert.equal(rows.length, 4, 'limit counts the facts valid then')
      for (const row of rows) assert.ok(row.validFrom < '2026-03-02', `${row.value} was not yet recorded then`)
      assert.equal(then.results[0]?.moreValues, 2, 'the slot held six values then')
      assert.match(renderSearchText(then), /\+ 2 other values of Melanie · observation/u)
    })

    it('lists values that rank alike newest first', () => {
      observe('Melanie takes a pottery class on Mondays')
      clock.advance(DAY_MS)
      observe('Melanie takes a pottery class, on Mondays!')
      const value = search('pottery class Mondays')
      assert.deepEqual(
        value.results[0]?.values.map((row) => row.value),
        ['Melanie takes a pottery class, on Mondays!', 'Melanie takes a pottery class on Mondays'],
      )
    })

    it('gives each row no more metadata than its dates, evidence and source', () => {
      writeFact(h.memory, h.config, {
        subject: 'billing-api',
        property: 'port',
        value: '7801',
        anchor: { sessionId: 'session-d1726f36-5734', turn: 2 },
      })
      const text = renderSearchText(search('billing port'))
      const line = text.split('\n').find((row) => row.includes('7801 [#')) ?? ''
      assert.equal(
        line,
        '1. billing-api · port: 7801 [#1 · since 2026-03-01 · observed · memory_write, session-d1726f36 turn 2]',
      )
    })

    it('shows when a value was seen only when that is another day than it took effect', () => {
      expectKind(
        write(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801', validFrom: '2026-02-20' }),
        'saved',
      )
      assert.match(
        renderSearchText(search('billing port')),
        /7801 \[#1 · since 2026-02-20 · observed · seen 2026-03-01 · memory_write\]/u,
      )
    })

    it('repeats a query that holds a credential with the credential masked, whether something matched or not', () => {
      writeFact(h.memory, h.config, { subject: 'deploy bot', property: 'model provider', value: 'OpenAI' })
      const missed = search(KEY)
      const found = search(`deploy bot provider ${KEY}`)
      assert.deepEqual([missed.outcome, found.outcome], ['not_found', 'ok'])
      assert.deepEqual([missed.query, found.query], [MASK, `deploy bot provider ${MASK}`])
      for (const value of [missed, found]) assert.doesNotMatch(renderSearchText(value), /sk-proj|Q7vR2mXk9LpT/u)
      assert.match(
        renderSearchText(found),
        /^outcome: ok\nmemory_search "deploy bot provider ••••••••": 1 matching fact\./u,
      )
      assert.equal(searchFailure('refused', KEY, 'limit: must be an integer', h.config.displayTimeZone).query, MASK)
    })
  })
}
