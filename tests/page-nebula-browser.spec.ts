/**
 * The nebula as a person sees it, in Debian's Chromium against a real DSH rc.8 web host: a library of about 150
 * facts around three hubs, imported through the page's own API. The counts the graph tab shows equal what it lists
 * and draws. Screenshots land in test-artifacts/ for a person to look at.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Locator, Page } from 'playwright-core'
import { screenshot, type HostPage } from './helpers/browser.ts'
import type { WebHost } from './helpers/dsh-host.ts'
import type { FactMemoryApi } from './helpers/fact-memory-web.ts'
import { type HeldReads, holdReads } from './helpers/held-reads.ts'
import { drawnLabels, overlapping, settledFrame } from './helpers/nebula-view.ts'
import { closeClean, importLines, openNebula, type PageHost, startPageHost } from './helpers/page-host.ts'
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
  const properties = [
    'port',
    'host',
    'region',
    'runtime',
    'version',
    'repository',
    'dashboard',
    'alert channel',
    'on-call',
    'backup',
    'log level',
    'timeout',
  ]
  hubs.forEach((hub, h) => {
    properties.forEach((property, p) =>
      lines.push({ subject: hub.name, property, value: `${hub.kind}-${property.replace(' ', '-')}-${h}${p}` }),
    )
    for (let s = 0; s < 10; s += 1) {
      const satellite = `${hub.kind}-${['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'][s]}`
      lines.push({ subject: satellite, property: hub.link, value: hub.name })
      lines.push({ subject: satellite, property: 'port', value: String(7000 + h * 100 + s) })
      lines.push({
        subject: satellite,
        property: 'language',
        value: ['Go', 'Rust', 'TypeScript', 'Python'][(s + h) % 4] ?? 'Go',
      })
    }
  })
  lines.push({ subject: 'Bob Martinez', property: 'role', value: 'staff engineer' })
  lines.push({ subject: 'Bob Martinez', property: 'location', value: 'Lisbon' })
  lines.push({ subject: 'Bob Martinez', property: 'start date', value: '2021-04-01' })
  lines.push({ subject: 'svc-alpha', property: 'owner', value: 'Bob Martinez' })
  lines.push({ subject: 'etl-bravo', property: 'owner', value: 'Bob Martinez' })
  for (let i = 0; i < 15; i += 1) lines.push({ subject: `misc-${i}`, property: 'note', value: `loose end ${i}` })
  // What the user said, then a weaker source saying otherwise: a contested relation.
  lines.push({ subject: 'data platform', property: 'owner', value: 'Ana', evidence: 'explicit_user' })
  lines.push({ subject: 'data platform', property: 'owner', value: 'Bea', evidence: 'observed' })
  return lines
}

before(async () => {
  env = await startPageHost()
  ;({ host, browser, api } = env)
  await importLines(api, library())
})

after(async () => {
  await env?.stop()
})

/** Open the host, then the page (it opens on the nebula). */
function openGraph(
  viewport = { width: 1440, height: 900 },
  colorScheme: 'light' | 'dark' = 'light',
): Promise<HostPage> {
  return openNebula({ browser, host }, { viewport, colorScheme })
}

async function nebula(): Promise<GraphPayload> {
  return (await api.ok('graph', {})) as unknown as GraphPayload
}

/** The listed facts of the selection panel, once its title reads `title`. */
async function selectionOf(page: Page, title: RegExp): Promise<{ title: string; facts: number }> {
  const panel = page.locator('fm-graph [data-fm="graph-selection"]')
  await panel.locator('[data-fm="selection-title"]').filter({ hasText: title }).waitFor()
  return {
    title: await panel.locator('[data-fm="selection-title"]').innerText(),
    facts: await panel.locator('li').count(),
  }
}

