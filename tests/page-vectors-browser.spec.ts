/**
 * The settings card's embedding surface in Debian's Chromium against real DSH rc.8 web hosts: without an embedding
 * model there is no "Rebuild vectors" and no vector count; once one is configured (in the profile patch, or in the
 * card's own fields and saved) the button appears and the counts say how many facts have current vectors and how
 * many wait; the button sweeps them and the status line says what it did. The embedding endpoint is the local fake;
 * `vectorIndexIntervalMs: 0` keeps the timed and asked-for sweeps out of the way, so only the button sweeps.
 * Screenshots of the card (light and dark) land in test-artifacts/.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Locator } from 'playwright-core'
import { launchBrowser, openHost, screenshot, type HostPage } from './helpers/browser.ts'
import { createDshHome, startWebHost, type DshHome, type WebHost } from './helpers/dsh-host.ts'
import { converse, hostApi, writeCall } from './helpers/fact-memory-web.ts'
import { FakeModel } from './helpers/fake-model.ts'
import { startFakeSemantic, type FakeSemantic } from './helpers/fake-semantic.ts'
import { closeClean } from './helpers/page-host.ts'

let model: FakeModel | undefined
let semantic: FakeSemantic | undefined
let browser: Browser | undefined

before(async () => {
  model = await FakeModel.start()
  semantic = await startFakeSemantic()
  browser = await launchBrowser()
})

after(async () => {
  await browser?.close()
  await semantic?.close()
  await model?.close()
})

/** A throwaway DSH home with its web host. */
interface Store {
  readonly home: DshHome
  readonly host: WebHost
}

/**
 * Boot a web host whose profile patch sets the plugin's configuration, and write three facts through the fake
 * model: two the endpoint may embed and one sensitive fact it never sees (so never counted as waiting).
 * @param config - the plugin's configuration lines.
 * @returns the home and the host.
 */
async function startStore(config: Readonly<Record<string, string | number>>): Promise<Store> {
  if (model === undefined) throw new Error('no model')
  const home = createDshHome()
  home.writeProfilePatch(
    'web',
    `- id: dsh-fact-memory\n  config:\n${Object.entries(config)
      .map(([key, value]) => `    ${key}: ${JSON.stringify(value)}\n`)
      .join('')}`,
  )
  const host = await startWebHost(home, model.url)
  await hostApi(host.url, 'workspace.create', { path: home.workspace })
  await converse(
    host.url,
    model,
    home.workspace,
    'billing-api runs on port 7801; checkout-web depends on it; ops mail ops-oncall@example.com',
    {
      toolCalls: [
        writeCall({
          subject: 'billing-api',
          property: 'port',
          value: '7801',
          evidence: 'explicit_user',
          quote: 'billing-api runs on port 7801',
        }),
        writeCall({
          subject: 'checkout-web',
          property: 'depends on',
          value: 'billing-api',
          evidence: 'explicit_user',
          quote: 'checkout-web depends on it',
        }),
        writeCall({
          subject: 'ops team',
          property: 'email',
          value: 'ops-oncall@example.com',
          evidence: 'explicit_user',
        }),
      ],
    },
  )
  return { home, host }
}

async function stopStore(store: Store | undefined): Promise<void> {
  await store?.host.stop()
  store?.home.remove()
}

/** Open Settings → Plugins and wait for the card's counts. */
async function openCard(
  store: Store | undefined,
  colorScheme: 'light' | 'dark',
): Promise<{ opened: HostPage; card: Locator }> {
  if (browser === undefined || store === undefined) throw new Error('no host')
  const opened = await openHost(browser, store.host.url, { width: 1440, height: 900 }, colorScheme)
  await opened.page.getByRole('button', { name: 'Settings' }).first().click()
  await opened.page
    .getByText(/^Plugins$/u)
    .first()
    .click()
  const card = opened.page.locator('fm-settings-card')
  await card
    .locator('[data-fm="card-counts"]')
    .filter({ hasText: /current facts/u })
    .waitFor()
  return { opened, card }
}

/**
 * Screenshot the settings dialog three times, as a person scrolls it: at the card's counts, at the embedding keys,
 * and at the maintenance buttons with the status line.
 */
