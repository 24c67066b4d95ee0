/**
 * The page's rough edges (issue 19), in Debian's Chromium against a real DSH rc.8 web host: primary buttons keep
 * their contrast under the mouse in both themes, every pending card is reachable, the library filters as the user
 * types and offers what memory_search finds for a question, editing a contested value names its rival, the header
 * and the detail pane follow an edit and its undo, a conflict side dates itself by its observation, and Esc clears
 * the selection before it closes the page. Facts are written through the store's own write path on the host's
 * store file; screenshots land in test-artifacts/.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Locator, Page } from 'playwright-core'
import { prepareWrite } from '../src/fact-input.ts'
import type { StoreSet } from '../src/store/store-set.ts'
import type { Evidence, Fact } from '../src/types.ts'
import { openHost, screenshot, type HostPage } from './helpers/browser.ts'
import type { WebHost } from './helpers/dsh-host.ts'
import type { FactMemoryApi } from './helpers/fact-memory-web.ts'
import { closeClean, startStoreHost, until, type StoreHost, openOnTab } from './helpers/page-host.ts'

let env: StoreHost | undefined
let host: WebHost
let browser: Browser
let api: FactMemoryApi
let stores: StoreSet

before(async () => {
  env = await startStoreHost()
  ;({ host, browser, api, stores } = env)
})

after(async () => {
  await env?.stop()
})

/** Write one fact into the host's store file, as the plugin would; an inferred one queues a card instead. */
function write(
  subject: string,
  property: string,
  value: string,
  evidence: Evidence | 'inferred' = 'observed',
): Fact | undefined {
  const now = new Date().toISOString()
  const claim = evidence === 'inferred' ? { evidence: 'observed' as const, inferred: true } : { evidence }
  const prepared = prepareWrite({ subject, property, value, ...claim, origin: 'tool' }, now, {
    refuseCredentials: true,
    timeZone: 'UTC',
  })
  if (!prepared.ok) throw new Error(prepared.message)
  const written = stores.facts.write(prepared.write, now)
  if (written.kind === 'refused') throw new Error(written.message)
  return written.kind === 'proposed' ? undefined : written.fact
}

/** A conflict of two values in one slot, each observed on a past day (as an import restores them). */
function conflict(
  subject: string,
  first: string,
  second: string,
  observed: readonly [string, string],
): readonly [Fact, Fact] {
  const a = write(subject, 'port', first, 'explicit_user')
  const b = write(subject, 'port', second, 'unverified')
  assert.ok(a !== undefined && b !== undefined && b.status === 'conflict', 'a conflict was opened')
  stores.exchange.restoreTimes(a.id, observed[0], observed[0])
  stores.exchange.restoreTimes(b.id, observed[1], observed[1])
  return [a, b]
}

async function openTab(
  tab: string,
  viewport?: { width: number; height: number },
  colorScheme: 'light' | 'dark' = 'light',
): Promise<HostPage> {
  return openOnTab({ browser, host }, tab, { ...(viewport === undefined ? {} : { viewport }), colorScheme })
}

/**
 * The WCAG contrast of an element's label against its background, both read from computed styles; a translucent
 * background is laid over the ancestors' until an opaque one is reached. Browser code, kept as text (the tests
 * compile without the DOM's types).
 */
const CONTRAST_OF = `(element) => {
  const context = document.createElement('canvas').getContext('2d', { willReadFrequently: true })
  // getImageData answers straight (not premultiplied) channels; alpha says how much of the pixel the colour covers.
  const rgba = (color) => {
    context.clearRect(0, 0, 1, 1)
    context.fillStyle = color
    context.fillRect(0, 0, 1, 1)
    const [r, g, b, a] = context.getImageData(0, 0, 1, 1).data
    return [r, g, b, a / 255]
  }
  const layers = []
  let node = element
  while (node) {
    const layer = rgba(getComputedStyle(node).backgroundColor)
    if (layer[3] > 0) layers.push(layer)
    if (layer[3] >= 1) break
    node = node.parentElement ?? node.getRootNode().host ?? null
  }
  const over = (top, back) => [0, 1, 2].map((i) => top[i] * top[3] + back[i] * (1 - top[3]))
  const back = layers.reverse().reduce((under, layer) => over(layer, under), [255, 255, 255])
  const front = over(rgba(getComputedStyle(element).color), back)
  const luminance = (rgb) => {
    const [r, g, b] = rgb.map((channel) => {
      const c = channel / 255
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
    })
    return 0.2126 * r + 0.7152 * g + 0.0722 * b
  }
  const [light, dark] = [luminance(front), luminance(back)].sort((x, y) => y - x)
  return (light + 0.05) / (dark + 0.05)
}`

