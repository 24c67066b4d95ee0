/**
 * The settings card's "Find near-duplicates" button in Debian's Chromium against the real DSH rc.8 web host: it runs
 * one sweep (the fake model answers the closed question) and says what the sweep did; the merge it proposed is in
 * the queue; "Export as Markdown" writes the library as a document under exports/ and says where. A screenshot lands in
 * test-artifacts/.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { FOLLOW_EVERY_MS } from '../client/sweep-follow.ts'
import { downloadBytes, openHost, openPluginCard, screenshot } from './helpers/browser.ts'
import { converse, writeCall } from './helpers/fact-memory-web.ts'
import { closeClean, startPageHost, type PageHost } from './helpers/page-host.ts'

let env: PageHost | undefined

const SQUADS = [
  'alpha',
  'bravo',
  'charlie',
  'delta',
  'echo',
  'foxtrot',
  'golf',
  'hotel',
  'india',
  'juliet',
  'kilo',
  'lima',
]

before(async () => {
  env = await startPageHost()
  await converse(env.host.url, env.model, env.home.workspace, 'remember these', {
    toolCalls: [
      ...SQUADS.map((squad, index) =>
        writeCall({
          subject: `${squad} squad`,
          property: 'lead',
          value: `lead number ${index + 1}`,
          evidence: 'observed',
        }),
      ),
      writeCall({
        subject: 'orders-api',
        property: 'database',
        value: 'PostgreSQL 16 on the managed instance',
        evidence: 'observed',
      }),
      writeCall({
        subject: 'orders-api',
        property: 'storage',
        value: 'PostgreSQL 16 on a managed instance',
        evidence: 'observed',
      }),
    ],
  })
})

after(async () => {
  await env?.stop()
})

describe('Find near-duplicates on the settings card', () => {
  it('runs one sweep and says what it did', async () => {
    if (env === undefined) throw new Error('no host')
    const opened = await openHost(env.browser, env.host.url)
    const { page } = opened
    const card = await openPluginCard(page)
    await card
      .locator('[data-fm="card-counts"]')
      .filter({ hasText: /current facts/u })
      .waitFor()
    env.model.reset()
    env.model.enqueueVerdicts({ text: '{"verdict": "same"}', delayMs: 8000 })
    await card.locator('[data-fm="consolidate"]').click()
    // The sweep runs in the background: the status line follows it, and a second press says one is running.
    await card
      .locator('[data-fm="card-status"]')
      .filter({ hasText: 'Looking for near-duplicates: 0 of 1 pair asked so far…' })
      .waitFor()
    await card.locator('[data-fm="consolidate"]').click()
    const alreadyRunning =
      /^A near-duplicate sweep is already running \(0 of 1 pair asked so far\); its outcome shows when it ends\.$/u
    await card.locator('[data-fm="card-status"]').filter({ hasText: alreadyRunning }).waitFor()
    // The answer to the press stays until the sweep's progress or outcome is news, not only until the next poll.
    await page.waitForTimeout(3 * FOLLOW_EVERY_MS)
    assert.match(await card.locator('[data-fm="card-status"]').innerText(), alreadyRunning)
    await card
      .locator('[data-fm="card-status"]')
      .filter({ hasText: 'Asked about 1 pair: 1 merge proposed (see Proposals).' })
      .waitFor()
    await screenshot(page, 'settings-card-near-duplicates')
    const cards = (await env.api.ok('proposals', { status: 'all', limit: 100 }))['proposals'] as {
      kind: string
      status: string
    }[]
    assert.deepEqual(
      cards.filter((entry) => entry.kind === 'merge').map((entry) => entry.status),
      ['pending'],
    )
    await card.locator('[data-fm="consolidate"]').click()
    await card
      .locator('[data-fm="card-status"]')
      .filter({ hasText: 'Nothing new to ask: 1 pair was judged before.' })
      .waitFor()
    const [download] = await Promise.all([
      opened.page.waitForEvent('download'),
      card.locator('[data-fm="export-markdown"]').click(),
    ])
    const wrote = card
      .locator('[data-fm="card-status"]')
      .filter({ hasText: /^Wrote 14 facts about 13 subjects to exports\/library-.*\.md\.$/u })
    await wrote.waitFor()
    const relative = /exports\/library-\S+\.md/u.exec(await wrote.innerText())?.[0]
    assert.ok(relative !== undefined)
    const dataDir = (await env.api.ok('status', {}))['dataDir'] as string
    const document = readFileSync(join(dataDir, relative), 'utf8')
    // The card's export reaches the browser too: the same bytes.
    assert.equal((await downloadBytes(download)).toString('utf8'), document)
    assert.match(document, /^# Fact memory\n/u)
    assert.match(
      document,
      /## orders-api\n\n- \*\*database\*\*: PostgreSQL 16 on the managed instance — since \d{4}-\d{2}-\d{2}, observed/u,
    )
    await closeClean(opened)
  })
})
