/**
 * The Fact memory page as a user meets it: a real DSH rc.8 web host with the plugin, a fake model on loopback, and
 * Debian's Chromium driven by playwright-core. Every test ends by asserting the browser logged no error. Screenshots
 * land in test-artifacts/ for a person to look at.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { assertIconButton, launchBrowser, openHost, screenshot, type HostPage } from './helpers/browser.ts'
import type { DshHome, WebHost } from './helpers/dsh-host.ts'
import { converse, hostApi, writeCall, type FactMemoryApi } from './helpers/fact-memory-web.ts'
import { messageText, type FakeModel } from './helpers/fake-model.ts'
import { closeClean, startPageHost, until, type PageHost } from './helpers/page-host.ts'
import { waitFor } from './helpers/poll.ts'
import { newestRuntimeContext } from './helpers/headless-conversation.ts'

let env: PageHost | undefined
let model: FakeModel
let home: DshHome
let host: WebHost
let browser: Browser
let api: FactMemoryApi

const SEED_PROMPT =
  'billing-api runs on port 7801. team payments owns billing-api. Ana leads team payments. orders-api runs on port 7000.'

before(async () => {
  env = await startPageHost()
  ;({ model, home, host, browser, api } = env)
  await converse(
    host.url,
    model,
    home.workspace,
    SEED_PROMPT,
    {
      toolCalls: [
        writeCall({
          subject: 'billing-api',
          property: 'port',
          value: '7801',
          evidence: 'explicit_user',
          quote: 'billing-api runs on port 7801',
        }),
      ],
    },
    {
      toolCalls: [
        writeCall({
          subject: 'billing-api',
          property: 'owner',
          value: 'team payments',
          evidence: 'explicit_user',
          quote: 'team payments owns billing-api',
        }),
      ],
    },
    {
      toolCalls: [
        writeCall({
          subject: 'team payments',
          property: 'lead',
          value: 'Ana',
          evidence: 'explicit_user',
          quote: 'Ana leads team payments',
        }),
      ],
    },
    {
      toolCalls: [
        writeCall({
          subject: 'orders-api',
          property: 'port',
          value: '7000',
          evidence: 'explicit_user',
          quote: 'orders-api runs on port 7000',
        }),
      ],
    },
    // A weaker source contradicting the user: a conflict group. An inferred value: a proposal.
    { toolCalls: [writeCall({ subject: 'billing-api', property: 'port', value: '7900', evidence: 'observed' })] },
    { toolCalls: [writeCall({ subject: 'orders-api', property: 'language', value: 'Go', evidence: 'inferred' })] },
  )
})

after(async () => {
  await env?.stop()
})

/** Open the host, then the page from the sidebar entry. */
async function openPage(
  viewport?: { width: number; height: number },
  colorScheme: 'light' | 'dark' = 'light',
): Promise<HostPage> {
  const opened = await openHost(browser, host.url, viewport, colorScheme)
  await opened.page.locator('[data-fm="sidebar-entry"]').click()
  await opened.page.locator('fm-page').waitFor()
  return opened
}

async function tab(page: Page, name: string): Promise<void> {
  await page.locator(`fm-page nav button[data-tab="${name}"]`).click()
}

/** Facts as the store has them now. */
async function currentFacts(): Promise<
  { id: number; subject: string; property: string; value: string; status: string; evidence: string }[]
> {
  return (await api.ok('facts', { status: 'all' }))['facts'] as never
}