describe('the nebula in a real browser', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`frames the graph on open and after a resize, colours each hub's cluster, and labels hubs without overlap (${scheme})`, async () => {
      const payload = await nebula()
      const hubs = payload.nodes.filter((node) => node.hub).map((node) => node.label)
      assert.ok(
        ['billing-api', 'team payments', 'data platform'].every((hub) => hubs.includes(hub)),
        `hubs: ${hubs.join(', ')}`,
      )
      const opened = await openGraph({ width: 1440, height: 900 }, scheme)
      const { page } = opened
      const open = await settledFrame(page)
      await screenshot(page, `nebula-open-${scheme}`)
      assert.ok(
        open.coverage >= 0.5,
        `on open the graph covers ${open.coverage.toFixed(2)} of the canvas (${open.box.join(',')} in ${open.canvas.width}×${open.canvas.height})`,
      )
      const colours = (
        (await page.locator('fm-graph [data-fm="nebula"] canvas').getAttribute('data-clusters')) ?? ''
      ).split(' ')
      assert.ok(new Set(colours).size >= 3, `cluster colours: ${colours.join(' ')}`)
      const labels = await drawnLabels(page)
      assert.deepEqual(overlapping(labels), [])
      for (const hub of ['billing-api', 'team payments', 'data platform'])
        assert.ok(
          labels.some((label) => label.text === hub),
          `${hub} is labelled`,
        )

      // Zoomed out and turned, then the fit control frames it again.
      const canvas = page.locator('fm-graph [data-fm="nebula"] canvas')
      await canvas.hover()
      for (let i = 0; i < 6; i += 1) await page.mouse.wheel(0, 400)
      const away = await settledFrame(page)
      assert.ok(away.coverage < open.coverage, `zoomed out: ${away.coverage.toFixed(2)}`)
      await page.locator('fm-graph [data-fm="graph-fit"]').click()
      const fitted = await settledFrame(page)
      assert.ok(fitted.coverage >= 0.5, `after fit: ${fitted.coverage.toFixed(2)}`)

      await page.setViewportSize({ width: 1000, height: 760 })
      const resized = await settledFrame(page)
      assert.ok(resized.coverage >= 0.5, `after a resize the graph covers ${resized.coverage.toFixed(2)}`)
      assert.deepEqual(overlapping(await drawnLabels(page)), [])
      await screenshot(page, `nebula-resized-${scheme}`)

      // A hub's star lists the facts it counts (opened through Find a star: at this size a satellite may be drawn in
      // front of the hub, and a click then rightly opens the nearer star).
      await page.locator('fm-graph').getByLabel('Find a star').fill('billing-api')
      await page.locator('fm-graph').getByLabel('Find a star').press('Enter')
      const star = payload.nodes.find((node) => node.label === 'billing-api')
      const listed = await selectionOf(page, /^billing-api · \d+ facts$/u)
      assert.equal(listed.title, `billing-api · ${star?.factCount} facts`)
      assert.equal(listed.facts, star?.factCount)
      // Its neighbours are labelled too, still without overlap.
      assert.deepEqual(overlapping(await drawnLabels(page)), [])
      await screenshot(page, `nebula-selected-${scheme}`)
      await closeClean(opened)
    })
  }

  it('says what it draws: the toolbar counts nodes and edges, and a panel counts the facts it lists', async () => {
    const payload = await nebula()
    assert.ok(
      payload.nodes.length >= 100 && payload.edges.length >= 120,
      `${payload.nodes.length} nodes, ${payload.edges.length} edges`,
    )
    const opened = await openGraph()
    const { page } = opened
    await page
      .locator('fm-graph [data-fm="graph-counts"]')
      .filter({ hasText: new RegExp(`^${payload.nodes.length} nodes · ${payload.edges.length} edges$`, 'u') })
      .waitFor()

    // Bob Martinez: three facts of his own and two naming him, all five listed.
    await page.locator('fm-graph').getByRole('button', { name: 'One-hop tree' }).click()
    const tree = page.locator('fm-graph fm-svg-tree [data-fm="svg-tree"]')
    await tree.waitFor()
    const bob = payload.nodes.find((node) => node.label === 'Bob Martinez')
    assert.equal(bob?.factCount, 5)
    await openTreeOn(page, 'Bob Martinez')
    assert.deepEqual(await selectionOf(page, /^Bob Martinez · 5 facts$/u), {
      title: 'Bob Martinez · 5 facts',
      facts: 5,
    })
    await screenshot(page, 'nebula-count-bob-tree')

    // One fact: a loose end's value.
    await openTreeOn(page, 'misc-3')
    await tree.locator('g.node', { hasText: 'loose end 3' }).locator('circle').click()
    assert.deepEqual(await selectionOf(page, /^loose end 3 · 1 fact$/u), { title: 'loose end 3 · 1 fact', facts: 1 })
    await closeClean(opened)
  })

  it("keeps the centre typed into the one-hop tree when the default centre's slower read lands after it", async () => {
    // The first tree read after switching to the tree (the default centre's) answers only after the typed centre
    // has been drawn.
    const { opened, page, defaultTree, field, centre } = await treeWithDefaultHeld()
    await openTreeOn(page, 'Bob Martinez')
    await defaultTree.release()
    assert.match(
      (await centre.textContent()) ?? '',
      /Bob Martinez/u,
      'the late default centre did not replace the one typed',
    )
    assert.equal(await field.inputValue(), 'Bob Martinez')
    await closeClean(opened)
  })

  it('keeps a subject typed while the default centre is on its way, and centres the tree on it at Enter', async () => {
    // The default centre's tree read is held until the subject has been typed, then answered before Enter.
    const { opened, defaultTree, field, centre } = await treeWithDefaultHeld()
    await field.fill('Bob Martinez')
    await defaultTree.release()
    await centre.filter({ hasNotText: 'Bob Martinez' }).waitFor()
    assert.equal(await field.inputValue(), 'Bob Martinez', 'the default tree left the typed subject alone')
    await field.press('Enter')
    await centre.filter({ hasText: 'Bob Martinez' }).waitFor()
    assert.equal(await field.inputValue(), 'Bob Martinez')
    await closeClean(opened)
  })

  it('leaves the centre field alone while the user is in it: a default centre landing before the first key is not typed after', async () => {
    // The default centre's tree read lands after the user has entered the empty field, before they type: as when a
    // field is selected to be typed over (Playwright's fill selects, then inserts) and a read lands in between.
    const { opened, page, defaultTree, field, centre } = await treeWithDefaultHeld()
    await field.click()
    await defaultTree.release()
    await centre.filter({ hasText: 'billing-api' }).waitFor()
    await page.keyboard.type('Bob Martinez')
    assert.equal(await field.inputValue(), 'Bob Martinez', 'the default centre was not written into the field')
    await field.press('Enter')
    await centre.filter({ hasText: 'Bob Martinez' }).waitFor()
    assert.equal(await field.inputValue(), 'Bob Martinez')
    await closeClean(opened)
  })

  it('draws contested relations dashed and names them at the default zoom, under All, with contested', async () => {
    const all = (await api.ok('graph', { scope: 'all' })) as unknown as GraphPayload
    const contested = all.edges.filter((edge) => edge.contested)
    assert.ok(contested.length >= 1, 'the library holds a contested relation')
    const opened = await openGraph()
    const { page } = opened
    await page.locator('fm-graph').getByRole('button', { name: 'All, with contested' }).click()
    await page
      .locator('fm-graph [data-fm="nebula"]')
      .getByText(new RegExp(`dashed: ${contested.length} contested relations?, not confirmed`, 'u'))
      .waitFor()
    await settledFrame(page)
    const labels = await drawnLabels(page)
    assert.ok(
      labels.some((label) => /^owner · contested$/u.test(label.text)),
      `labels: ${labels.map((label) => label.text).join(', ')}`,
    )
    assert.deepEqual(overlapping(labels), [])
    await screenshot(page, 'nebula-contested')
    await closeClean(opened)
  })
})

