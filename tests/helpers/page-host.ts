/**
 * Everything a page test needs, started together and stopped together: a fake model, a throwaway DSH home with a
 * workspace, a real web host with the plugin, the management API, and one Chromium; or all but the browser, for a
 * spec that speaks to the API alone.
 */
import assert from 'node:assert/strict'
import { after, before } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { Database } from '../../src/store/database.ts'
import { createStoreSet, type StoreSet } from '../../src/store/store-set.ts'
import { launchBrowser, openHost, type HostPage } from './browser.ts'
import { createDshHome, startWebHost, type DshHome, type WebHost } from './dsh-host.ts'
import { FactMemoryApi, hostApi } from './fact-memory-web.ts'
import { FakeModel } from './fake-model.ts'

export { until } from './poll.ts'

/** A running host with its browser. */
export interface PageHost {
  readonly model: FakeModel
  readonly home: DshHome
  readonly host: WebHost
  readonly api: FactMemoryApi
  readonly browser: Browser
  /** Stop the browser, the host and the model, and remove the home. */
  stop(): Promise<void>
}

/** A running host without a browser, for specs that speak to its API alone. */
export type ApiHost = Omit<PageHost, 'browser'>

/**
 * Start a fake model, a throwaway home and a web host with the plugin, its web profile patched first when asked; a
 * failure part-way stops what did start.
 */
