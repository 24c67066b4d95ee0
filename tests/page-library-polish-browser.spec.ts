/**
 * The library's third pass, in Debian's Chromium against a real DSH rc.8 web host (one host, one browser for every
 * case): Export JSONL and Export Markdown from the library toolbar, by keyboard, arrive as browser downloads holding
 * the same bytes as the file left in exports/; the toolbar keeps one row at 1,440 px with four projects and two
 * labels; the download route serves only export files, to this site only; the detail pane follows one rule (Add shows the new fact, Forget the next row or nothing, an edit of another
 * row leaves it alone); a fold card lists the runs it folds; and a conflict side the user put in from the page says so
 * in its source. Screenshots land in test-artifacts/.
 */
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { prepareWrite } from '../src/fact-input.ts'
import { Database } from '../src/store/database.ts'
import { createStoreSet, type StoreSet } from '../src/store/store-set.ts'
import type { Fact, FactRef } from '../src/types.ts'
import { downloadBytes, screenshot, type HostPage } from './helpers/browser.ts'
import type { WebHost } from './helpers/dsh-host.ts'
import { PREFIX, rawRequest, type FactMemoryApi } from './helpers/fact-memory-web.ts'
import {
  closeClean,
  importLines,
  openLibrary as openLibraryPage,
  type PageHost,
  startPageHost,
  until,
  openOnTab,
} from './helpers/page-host.ts'

let env: PageHost | undefined
let host: WebHost
let browser: Browser
let api: FactMemoryApi
let dataDir: string
let db: Database | undefined
let stores: StoreSet

/** Four projects and two labels, with long enough names to crowd a toolbar, and a few global facts. */
const SEED = [
  { subject: 'orchard', property: 'harvest month', value: 'October' },
  { subject: 'lighthouse', property: 'keeper', value: 'Ada' },
  { subject: 'bakery', property: 'opening hour', value: '7am' },
  {
    subject: 'dev server',
    property: 'port',
    value: '5173',
    scope: 'project:/home/ada/src/billing-api-gateway',
    projectName: 'billing-api-gateway',
  },
  {
    subject: 'test command',
    property: 'value',
    value: 'pnpm vitest',
    scope: 'project:/home/ada/src/shop-web-storefront',
    projectName: 'shop-web-storefront',
  },
  {
    subject: 'indexer',
    property: 'batch size',
    value: '500',
    scope: 'project:/home/ada/src/search-service-indexer',
    projectName: 'search-service-indexer',
  },
  {
    subject: 'etl job',
    property: 'schedule',
    value: 'hourly',
    scope: 'project:/home/ada/src/data-pipeline-warehouse',
    projectName: 'data-pipeline-warehouse',
  },
  { subject: 'cluster', property: 'region', value: 'eu-west-1', scope: 'infrastructure' },
  { subject: 'dentist', property: 'weekday', value: 'Tuesday', scope: 'personal errands' },
]

before(async () => {
  env = await startPageHost()
  ;({ host, browser, api } = env)
  await importLines(api, SEED)
  dataDir = String((await api.ok('status', {}))['dataDir'])
  db = Database.open({ dataDir, now: () => new Date().toISOString() })
  stores = createStoreSet(db, dataDir)
})

after(async () => {
  db?.close()
  await env?.stop()
})

function openLibrary(
  viewport = { width: 1440, height: 960 },
  colorScheme: 'light' | 'dark' = 'light',
): Promise<HostPage> {
  return openLibraryPage({ browser, host }, { viewport, colorScheme })
}

function openTab(tab: string): Promise<HostPage> {
  return openOnTab({ browser, host }, tab)
}

/** Write one fact into the host's store file, as a model's memory_write would (observed). */
function writeObserved(subject: string, property: string, value: string): Fact {
  const now = new Date().toISOString()
  const prepared = prepareWrite({ subject, property, value, evidence: 'observed', origin: 'tool' }, now, {
    refuseCredentials: true,
    timeZone: 'UTC',
  })
  if (!prepared.ok) throw new Error(prepared.message)
  const written = stores.facts.write(prepared.write, now)
  if (written.kind === 'refused' || written.kind === 'proposed') throw new Error(`write ${written.kind}`)
  return written.fact
}

