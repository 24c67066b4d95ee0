// npm test: a process of its own: it counts the process's live timers and open files.
/**
 * The plugin inside the real rc.8 agent services: its export shape, what it registers, what the model receives
 * (directory, notice, tool results), and that disposal and re-application leave nothing behind.
 */
import assert from 'node:assert/strict'
import { createHook } from 'node:async_hooks'
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import type { Fiber } from '@deepseek-ai/cordis'
import type { GenerateOptions } from '@deepseek-ai/dsh-llm'
import * as plugin from '../src/index.ts'
import { configWith, type Config } from '../src/config.ts'
import { startInprocHost, type InprocHost } from './helpers/inproc-host.ts'

const liveTimeouts = new Set<number>()
createHook({
  init(id, type) {
    if (type === 'Timeout') liveTimeouts.add(id)
  },
  destroy(id) {
    liveTimeouts.delete(id)
  },
}).enable()

/** File descriptors this process holds on files inside `dir`. */
function openFilesIn(dir: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir)
    } catch {
      return false
    }
  }).length
}

function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/** Every user-role text the model received in one request. */
function userTexts(request: GenerateOptions | undefined): string[] {
  return (request?.messages ?? [])
    .filter((message) => message.role === 'user')
    .flatMap((message) => message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])))
}

const NOTICE_MARK = 'Fact memory is on'
const DIRECTORY_MARK = 'Fact memory: values recorded in earlier conversations'

describe('plugin module', () => {
  it('exports name, inject, Config and apply by name and nothing as default', () => {
    assert.equal(plugin.name, 'dsh-fact-memory')
    assert.deepEqual(plugin.inject, ['tools', 'systemPrompt'])
    assert.equal(typeof plugin.apply, 'function')
    assert.equal(typeof plugin.Config, 'function')
    assert.equal('default' in plugin, false)
  })

  it('declares every seed configuration key with its default', () => {
    const defaults = configWith({}) as unknown as Record<string, unknown>
    assert.equal(defaults['directoryBudget'], 800)
    assert.equal(defaults['reminderBudgetTokens'], 300)
    assert.equal(defaults['searchBudgetTokens'], 1200)
    assert.equal(defaults['queryTimeoutMs'], 2500)
    assert.equal(defaults['searchLimit'], 5)
    assert.equal(defaults['refuseCredentials'], true)
    assert.equal(defaults['sensitiveModelVisible'], false)
    assert.equal(defaults['autoCapture'], false)
    assert.equal(defaults['autoExtract'], false)
    assert.equal(defaults['llmSource'], 'host')
    assert.equal(defaults['extractConfidenceMin'], 0.6)
    assert.equal(defaults['consolidateIntervalMs'], 21_600_000)
    assert.equal(defaults['recallBudgetTokens'], 600)
    assert.equal(defaults['recallMaxFacts'], 8)
    assert.equal(defaults['recallMinScore'], 0.4)
    assert.equal(defaults['recallTimeoutMs'], 600)
    assert.equal(defaults['extractRetryMs'], 60_000)
    assert.equal(defaults['syncTarget'], '')
    assert.equal(defaults['syncIntervalMinutes'], 5)
    assert.equal(defaults['syncDeviceName'], '')
    assert.equal(Object.keys(defaults).length, 58)
  })

  it('rejects an invalid configuration value', () => {
    assert.throws(() => configWith({ searchLimit: 50 }))
    assert.throws(() => configWith({ llmSource: 'elsewhere' as 'host' }))
  })
})

