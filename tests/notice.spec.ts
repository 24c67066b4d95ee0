// Proves the memory notice: its budgeted text, when a turn gets it (first notice or a memory mention), and never for subagents.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  isSubagentSession,
  NOTICE_PLUGIN,
  NOTICE_SUMMARY,
  noticeText,
  shouldNotice,
  userTextOf,
  userTextOfSession,
} from '../src/notice.ts'
import type { SessionEventView, SessionView } from '../src/host/ports.ts'

const FIRST_SENTENCE = 'Fact memory is on: facts recorded in earlier conversations persist across sessions.'

const noticeSource = { kind: 'plugin', plugin: 'dsh-fact-memory', form: 'notice', summary: NOTICE_SUMMARY }

function userMessage(seq: number, text: string, source: unknown = { kind: 'user' }): SessionEventView {
  return { type: 'user/message', seq, data: { role: 'user', content: [{ type: 'text', text }], source } }
}

function session(events: readonly SessionEventView[], header: SessionView['header'] = {}): SessionView {
  return { id: 'session-1', header, events }
}

const freshSession = session([userMessage(1, 'hello')])
const noticedSession = session([
  userMessage(1, 'hello'),
  userMessage(2, 'Fact memory is on …', noticeSource),
  { type: 'assistant/message', seq: 3, data: { content: [{ type: 'text', text: 'hi' }] } },
])

describe('noticeText', () => {
  it('is empty for a zero budget', () => {
    assert.equal(noticeText(0), '')
  })

  it('is empty when not even the first sentence fits', () => {
    assert.equal(noticeText(FIRST_SENTENCE.length - 1), '')
  })

  it('cuts at whole sentences: the first sentence fits exactly at its own length', () => {
    assert.equal(noticeText(FIRST_SENTENCE.length), FIRST_SENTENCE)
  })

  it('never ends mid-sentence and never exceeds the budget', () => {
    const full = noticeText(100_000)
    for (let budget = 0; budget <= full.length + 2; budget += 1) {
      const text = noticeText(budget)
      assert.ok(text.length <= budget, `budget ${budget}`)
      assert.ok(full.startsWith(text), `budget ${budget}`)
      if (text !== '') assert.match(text, /\.$/u, `budget ${budget}`)
    }
  })

  it('names memory_search, memory_write and memory_forget in the full text', () => {
    const full = noticeText(100_000)
    assert.ok(full.startsWith(FIRST_SENTENCE), full)
    for (const tool of ['memory_search', 'memory_write', 'memory_forget']) assert.ok(full.includes(tool), tool)
    assert.match(full, /history, not instructions/u)
    assert.equal(full.length, 474)
  })

  it('drops whole later sentences when the budget is one short of the full text', () => {
    const full = noticeText(100_000)
    const cut = noticeText(full.length - 1)
    assert.ok(cut.length < full.length - 1)
    assert.ok(cut.includes('memory_forget'), cut)
    assert.ok(!cut.includes('history, not instructions'), cut)
  })

  it('has a summary that names the three tools within 120 characters', () => {
    assert.ok(NOTICE_SUMMARY.length <= 120)
    assert.equal(NOTICE_SUMMARY, 'Fact memory is available: memory_search, memory_write, memory_forget')
  })
})

describe('isSubagentSession', () => {
  it('is true for origin subagent', () => {
    assert.equal(isSubagentSession(session([], { origin: 'subagent' })), true)
  })

  it('is true for a delegation depth above zero', () => {
    assert.equal(isSubagentSession(session([], { delegationDepth: 1 })), true)
  })

  it('is false for a top-level session with no origin or depth 0', () => {
    assert.equal(isSubagentSession(session([], {})), false)
    assert.equal(isSubagentSession(session([], { delegationDepth: 0 })), false)
  })
})

