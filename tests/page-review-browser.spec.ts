/**
 * Reviewing from the page, in Debian's Chromium against a real DSH rc.8 web host with its own throwaway home: dates
 * in the store's zone while the browser sits in another, the turn card of facts the rule path wrote, and the
 * proposals tab's digest of what arrived since the user last looked. Screenshots land in test-artifacts/.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { formatInstant } from '../client/format.ts'
import { openHost, screenshot, type HostPage } from './helpers/browser.ts'
import type { DshHome, WebHost } from './helpers/dsh-host.ts'
import { converse, hostApi, writeCall, type FactMemoryApi } from './helpers/fact-memory-web.ts'
import type { FakeModel } from './helpers/fake-model.ts'
import { closeClean, until, usePageHost } from './helpers/page-host.ts'

/** The zone the store shows dates in, and the browser's own zone: nine and sixteen hours off UTC in opposite ways. */
const STORE_ZONE = 'Asia/Tokyo'
const BROWSER_ZONE = 'America/Los_Angeles'

let model: FakeModel
let home: DshHome
let host: WebHost
let browser: Browser
let api: FactMemoryApi

usePageHost(async (env) => {
  ;({ model, home, host, browser, api } = env)
  await hostApi(host.url, 'settings.update', { ns: 'dsh-fact-memory', patch: { storeTimezone: STORE_ZONE } })
  await until(async () => (await api.ok('status', {}))['timeZone'] === STORE_ZONE, 'storeTimezone in force')
})

/** Open the host in the browser's zone. */
function openInBrowserZone(): Promise<HostPage> {
  return openHost(browser, host.url, undefined, 'light', BROWSER_ZONE)
}

/** Open the page on a tab. */
async function openTab(opened: HostPage, tab: string): Promise<void> {
  await opened.page.locator('[data-fm="sidebar-entry"]').click()
  await opened.page.locator(`fm-page nav button[data-tab="${tab}"]`).click()
}

/** Send one message through the composer and wait until the scripted turn has been answered. */
async function turn(page: Page, text: string, ...steps: Parameters<FakeModel['enqueue']>): Promise<void> {
  model.reset()
  model.enqueue(...steps)
  const box = page.locator('textarea').first()
  await box.fill(text)
  await box.press('Enter')
  await until(() => model.agentRequests().length >= steps.length, 'the turn')
}

async function reviewSeenAt(): Promise<unknown> {
  return (await api.ok('status', {}))['reviewSeenAt']
}

describe('dates on the page', () => {
  it("shows every date in storeTimezone, not the browser's zone: conflicts, the graph selection and the conversation drawer", async () => {
    await converse(
      host.url,
      model,
      home.workspace,
      'billing-api runs on port 7801. team payments owns billing-api.',
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
      { toolCalls: [writeCall({ subject: 'billing-api', property: 'port', value: '7900', evidence: 'observed' })] },
    )
    const [group] = (await api.ok('conflicts', {}))['groups'] as {
      openedAt: string
      rows: { value: string; validFrom: string }[]
    }[]
    assert.ok(group !== undefined)
    const opened = await openInBrowserZone()
    const { page } = opened
    await openTab(opened, 'conflicts')
    const conflict = page.locator('fm-conflicts [data-fm="conflict"]').first()
    await conflict.waitFor()
    const shown = await conflict.innerText()
    assert.notEqual(formatInstant(group.openedAt, STORE_ZONE), formatInstant(group.openedAt, BROWSER_ZONE))
    assert.ok(shown.includes(`open since ${formatInstant(group.openedAt, STORE_ZONE)}`), shown)
    for (const row of group.rows) assert.ok(shown.includes(`since ${formatInstant(row.validFrom, STORE_ZONE)}`), shown)
    assert.ok(!shown.includes(formatInstant(group.openedAt, BROWSER_ZONE)), shown)
    await screenshot(page, 'dates-conflicts-store-zone')

    await page.locator('fm-page nav button[data-tab="graph"]').click()
    await page.locator('fm-graph').getByRole('button', { name: 'One-hop tree' }).click()
    await page.locator('fm-graph fm-svg-tree g.node', { hasText: 'billing-api' }).locator('circle').first().click()
    const selection = page.locator('fm-graph [data-fm="graph-selection"]')
    await selection.getByText('billing-api · port:').first().waitFor()
    const port = (
      (await api.ok('facts', { subject: 'billing-api' }))['facts'] as { value: string; validFrom: string }[]
    ).find((fact) => fact.value === '7801')
    assert.ok(port !== undefined)
    assert.match(await selection.innerText(), new RegExp(formatInstant(port.validFrom, STORE_ZONE), 'u'))
    // Esc closes the innermost thing first: the selection panel, then the page.
    await page.keyboard.press('Escape')
    await selection.waitFor({ state: 'detached' })
    await page.keyboard.press('Escape')
    await page.locator('fm-page').waitFor({ state: 'detached' })

    await turn(
      page,
      'Remember that search-api listens on 7300.',
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
      { text: 'Noted.' },
    )
    const card = page.locator('[data-fm="turn-tail"]').filter({ hasText: /this turn wrote 1 fact/u })
    await card.waitFor({ timeout: 30_000 })
    await card.getByRole('button', { name: 'View' }).click()
    const drawer = page.locator('[data-fm="drawer"]')
    await drawer.getByText('search-api · port: 7300').waitFor()
    const written = ((await api.ok('facts', { subject: 'search-api' }))['facts'] as { recordedAt: string }[])[0]
    assert.ok(written !== undefined)
    const entry = await drawer.locator('li').filter({ hasText: 'search-api · port: 7300' }).innerText()
    assert.ok(entry.includes(formatInstant(written.recordedAt, STORE_ZONE)), entry)
    assert.ok(!entry.includes(formatInstant(written.recordedAt, BROWSER_ZONE)), entry)
    await screenshot(page, 'dates-drawer-store-zone')
    await closeClean(opened)
  })
})

