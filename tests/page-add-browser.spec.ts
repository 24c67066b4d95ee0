/**
 * Putting facts in from the page, in Debian's Chromium against a real DSH rc.8 web host: the library's Add fact form
 * (the fact shows in the list as the user's own, the toast's Undo takes it out; a credential is refused in the form
 * and nothing is stored), and Import file (a JSONL file picked from disk, the preview's classes and invalid lines'
 * reasons, then Commit and the facts in the list; a file that forgets a stored fact says so, and the toast's Undo brings
 * it back). Screenshots in light, dark and 900 px.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { screenshot, type HostPage } from './helpers/browser.ts'
import { textContrast } from './helpers/svg-contrast.ts'
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
let files: string

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
  { subject: 'lighthouse', property: 'keeper', value: 'Ada' },
  { subject: 'bakery', property: 'opening hour', value: '7am' },
]

before(async () => {
  env = await startPageHost()
  ;({ host, browser, api } = env)
  files = mkdtempSync(join(tmpdir(), 'fm-add-browser-'))
  await importLines(api, SEED)
})

after(async () => {
  await env?.stop()
  if (files !== undefined) rmSync(files, { recursive: true, force: true })
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

describe('adding a fact from the page', () => {
  it("adds a fact that shows in the list as the user's own, and the toast's Undo takes it out", async () => {
    const opened = await openLibrary()
    const { page } = opened
    await page.locator('fm-library [data-fm="add-fact"]').click()
    const form = page.locator('fm-library [data-fm="add-dialog"][open]')
    await form.waitFor()
    await form.getByLabel('Subject', { exact: true }).fill('greenhouse')
    await form.getByLabel('Property', { exact: true }).fill('watering day')
    await form.getByLabel('Value', { exact: true }).fill('Thursday')
    await screenshot(page, 'add-form-light')
    await form.locator('[data-fm="add-submit"]').click()
    const toast = page.locator('[data-fm="toast"]').filter({ hasText: 'Added greenhouse · watering day = Thursday' })
    await toast.waitFor()
    await until(async () => (await row(page, 'watering day').count()) === 1, 'the new fact is in the list')
    const added = (await current()).find((fact) => fact.subject === 'greenhouse')
    assert.deepEqual([added?.value, added?.status, added?.evidence], ['Thursday', 'active', 'explicit_user'])
    await page.locator('fm-library [data-fm="detail"]').filter({ hasText: 'Thursday' }).waitFor()
    await screenshot(page, 'add-done-light')
    await toast.getByRole('button', { name: 'Undo' }).click()
    await page.locator('[data-fm="toast"]').filter({ hasText: 'Undone: the added fact is gone' }).waitFor()
    await until(async () => (await row(page, 'watering day').count()) === 0, 'the row leaves the list')
    assert.ok(!(await current()).some((fact) => fact.subject === 'greenhouse'))
    await closeClean(opened)
  })

  for (const theme of ['light', 'dark'] as const) {
    it(`shows the toast and its buttons at a contrast of 4.5:1 or more (${theme})`, async () => {
      const opened = await openLibrary(undefined, theme)
      const { page } = opened
      await page.locator('fm-library [data-fm="add-fact"]').click()
      const form = page.locator('fm-library [data-fm="add-dialog"][open]')
      await form.getByLabel('Subject', { exact: true }).fill(`${theme} greenhouse`)
      await form.getByLabel('Property', { exact: true }).fill('vent setting')
      await form.getByLabel('Value', { exact: true }).fill('half open')
      await form.locator('[data-fm="add-submit"]').click()
      const toast = page
        .locator('[data-fm="toast"]')
        .filter({ hasText: `Added ${theme} greenhouse · vent setting = half open` })
      await toast.waitFor()
      for (const [what, element] of [
        ['text', toast.locator('span').first()],
        ['Undo', toast.getByRole('button', { name: 'Undo' })],
        ['Dismiss', toast.getByRole('button', { name: 'Dismiss' })],
      ] as const) {
        const ratio = await textContrast(element)
        assert.ok(ratio >= 4.5, `the toast's ${what} reads at ${ratio.toFixed(2)}:1 in ${theme}`)
      }
      await screenshot(page, `toast-${theme}`)
      await toast.getByRole('button', { name: 'Undo' }).click()
      await page.locator('[data-fm="toast"]').filter({ hasText: 'Undone: the added fact is gone' }).waitFor()
      await closeClean(opened)
    })
  }

  it('refuses a credential in the form, in words, and stores nothing (dark, 900 px)', async () => {
    const opened = await openLibrary({ width: 900, height: 900 }, 'dark')
    const { page } = opened
    const generation = await api.generation()
    await page.locator('fm-library [data-fm="add-fact"]').click()
    const form = page.locator('fm-library [data-fm="add-dialog"][open]')
    await form.waitFor()
    await form.getByLabel('Subject', { exact: true }).fill('deploy bot')
    await form.getByLabel('Property', { exact: true }).fill('api token')
    await form.getByLabel('Value', { exact: true }).fill('sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c')
    await form.locator('[data-fm="add-submit"]').click()
    const error = form.locator('[data-fm="add-error"]')
    await error.waitFor()
    assert.match(await error.innerText(), /credential/iu)
    assert.equal(
      await form.getByLabel('Value', { exact: true }).inputValue(),
      '',
      'the refused credential leaves the form',
    )
    await screenshot(page, 'add-refused-dark-900')
    assert.equal(await api.generation(), generation)
    assert.ok(!(await current()).some((fact) => fact.subject === 'deploy bot'))
    await page.keyboard.press('Escape')
    await until(async () => (await page.locator('fm-library [data-fm="add-dialog"]').count()) === 0, 'the form closes')
    assert.equal(await page.locator('fm-library [data-fm="fact-list"]').isVisible(), true, 'the page stays open')
    await opened.close()
    // The refusal is the route's 422, which the browser logs as a failed load; nothing else went wrong.
    assert.deepEqual(opened.errors, [
      'Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)',
    ])
  })
})

describe('importing a file from the page', () => {
  it('previews a picked JSONL file by class, commits it, and the facts show in the list', async () => {
    const bakery = (await current()).find((fact) => fact.subject === 'bakery')
    assert.ok(bakery !== undefined)
    await api.ok('fact-forget', {
      id: bakery.id,
      expectedGeneration: await api.generation(),
      operationId: api.op('forget'),
    })
    const lines = [
      JSON.stringify({ subject: 'windmill', property: 'built in', value: '1843' }),
      JSON.stringify({ subject: 'windmill', property: 'miller', value: 'Joris' }),
      JSON.stringify({ subject: 'lighthouse', property: 'keeper', value: 'Ada' }),
      JSON.stringify({ subject: 'bakery', property: 'opening hour', value: '7am' }),
      JSON.stringify({ subject: 'windmill', property: 'sails' }),
    ]
    const path = join(files, 'windmill.jsonl')
    writeFileSync(path, `${lines.join('\n')}\n`)
    const opened = await openLibrary()
    const { page } = opened
    await page.locator('fm-library [data-fm="import-file"]').click()
    const dialog = page.locator('fm-library [data-fm="import-dialog"][open]')
    await dialog.waitFor()
    await dialog.locator('[data-fm="import-input"]').setInputFiles(path)
    const preview = dialog.locator('[data-fm="import-preview"]')
    await preview.waitFor()
    const count = async (cls: string): Promise<string> =>
      await preview.locator(`tr[data-class="${cls}"] td.n`).innerText()
    assert.deepEqual(
      [
        await count('new'),
        await count('duplicate'),
        await count('conflict'),
        await count('tombstoned'),
        await count('invalid'),
      ],
      ['2', '1', '0', '1', '1'],
    )
    const invalid = await dialog.locator('[data-fm="import-invalid"] li').allInnerTexts()
    assert.equal(invalid.length, 1)
    assert.match(invalid[0] ?? '', /^line 5: /u)
    assert.equal(await dialog.locator('[data-fm="import-commit"]').innerText(), 'Commit 2 facts')
    await screenshot(page, 'import-preview-light')
    assert.ok(!(await current()).some((fact) => fact.subject === 'windmill'), 'the preview writes nothing')
    await dialog.locator('[data-fm="import-commit"]').click()
    await page
      .locator('[data-fm="toast"]')
      .filter({ hasText: 'Imported 2 facts; 1 already stored; 1 forgotten, refused; 1 invalid, skipped' })
      .waitFor()
    await until(async () => (await row(page, 'windmill').count()) === 2, 'the imported facts are in the list')
    assert.deepEqual(
      (await current())
        .filter((fact) => fact.subject === 'windmill')
        .map((fact) => [fact.property, fact.value])
        .sort(),
      [
        ['built in', '1843'],
        ['miller', 'Joris'],
      ],
    )
    assert.ok(!(await current()).some((fact) => fact.subject === 'bakery'), 'the forgotten claim stayed out')
    await closeClean(opened)
  })

  it("says which stored fact a file forgets, and the toast's Undo brings it back", async () => {
    const orchard = (await current()).find((fact) => fact.subject === 'orchard')
    assert.ok(orchard !== undefined)
    const forgot = await api.ok('fact-forget', {
      id: orchard.id,
      expectedGeneration: await api.generation(),
      operationId: api.op('forget-orchard'),
    })
    const exported = await api.ok('export', { backup: false })
    await api.ok('fact-restore', {
      editId: (forgot['undo'] as { editId: number }).editId,
      expectedGeneration: await api.generation(),
      operationId: api.op('unforget'),
    })
    const path = join(files, 'forgets-orchard.jsonl')
    writeFileSync(path, readFileSync(String(exported['path'])))
    const opened = await openLibrary()
    const { page } = opened
    await page.locator('fm-library [data-fm="import-file"]').click()
    const dialog = page.locator('fm-library [data-fm="import-dialog"][open]')
    await dialog.locator('[data-fm="import-input"]').setInputFiles(path)
    await dialog.locator('[data-fm="import-side"]').filter({ hasText: 'The file forgets 1 fact stored here' }).waitFor()
    await dialog.locator('[data-fm="import-commit"]').click()
    const toast = page.locator('[data-fm="toast"]').filter({ hasText: 'the file forgot 1 fact stored here' })
    await toast.waitFor()
    assert.ok(!(await current()).some((fact) => fact.id === orchard.id), 'the import forgot the fact')
    await toast.getByRole('button', { name: 'Undo' }).click()
    await page
      .locator('[data-fm="toast"]')
      .filter({ hasText: 'Undone: the import is taken back, and the fact the file forgot is back' })
      .waitFor()
    assert.ok(
      (await current()).some((fact) => fact.id === orchard.id),
      'Undo put it back',
    )
    await closeClean(opened)
  })

  it("takes back what an import added, its conflict included, from the toast's Undo", async () => {
    const keeper = (await current()).find((fact) => fact.subject === 'lighthouse' && fact.property === 'keeper')
    assert.ok(keeper !== undefined)
    const openConflicts = async (): Promise<number> => ((await api.ok('conflicts', {}))['groups'] as unknown[]).length
    const conflictsBefore = await openConflicts()
    const path = join(files, 'ferry.jsonl')
    writeFileSync(
      path,
      `${JSON.stringify({ subject: 'ferry', property: 'departs', value: '08:10' })}\n${JSON.stringify({ subject: 'lighthouse', property: 'keeper', value: 'Bram' })}\n`,
    )
    const opened = await openLibrary()
    const { page } = opened
    await page.locator('fm-library [data-fm="import-file"]').click()
    const dialog = page.locator('fm-library [data-fm="import-dialog"][open]')
    await dialog.locator('[data-fm="import-input"]').setInputFiles(path)
    await dialog.locator('[data-fm="import-preview"]').waitFor()
    await dialog.locator('[data-fm="import-commit"]').click()
    const toast = page.locator('[data-fm="toast"]').filter({ hasText: 'Imported 2 facts (1 as conflicts to settle)' })
    await toast.waitFor()
    assert.ok((await current()).some((fact) => fact.subject === 'ferry'))
    assert.equal(await openConflicts(), conflictsBefore + 1)
    await toast.getByRole('button', { name: 'Undo' }).click()
    await page.locator('[data-fm="toast"]').filter({ hasText: 'Undone: the import is taken back' }).waitFor()
    const after = await current()
    assert.ok(!after.some((fact) => fact.subject === 'ferry' || fact.value === 'Bram'), 'the imported facts are gone')
    assert.equal(
      after.find((fact) => fact.id === keeper.id)?.status,
      'active',
      'the stored keeper is current again, its conflict closed',
    )
    assert.equal(await openConflicts(), conflictsBefore)
    await closeClean(opened)
  })

  it('shows the import preview in dark at 900 px', async () => {
    const path = join(files, 'harbour.jsonl')
    writeFileSync(path, `${JSON.stringify({ subject: 'harbour', property: 'depth', value: '12 m' })}\nnot json\n`)
    const opened = await openLibrary({ width: 900, height: 900 }, 'dark')
    const { page } = opened
    await page.locator('fm-library [data-fm="import-file"]').click()
    const dialog = page.locator('fm-library [data-fm="import-dialog"][open]')
    await dialog.locator('[data-fm="import-input"]').setInputFiles(path)
    await dialog.locator('[data-fm="import-preview"]').waitFor()
    assert.equal(await dialog.locator('[data-fm="import-invalid"] li').count(), 1)
    await screenshot(page, 'import-preview-dark-900')
    await page.keyboard.press('Escape')
    await until(
      async () => (await page.locator('fm-library [data-fm="import-dialog"]').count()) === 0,
      'the dialog closes',
    )
    assert.ok(!(await current()).some((fact) => fact.subject === 'harbour'), 'nothing is written without Commit')
    await closeClean(opened)
  })
})
