/**
 * A real Chromium (Debian's package, or FACT_MEMORY_CHROMIUM) driven by playwright-core, opened on a booted DSH web
 * host. Console errors and page errors are collected so a test can assert the page ran clean.
 */
import assert from 'node:assert/strict'
import { existsSync, mkdirSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Download, type Locator, type Page } from 'playwright-core'
import { atBundleEnd, inBundle } from './bundle-state.ts'
import { REPO_ROOT } from './dsh-host.ts'
import { patient } from './poll.ts'
import { type ScriptCacheProxy, startScriptCacheProxy } from './script-cache-proxy.ts'

/** Where tests leave their screenshots for a person to look at. */
export const ARTIFACTS = join(REPO_ROOT, 'test-artifacts')

/**
 * Debian's Chromium binary itself. /usr/bin/chromium is a shell wrapper that adds the distribution's flags, among them
 * --enable-gpu-rasterization, which on a machine without a GPU sends the pages' raster work to SwiftShader; started
 * directly, with this file's flags alone, the same pages cost about a tenth less CPU (measured for issue 33).
 */
const DEBIAN_CHROMIUM = '/usr/lib/chromium/chromium'

/** The Chromium binary, or a clear error naming how to get one. */
export function chromiumPath(): string {
  const candidates = [
    process.env['FACT_MEMORY_CHROMIUM'],
    DEBIAN_CHROMIUM,
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
  ].filter((path): path is string => path !== undefined && path !== '')
  const found = candidates.find((path) => existsSync(path))
  if (found === undefined)
    throw new Error("no Chromium found: install Debian's `chromium` package (.ci/run does) or set FACT_MEMORY_CHROMIUM")
  return found
}

/** Launch options for a headless, quiet Chromium. */
export interface LaunchOptions {
  /** Switch WebGL off, to exercise the graph's SVG fallback. */
  readonly webgl?: boolean
}

/** Where a shared Chromium listens (see tests/helpers/browser-server.ts); npm test sets it for its browser tier. */
export const SHARED_BROWSER_VARIABLE = 'FACT_MEMORY_BROWSER_WS'

/**
 * The command line of a headless, quiet Chromium.
 * @param options - see LaunchOptions.
 * @returns its arguments.
 */
export function browserArgs(options: LaunchOptions = {}): string[] {
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-dev-shm-usage',
  ]
  // SwiftShader gives headless Chromium a software WebGL; --disable-3d-apis takes WebGL away entirely.
  args.push(options.webgl === false ? '--disable-3d-apis' : '--enable-unsafe-swiftshader', '--use-angle=swiftshader')
  // The page itself is composited in software: compositing through SwiftShader's emulated GPU cost a third more CPU
  // per page for the same pixels (measured for issue 33), and WebGL canvases still draw through SwiftShader.
  args.push('--disable-gpu-compositing')
  return args
}

/** In a bundle, the one connection to the shared Chromium. */
let bundleConnection: Promise<Browser> | undefined

/**
 * Launch Chromium, or connect to the shared one when the run started it (WebGL on): each spec file's pages still
 * live in their own browser contexts, which share no storage, and closing the connection closes them. In a bundle
 * every file gets the same connection, and its close leaves it open: the next file opens its pages in the contexts
 * the last one kept (a fresh context and connection cost about 2.5 CPU-s more than a kept one on a new host,
 * measured for issue 33), and the bundle ends it once its last file has run.
 * @param options - see LaunchOptions.
 * @returns the browser.
 */
export async function launchBrowser(options: LaunchOptions = {}): Promise<Browser> {
  const shared = process.env[SHARED_BROWSER_VARIABLE]
  if (shared !== undefined && shared !== '' && options.webgl !== false) {
    if (!inBundle()) return chromium.connect(shared)
    bundleConnection ??= connectForBundle(shared)
    return bundleConnection
  }
  return chromium.launch({ executablePath: chromiumPath(), args: browserArgs(options) })
}

/**
 * Connect once for the whole bundle: a file's close of this browser keeps the connection, which the bundle's end
 * closes, and with it every context it kept.
 */
async function connectForBundle(endpoint: string): Promise<Browser> {
  const browser = await chromium.connect(endpoint)
  atBundleEnd(browser.close.bind(browser))
  browser.close = async () => undefined
  return browser
}

