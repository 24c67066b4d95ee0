/**
 * Forgetting from the page and putting a past value back, in Debian's Chromium against a real DSH rc.8 web host: the
 * library row's Forget with its confirmation (what goes, and that the claim cannot be written back), the toast's
 * Undo taking it back, the whole subject from the detail pane, one fact from the nebula star's panel, and a past value
 * made current again from the detail pane's history, undone from its toast. Screenshots in light, dark and 900 px.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { openHost, screenshot, type HostPage } from './helpers/browser.ts'
import type { WebHost } from './helpers/dsh-host.ts'
import type { FactMemoryApi } from './helpers/fact-memory-web.ts'
import {
  closeClean,
  importLines,
  openLibrary as openLibraryPage,
  type PageHost,
  startPageHost,
  until,
} from './helpers/page-host.ts'

let env: PageHost | undefined
let host: WebHost
let browser: Browser
let api: FactMemoryApi

interface FactView {
  readonly id: number
  readonly subject: string
  readonly property: string
  readonly value: string
  readonly status: string
  readonly evidence: string
}

const SEED = [
  { subject: 'orchard', property: 'harvest month', value: 'October' },
  { subject: 'orchard', property: 'owner', value: 'Mira Chen' },
  { subject: 'lighthouse', property: 'keeper', value: 'Ada' },
  { subject: 'lighthouse', property: 'height', value: '41 m' },
  { subject: 'lighthouse', property: 'located in', value: 'Cape Reinga' },
  { subject: 'bakery', property: 'opening hour', value: '7am' },
  { subject: 'bakery', property: 'owner', value: 'Mira Chen' },
  { subject: 'bakery', property: 'supplier', value: 'orchard' },
  { subject: 'bakery', property: 'located in', value: 'Cape Reinga' },
]

before(async () => {
  env = await startPageHost()
  ;({ host, browser, api } = env)
  await importLines(api, SEED)
})

after(async () => {
  await env?.stop()
})

function openLibrary(
  viewport = { width: 1440, height: 960 },
  colorScheme: 'light' | 'dark' = 'light',
): Promise<HostPage> {
  return openLibraryPage({ browser, host }, { viewport, colorScheme })
}

const current = async (): Promise<FactView[]> =>
  (await api.ok('facts', { status: 'current', limit: 100 }))['facts'] as FactView[]
const row = (page: Page, text: string) =>
  page.locator('fm-library [data-fm="fact-list"] li.fact').filter({ hasText: text })
const dialog = (page: Page) =>
  page.locator('fm-library [data-fm="forget-dialog"][open], fm-graph [data-fm="forget-dialog"][open]')

describe('forgetting from the page', () => {
  it('forgets a fact from its library row after a confirmation that names it, and the toast takes it back', async () => {
    const opened = await openLibrary()
    const { page } = opened
    await row(page, 'harvest month').locator('[data-fm="forget"]').click()
    const confirm = dialog(page)
    await confirm.waitFor()
    assert.equal(
      await confirm.locator('[data-fm="forget-heading"]').innerText(),
      'Forget orchard · harvest month = October?',
    )
    assert.match(await confirm.locator('[data-fm="forget-warning"]').innerText(), /cannot be written back/u)
    assert.deepEqual(await confirm.locator('[data-fm="forget-list"] li').allInnerTexts(), [
      `orchard · harvest month = October (● current, #${(await current()).find((f) => f.value === 'October')?.id})`,
    ])
    // The wider reaches name their counts before anything goes.
    await confirm.getByLabel(/The whole subject orchard/u).check()
    await confirm
      .locator('[data-fm="forget-heading"]')
      .filter({ hasText: 'Forget everything about orchard (2 facts)?' })
      .waitFor()
    await screenshot(page, 'forget-confirm-light')
    // Esc closes the confirmation and nothing else; nothing was forgotten.
    await page.keyboard.press('Escape')
    await until(async () => (await dialog(page).count()) === 0, 'the confirmation closes')
    assert.equal(await page.locator('fm-library [data-fm="fact-list"]').isVisible(), true, 'the page stays open')
    assert.equal(await row(page, 'harvest month').count(), 1)
    await row(page, 'harvest month').locator('[data-fm="forget"]').click()
    await confirm.waitFor()
    await confirm.getByLabel(/This fact/u).check()
    await confirm.locator('[data-fm="forget-confirm"]').click()
    const toast = page.locator('[data-fm="toast"]').filter({ hasText: 'Forgot orchard · harvest month = October' })
    await toast.waitFor()
    await until(async () => (await row(page, 'harvest month').count()) === 0, 'the row leaves the list')
    assert.ok(!(await current()).some((fact) => fact.value === 'October'))
    await screenshot(page, 'forget-toast-light')

    await toast.getByRole('button', { name: 'Undo' }).click()
    await page.locator('[data-fm="toast"]').filter({ hasText: 'Taken back' }).waitFor()
    await until(async () => (await row(page, 'harvest month').count()) === 1, 'the row is back')
    assert.deepEqual(
      (await current())
        .filter((fact) => fact.subject === 'orchard')
        .map((fact) => [fact.property, fact.value, fact.status])
        .sort(),
      [
        ['harvest month', 'October', 'active'],
        ['owner', 'Mira Chen', 'active'],
      ],
    )
    await closeClean(opened)
  })

  it('forgets a whole subject from the detail pane, dark and at 900 px', async () => {
    const opened = await openLibrary({ width: 900, height: 900 }, 'dark')
    const { page } = opened
    await row(page, 'keeper').locator('button.row').click()
    await page.locator('fm-library [data-fm="detail"]').waitFor()
    await page.locator('fm-library [data-fm="detail"] [data-fm="forget"]').click()
    const confirm = dialog(page)
    await confirm.waitFor()
    await confirm.getByLabel(/The whole subject lighthouse/u).check()
    await confirm
      .locator('[data-fm="forget-heading"]')
      .filter({ hasText: 'Forget everything about lighthouse (3 facts)?' })
      .waitFor()
    assert.equal(await confirm.locator('[data-fm="forget-list"] li').count(), 3)
    await screenshot(page, 'forget-confirm-dark-900')
    await confirm.locator('[data-fm="forget-confirm"]').click()
    await page.locator('[data-fm="toast"]').filter({ hasText: 'Forgot 3 facts of lighthouse' }).waitFor()
    await until(async () => (await row(page, 'lighthouse').count()) === 0, 'the subject leaves the list')
    // The detail follows the list: it moves to a row that is left, never shows a forgotten fact.
    const detail = page.locator('fm-library [data-fm="detail"]')
    await until(
      async () => (await detail.count()) === 1 && !(await detail.locator('h2').innerText()).startsWith('lighthouse'),
      'the detail moves to a row that is left',
    )
    assert.ok(!(await current()).some((fact) => fact.subject === 'lighthouse'))
    await screenshot(page, 'forget-done-dark-900')
    await closeClean(opened)
  })

  it("forgets one fact from the nebula star's panel", async () => {
    const opened = await openHost(browser, host.url, { width: 1440, height: 900 })
    const { page } = opened
    await page.locator('[data-fm="sidebar-entry"]').click()
    const canvas = page.locator('fm-graph [data-fm="nebula"] canvas')
    await canvas.waitFor()
    const label = page.locator('fm-graph [data-fm="nebula"] [data-label]').filter({ hasText: /^bakery$/u })
    let anchor = ''
    await until(
      async () => {
        const next =
          (await label
            .first()
            .getAttribute('data-anchor')
            .catch(() => null)) ?? ''
        const still = next !== '' && next === anchor
        anchor = next
        if (!still) await page.waitForTimeout(300)
        return still
      },
      'the bakery star holds still',
      30_000,
    )
    const [x = 0, y = 0] = anchor.split(',').map(Number)
    const box = await canvas.boundingBox()
    await page.mouse.click((box?.x ?? 0) + x, (box?.y ?? 0) + y)
    const panel = page.locator('fm-graph [data-fm="graph-selection"]')
    await panel
      .locator('[data-fm="selection-title"]')
      .filter({ hasText: /^bakery/u })
      .waitFor()
    await panel.locator('li').filter({ hasText: 'opening hour' }).locator('[data-fm="forget"]').click()
    const confirm = dialog(page)
    await confirm.waitFor()
    assert.equal(await confirm.locator('[data-fm="forget-heading"]').innerText(), 'Forget bakery · opening hour = 7am?')
    await screenshot(page, 'forget-from-star')
    await confirm.locator('[data-fm="forget-confirm"]').click()
    await page.locator('[data-fm="toast"]').filter({ hasText: 'Forgot bakery · opening hour = 7am' }).waitFor()
    await until(async () => (await panel.count()) === 0, 'the panel closes')
    assert.ok(!(await current()).some((fact) => fact.value === '7am'))
    await closeClean(opened)
  })
})

describe('putting a past value back', () => {
  it('makes an older value current from the history list, as your confirmation, and the toast undoes it', async () => {
    const opened = await openLibrary()
    const { page } = opened
    await row(page, 'Mira Chen').filter({ hasText: 'orchard' }).locator('button.row').click()
    await page.getByRole('button', { name: 'Edit value' }).click()
    await page.locator('fm-library input[name="value"]').fill('Tomas Reyes')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await page.locator('[data-fm="toast"]').filter({ hasText: 'Changed orchard · owner to Tomas Reyes' }).waitFor()
    const history = page.locator('fm-library [data-fm="detail"] .history li')
    await until(async () => (await history.count()) === 2, 'two values in the history')
    const past = history.filter({ hasText: 'Mira Chen' })
    assert.equal(
      await history.filter({ hasText: 'Tomas Reyes' }).locator('[data-fm="put-back"]').count(),
      0,
      'the current value offers no put back',
    )
    await past.locator('[data-fm="put-back"]').click()
    const toast = page.locator('[data-fm="toast"]').filter({ hasText: 'Put back orchard · owner = Mira Chen' })
    await toast.waitFor()
    await page.locator('fm-library [data-fm="detail-value"]').filter({ hasText: 'Mira Chen' }).waitFor()
    await page.locator('fm-library [data-fm="detail"] dd').filter({ hasText: 'you confirmed it' }).waitFor()
    let owner = (await current()).filter((fact) => fact.subject === 'orchard' && fact.property === 'owner')
    assert.deepEqual(
      owner.map((fact) => [fact.value, fact.evidence]),
      [['Mira Chen', 'confirmed_user']],
    )
    await screenshot(page, 'put-back-light')

    await toast.getByRole('button', { name: 'Undo' }).click()
    await page.locator('[data-fm="toast"]').filter({ hasText: 'Undone: the value before is current again' }).waitFor()
    owner = (await current()).filter((fact) => fact.subject === 'orchard' && fact.property === 'owner')
    assert.deepEqual(
      owner.map((fact) => [fact.value, fact.evidence]),
      [['Tomas Reyes', 'explicit_user']],
    )
    await closeClean(opened)

    // Dark, at 900 px: the history in the bottom sheet offers both past rows of the value, and not the current one.
    const narrow = await openLibrary({ width: 900, height: 900 }, 'dark')
    await row(narrow.page, 'Tomas Reyes').locator('button.row').click()
    const sheet = narrow.page.locator('fm-library [data-fm="detail"] .history li')
    await until(async () => (await sheet.count()) === 3, 'three values in the history')
    assert.equal(await sheet.filter({ hasText: 'Mira Chen' }).locator('[data-fm="put-back"]').count(), 2)
    assert.equal(await sheet.filter({ hasText: 'Tomas Reyes' }).locator('[data-fm="put-back"]').count(), 0)
    await sheet.last().scrollIntoViewIfNeeded()
    await screenshot(narrow.page, 'put-back-history-dark-900')
    await closeClean(narrow)
  })
})
