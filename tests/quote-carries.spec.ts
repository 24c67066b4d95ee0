/**
 * A quote carries the user's statement only when it is a sentence and the value stands in it: the pure rule in
 * English and Chinese (a long value by its identifiers and most of its words), memory_write on a real store (a quote
 * of "yes" stays observed and the answer says why; the user's real words are explicit_user), and the landing the
 * extraction and rule paths share, which asks the same rule.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { SessionEvent } from '@deepseek-ai/dsh-session'
import { landCandidates } from '../src/extract/land.ts'
import { quoteCarries } from '../src/extract/quote-carries.ts'
import type { Candidate, ConversationMessage } from '../src/extract/types.ts'
import type { SessionView, ToolCall, ToolSpec } from '../src/host/ports.ts'
import { memoryWriteTool, type WriteValue } from '../src/tools/memory-write.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { turnEnd, turnStart, userSays } from './helpers/session-events.ts'
import { ONE_DRIVER, openMemory, type MemoryHandle } from './helpers/store.ts'

describe('quoteCarries', () => {
  const table: readonly [string, string, string, ReturnType<typeof quoteCarries>][] = [
    ['a one-word quote', 'yes', 'port 9000', { carries: false, reason: 'short_quote' }],
    ['a two-letter reply', 'ok', 'tabs', { carries: false, reason: 'short_quote' }],
    ['a short reply without the value', 'ok do it', 'tabs', { carries: false, reason: 'value_not_in_quote' }],
    ['a short statement holding the value', 'I use vim', 'vim', { carries: true }],
    ['a short Chinese statement holding the value', '端口是8080', '8080', { carries: true }],
    ['two Chinese characters', '好的', '制表符', { carries: false, reason: 'short_quote' }],
    ['a sentence holding the value', 'I always indent with tabs', 'tabs', { carries: true }],
    [
      'a sentence holding an inflected value',
      'we are deploying to staging now',
      'deploy to staging',
      { carries: true },
    ],
    [
      'a sentence without the value',
      'sounds good, go ahead with that',
      'port 9000',
      { carries: false, reason: 'value_not_in_quote' },
    ],
    [
      'a sentence holding only part of a short value',
      'the billing api listens on port 8123',
      'port 9000',
      { carries: false, reason: 'value_not_in_quote' },
    ],
    ['a Chinese sentence holding the value', '我一直用制表符缩进', '制表符', { carries: true }],
    [
      'a Chinese sentence without the value',
      '好的，就按你说的办吧',
      '制表符',
      { carries: false, reason: 'value_not_in_quote' },
    ],
    [
      'a long value by its identifiers and most words',
      'for billing-api we retry three times with exponential backoff up to 30 s',
      'three retries with exponential backoff for billing-api, capped at 30 s',
      { carries: true },
    ],
    [
      'a long value whose identifier is missing',
      'we retry three times with exponential backoff up to 30 s',
      'three retries with exponential backoff for billing-api, capped at 30 s',
      { carries: false, reason: 'value_not_in_quote' },
    ],
    [
      'a long value with few of its words',
      'billing-api is owned by the payments team',
      'three retries with exponential backoff for billing-api, capped at 30 s',
      { carries: false, reason: 'value_not_in_quote' },
    ],
  ]
  for (const [name, quote, value, expected] of table) {
    it(`${expected.carries ? 'accepts' : 'refuses'} ${name}`, () => {
      assert.deepEqual(quoteCarries(quote, value), expected)
    })
  }
})

/** A session in which the user said `text`. */
function sessionOf(text: string): SessionView {
  const events: SessionEvent[] = [turnStart(0, 1), userSays(1, text), turnEnd(2, 1)]
  return { id: 'session-1', header: {}, events }
}

for (const driver of ONE_DRIVER) {
  describe(`an explicit_user quote on a real store (${driver})`, () => {
    let h: MemoryHandle
    let tool: ToolSpec
    beforeEach(() => {
      h = openMemory(driver, new FakeClock())
      tool = memoryWriteTool({ memory: h.memory, config: () => h.config })
    })
    afterEach(() => {
      h.dispose()
    })
    const call = (said: string): ToolCall => ({
      callId: 'call-1',
      signal: new AbortController().signal,
      agent: { id: 'agent-1', session: sessionOf(said) },
    })
    const evidenceOf = (id: number | null): unknown =>
      h.db().get('SELECT evidence FROM facts WHERE id = ?', id)?.['evidence']

    it('memory_write keeps a value paired with the quote "yes" as observed and says why', async () => {
      const value = (await tool.execute(
        { subject: 'billing-api', property: 'port', value: '9000', evidence: 'explicit_user', quote: 'yes' },
        call('yes'),
      )) as WriteValue
      assert.equal(value.outcome, 'saved', value.message)
      assert.equal(value.evidence, 'observed')
      assert.equal(evidenceOf(value.factId), 'observed')
      assert.match(value.note ?? '', /too short to carry a statement/u)
      assert.match(value.message, /evidence lowered to observed: the quote is too short/u)
    })

    it('memory_write keeps a user sentence that does not hold the value as observed and says why', async () => {
      const said = 'sounds good, go ahead with that'
      const value = (await tool.execute(
        { subject: 'billing-api', property: 'port', value: '9000', evidence: 'explicit_user', quote: said },
        call(said),
      )) as WriteValue
      assert.equal(value.evidence, 'observed')
      assert.match(value.message, /the value does not stand in the quote/u)
    })

    it("memory_write takes the user's own sentence holding the value as explicit_user", async () => {
      const said = 'the billing api should listen on port 9000'
      const value = (await tool.execute(
        { subject: 'billing-api', property: 'port', value: '9000', evidence: 'explicit_user', quote: said },
        call(`ok so ${said} from now on`),
      )) as WriteValue
      assert.equal(value.evidence, 'explicit_user', value.message)
      assert.equal(evidenceOf(value.factId), 'explicit_user')
      assert.equal(value.note, null)
    })

    for (const origin of ['extract', 'rule'] as const) {
      it(`landing a candidate of the ${origin} path asks the same rule: a one-word user quote lands observed, a sentence explicit_user`, () => {
        const messages: ConversationMessage[] = [
          { role: 'assistant', seq: 0, turn: 1, text: 'Shall I use port 9000 for billing-api?' },
          { role: 'user', seq: 1, turn: 1, text: 'yes' },
          { role: 'user', seq: 2, turn: 2, text: 'I always indent with tabs in every project' },
        ]
        const candidates: Candidate[] = [
          { subject: 'billing-api', property: 'port', value: '9000', quote: 'yes', confidence: 0.9 },
          {
            subject: 'user',
            property: 'indentation',
            value: 'tabs',
            quote: 'I always indent with tabs',
            confidence: 0.9,
          },
        ]
        const landed = landCandidates(
          candidates,
          { origin, messages, sessionId: 'session-1', usersWords: true, project: null },
          h.memory,
          h.config,
        )
        assert.equal(landed.factIds.length, 2, JSON.stringify(landed.refused))
        assert.deepEqual(landed.factIds.map(evidenceOf), ['observed', 'explicit_user'])
      })
    }
  })
}
