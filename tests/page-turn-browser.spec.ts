/**
 * A turn's tail in Debian's Chromium against a real DSH rc.8 web host with its own throwaway home: the seat shared
 * with the host's produced-files card, and automatic extraction reading a turn and showing what it wrote. Split from
 * page-library-browser.spec.ts so the two run side by side.
 */
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { openHost, screenshot } from './helpers/browser.ts'
import type { DshHome, WebHost } from './helpers/dsh-host.ts'
import { hostApi, writeCall, type FactMemoryApi } from './helpers/fact-memory-web.ts'
import type { FakeModel } from './helpers/fake-model.ts'
import { closeClean, until, usePageHost } from './helpers/page-host.ts'

let model: FakeModel
let home: DshHome
let host: WebHost
let browser: Browser
let api: FactMemoryApi

usePageHost((env) => {
  ;({ model, home, host, browser, api } = env)
})

describe('the turn-tail seat shared with the host', () => {
  /** Send one message through the composer and wait for the scripted turn to finish. */
  async function turn(page: Page, text: string, steps: Parameters<FakeModel['enqueue']>): Promise<void> {
    model.reset()
    model.enqueue(...steps)
    const box = page.locator('textarea').first()
    await box.fill(text)
    await box.press('Enter')
    await until(async () => model.agentRequests().length >= steps.length, 'the turn')
  }

  it('leaves the produced-files card to the host on a turn without facts, and carries the files on a turn with facts', async () => {
    const opened = await openHost(browser, host.url)
    const { page } = opened
    await turn(page, 'Write notes.md please.', [
      {
        toolCalls: [
          { name: 'write', arguments: { file_path: join(home.workspace, 'notes.md'), content: '# notes\n' } },
        ],
      },
      { text: 'Written.' },
    ])
    await until(async () => existsSync(join(home.workspace, 'notes.md')), 'the file')
    // The host's own card names the file; ours stays away.
    await page.getByText('notes.md').filter({ visible: true }).first().waitFor()
    await page.waitForTimeout(1000)
    assert.equal(await page.locator('[data-fm="turn-tail"]').count(), 0)
    await screenshot(page, 'turn-without-facts')

    await turn(page, 'Write todo.md, and remember that reports-api runs on port 7500.', [
      {
        toolCalls: [{ name: 'write', arguments: { file_path: join(home.workspace, 'todo.md'), content: '- ship\n' } }],
      },
      {
        toolCalls: [
          writeCall({
            subject: 'reports-api',
            property: 'port',
            value: '7500',
            evidence: 'explicit_user',
            quote: 'reports-api runs on port 7500',
          }),
        ],
      },
      { text: 'Done both.' },
    ])
    const card = page.locator('[data-fm="turn-tail"]')
    await card.waitFor({ timeout: 30_000 })
    assert.match(await card.innerText(), /this turn wrote 1 fact/u)
    await card.getByRole('button', { name: /todo\.md/u }).waitFor()
    await screenshot(page, 'turn-with-facts-and-files')
    await closeClean(opened)
  })
})

describe('automatic extraction in a real browser', () => {
  it('shows "reading this turn…" until the pass settles, then what it wrote, and the pass in the extraction tab', async () => {
    await hostApi(host.url, 'settings.update', {
      ns: 'dsh-fact-memory',
      patch: { autoExtract: true, extractDelayMs: 200 },
    })
    try {
      const opened = await openHost(browser, host.url)
      const { page } = opened
      await until(async () => (await api.ok('status', { summary: true }))['autoExtract'] === true, 'autoExtract on')
      await page.reload()
      await page.locator('[data-fm="sidebar-entry"]').waitFor()
      model.reset()
      model.enqueue({ text: 'Noted.' })
      model.enqueueExtraction({
        delayMs: 2500,
        text: JSON.stringify({
          facts: [
            {
              subject: 'reports-db',
              property: 'port',
              value: '5433',
              quote: 'reports-db runs on port 5433',
              confidence: 0.9,
            },
          ],
        }),
      })
      const box = page.locator('textarea').first()
      await box.fill('Remember that reports-db runs on port 5433.')
      await box.press('Enter')
      const card = page.locator('[data-fm="turn-tail"]')
      await card.filter({ hasText: 'reading this turn' }).waitFor({ timeout: 20_000 })
      await screenshot(page, 'turn-reading')
      await card.filter({ hasText: /this turn wrote 1 fact/u }).waitFor({ timeout: 20_000 })
      assert.equal(await card.filter({ hasText: 'reading this turn' }).count(), 0)
      await screenshot(page, 'turn-extracted')

      await page.locator('[data-fm="sidebar-entry"]').click()
      await page.locator('fm-page nav button[data-tab="extraction"]').click()
      const run = page.locator('fm-extraction [data-fm="run"]').first()
      await run.filter({ hasText: /1 written/u }).waitFor()
      await run.locator('button.row').click()
      await page
        .locator('fm-extraction [data-fm="run-text"]')
        .filter({ hasText: 'reports-db runs on port 5433' })
        .waitFor()
      await screenshot(page, 'extraction-tab')
      await closeClean(opened)
    } finally {
      await hostApi(host.url, 'settings.update', {
        ns: 'dsh-fact-memory',
        patch: { autoExtract: false, extractDelayMs: 5000 },
      })
    }
  })
})
