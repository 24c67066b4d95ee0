/**
 * An old subject name as the model meets it: the real DSH rc.8 host (a session on one web host per conversation) in
 * a throwaway DSH home, the scripted fake model on loopback, and a library past the directory budget in which
 * `search-svc` was renamed `search-service` and `小明` renamed `王小明` (the rename verb's own store path) before the
 * host boots. memory_search under an old
 * name finds the subject and says which old name matched, read from the tool result the model receives; per-turn
 * recall counts an old name as naming the subject, read from the request the model receives on that turn; and the
 * directory stays byte-identical between turns while the store is unchanged.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { keysUnder } from '../src/fact-input.ts'
import { messageText, type ChatMessage } from './helpers/fake-model.ts'
import {
  directoryOf,
  reply,
  search,
  seedStore,
  startConversations,
  type HeadlessConversations,
} from './helpers/headless-conversation.ts'
import { expectKind, write } from './helpers/store.ts'

const RECALL_HEAD = 'Fact memory recalled for this message'

let conversations: HeadlessConversations

before(async () => {
  conversations = await startConversations()
  seedStore(conversations.home, (memory, config) => {
    const port = expectKind(
      write(memory, config, { subject: 'search-svc', property: 'port', value: '9200', evidence: 'explicit_user' }),
      'saved',
    ).fact
    const city = expectKind(
      write(memory, config, { subject: '小明', property: '城市', value: '杭州', evidence: 'explicit_user' }),
      'saved',
    ).fact
    for (let index = 0; index < 120; index += 1) {
      write(memory, config, {
        subject: `service-${index}`,
        property: 'owner',
        value: `the platform team, squad ${index}`,
        evidence: 'explicit_user',
      })
    }
    const opened = memory.storeSet()
    if (!('stores' in opened)) throw new Error('store not open')
    const now = new Date().toISOString()
    for (const [fact, to] of [
      [port, 'search-service'],
      [city, '王小明'],
    ] as const) {
      const renamed = opened.stores.facts.renames.renameSubject(fact.entityKey, to, keysUnder, now)
      assert.equal(renamed.ok, true, JSON.stringify(renamed))
    }
  })
  await conversations.shareHost()
})
after(async () => {
  await conversations.close()
})

function recallBlocks(messages: readonly ChatMessage[]): string[] {
  return messages
    .filter((message) => message.role === 'user')
    .map(messageText)
    .filter((text) => text.startsWith(RECALL_HEAD))
}

/** The model's first agent request of the last run. */
function firstRequest(): readonly ChatMessage[] {
  const [first] = conversations.model.agentRequests()
  assert.ok(first !== undefined, 'the model was asked')
  return first.body.messages
}

describe('an old subject name in a real DSH host', () => {
  it('memory_search under an old name finds the subject and says which old name matched, in English and Chinese', async () => {
    const english = await conversations.converse(
      'what port does search-svc use?',
      search({ query: 'search-svc port' }),
      reply,
    )
    assert.match(english.toolResults[0] ?? '', /^outcome: ok\n/u)
    assert.match(
      english.toolResults[0] ?? '',
      /\n1\. search-service · port \(matched old name search-svc\): 9200 \[#\d+ · since /u,
    )
    const chinese = await conversations.converse('小明住在哪？', search({ query: '小明的城市' }), reply)
    assert.match(chinese.toolResults[0] ?? '', /\n1\. 王小明 · 城市 \(matched old name 小明\): 杭州 \[#\d+ · since /u)
  })

  it('per-turn recall counts an old name as naming the subject, and the directory is the same bytes on both turns', async () => {
    await conversations.converse('Tell me about search-svc before I touch it.', reply)
    const english = firstRequest()
    const [block] = recallBlocks(english)
    assert.match(block ?? '', /- search-service · port: 9200 \[#\d+ · since /u)
    assert.doesNotMatch(
      directoryOf(english),
      /search-service/u,
      'past the directory budget, so recall is what brought it',
    )
    await conversations.converse('小明最近怎么样？', reply)
    const chinese = firstRequest()
    assert.match(recallBlocks(chinese)[0] ?? '', /- 王小明 · 城市: 杭州 \[#\d+ · since /u)
    assert.equal(
      directoryOf(chinese),
      directoryOf(english),
      'the cached prefix does not move while the store is unchanged',
    )
  })
})
