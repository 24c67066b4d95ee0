/**
 * Parked extraction ranges come back, through the real DSH rc.8 web host with the plugin and the fake model failing
 * with HTTP 500 until the queue gives up: the range is parked (with extractRetryMs at 100 ms the three retries take
 * 3.6 s), listed on the Extraction tab with its reason and a Retry button (screenshots, light and dark, in
 * test-artifacts/), read again on its own after the next pass the model answers, and read again by Retry in
 * Debian's Chromium; its facts land on the turn they were said in. A range parked before the host restarts is read
 * again from the conversation's saved log by the next host.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import type { PendingRange } from '../src/store/extract-store.ts'
import type { FactView } from '../src/wire-types.ts'
import { screenshot, type HostPage } from './helpers/browser.ts'
import { startWebHost } from './helpers/dsh-host.ts'
import { FactMemoryApi, hostApi } from './helpers/fact-memory-web.ts'
import { messageText, type ExtractionReply } from './helpers/fake-model.ts'
import { closeClean, startPageHost, until, type PageHost, openOnTab } from './helpers/page-host.ts'
import { waitFor } from './helpers/poll.ts'

let env: PageHost

/** Four failures: the first try and its three retries. */
const FAILING: readonly ExtractionReply[] = [{ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }]

before(async () => {
  env = await startPageHost()
  await hostApi(env.host.url, 'settings.update', {
    ns: 'dsh-fact-memory',
    patch: { autoExtract: true, autoCapture: false, llmSource: 'host', extractDelayMs: 0, extractRetryMs: 100 },
  })
})
after(async () => {
  await env?.stop()
})

type Parked = PendingRange & { readonly retriesOnItsOwn: boolean }

async function parked(): Promise<readonly Parked[]> {
  return (await env.api.ok('queue', {}))['parked'] as Parked[]
}

async function facts(): Promise<FactView[]> {
  return (await env.api.ok('facts', { status: 'all', limit: 100 }))['facts'] as FactView[]
}

async function landed(subject: string): Promise<FactView> {
  return waitFor(
    async () => (await facts()).find((fact) => fact.subject === subject),
    async () =>
      `the fact about ${subject}; facts: ${JSON.stringify((await facts()).map((fact) => `${fact.subject} · ${fact.property} = ${fact.value}`))}; parked: ${JSON.stringify(await parked())}`,
  )
}

/** One user prompt in a session (a new one unless given); waits until the agent answered it. */
async function turn(prompt: string, sessionId?: string): Promise<string> {
  const served = env.model.agentRequests().length
  env.model.enqueue({ text: 'Noted.' })
  const session =
    sessionId ??
    (await hostApi<{ sessionId: string }>(env.host.url, 'session.create', { cwd: env.home.workspace })).sessionId
  await hostApi(env.host.url, 'session.prompt', {
    sessionId: session,
    mode: 'queue',
    content: [{ type: 'text', text: prompt }],
  })
  await until(() => env.model.agentRequests().length > served, `the turn "${prompt}" to be answered`, 30_000)
  return session
}

/** A turn whose extraction fails every attempt: waits until its range is parked. */
async function parkTurn(prompt: string): Promise<{ session: string; range: Parked }> {
  const before = env.model.extractionRequests().length
  env.model.enqueueExtraction(...FAILING)
  const session = await turn(prompt)
  const range = await waitFor(
    async () => (await parked()).find((entry) => entry.sessionId === session),
    async () => `the range of ${session} to be parked; queue: ${JSON.stringify(await env.api.ok('queue', {}))}`,
    30_000,
  )
  assert.equal(env.model.extractionRequests().length - before, 4, 'the first try and three retries reached the model')
  return { session, range }
}

function answer(subject: string, property: string, value: string, quote: string): ExtractionReply {
  return { text: JSON.stringify({ facts: [{ subject, property, value, quote, confidence: 0.95 }] }) }
}

function openExtraction(colorScheme: 'light' | 'dark' = 'light'): Promise<HostPage> {
  return openOnTab(env, 'extraction', { colorScheme })
}

function parkedRow(page: Page, id: number) {
  return page.locator(`fm-extraction [data-fm="parked"][data-id="${id}"]`)
}

