/**
 * The extraction model clients: `custom` against the fake OpenAI-compatible server on loopback (what it sends,
 * what it accepts, how it fails), and `host` against a scripted LLM service (text only, reasoning off where the
 * route offers it, tool calls and non-stop finishes refused, aborts honoured).
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { customModel, hostModel } from '../src/host/model-client.ts'
import type { LlmView, StreamChunkView } from '../src/host/ports.ts'
import { FakeModel } from './helpers/fake-model.ts'
import { EXTRACTION_SYSTEM_PROMPT } from '../src/extract/prompt.ts'
import { extractionModelResolver } from '../src/host/extraction-model.ts'
import { makeConfig, removeDir, tempDir } from './helpers/store.ts'

const request = (signal = new AbortController().signal) => ({
  system: EXTRACTION_SYSTEM_PROMPT,
  user: '<conversation>\n[user]\nport is 8123\n</conversation>',
  maxTokens: 4096,
  signal,
})

describe('the custom extraction endpoint', () => {
  let server: FakeModel
  before(async () => {
    server = await FakeModel.start()
  })
  after(async () => {
    await server.close()
  })

  it('posts one non-streaming chat completion with the system prompt and the text, and returns the answer', async () => {
    server.reset()
    server.enqueueExtraction({ text: '{"facts": []}' })
    const model = customModel({ baseUrl: `${server.url}/v1/`, model: 'extractor-1', apiKey: 'sk-test' }, fetch, false)
    assert.equal(model.name, 'custom/extractor-1')
    assert.deepEqual(await model.complete(request()), { ok: true, text: '{"facts": []}' })
    const [sent] = server.extractionRequests()
    assert.equal(sent?.url, '/v1/chat/completions')
    assert.deepEqual(
      [
        sent?.body['model'],
        sent?.body['max_tokens'],
        sent?.body['stream'],
        sent?.body['temperature'],
        sent?.body['thinking'],
      ],
      ['extractor-1', 4096, false, 0, { type: 'disabled' }],
    )
    assert.deepEqual(
      sent?.body.messages.map((message) => message.role),
      ['system', 'user'],
    )
    assert.equal(sent?.body.tools, undefined)
    assert.equal(sent?.authorization, 'Bearer sk-test')
  })

  it('leaves reasoning to the endpoint when extractThinking is on', async () => {
    server.reset()
    await customModel({ baseUrl: server.url, model: 'm', apiKey: undefined }, fetch, true).complete(request())
    assert.equal(server.extractionRequests()[0]?.body['thinking'], undefined)
  })

  it('answers an HTTP failure or an unreachable endpoint as a failure, never a throw', async () => {
    server.reset()
    server.enqueueExtraction({ status: 503 })
    const failed = await customModel({ baseUrl: server.url, model: 'm', apiKey: 'k' }, fetch, false).complete(request())
    assert.equal(failed.ok, false)
    assert.match(!failed.ok ? failed.error : '', /^the endpoint answered 503/u)
    const unreachable = await customModel(
      { baseUrl: 'http://127.0.0.1:9', model: 'm', apiKey: 'k' },
      fetch,
      false,
    ).complete(request())
    assert.equal(unreachable.ok, false)
  })
})

/** An LLM service that streams scripted chunks and records what it was asked. */
function scriptedLlm(
  chunks: readonly StreamChunkView[],
  efforts: readonly string[] = [],
): LlmView & { readonly calls: Parameters<LlmView['stream']>[0][] } {
  const calls: Parameters<LlmView['stream']>[0][] = []
  return {
    calls,
    stream(options) {
      calls.push(options)
      return (async function* () {
        for (const chunk of chunks) yield chunk
      })()
    },
    resolveModelInfo: async () => ({ reasoning: { efforts: efforts.map((id) => ({ id })) } }),
  }
}

