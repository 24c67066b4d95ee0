/**
 * The subject panel in Debian's Chromium against a real DSH rc.8 web host with its own throwaway home: opened from a
 * library row's detail, it renames a subject, lists the old name as an alias, and the model's next memory_write
 * under the old name (through the real host with the fake model) lands on the new one; a property is renamed from
 * its slot and the toast's Undo puts it back; typing another subject's name turns Rename into Merge and says what
 * it does, and the merge opens a conflict; an alias is removed. Screenshots in light, dark and at 900 px.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Locator, Page } from 'playwright-core'
import { openHost, screenshot, type HostPage } from './helpers/browser.ts'
import type { DshHome, WebHost } from './helpers/dsh-host.ts'
import { converse, writeCall, type FactMemoryApi } from './helpers/fact-memory-web.ts'
import type { FakeModel } from './helpers/fake-model.ts'
import { closeClean, startPageHost, until, type PageHost } from './helpers/page-host.ts'

let env: PageHost | undefined
let model: FakeModel
let home: DshHome
let host: WebHost
let browser: Browser
let api: FactMemoryApi

interface EntityAnswer {
  entity: { display: string }
  properties: { property: string; facts: { value: string; status: string }[] }[]
}

before(async () => {
  env = await startPageHost()
  ;({ model, home, host, browser, api } = env)
  await converse(
    host.url,
    model,
    home.workspace,
    'Billing Svc runs on 7801, owned by team payments; the ledger runs on 7802.',
    {
      toolCalls: [
        writeCall({ subject: 'Billing Svc', property: 'port', value: '7801', evidence: 'explicit_user' }),
        writeCall({ subject: 'Billing Svc', property: 'owner', value: 'team payments', evidence: 'explicit_user' }),
        writeCall({ subject: 'ledger', property: 'port', value: '7802', evidence: 'explicit_user' }),
      ],
    },
  )
})

after(async () => {
  await env?.stop()
})

async function openSubject(
  subject: string,
  viewport?: { width: number; height: number },
  scheme: 'light' | 'dark' = 'light',
): Promise<HostPage & { panel: Locator }> {
  const opened = await openHost(browser, host.url, viewport, scheme)
  const { page } = opened
  await page.locator('[data-fm="sidebar-entry"]').click()
  await page.locator('fm-page nav button[data-tab="library"]').click()
  const row = page
    .locator('fm-library [data-fm="fact-list"] li button.row')
    .filter({ hasText: `${subject} · ` })
    .first()
  await row.waitFor()
  await row.click()
  await page.locator('fm-library [data-fm="open-subject"]').click()
  const panel = page.locator('fm-entity-panel')
  await panel.locator('[data-fm="entity-name"]').waitFor()
  return { ...opened, panel }
}

const entity = async (subject: string): Promise<EntityAnswer> =>
  (await api.ok('entity', { subject })) as unknown as EntityAnswer
const toast = (page: Page, text: string | RegExp) => page.locator('[data-fm="toast"]').filter({ hasText: text })

describe('the subject panel in a real browser', () => {
  it("renames a subject; the old name is listed as an alias and the model's next memory_write under it lands on the new name", async () => {
    const opened = await openSubject('Billing Svc')
    const { page, panel } = opened
    assert.equal(await panel.locator('[data-fm="entity-name"]').innerText(), 'Billing Svc')
    assert.match(await panel.locator('[data-fm="aliases-empty"]').innerText(), /No aliases yet/u)
    await panel.locator('input[name="subject-to"]').fill('billing-api')
    await until(
      async () => (await panel.locator('[data-fm="subject-rename-submit"]').innerText()) === 'Rename',
      'a free name renames',
    )
    await panel.locator('[data-fm="subject-rename-submit"]').click()
    await toast(page, 'Renamed “Billing Svc” to “billing-api”').waitFor()
    await until(
      async () => (await panel.locator('[data-fm="entity-name"]').innerText()) === 'billing-api',
      'the panel under the new name',
    )
    assert.deepEqual(await panel.locator('[data-fm="entity-alias"] .what').allInnerTexts(), [
      '“Billing Svc” → this subject renamed here',
    ])
    await screenshot(page, 'subject-renamed-light')

    await converse(host.url, model, home.workspace, 'Billing Svc is deployed in eu-west.', {
      toolCalls: [
        writeCall({ subject: 'Billing Svc', property: 'region', value: 'eu-west', evidence: 'explicit_user' }),
      ],
    })
    const renamed = await entity('billing-api')
    assert.deepEqual(renamed.properties.map((group) => group.property).sort(), ['owner', 'port', 'region'])
    assert.equal(renamed.entity.display, 'billing-api')
    await page.locator('fm-page').getByRole('button', { name: 'Refresh now' }).click()
    await until(
      async () =>
        (await panel.locator('[data-fm="entity-property"]').allInnerTexts()).some((text) => text.includes('eu-west')),
      'the new write on the panel',
    )
    await closeClean(opened)
  })

  it("renames a property from its slot, and the toast's Undo puts it back", async () => {
    const opened = await openSubject('billing-api', undefined, 'dark')
    const { page, panel } = opened
    await panel.getByRole('button', { name: 'Rename the property owner' }).click()
    await panel.locator('input[name="property-to"]').fill('maintained by')
    await panel.getByRole('button', { name: 'Save' }).click()
    const done = toast(page, 'Renamed billing-api · “owner” to “maintained by”')
    await done.waitFor()
    await until(
      async () =>
        (await panel.locator('[data-fm="entity-property"] .property').allInnerTexts()).includes('maintained by'),
      'the renamed property',
    )
    assert.ok(
      (await panel.locator('[data-fm="entity-alias"] .what').allInnerTexts()).includes(
        'property “owner” → “maintained by” renamed here',
      ),
    )
    await screenshot(page, 'subject-property-renamed-dark')
    await done.getByRole('button', { name: 'Undo' }).click()
    await toast(page, 'Undone: the old name is its own again').waitFor()
    await until(
      async () => (await panel.locator('[data-fm="entity-property"] .property').allInnerTexts()).includes('owner'),
      'the property back',
    )
    assert.deepEqual((await entity('billing-api')).properties.map((group) => group.property).sort(), [
      'owner',
      'port',
      'region',
    ])
    await closeClean(opened)
  })

  it("turns Rename into Merge for another subject's name, says what it does, and the merge opens a conflict; an alias is removed", async () => {
    const opened = await openSubject('ledger', { width: 900, height: 800 })
    const { page, panel } = opened
    await panel.locator('input[name="subject-to"]').fill('billing-api')
    await until(
      async () => (await panel.locator('[data-fm="subject-rename-submit"]').innerText()) === 'Merge into billing-api',
      'a taken name merges',
    )
    assert.match(await panel.locator('[data-fm="merge-note"]').innerText(), /becomes a conflict for you to settle/u)
    await screenshot(page, 'subject-merge-900')
    await panel.locator('[data-fm="subject-rename-submit"]').click()
    await toast(page, /Merged “ledger” into “billing-api”; 2 values differ and now stand as a conflict/u).waitFor()
    await until(
      async () => (await panel.locator('[data-fm="entity-name"]').innerText()) === 'billing-api',
      'the merged subject',
    )
    const port = (await entity('billing-api')).properties.find((group) => group.property === 'port')
    assert.deepEqual(port?.facts.map((fact) => [fact.value, fact.status]).sort(), [
      ['7801', 'active'],
      ['7802', 'conflict'],
    ])
    await until(
      async () =>
        (await page
          .locator('fm-page nav button[data-tab="conflicts"] .count')
          .innerText()
          .catch(() => '')) === '1',
      'the conflict counted',
    )

    const aliases = panel.locator('[data-fm="entity-alias"]')
    assert.equal(await aliases.count(), 2)
    await aliases.filter({ hasText: '“ledger”' }).getByRole('button', { name: 'Remove' }).click()
    await toast(page, '“ledger” no longer leads here').waitFor()
    await until(async () => (await aliases.count()) === 1, 'one alias left')
    await screenshot(page, 'subject-merged-900')
    await page.keyboard.press('Escape')
    await until(async () => (await page.locator('fm-entity-panel').count()) === 0, 'Esc closes the panel')
    assert.equal(await page.locator('fm-page').count(), 1, 'and only the panel')
    await closeClean(opened)
  })

  it('opens the same panel from a subject selected in the graph', async () => {
    const opened = await openHost(browser, host.url)
    const { page } = opened
    await page.locator('[data-fm="sidebar-entry"]').click()
    await page.locator('fm-page nav button[data-tab="graph"]').click()
    await page.locator('fm-graph').getByRole('button', { name: 'One-hop tree' }).click()
    await page.locator('fm-graph [data-fm="tree-center"]').fill('billing-api')
    await page.locator('fm-graph [data-fm="tree-center"]').press('Enter')
    const tree = page.locator('fm-graph fm-svg-tree [data-fm="svg-tree"]')
    await tree.locator('g.node.center', { hasText: 'billing-api' }).waitFor()
    await tree.locator('g.node.center circle').click()
    await page.locator('fm-graph [data-fm="graph-selection"] [data-fm="open-subject"]').click()
    await until(
      async () =>
        (await page
          .locator('fm-entity-panel [data-fm="entity-name"]')
          .innerText()
          .catch(() => '')) === 'billing-api',
      'the subject panel',
    )
    assert.equal(await page.locator('fm-entity-panel [data-fm="entity-alias"]').count(), 1)
    await screenshot(page, 'subject-from-graph')
    await closeClean(opened)
  })
})
