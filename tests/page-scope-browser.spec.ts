/**
 * Scopes on the fact library, in Debian's Chromium against a real DSH rc.8 web host with its own throwaway home:
 * the scope filter fed by the store's scopes, the scope on every row and in the detail (a project by its name, never
 * its path), and a move to another scope with its undo from the toast, and a refused move that would overwrite.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { screenshot, type HostPage } from './helpers/browser.ts'
import type { WebHost } from './helpers/dsh-host.ts'
import type { FactMemoryApi } from './helpers/fact-memory-web.ts'
import { closeClean, importLines, startPageHost, until, type PageHost, openOnTab } from './helpers/page-host.ts'

let env: PageHost | undefined
let host: WebHost
let browser: Browser
let api: FactMemoryApi

const BILLING = '/home/ada/src/billing-api'
const SHOP = '/home/ada/src/shop-web'

before(async () => {
  env = await startPageHost()
  ;({ host, browser, api } = env)
  const records = [
    { subject: 'user', property: 'editor', value: 'helix' },
    { subject: 'dev server', property: 'port', value: '5173', scope: `project:${BILLING}`, projectName: 'billing-api' },
    {
      subject: 'test command',
      property: 'value',
      value: 'pnpm vitest',
      scope: `project:${SHOP}`,
      projectName: 'shop-web',
    },
    { subject: 'dev server', property: 'port', value: '3000', scope: `project:${SHOP}`, projectName: 'shop-web' },
    { subject: 'cluster', property: 'region', value: 'eu-west-1', scope: 'infra' },
  ]
  await importLines(api, records)
})

after(async () => {
  await env?.stop()
})

function openLibrary(): Promise<HostPage> {
  return openOnTab({ browser, host }, 'library')
}

const rows = (page: Page) => page.locator('fm-library [data-fm="fact-list"] li button.row')
const rowScopes = async (page: Page): Promise<string[]> =>
  (await page.locator('fm-library [data-fm="fact-list"] [data-fm="row-scope"]').allInnerTexts()).sort()

describe('scopes in the fact library', () => {
  it("filters by a scope from the store's list, and names each row's scope, a project by its name only", async () => {
    const opened = await openLibrary()
    const { page } = opened
    await until(async () => (await rows(page).count()) === 5, 'every fact')
    assert.deepEqual(await rowScopes(page), [
      'global',
      'label infra',
      'project billing-api',
      'project shop-web',
      'project shop-web',
    ])
    const filter = page.locator('fm-library select[data-fm="scope-filter"]')
    assert.deepEqual(await filter.locator('option').allInnerTexts(), [
      'Any scope',
      'global (1)',
      'project billing-api (1)',
      'project shop-web (2)',
      'label infra (1)',
    ])
    assert.doesNotMatch(await page.locator('fm-library').innerText(), /\/home\/ada/u, 'no path on the page')

    await filter.selectOption({ label: 'project shop-web (2)' })
    await until(async () => (await rows(page).count()) === 2, 'the shop-web filter')
    assert.deepEqual(await rowScopes(page), ['project shop-web', 'project shop-web'])
    await screenshot(page, 'library-scope-filter')
    await filter.selectOption({ label: 'Any scope' })
    await until(async () => (await rows(page).count()) === 5, 'the filter cleared')
    await closeClean(opened)
  })

  it("moves a fact to another scope from its detail, and the toast's Undo moves it back", async () => {
    const opened = await openLibrary()
    const { page } = opened
    const row = rows(page).filter({ hasText: 'user · editor' })
    await row.waitFor()
    await row.click()
    const detail = page.locator('fm-library [data-fm="detail"]')
    assert.equal(await detail.locator('[data-fm="detail-scope"]').innerText(), 'global')
    // The selected row is highlighted across its pin and forget cells too.
    const selected = page.locator('fm-library [data-fm="fact-list"] li.fact').filter({ hasText: 'user · editor' })
    // Browser code as text: the specs compile without the DOM's types. Each cell's first painted background upwards.
    const paintedBehind = new Function(
      'li',
      `return [li, li.querySelector('fm-pin-button'), li.querySelector('fm-forget')].map((element) => {
      let node = element
      while (node !== null && getComputedStyle(node).backgroundColor === 'rgba(0, 0, 0, 0)') node = node.parentElement
      return node === null ? 'none' : getComputedStyle(node).backgroundColor
    })`,
    ) as (li: unknown) => string[]
    const backgrounds = await selected.evaluate(paintedBehind)
    assert.notEqual(backgrounds[0], 'none', 'the selected row has a highlight')
    assert.deepEqual(backgrounds, [backgrounds[0], backgrounds[0], backgrounds[0]], 'the pin and forget cells share it')
    const target = detail.locator('select[name="move-to"]')
    assert.deepEqual(await target.locator('option').allInnerTexts(), [
      'choose…',
      'project billing-api',
      'project shop-web',
      'label infra',
      'New label…',
    ])
    const move = detail.getByRole('button', { name: 'Move', exact: true })
    assert.equal(await move.isDisabled(), true, 'Move waits for a choice')
    assert.match(String(await move.getAttribute('title')), /Choose a scope/u)
    await target.selectOption({ label: 'project billing-api' })
    await detail.getByRole('button', { name: 'Move', exact: true }).click()
    const toast = page.locator('[data-fm="toast"]').filter({ hasText: 'Moved user · editor to project billing-api' })
    await toast.waitFor()
    await until(
      async () => (await detail.locator('[data-fm="detail-scope"]').innerText()) === 'project billing-api',
      'the detail in its new scope',
    )
    await until(async () => (await row.innerText()).includes('project billing-api'), 'the row in its new scope')
    await screenshot(page, 'library-scope-moved')

    await toast.getByRole('button', { name: 'Undo' }).click()
    await page.locator('[data-fm="toast"]').filter({ hasText: 'Undone' }).waitFor()
    await until(async () => (await row.innerText()).includes('global'), 'the row back in global')
    await closeClean(opened)
  })

  it('moves a fact to a new label typed in its detail, and adds a fact under another new label', async () => {
    const opened = await openLibrary()
    const { page } = opened
    const row = rows(page).filter({ hasText: 'cluster · region' })
    await row.waitFor()
    await row.click()
    const detail = page.locator('fm-library [data-fm="detail"]')
    await detail.locator('select[name="move-to"]').selectOption({ label: 'New label…' })
    await detail.getByRole('button', { name: 'Move', exact: true }).click()
    await page.locator('[data-fm="toast"]').filter({ hasText: "Type the new label's name." }).waitFor()
    await detail.getByLabel('New label').fill('platform  ops')
    await detail.getByRole('button', { name: 'Move', exact: true }).click()
    await page
      .locator('[data-fm="toast"]')
      .filter({ hasText: 'Moved cluster · region to label platform ops' })
      .waitFor()
    await until(
      async () => (await detail.locator('[data-fm="detail-scope"]').innerText()) === 'label platform ops',
      'the detail in the new label',
    )

    await page.locator('fm-library [data-fm="add-fact"]').click()
    const form = page.locator('fm-library [data-fm="add-dialog"][open]')
    await form.getByLabel('Subject', { exact: true }).fill('pager')
    await form.getByLabel('Property', { exact: true }).fill('rotation')
    await form.getByLabel('Value', { exact: true }).fill('weekly')
    await form.getByLabel('Scope of the new fact').selectOption({ label: 'New label…' })
    await form.getByLabel('New label', { exact: true }).fill('on-call')
    await form.locator('[data-fm="add-submit"]').click()
    await page.locator('[data-fm="toast"]').filter({ hasText: 'Added pager · rotation = weekly' }).waitFor()
    const added = (
      (await api.ok('facts', { status: 'current', limit: 100 }))['facts'] as {
        subject: string
        scopeKind: string
        scopeName: string
      }[]
    )
      .filter((fact) => fact.subject === 'pager' || fact.subject === 'cluster')
      .map((fact) => `${fact.subject} ${fact.scopeKind} ${fact.scopeName}`)
      .sort()
    assert.deepEqual(added, ['cluster label platform ops', 'pager label on-call'])
    await closeClean(opened)
  })

  it('refuses a move that would overwrite the value the target project holds, and says which', async () => {
    const opened = await openLibrary()
    const { page } = opened
    const row = rows(page).filter({ hasText: 'dev server · port: 5173' })
    await row.waitFor()
    await row.click()
    const detail = page.locator('fm-library [data-fm="detail"]')
    await detail.locator('select[name="move-to"]').selectOption({ label: 'project shop-web' })
    await detail.getByRole('button', { name: 'Move', exact: true }).click()
    await page
      .locator('[data-fm="toast"]')
      .filter({ hasText: /shop-web already holds dev server · port = 3000/u })
      .waitFor()
    assert.equal(await detail.locator('[data-fm="detail-scope"]').innerText(), 'project billing-api')
    await opened.close()
    // The refusal is the route's 409, which the browser logs as a failed load; nothing else went wrong.
    assert.deepEqual(opened.errors, ['Failed to load resource: the server responded with a status of 409 (Conflict)'])
  })
})
