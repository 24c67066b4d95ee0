/**
 * The Fact memory page where it meets a conversation, in Debian's Chromium against a real DSH rc.8 web host with a
 * fake model: a turn's card, the header badge and the drawer, pausing memory in a session, a setting that applies to
 * the next request, and deciding a conflict and a proposal. Split from page-browser.spec.ts (same seed conversation,
 * tests/helpers/page-seed.ts) so the two halves run side by side; the tests keep their order here.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { assertIconButton, openHost, openPluginCard, screenshot, type HostPage } from './helpers/browser.ts'
import type { DshHome, WebHost } from './helpers/dsh-host.ts'
import { hostApi, writeCall, type FactMemoryApi } from './helpers/fact-memory-web.ts'
import { messageText, type FakeModel } from './helpers/fake-model.ts'
import { newestRuntimeContext } from './helpers/headless-conversation.ts'
import { closeClean, openFactPage, openTabOf, usePageHost } from './helpers/page-host.ts'
import { seedConversation } from './helpers/page-seed.ts'
import { waitFor } from './helpers/poll.ts'

let model: FakeModel
let home: DshHome
let host: WebHost
let browser: Browser
let api: FactMemoryApi

usePageHost(async (env) => {
  ;({ model, home, host, browser, api } = env)
  await seedConversation(env)
})

function openPage(): Promise<HostPage> {
  return openFactPage({ browser, host })
}

function tab(page: Page, name: string): Promise<void> {
  return openTabOf(page, name)
}

/** Facts as the store has them now. */
async function currentFacts(): Promise<
  { id: number; subject: string; property: string; value: string; status: string; evidence: string }[]
> {
  return (await api.ok('facts', { status: 'all' }))['facts'] as never
}

