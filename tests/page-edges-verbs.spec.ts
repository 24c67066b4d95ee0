/**
 * The verb answers the page's rough-edge fixes read, on a real store with both drivers: the facts verb counts what a
 * text filter matches on every page, the proposals verb counts every pending card and those queued since a look,
 * and the search verb answers a question as memory_search does, moving no generation.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { Fact } from '../src/types.ts'
import { DRIVERS } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

for (const driver of DRIVERS) {
  describe(`the page's counts and question search (${driver})`, () => {
    let v: VerbHarness
    beforeEach(() => { v = verbHarness(driver) })
    afterEach(() => v.dispose())

    const write = (subject: string, property: string, value: string, extra: Record<string, unknown> = {}): Fact | undefined => {
      const answer = v.h.memory.write({ subject, property, value, evidence: 'observed', origin: 'tool', ...extra }, v.h.config)
      if (answer.kind === 'proposed') return undefined
      if (answer.kind !== 'saved' && answer.kind !== 'conflict' && answer.kind !== 'duplicate') throw new Error(`write ${answer.kind}`)
      return answer.fact
    }

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

  })
}
