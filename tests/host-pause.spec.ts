/**
 * Pausing memory in one conversation, end to end: the real DSH rc.8 web host with the plugin, the fake model on
 * loopback, the session-pause verb over real HTTP. While paused the model's requests in that session carry no
 * directory and no recall block, one line (once) says memory is paused, memory_write and memory_search answer that it
 * is, and neither the rules nor the extraction model capture the paused turns, even after the resume; another
 * conversation is untouched. Resumed, the directory comes back with one line saying so.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { PAUSED_LINE, RESUMED_LINE } from '../src/pause/pause-words.ts'
import { createDshHome, startWebHost, type DshHome, type WebHost } from './helpers/dsh-host.ts'
import { FactMemoryApi, hostApi, writeCall } from './helpers/fact-memory-web.ts'
import { FakeModel, messageText, type ChatMessage, type ScriptStep } from './helpers/fake-model.ts'
import { directoryOf, newestRuntimeContext } from './helpers/headless-conversation.ts'
import { waitFor } from './helpers/poll.ts'

let model: FakeModel
let home: DshHome
let host: WebHost
let api: FactMemoryApi

before(async () => {
  model = await FakeModel.start()
  home = createDshHome()
  host = await startWebHost(home, model.url)
  api = new FactMemoryApi(host.url)
  await hostApi(host.url, 'settings.update', {
    ns: 'dsh-fact-memory',
    patch: { autoCapture: true, autoExtract: true, llmSource: 'host', extractDelayMs: 0 },
  })
})
after(async () => {
  await host?.stop()
  await model?.close()
  home?.remove()
})

/** One prompt in a session (a new one unless given); resolves once the model served every step and the reply. */
async function turn(
  prompt: string,
  session?: string,
  ...steps: ScriptStep[]
): Promise<{ sessionId: string; messages: readonly ChatMessage[] }> {
  const served = model.agentRequests().length
  model.enqueue(...steps, { text: 'Noted.' })
  const sessionId =
    session ?? (await hostApi<{ sessionId: string }>(host.url, 'session.create', { cwd: home.workspace })).sessionId
  await hostApi(host.url, 'session.prompt', { sessionId, mode: 'queue', content: [{ type: 'text', text: prompt }] })
  await waitFor(
    () => (model.agentRequests().length >= served + steps.length + 1 ? true : undefined),
    `the turn "${prompt}"`,
    30_000,
  )
  const first = model.agentRequests()[served]
  if (first === undefined) throw new Error('no request')
  return { sessionId, messages: first.body.messages }
}

const texts = (messages: readonly ChatMessage[]): string[] =>
  messages.filter((message) => message.role === 'user').map(messageText)
const count = (messages: readonly ChatMessage[], line: string): number =>
  texts(messages).filter((text) => text.includes(line)).length
const toolResults = (): string[] =>
  (model.agentRequests().at(-1)?.body.messages ?? []).filter((message) => message.role === 'tool').map(messageText)
const facts = async (): Promise<{ subject: string; property: string; value: string }[]> =>
  (await api.ok('facts', { status: 'all', limit: 100 }))['facts'] as {
    subject: string
    property: string
    value: string
  }[]

describe('pausing memory in one conversation, in a real DSH host', () => {
  it('keeps the paused conversation out of memory and memory out of it, until resumed', async () => {
    model.enqueueExtraction({ text: JSON.stringify({ facts: [] }) })
    const { sessionId, messages: before } = await turn('remember that the billing-api runs on port 7801', undefined)
    await waitFor(
      async () => ((await facts()).some((fact) => fact.value === '7801') ? true : undefined),
      'the rule path to capture the port',
    )
    const directory = directoryOf(before)
    assert.equal(directory, '', 'the library was empty before the first turn')

    await waitFor(() => (model.extractionRequests().length >= 1 ? true : undefined), "the first turn's extraction")
    const paused = await api.ok('session-pause', { sessionId, paused: true })
    assert.deepEqual([paused['paused'], paused['changed']], [true, true])
    const extractionsBefore = model.extractionRequests().length
    const second = await turn(
      'remember that the staging host is db-2',
      sessionId,
      { toolCalls: [writeCall({ subject: 'staging', property: 'host', value: 'db-2', evidence: 'observed' })] },
      { toolCalls: [{ name: 'memory_search', arguments: { query: 'billing-api port' } }] },
    )
    assert.doesNotMatch(
      newestRuntimeContext(second.messages),
      /Fact memory:/u,
      'no directory in the context in force while paused',
    )
    assert.ok(
      !texts(second.messages).some((text) => text.startsWith('Fact memory recalled')),
      'no recall block while paused',
    )
    assert.equal(count(second.messages, PAUSED_LINE), 1, 'the model is told once that memory is paused')
    const results = toolResults()
    assert.ok(
      results.some((text) => /^outcome: refused\nMemory is paused in this session by the user/u.test(text)),
      results.join('\n---\n'),
    )
    assert.ok(
      results.some((text) => /^outcome: refused\nmemory_search did not run: memory is paused/u.test(text)),
      results.join('\n---\n'),
    )

    const third = await turn('and the cache is redis on port 6380', sessionId)
    assert.equal(count(third.messages, PAUSED_LINE), 1, 'the line stays where it was told, and is not told again')
    assert.doesNotMatch(newestRuntimeContext(third.messages), /Fact memory:/u)
    const listed = (await api.ok('sessions', { sessionIds: [sessionId] }))['sessions'] as { paused?: boolean }[]
    assert.equal(listed[0]?.paused, true)

    const other = await turn('what port does billing-api use?')
    assert.match(
      newestRuntimeContext(other.messages),
      /billing-api · port: 7801/u,
      'another conversation still gets the directory',
    )
    assert.equal(count(other.messages, PAUSED_LINE), 0)

    await api.ok('session-pause', { sessionId, paused: false })
    model.enqueueExtraction({ text: JSON.stringify({ facts: [] }) })
    const resumed = await turn('thanks; note that the docs site lives at docs.example.com', sessionId)
    assert.match(newestRuntimeContext(resumed.messages), /billing-api · port: 7801/u, 'the directory is back')
    assert.equal(count(resumed.messages, RESUMED_LINE), 1, 'one line says memory is on again')
    await waitFor(
      () => (model.extractionRequests().length > extractionsBefore ? true : undefined),
      'the extraction after the resume',
    )
    const read = model
      .extractionRequests()
      .slice(extractionsBefore)
      .map((request) => JSON.stringify(request.body))
      .join('\n')
    assert.doesNotMatch(read, /db-2|redis|6380/u, 'the paused turns are never read by the extraction model')
    const stored = await facts()
    assert.ok(!stored.some((fact) => /db-2|redis|6380/u.test(fact.value)), JSON.stringify(stored))
  })

  it('refuses a pause without a session id, and changes nothing asking for the state a session is in', async () => {
    const bad = await api.post('session-pause', { paused: true })
    assert.equal(bad.status, 400)
    const again = await api.ok('session-pause', { sessionId: 'no-such-session', paused: false })
    assert.equal(again['changed'], false)
  })
})