async function shoot(card: Locator, name: string): Promise<void> {
  await card.locator('[data-fm="card-counts"]').scrollIntoViewIfNeeded()
  await screenshot(card.page(), `${name}-counts`)
  await card.locator('[data-field="embeddingSource"]').scrollIntoViewIfNeeded()
  await screenshot(card.page(), `${name}-embedding-keys`)
  await card.locator('[data-fm="card-status"]').scrollIntoViewIfNeeded()
  await screenshot(card.page(), `${name}-maintenance`)
}

/** Type into one of the card's text fields; the card takes the value on change. */
async function enter(card: Locator, key: string, value: string): Promise<void> {
  const input = card.locator(`#fm-setting-${key}`)
  await input.fill(value)
  await input.dispatchEvent('change')
}

const WAITING = '3 current facts · 0 pending proposals · 0 open conflicts · 0 facts with current vectors (2 waiting)'

/** The counts line's parts, each on one line: it wraps between them, never inside one. */
async function lineBoxes(counts: Locator): Promise<number[]> {
  return counts
    .locator('.count')
    .evaluateAll((parts) =>
      parts.map((part) => (part as unknown as { getClientRects(): { length: number } }).getClientRects().length),
    )
}

describe('Rebuild vectors on the settings card, configured in the profile', () => {
  let store: Store | undefined
  before(async () => {
    if (semantic === undefined) throw new Error('no endpoint')
    store = await startStore({
      embeddingSource: 'openai',
      embeddingBaseUrl: `${semantic.url}/v1`,
      embeddingModel: 'fake-embed-1',
      vectorIndexIntervalMs: 0,
    })
  })
  after(async () => {
    await stopStore(store)
  })

  it('the counts say how many facts wait for a vector, and Rebuild vectors gives them one and says so', async () => {
    if (semantic === undefined) throw new Error('no endpoint')
    assert.equal(semantic.requests.length, 0, 'with the interval at 0 nothing sweeps before the button')
    const { opened, card } = await openCard(store, 'light')
    const counts = card.locator('[data-fm="card-counts"]')
    await counts.filter({ hasText: /current vectors/u }).waitFor()
    assert.equal(await counts.innerText(), WAITING)
    assert.deepEqual(await lineBoxes(counts), [1, 1, 1, 1])
    const rebuild = card.locator('[data-fm="index-vectors"]')
    assert.equal(await rebuild.innerText(), 'Rebuild vectors')
    await shoot(card, 'settings-card-vectors-waiting-light')

    await rebuild.click()
    const status = card.locator('[data-fm="card-status"]')
    await status.filter({ hasText: /^Vectors:/u }).waitFor()
    assert.equal(await status.innerText(), 'Vectors: 2 facts embedded. 2 facts now have current vectors.')
    await counts.filter({ hasText: /· 2 facts with current vectors$/u }).waitFor()
    const sent = semantic.sentTexts().join('\n')
    assert.match(sent, /billing-api · port: 7801/u)
    assert.doesNotMatch(sent, /ops-oncall@example\.com/u)
    await shoot(card, 'settings-card-vectors-rebuilt-light')
    await closeClean(opened)

    const dark = await openCard(store, 'dark')
    await dark.card
      .locator('[data-fm="card-counts"]')
      .filter({ hasText: /· 2 facts with current vectors$/u })
      .waitFor()
    await dark.card.locator('[data-fm="index-vectors"]').waitFor()
    await shoot(dark.card, 'settings-card-vectors-dark')
    await dark.card.locator('summary', { hasText: /^Advanced$/u }).click()
    await dark.card.locator('[data-field="vectorIndexIntervalMs"]').scrollIntoViewIfNeeded()
    await screenshot(dark.opened.page, 'settings-card-vectors-dark-advanced')
    await closeClean(dark.opened)
  })
  it('a failing endpoint: Rebuild vectors says why it stopped and the counts name the failed sweep', async () => {
    if (semantic === undefined || store === undefined || model === undefined) throw new Error('no endpoint')
    await converse(store.host.url, model, store.home.workspace, 'remember the pet', {
      toolCalls: [
        writeCall({ subject: 'user', property: 'pet', value: 'a dog named Miso', evidence: 'explicit_user' }),
      ],
    })
    semantic.script.embedStatus = 503
    semantic.script.errorBody = 'upstream overloaded'
    const { opened, card } = await openCard(store, 'light')
    await card.locator('[data-fm="index-vectors"]').click()
    const status = card.locator('[data-fm="card-status"]')
    await status.filter({ hasText: /vector sweep stopped/u }).waitFor()
    assert.match(await status.innerText(), /503/u)
    await card
      .locator('[data-fm="vector-sweep-error"]')
      .filter({ hasText: /^The last vector sweep stopped: .*503/u })
      .waitFor()
    assert.match(
      await card.locator('[data-fm="card-counts"]').innerText(),
      /2 facts with current vectors \(1 waiting\)$/u,
    )
    const fits = await card.locator('[data-fm="vector-sweep-error"]').evaluate((element) => {
      const box = (element as unknown as { getBoundingClientRect(): { right: number } }).getBoundingClientRect()
      const host = (element as unknown as { getRootNode(): { host: { getBoundingClientRect(): { right: number } } } })
        .getRootNode()
        .host.getBoundingClientRect()
      return box.right <= host.right
    })
    assert.ok(fits, 'the reason wraps inside the card')
    await shoot(card, 'settings-card-vectors-failed-light')
    semantic.script.embedStatus = undefined
    semantic.script.errorBody = undefined
    await opened.context.close()
    // The refused verb is the one error the browser may log: its 409 answer.
    assert.deepEqual(opened.errors, ['Failed to load resource: the server responded with a status of 409 (Conflict)'])
  })
})

