/**
 * Cues (both SQLite bindings): the phrases a writer says later requests needing a fact would use. Stored apart from
 * the value and tidied; found by a channel of their own below the fact's own words; merged by a repeat; gone from
 * search with a forget; privacy-scanned like a qualifier; kept by export and import; taken by memory_write and
 * refused when malformed; edited on the page with Undo; and credited by per-turn recall below the fact's own words.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { afterEach, describe, it } from 'node:test'
import { relevanceOf, weighMessage, CUE_SHARE } from '../src/recall/relevance.ts'
import { memoryWriteTool } from '../src/tools/memory-write.ts'
import type { FactView } from '../src/wire-types.ts'
import { questionTerms } from '../src/text/tokenize.ts'
import { DRIVERS, expectKind, write, writeFact } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

const TEST_CUES = ['run the tests', 'test suite', '跑测试', '单测']

for (const driver of DRIVERS) {
  describe(`cues (${driver})`, () => {
    let v: VerbHarness
    afterEach(() => {
      v.dispose()
    })
    const search = async (query: string): Promise<string[]> =>
      (await v.h.memory.search({ query, limit: 5, asOf: undefined }, v.h.config)).results.map(
        (result) => `${result.subject} · ${result.property}`,
      )

    it('keeps cues apart from the value, tidied, repeats and blanks out, at most 8', () => {
      v = verbHarness(driver)
      const fact = writeFact(v.h.memory, v.h.config, {
        subject: 'billing-service',
        property: 'test command',
        value: 'npm run test:unit',
        cues: ['  run the tests ', 'Run the   tests', '', '跑测试', 'a', 'b', 'c', 'd', 'e', 'f', 'g'],
      })
      assert.equal(fact.value, 'npm run test:unit')
      assert.deepEqual(fact.cues, ['run the tests', '跑测试', 'a', 'b', 'c', 'd', 'e', 'f'])
    })

    it('finds a fact by its cues in a channel of their own, below a fact whose own words match', async () => {
      v = verbHarness(driver)
      writeFact(v.h.memory, v.h.config, {
        subject: 'billing-service',
        property: 'test command',
        value: 'npm run test:unit',
        cues: TEST_CUES,
      })
      writeFact(v.h.memory, v.h.config, {
        subject: 'ci',
        property: 'nightly job',
        value: 'runs the whole suite at 02:00',
      })
      assert.deepEqual(await search('单测'), ['billing-service · test command'])
      const both = await v.h.memory.search({ query: 'suite', limit: 5, asOf: undefined }, v.h.config)
      assert.deepEqual(
        both.results.map((result) => result.subject),
        ['ci', 'billing-service'],
        'own words first, cues after',
      )
      assert.ok(both.channels.includes('cue'))
      assert.doesNotMatch(JSON.stringify(both.results), /跑测试|run the tests/u, 'the answer never shows a cue')
    })

    it('merges the cues a repeat of the claim brings, and forgets them with the fact', async () => {
      v = verbHarness(driver)
      const first = writeFact(v.h.memory, v.h.config, {
        subject: 'billing-service',
        property: 'port',
        value: '4100',
        cues: ['local server'],
      })
      const again = expectKind(
        write(v.h.memory, v.h.config, {
          subject: 'billing-service',
          property: 'port',
          value: '4100',
          cues: ['local server', '本地端口'],
        }),
        'duplicate',
      )
      assert.equal(again.fact.id, first.id)
      assert.deepEqual(again.fact.cues, ['local server', '本地端口'])
      assert.deepEqual(await search('本地端口'), ['billing-service · port'])
      assert.equal(v.h.memory.forgetById(first.id).kind, 'forgotten')
      assert.deepEqual(await search('本地端口'), [])
      assert.equal(Number(v.h.db().get('SELECT count(*) AS n FROM fact_cues_fts')?.['n']), 0)
    })

    it('scans each cue as a qualifier: a credential refuses the write, personal data hides the fact from the model', async () => {
      v = verbHarness(driver)
      const credential = write(v.h.memory, v.h.config, {
        subject: 'deploy bot',
        property: 'note',
        value: 'uses the shared key',
        cues: ['sk-proj-4fJq9ZxT2mWv8LrN6bYc1HsD'],
      })
      assert.equal(credential.kind, 'refused')
      assert.equal(Number(v.h.db().get('SELECT count(*) AS n FROM facts')?.['n']), 0)
      const personal = writeFact(v.h.memory, v.h.config, {
        subject: 'on-call',
        property: 'rota',
        value: 'Dana this week',
        cues: ['call +86 138 0013 8000'],
      })
      assert.notEqual(personal.sensitivity, null)
      const model = await v.h.memory.search({ query: 'rota', limit: 5, asOf: undefined }, v.h.config)
      assert.equal(model.outcome, 'not_found', 'hidden from the model')
    })

    it('keeps cues through export and import', async () => {
      v = verbHarness(driver)
      writeFact(v.h.memory, v.h.config, {
        subject: 'shop-web',
        property: 'build command',
        value: 'pnpm build',
        cues: ['bundle the app', '打包'],
      })
      writeFact(v.h.memory, v.h.config, { subject: 'shop-web', property: 'lint command', value: 'pnpm lint' })
      const exported = await v.ok('export', { backup: false })
      const lines = readFileSync(String(exported['path']), 'utf8')
        .split('\n')
        .slice(1, -1)
        .map((line) => JSON.parse(line) as Record<string, unknown>)
      assert.deepEqual(
        lines.map((line) => line['cues'] ?? null),
        [['bundle the app', '打包'], null],
        'a fact without cues writes no cues field',
      )
      const content = `${lines.map((line) => JSON.stringify({ ...line, subject: 'shop-admin' })).join('\n')}\n`
      const seen = await v.ok('import', { mode: 'preview', content })
      await v.ok('import', { mode: 'commit', content, token: seen['token'], ...v.fence() })
      assert.deepEqual((await search('打包')).sort(), ['shop-admin · build command', 'shop-web · build command'])
    })

    it('a proposal keeps the cues of the write it queued, and accepting it writes them with the fact', async () => {
      v = verbHarness(driver)
      const queued = expectKind(
        write(v.h.memory, v.h.config, {
          subject: 'billing-service',
          property: 'queue',
          value: 'BullMQ on Redis 7',
          confidence: 0.3,
          cues: ['background jobs', '任务队列'],
        }),
        'proposed',
      )
      const card = await v.ok('proposals', {})
      const revision = (card['proposals'] as { id: number; revision: number }[]).find(
        (entry) => entry.id === queued.proposalId,
      )?.revision
      await v.ok('proposal-apply', v.fence({ id: queued.proposalId, revision }))
      assert.deepEqual(await search('background jobs'), ['billing-service · queue'])
    })

    it('memory_write takes cues and refuses more than 8, or one with a line break, storing nothing', async () => {
      v = verbHarness(driver)
      const tool = memoryWriteTool({ memory: v.h.memory, config: () => v.h.config })
      const call = { callId: 'c', signal: new AbortController().signal }
      const base = { subject: 'billing-service', property: 'staging deploy', value: 'make deploy ENV=staging' }
      const saved = (await tool.execute({ ...base, cues: ['ship to staging', '预发'] }, call)) as {
        outcome: string
        message: string
      }
      assert.equal(saved.outcome, 'saved')
      assert.doesNotMatch(saved.message, /预发/u, 'the answer does not repeat the cues')
      for (const cues of [Array.from({ length: 9 }, (_, index) => `cue ${index}`), ['line\nbreak'], ['x'.repeat(81)]]) {
        const refused = (await tool.execute({ ...base, value: 'other', cues }, call)) as {
          outcome: string
          message: string
        }
        assert.equal(refused.outcome, 'refused', JSON.stringify(cues))
        assert.match(refused.message, /cues/u)
      }
      assert.equal(Number(v.h.db().get('SELECT count(*) AS n FROM facts')?.['n']), 1)
      assert.match(tool.description, /cues:.*跑测试/u)
    })

    it("edits a fact's cues on the page as a new revision, and the toast's Undo puts them back", async () => {
      v = verbHarness(driver)
      const fact = writeFact(v.h.memory, v.h.config, {
        subject: 'billing-service',
        property: 'log level',
        value: 'debug locally',
        cues: ['verbose logs'],
      })
      // A phrase no lexicon concept holds, so only the cue can find the fact by it.
      const edited = await v.ok('fact-update', v.fence({ id: fact.id, cues: ['verbose output', 'chatty mornings'] }))
      const view = edited['fact'] as FactView
      assert.equal(view.id, fact.id, 'the same row: the claim did not change')
      assert.deepEqual(view.cues, ['verbose output', 'chatty mornings'])
      assert.equal(view.revision, fact.revision + 1)
      assert.deepEqual(await search('chatty mornings'), ['billing-service · log level'])
      await v.ok('fact-restore', v.fence({ editId: edited['editId'] }))
      const stores = v.h.memory.storeSet()
      assert.ok('stores' in stores)
      assert.deepEqual(stores.stores.facts.getFacts([fact.id])[0]?.cues, ['verbose logs'])
      assert.deepEqual(await search('chatty mornings'), [])
      const same = await v.call('fact-update', v.fence({ id: fact.id, cues: ['verbose logs'] }))
      assert.equal(same.ok, false, 'nothing changed is refused')
      const phone = await v.call('fact-update', v.fence({ id: fact.id, cues: ['ask Dana on +86 138 0013 8000'] }))
      assert.equal(phone.ok, false, 'a cue holding personal data is refused')
    })
  })
}

describe("per-turn recall credits a cue below the fact's own words", () => {
  it("a term only a cue carries counts at the cue share; the same term in the fact's words counts whole", () => {
    const message = 'make sure nothing is broken'
    const terms = questionTerms(message, 32)
    const weighed = weighMessage(terms, new Map(terms.map((term) => [term, 1])), 100, message)
    const viaCue = relevanceOf(
      weighed,
      ['billing-service', 'test command', 'npm test'],
      ['make sure nothing is broken'],
    )
    const viaOwn = relevanceOf(weighed, ['billing-service', 'make sure nothing is broken'])
    assert.ok(viaCue > 0 && viaCue < viaOwn, `${viaCue} < ${viaOwn}`)
    assert.ok(Math.abs(viaCue - viaOwn * CUE_SHARE) < 1e-9)
  })
})
