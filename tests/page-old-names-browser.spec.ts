/**
 * Search hits on the page in Debian's Chromium against a real DSH rc.8 web host (one host, one browser): after
 * `search-svc` became `search-service` and `小明` became `王小明`, typing the old name in the library's search lists
 * the subject's facts, each row saying which old name matched; memory_search's hits under an empty filter name their
 * qualifiers, the old name they matched by and a sensitive mark; and a sensitive value (what the Markdown export
 * withholds) is shown in no row, no hit and not on the subject panel's list, only in the fact's own detail pane. The host lets sensitive facts into
 * model-facing search, so a hit can carry one. Screenshots in light and dark.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Locator, Page } from 'playwright-core'
import { screenshot, type HostPage } from './helpers/browser.ts'
import { converse, writeCall } from './helpers/fact-memory-web.ts'
import { closeClean, startPageHost, until, type PageHost, openOnTab } from './helpers/page-host.ts'

const PHONE = '+1 415 555 0134'

let env: PageHost | undefined

before(async () => {
  env = await startPageHost({ webPatch: '- id: dsh-fact-memory\n  config:\n    sensitiveModelVisible: true\n' })
  await converse(env.host.url, env.model, env.home.workspace, 'remember these', {
    toolCalls: [
      writeCall({ subject: 'search-svc', property: 'port', value: '9200', evidence: 'explicit_user' }),
      writeCall({
        subject: 'search-svc',
        property: 'port',
        value: '19200',
        qualifiers: { env: 'staging' },
        evidence: 'explicit_user',
      }),
      writeCall({ subject: '小明', property: '城市', value: '杭州', evidence: 'explicit_user' }),
      writeCall({ subject: 'ops lead', property: 'phone', value: PHONE, evidence: 'explicit_user' }),
    ],
  })
  const api = env.api
  for (const [from, to] of [
    ['search-svc', 'search-service'],
    ['小明', '王小明'],
  ] as const) {
    const entity = (await api.ok('entity', { subject: from })) as { entity: { key: string } }
    await api.ok('subject-rename', await api.fence({ entityKey: entity.entity.key, to }))
  }
})

after(async () => {
  await env?.stop()
})

async function openLibrary(scheme: 'light' | 'dark' = 'light'): Promise<HostPage> {
  if (env === undefined) throw new Error('no host')
  const opened = await openOnTab(env, 'library', { colorScheme: scheme })
  await rows(opened.page).first().waitFor()
  return opened
}

const rows = (page: Page): Locator => page.locator('fm-library [data-fm="fact-list"] li.fact')

async function searchFor(page: Page, text: string): Promise<void> {
  await page.locator('fm-library input[type="search"]').fill(text)
  await until(
    async () =>
      (await page.locator('fm-library [data-fm="match-count"]').count()) > 0 ||
      (await page.locator('fm-library [data-fm="question-hits"], fm-library [data-fm="question-none"]').count()) > 0,
    `the search for ${text}`,
  )
}

describe('search hits on the page', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`typing an old name lists the subject, each row saying which old name matched (${scheme})`, async () => {
      const opened = await openLibrary(scheme)
      const { page } = opened
      await searchFor(page, 'search-svc')
      await until(async () => (await rows(page).count()) === 2, 'both ports of search-service')
      const texts = await rows(page).allInnerTexts()
      assert.ok(
        texts.some((text) => /search-service · port \(env=staging\): 19200/u.test(text)),
        texts.join('\n'),
      )
      assert.ok(
        texts.some((text) => /search-service · port: 9200/u.test(text)),
        texts.join('\n'),
      )
      assert.deepEqual(await rows(page).locator('[data-fm="row-alias"]').allInnerTexts(), [
        'matched old name search-svc',
        'matched old name search-svc',
      ])
      await screenshot(page, `old-name-library-${scheme}`)

      await searchFor(page, '小明')
      await until(async () => (await rows(page).count()) === 1, 'the renamed Chinese subject')
      assert.match(await rows(page).first().innerText(), /王小明 · 城市: 杭州/u)
      assert.equal(await rows(page).first().locator('[data-fm="row-alias"]').innerText(), 'matched old name 小明')

      await searchFor(page, 'search-service')
      await until(async () => (await rows(page).count()) === 2, 'its own name')
      assert.equal(await rows(page).locator('[data-fm="row-alias"]').count(), 0, 'its own name matched no old one')
      await closeClean(opened)
    })
  }

  it('memory_search hits name their qualifiers and the old name they matched by, and withhold a sensitive value', async () => {
    const opened = await openLibrary()
    const { page } = opened
    const hits = page.locator('fm-library [data-fm="question-hits"]')
    await searchFor(page, 'which port does search-svc use')
    await hits.waitFor()
    const staging = hits.locator('li', { hasText: '19200' })
    assert.match(await staging.innerText(), /search-service · port \(env=staging\): 19200/u)
    assert.equal(await staging.locator('[data-fm="hit-alias"]').innerText(), 'matched old name search-svc')
    await screenshot(page, 'old-name-question-hits')

    await searchFor(page, 'how do I call the ops lead')
    await hits.waitFor()
    const phone = hits.locator('li', { hasText: 'ops lead · phone' })
    assert.match(await phone.innerText(), /ops lead · phone: withheld/u)
    assert.equal(await phone.locator('[data-fm="hit-sensitive"]').innerText(), 'sensitive: phone')
    assert.doesNotMatch(await page.locator('fm-library').innerText(), /555/u, 'no hit shows the number')
    await screenshot(page, 'sensitive-question-hit')

    await searchFor(page, 'ops lead')
    await until(async () => (await rows(page).count()) === 1, 'the sensitive row')
    assert.match(await rows(page).first().innerText(), /ops lead · phone: withheld/u)
    assert.doesNotMatch(await rows(page).first().innerText(), /555/u, 'no row shows the number')
    await rows(page).first().locator('button.row').click()
    await until(
      async () => (await page.locator('fm-library [data-fm="detail-value"]').innerText()) === PHONE,
      'the detail pane, opened on purpose, shows it',
    )
    await page.locator('fm-library [data-fm="open-subject"]').click()
    const property = page.locator('fm-entity-panel [data-fm="entity-property"]').filter({ hasText: 'phone' })
    assert.match(await property.innerText(), /withheld \(sensitive: phone\)/u, 'the subject panel lists it withheld')
    assert.doesNotMatch(await property.innerText(), /555/u)
    await closeClean(opened)
  })
})