async function contrastOf(locator: Locator): Promise<number> {
  const measure = new Function('element', `return (${CONTRAST_OF})(element)`) as (element: unknown) => number
  return locator.evaluate(measure)
}

const rows = (page: Page) => page.locator('fm-library [data-fm="fact-list"] li button.row')

describe("the page's rough edges in a real browser", () => {
  it("keeps a hovered primary button's label at 4.5:1 or more against its background, in light and dark", async (t) => {
    conflict('hover-api', '7801', '7802', ['2026-03-01T09:00:00.000Z', '2026-03-05T09:00:00.000Z'])
    write('hover-db', 'engine', 'postgres', 'inferred')
    write('hover-cache', 'engine', 'redis')
    for (const scheme of ['light', 'dark'] as const) {
      const opened = await openTab('conflicts', undefined, scheme)
      const { page } = opened
      const keep = page
        .locator('fm-conflicts [data-fm="conflict-side"] button.primary', { hasText: 'Keep this' })
        .first()
      await keep.hover()
      const keepRatio = await contrastOf(keep)
      t.diagnostic(`"Keep this" hovered, ${scheme}: ${keepRatio.toFixed(2)}:1`)
      await screenshot(page, `edges-hover-keep-${scheme}`)
      assert.ok(keepRatio >= 4.5, `"Keep this" hovered in ${scheme}: ${keepRatio.toFixed(2)}:1`)

      await page.locator('fm-page nav button[data-tab="proposals"]').click()
      const accept = page.locator('fm-proposals [data-fm="proposal"] button.primary', { hasText: 'Accept' }).first()
      await accept.hover()
      const acceptRatio = await contrastOf(accept)
      t.diagnostic(`"Accept" hovered, ${scheme}: ${acceptRatio.toFixed(2)}:1`)
      await screenshot(page, `edges-hover-accept-${scheme}`)
      assert.ok(acceptRatio >= 4.5, `"Accept" hovered in ${scheme}: ${acceptRatio.toFixed(2)}:1`)

      await page.locator('fm-page nav button[data-tab="library"]').click()
      await rows(page).filter({ hasText: 'hover-cache' }).click()
      await page.locator('fm-library [data-fm="detail"]').getByRole('button', { name: 'Edit value' }).click()
      const save = page.locator('fm-library [data-fm="detail"] button.primary', { hasText: 'Save' })
      await save.hover()
      const saveRatio = await contrastOf(save)
      t.diagnostic(`"Save" hovered, ${scheme}: ${saveRatio.toFixed(2)}:1`)
      await screenshot(page, `edges-hover-save-${scheme}`)
      assert.ok(saveRatio >= 4.5, `"Save" hovered in ${scheme}: ${saveRatio.toFixed(2)}:1`)
      await closeClean(opened)
    }
  })

  it('reaches every one of 120 pending cards, and the digest counts all of them as the header badge does', async () => {
    for (let index = 0; index < 120; index += 1)
      write(`queue-${String(index).padStart(3, '0')}`, 'owner', `team ${index}`, 'inferred')
    const pending: number[] = []
    for (let cursor: string | null = null; ; ) {
      const page: Record<string, unknown> = await api.ok('proposals', {
        status: 'pending',
        limit: 100,
        ...(cursor === null ? {} : { cursor }),
      })
      pending.push(...(page['proposals'] as { id: number }[]).map((card) => card.id))
      cursor = page['nextCursor'] as string | null
      if (cursor === null) break
    }
    assert.ok(pending.length >= 120)
    const opened = await openTab('proposals')
    const { page } = opened
    const digest = page.locator('fm-proposals [data-fm="digest"]')
    await digest.waitFor()
    assert.match(await digest.innerText(), new RegExp(`\\b${pending.length} waiting`, 'u'))
    assert.equal(
      await page.locator('fm-page nav button[data-tab="proposals"] .count').innerText(),
      String(pending.length),
      'the badge counts the same',
    )
    const cards = page.locator('fm-proposals [data-fm="proposal"]')
    const more = page.locator('fm-proposals [data-fm="proposals-more"]')
    for (let round = 0; round < 10 && (await cards.count()) < pending.length; round += 1) {
      const shown = await cards.count()
      await more.click()
      await until(async () => (await cards.count()) > shown, 'the next page of cards')
    }
    const ids = (
      await cards.evaluateAll((nodes) =>
        nodes.map((node) => Number((node as unknown as { dataset: { id: string } }).dataset.id)),
      )
    ).sort((a, b) => a - b)
    assert.deepEqual(
      ids,
      [...pending].sort((a, b) => a - b),
      'every pending card is on the page, once',
    )
    assert.equal(await more.count(), 0, 'nothing more to load')
    await screenshot(page, 'edges-proposals-all')
    await closeClean(opened)
  })

  it('filters the library as the user types, counts and highlights the match, and answers a question with memory_search', async () => {
    write('小明', '住在', '杭州')
    write('小红', '住在', '上海')
    write('search-api', 'port', '9100')
    const opened = await openTab('library')
    const { page } = opened
    await rows(page).first().waitFor()
    const search = page.locator('fm-library input[type="search"]')
    await search.pressSequentially('杭州', { delay: 40 })
    await until(
      async () => (await rows(page).count()) === 1 && (await rows(page).first().innerText()).includes('杭州'),
      'the filter as typed',
    )
    assert.match(await page.locator('fm-library [data-fm="match-count"]').innerText(), /^1 fact matches/u)
    assert.deepEqual(await rows(page).first().locator('mark').allInnerTexts(), ['杭州'])
    await screenshot(page, 'edges-search-typed')

    await search.fill('小明住在哪')
    const hits = page.locator('fm-library [data-fm="question-hits"]')
    await hits.waitFor()
    assert.equal(await rows(page).count(), 0, 'no row holds every word of the question')
    assert.match(await hits.innerText(), /memory_search/u)
    const hit = hits.locator('button', { hasText: '杭州' })
    assert.match(await hit.innerText(), /小明 · 住在/u)
    await screenshot(page, 'edges-search-question')
    await hit.click()
    await until(
      async () => (await page.locator('fm-library [data-fm="detail-value"]').innerText()) === '杭州',
      'the hit opened',
    )
    await closeClean(opened)
  })

  it('says first that saving an edit of a contested value settles the conflict, and names the rival', async () => {
    const [kept, rival] = conflict('contest-api', '7811', '7812', [
      '2026-03-01T09:00:00.000Z',
      '2026-03-05T09:00:00.000Z',
    ])
    const opened = await openTab('library')
    const { page } = opened
    const search = page.locator('fm-library input[type="search"]')
    await search.fill('contest-api')
    await until(async () => (await rows(page).count()) === 2, 'both sides listed')
    await rows(page).filter({ hasText: '7811' }).click()
    await page.locator('fm-library [data-fm="detail"]').getByRole('button', { name: 'Edit value' }).click()
    const note = page.locator('fm-library [data-fm="settles-conflict"]')
    await note.waitFor()
    assert.match(await note.innerText(), /Saving settles the conflict/u)
    assert.match(await note.innerText(), /7812/u, 'the rival is named')
    await screenshot(page, 'edges-contested-edit')
    await page.locator('fm-library input[name="value"]').fill('7813')
    await page.locator('fm-library [data-fm="detail"] button.primary', { hasText: 'Save' }).click()
    await until(
      async () => (await page.locator('fm-library [data-fm="detail-value"]').innerText()) === '7813',
      'the saved value',
    )
    for (const fact of [kept, rival]) {
      const status = String(((await api.ok('fact', { id: fact.id }))['fact'] as { status: string }).status)
      assert.ok(!['active', 'conflict', 'scheduled'].includes(status), `#${fact.id} left the current set (${status})`)
    }
    await closeClean(opened)
  })

  it("refreshes the header's counts after an edit, shows the restored value after an undo, and dates a conflict side by its observation", async () => {
    const fact = write('stale-api', 'region', 'eu-west')
    assert.ok(fact !== undefined)
    const opened = await openTab('library')
    const { page } = opened
    const line = page.locator('fm-page [data-fm="store-line"]')
    /** The line the page should show now, from the store's own counts. */
    const expected = async (): Promise<string> => {
      const by = ((await api.ok('status', {}))['counts'] as { byStatus: Record<string, number> }).byStatus
      const sum = (statuses: readonly string[]): number =>
        statuses.reduce((total, status) => total + (by[status] ?? 0), 0)
      return `${sum(['active', 'scheduled', 'conflict'])} current facts · ${sum(['superseded', 'retired', 'expired'])} in history`
    }
    const agrees = async (when: string): Promise<string> => {
      let want = ''
      await until(
        async () => (want = await expected()) === (await line.innerText()),
        async () => `the store line ${when}: "${await line.innerText()}", the store says "${want}"`,
      )
      return want
    }
    const opening = await agrees('at opening')
    await page.locator('fm-library input[type="search"]').fill('stale-api')
    await until(async () => (await rows(page).count()) === 1, 'the row')
    await rows(page).first().click()
    await page.locator('fm-library [data-fm="detail"]').getByRole('button', { name: 'Edit value' }).click()
    await page.locator('fm-library input[name="value"]').fill('us-east')
    await page.locator('fm-library [data-fm="detail"] button.primary', { hasText: 'Save' }).click()
    await until(
      async () => (await page.locator('fm-library [data-fm="detail-value"]').innerText()) === 'us-east',
      'the edited value',
    )
    assert.notEqual(await agrees('after the edit'), opening, 'the edit moved a value into history')
    await page
      .locator('[data-fm="toast"]')
      .filter({ hasText: 'Changed stale-api' })
      .getByRole('button', { name: 'Undo' })
      .click()
    await until(
      async () => (await page.locator('fm-library [data-fm="detail-value"]').innerText()) === 'eu-west',
      'the restored value as the headline',
    )
    await agrees('after the undo')
    await screenshot(page, 'edges-after-undo')

    conflict('since-api', '7821', '7822', ['2026-03-01T09:00:00.000Z', '2026-03-05T09:00:00.000Z'])
    await page.locator('fm-page nav button[data-tab="conflicts"]').click()
    const group = page.locator('fm-conflicts [data-fm="conflict"]', { hasText: 'since-api' })
    await group.waitFor()
    const since = await group.locator('[data-fm="side-since"]').allInnerTexts()
    assert.equal(since.length, 2)
    assert.match(since[0] ?? '', /since 2026-03-0[15]/u)
    assert.match(since[1] ?? '', /since 2026-03-0[15]/u)
    assert.notEqual(since[0], since[1], 'each side its own observation')
    await screenshot(page, 'edges-conflict-since')
    await closeClean(opened)
  })

  it('clears the selection on Esc before it closes the page, at 1440 px', async () => {
    const opened = await openTab('library', { width: 1440, height: 900 })
    const { page } = opened
    await rows(page).first().click()
    const detail = page.locator('fm-library [data-fm="detail"]')
    await detail.waitFor()
    await page.keyboard.press('Escape')
    await detail.waitFor({ state: 'detached' })
    assert.equal(await page.locator('[data-fm="page"]').count(), 1, 'the page stays open')
    await page.keyboard.press('Escape')
    await page.locator('[data-fm="page"]').waitFor({ state: 'detached' })
    await closeClean(opened)
  })

  it("draws the sidebar entry's icon in the rail's column at 900 px", async () => {
    const opened = await openHost(browser, host.url, { width: 900, height: 800 })
    const { page } = opened
    // Earlier cases left cards and conflicts open, so the entry carries its badge.
    const badge = page.locator('[data-fm="sidebar-entry"]').getByText(/^\d+\+?$/u)
    await badge.waitFor()
    await screenshot(page, 'edges-sidebar-900')
    // The rail's own buttons (new chat, search, settings) share one column; the entry's icon must sit in it.
    const [icon, rail] = (await page.evaluate(`(() => {
      const centre = (rect) => rect.left + rect.width / 2
      const entry = document.querySelector('[data-fm="sidebar-entry"]')
      const others = [...document.querySelectorAll('button')].filter((button) => !entry.contains(button) && button.getBoundingClientRect().right < 80 && button.getBoundingClientRect().width > 0)
        .map((button) => centre(button.getBoundingClientRect())).sort((a, b) => a - b)
      return [centre(entry.querySelector('svg').getBoundingClientRect()), others[Math.floor(others.length / 2)]]
    })()`)) as [number, number]
    assert.ok(Math.abs(icon - rail) <= 1.5, `the icon's centre ${icon} against the rail's ${rail}`)
    const [badgeRight, railRight] = (await page.evaluate(`(() => {
      let rail = document.querySelector('[data-fm="sidebar-entry"]')
      while (rail.parentElement && rail.getBoundingClientRect().height < 400) rail = rail.parentElement
      const badge = [...document.querySelectorAll('[data-fm="sidebar-entry"] span')].find((span) => /^\\d+\\+?$/u.test(span.textContent))
      return [badge.getBoundingClientRect().right, rail.getBoundingClientRect().right]
    })()`)) as [number, number]
    assert.ok(badgeRight <= railRight, `the badge ends at ${badgeRight}, inside the rail that ends at ${railRight}`)
    await closeClean(opened)
  })
})