/**
 * Open the graph and switch to the one-hop tree with the default centre's tree read held (the first tree read).
 * @returns the page, the held read, the centre field and the drawn centre.
 */
async function treeWithDefaultHeld(): Promise<{
  opened: HostPage
  page: Page
  defaultTree: HeldReads
  field: Locator
  centre: Locator
}> {
  const opened = await openGraph()
  const { page } = opened
  await page.locator('fm-graph [data-fm="graph-counts"]').waitFor()
  const defaultTree = await holdReads(page, 'graph', (body) => body.includes('"view":"tree"'), 1)
  await page.locator('fm-graph').getByRole('button', { name: 'One-hop tree' }).click()
  await defaultTree.reached()
  return {
    opened,
    page,
    defaultTree,
    field: page.locator('fm-graph [data-fm="tree-center"]'),
    centre: page.locator('fm-graph fm-svg-tree [data-fm="svg-tree"] g.node.center'),
  }
}

/** Centre the tree on a subject with the tree's centre field, then click the centre. */
async function openTreeOn(page: Page, subject: string): Promise<void> {
  await page.locator('fm-graph [data-fm="tree-center"]').fill(subject)
  await page.locator('fm-graph [data-fm="tree-center"]').press('Enter')
  const tree = page.locator('fm-graph fm-svg-tree [data-fm="svg-tree"]')
  await tree.locator('g.node.center', { hasText: subject }).waitFor()
  await tree.locator('g.node.center circle').click()
}
