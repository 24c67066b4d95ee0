/**
 * The plugin in a long-lived DSH rc.8 web host: its settings namespace is served by the host's settings service,
 * and a change made through the host's own /api reaches the next request without the plugin being re-applied.
 */
import assert from 'node:assert/strict'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { configWith } from '../src/config.ts'
import { createDshHome, startWebHost, type DshHome, type WebHost } from './helpers/dsh-host.ts'
import { FakeModel, messageText, type ScriptStep } from './helpers/fake-model.ts'

let model: FakeModel
let home: DshHome
let host: WebHost

before(async () => {
  model = await FakeModel.start()
  home = createDshHome()
  host = await startWebHost(home, model.url)
})
after(async () => {
  await host.stop()
  await model.close()
  home.remove()
})

let rpc = 0
async function api<T>(method: string, payload: unknown): Promise<T> {
  rpc += 1
  const response = await fetch(`${host.url}/api/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'client-request', rpcId: `t${rpc}`, method, payload }),
  })
  const body = (await response.json()) as { result?: { ok: boolean; value?: T; error?: unknown } }
  assert.equal(body.result?.ok, true, `${method} failed: ${JSON.stringify(body)}`)
  return body.result?.value as T
}

/** Start a web session, send one prompt, and wait until the model has answered every scripted step. */
async function converse(prompt: string, ...steps: ScriptStep[]): Promise<string[]> {
  model.reset()
  model.enqueue(...steps, { text: 'Done.' })
  const { sessionId } = await api<{ sessionId: string }>('session.create', { cwd: home.workspace })
  await api('session.prompt', { sessionId, mode: 'queue', content: [{ type: 'text', text: prompt }] })
  const deadline = Date.now() + 30_000
  while (model.agentRequests().length < steps.length + 1) {
    if (Date.now() > deadline) throw new Error(`the turn did not finish; host output:\n${host.output()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const last = model.agentRequests().at(-1)?.body.messages ?? []
  return last.filter((message) => message.role === 'user').map(messageText)
}

const hasDirectory = (texts: readonly string[]): boolean =>
  texts.some((text) => text.includes('Fact memory: values recorded'))
const hasNotice = (texts: readonly string[]): boolean => texts.some((text) => text.startsWith('Fact memory is on'))
/**
 * Identity of the open store connection: SQLite deletes memory.db-wal when the last connection closes, so a
 * re-apply (close, then reopen) recreates the file (a new birth time; the inode number may be reused) while a live
 * settings change keeps it.
 */
const walInode = (): string => {
  const stat = statSync(join(home.dataDir, 'memory.db-wal'))
  return `${stat.ino}:${stat.birthtimeMs}`
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('settings in a real DSH web host', () => {
  it('serves the plugin namespace as live, with every configuration key', async () => {
    const described = await api<{ namespaces: { ns: string; applies: string; value: Record<string, unknown> }[] }>(
      'settings.describe',
      {},
    )
    const entry = described.namespaces.find((namespace) => namespace.ns === 'dsh-fact-memory')
    assert.ok(entry, `namespaces: ${described.namespaces.map((namespace) => namespace.ns).join(', ')}`)
    assert.equal(entry.applies, 'live')
    assert.equal(entry.value['directoryBudget'], 800)
    assert.deepEqual(Object.keys(entry.value).sort(), Object.keys(configWith({})).sort())
  })

  it('applies a settings change to the next request without re-applying the plugin', async () => {
    const first = await converse('remember that deploys go out on Tuesdays', {
      toolCalls: [
        {
          name: 'memory_write',
          arguments: {
            subject: 'deploys',
            property: 'release day',
            value: 'Tuesday',
            evidence: 'explicit_user',
            quote: 'deploys go out on Tuesdays',
          },
        },
      ],
    })
    assert.equal(hasNotice(first), true)
    const withDirectory = await converse('hello again')
    assert.equal(hasDirectory(withDirectory), true)
    const connection = walInode()

    await api('settings.update', { ns: 'dsh-fact-memory', patch: { injectDirectory: false, reminderBudgetTokens: 0 } })
    const quiet = await converse('hello once more')
    assert.equal(hasDirectory(quiet), false, 'the directory is gone from the next request')
    assert.equal(hasNotice(quiet), false, 'so is the notice')

    await api('settings.update', { ns: 'dsh-fact-memory', patch: { injectDirectory: true, directoryBudget: 300 } })
    const back = await converse('and once more')
    assert.equal(hasDirectory(back), true)
    assert.equal(walInode(), connection, 'the store connection stayed open: no re-apply happened')
  })

  it('re-applies cleanly when the profile composition changes, and keeps serving', async () => {
    const connection = walInode()
    home.writeProfilePatch('web', '- id: dsh-fact-memory\n  config:\n    directoryBudget: 300\n    searchLimit: 3\n')
    await until(() => {
      try {
        return walInode() !== connection
      } catch {
        return false
      }
    }, 'the plugin to be re-applied with the new composition config')
    const texts = await converse('is memory still there?', {
      toolCalls: [{ name: 'memory_search', arguments: { query: 'release day' } }],
    })
    const tool =
      model
        .agentRequests()
        .at(-1)
        ?.body.messages.filter((message) => message.role === 'tool')
        .map(messageText) ?? []
    assert.match(tool[0] ?? '', /^outcome: ok\n.*deploys · release day/su)
    assert.equal(hasDirectory(texts), true)
  })

  it('refuses an invalid settings value and keeps the last good one', async () => {
    const read = async (): Promise<unknown> =>
      (
        await api<{ namespaces: { ns: string; value: Record<string, unknown> }[] }>('settings.describe', {})
      ).namespaces.find((namespace) => namespace.ns === 'dsh-fact-memory')?.value['searchLimit']
    const before = await read()
    assert.equal(typeof before, 'number')
    const response = await fetch(`${host.url}/api/settings.update`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'client-request',
        rpcId: 'bad',
        method: 'settings.update',
        payload: { ns: 'dsh-fact-memory', patch: { searchLimit: 99 } },
      }),
    })
    const body = (await response.json()) as { result?: { ok: boolean } }
    assert.equal(body.result?.ok, false)
    assert.equal(await read(), before)
  })
})