/** A page on the host with its collected errors. */
export interface HostPage {
  readonly page: Page
  /** Console errors and uncaught page errors, in order. */
  readonly errors: string[]
  /**
   * Close the page as a test sees it: its document is gone (its storage cleared, its routes and a test's listeners
   * removed), and its browser context waits for the next {@link openHost} on this connection (the spec file's, or in
   * a bundle a later file's), which loads the host into it afresh. A fresh context costs about 3 s and 6 CPU-s of a
   * shared two-core machine, a load in a kept one 1.4 s and 2.4 CPU-s (measured for issue 33); the connection's end
   * closes it.
   */
  close(): Promise<void>
}

/** A browser context kept with its one page, and where that page's errors are collected now. */
interface KeptPage {
  readonly context: BrowserContext
  readonly page: Page
  errors: string[]
  /** Whether a test holds it (between its open and its close). */
  held: boolean
}

/** The pages each browser connection keeps for its next open, by time zone (a context's zone is fixed). */
const keptPages = new WeakMap<Browser, Map<string, KeptPage[]>>()

/** The events a test may listen to on a page; their listeners go when it closes (the collector's stay). */
const TEST_EVENTS = ['request', 'response', 'requestfinished', 'requestfailed', 'dialog', 'download', 'popup'] as const

/**
 * A new context with its one page, collecting console and page errors into whichever log is current, and getting
 * past the host's first-run notice.
 */
async function newKeptPage(browser: Browser, timezoneId: string | undefined): Promise<KeptPage> {
  const context = await browser.newContext(timezoneId === undefined ? {} : { timezoneId })
  // Playwright's own waits (30 s by default) get the suite's patience too.
  context.setDefaultTimeout(patient(30_000))
  const page = await context.newPage()
  const kept: KeptPage = { context, page, errors: [], held: false }
  page.on('console', (message) => {
    if (message.type() === 'error') kept.errors.push(message.text())
  })
  page.on('pageerror', (error) => {
    kept.errors.push(`pageerror: ${error.message}`)
  })
  // The host's internal-testing notice makes the rest of the page inert until acknowledged. A throwaway home starts
  // with it acknowledged (scripts/dsh-profile.ts), so it does not show; should it show anyway (a home made another
  // way, another host version), every action first acknowledges it.
  const notice = page
    .getByRole('dialog')
    .getByRole('button', { name: /^(Continue|继续)$/u })
    .first()
  await page.addLocatorHandler(notice, async (button) => {
    await button.click()
  })
  return kept
}

/** Leave a kept page blank and clean, as a fresh context would start: no document, storage, cookies or routes. */
async function release(kept: KeptPage): Promise<void> {
  const { page, context } = kept
  kept.errors = []
  if (!page.isClosed()) {
    await page.unrouteAll({ behavior: 'ignoreErrors' })
    for (const event of TEST_EVENTS) page.removeAllListeners(event)
    await page
      .evaluate(() => {
        localStorage.clear()
        sessionStorage.clear()
      })
      .catch(() => undefined)
    await page.goto('about:blank')
  }
  await context.clearCookies()
  await context.clearPermissions()
  kept.held = false
}

/**
 * Open the host's web UI on a page of its own and get past the first-run notice: in a context the spec file's
 * browser kept from a closed page (see {@link HostPage.close}), or in a fresh one.
 * @param browser - a launched browser.
 * @param url - the host's base URL, with a hash when the test opens a link (see client/page-link.ts).
 * @param viewport - the window size.
 * @param colorScheme - the preferred colour scheme.
 * @param timezoneId - the browser's own time zone (IANA); the machine's by default.
 * @returns the page and its error log.
 */
export async function openHost(
  browser: Browser,
  url: string,
  viewport = { width: 1440, height: 960 },
  colorScheme: 'light' | 'dark' = 'light',
  timezoneId?: string,
): Promise<HostPage> {
  const zones = keptPages.get(browser) ?? new Map<string, KeptPage[]>()
  keptPages.set(browser, zones)
  const zone = timezoneId ?? ''
  const pages = zones.get(zone) ?? []
  zones.set(zone, pages)
  let kept = pages.find((candidate) => !candidate.held && !candidate.page.isClosed())
  if (kept === undefined) {
    kept = await newKeptPage(browser, timezoneId)
    pages.push(kept)
  }
  kept.held = true
  const { page } = kept
  await page.setViewportSize(viewport)
  await page.emulateMedia({ colorScheme, reducedMotion: null, media: null })
  const errors: string[] = []
  kept.errors = errors
  await page.goto(await throughScriptCache(browser, url), { waitUntil: 'domcontentloaded' })
  await page
    .locator('[data-fm="sidebar-entry"]')
    .first()
    .waitFor({ state: 'attached', timeout: patient(30_000) })
  const held = kept
  return { page, errors, close: () => release(held) }
}

