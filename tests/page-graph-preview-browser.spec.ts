/**
 * The settings card's one-hop graph preview in Debian's Chromium against the real DSH rc.8 web host: an empty store
 * draws nothing; with facts written through memory_write it shows the busiest subject with at most eight of its
 * neighbours' labels and "+N more", every label at 4.5:1 or more against its chip in light and dark (measured from
 * computed styles), and a click closes Settings and opens the Fact memory page on the graph (as the card's own
 * button opens it on the library). Screenshots land in test-artifacts/.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Locator, Page } from 'playwright-core'
import { previewPlan } from '../client/graph-preview.ts'
import type { GraphPayload } from '../src/graph-types.ts'
import { openHost, screenshot, type HostPage } from './helpers/browser.ts'
import { converse, writeCall } from './helpers/fact-memory-web.ts'
import { closeClean, startPageHost, type PageHost } from './helpers/page-host.ts'
import { svgLabelContrasts } from './helpers/svg-contrast.ts'

let env: PageHost | undefined

before(async () => {
  env = await startPageHost()
})
after(async () => {
  await env?.stop()
})

/** orders-api's own facts (one names 王小明, a subject too) and the squads whose facts name it. */
const ORDERS = [
  ['database', 'PostgreSQL 16 on the managed instance'],
  ['cache', 'Redis 7'],
  ['port', '8080'],
  ['language', 'TypeScript'],
  ['framework', 'Fastify'],
  ['region', 'eu-west-1'],
  ['queue', 'RabbitMQ'],
  ['deploy target', 'Kubernetes'],
  ['owner', '王小明'],
  ['log retention', '30 days'],
] as const
const SQUADS = ['alpha squad', 'bravo squad', 'charlie squad']

/**
 * Whether an element is what a click at its centre lands on, looking through shadow roots. Browser code, kept as
 * text (the tests compile without the DOM's types).
 */
const ON_TOP = new Function(
  'element',
  `
  const box = element.getBoundingClientRect()
  const [x, y] = [box.x + box.width / 2, box.y + box.height / 2]
  let hit = document.elementFromPoint(x, y)
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y)
    if (inner === null || inner === hit) break
    hit = inner
  }
  return hit === element || element.contains(hit)`,
) as (element: unknown) => boolean

/** Open Settings → Plugins and wait for the card's counts. */
async function openCard(scheme: 'light' | 'dark'): Promise<{ opened: HostPage; card: Locator }> {
  if (env === undefined) throw new Error('no host')
  const opened = await openHost(env.browser, env.host.url, { width: 1440, height: 960 }, scheme)
  await opened.page.getByRole('button', { name: 'Settings' }).first().click()
  await opened.page
    .getByText(/^Plugins$/u)
    .first()
    .click()
  const card = opened.page.locator('fm-settings-card')
  await card
    .locator('[data-fm="card-counts"]')
    .filter({ hasText: /current facts?/u })
    .waitFor()
  return { opened, card }
}

/** The preview's text lines, in document order. */
async function labels(preview: Locator): Promise<string[]> {
  return preview.locator('[data-fm="preview-label"]').allTextContents()
}

/** The contrast of every label of the preview. */
function contrasts(preview: Locator): Promise<{ text: string; ratio: number }[]> {
  return svgLabelContrasts(preview.locator('[data-fm="preview-label"]'))
}

async function shoot(page: Page, preview: Locator, name: string): Promise<void> {
  await preview.scrollIntoViewIfNeeded()
  await screenshot(page, name)
  await preview.screenshot({ path: await screenshot(page, `${name}-close`) })
}

