/**
 * Pins as the user makes them and the model meets them: a real DSH rc.8 web host with the plugin and a library past
 * the directory budget, Debian's Chromium pinning an old, weak fact from the library row (undone from the toast) and
 * from the detail pane, and the fake model's next request carrying that fact at the head of the directory, marked,
 * with the directory byte-identical on the turn after while nothing changed. Light, dark and 900 px screenshots.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { screenshot, type HostPage } from './helpers/browser.ts'
import type { WebHost } from './helpers/dsh-host.ts'
import { hostApi, type FactMemoryApi } from './helpers/fact-memory-web.ts'
import type { FakeModel } from './helpers/fake-model.ts'
import { directoryOf } from './helpers/headless-conversation.ts'
import { closeClean, importLines, startPageHost, until, type PageHost, openOnTab } from './helpers/page-host.ts'
import type { FactView } from '../src/wire-types.ts'

const PINNED_LINE = /^- deploy · freeze: no deploys on Fridays \(2024-01-05, pinned by the user\)$/u

let env: PageHost | undefined
let model: FakeModel
let host: WebHost
let browser: Browser
let api: FactMemoryApi
let sessionId: string

before(async () => {
  env = await startPageHost()
  ;({ model, host, browser, api } = env)
  await importLines(api, [
    {
      subject: 'deploy',
      property: 'freeze',
      value: 'no deploys on Fridays',
      evidence: 'unverified',
      validFrom: '2024-01-05',
      observedAt: '2024-01-05',
    },
    ...Array.from({ length: 80 }, (_, index) => ({
      subject: `service-${String(index).padStart(2, '0')}`,
      property: 'owner',
      value: `the platform team, squad ${index}`,
    })),
  ])
  ;({ sessionId } = await hostApi<{ sessionId: string }>(host.url, 'session.create', { cwd: env.home.workspace }))
})

after(async () => {
  await env?.stop()
})

/** Run one turn of the session and return the directory its first model request carried. */
async function turnDirectory(prompt: string): Promise<string> {
  model.reset()
  model.enqueue({ text: 'Noted.' })
  await hostApi(host.url, 'session.prompt', { sessionId, mode: 'queue', content: [{ type: 'text', text: prompt }] })
  await until(async () => model.agentRequests().length >= 1, 'the turn')
  const [first] = model.agentRequests()
  assert.ok(first !== undefined)
  // The runtime-context snapshot holds several sections separated by a blank line; the directory is one of them.
  return (
    directoryOf(first.body.messages)
      .split('\n\n')
      .find((section) => section.startsWith('Fact memory: ')) ?? ''
  )
}

async function openLibrary(
  viewport?: { width: number; height: number },
  scheme: 'light' | 'dark' = 'light',
): Promise<HostPage> {
  return openOnTab({ browser, host }, 'library', {
    ...(viewport === undefined ? {} : { viewport }),
    colorScheme: scheme,
  })
}

const freezeRow = (page: Page) =>
  page.locator('fm-library [data-fm="fact-list"] li').filter({ hasText: 'deploy · freeze' })
const freezeFact = async (): Promise<FactView> => {
  const listed = (await api.ok('facts', { subject: 'deploy' }))['facts'] as FactView[]
  const fact = listed.find((row) => row.property === 'freeze')
  assert.ok(fact !== undefined)
  return fact
}

describe('pinning from the page in a real browser', () => {
  it("pins from the library row, the toast takes it back, and the detail pane pins it again; the next turn's directory leads with it, marked", async () => {
    const before = await turnDirectory('What should I look at today?')
    assert.match(before, /^Fact memory: /u)
    assert.doesNotMatch(
      before,
      /deploys on Fridays/u,
      'an old, unverified fact past the budget is not in the directory',
    )
    assert.match(before, /\d+ more, use memory_search$/u)

    const opened = await openLibrary()
    const { page } = opened
    const row = freezeRow(page)
    await row.waitFor()
    const rowPin = row.locator('[data-fm="pin"]')
    assert.equal(await rowPin.getAttribute('aria-pressed'), 'false')
    await rowPin.click()
    const toast = page
      .locator('[data-fm="toast"]')
      .filter({ hasText: 'Pinned deploy · freeze: it leads the memory directory' })
    await toast.waitFor()
    await until(async () => (await rowPin.getAttribute('aria-pressed')) === 'true', 'the row marked pinned')
    assert.match(await rowPin.innerText(), /Pinned/u)
    assert.notEqual((await freezeFact()).pinnedAt, null)
    await screenshot(page, 'library-pinned-row')

    await toast.getByRole('button', { name: 'Undo' }).click()
    await page.locator('[data-fm="toast"]').filter({ hasText: 'Undone' }).waitFor()
    await until(async () => (await rowPin.getAttribute('aria-pressed')) === 'false', 'the row unpinned by the undo')
    assert.equal((await freezeFact()).pinnedAt, null)

    await row.locator('button.row').click()
    const detailPin = page.locator('fm-library [data-fm="detail"] [data-fm="detail-pin"] [data-fm="pin"]')
    await detailPin.waitFor()
    assert.equal(await detailPin.innerText(), 'Pin')
    await detailPin.click()
    await until(async () => (await detailPin.getAttribute('aria-pressed')) === 'true', 'the detail marked pinned')
    assert.equal(await detailPin.innerText(), 'Pinned')
    await until(async () => (await rowPin.getAttribute('aria-pressed')) === 'true', 'the row marked pinned')
    await screenshot(page, 'library-pinned-detail')
    await closeClean(opened)

    const after = await turnDirectory('And what else?')
    const lines = after.split('\n')
    assert.match(lines[0] ?? '', /^Fact memory: /u)
    assert.match(lines[1] ?? '', PINNED_LINE)
    assert.equal(lines.filter((line) => line.includes('pinned by the user')).length, 1)
    assert.ok(after.length <= 800 * 2, `${after.length} characters within the budget`)
    // Nothing changed since: the next turn carries the same bytes.
    assert.equal(await turnDirectory('Thanks, that is all.'), after)
  })

  it('shows the pin in the dark theme and at 900 px, where the detail is a bottom sheet', async () => {
    const dark = await openLibrary(undefined, 'dark')
    await freezeRow(dark.page).waitFor()
    await until(
      async () => (await freezeRow(dark.page).locator('[data-fm="pin"]').getAttribute('aria-pressed')) === 'true',
      'the pinned row',
    )
    await freezeRow(dark.page).locator('button.row').click()
    await dark.page.locator('fm-library [data-fm="detail-pin"] [data-fm="pin"]').waitFor()
    await screenshot(dark.page, 'library-pinned-dark')
    await closeClean(dark)

    const narrow = await openLibrary({ width: 900, height: 900 })
    const row = freezeRow(narrow.page)
    await row.waitFor()
    await row.locator('button.row').click()
    const sheetPin = narrow.page.locator('fm-library .sheet [data-fm="detail-pin"] [data-fm="pin"]')
    await sheetPin.waitFor()
    assert.equal(await sheetPin.getAttribute('aria-pressed'), 'true')
    await screenshot(narrow.page, 'library-pinned-900')
    await closeClean(narrow)
  })
})