describe('the Fact memory page beside a conversation, in a real browser', () => {
  it('a turn that writes facts shows its card, the header badge and mark, and the drawer lists them', async () => {
    const opened = await openHost(browser, host.url)
    const { page } = opened
    model.reset()
    model.enqueue(
      {
        toolCalls: [
          writeCall({
            subject: 'search-api',
            property: 'port',
            value: '7300',
            evidence: 'explicit_user',
            quote: 'search-api listens on 7300',
          }),
        ],
      },
      {
        toolCalls: [
          writeCall({ subject: 'search-api', property: 'owner', value: 'team discovery', evidence: 'inferred' }),
        ],
      },
      { text: 'Noted.' },
    )
    const box = page.locator('textarea').first()
    await box.fill('Remember that search-api listens on 7300.')
    await box.press('Enter')
    const card = page.locator('[data-fm="turn-tail"]')
    await card.waitFor({ timeout: 30_000 })
    await card.filter({ hasText: /1 pending review/u }).waitFor()
    assert.match(await card.innerText(), /this turn wrote 1 fact · 1 pending review/u)
    // The badge counts what waits for the user: two proposals and the seeded conflict.
    // Within seconds, not at the 30 s background poll: the card's arrival re-reads the badge.
    await page
      .locator('[data-fm="header-button"] [data-fm="badge"]')
      .filter({ hasText: '3' })
      .waitFor({ timeout: 10_000 })
    assert.equal(await page.locator('[data-fm="session-mark"]').count(), 1)
    await screenshot(page, 'session-turn-card')

    await card.getByRole('button', { name: 'View' }).click()
    const drawer = page.locator('[data-fm="drawer"]')
    await drawer.waitFor()
    await drawer.getByText('search-api · port: 7300').waitFor()
    assert.doesNotMatch(await drawer.innerText(), /billing-api/u)
    await screenshot(page, 'session-drawer')
    await drawer.getByRole('button', { name: 'Close' }).click()
    await drawer.waitFor({ state: 'detached' })

    // Pause in this session: the button shows the paused state, the next request carries no directory, and Resume
    // turns it back on.
    await assertIconButton(page.getByRole('button', { name: 'Pause in this session' }), 'pause')
    await page.getByRole('button', { name: 'Pause in this session' }).click()
    await page.locator('[data-fm="header-button"]').filter({ hasText: 'memory paused' }).waitFor()
    await assertIconButton(page.getByRole('button', { name: 'Resume memory in this session' }), 'resume')
    await screenshot(page, 'session-paused')
    model.reset()
    model.enqueue({ text: 'Noted.' })
    await box.fill('Which port does search-api use?')
    await box.press('Enter')
    await waitFor(() => model.agentRequests()[0], 'the paused turn')
    const pausedMessages = model.agentRequests()[0]?.body.messages ?? []
    const pausedTexts = pausedMessages.filter((message) => message.role === 'user').map(messageText)
    assert.doesNotMatch(
      newestRuntimeContext(pausedMessages),
      /Fact memory:/u,
      'the context in force carries no directory while paused',
    )
    assert.ok(
      pausedTexts.some((text) => text.startsWith('Memory is paused in this session')),
      'one line says memory is paused',
    )
    await page.getByRole('button', { name: 'Resume memory in this session' }).click()
    await page
      .locator('[data-fm="header-button"]')
      .filter({ hasText: /^memory/u })
      .filter({ hasNotText: 'paused' })
      .waitFor()
    await closeClean(opened)
  })

  it('a setting changed on the card applies to the next request without a restart', async () => {
    const opened = await openHost(browser, host.url)
    const { page } = opened
    const card = await openPluginCard(page)
    await card.waitFor()
    await card
      .locator('[data-fm="card-counts"]')
      .filter({ hasText: /current facts/u })
      .waitFor()
    await screenshot(page, 'settings-card')
    const directory = card.locator('#fm-setting-injectDirectory')
    assert.equal(await directory.isChecked(), true)
    await directory.uncheck()
    // Held until Save, as on the host's own cards.
    await card.locator('[data-fm="card-save"]').first().getByRole('button', { name: 'Save' }).click()
    await card.locator('[data-fm="card-status"]').filter({ hasText: 'Saved Inject directory' }).waitFor()

    model.reset()
    model.enqueue({ text: 'Hello.' })
    const { sessionId } = await hostApi<{ sessionId: string }>(host.url, 'session.create', { cwd: home.workspace })
    await hostApi(host.url, 'session.prompt', {
      sessionId,
      mode: 'queue',
      content: [{ type: 'text', text: 'What port does billing-api use?' }],
    })
    const deadline = Date.now() + 30_000
    while (model.agentRequests().length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50))
    const sent = (model.agentRequests()[0]?.body.messages ?? []).map(messageText).join('\n')
    assert.ok(sent.length > 0, 'the model was not called')
    assert.doesNotMatch(sent, /Fact memory: values recorded/u)

    await directory.check()
    await card.locator('[data-fm="card-save"]').first().getByRole('button', { name: 'Save' }).click()
    await card.locator('[data-fm="card-status"]').filter({ hasText: 'Saved Inject directory' }).waitFor()
    await closeClean(opened)
  })

  it('settles a conflict (with undo) and accepts a proposal from the page', async () => {
    const opened = await openPage()
    const { page } = opened
    await tab(page, 'conflicts')
    const group = page.locator('fm-conflicts [data-fm="conflict"]').filter({ hasText: 'billing-api · port' })
    await group.waitFor()
    await group.locator('.side').filter({ hasText: '7801' }).getByRole('button', { name: 'Keep this' }).click()
    const settled = page.locator('[data-fm="toast"]').filter({ hasText: 'Settled billing-api · port on 7801' })
    await settled.waitFor()
    await page.locator('fm-conflicts [data-fm="conflicts-empty"]').waitFor()
    let port = (await currentFacts()).filter((fact) => fact.subject === 'billing-api' && fact.property === 'port')
    assert.deepEqual(
      port.filter((fact) => ['active', 'conflict'].includes(fact.status)).map((fact) => fact.value),
      ['7801'],
    )
    assert.deepEqual((await api.ok('conflicts'))['groups'], [])

    await settled.getByRole('button', { name: 'Undo' }).click()
    await page.locator('[data-fm="toast"]').filter({ hasText: 'the conflict is open again' }).waitFor()
    await group.waitFor()
    port = (await currentFacts()).filter((fact) => fact.subject === 'billing-api' && fact.property === 'port')
    assert.deepEqual(
      port
        .filter((fact) => ['active', 'conflict'].includes(fact.status))
        .map((fact) => fact.value)
        .sort(),
      ['7801', '7900'],
    )

    await tab(page, 'proposals')
    const card = page.locator('fm-proposals [data-fm="proposal"]').filter({ hasText: 'orders-api · language: Go' })
    await card.getByRole('button', { name: 'Accept' }).click()
    await page
      .locator('[data-fm="toast"]')
      .filter({ hasText: /^Accepted proposal #\d+/u })
      .waitFor()
    await card.waitFor({ state: 'detached' })
    const language = (await currentFacts()).filter(
      (fact) => fact.subject === 'orders-api' && fact.property === 'language',
    )
    assert.deepEqual(
      language.map((fact) => [fact.value, fact.status, fact.evidence]),
      [['Go', 'active', 'confirmed_user']],
    )
    await closeClean(opened)
  })
})
