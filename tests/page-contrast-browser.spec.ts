/**
 * Legibility in Debian's Chromium against a real DSH rc.8 web host: every visible text and control of the page (each
 * tab, a fact's detail pane, the Add and Forget dialogs, the Export menu) and of the settings card reads at 4.5:1 or more against what
 * it is drawn on, measured from computed styles in the light and the dark theme. Disabled controls are exempt. A row's
 * pin and forget draw SVG icons with a hit area of 24×24 or more (the pause and resume toggles: page-browser); a row
 * names its qualifiers and marks a sensitive value.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Locator, Page } from 'playwright-core'
import { assertIconButton, openHost, openPluginCard } from './helpers/browser.ts'
import { converse, writeCall } from './helpers/fact-memory-web.ts'
import { closeClean, startPageHost, type PageHost } from './helpers/page-host.ts'
import { lowContrastUnder } from './helpers/svg-contrast.ts'

let env: PageHost | undefined

before(async () => {
  env = await startPageHost()
  // A current fact, a contested slot (a conflict), a proposal (low confidence) and a scheduled value: every pill.
  await converse(env.host.url, env.model, env.home.workspace, 'remember these', {
    toolCalls: [
      writeCall({ subject: 'billing-api', property: 'port', value: '7801', evidence: 'observed' }),
      writeCall({ subject: 'billing-api', property: 'port', value: '7802', evidence: 'unverified' }),
      writeCall({ subject: 'user', property: 'editor', value: 'Neovim', evidence: 'observed' }),
      writeCall({ subject: 'release', property: 'freeze', value: 'code freeze', valid_from: '2099-01-01' }),
      writeCall({ subject: 'db', property: 'engine', value: 'postgres', confidence: 0.3 }),
      writeCall({
        subject: 'billing-api',
        property: 'port',
        value: '17801',
        qualifiers: { env: 'staging' },
        evidence: 'observed',
      }),
      writeCall({ subject: 'ops lead', property: 'phone', value: '+1 415 555 0134', evidence: 'observed' }),
    ],
  })
})

after(async () => {
  await env?.stop()
})

/** Assert nothing under the element reads below 4.5:1. */
async function legible(element: Locator, where: string): Promise<void> {
  await element.first().waitFor()
  const low = await lowContrastUnder(element.first())
  assert.deepEqual(
    low,
    [],
    `${where}: ${low.map((text) => `"${text.text}" (${text.tag}) at ${text.ratio}:1`).join('; ')}`,
  )
}

async function openTab(page: Page, tab: string): Promise<void> {
  await page.locator(`fm-page nav button[data-tab="${tab}"]`).click()
  await page.locator(`fm-page nav button[data-tab="${tab}"][aria-selected="true"]`).waitFor()
}

describe('every text and control reads at 4.5:1 or more', () => {
  for (const theme of ['light', 'dark'] as const) {
    it(`in the ${theme} theme: each tab, a detail pane, the Add and Forget dialogs, the Export menu, the settings card`, async () => {
      if (env === undefined) throw new Error('no host')
      const opened = await openHost(env.browser, env.host.url, undefined, theme)
      const { page } = opened
      await page.locator('[data-fm="sidebar-entry"]').click()
      const fmPage = page.locator('fm-page')
      await openTab(page, 'proposals')
      await page.locator('fm-proposals').getByText('postgres').first().waitFor()
      await legible(fmPage, `${theme} proposals`)
      await openTab(page, 'conflicts')
      await page.locator('fm-conflicts').getByText('7802').first().waitFor()
      await legible(fmPage, `${theme} conflicts`)
      await openTab(page, 'extraction')
      await legible(fmPage, `${theme} extraction queue`)
      await openTab(page, 'library')
      const rows = page.locator('fm-library [data-fm="fact-list"] li.fact')
      await rows.filter({ hasText: 'code freeze' }).waitFor()
      await legible(fmPage, `${theme} library`)
      // A qualified value and a sensitive one say so on their rows.
      assert.match(await rows.filter({ hasText: '17801' }).innerText(), /billing-api · port \(env=staging\): 17801/u)
      assert.match(
        await rows.filter({ hasText: 'ops lead' }).locator('[data-fm="row-sensitive"]').innerText(),
        /^sensitive: phone$/u,
      )
      const editor = rows.filter({ hasText: 'Neovim' })
      await assertIconButton(editor.locator('[data-fm="pin"]'), "a row's pin")
      await assertIconButton(editor.locator('[data-fm="forget"]'), "a row's forget")
      await rows.filter({ hasText: 'Neovim' }).click()
      await page.locator('fm-library [data-fm="detail"]').filter({ hasText: 'Neovim' }).waitFor()
      await legible(fmPage, `${theme} library with a detail pane`)
      await page.locator('fm-library [data-fm="add-fact"]').click()
      const add = page.locator('fm-library [data-fm="add-dialog"][open]')
      await legible(add, `${theme} add dialog`)
      await add.getByRole('button', { name: 'Cancel' }).click()
      await page.locator('fm-library [data-fm="export"]').click()
      await legible(page.locator('fm-library [data-fm="export-menu"]'), `${theme} export menu`)
      await page.keyboard.press('Escape')
      await page.locator('fm-library [data-fm="export-menu"]').waitFor({ state: 'detached' })
      await rows.filter({ hasText: 'Neovim' }).locator('[data-fm="forget"]').click()
      const forget = page.locator('fm-library [data-fm="forget-dialog"][open]')
      await forget.locator('[data-fm="forget-list"]').waitFor()
      await legible(forget, `${theme} forget dialog`)
      await forget.getByRole('button', { name: 'Cancel' }).click()
      await page.getByRole('button', { name: 'Close Fact memory' }).click()
      const card = await openPluginCard(page)
      await card
        .locator('[data-fm="card-counts"]')
        .filter({ hasText: /current facts/u })
        .waitFor()
      await legible(card, `${theme} settings card`)
      await closeClean(opened)
    })
  }
})