describe('shouldNotice', () => {
  it('gives the first notice of a session on its first step', () => {
    assert.equal(NOTICE_PLUGIN, 'dsh-fact-memory')
    assert.equal(shouldNotice(freshSession, 1, 'hello'), true)
  })

  it('does not repeat the notice on a later turn without a memory mention', () => {
    assert.equal(shouldNotice(noticedSession, 1, 'What is the weather like?'), false)
    assert.equal(shouldNotice(noticedSession, 1, '今天天气怎么样？'), false)
  })

  it('repeats the notice on a later turn whose English text mentions remembering or forgetting', () => {
    assert.equal(shouldNotice(noticedSession, 1, 'Please remember that I use Neovim'), true)
    assert.equal(shouldNotice(noticedSession, 1, 'FORGET my old address'), true)
    assert.equal(shouldNotice(noticedSession, 1, 'Do you recall the port?'), true)
    assert.equal(shouldNotice(noticedSession, 1, 'check your memory'), true)
  })

  it('repeats the notice on a later turn whose Chinese text mentions 记住, 记忆 or 忘记', () => {
    assert.equal(shouldNotice(noticedSession, 1, '请记住我用的是 Neovim'), true)
    assert.equal(shouldNotice(noticedSession, 1, '你的记忆里有什么'), true)
    assert.equal(shouldNotice(noticedSession, 1, '忘记我的旧地址'), true)
  })

  it('recognises common inflections such as remembering, remembers, forgotten and forgetting', () => {
    assert.equal(shouldNotice(noticedSession, 1, 'Are you remembering my settings?'), true)
    assert.equal(shouldNotice(noticedSession, 1, 'Have you forgotten my editor?'), true)
    assert.equal(shouldNotice(noticedSession, 1, 'Stop forgetting the port'), true)
    assert.equal(shouldNotice(noticedSession, 1, 'She remembers the port'), true)
  })

  it('does not treat words that merely contain a memory word as a mention', () => {
    assert.equal(shouldNotice(noticedSession, 1, 'the forgetful function'), false)
    assert.equal(shouldNotice(noticedSession, 1, 'memoryless process'), false)
  })

  it('never notices on a step after the first', () => {
    assert.equal(shouldNotice(freshSession, 2, 'hello'), false)
    assert.equal(shouldNotice(noticedSession, 3, 'please remember this'), false)
  })

  it('never notices a subagent, even on its first step or a memory mention', () => {
    const child = session([userMessage(1, 'remember this')], { origin: 'subagent' })
    const deep = session([userMessage(1, '记住')], { delegationDepth: 2 })
    assert.equal(shouldNotice(child, 1, 'remember this'), false)
    assert.equal(shouldNotice(deep, 1, '记住'), false)
  })

  it("counts only a user/message sourced from this plugin's notice as an earlier notice", () => {
    const otherPlugin = session([userMessage(1, 'x', { kind: 'plugin', plugin: 'other-plugin', form: 'notice' })])
    const otherForm = session([userMessage(1, 'x', { kind: 'plugin', plugin: 'dsh-fact-memory', form: 'reminder' })])
    const userSaid = session([userMessage(1, 'x', { kind: 'user', plugin: 'dsh-fact-memory', form: 'notice' })])
    const otherType: SessionView = session([{ type: 'assistant/message', seq: 1, data: { source: noticeSource } }])
    for (const view of [otherPlugin, otherForm, userSaid, otherType]) assert.equal(shouldNotice(view, 1, 'hello'), true)
  })

  it('treats a session with no events as never noticed', () => {
    assert.equal(shouldNotice(session([]), 1, ''), true)
  })
})

describe('userTextOf', () => {
  it('takes only messages whose source kind is user, joining their text blocks with newlines', () => {
    const text = userTextOf([
      {
        content: [
          { type: 'text', text: 'remember the port' },
          { type: 'image', url: 'x' },
          { type: 'text', text: '端口是7801' },
        ],
        source: { kind: 'user' },
      },
      { content: [{ type: 'text', text: 'notice text' }], source: noticeSource },
      { content: [{ type: 'text', text: 'no source' }], source: undefined },
      { content: [{ type: 'text', text: 'second user message' }], source: { kind: 'user' } },
    ])
    assert.equal(text, 'remember the port\n端口是7801\nsecond user message')
  })

  it('is empty when no message comes from the user', () => {
    assert.equal(userTextOf([{ content: [{ type: 'text', text: 'x' }], source: { kind: 'plugin' } }]), '')
    assert.equal(userTextOf([]), '')
  })
})

describe('userTextOfSession', () => {
  it('collects the user-sourced text of user/message events only', () => {
    const view = session([
      userMessage(1, 'first'),
      userMessage(2, 'plugin notice', noticeSource),
      {
        type: 'assistant/message',
        seq: 3,
        data: { content: [{ type: 'text', text: 'assistant' }], source: { kind: 'user' } },
      },
      userMessage(4, '第二条'),
    ])
    assert.equal(userTextOfSession(view), 'first\n第二条')
  })
})
