/**
 * What the page gives a person to decide with, in Debian's Chromium against a real DSH rc.8 web host: conflicts
 * and proposals show the words, the source and the date of each side in plain words; the one-hop tree shows which
 * way a relation points, keeps its labels apart and takes a centre; at 900 px the detail sheet has a close control
 * and Esc closes the innermost thing first. Screenshots in both themes and at 900 px land in test-artifacts/.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { openHost, openPluginCard, screenshot, type HostPage } from './helpers/browser.ts'
import type { DshHome, WebHost } from './helpers/dsh-host.ts'
import { converse, writeCall } from './helpers/fact-memory-web.ts'
import type { FakeModel } from './helpers/fake-model.ts'
import { assertClean, closeClean, openFactPage, openTabOf, startPageHost, type PageHost } from './helpers/page-host.ts'

let env: PageHost | undefined
let model: FakeModel
let home: DshHome
let host: WebHost
let browser: Browser

before(async () => {
  env = await startPageHost()
  ;({ model, home, host, browser } = env)
  await converse(
    host.url,
    model,
    home.workspace,
    'billing-api runs on port 7801. checkout-web depends on billing-api.',
    {
      toolCalls: [
        writeCall({
          subject: 'billing-api',
          property: 'port',
          value: '7801',
          evidence: 'explicit_user',
          quote: 'billing-api runs on port 7801',
        }),
      ],
    },
    {
      toolCalls: [
        writeCall({
          subject: 'checkout-web',
          property: 'depends on',
          value: 'billing-api',
          evidence: 'explicit_user',
          quote: 'checkout-web depends on billing-api',
        }),
      ],
    },
    {
      toolCalls: [
        writeCall({
          subject: 'billing-api',
          property: 'owner',
          value: 'team payments',
          evidence: 'explicit_user',
          quote: 'team payments owns it',
        }),
      ],
    },
    // A weaker source contradicting the user: a conflict. An inferred value: a proposal.
    {
      toolCalls: [
        writeCall({
          subject: 'billing-api',
          property: 'port',
          value: '7900',
          evidence: 'observed',
          quote: 'the dashboard shows billing-api on 7900',
        }),
      ],
    },
    {
      toolCalls: [
        writeCall({
          subject: 'billing-api',
          property: 'language',
          value: 'Go',
          evidence: 'inferred',
          quote: 'the repo is full of .go files',
        }),
      ],
    },
  )
})

after(async () => {
  await env?.stop()
})

function openPage(viewport = { width: 1440, height: 900 }, colorScheme: 'light' | 'dark' = 'light'): Promise<HostPage> {
  return openFactPage({ browser, host }, { viewport, colorScheme })
}

function tab(page: Page, name: string): Promise<void> {
  return openTabOf(page, name)
}

describe('deciding on the page', () => {
  // The three looks share one page, resized and switched between schemes as a user's window is.
  let shared: HostPage | undefined
  after(async () => {
    if (shared !== undefined) await closeClean(shared)
  })
  for (const [scheme, viewport] of [
    ['light', { width: 1440, height: 900 }],
    ['dark', { width: 1440, height: 900 }],
    ['light', { width: 900, height: 800 }],
  ] as const) {
    it(`a conflict shows each side's words, source and date, with buttons sized to their text (${scheme}, ${viewport.width} px)`, async () => {
      shared ??= await openPage(viewport, scheme)
      const opened = shared
      const { page } = opened
      await page.setViewportSize(viewport)
      await page.emulateMedia({ colorScheme: scheme })
      await tab(page, 'conflicts')
      const sides = page.locator('fm-conflicts [data-fm="conflict-side"]')
      await sides.first().waitFor()
      assert.equal(await sides.count(), 2)
      const texts = await sides.allInnerTexts()
      const stated = texts.find((text) => text.includes('7801')) ?? ''
      const seen = texts.find((text) => text.includes('7900')) ?? ''
      assert.match(stated, /“billing-api runs on port 7801”/u)
      assert.match(stated, /you said it · memory_write in conversation .+, turn \d+ · \d{4}-\d\d-\d\d \d\d:\d\d/u)
      assert.match(seen, /“the dashboard shows billing-api on 7900”/u)
      assert.match(seen, /observed · memory_write in conversation/u)
      for (const side of await sides.all()) {
        const width = (await side.boundingBox())?.width ?? 0
        const button = (await side.getByRole('button').boundingBox())?.width ?? 0
        const pill = (await side.locator('.pill').boundingBox())?.width ?? 0
        assert.ok(button < width * 0.6 && pill < width * 0.6, `button ${button}, pill ${pill} in a side ${width} wide`)
      }
      await screenshot(page, `conflicts-${scheme}-${viewport.width}`)

      await tab(page, 'proposals')
      const card = page.locator('fm-proposals [data-fm="proposal"]').first()
      await card.waitFor()
      await card.locator('[data-fm="row-effect"]').filter({ hasText: 'Accepting adds a new fact.' }).waitFor()
      const words = await card.innerText()
      assert.match(words, /Waits for you: the model inferred it, nobody said it\./u)
      assert.doesNotMatch(words, /confidence floor/u)
      assert.match(words, /“the repo is full of \.go files”/u)
      assert.match(words, /proposed in conversation .+, turn \d+ · \d{4}-\d\d-\d\d \d\d:\d\d/u)
      await screenshot(page, `proposals-${scheme}-${viewport.width}`)
      assertClean(opened)
    })
  }

  it('the one-hop tree points each relation from subject to value, keeps labels apart, and takes a centre', async () => {
    const opened = await openPage()
    const { page } = opened
    await page.locator('fm-graph').getByRole('button', { name: 'One-hop tree' }).click()
    await page.locator('fm-graph [data-fm="tree-center"]').fill('billing-api')
    await page.locator('fm-graph [data-fm="tree-center"]').press('Enter')
    const tree = page.locator('fm-graph fm-svg-tree [data-fm="svg-tree"]')
    await tree.locator('g.node.center', { hasText: 'billing-api' }).waitFor()
    const dependsOn = tree.locator('[data-fm="tree-edge"][data-source="e:checkout web"]')
    assert.equal(await dependsOn.getAttribute('data-target'), 'e:billing api')
    assert.equal(await dependsOn.locator('line.edge').getAttribute('marker-end'), 'url(#fm-arrow)')
    const boxes = await tree
      .locator('[data-fm="tree-edge-label"]')
      .evaluateAll((labels) =>
        labels.map(
          (label) => label.getBoundingClientRect().toJSON() as { x: number; y: number; width: number; height: number },
        ),
      )
    assert.ok(boxes.length >= 2, `${boxes.length} edge labels`)
    for (const [i, a] of boxes.entries()) {
      for (const b of boxes.slice(i + 1))
        assert.ok(
          !(a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height),
          'edge labels overlap',
        )
    }
    await screenshot(page, 'tree-billing-api')
    await page.locator('fm-graph [data-fm="tree-center"]').fill('checkout-web')
    await page.locator('fm-graph [data-fm="tree-center"]').press('Enter')
    await tree.locator('g.node.center', { hasText: 'checkout-web' }).waitFor()
    await closeClean(opened)
  })

  for (const [scheme, width] of [
    ['light', 1440],
    ['dark', 1440],
  ] as const) {
    it(`the settings card reads like the host's: words with the key beside, Save and Discard, the semantic keys among the everyday ones and their tuning under Advanced (${scheme}, ${width} px)`, async () => {
      const opened = await openHost(browser, host.url, { width, height: 900 }, scheme)
      const { page } = opened
      const card = await openPluginCard(page)
      await card
        .locator('[data-fm="card-counts"]')
        .filter({ hasText: /current facts/u })
        .waitFor()
      const field = card.locator('[data-field="injectDirectory"] label')
      assert.match(await field.innerText(), /^Inject directory\s+injectDirectory$/u)
      assert.equal(await card.locator('.field label', { hasText: /^dataDir$/u }).count(), 0)
      // Every key is active: the endpoint keys sit among the everyday keys with their descriptions, their tuning
      // under the folded Advanced section, and nothing is set apart as "not active".
      assert.doesNotMatch(await card.innerText(), /not active/iu)
      for (const [key, words] of [
        ['embeddingSource', /OpenAI-compatible POST <base>\/embeddings/u],
        ['embeddingBaseUrl', /Embedding endpoint base URL/u],
        ['embeddingModel', /Embedding model id/u],
        ['rerankSource', /it filters them only once calibrated/u],
      ] as const) {
        const row = card.locator(`[data-field="${key}"]`)
        assert.equal(await row.count(), 1, key)
        assert.equal(
          await row.evaluate(
            (element) => (element as unknown as { closest(selector: string): unknown }).closest('details') === null,
          ),
          true,
          `${key} is an everyday key`,
        )
        assert.match(await row.locator('.caption').innerText(), words)
      }
      const advanced = card
        .locator('details')
        .filter({ has: card.page().locator('summary', { hasText: /^Advanced$/u }) })
      assert.equal(await advanced.count(), 1)
      assert.equal(await advanced.evaluate((details) => (details as unknown as { open: boolean }).open), false)
      for (const key of ['embeddingDim', 'rerankScoreMode', 'vectorIndexIntervalMs']) {
        assert.equal(
          await advanced.locator(`[data-field="${key}"] .caption`).count(),
          1,
          `${key} is under Advanced, with its description`,
        )
      }
      assert.equal(await card.locator('fm-svg-tree').count(), 0, 'no unreadable graph preview')
      const key = card.locator('input[name="api-key"]')
      const fits = await key.evaluate((input) => {
        const element = input as unknown as {
          clientWidth: number
          placeholder: string
          ownerDocument: {
            createElement(tag: string): {
              getContext(kind: string): { font: string; measureText(text: string): { width: number } } | null
            }
          }
        }
        const context = element.ownerDocument.createElement('canvas').getContext('2d')
        if (context === null) return true
        context.font = '14px sans-serif'
        return context.measureText(element.placeholder).width <= element.clientWidth
      })
      assert.ok(fits, 'the key field shows its whole placeholder')
      await card.locator('#fm-setting-injectDirectory').uncheck()
      await card.locator('[data-fm="card-save"]').first().waitFor()
      await screenshot(page, `settings-card-${scheme}-${width}`)
      await card.locator('[data-fm="card-save"]').first().getByRole('button', { name: 'Discard' }).click()
      await card.locator('[data-fm="card-save"]').first().waitFor({ state: 'detached' })
      assert.equal(await card.locator('#fm-setting-injectDirectory').isChecked(), true)
      await closeClean(opened)
    })
  }

  it('at 900 px the detail sheet has a close control, and Esc closes the sheet before the page', async () => {
    const opened = await openPage({ width: 900, height: 800 })
    const { page } = opened
    // Nothing of the app shows through the panel's margin: the sidebar entry's spot is under the page's backdrop.
    const entry = await page.locator('[data-fm="sidebar-entry"]').first().boundingBox()
    assert.ok(entry !== null)
    const under = await page.locator('body').evaluate(
      (body, [x, y]) => {
        const hit = (
          body as unknown as {
            ownerDocument: { elementFromPoint(x: number, y: number): { closest(selector: string): unknown } | null }
          }
        ).ownerDocument.elementFromPoint(x ?? 0, y ?? 0)
        return (
          hit !== null &&
          hit.closest('[data-fm="page-backdrop"]') !== null &&
          hit.closest('[data-fm="sidebar-entry"]') === null
        )
      },
      [Math.max(1, entry.x + 2), entry.y + entry.height / 2],
    )
    assert.ok(under, 'the sidebar entry shows through beside the page')
    await screenshot(page, 'page-900-open')
    await tab(page, 'library')
    await page.locator('fm-library [data-fm="fact-list"] li button.row').first().click()
    const close = page.locator('fm-library [data-fm="sheet-close"]')
    await close.waitFor()
    await screenshot(page, 'library-sheet-900')
    await close.click()
    await close.waitFor({ state: 'detached' })

    await page.locator('fm-library [data-fm="fact-list"] li button.row').first().click()
    await close.waitFor()
    await page.keyboard.press('Escape')
    await close.waitFor({ state: 'detached' })
    assert.equal(await page.locator('fm-page').count(), 1, 'the first Esc closes only the sheet')
    await page.keyboard.press('Escape')
    await page.locator('fm-page').waitFor({ state: 'detached' })
    await closeClean(opened)
  })
})