const ref = (fact: Fact): FactRef => ({
  factId: fact.id,
  revision: stores.facts.getFacts([fact.id])[0]?.revision ?? fact.revision,
})
const rows = (page: Page) => page.locator('fm-library [data-fm="fact-list"] li.fact')
const row = (page: Page, text: string) => rows(page).filter({ hasText: text })
const detailValue = (page: Page) => page.locator('fm-library [data-fm="detail-value"]')

/** Each toolbar control's top edge, in CSS pixels (browser code as text: the specs compile without the DOM's types). */
const CONTROL_TOPS = new Function(
  'form',
  `return [...form.children].map((child) => {
  const box = child.getBoundingClientRect()
  return { name: child.getAttribute('aria-label') || child.tagName.toLowerCase(), top: Math.round(box.top), bottom: Math.round(box.bottom), right: Math.round(box.right), width: Math.round(box.width) }
})`,
) as (form: unknown) => { name: string; top: number; bottom: number; right: number }[]

describe('the library, third pass', () => {
  it('keeps the toolbar on one row at 1,440 px with four projects and two labels', async () => {
    const opened = await openLibrary()
    const { page } = opened
    const scope = page.locator('fm-library select[data-fm="scope-filter"]')
    await until(async () => (await scope.locator('option').count()) === 8, 'every scope in the filter')
    const form = page.locator('fm-library form.tools')
    const controls = await form.evaluate(CONTROL_TOPS)
    const rowTop = Math.min(...controls.map((control) => control.top))
    const rowBottom = Math.max(...controls.map((control) => control.bottom))
    assert.ok(rowBottom - rowTop <= 40, `the toolbar wraps: ${JSON.stringify(controls)}`)
    const list = await page.locator('fm-library section.list').boundingBox()
    assert.ok(
      list !== null && controls.every((control) => control.right <= list.x + list.width),
      `a control leaves the list: ${JSON.stringify(controls)}`,
    )
    assert.equal(await form.locator('[data-fm="export"]').count(), 1, 'Export sits in the toolbar')
    await screenshot(page, 'library-toolbar-one-row')
    await closeClean(opened)
  })

  it('downloads Export JSONL and Export Markdown from the toolbar, by keyboard, as the bytes left in exports/', async () => {
    const opened = await openLibrary()
    const { page } = opened
    const before = await api.generation()
    const exportButton = page.locator('fm-library [data-fm="export"]')
    await exportButton.focus()
    await page.keyboard.press('Enter')
    const menu = page.locator('fm-library [data-fm="export-menu"]')
    await menu.waitFor()
    await screenshot(page, 'library-export-menu')
    // The menu opens on its first item; Enter takes it.
    const [jsonl] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')])
    assert.match(jsonl.suggestedFilename(), /^facts-.+\.jsonl$/u)
    const jsonlBytes = await downloadBytes(jsonl)
    assert.deepEqual(
      jsonlBytes,
      readFileSync(join(dataDir, 'exports', jsonl.suggestedFilename())),
      'the download is the file in exports/',
    )
    assert.match(jsonlBytes.toString('utf8').split('\n')[0] ?? '', /"records":9/u)
    await page
      .locator('[data-fm="toast"]')
      .filter({ hasText: `exports/${jsonl.suggestedFilename()}` })
      .waitFor()

    await exportButton.focus()
    await page.keyboard.press('Enter')
    await menu.waitFor()
    await page.keyboard.press('ArrowDown')
    const [markdown] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')])
    assert.match(markdown.suggestedFilename(), /^library-.+\.md$/u)
    const markdownBytes = await downloadBytes(markdown)
    assert.deepEqual(markdownBytes, readFileSync(join(dataDir, 'exports', markdown.suggestedFilename())))
    assert.match(markdownBytes.toString('utf8'), /lighthouse/u)
    assert.equal(await menu.count(), 0, 'the menu closes once an export is chosen')
    // Esc closes the menu and nothing else (not the detail pane under it); the focus goes back to the button.
    await row(page, 'lighthouse · keeper').locator('button.row').click()
    await until(async () => (await detailValue(page).count()) === 1, 'a detail pane')
    await exportButton.focus()
    await page.keyboard.press('Enter')
    await menu.waitFor()
    await page.keyboard.press('Escape')
    await menu.waitFor({ state: 'detached' })
    assert.equal(
      await exportButton.evaluate(
        new Function('button', 'return button.getRootNode().activeElement === button') as (button: unknown) => boolean,
      ),
      true,
    )
    assert.equal(await page.locator('fm-page').count(), 1, 'the page stays open')
    assert.equal(await detailValue(page).innerText(), 'Ada', 'the detail pane stays open')
    assert.equal(await api.generation(), before, 'an export changes nothing in the store')
    await closeClean(opened)
  })

  it('serves only the files the export verb writes, confined to exports/, to this site only', async () => {
    const written = await api.ok('export', {})
    const name = String(written['relativePath']).replace(/^exports\//u, '')
    const path = `${PREFIX}/exports/${name}`
    const file = readFileSync(join(dataDir, 'exports', name))
    const served = await rawRequest(host.url, { method: 'GET', path, headers: { 'sec-fetch-site': 'same-origin' } })
    assert.equal(served.status, 200)
    assert.equal(served.text, file.toString('utf8'))
    assert.equal(served.headers['content-disposition'], `attachment; filename="${name}"`)
    assert.equal(served.headers['x-content-type-options'], 'nosniff')
    writeFileSync(join(dataDir, 'exports', 'notes.txt'), 'not an export')
    const refused: [string, Record<string, string>, number][] = [
      [path, { 'sec-fetch-site': 'cross-site' }, 403],
      [path, { 'sec-fetch-site': 'same-site' }, 403],
      [path, { origin: 'http://evil.example' }, 403],
      [path, { host: 'evil.example' }, 403],
      [`${PREFIX}/exports/notes.txt`, {}, 404],
      [`${PREFIX}/exports/..%2Fstore.sqlite`, {}, 404],
      [`${PREFIX}/exports/../exports/${name}`, {}, 404],
      [`${PREFIX}/exports/facts-none.jsonl`, {}, 404],
    ]
    for (const [target, headers, status] of refused) {
      const answer = await rawRequest(host.url, { method: 'GET', path: target, headers })
      assert.equal(answer.status, status, `${target} ${JSON.stringify(headers)}: ${answer.text}`)
      assert.doesNotMatch(answer.text, /"format"/u, 'nothing of the export leaks')
    }
    assert.equal(
      (
        await rawRequest(host.url, {
          method: 'POST',
          path,
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
      ).status,
      405,
    )
  })

  it('shows the new fact after Add, the next row after Forget (nothing when none), and keeps its fact through an edit of another row', async () => {
    const opened = await openLibrary()
    const { page } = opened
    await row(page, 'lighthouse · keeper').locator('button.row').click()
    await until(async () => (await detailValue(page).innerText()) === 'Ada', 'the detail of the clicked row')

    // An edit of another row (pinning it from its row) leaves the detail alone.
    await row(page, 'bakery · opening hour').locator('[data-fm="pin"]').click()
    await page.locator('[data-fm="toast"]').filter({ hasText: 'Pinned' }).first().waitFor()
    await page.waitForTimeout(500)
    assert.equal(await detailValue(page).innerText(), 'Ada', 'the detail stays on its fact')

    // Add: the detail shows the new fact.
    await page.locator('fm-library [data-fm="add-fact"]').click()
    const form = page.locator('fm-library [data-fm="add-dialog"][open]')
    await form.getByLabel('Subject', { exact: true }).fill('greenhouse')
    await form.getByLabel('Property', { exact: true }).fill('watering day')
    await form.getByLabel('Value', { exact: true }).fill('Thursday')
    await form.locator('[data-fm="add-submit"]').click()
    await page.locator('[data-fm="toast"]').filter({ hasText: 'Added greenhouse · watering day = Thursday' }).waitFor()
    await until(async () => (await row(page, 'watering day').count()) === 1, 'the new row')
    await page.waitForTimeout(500)
    assert.equal(await detailValue(page).innerText(), 'Thursday', 'the detail shows the new fact')
    await screenshot(page, 'library-detail-after-add')

    // Forget of another row, from that row: the detail stays.
    await row(page, 'orchard · harvest month').locator('[data-fm="forget"]').click()
    await page.locator('fm-library [data-fm="forget-confirm"]').click()
    await until(async () => (await row(page, 'orchard · harvest month').count()) === 0, 'the forgotten row leaves')
    await page.waitForTimeout(500)
    assert.equal(await detailValue(page).innerText(), 'Thursday', 'forgetting another row leaves the detail alone')

    // Forget of the shown fact: the detail moves to the row that followed it.
    const listed = await rows(page).locator('.what').allInnerTexts()
    const at = listed.findIndex((text) => text.includes('watering day'))
    const next = listed[at + 1] ?? listed[at - 1] ?? ''
    await page.locator('fm-library [data-fm="detail"] [data-fm="forget"]').click()
    await page.locator('fm-library [data-fm="detail"] [data-fm="forget-confirm"]').click()
    await until(async () => (await row(page, 'watering day').count()) === 0, 'the shown fact leaves the list')
    const nextValue = next
      .split(': ')
      .slice(1)
      .join(': ')
      .replace(/\s*sensitive.*$/u, '')
      .trim()
    await until(
      async () => (await detailValue(page).count()) === 1 && (await detailValue(page).innerText()) === nextValue,
      `the detail moves to the next row (${next})`,
    )
    assert.equal(await page.locator('fm-library li.fact.selected').count(), 1, 'the next row is the selected one')
    await screenshot(page, 'library-detail-after-forget')
    await closeClean(opened)

    // With one row left, forgetting it leaves the pane empty.
    const alone = await openLibrary()
    await alone.page
      .locator('fm-library select[data-fm="scope-filter"]')
      .selectOption({ label: 'label personal errands (1)' })
    await until(async () => (await rows(alone.page).count()) === 1, 'one row in the label')
    await rows(alone.page).first().locator('button.row').click()
    await until(async () => (await detailValue(alone.page).innerText()) === 'Tuesday', 'the only row in the detail')
    await alone.page.locator('fm-library [data-fm="detail"] [data-fm="forget"]').click()
    await alone.page.locator('fm-library [data-fm="detail"] [data-fm="forget-confirm"]').click()
    await until(async () => (await rows(alone.page).count()) === 0, 'the list is empty')
    await until(async () => (await detailValue(alone.page).count()) === 0, 'the detail pane is empty')
    await closeClean(alone)
  })

  it('lists the runs a fold card folds', async () => {
    const runs = ['01', '02', '03', '04', '05'].map((day) =>
      writeObserved('nightly backup', `2026-03-${day} result`, `ok, 4${day} MB`),
    )
    const survivor = runs.at(-1)
    assert.ok(survivor !== undefined)
    const id =
      stores.proposals.proposeFolds(
        [{ survivor: ref(survivor), runs: runs.slice(0, -1).map(ref) }],
        new Date().toISOString(),
      ).cards[0]?.id ?? 0
    const opened = await openTab('proposals')
    const { page } = opened
    const card = page.locator(`fm-proposals [data-fm="proposal"][data-id="${id}"]`)
    await card.waitFor()
    assert.equal(await card.locator('[data-fm="card-words"]').innerText(), `fold 4 runs into #${survivor.id}`)
    const listed = await card.locator('[data-fm="fold-run"]').allInnerTexts()
    assert.deepEqual(
      listed,
      runs.slice(0, -1).map((run) => `#${run.id} nightly backup · ${run.property}: ${run.value}`),
    )
    await card.scrollIntoViewIfNeeded()
    await screenshot(page, 'proposals-fold-runs')
    await closeClean(opened)
  })

  it('says "you, from the page" on a conflict side the user put in from the page', async () => {
    const opened = await openLibrary()
    const { page } = opened
    await page.locator('fm-library [data-fm="add-fact"]').click()
    const form = page.locator('fm-library [data-fm="add-dialog"][open]')
    await form.getByLabel('Subject', { exact: true }).fill('kiln')
    await form.getByLabel('Property', { exact: true }).fill('firing temperature')
    await form.getByLabel('Value', { exact: true }).fill('1240 C')
    await form.locator('[data-fm="add-submit"]').click()
    await page.locator('[data-fm="toast"]').filter({ hasText: 'Added kiln · firing temperature = 1240 C' }).waitFor()
    // A weaker source disagrees later: both values wait in the conflicts tab.
    assert.equal(writeObserved('kiln', 'firing temperature', '1260 C').status, 'conflict')
    await page.locator('fm-page nav button[data-tab="conflicts"]').click()
    const sides = page.locator('fm-conflicts [data-fm="conflict-side"]')
    await until(async () => (await sides.count()) === 2, 'both sides')
    const sourceOf = async (value: string): Promise<string> =>
      sides.filter({ hasText: value }).locator('[data-fm="side-source"]').innerText()
    assert.match(await sourceOf('1240 C'), /^you, from the page · \d{4}-\d{2}-\d{2} \d{2}:\d{2}$/u)
    assert.match(await sourceOf('1260 C'), /^observed · memory_write · /u)
    await screenshot(page, 'conflicts-side-from-the-page')
    await closeClean(opened)
  })
})
