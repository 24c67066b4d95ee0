/**
 * The Fact memory page as a user meets it: a real DSH rc.8 web host with the plugin, a fake model on loopback, and
 * Debian's Chromium driven by playwright-core. Every test ends by asserting the browser logged no error. Screenshots
 * land in test-artifacts/ for a person to look at.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser, openHost, screenshot, type HostPage } from './helpers/browser.ts'
import type { WebHost } from './helpers/dsh-host.ts'
import type { FactMemoryApi } from './helpers/fact-memory-web.ts'
import {
  closeClean,
  openFactPage,
  openOnTab,
  openTabOf,
  startPageHost,
  until,
  type PageHost,
} from './helpers/page-host.ts'
import { seedConversation } from './helpers/page-seed.ts'
import { waitFor } from './helpers/poll.ts'

let env: PageHost | undefined
let host: WebHost
let browser: Browser
let api: FactMemoryApi

before(async () => {
  env = await startPageHost()
  ;({ host, browser, api } = env)
  await seedConversation(env)
})

after(async () => {
  await env?.stop()
})

/** Open the host, then the page from the sidebar entry. */
function openPage(
  viewport?: { width: number; height: number },
  colorScheme: 'light' | 'dark' = 'light',
): Promise<HostPage> {
  return openFactPage({ browser, host }, { ...(viewport === undefined ? {} : { viewport }), colorScheme })
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

  it('opens straight on the tab a link names, keeps the tab in the address across a reload, clears it on close', async () => {
    const nebulaRequests: string[] = []
    const opened = await openOnTab({ browser, host }, 'library')
    const { page } = opened
    page.on('request', (request) => {
      if (request.url().includes('/nebula.js')) nebulaRequests.push(request.url())
    })
    await page.locator('fm-library [data-fm="fact-list"] li button.row').first().waitFor()
    assert.equal(await page.locator('fm-graph').count(), 0, 'no other tab is drawn first')
    const entries = await page.evaluate('history.length')

    await tab(page, 'conflicts')
    await page.locator('fm-conflicts [data-fm="conflict"]').first().waitFor()
    assert.equal(new URL(page.url()).hash, '#fact-memory/conflicts')
    assert.equal(await page.evaluate('history.length'), entries, 'a tab switch adds no history entry')

    await page.reload({ waitUntil: 'domcontentloaded' })
    await page.locator('fm-page nav button[data-tab="conflicts"][aria-selected="true"]').waitFor()
    await page.locator('fm-conflicts [data-fm="conflict"]').first().waitFor()
    const focused = String(await page.evaluate("document.activeElement?.tagName ?? ''"))

    await page.keyboard.press('Escape')
    await page
      .locator('fm-page')
      .waitFor({ state: 'detached', timeout: 10_000 })
      .catch(() => {
        assert.fail(`Esc left the page open, with focus on ${focused}`)
      })
    assert.equal(new URL(page.url()).hash, '')
    // A link typed into the address of an open app opens the page there too.
    await page.evaluate("location.hash = '#fact-memory/extraction'")
    await page.locator('fm-page nav button[data-tab="extraction"][aria-selected="true"]').waitFor()
    assert.deepEqual(nebulaRequests, [], 'the nebula was never loaded')
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

  it('looks right light and dark, wide and narrow', async () => {
    // One page, its size and scheme changed in turn: each look is drawn afresh by the same page a user resizes.
    const opened = await openPage()
    const { page } = opened
    for (const [scheme, viewport] of [
      ['light', { width: 1440, height: 960 }],
      ['dark', { width: 1440, height: 960 }],
      ['light', { width: 1100, height: 800 }],
      ['dark', { width: 760, height: 900 }],
    ] as const) {
      await page.setViewportSize(viewport)
      await page.emulateMedia({ colorScheme: scheme })
      await tab(page, 'graph')
      await page.locator('fm-graph [data-fm="graph-counts"]').filter({ hasText: /nodes/u }).waitFor()
      await screenshot(page, `page-graph-${scheme}-${viewport.width}`, 600)
      await tab(page, 'library')
      const detail = page.locator('fm-library [data-fm="detail"]')
      await page.locator('fm-library [data-fm="fact-list"] li button.row').first().click()
      await detail.waitFor()
      await screenshot(page, `page-library-${scheme}-${viewport.width}`)
      // Nothing spills sideways at any width.
      const overflow = await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      )
      assert.equal(overflow, 0, `horizontal overflow at ${viewport.width}px in ${scheme}`)
      // Esc closes the detail before the next look: at a narrower width it would be a sheet over the tabs.
      await page.keyboard.press('Escape')
      await detail.waitFor({ state: 'detached' })
    }
    await closeClean(opened)
  })
})