describe('the host extraction route', () => {
  const route = { provider: 'deepseek-official', model: 'deepseek-v4-flash' }
  const text = (t: string): StreamChunkView => ({ type: 'text-delta', text: t })
  const stop: StreamChunkView = { type: 'finish', reason: { kind: 'stop' } }

  it("streams one text-only call on the session's route, with its own token cap and reasoning off where offered", async () => {
    const llm = scriptedLlm([text('{"facts"'), text(': []}'), stop], ['off', 'high'])
    assert.deepEqual(await hostModel(llm, route, false).complete({ ...request(), sessionId: 'session-1' }), {
      ok: true,
      text: '{"facts": []}',
    })
    const [call] = llm.calls
    assert.deepEqual(
      [call?.provider, call?.model, call?.maxTokens, call?.reasoningEffort, call?.sessionId, call?.system],
      [route.provider, route.model, 4096, 'off', 'session-1', EXTRACTION_SYSTEM_PROMPT],
    )
    assert.equal(call?.messages.length, 1)
    assert.equal('tools' in (call ?? {}), false)
    const thinking = scriptedLlm([text('{}'), stop], ['off'])
    await hostModel(thinking, route, true).complete(request())
    assert.equal(thinking.calls[0]?.reasoningEffort, undefined)
    const noOff = scriptedLlm([text('{}'), stop], ['low', 'high'])
    await hostModel(noOff, route, false).complete(request())
    assert.equal(noOff.calls[0]?.reasoningEffort, undefined)
  })

  it('refuses a tool call, a non-stop finish, an error finish and an aborted call', async () => {
    const toolCall = await hostModel(scriptedLlm([{ type: 'tool-call-delta' }, stop]), route, false).complete(request())
    assert.deepEqual(toolCall, { ok: false, error: 'the model answered with a tool call' })
    const truncated = await hostModel(
      scriptedLlm([text('{"fa'), { type: 'finish', reason: { kind: 'max-tokens' } }]),
      route,
      false,
    ).complete(request())
    assert.deepEqual(truncated, { ok: false, error: 'the model stopped with max-tokens' })
    const failed = await hostModel(
      scriptedLlm([{ type: 'finish', reason: { kind: 'error', failure: { message: 'rate limited' } } }]),
      route,
      false,
    ).complete(request())
    assert.deepEqual(failed, { ok: false, error: 'the model stopped with error: rate limited' })
    const controller = new AbortController()
    controller.abort()
    const aborted = await hostModel(scriptedLlm([text('{}'), stop]), route, false).complete(request(controller.signal))
    assert.deepEqual(aborted, { ok: false, error: 'the pass was cancelled' })
  })
})

describe('choosing the extraction model', () => {
  const root = tempDir()
  after(() => removeDir(root))
  const llm = scriptedLlm([])
  const credentials = (value: string | undefined) =>
    ({ resolve: async () => (value === undefined ? undefined : { value, source: 'store' }) }) as never

  it('custom: refuses an incomplete endpoint, and reads the key from the credential store, then the environment', async () => {
    const resolve = extractionModelResolver({
      llm: () => llm,
      defaultModel: () => undefined,
      credentials: () => credentials('sk-from-store'),
      fetch,
    })
    assert.deepEqual(await resolve(undefined, makeConfig(root, { llmSource: 'custom' })), {
      unavailable: 'llmSource is custom, but llmBaseUrl or llmModel is empty',
    })
    const server = await FakeModel.start()
    try {
      const config = makeConfig(root, {
        llmSource: 'custom',
        llmBaseUrl: server.url,
        llmModel: 'm',
        llmApiKeyEnv: 'FACT_MEMORY_TEST_KEY',
      })
      const model = await resolve(undefined, config)
      assert.ok(!('unavailable' in model))
      await model.complete(request())
      assert.equal(server.requests[0]?.authorization, 'Bearer sk-from-store')
      process.env['FACT_MEMORY_TEST_KEY'] = 'sk-from-env'
      const fromEnv = await extractionModelResolver({
        llm: () => llm,
        defaultModel: () => undefined,
        credentials: () => credentials(undefined),
        fetch,
      })(undefined, config)
      assert.ok(!('unavailable' in fromEnv))
      await fromEnv.complete(request())
      assert.equal(server.requests[1]?.authorization, 'Bearer sk-from-env')
    } finally {
      delete process.env['FACT_MEMORY_TEST_KEY']
      await server.close()
    }
  })

  it("host: the session's route first, then the default model, and a clear reason when there is neither", async () => {
    const config = makeConfig(root, {})
    const session = {
      id: 's',
      header: {},
      events: [],
      requestHeader: () => ({ config: { provider: 'p-session', model: 'm-session' } }),
    }
    const resolve = extractionModelResolver({
      llm: () => llm,
      defaultModel: () => ({ currentSelection: () => ({ provider: 'p-default', model: 'm-default' }) }),
      credentials: () => undefined,
      fetch,
    })
    assert.equal(((await resolve(session, config)) as { name: string }).name, 'p-session/m-session')
    assert.equal(((await resolve(undefined, config)) as { name: string }).name, 'p-default/m-default')
    const bare = extractionModelResolver({
      llm: () => llm,
      defaultModel: () => undefined,
      credentials: () => undefined,
      fetch,
    })
    assert.match(((await bare(undefined, config)) as { unavailable: string }).unavailable, /no model route/u)
    const noLlm = extractionModelResolver({
      llm: () => undefined,
      defaultModel: () => undefined,
      credentials: () => undefined,
      fetch,
    })
    assert.deepEqual(await noLlm(session, config), { unavailable: 'the host offers no model service' })
  })
})