export async function startApiHost(options: { readonly webPatch?: string } = {}): Promise<ApiHost> {
  const model = await FakeModel.start()
  const home = createDshHome()
  if (options.webPatch !== undefined) home.writeProfilePatch('web', options.webPatch)
  let host: WebHost | undefined
  const stop = async (): Promise<void> => {
    await host?.stop()
    await model.close()
    home.remove()
  }
  try {
    host = await startWebHost(home, model.url)
    return { model, home, host, api: new FactMemoryApi(host.url), stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/** Start a page host: an API host with a workspace, and one Chromium; a failure part-way stops what did start. */
export async function startPageHost(options: { readonly webPatch?: string } = {}): Promise<PageHost> {
  const started = await startApiHost(options)
  let browser: Browser | undefined
  const stop = async (): Promise<void> => {
    await browser?.close()
    await started.stop()
  }
  try {
    await hostApi(started.host.url, 'workspace.create', { path: started.home.workspace })
    browser = await launchBrowser()
    return { ...started, browser, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/**
 * Start one page host for the calling spec file before its first test, hand it to `prepare` (to keep its parts and
 * seed it), and stop it after the file's last test.
 * @param prepare - what the spec does with the host once it runs.
 * @param options - the web profile patch, as for startPageHost.
 */
export function usePageHost(
  prepare: (env: PageHost) => Promise<void> | void,
  options: { readonly webPatch?: string } = {},
): void {
  let env: PageHost | undefined
  before(async () => {
    env = await startPageHost(options)
    await prepare(env)
  })
  after(async () => {
    await env?.stop()
  })
}

/** A page host with the host's own store file also open here, for specs that seed through the store's write path. */
export interface StoreHost extends PageHost {
  readonly stores: StoreSet
}

/**
 * Start a page host and open its store file in this process (the plugin and the spec share it, as two processes
 * share a store); stopping closes the file first.
 */
export async function startStoreHost(options: { readonly webPatch?: string } = {}): Promise<StoreHost> {
  const env = await startPageHost(options)
  try {
    const dataDir = String((await env.api.ok('status', {}))['dataDir'])
    const db = Database.open({ dataDir, now: () => new Date().toISOString() })
    const stop = async (): Promise<void> => {
      db.close()
      await env.stop()
    }
    return { ...env, stores: createStoreSet(db, dataDir), stop }
  } catch (error) {
    await env.stop()
    throw error
  }
}

/**
 * Close a page and assert the browser logged no error while the test ran.
 * @param opened - the page.
 */
export async function closeClean(opened: HostPage): Promise<void> {
  await opened.close()
  assertClean(opened)
}

/**
 * Assert the browser logged no error on a page that stays open (a page several tests share), and start its log
 * afresh for the next test.
 * @param opened - the page.
 */
export function assertClean(opened: HostPage): void {
  const errors = opened.errors.splice(0)
  assert.deepEqual(errors, [], 'the browser logged errors')
}

/**
 * Store lines as a user's file would be: the page's own import, previewed and then committed.
 * @param api - the host's management API.
 * @param lines - one fact record a line.
 */
export async function importLines(api: FactMemoryApi, lines: readonly object[]): Promise<void> {
  const content = `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`
  const preview = await api.ok('import', { mode: 'preview', content })
  await api.ok('import', {
    mode: 'commit',
    content,
    token: String(preview['token']),
    expectedGeneration: await api.generation(),
    operationId: api.op('seed'),
  })
}

/** How a page is opened: its size and colour scheme. */
interface PageLook {
  readonly viewport?: { readonly width: number; readonly height: number }
  readonly colorScheme?: 'light' | 'dark'
}

/**
 * Open the host in a fresh page, then the Fact memory page from the sidebar entry (on whichever tab it opens on).
 * @param env - the running page host.
 * @param look - size (1440×960 by default) and scheme (light by default).
 * @returns the page.
 */
export async function openFactPage(env: Pick<PageHost, 'browser' | 'host'>, look: PageLook = {}): Promise<HostPage> {
  const opened = await openHost(
    env.browser,
    env.host.url,
    { ...(look.viewport ?? { width: 1440, height: 960 }) },
    look.colorScheme ?? 'light',
  )
  await opened.page.locator('[data-fm="sidebar-entry"]').click()
  await opened.page.locator('fm-page').waitFor()
  return opened
}

/**
 * Switch the open page's tab.
 * @param page - the page, with the Fact memory page open.
 * @param name - the tab's data-tab name.
 */
export async function openTabOf(page: Page, name: string): Promise<void> {
  await page.locator(`fm-page nav button[data-tab="${name}"]`).click()
}

/**
 * Open the host in a fresh page straight on one tab of the Fact memory page, through the page's link
 * (`#fact-memory/<tab>`, client/page-link.ts): no other tab is drawn first, the nebula included.
 * @param env - the running page host.
 * @param tab - the tab's data-tab name.
 * @param look - size (1440×960 by default) and scheme (light by default).
 * @returns the page, with the tab shown.
 */
export async function openOnTab(
  env: Pick<PageHost, 'browser' | 'host'>,
  tab: string,
  look: PageLook = {},
): Promise<HostPage> {
  const opened = await openHost(
    env.browser,
    `${env.host.url}#fact-memory/${tab}`,
    { ...(look.viewport ?? { width: 1440, height: 960 }) },
    look.colorScheme ?? 'light',
  )
  await opened.page.locator(`fm-page nav button[data-tab="${tab}"][aria-selected="true"]`).waitFor()
  return opened
}

/**
 * Open the host in a fresh page straight on the Fact memory page's library, once its list is drawn.
 * @param env - the running page host.
 * @param look - size (1440×960 by default) and scheme (light by default).
 * @returns the page.
 */
export async function openLibrary(env: Pick<PageHost, 'browser' | 'host'>, look: PageLook = {}): Promise<HostPage> {
  const opened = await openOnTab(env, 'library', look)
  await opened.page.locator('fm-library [data-fm="fact-list"]').waitFor()
  return opened
}

/**
 * Open the host in a fresh page, then the Fact memory page, which opens on the nebula, once its canvas is there.
 * @param env - the running page host.
 * @param look - size (1440×900 by default) and scheme (light by default).
 * @returns the page.
 */
export async function openNebula(env: Pick<PageHost, 'browser' | 'host'>, look: PageLook = {}): Promise<HostPage> {
  const opened = await openHost(
    env.browser,
    env.host.url,
    { ...(look.viewport ?? { width: 1440, height: 900 }) },
    look.colorScheme ?? 'light',
  )
  await opened.page.locator('[data-fm="sidebar-entry"]').click()
  await opened.page.locator('fm-graph [data-fm="nebula"] canvas').waitFor()
  return opened
}
