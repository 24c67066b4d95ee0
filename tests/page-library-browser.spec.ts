/**
 * The fact library from an empty store to a full one, in Debian's Chromium against a real DSH rc.8 web host with its
 * own throwaway home. (The turn-tail seat and automatic extraction are in page-turn-browser.spec.ts.)
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { screenshot, type HostPage } from './helpers/browser.ts'
import type { WebHost } from './helpers/dsh-host.ts'
import type { FactMemoryApi } from './helpers/fact-memory-web.ts'
import { closeClean, importLines, openOnTab, startPageHost, until, type PageHost } from './helpers/page-host.ts'

let env: PageHost | undefined
let host: WebHost
let browser: Browser
let api: FactMemoryApi

before(async () => {
  env = await startPageHost()
  ;({ host, browser, api } = env)
})

after(async () => {
  await env?.stop()
})

function openLibrary(viewport?: { width: number; height: number }): Promise<HostPage> {
  return openOnTab({ browser, host }, 'library', viewport === undefined ? {} : { viewport })
}

const rows = (page: Page) => page.locator('fm-library [data-fm="fact-list"] li button.row')

describe('the fact library in a real browser', () => {
  it('explains an empty store in one sentence you can copy, and the graph says there is nothing yet', async () => {
    const opened = await openLibrary()
    const { page } = opened
    const empty = page.locator('fm-library [data-fm="empty"]')
    await empty.waitFor()
    assert.match(await empty.innerText(), /Nothing is remembered yet/u)
    assert.equal(await empty.getByRole('button', { name: 'Copy the sentence' }).count(), 1)
    await screenshot(page, 'library-empty')
    await page.locator('fm-page nav button[data-tab="graph"]').click()
    await page
      .locator('fm-graph')
      .getByText(/No relations yet/u)
      .waitFor()
    await closeClean(opened)
  })

  it('pages 100 facts at a time, searches with / and Esc, and remembers the last five queries', async () => {
    const lines = Array.from({ length: 130 }, (_, index) =>
      JSON.stringify({
        subject: `service-${String(index).padStart(3, '0')}`,
        property: 'port',
        value: String(8000 + index),
      }),
    )
    const preview = await api.ok('import', { mode: 'preview', content: `${lines.join('\n')}\n` })
    await api.ok('import', {
      mode: 'commit',
      content: `${lines.join('\n')}\n`,
      token: String(preview['token']),
      expectedGeneration: await api.generation(),
      operationId: api.op('seed'),
    })

    const opened = await openLibrary()
    const { page } = opened
    await until(async () => (await rows(page).count()) === 100, 'the first page')
    await page.locator('fm-library').getByRole('button', { name: 'Load more' }).click()
    await until(async () => (await rows(page).count()) === 130, 'the second page')
    assert.equal(await page.locator('fm-library').getByRole('button', { name: 'Load more' }).count(), 0)
    // A new search is read from its first row, wherever the list was scrolled.
    const list = page.locator('fm-library ul[data-fm="fact-list"]')
    await list.evaluate((ul) => {
      ul.scrollTop = ul.scrollHeight
    })
    assert.ok((await list.evaluate((ul) => ul.scrollTop)) > 0)
    await page.locator('fm-library input[type="search"]').fill('port')
    await until(
      async () => (await list.evaluate((ul) => ul.scrollTop)) === 0 && (await rows(page).count()) === 100,
      'the search from the top',
    )
    await page.locator('fm-library input[type="search"]').fill('')

    const search = page.locator('fm-library input[type="search"]')
    await page.locator('fm-library [data-fm="fact-list"]').click({ position: { x: 5, y: 5 } })
    await page.keyboard.press('/')
    assert.equal(
      await search.evaluate(
        (input) => input === (input.getRootNode() as unknown as { activeElement: unknown }).activeElement,
      ),
      true,
      '/ focuses the search',
    )
    for (const query of ['service-001', 'service-002', 'service-003', 'service-004', 'service-005', 'service-006']) {
      await search.fill(query)
      await search.press('Enter')
      await until(
        async () => (await rows(page).count()) === 1 && (await rows(page).first().innerText()).includes(query),
        `the search for ${query}`,
      )
    }
    const recent = page.locator('fm-library [aria-label="Recent searches"] button')
    assert.deepEqual(await recent.allInnerTexts(), [
      'service-006',
      'service-005',
      'service-004',
      'service-003',
      'service-002',
    ])
    // They look like chips: rounded, with an edge and a fill of their own.
    const chipStyle = new Function(
      'button',
      `const style = getComputedStyle(button)
      return { radius: Number.parseFloat(style.borderTopLeftRadius), border: style.borderTopStyle, fill: style.backgroundColor }`,
    ) as (button: unknown) => { radius: number; border: string; fill: string }
    const chip = await recent.first().evaluate(chipStyle)
    assert.ok(
      chip.radius >= 10 && chip.border === 'solid' && chip.fill !== 'rgba(0, 0, 0, 0)',
      `a recent query reads as a chip: ${JSON.stringify(chip)}`,
    )
    await search.press('Escape')
    assert.equal(await search.inputValue(), '')
    await until(async () => (await rows(page).count()) === 100, 'the cleared search')
    await recent.filter({ hasText: 'service-004' }).click()
    await until(async () => (await rows(page).count()) === 1, 'a recent query re-run')
    await closeClean(opened)
  })

  it('says how many times a folded line was seen, in its row and its detail, with the lines it folded', async () => {
    const line = (day: number): string => `nightly backup finished 2026-11-${String(day).padStart(2, '0')}, 412 files`
    await importLines(api, [
      {
        subject: 'backup-runner',
        property: 'last run',
        value: line(30),
        foldedCount: 6,
        foldedFrom: [24, 25, 26, 27, 28, 29].map(line),
      },
    ])

    const opened = await openLibrary()
    const { page } = opened
    const search = page.locator('fm-library input[type="search"]')
    await search.fill('backup-runner')
    await search.press('Enter')
    await until(
      async () => (await rows(page).count()) === 1 && (await rows(page).first().innerText()).includes('2026-11-30'),
      'the folded row',
    )
    assert.match(await rows(page).first().innerText(), /seen 7 times/u)
    await rows(page).first().click()
    const detail = page.locator('fm-library [data-fm="detail"]')
    await detail.waitFor()
    assert.match(await detail.innerText(), /seen 7 times/u)
    assert.deepEqual(
      await detail.locator('[data-fm="folded-from"] li').allInnerTexts(),
      [29, 28, 27, 26, 25, 24].map(line),
      'the newest folded line first',
    )
    await screenshot(page, 'library-folded-line')
    await closeClean(opened)
  })

  it("shows a fact's cues in its detail, edits them one per line, and the toast's Undo puts them back", async () => {
    await importLines(api, [
      {
        subject: 'billing-service',
        property: 'test command',
        value: 'npm run test:unit',
        cues: ['run the tests', '跑测试'],
      },
    ])

    const opened = await openLibrary()
    const { page } = opened
    const search = page.locator('fm-library input[type="search"]')
    await search.fill('billing-service')
    await search.press('Enter')
    await until(async () => (await rows(page).count()) === 1, 'the fact with cues')
    await rows(page).first().click()
    const cues = page.locator('fm-library [data-fm="detail-cues"]')
    await cues.waitFor()
    assert.deepEqual(await cues.locator('.cue').allInnerTexts(), ['run the tests', '跑测试'])
    assert.doesNotMatch(
      await page.locator('fm-library [data-fm="detail-value"]').innerText(),
      /跑测试/u,
      'a cue is no part of the value',
    )
    await cues.getByRole('button', { name: 'Edit cues' }).click()
    await cues.locator('textarea[name="cues"]').fill('run the tests\nmake sure nothing is broken\n单测\n')
    await cues.getByRole('button', { name: 'Save cues' }).click()
    await until(
      async () =>
        (await cues.locator('.cue').allInnerTexts()).join('|') === 'run the tests|make sure nothing is broken|单测',
      'the edited cues',
    )
    await screenshot(page, 'library-cues-edited')
    await page.locator('[data-fm="toast"]').getByRole('button', { name: 'Undo' }).click()
    await until(
      async () => (await cues.locator('.cue').allInnerTexts()).join('|') === 'run the tests|跑测试',
      'the cues put back',
    )
    await closeClean(opened)
  })

  it('below 1180px the detail is a bottom sheet that its backdrop closes', async () => {
    const opened = await openLibrary({ width: 1000, height: 800 })
    const { page } = opened
    await rows(page).first().click()
    const backdrop = page.locator('fm-library [data-fm="sheet-backdrop"]')
    await backdrop.waitFor()
    await page.locator('fm-library [data-fm="detail"]').waitFor()
    await screenshot(page, 'library-sheet-1000')
    await backdrop.click({ position: { x: 20, y: 20 } })
    await page.locator('fm-library [data-fm="detail"]').waitFor({ state: 'detached' })
    await closeClean(opened)
  })
})
