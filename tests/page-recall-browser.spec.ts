/**
 * Per-turn recall as the user sees it: a real DSH rc.8 web host whose directory budget is too small for any line, so
 * every fact a message asks about comes through recall; Debian's Chromium shows the turn's card saying what was
 * recalled, the drawer listing those facts, and the settings card naming the setting and what it cost.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Browser } from 'playwright-core'
import { openHost, openPluginCard, screenshot } from './helpers/browser.ts'
import type { WebHost } from './helpers/dsh-host.ts'
import { converse, writeCall, type FactMemoryApi } from './helpers/fact-memory-web.ts'
import { messageText, type FakeModel } from './helpers/fake-model.ts'
import { closeClean, until, usePageHost } from './helpers/page-host.ts'

let model: FakeModel
let host: WebHost
let browser: Browser
let api: FactMemoryApi

usePageHost(
  async (env) => {
    ;({ model, host, browser, api } = env)
    await converse(
      host.url,
      model,
      env.home.workspace,
      'search-api listens on 7300 and team discovery owns search-api; Ana leads team payments.',
      {
        toolCalls: [
          writeCall({
            subject: 'search-api',
            property: 'port',
            value: '7300',
            evidence: 'explicit_user',
            quote: 'search-api listens on 7300',
          }),
        ],
      },
      {
        toolCalls: [
          writeCall({
            subject: 'search-api',
            property: 'owner',
            value: 'team discovery',
            evidence: 'explicit_user',
            quote: 'team discovery owns search-api',
          }),
        ],
      },
      {
        toolCalls: [
          writeCall({
            subject: 'team payments',
            property: 'lead',
            value: 'Ana',
            evidence: 'explicit_user',
            quote: 'Ana leads team payments',
          }),
        ],
      },
    )
  },
  { webPatch: '- id: dsh-fact-memory\n  config:\n    directoryBudget: 40\n' },
)

describe('per-turn recall in the browser', () => {
  it("the turn's card says what was recalled, and the drawer lists those facts", async () => {
    const opened = await openHost(browser, host.url)
    const { page } = opened
    model.reset()
    model.enqueue({ text: 'search-api listens on 7300, owned by team discovery.' })
    const box = page.locator('textarea').first()
    await box.fill('Which port is search-api on, and who is the owner of search-api?')
    await box.press('Enter')
    await until(async () => model.agentRequests().length >= 1, 'the turn')
    const sent = model.agentRequests()[0]?.body.messages.map(messageText).join('\n') ?? ''
    assert.match(sent, /Fact memory recalled for this message/u)
    assert.match(sent, /search-api · port: 7300 \[#\d+/u)

    const card = page.locator('[data-fm="turn-tail"]')
    await card.filter({ hasText: /2 facts recalled/u }).waitFor({ timeout: 30_000 })
    assert.doesNotMatch(await card.innerText(), /wrote/u, 'a turn that only recalled says only that')
    await screenshot(page, 'turn-recalled')
    await card.getByRole('button', { name: 'View' }).click()
    const recalled = page.locator('[data-fm="drawer-recalled"]')
    await recalled.waitFor()
    await recalled.getByText('search-api · port: 7300').waitFor()
    await recalled.getByText('search-api · owner: team discovery').waitFor()
    assert.doesNotMatch(await recalled.innerText(), /Ana/u)
    await screenshot(page, 'drawer-recalled')
    await recalled.page().locator('[data-fm="drawer"]').getByRole('button', { name: 'Close' }).click()

    // The same question again in this conversation: those facts are still in front of the model, so no second block.
    model.reset()
    model.enqueue({ text: 'Same as before.' })
    await box.fill('Which port is search-api on again, and who is the owner of search-api?')
    await box.press('Enter')
    await until(async () => model.agentRequests().length >= 1, 'the second turn')
    const again = (model.agentRequests()[0]?.body.messages ?? [])
      .map(messageText)
      .filter((text) => text.startsWith('Fact memory recalled for this message'))
    assert.equal(again.length, 1, "only the first turn's block, in the history")
    await closeClean(opened)
  })

  it('the settings card names the setting and what recall cost the latest messages; status reports the same', async () => {
    const status = await api.ok('status', {})
    const recall = status['recall'] as {
      on: boolean
      budgetChars: number
      recent: { turns: number; withBlock: number; factsPerTurn: number }
    }
    assert.equal(recall.on, true)
    assert.equal(recall.budgetChars, 1200)
    assert.ok(recall.recent.turns >= 1 && recall.recent.withBlock >= 1, JSON.stringify(recall))
    const opened = await openHost(browser, host.url)
    const { page } = opened
    await openPluginCard(page)
    const line = page.locator('fm-settings-card [data-fm="card-recall"]')
    await line
      .filter({
        hasText:
          /Per-turn recall: up to 8 facts and 1,200 characters with each message; over the last \d+ messages? it added/u,
      })
      .waitFor()
    await screenshot(page, 'settings-card-recall')
    await closeClean(opened)
  })
})
