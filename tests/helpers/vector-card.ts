/**
 * The settings card's embedding surface as the vector page specs drive it: a web host booted with the plugin's
 * configuration in its profile patch and three facts written through the fake model, the card opened from Settings →
 * Plugins, its fields typed into, its counts line read, and screenshots as a person scrolls it.
 */
import { after, before } from 'node:test'
import type { Browser, Locator } from 'playwright-core'
import { launchBrowser, openHost, screenshot, type HostPage } from './browser.ts'
import { createDshHome, startWebHost, type DshHome, type WebHost } from './dsh-host.ts'
import { converse, hostApi, writeCall } from './fact-memory-web.ts'
import { FakeModel } from './fake-model.ts'
import { type FakeSemantic, startFakeSemantic } from './fake-semantic.ts'

/** What a vector page spec starts once: the fake model, the fake embedding endpoint and the browser. */
export interface VectorRig {
  readonly model: FakeModel
  readonly semantic: FakeSemantic
  readonly browser: Browser
}

/**
 * Start one rig for the calling spec file (before its first test) and stop it after its last.
 * @returns the rig, once started; it throws when called before the rig is up.
 */
export function useVectorRig(): () => VectorRig {
  let rig: VectorRig | undefined
  before(async () => {
    rig = { model: await FakeModel.start(), semantic: await startFakeSemantic(), browser: await launchBrowser() }
  })
  after(async () => {
    await stopVectorRig(rig)
  })
  return () => {
    if (rig === undefined) throw new Error('no rig')
    return rig
  }
}

/**
 * Stop what a rig started.
 * @param rig - the rig, if it started.
 */
export async function stopVectorRig(rig: VectorRig | undefined): Promise<void> {
  await rig?.browser.close()
  await rig?.semantic.close()
  await rig?.model.close()
}

/** A throwaway DSH home with its web host. */
export interface Store {
  readonly home: DshHome
  readonly host: WebHost
}

/**
 * Boot a web host whose profile patch sets the plugin's configuration, and write three facts through the fake
 * model: two the endpoint may embed and one sensitive fact it never sees (so never counted as waiting).
 * @param rig - the fake model (and the browser, endpoint) the host is started with.
 * @param config - the plugin's configuration lines.
 * @returns the home and the host.
 */
export async function startStore(rig: VectorRig, config: Readonly<Record<string, string | number>>): Promise<Store> {
  const { model } = rig
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

export async function stopStore(store: Store | undefined): Promise<void> {
  await store?.host.stop()
  store?.home.remove()
}

/** Open Settings → Plugins and wait for the card's counts. */
export async function openCard(
  rig: VectorRig | undefined,
  store: Store | undefined,
  colorScheme: 'light' | 'dark',
): Promise<{ opened: HostPage; card: Locator }> {
  if (rig === undefined || store === undefined) throw new Error('no host')
  const opened = await openHost(rig.browser, store.host.url, { width: 1440, height: 900 }, colorScheme)
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
export async function shoot(card: Locator, name: string): Promise<void> {
  await card.locator('[data-fm="card-counts"]').scrollIntoViewIfNeeded()
  await screenshot(card.page(), `${name}-counts`)
  await card.locator('[data-field="embeddingSource"]').scrollIntoViewIfNeeded()
  await screenshot(card.page(), `${name}-embedding-keys`)
  await card.locator('[data-fm="card-status"]').scrollIntoViewIfNeeded()
  await screenshot(card.page(), `${name}-maintenance`)
}

/** Type into one of the card's text fields; the card takes the value on change. */
export async function enter(card: Locator, key: string, value: string): Promise<void> {
  const input = card.locator(`#fm-setting-${key}`)
  await input.fill(value)
  await input.dispatchEvent('change')
}

export const WAITING =
  '3 current facts · 0 pending proposals · 0 open conflicts · 0 facts with current vectors (2 waiting)'

/** The counts line's parts, each on one line: it wraps between them, never inside one. */
export async function lineBoxes(counts: Locator): Promise<number[]> {
  return counts
    .locator('.count')
    .evaluateAll((parts) =>
      parts.map((part) => (part as unknown as { getClientRects(): { length: number } }).getClientRects().length),
    )
}