/** Per connection, the script cache proxies its pages opened hosts through (see script-cache-proxy.ts). */
const scriptCaches = new WeakMap<Browser, { proxies: ScriptCacheProxy[]; turn: Promise<unknown> }>()

/**
 * The URL that opens a host's page through a script cache proxy of the connection: the one passing to that host, else
 * one whose host has stopped, passing to this one from now on (a spec file's hosts one after another, and in a bundle
 * every file's, so share one origin and one cache), else a new one. The connection's end stops them.
 */
function throughScriptCache(browser: Browser, url: string): Promise<string> {
  let caches = scriptCaches.get(browser)
  if (caches === undefined) {
    const proxies: ScriptCacheProxy[] = []
    caches = { proxies, turn: Promise.resolve() }
    scriptCaches.set(browser, caches)
    browser.once('disconnected', () => {
      for (const proxy of proxies) void proxy.close()
    })
  }
  const { proxies } = caches
  const { origin } = new URL(url)
  // One choice at a time, so two pages opened at once never take the same stopped host's proxy.
  const chosen = caches.turn.then(async () => {
    let proxy = proxies.find((candidate) => candidate.origin() === origin)
    for (const candidate of proxy === undefined ? proxies : []) {
      if (await answers(candidate.origin())) continue
      candidate.retarget(origin)
      proxy = candidate
      break
    }
    if (proxy === undefined) {
      proxy = await startScriptCacheProxy(origin)
      proxies.push(proxy)
    }
    return proxy.url(url)
  })
  caches.turn = chosen.catch(() => undefined)
  return chosen
}

/** Whether something still accepts connections at an origin (a stopped host's port refuses them). */
function answers(origin: string): Promise<boolean> {
  const { hostname, port } = new URL(origin)
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname)
    socket.setTimeout(1_000)
    const settle = (open: boolean) => {
      socket.destroy()
      resolve(open)
    }
    socket.once('connect', () => settle(true))
    socket.once('error', () => settle(false))
    socket.once('timeout', () => settle(false))
  })
}

/**
 * Open the host's Settings, then its Plugins section, where the plugin's settings card is drawn.
 * @param page - a page of the host, past its first-run notice.
 * @returns the card (`fm-settings-card`), attached.
 */
export async function openPluginCard(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Settings' }).first().click()
  await page
    .getByText(/^Plugins$/u)
    .first()
    .click()
  const card = page.locator('fm-settings-card')
  await card.waitFor({ state: 'attached' })
  return card
}

/**
 * The bytes of a finished download, streamed from the browser: works on a shared browser too, where the file is on
 * the browser's side and has no local path.
 * @param download - the download.
 * @returns its bytes.
 */
export async function downloadBytes(download: Download): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** Whether this run keeps screenshots: asked for with FACT_MEMORY_SCREENSHOTS=1 (nothing checks them; a person looks). */
const SCREENSHOTS = process.env['FACT_MEMORY_SCREENSHOTS'] === '1'

/**
 * Save a screenshot under test-artifacts/, when the run asks for screenshots (FACT_MEMORY_SCREENSHOTS=1).
 * @param page - the page.
 * @param name - the file name without extension.
 * @param settleMs - how long to let an animation (the nebula's layout) run first; waited only when a shot is taken.
 * @returns the file's path, or '' when none was taken.
 */
export async function screenshot(page: Page, name: string, settleMs = 0): Promise<string> {
  if (!SCREENSHOTS) return ''
  if (settleMs > 0) await page.waitForTimeout(settleMs)
  mkdirSync(ARTIFACTS, { recursive: true })
  const path = join(ARTIFACTS, `${name}.png`)
  await page.screenshot({ path })
  return path
}

/**
 * Assert a button draws its symbol as an SVG icon (no text glyph a font may lack) and offers a hit area of at least
 * 24×24 CSS pixels.
 * @param button - the button.
 * @param what - its name in the failure message.
 */
export async function assertIconButton(button: Locator, what: string): Promise<void> {
  const icon = button.locator('svg').first()
  await icon.waitFor()
  const drawn = await icon.boundingBox()
  assert.ok(
    drawn !== null && drawn.width >= 12 && drawn.height >= 12,
    `${what}: the icon is drawn ${JSON.stringify(drawn)}`,
  )
  const glyphs = (await button.innerText()).replace(/[\p{L}\p{N}\s]/gu, '')
  assert.equal(glyphs, '', `${what}: the button draws symbols as text`)
  const box = await button.boundingBox()
  assert.ok(
    box !== null && box.width >= 24 && box.height >= 24,
    `${what}: the hit area is ${box?.width}×${box?.height}`,
  )
}
