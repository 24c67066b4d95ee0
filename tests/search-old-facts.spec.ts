/**
 * Old facts stay in search: when every word of a question is common (each held by more facts than the ranking's
 * candidate cap), the fact that matches best still heads the rendered memory_search answer, however many newer facts
 * hold one of its words; and of many facts that match alike, the newest are shown.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { seedFacts } from '../scripts/bench-corpus.ts'
import { RANK_CANDIDATE_CAP } from '../src/retrieval/channels.ts'
import { renderSearchText } from '../src/retrieval/render.ts'
import type { FactInput } from '../src/types.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { ONE_DRIVER, openMemory, type MemoryHandle } from './helpers/store.ts'

/** Newer facts holding each common word, alone: more than the cap, so every word of the question is common. */
const NEWER = RANK_CANDIDATE_CAP + 200

/** Facts that hold one word of the question and nothing else of it. */
function holdingOnly(word: 'port' | 'api', count: number): FactInput[] {
  return Array.from({ length: count }, (_, i) =>
    word === 'port'
      ? { subject: `svc${i}`, property: 'port', value: String(10_000 + i), evidence: 'observed', origin: 'tool' }
      : { subject: `tool${i}`, property: 'api', value: `release ${i}`, evidence: 'observed', origin: 'tool' },
  )
}

for (const driver of ONE_DRIVER) {
  describe(`old facts in search (${driver})`, () => {
    let h: MemoryHandle
    beforeEach(() => {
      h = openMemory(driver, new FakeClock('2026-03-01T09:00:00.000Z'))
    })
    afterEach(() => h.dispose())

    it('shows the oldest fact first when it alone holds every word of a question whose words are all common', () => {
      const best: FactInput = {
        subject: 'edge-router',
        property: 'api port',
        value: '8443',
        evidence: 'explicit_user',
        origin: 'tool',
      }
      seedFacts(h.db(), [best, ...holdingOnly('port', NEWER), ...holdingOnly('api', NEWER)], h.clock, h.config)
      const value = h.memory.searchLexical(
        { query: 'which api port', limit: h.config.searchLimit, asOf: undefined },
        h.config,
      )
      assert.equal(value.outcome, 'ok')
      const text = renderSearchText(value)
      assert.match(text, /^1\. edge-router · api port: 8443 /mu, text)
    })

    it('shows the newest of many facts that match alike, though the older ones are ranked too', () => {
      const alike = Array.from(
        { length: 250 },
        (_, i): FactInput => ({
          subject: `edge${100 + i}`,
          property: 'api port',
          value: String(8000 + i),
          evidence: 'observed',
          origin: 'tool',
        }),
      )
      seedFacts(h.db(), [...alike, ...holdingOnly('port', NEWER), ...holdingOnly('api', NEWER)], h.clock, h.config)
      const value = h.memory.searchLexical(
        { query: 'which api port', limit: h.config.searchLimit, asOf: undefined },
        h.config,
      )
      assert.deepEqual(
        value.results.map((slot) => slot.subject),
        ['edge349', 'edge348', 'edge347', 'edge346', 'edge345'],
        renderSearchText(value),
      )
    })
  })
}