describe('parked extraction ranges through the real web host', () => {
  it('a range the model failed on four times is parked, listed with its reason, and read again after the next answered pass', async () => {
    const quote = 'the ledger service port is 7444'
    const { session, range } = await parkTurn(`Remember: ${quote}.`)
    assert.deepEqual([range.attempts, range.turns, range.retriesOnItsOwn], [4, [1], true])
    assert.match(range.lastError, /500|scripted failure/u)
    assert.equal(
      (await facts()).some((fact) => fact.subject === 'ledger service'),
      false,
    )

    for (const scheme of ['light', 'dark'] as const) {
      const opened = await openExtraction(scheme)
      const row = parkedRow(opened.page, range.id)
      await row.waitFor()
      assert.match(await row.locator('[data-fm="parked-reason"]').innerText(), /^Why: .*(500|scripted failure)/u)
      assert.equal(await row.locator('[data-fm="parked-retry"]').innerText(), 'Retry')
      await screenshot(opened.page, `extraction-parked-${scheme}`)
      await closeClean(opened)
    }

    // The model answers again: the next pass lands its own fact, then the parked range is read again from the session.
    const before = env.model.extractionRequests().length
    env.model.enqueueExtraction(
      answer('cache engine', 'version', 'redis-7', 'the cache engine version is redis-7'),
      answer('ledger service', 'port', '7444', quote),
    )
    await turn('Remember: the cache engine version is redis-7.', session)
    const ledger = await landed('ledger service')
    assert.deepEqual([ledger.value, ledger.sessionId, ledger.origin], ['7444', session, 'extract'])
    assert.equal((await landed('cache engine')).value, 'redis-7')
    const retry = env.model.extractionRequests()[before + 1]
    assert.ok(retry !== undefined, 'the retry called the model')
    const sent = retry.body.messages.map(messageText).join('\n')
    assert.ok(sent.includes(quote) && !sent.includes('redis-7'), `the retry re-read the parked words only:\n${sent}`)
    await until(
      async () => (await parked()).length === 0,
      async () => `the range to be resolved: ${JSON.stringify(await parked())}`,
    )
  })

  it('Retry on the Extraction tab reads a parked range again in Chromium, and its fact lands', async () => {
    const quote = 'the audit archive bucket is audit-eu-2'
    const { session, range } = await parkTurn(`Remember: ${quote}.`)
    const opened = await openExtraction()
    const { page } = opened
    const row = parkedRow(page, range.id)
    await row.waitFor()
    env.model.enqueueExtraction({ ...answer('audit archive', 'bucket', 'audit-eu-2', quote), delayMs: 1500 })
    await row.locator('[data-fm="parked-retry"]').click()
    await row.locator('[data-fm="parked-retry"]').filter({ hasText: 'Retrying…' }).waitFor()
    const toast = page.locator('[data-fm="toast"]').last()
    await toast.waitFor({ timeout: 30_000 })
    assert.match(await toast.innerText(), /^Read turn 1 again: 1 fact written, 0 to review/u)
    await row.waitFor({ state: 'detached' })
    await screenshot(page, 'extraction-parked-retried')
    const fact = await landed('audit archive')
    assert.deepEqual([fact.value, fact.sessionId, fact.quote], ['audit-eu-2', session, quote])
    assert.deepEqual(await parked(), [])
    await closeClean(opened)
  })

  it("a range parked before a restart is read again from the conversation's saved log by the new host", async () => {
    const quote = 'the billing exporter runs on port 9464'
    const { session, range } = await parkTurn(`Remember: ${quote}.`)
    await env.host.stop()
    const restarted = await startWebHost(env.home, env.model.url)
    try {
      const api = new FactMemoryApi(restarted.url)
      const listed = (await api.ok('queue', {}))['parked'] as Parked[]
      assert.deepEqual(
        listed.map((entry) => [entry.id, entry.sessionId, entry.attempts]),
        [[range.id, session, 4]],
        'the parked range survived the restart',
      )
      env.model.enqueueExtraction(answer('billing exporter', 'port', '9464', quote))
      const retried = await api.ok('extract-retry', { id: range.id })
      assert.equal((retried['outcome'] as { kind: string }).kind, 'resolved', JSON.stringify(retried))
      const sent = env.model.extractionRequests().at(-1)?.body.messages.map(messageText).join('\n') ?? ''
      assert.ok(sent.includes(quote), `the retry read the saved log:\n${sent}`)
      const fact = ((await api.ok('facts', { status: 'all', limit: 100 }))['facts'] as FactView[]).find(
        (entry) => entry.subject === 'billing exporter',
      )
      assert.deepEqual([fact?.value, fact?.sessionId], ['9464', session])
    } finally {
      await restarted.stop()
    }
  })
})
