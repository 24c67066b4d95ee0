/**
 * The verb answers the page's rough-edge fixes read, on a real store with one driver: the facts verb counts what a
 * text filter matches on every page, the proposals verb counts every pending card and those queued since a look,
 * and the search verb answers a question as memory_search does, moving no generation.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { Fact } from '../src/types.ts'
import { ONE_DRIVER } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

for (const driver of ONE_DRIVER) {
  describe(`the page's counts and question search (${driver})`, () => {
    let v: VerbHarness
    beforeEach(() => {
      v = verbHarness(driver)
    })
    afterEach(() => v.dispose())

    const write = (
      subject: string,
      property: string,
      value: string,
      extra: Record<string, unknown> = {},
    ): Fact | undefined => {
      const answer = v.h.memory.write(
        { subject, property, value, evidence: 'observed', origin: 'tool', ...extra },
        v.h.config,
      )
      if (answer.kind === 'proposed') return undefined
      if (answer.kind !== 'saved' && answer.kind !== 'conflict' && answer.kind !== 'duplicate')
        throw new Error(`write ${answer.kind}`)
      return answer.fact
    }

    it('counts what a text filter matches on every page, under the status filter, and nothing without text', async () => {
      for (let i = 0; i < 130; i += 1) write(`service-${i}`, 'owner', `team alpha ${i}`)
      write('billing-api', 'owner', 'team beta')
      write('service-0', 'owner', 'team gamma')
      const first = await v.ok('facts', { text: 'team' })
      assert.equal((first['facts'] as unknown[]).length, 100)
      assert.equal(first['matched'], 131, 'every current fact holding the word, not the page')
      const second = await v.ok('facts', { text: 'team', cursor: first['nextCursor'] })
      assert.equal(second['matched'], 131, 'the count is the same on every page')
      assert.equal((await v.ok('facts', { text: 'team', status: 'history' }))['matched'], 1)
      assert.equal((await v.ok('facts', { text: 'alpha', status: 'all' }))['matched'], 130)
      assert.equal((await v.ok('facts', { text: 'no such words' }))['matched'], 0)
      assert.equal((await v.ok('facts', {}))['matched'], null)
    })

    it('counts every pending card on every page, and those queued after a given instant', async () => {
      for (let i = 0; i < 70; i += 1) write(`queue-${i}`, 'owner', `team ${i}`, { inferred: true })
      v.clock.advance(60_000)
      const look = v.clock.iso()
      v.clock.advance(60_000)
      for (let i = 70; i < 120; i += 1) write(`queue-${i}`, 'owner', `team ${i}`, { inferred: true })
      const page = await v.ok('proposals', { status: 'pending', limit: 50, since: look })
      assert.equal((page['proposals'] as unknown[]).length, 50)
      assert.equal(page['total'], 120)
      assert.equal(page['newSince'], 50)
      const next = await v.ok('proposals', { status: 'pending', limit: 50, cursor: page['nextCursor'] })
      assert.equal(next['total'], 120)
      assert.equal(next['newSince'], null, 'no instant, no count')
      const status = await v.ok('status', { summary: true })
      assert.equal(status['pendingProposals'], page['total'], 'the badge counts the same cards')
    })

    it('answers a question no filter matches with what memory_search finds, and moves no generation', async () => {
      write('小明', '住在', '杭州')
      write('小红', '住在', '上海')
      write('billing-api', 'port', '7801')
      const generation = v.generation()
      assert.equal(
        (await v.ok('facts', { text: '小明住在哪' }))['matched'],
        0,
        'no fact holds every word of the question',
      )
      const answer = await v.ok('search', { query: '小明住在哪' })
      const tool = await v.h.memory.search(
        { query: '小明住在哪', limit: v.h.config.searchLimit, asOf: undefined, project: null, otherProjects: 'mark' },
        v.h.config,
      )
      const { generation: answered, ...value } = answer
      assert.deepEqual(value, JSON.parse(JSON.stringify(tool)), 'the same value memory_search returns')
      const first = (answer['results'] as { subject: string; values: { value: string }[] }[])[0]
      assert.equal(first?.subject, '小明')
      assert.equal(first?.values[0]?.value, '杭州')
      assert.equal(answered, generation)
      assert.equal(v.generation(), generation)
    })

    it('keeps a sensitive fact out of the question search, as memory_search does', async () => {
      write('小明', '电话', '13800138000')
      const answer = await v.ok('search', { query: '小明 电话' })
      assert.doesNotMatch(JSON.stringify(answer), /13800138000/u)
    })

    it('refuses an empty or oversized question, changing nothing', async () => {
      for (const body of [
        {},
        { query: '' },
        { query: '   ' },
        { query: 'x'.repeat(501) },
        { query: 'a', limit: 11 },
        { query: 'a', extra: 1 },
      ]) {
        const outcome = await v.call('search', body)
        assert.equal(!outcome.ok && outcome.code, 'invalid_arguments', JSON.stringify(body))
      }
    })
  })
}