describe('the turn card for facts the rule path wrote', () => {
  it('gives a turn whose user message the rules captured its card, with automatic extraction off', async () => {
    await hostApi(host.url, 'settings.update', {
      ns: 'dsh-fact-memory',
      patch: { autoCapture: true, autoExtract: false },
    })
    try {
      await until(async () => (await api.ok('status', { summary: true }))['autoCapture'] === true, 'autoCapture on')
      const opened = await openInBrowserZone()
      const { page } = opened
      await turn(page, 'Hello there.', { text: 'Hello.' })
      await turn(page, 'Remember that the staging host is db-2.', { text: 'Noted.' })
      await until(
        async () => ((await api.ok('facts', { subject: 'staging' }))['facts'] as unknown[]).length === 1,
        'the rule capture',
      )
      const card = page.locator('[data-fm="turn-tail"]')
      await card.filter({ hasText: /this turn wrote 1 fact/u }).waitFor({ timeout: 20_000 })
      // The turn that captured nothing keeps the host's seat: one card in all.
      assert.equal(await card.count(), 1)
      await screenshot(page, 'turn-card-rule-capture')
      await card.getByRole('button', { name: 'View' }).click()
      await page
        .locator('[data-fm="drawer"]')
        .getByText(/staging · host: db-2/u)
        .waitFor()
      await closeClean(opened)
    } finally {
      await hostApi(host.url, 'settings.update', { ns: 'dsh-fact-memory', patch: { autoCapture: false } })
    }
  })
})

describe('the proposals digest', () => {
  it('opens with what arrived since the user last looked, and marks the queue seen only once the tab has been looked at', async () => {
    await converse(host.url, model, home.workspace, 'note the language', {
      toolCalls: [writeCall({ subject: 'orders-api', property: 'language', value: 'Go', evidence: 'inferred' })],
    })
    await api.ok('review-seen', {})
    const since = String(await reviewSeenAt())
    await converse(
      host.url,
      model,
      home.workspace,
      'note the rest',
      { toolCalls: [writeCall({ subject: 'frontend', property: 'framework', value: 'react', evidence: 'inferred' })] },
      { toolCalls: [writeCall({ subject: 'logging', property: 'level', value: 'debug', confidence: 0.2 })] },
    )
    const generation = await api.generation()

    const opened = await openInBrowserZone()
    const { page } = opened
    // A page open on another tab, or a glance at the queue shorter than a look, marks nothing.
    await openTab(opened, 'library')
    await page.locator('fm-page nav button[data-tab="proposals"]').click()
    const digest = page.locator('fm-proposals [data-fm="digest"]')
    await digest.waitFor({ timeout: 10_000 })
    await page.locator('fm-page nav button[data-tab="library"]').click()
    await page.waitForTimeout(3000)
    assert.equal(await reviewSeenAt(), since)

    await page.locator('fm-page nav button[data-tab="proposals"]').click()
    await digest
      .filter({ hasText: `2 new since ${formatInstant(since, STORE_ZONE).slice(11)} · 3 waiting` })
      .waitFor({ timeout: 10_000 })
    const cards = page.locator('fm-proposals [data-fm="proposal"]')
    assert.equal(await cards.count(), 3)
    assert.equal(await cards.filter({ has: page.locator('[data-fm="new"]') }).count(), 2)
    assert.equal(await cards.filter({ hasText: 'orders-api' }).locator('[data-fm="new"]').count(), 0)
    await screenshot(page, 'proposals-digest')

    await until(async () => (await reviewSeenAt()) !== since, 'the queue marked as seen after a look', 10_000)
    assert.equal(await api.generation(), generation)
    // The digest stays as it was for this visit; the next visit starts from this look.
    assert.match(await digest.innerText(), /^2 new since/u)
    await page.locator('fm-page nav button[data-tab="library"]').click()
    await page.locator('fm-page nav button[data-tab="proposals"]').click()
    await digest.filter({ hasText: /^Nothing new since \d\d:\d\d · 3 waiting/u }).waitFor()
    assert.equal(await page.locator('fm-proposals [data-fm="new"]').count(), 0)
    await screenshot(page, 'proposals-digest-seen')
    await closeClean(opened)
  })
})