describe('plugin in the rc.8 agent services', () => {
  let host: InprocHost
  let dataDir: string
  let fiber: Fiber
  let baselineTimeouts: number

  before(async () => {
    host = await startInprocHost()
  })
  after(async () => {
    await host.dispose()
  })
  beforeEach(async () => {
    await settle()
    baselineTimeouts = liveTimeouts.size
    dataDir = mkdtempSync(join(tmpdir(), 'fact-memory-plugin-'))
    host.adapter.script.length = 0
    host.adapter.requests.length = 0
  })

  async function mount(config: Partial<Config> = {}): Promise<Fiber> {
    fiber = await host.ctx.plugin(plugin, configWith({ dataDir, ...config }))
    return fiber
  }

  it('registers the three tools and a directory, and disposal removes them, the timer and the open store', async () => {
    await mount()
    assert.ok(host.ctx.tools.get('memory_search'))
    assert.ok(host.ctx.tools.get('memory_write'))
    assert.ok(host.ctx.tools.get('memory_forget'))
    assert.equal(
      liveTimeouts.size,
      baselineTimeouts + 3,
      "the maintenance interval, the health check's and the near-duplicate review's first looks while applied",
    )
    assert.ok(openFilesIn(dataDir) >= 1, 'the store is open')

    const agent = await host.agent('session-register')
    host.adapter.script.push(
      { call: { name: 'memory_write', args: { subject: 'billing-api', property: 'port', value: '8123' } } },
      { text: 'noted' },
    )
    await host.say(agent, 'billing-api listens on 8123')
    const assembly = await host.ctx.systemPrompt.assemble({})
    assert.ok(
      assembly.contexts.some(
        (context) => context.name === 'dsh-fact-memory:directory' && context.text.includes('billing-api · port: 8123'),
      ),
    )

    await fiber.dispose()
    await settle()
    assert.equal(host.ctx.tools.get('memory_search'), undefined)
    assert.equal(host.ctx.tools.get('memory_write'), undefined)
    assert.equal(host.ctx.tools.get('memory_forget'), undefined)
    const after = await host.ctx.systemPrompt.assemble({})
    assert.equal(
      after.contexts.some((context) => context.name === 'dsh-fact-memory:directory'),
      false,
    )
    assert.equal(liveTimeouts.size, baselineTimeouts, 'the maintenance interval and both review timers are cleared')
    assert.equal(openFilesIn(dataDir), 0, 'the store file is closed')
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('re-applies cleanly when the composition config changes, without duplicate tools or leaked handles', async () => {
    await mount()
    const filesWhenApplied = openFilesIn(dataDir)
    for (const directoryBudget of [400, 200, 100]) {
      await fiber.update(configWith({ dataDir, directoryBudget, advanceIntervalMs: 30_000 }))
      await fiber.await()
      await settle()
      assert.ok(host.ctx.tools.get('memory_write'))
      assert.equal(
        liveTimeouts.size,
        baselineTimeouts + 3,
        'one maintenance interval, one health-check timer and one near-duplicate review timer',
      )
      assert.equal(openFilesIn(dataDir), filesWhenApplied)
    }
    await fiber.dispose()
    await settle()
    assert.equal(liveTimeouts.size, baselineTimeouts)
    assert.equal(openFilesIn(dataDir), 0)
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('arms no near-duplicate review timer with autoConsolidate false or consolidateIntervalMs 0', async () => {
    // The health check's timer is kept out of the count (auditIntervalMs 0) so only the review's is in question.
    for (const config of [
      { autoConsolidate: false, auditIntervalMs: 0 },
      { consolidateIntervalMs: 0, auditIntervalMs: 0 },
    ]) {
      await mount(config)
      const timers = liveTimeouts.size
      await fiber.dispose()
      assert.equal(timers, baselineTimeouts + 1, `only the maintenance interval with ${JSON.stringify(config)}`)
      await settle()
      assert.equal(liveTimeouts.size, baselineTimeouts)
    }
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('withdraws its tools and directory when enabled is false', async () => {
    await mount({ enabled: false })
    assert.equal(host.ctx.tools.get('memory_search'), undefined)
    assert.equal(liveTimeouts.size, baselineTimeouts)
    assert.equal(openFilesIn(dataDir), 0)
    const agent = await host.agent('session-disabled')
    await host.say(agent, 'please remember that I like tabs')
    assert.equal(
      userTexts(host.adapter.requests[0]).some((text) => text.includes(NOTICE_MARK)),
      false,
    )
    await fiber.dispose()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('gives a session one notice, repeats it only on a turn that mentions memory, and none to a subagent', async () => {
    await mount()
    const agent = await host.agent('session-notice')
    await host.say(agent, 'hello there')
    await host.say(agent, 'what is the weather like')
    await host.say(agent, '请记住我喜欢用制表符')
    const requests = host.adapter.requests.filter((request) => (request.tools?.length ?? 0) > 0)
    assert.equal(requests.length, 3)
    const noticesSeen = requests.map(
      (request) => userTexts(request).filter((text) => text.startsWith(NOTICE_MARK)).length,
    )
    // The transcript accumulates: turn 1 carries one notice, turn 2 still only that one, turn 3 a second.
    assert.deepEqual(noticesSeen, [1, 1, 2])

    host.adapter.requests.length = 0
    const child = await host.agent('session-child', { origin: 'subagent', delegationDepth: 1 })
    await host.say(child, 'remember to check the logs')
    assert.equal(
      userTexts(host.adapter.requests[0]).some((text) => text.startsWith(NOTICE_MARK)),
      false,
    )
    await fiber.dispose()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('sends no notice when its budget is 0', async () => {
    await mount({ reminderBudgetTokens: 0 })
    const agent = await host.agent('session-quiet')
    await host.say(agent, 'remember this please')
    assert.equal(
      userTexts(host.adapter.requests[0]).some((text) => text.startsWith(NOTICE_MARK)),
      false,
    )
    await fiber.dispose()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('keeps the directory byte-stable across steps while the store is unchanged', async () => {
    await mount()
    const agent = await host.agent('session-stable')
    host.adapter.script.push(
      { call: { name: 'memory_write', args: { subject: 'deploy', property: 'target', value: 'fly.io' } } },
      { call: { name: 'memory_search', args: { query: 'deploy target' } } },
      { call: { name: 'memory_search', args: { query: 'fly' } } },
      { text: 'done' },
    )
    await host.say(agent, 'we deploy to fly.io')
    const snapshots = host.adapter.requests
      .filter((request) => (request.tools?.length ?? 0) > 0)
      .flatMap((request) => userTexts(request).filter((text) => text.includes(DIRECTORY_MARK)))
    // Snapshots accumulate in the transcript; after the write one new snapshot appears, and the two searches
    // that changed nothing add none.
    const distinct = new Set(snapshots)
    assert.equal(distinct.size, 1)
    await fiber.dispose()
    rmSync(dataDir, { recursive: true, force: true })
  })
})
