/**
 * The nebula as a person sees it, in Debian's Chromium against a real DSH rc.8 web host: a library of about 150
 * facts around three hubs, imported through the page's own API. The counts the graph tab shows equal what it lists
 * and draws. Screenshots land in test-artifacts/ for a person to look at.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { openHost, screenshot, type HostPage } from './helpers/browser.ts'
import type { WebHost } from './helpers/dsh-host.ts'
import type { FactMemoryApi } from './helpers/fact-memory-web.ts'
import { closeClean, startPageHost, type PageHost } from './helpers/page-host.ts'
import type { GraphPayload } from '../src/graph-types.ts'

let env: PageHost | undefined
let host: WebHost
let browser: Browser
let api: FactMemoryApi

/** One import line. */
interface Line {
  readonly subject: string
  readonly property: string
  readonly value: string
  readonly evidence?: string
}

/**
 * About 150 facts: three hubs (a service, a team and a platform) with a dozen facts each and ten subjects each
 * pointing at them with two facts of their own, and Bob Martinez, who has three facts and is named by two more.
 */
function library(): Line[] {
  const lines: Line[] = []
  const hubs = [
    { name: 'billing-api', link: 'depends on', kind: 'svc' },
    { name: 'team payments', link: 'owned by', kind: 'job' },
    { name: 'data platform', link: 'runs on', kind: 'etl' },
  ]
  const properties = ['port', 'host', 'region', 'runtime', 'version', 'repository', 'dashboard', 'alert channel', 'on-call', 'backup', 'log level', 'timeout']
  hubs.forEach((hub, h) => {
    properties.forEach((property, p) => lines.push({ subject: hub.name, property, value: `${hub.kind}-${property.replace(' ', '-')}-${h}${p}` }))
    for (let s = 0; s < 10; s += 1) {
      const satellite = `${hub.kind}-${['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'][s]}`
      lines.push({ subject: satellite, property: hub.link, value: hub.name })
      lines.push({ subject: satellite, property: 'port', value: String(7000 + h * 100 + s) })
      lines.push({ subject: satellite, property: 'language', value: ['Go', 'Rust', 'TypeScript', 'Python'][(s + h) % 4] ?? 'Go' })
    }
  })
  lines.push({ subject: 'Bob Martinez', property: 'role', value: 'staff engineer' })
  lines.push({ subject: 'Bob Martinez', property: 'location', value: 'Lisbon' })
  lines.push({ subject: 'Bob Martinez', property: 'start date', value: '2021-04-01' })
  lines.push({ subject: 'svc-alpha', property: 'owner', value: 'Bob Martinez' })
  lines.push({ subject: 'etl-bravo', property: 'owner', value: 'Bob Martinez' })
  for (let i = 0; i < 15; i += 1) lines.push({ subject: `misc-${i}`, property: 'note', value: `loose end ${i}` })
  return lines
}

before(async () => {
  env = await startPageHost();
  ({ host, browser, api } = env)
  const content = `${library().map((line) => JSON.stringify(line)).join('\n')}\n`
  const preview = await api.ok('import', { mode: 'preview', content })
  await api.ok('import', { mode: 'commit', content, token: String(preview['token']), expectedGeneration: await api.generation(), operationId: api.op('seed') })
})

after(async () => { await env?.stop() })

/** Open the host, then the page (it opens on the nebula). */
async function openGraph(viewport = { width: 1440, height: 900 }, colorScheme: 'light' | 'dark' = 'light'): Promise<HostPage> {
  const opened = await openHost(browser, host.url, viewport, colorScheme)
  await opened.page.locator('[data-fm="sidebar-entry"]').click()
  await opened.page.locator('fm-graph [data-fm="nebula"] canvas').waitFor()
  return opened
}

async function nebula(): Promise<GraphPayload> {
  return (await api.ok('graph', {})) as unknown as GraphPayload
}

/** The listed facts of the selection panel, once its title reads `title`. */
async function selectionOf(page: Page, title: RegExp): Promise<{ title: string; facts: number }> {
  const panel = page.locator('fm-graph [data-fm="graph-selection"]')
  await panel.locator('[data-fm="selection-title"]').filter({ hasText: title }).waitFor()
  return { title: await panel.locator('[data-fm="selection-title"]').innerText(), facts: await panel.locator('li').count() }
}

describe('the nebula in a real browser', () => {
  it('says what it draws: the toolbar counts nodes and edges, and a panel counts the facts it lists', async () => {
    const payload = await nebula()
    assert.ok(payload.nodes.length >= 100 && payload.edges.length >= 120, `${payload.nodes.length} nodes, ${payload.edges.length} edges`)
    const opened = await openGraph()
    const { page } = opened
    await page.locator('fm-graph [data-fm="graph-counts"]')
      .filter({ hasText: new RegExp(`^${payload.nodes.length} nodes · ${payload.edges.length} edges$`, 'u') }).waitFor()

    // Bob Martinez: three facts of his own and two naming him, all five listed.
    await page.locator('fm-graph').getByRole('button', { name: 'One-hop tree' }).click()
    const tree = page.locator('fm-graph fm-svg-tree [data-fm="svg-tree"]')
    await tree.waitFor()
    const bob = payload.nodes.find((node) => node.label === 'Bob Martinez')
    assert.equal(bob?.factCount, 5)
    await openTreeOn(page, 'Bob Martinez')
    assert.deepEqual(await selectionOf(page, /^Bob Martinez · 5 facts$/u), { title: 'Bob Martinez · 5 facts', facts: 5 })
    await screenshot(page, 'nebula-count-bob-tree')

    // One fact: a loose end's value.
    await openTreeOn(page, 'misc-3')
    await tree.locator('g.node', { hasText: 'loose end 3' }).locator('circle').click()
    assert.deepEqual(await selectionOf(page, /^loose end 3 · 1 fact$/u), { title: 'loose end 3 · 1 fact', facts: 1 })
    await closeClean(opened)
  })
})

/** Centre the tree on a subject with the tree's centre field, then click the centre. */
async function openTreeOn(page: Page, subject: string): Promise<void> {
  await page.locator('fm-graph [data-fm="tree-center"]').fill(subject)
  await page.locator('fm-graph [data-fm="tree-center"]').press('Enter')
  const tree = page.locator('fm-graph fm-svg-tree [data-fm="svg-tree"]')
  await tree.locator('g.node.center', { hasText: subject }).waitFor()
  await tree.locator('g.node.center circle').click()
}