describe("the settings card's graph preview", () => {
  it('draws nothing while the store is empty', async () => {
    const { opened, card } = await openCard('light')
    await card.locator('fm-graph-preview[data-state="empty"]').waitFor({ state: 'attached' })
    assert.equal(await card.locator('[data-fm="graph-preview"]').count(), 0)
    assert.equal(await card.locator('fm-graph-preview h4').count(), 0, 'not even its heading')
    await closeClean(opened)
  })

  it('shows the busiest subject and its neighbours, legible in light and dark, and opens the page on click', async () => {
    if (env === undefined) throw new Error('no host')
    await converse(env.host.url, env.model, env.home.workspace, 'remember these', {
      toolCalls: [
        ...ORDERS.map(([property, value]) =>
          writeCall({ subject: 'orders-api', property, value, evidence: 'observed' }),
        ),
        ...SQUADS.map((squad) =>
          writeCall({ subject: squad, property: 'owns', value: 'orders-api', evidence: 'observed' }),
        ),
        ...SQUADS.map((squad, index) =>
          writeCall({ subject: squad, property: 'lead', value: `lead number ${index + 1}`, evidence: 'observed' }),
        ),
        writeCall({ subject: '王小明', property: 'lives in', value: '杭州', evidence: 'observed' }),
      ],
    })
    // What the graph verb answers for the busiest subject, read through the same verb the card uses.
    const nebula = (await env.api.ok('graph', { view: 'nebula' })) as unknown as GraphPayload
    const tree = (await env.api.ok('graph', { view: 'tree', center: 'orders-api' })) as unknown as GraphPayload
    const plan = previewPlan(tree)
    assert.ok(plan !== undefined)
    const neighbours = new Set(
      tree.edges.flatMap((edge) => [edge.source, edge.target]).filter((id) => id !== plan.center.id),
    )
    assert.equal(neighbours.size, ORDERS.length + SQUADS.length)
    const busiest = [...nebula.nodes].filter((node) => node.kind === 'entity').sort((a, b) => b.factCount - a.factCount)
    assert.equal(busiest[0]?.label, 'orders-api')
    assert.ok((busiest[1]?.factCount ?? 0) < (busiest[0]?.factCount ?? 0))
    const labelsOf = new Set(tree.nodes.map((node) => node.label))

    for (const scheme of ['light', 'dark'] as const) {
      const { opened, card } = await openCard(scheme)
      const { page } = opened
      const preview = card.locator('[data-fm="graph-preview"]')
      await preview.waitFor()
      const center = await preview.locator('[data-fm="preview-center"] [data-fm="preview-label"]').allTextContents()
      assert.deepEqual(center, ['orders-api', `${plan.centerFacts} facts`])
      const chips = preview.locator('[data-fm="preview-chip"]')
      assert.equal(await chips.count(), 8)
      const shown = await chips.locator('text.label').allTextContents()
      // Each chip names a neighbour (cut with "…" when long); the subjects come first: the squads and 王小明.
      for (const label of shown) {
        const whole = label.endsWith('…') ? [...labelsOf].find((name) => name.startsWith(label.slice(0, -1))) : label
        assert.ok(whole !== undefined && labelsOf.has(whole) && whole !== 'orders-api', `${label} names no neighbour`)
      }
      for (const name of [...SQUADS, '王小明']) assert.ok(shown.includes(name), `${name} is shown`)
      assert.deepEqual(await preview.locator('[data-fm="preview-more"] text').allTextContents(), [
        `+${neighbours.size - 8} more`,
      ])
      // The squads' facts name orders-api: they sit on its left, the arrows pointing into it.
      const squadBox = await chips.filter({ hasText: 'alpha squad' }).boundingBox()
      const centerBox = await preview.locator('[data-fm="preview-center"] rect').boundingBox()
      assert.ok(squadBox !== null && centerBox !== null && squadBox.x + squadBox.width < centerBox.x)
      // Drawn at one unit per pixel: a label's glyphs are as tall as its font size says, not shrunk to fit.
      const labelBox = await chips.first().locator('text.label').boundingBox()
      assert.ok(labelBox !== null && labelBox.height >= 13, `a label is ${labelBox?.height} px tall`)

      const measured = await contrasts(preview)
      assert.equal(measured.length, (await labels(preview)).length)
      for (const { text, ratio } of measured)
        assert.ok(ratio >= 4.5, `${scheme}: "${text}" has contrast ${ratio.toFixed(2)}:1`)
      console.log(
        `${scheme}: label contrast ${Math.min(...measured.map((entry) => entry.ratio)).toFixed(2)}:1 at the least, over ${measured.length} labels`,
      )
      await shoot(page, preview, `settings-card-graph-preview-${scheme}`)

      await preview.click()
      await page.locator('fm-page').waitFor()
      await page.locator('fm-page nav button[data-tab="graph"][aria-selected="true"]').waitFor()
      // The page is what the user now sees: its tabs are on top at their own centre.
      await screenshot(page, `settings-card-graph-preview-opened-${scheme}`)
      const onTop = await page.locator('fm-page nav button[data-tab="graph"]').evaluate(ON_TOP)
      assert.ok(onTop, 'the page opens on top of the settings')
      assert.equal(await page.locator('fm-settings-card').count(), 0, 'Settings is closed')
      await closeClean(opened)
    }
  })

  it('closes Settings when the card opens the page, so the page is what the user sees', async () => {
    const { opened, card } = await openCard('light')
    const { page } = opened
    await card.locator('[data-fm="card-open-page"]').click()
    await page.locator('fm-page nav button[data-tab="library"][aria-selected="true"]').waitFor()
    assert.ok(
      await page.locator('fm-page nav button[data-tab="library"]').evaluate(ON_TOP),
      'the page opens on top of the settings',
    )
    assert.equal(await page.locator('fm-settings-card').count(), 0, 'Settings is closed')
    await closeClean(opened)
  })
})