describe('the Fact memory page in a real browser', () => {
  it('opens from the sidebar, shows every tab with its count, and closes with Escape', async () => {
    const opened = await openPage()
    const { page } = opened
    // The page reads the store after it opens: wait for the figures rather than racing them.
    await page
      .locator('[data-fm="store-line"]')
      .filter({ hasText: /^5 current facts · 0 in history$/u })
      .waitFor()
    await page.locator('fm-page nav button[data-tab="proposals"] .count').filter({ hasText: /^1$/u }).waitFor()
    await page.locator('fm-page nav button[data-tab="conflicts"] .count').filter({ hasText: /^1$/u }).waitFor()

    await tab(page, 'library')
    await page.locator('fm-library [data-fm="fact-list"] li button.row').first().waitFor()
    assert.equal(await page.locator('fm-library [data-fm="fact-list"] li button.row').count(), 5)

    await tab(page, 'proposals')
    const proposal = page.locator('fm-proposals [data-fm="proposal"]')
    await proposal.first().waitFor()
    assert.match(await proposal.first().innerText(), /orders-api[\s\S]*language[\s\S]*Go/u)

    await tab(page, 'conflicts')
    const conflict = page.locator('fm-conflicts [data-fm="conflict"]')
    await conflict.first().waitFor()
    const text = await conflict.first().innerText()
    assert.match(text, /7801/u)
    assert.match(text, /7900/u)

    await tab(page, 'extraction')
    await page
      .locator('fm-extraction [data-fm="extraction-off"]')
      .getByText(/Automatic capture is off/u)
      .waitFor()
    // The empty state's way for the user to write facts leads to the library's Add fact.
    await page.locator('fm-extraction [data-fm="goto-add"]').click()
    await page.locator('fm-library [data-fm="add-fact"]').waitFor()

    await page.keyboard.press('Escape')
    await page.locator('fm-page').waitFor({ state: 'detached' })
    await closeClean(opened)
  })

  it('draws the nebula with WebGL, and the one-hop tree opens the facts behind a node', async () => {
    const opened = await openPage()
    const { page } = opened
    const graph = await api.ok('graph', { view: 'nebula' })
    const nodes = (graph['nodes'] as unknown[]).length
    const edges = (graph['edges'] as unknown[]).length
    assert.ok(nodes >= 5 && edges >= 3, `seeded graph: ${nodes} nodes, ${edges} edges`)
    await page.locator('fm-graph [data-fm="nebula"] canvas').waitFor()
    await page
      .locator('fm-graph [data-fm="graph-counts"]')
      .filter({ hasText: `${nodes} nodes · ${edges} edges` })
      .waitFor()
    assert.match(
      (await page.locator('fm-graph [data-fm="nebula"] canvas').getAttribute('aria-label')) ?? '',
      new RegExp(`^Fact graph: ${nodes} nodes and ${edges} relations`, 'u'),
    )
    await screenshot(page, 'graph-nebula')

    await page.locator('fm-graph').getByRole('button', { name: 'One-hop tree' }).click()
    const tree = page.locator('fm-graph fm-svg-tree [data-fm="svg-tree"]')
    await tree.waitFor()
    await tree.locator('g.node', { hasText: 'billing-api' }).locator('circle').click()
    const selection = page.locator('fm-graph [data-fm="graph-selection"]')
    await selection.filter({ hasText: 'billing-api' }).waitFor()
    await selection.getByText('billing-api · owner:').waitFor()
    await selection.getByRole('button', { name: /billing-api · owner: team payments/u }).click()
    // The fact opens in the library, with its detail.
    await page
      .locator('fm-library [data-fm="detail"] [data-fm="detail-value"]')
      .filter({ hasText: 'team payments' })
      .waitFor()
    await closeClean(opened)
  })

  it('draws the SVG tree instead of a blank panel when the browser has no WebGL', async () => {
    const plain = await launchBrowser({ webgl: false })
    try {
      const opened = await openHost(plain, host.url)
      const { page } = opened
      await page.locator('[data-fm="sidebar-entry"]').click()
      await page.locator('fm-graph fm-svg-tree [data-fm="svg-tree"] g.node').first().waitFor()
      await page.locator('fm-graph').getByText('WebGL unavailable: showing the SVG tree').waitFor()
      assert.equal(await page.locator('fm-graph [data-fm="nebula"]').count(), 0)
      assert.ok((await page.locator('fm-graph fm-svg-tree g.node').count()) >= 2)
      await screenshot(page, 'graph-no-webgl')
      await closeClean(opened)
    } finally {
      await plain.close()
    }
  })

  it('searches, edits a value with undo, and expires a fact with undo', async () => {
    const opened = await openPage()
    const { page } = opened
    await tab(page, 'library')
    const rows = page.locator('fm-library [data-fm="fact-list"] li button.row')
    await rows.first().waitFor()
    await page.locator('fm-library input[type="search"]').fill('orders')
    await page.locator('fm-library input[type="search"]').press('Enter')
    await until(async () => (await rows.count()) === 1, 'the search to narrow the list')
    assert.match(await rows.first().innerText(), /orders-api · port: 7000/u)

    await rows.first().click()
    await page.locator('fm-library [data-fm="detail"] [data-fm="detail-value"]').waitFor()
    await page.getByRole('button', { name: 'Edit value' }).click()
    await page.locator('fm-library input[name="value"]').fill('7001')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    const toast = page.locator('[data-fm="toast"]').filter({ hasText: 'Changed orders-api · port to 7001' })
    await toast.waitFor()
    let port = (await currentFacts()).filter(
      (fact) => fact.subject === 'orders-api' && fact.property === 'port' && fact.status === 'active',
    )
    assert.deepEqual(
      port.map((fact) => [fact.value, fact.evidence]),
      [['7001', 'explicit_user']],
    )

    await toast.getByRole('button', { name: 'Undo' }).click()
    await page.locator('[data-fm="toast"]').filter({ hasText: 'Undone' }).waitFor()
    port = (await currentFacts()).filter(
      (fact) => fact.subject === 'orders-api' && fact.property === 'port' && fact.status === 'active',
    )
    assert.deepEqual(
      port.map((fact) => fact.value),
      ['7000'],
    )

    await rows.first().click()
    await page.getByRole('button', { name: 'Expire now' }).click()
    const expired = page.locator('[data-fm="toast"]').filter({ hasText: 'Expired orders-api · port' })
    await expired.waitFor()
    assert.equal(
      (await currentFacts()).find(
        (fact) => fact.subject === 'orders-api' && fact.property === 'port' && fact.value === '7000',
      )?.status,
      'expired',
    )
    await expired.getByRole('button', { name: 'Undo' }).click()
    await page.locator('[data-fm="toast"]').filter({ hasText: 'Undone' }).first().waitFor()
    // The first edit's "Undone" toast may still be showing: wait for the store, not the toast.
    await waitFor(
      async () =>
        (await currentFacts()).find(
          (fact) => fact.subject === 'orders-api' && fact.property === 'port' && fact.value === '7000',
        )?.status === 'active'
          ? true
          : undefined,
      'the expiry to be undone',
    )
    await closeClean(opened)
  })

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
    await page.getByRole('button', { name: 'Settings' }).first().click()
    await page
      .getByText(/^Plugins$/u)
      .first()
      .click()
    const card = page.locator('fm-settings-card')
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

  it('looks right light and dark, wide and narrow', async () => {
    for (const [scheme, viewport] of [
      ['light', { width: 1440, height: 960 }],
      ['dark', { width: 1440, height: 960 }],
      ['light', { width: 1100, height: 800 }],
      ['dark', { width: 760, height: 900 }],
    ] as const) {
      const opened = await openPage(viewport, scheme)
      const { page } = opened
      await page.locator('fm-graph [data-fm="graph-counts"]').filter({ hasText: /nodes/u }).waitFor()
      await page.waitForTimeout(600)
      await screenshot(page, `page-graph-${scheme}-${viewport.width}`)
      await tab(page, 'library')
      await page.locator('fm-library [data-fm="fact-list"] li button.row').first().click()
      await page.locator('fm-library [data-fm="detail"]').waitFor()
      await screenshot(page, `page-library-${scheme}-${viewport.width}`)
      // Nothing spills sideways at any width.
      const overflow = await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      )
      assert.equal(overflow, 0, `horizontal overflow at ${viewport.width}px`)
      await closeClean(opened)
    }
  })
})
