/**
 * Qualifiers are scanned at write like the value, on a real store (one binding), through memory_write,
 * memory_search and the page's fact verb: a credential in a qualifier is refused (or, with refuseCredentials off,
 * stored as a credential the model never sees and no index holds), personal data in one makes the fact sensitive,
 * and a plain qualifier is kept as given.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { ToolCall, ToolSpec } from '../src/host/ports.ts'
import { recordOf } from '../src/exchange/jsonl.ts'
import type { SearchValue } from '../src/retrieval/render.ts'
import { memorySearchTool } from '../src/tools/memory-search.ts'
import { memoryWriteTool, type WriteValue } from '../src/tools/memory-write.ts'
import { MASK } from '../src/text/privacy.ts'
import { ONE_DRIVER } from './helpers/store.ts'
import { indexedTermsOf } from './helpers/fts-terms.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

const SECRET = 'sk-proj-4fJq9ZxT2mWv8LrN6bYc1HsD'
const call: ToolCall = { callId: 'call-1', signal: new AbortController().signal }

for (const driver of ONE_DRIVER) {
  describe(`qualifiers under the privacy scan (${driver})`, () => {
    let v: VerbHarness
    let writeTool: ToolSpec
    let searchTool: ToolSpec
    beforeEach(() => {
      v = verbHarness(driver)
      const deps = { memory: v.h.memory, config: () => v.h.config }
      writeTool = memoryWriteTool(deps)
      searchTool = memorySearchTool(deps)
    })
    afterEach(() => {
      v.dispose()
    })

    const write = async (qualifiers: Record<string, string>, value = 'enabled'): Promise<WriteValue> =>
      (await writeTool.execute(
        { subject: 'billing api', property: 'auth mode', value, qualifiers },
        call,
      )) as WriteValue
    const search = async (query: string): Promise<SearchValue> =>
      (await searchTool.execute({ query }, call)) as SearchValue
    const facts = (): number => Number(v.h.db().get('SELECT count(*) AS n FROM facts')?.['n'])

    it('refuses a credential written as the property, writing nothing and answering it masked', async () => {
      const answer = (await writeTool.execute(
        { subject: 'deploy bot', property: `key ${SECRET}`, value: 'enabled' },
        call,
      )) as WriteValue
      assert.equal(answer.outcome, 'refused')
      assert.match(answer.message, /credential/u)
      assert.doesNotMatch(JSON.stringify(answer), /sk-proj-4fJq/u)
      assert.equal(facts(), 0)
    })

    it('refuses a credential in a qualifier as it refuses a credential value, writing nothing', async () => {
      for (const qualifiers of [
        { token: SECRET },
        { password: 'Tr0ub4dor&3' },
        { [SECRET]: 'yes' },
        { [`key ${SECRET}`]: 'Tr0ub4dor&3' },
      ]) {
        const answer = await write(qualifiers)
        assert.equal(answer.outcome, 'refused', JSON.stringify(answer))
        assert.match(answer.message, /credential/u)
        assert.equal(JSON.stringify(answer).includes(SECRET), false)
        assert.equal(JSON.stringify(answer).includes('Tr0ub4dor'), false)
      }
      assert.equal(facts(), 0)
    })

    it('stores a credential qualifier as a credential the model never sees and no index holds, when refuseCredentials is off', async () => {
      v.h.reconfigure({ refuseCredentials: false })
      const answer = await write({ token: SECRET })
      assert.equal(answer.outcome, 'saved', JSON.stringify(answer))
      assert.equal(JSON.stringify(answer).includes(SECRET), false, 'the write answer does not echo the secret')
      const row = v.h.db().get('SELECT id, sensitivity, model_use_allowed FROM facts')
      assert.equal(row?.['sensitivity'], 'credential')
      assert.equal(Number(row?.['model_use_allowed']), 0)
      const id = Number(row?.['id'])
      const terms = indexedTermsOf(v.h.db().path, id) ?? ''
      assert.doesNotMatch(terms, /4fjq9zxt|sk-proj|proj/iu)
      assert.equal(Number(v.h.db().get('SELECT count(*) AS n FROM fact_identifiers WHERE fact_id = ?', id)?.['n']), 0)
      for (const query of ['billing api auth mode', SECRET]) {
        const found = await search(query)
        assert.equal(JSON.stringify(found.results).includes(SECRET), false, query)
        assert.equal(found.results.length, 0, query)
      }
      const page = await v.ok('fact', { id })
      assert.equal(
        JSON.stringify(page).includes(SECRET),
        false,
        'the page masks a credential qualifier as it masks a credential value',
      )
    })

    it('shows a credential qualifier masked on a proposal card and writes it masked to an export, when refuseCredentials is off', async () => {
      v.h.reconfigure({ refuseCredentials: false })
      const proposed = (await writeTool.execute(
        {
          subject: 'billing api',
          property: 'auth mode',
          value: 'enabled',
          qualifiers: { token: SECRET },
          confidence: 0.3,
        },
        call,
      )) as WriteValue
      assert.equal(proposed.outcome, 'pending', JSON.stringify(proposed))
      const cards = await v.ok('proposals', { status: 'all', limit: 10 })
      assert.equal(JSON.stringify(cards).includes(SECRET), false, 'the card masks the qualifier')
      const saved = await write({ token: SECRET })
      const opened = v.h.memory.storeSet()
      const [fact] = 'stores' in opened ? opened.stores.facts.getFacts([saved.factId ?? 0]) : []
      assert.ok(fact)
      assert.deepEqual(recordOf(fact).qualifiers, { token: MASK })
    })

    it("judges a qualifier's name and value each, a credential in either winning over personal data in the other", async () => {
      for (const qualifiers of [{ 'alice@example.com': SECRET }, { [SECRET]: 'alice@example.com' }]) {
        assert.equal((await write(qualifiers)).outcome, 'refused', JSON.stringify(qualifiers))
      }
      assert.equal(facts(), 0)
    })

    it('withholds a fact whose qualifier holds an email from memory_search, and shows it whole on the page', async () => {
      const answer = await write({ contact: 'alice@example.com' })
      assert.equal(answer.outcome, 'saved', JSON.stringify(answer))
      const row = v.h.db().get('SELECT id, sensitivity FROM facts')
      assert.equal(row?.['sensitivity'], 'email')
      const found = await search('billing api auth mode')
      assert.equal(JSON.stringify(found).includes('alice@example.com'), false)
      assert.equal(found.results.length, 0)
      const page = (await v.ok('fact', { id: Number(row?.['id']) }))['fact'] as {
        qualifiers: Record<string, string>
        sensitivity: string
      }
      assert.deepEqual(page.qualifiers, { contact: 'alice@example.com' })
      assert.equal(page.sensitivity, 'email')
      v.h.reconfigure({ sensitiveModelVisible: true })
      assert.equal(
        JSON.stringify(await search('billing api auth mode')).includes('alice@example.com'),
        true,
        'shown once sensitive facts are model-visible',
      )
    })

    it('keeps a plain qualifier as given, searchable and shown to the model', async () => {
      const answer = await write({ env: 'staging', 'token limit': '128000' })
      assert.equal(answer.outcome, 'saved', JSON.stringify(answer))
      const row = v.h.db().get('SELECT sensitivity, model_use_allowed FROM facts')
      assert.equal(row?.['sensitivity'], null)
      assert.equal(Number(row?.['model_use_allowed']), 1)
      const found = await search('billing api auth mode staging')
      assert.deepEqual(
        found.results.map((result) => result.qualifiers),
        [{ env: 'staging', 'token limit': '128000' }],
      )
    })
  })
}
