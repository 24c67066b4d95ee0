/**
 * Everything a page test needs, started together and stopped together: a fake model, a throwaway DSH home with a
 * workspace, a real web host with the plugin, the management API, and one Chromium.
 */
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { launchBrowser, type HostPage } from './browser.ts'
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

/** Start a page host, its web profile patched first when asked; a failure part-way stops what did start. */
export async function startPageHost(options: { readonly webPatch?: string } = {}): Promise<PageHost> {
  const model = await FakeModel.start()
  const home = createDshHome()
  if (options.webPatch !== undefined) home.writeProfilePatch('web', options.webPatch)
  let host: WebHost | undefined
  let browser: Browser | undefined
  const stop = async (): Promise<void> => {
    await browser?.close()
    await host?.stop()
    await model.close()
    home.remove()
  }
  try {
    host = await startWebHost(home, model.url)
    await hostApi(host.url, 'workspace.create', { path: home.workspace })
    browser = await launchBrowser()
    return { model, home, host, api: new FactMemoryApi(host.url), browser, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/**
 * Close a page's context and assert the browser logged no error while the test ran.
 * @param opened - the page.
 */
export async function closeClean(opened: HostPage): Promise<void> {
  await opened.context.close()
  assert.deepEqual(opened.errors, [], 'the browser logged errors')
}