describe('Rebuild vectors on the settings card, configured on the card', () => {
  let store: Store | undefined
  before(async () => {
    semantic?.reset()
    store = await startStore({ vectorIndexIntervalMs: 0 })
  })
  after(async () => {
    await stopStore(store)
  })

  it('without an embedding model there is no Rebuild vectors and no vector count', async () => {
    const { opened, card } = await openCard(store, 'light')
    assert.equal(
      await card.locator('[data-fm="card-counts"]').innerText(),
      '3 current facts · 0 pending proposals · 0 open conflicts',
    )
    assert.equal(await card.locator('[data-fm="index-vectors"]').count(), 0)
    assert.equal(await card.getByRole('button', { name: 'Rebuild vectors' }).count(), 0)
    // A source alone, without a URL and a model, configures nothing: still no button.
    await card.locator('#fm-setting-embeddingSource').selectOption('openai')
    await card.locator('[data-fm="card-save"]').first().getByRole('button', { name: 'Save' }).click()
    await card.locator('[data-fm="card-status"]').filter({ hasText: 'Saved Embedding source' }).waitFor()
    assert.equal(await card.locator('[data-fm="index-vectors"]').count(), 0)
    assert.doesNotMatch(await card.locator('[data-fm="card-counts"]').innerText(), /vector/u)
    await shoot(card, 'settings-card-no-embeddings-light')
    assert.equal(semantic?.requests.length, 0, 'nothing was sent to the embedding endpoint')
    await closeClean(opened)
  })

  it('saving a base URL and a model brings Rebuild vectors and the vector count at once', async () => {
    if (semantic === undefined) throw new Error('no endpoint')
    const { opened, card } = await openCard(store, 'light')
    await enter(card, 'embeddingBaseUrl', `${semantic.url}/v1`)
    await enter(card, 'embeddingModel', 'fake-embed-1')
    await card.locator('[data-fm="card-save"]').first().getByRole('button', { name: 'Save' }).click()
    await card
      .locator('[data-fm="card-status"]')
      .filter({ hasText: /^Saved Embedding base URL, Embedding model$/u })
      .waitFor()
    const counts = card.locator('[data-fm="card-counts"]')
    await counts.filter({ hasText: /current vectors/u }).waitFor()
    assert.equal(await counts.innerText(), WAITING)
    await card.locator('[data-fm="index-vectors"]').click()
    await card
      .locator('[data-fm="card-status"]')
      .filter({ hasText: 'Vectors: 2 facts embedded. 2 facts now have current vectors.' })
      .waitFor()
    await counts.filter({ hasText: /· 2 facts with current vectors$/u }).waitFor()
    await closeClean(opened)
  })
})
