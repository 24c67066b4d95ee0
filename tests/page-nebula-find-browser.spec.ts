/**
 * The nebula's third pass (issue 32, items 8 to 13 and the graph's part of item 3), as a person meets it in Debian's
 * Chromium against a real DSH rc.8 web host: a library of unrelated subjects (grafana, terraform, consul, minio, VPN,
 * laptop and twenty tools) beside people with real links (Carol Ng and Dave Li report to 王芳), a contested owner,
 * a renamed subject and a merged name. The unlinked subjects stand in a group labelled as such; a contested edge
 * shows at the default zoom with its label beside it; a click leaves no frame on the canvas; the star panel's rows
 * align left; the find box flies to a star by name or alias; the tree keeps edges off labels, shows qualifiers and
 * withholds a phone number, as the hover does.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Locator, Page } from 'playwright-core'
import { screenshot, type HostPage } from './helpers/browser.ts'
import type { WebHost } from './helpers/dsh-host.ts'
import type { FactMemoryApi } from './helpers/fact-memory-web.ts'
import { holdReads } from './helpers/held-reads.ts'
import { closeClean, importLines, openNebula, type PageHost, startPageHost, until } from './helpers/page-host.ts'
import type { GraphPayload } from '../src/graph-types.ts'

let env: PageHost | undefined
let host: WebHost
let browser: Browser
let api: FactMemoryApi

const UNRELATED = [
  'grafana',
  'terraform',
  'consul',
  'minio',
  'VPN',
  'laptop',
  ...Array.from({ length: 20 }, (_, i) => `tool-${i}`),
]
const PHONE = '+86 138 0013 8000'

/** The library, as import lines. */
function library(): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [
    { subject: '王芳', property: 'phone', value: PHONE },
    { subject: '王芳', property: 'location', value: 'Shanghai' },
    { subject: '王芳', property: 'team', value: 'platform' },
    { subject: '王芳', property: 'role', value: 'engineering manager' },
    {
      subject: '王芳',
      property: 'note',
      value: 'leads the platform group and keeps the on-call rota for the storage services',
    },
    { subject: 'Carol Ng', property: 'reports to', value: '王芳' },
    { subject: 'Dave Li', property: 'reports to', value: '王芳' },
    { subject: 'Dave Li', property: 'team', value: 'platform' },
    { subject: 'Wang Fang', property: 'desk', value: 'B-14' },
    { subject: 'grafana', property: 'env', value: 'prod' },
    { subject: 'grafana', property: 'port', value: '3000' },
    { subject: 'terraform', property: 'env', value: 'prod' },
    { subject: 'terraform', property: 'version', value: '1.7' },
    { subject: 'consul', property: 'datacenter', value: 'Shanghai' },
    { subject: 'minio', property: 'team', value: 'platform' },
    { subject: 'VPN', property: 'gateway', value: 'vpn.example.com' },
    { subject: 'laptop', property: 'os', value: 'macOS' },
    { subject: 'billing-api', property: 'port', value: '7802', qualifiers: { env: 'staging' } },
    { subject: 'billing-api', property: 'port', value: '17801', qualifiers: { env: 'dev' } },
    { subject: 'billing-api', property: 'owner', value: 'Carol Ng' },
    { subject: 'search-svc', property: 'port', value: '9200' },
    { subject: 'data platform', property: 'owner', value: 'Ana', evidence: 'explicit_user' },
    { subject: 'data platform', property: 'owner', value: 'Bea', evidence: 'observed' },
    { subject: 'data platform', property: 'runs on', value: 'kubernetes' },
  ]
  for (let i = 0; i < 20; i += 1) lines.push({ subject: `tool-${i}`, property: 'version', value: `${i}.0` })
  return lines
}

before(async () => {
  env = await startPageHost()
  ;({ host, browser, api } = env)
  await importLines(api, library())
  // An old name, and a name in another script merged into 王芳: both stay aliases.
  await api.ok('subject-rename', await api.fence({ entityKey: 'search svc', to: 'search-service' }))
  const wang = (await api.ok('entity', { subject: 'Wang Fang' }))['entity'] as { key: string }
  await api.ok('subject-rename', await api.fence({ entityKey: wang.key, to: '王芳' }))
})

after(async () => {
  await env?.stop()
})

function openGraph(colorScheme: 'light' | 'dark' = 'light'): Promise<HostPage> {
  return openNebula({ browser, host }, { colorScheme })
}

/** Waits until the stars hold still, then answers each star's screen point. */
async function settled(page: Page): Promise<Record<string, [number, number]>> {
  const canvas = page.locator('fm-graph [data-fm="nebula"] canvas')
  let last = ''
  let still = 0
  await until(
    async () => {
      const stars = (await canvas.getAttribute('data-stars')) ?? ''
      still = stars !== '' && stars !== '{}' && stars === last ? still + 1 : 0
      last = stars
      if (still < 4) await page.waitForTimeout(250)
      return still >= 4
    },
    'the nebula settles',
    30_000,
  )
  return JSON.parse(last) as Record<string, [number, number]>
}

interface Drawn {
  readonly key: string
  readonly text: string
  readonly box: { x: number; y: number; width: number; height: number }
}

/** The labels drawn now, boxes in canvas pixels. */
async function drawnLabels(page: Page): Promise<Drawn[]> {
  const origin = await page.locator('fm-graph [data-fm="nebula"] canvas').boundingBox()
  const labels = await page.locator('fm-graph [data-fm="nebula"] [data-label]').evaluateAll((elements) =>
    elements
      .filter((element) => element.getAttribute('style')?.includes('display: none') !== true)
      .map((element) => {
        const rect = element.getBoundingClientRect()
        return {
          key: element.getAttribute('data-label') ?? '',
          text: element.textContent ?? '',
          box: { x: rect.x, y: rect.y, width: rect.width, height: rect.height },
        }
      }),
  )
  return labels.map((label) => ({
    ...label,
    box: { ...label.box, x: label.box.x - (origin?.x ?? 0), y: label.box.y - (origin?.y ?? 0) },
  }))
}

/** Distance from a box to a segment, 0 when the segment runs through it (sampled every half pixel or so). */
function boxToSegment(
  box: Drawn['box'],
  [ax = 0, ay = 0]: readonly number[],
  [bx = 0, by = 0]: readonly number[],
): number {
  const steps = Math.max(2, Math.ceil(Math.hypot(bx - ax, by - ay) * 2))
  let best = Infinity
  for (let i = 0; i <= steps; i += 1) {
    const x = ax + ((bx - ax) * i) / steps
    const y = ay + ((by - ay) * i) / steps
    const dx = Math.max(box.x - x, 0, x - (box.x + box.width))
    const dy = Math.max(box.y - y, 0, y - (box.y + box.height))
    best = Math.min(best, Math.hypot(dx, dy))
  }
  return best
}

async function graph(scope: 'current' | 'all' = 'current'): Promise<GraphPayload> {
  return (await api.ok('graph', { scope })) as unknown as GraphPayload
}

/** Type into the find box and press Enter, as a keyboard user does. */
async function find(page: Page, text: string): Promise<Locator> {
  const box = page.locator('fm-graph').getByLabel('Find a star')
  await box.fill(text)
  await box.press('Enter')
  return page.locator('fm-graph [data-fm="find-status"]')
}

describe('the nebula, third pass, in a real browser', () => {
  it('stands unrelated subjects in a group labelled Unlinked, apart from the people who link to 王芳 (light and dark)', async () => {
    const payload = await graph()
    const unlinked = payload.clusters.find((cluster) => cluster.kind === 'unlinked')
    assert.ok(unlinked !== undefined, JSON.stringify(payload.clusters))
    const clusterOf = (label: string): number | undefined => payload.nodes.find((node) => node.label === label)?.cluster
    assert.deepEqual(
      UNRELATED.filter((subject) => clusterOf(subject) !== unlinked.index),
      [],
    )
    assert.deepEqual(['王芳', 'Carol Ng', 'Dave Li'].map(clusterOf), Array(3).fill(clusterOf('王芳')))
    assert.equal(payload.clusters.find((cluster) => cluster.index === clusterOf('王芳'))?.label, '王芳')
    for (const scheme of ['light', 'dark'] as const) {
      const opened = await openGraph(scheme)
      const { page } = opened
      const stars = await settled(page)
      const labels = await drawnLabels(page)
      await screenshot(page, `nebula-unlinked-${scheme}`)
      const group = labels.find((label) => /^Unlinked · \d+ subjects$/u.test(label.text))
      assert.ok(group !== undefined, `labels: ${labels.map((label) => label.text).join(', ')}`)
      assert.equal(group.text, `Unlinked · ${unlinked.subjects} subjects`)
      // The label sits among the unlinked stars: nearer their centre than any person's star is.
      const members = payload.nodes
        .filter((node) => node.cluster === unlinked.index)
        .map((node) => stars[node.id])
        .filter((at) => at !== undefined)
      const centre = [
        members.reduce((sum, at) => sum + at[0], 0) / members.length,
        members.reduce((sum, at) => sum + at[1], 0) / members.length,
      ]
      const labelCentre = [group.box.x + group.box.width / 2, group.box.y + group.box.height / 2]
      const wang = stars[payload.nodes.find((node) => node.label === '王芳')?.id ?? ''] ?? [0, 0]
      assert.ok(
        Math.hypot((labelCentre[0] ?? 0) - (centre[0] ?? 0), (labelCentre[1] ?? 0) - (centre[1] ?? 0)) <
          Math.hypot(wang[0] - (centre[0] ?? 0), wang[1] - (centre[1] ?? 0)),
        'the Unlinked label is nearer its group than 王芳 is',
      )
      // No person's name labels a star of the unlinked group.
      assert.ok(
        labels.some((label) => label.text === '王芳'),
        '王芳 labels her own cluster',
      )
      await closeClean(opened)
    }
  })

  it('shows a contested edge at the default zoom, its label beside it', async () => {
    const all = await graph('all')
    const contested = all.edges.filter((edge) => edge.contested)
    assert.equal(contested.length, 2)
    const opened = await openGraph()
    const { page } = opened
    await page.locator('fm-graph').getByRole('button', { name: 'All, with contested' }).click()
    await page
      .locator('fm-graph [data-fm="graph-counts"]')
      .filter({ hasText: new RegExp(`^${all.nodes.length} nodes`, 'u') })
      .waitFor()
    const stars = await settled(page)
    const labels = await drawnLabels(page)
    await screenshot(page, 'nebula-contested-beside')
    for (const edge of contested) {
      const a = stars[edge.source]
      const b = stars[edge.target]
      assert.ok(a !== undefined && b !== undefined)
      const length = Math.hypot(a[0] - b[0], a[1] - b[1])
      assert.ok(length >= 30, `the contested edge ${edge.label} is ${length.toFixed(1)} px long on screen`)
      const label = labels.find((drawn) => drawn.key === `e:${edge.id}`)
      assert.ok(
        label !== undefined,
        `the contested edge to ${edge.target} is labelled: ${labels.map((drawn) => drawn.text).join(', ')}`,
      )
      const gap = boxToSegment(label.box, a, b)
      assert.ok(
        gap <= 12,
        `"${label.text}" sits ${gap.toFixed(1)} px from its edge (${a.join(',')} → ${b.join(',')}, ${JSON.stringify(label.box)})`,
      )
    }
    await closeClean(opened)
  })

  it('draws no frame around the canvas after a click, and a focus ring for the keyboard', async () => {
    const opened = await openGraph()
    const { page } = opened
    await settled(page)
    const canvas = page.locator('fm-graph [data-fm="nebula"] canvas')
    const outline = new Function(
      'element',
      'const style = getComputedStyle(element); return style.outlineStyle === "none" ? 0 : parseFloat(style.outlineWidth)',
    ) as (element: unknown) => number
    const box = await canvas.boundingBox()
    await page.mouse.click((box?.x ?? 0) + 8, (box?.y ?? 0) + 8)
    assert.equal(
      await canvas.evaluate(
        new Function('element', 'return element.getRootNode().activeElement === element') as (
          element: unknown,
        ) => boolean,
      ),
      true,
      'the click focused the canvas',
    )
    assert.equal(await canvas.evaluate(outline), 0, 'no frame after a click')
    // A key after the click (the arrows pan) still leaves no frame: the focus came from the mouse.
    await page.keyboard.press('ArrowLeft')
    assert.equal(await canvas.evaluate(outline), 0, 'no frame after a click and a key')
    await screenshot(page, 'nebula-after-click')
    await page.locator('fm-graph [data-fm="graph-fit"]').focus()
    await page.keyboard.press('Tab')
    await page.keyboard.press('Tab')
    const focused = await canvas.evaluate(
      new Function('element', 'return element.getRootNode().activeElement === element') as (
        element: unknown,
      ) => boolean,
    )
    assert.equal(focused, true, 'Tab reaches the canvas')
    assert.ok((await canvas.evaluate(outline)) >= 2, 'a keyboard focus ring')
    await closeClean(opened)
  })

  it('finds a star by name, old name or merged name, flies to it and opens its panel; says when none matches', async () => {
    const opened = await openGraph()
    const { page } = opened
    await settled(page)
    const title = page.locator('fm-graph [data-fm="selection-title"]')
    const status = await find(page, '王芳')
    await title.filter({ hasText: /^王芳 · \d+ facts$/u }).waitFor()
    assert.equal(await status.getAttribute('data-found'), 'true')
    // The flight lands the star in the middle of the canvas.
    const payload = await graph()
    const wang = payload.nodes.find((node) => node.label === '王芳')
    const canvas = await page.locator('fm-graph [data-fm="nebula"] canvas').boundingBox()
    const stars = await settled(page)
    const at = stars[wang?.id ?? ''] ?? [0, 0]
    assert.ok(
      Math.hypot(at[0] - (canvas?.width ?? 0) / 2, at[1] - (canvas?.height ?? 0) / 2) < 24,
      `王芳 is drawn at ${at.join(',')}`,
    )
    await screenshot(page, 'nebula-find-wang')

    // The panel's rows align left, their Forget buttons on the first line, never wrapped below.
    const rows = page.locator('fm-graph [data-fm="graph-selection"] li')
    const geometry = await rows.evaluateAll((elements) =>
      elements.map((element) => {
        const row = element.getBoundingClientRect()
        const fact = element.querySelector('button.fact')?.getBoundingClientRect()
        const forget = element.querySelector('fm-forget')?.getBoundingClientRect()
        return {
          rowLeft: row.left,
          rowRight: row.right,
          factLeft: fact?.left ?? -1,
          factTop: fact?.top ?? -1,
          forgetTop: forget?.top ?? -1,
          forgetRight: forget?.right ?? -1,
          forgetHeight: forget?.height ?? -1,
        }
      }),
    )
    assert.ok(geometry.length >= 5, `${geometry.length} rows`)
    for (const row of geometry) {
      assert.ok(
        Math.abs(row.factLeft - row.rowLeft) <= 1,
        `a row's text starts at its left edge: ${JSON.stringify(row)}`,
      )
      assert.ok(
        Math.abs(row.forgetTop - row.factTop) <= 4 && row.forgetHeight <= 36,
        `Forget sits on the first line: ${JSON.stringify(row)}`,
      )
      assert.ok(Math.abs(row.forgetRight - row.rowRight) <= 1, `Forget sits at the right edge: ${JSON.stringify(row)}`)
    }
    // The panel lists facts, so it follows the page's one rule: the phone reads withheld beside its mark.
    const panelText = (await rows.allInnerTexts()).join('\n')
    assert.match(panelText, /phone: withheld \(sensitive: phone\)/u)
    assert.ok(!panelText.includes(PHONE), 'the star panel never lists the phone number itself')
    const textAlign = await page
      .locator('fm-graph [data-fm="graph-selection"] li button.fact')
      .first()
      .evaluate(new Function('element', 'return getComputedStyle(element).textAlign') as (element: unknown) => string)
    assert.ok(textAlign === 'left' || textAlign === 'start', textAlign)

    // Each find is awaited by its own answer: the panel's title alone would already read 王芳 before 'Wang Fang' lands.
    await (await find(page, 'Wang Fang')).filter({ hasText: 'Found 王芳 for “Wang Fang”.' }).waitFor()
    await title.filter({ hasText: /^王芳 · \d+ facts$/u }).waitFor()
    await (await find(page, 'search-svc')).filter({ hasText: 'Found search-service for “search-svc”.' }).waitFor()
    await title.filter({ hasText: /^search-service · \d+ facts?$/u }).waitFor()
    const none = await find(page, 'no-such-subject')
    await none.filter({ hasText: '“no-such-subject”' }).waitFor()
    assert.equal(await none.innerText(), 'No star matches “no-such-subject”.')
    assert.equal(await none.getAttribute('data-found'), 'false')
    await screenshot(page, 'nebula-find-none')
    await closeClean(opened)
  })

  it("opens the newest find's star when an earlier find's facts land after it", async () => {
    const opened = await openGraph()
    const { page } = opened
    const title = page.locator('fm-graph [data-fm="selection-title"]')
    // 王芳's panel reads the two facts that name her (Carol Ng's and Dave Li's) one by one; search-service's facts
    // are all its own and come with its entity read. Hers are held until the later find's panel is shown.
    const namingWang = await holdReads(page, 'fact')
    await find(page, 'Wang Fang')
    await namingWang.reached(2)
    const status = await find(page, 'search-svc')
    await title.filter({ hasText: /^search-service · \d+ facts?$/u }).waitFor()
    await namingWang.release()
    assert.match(await title.innerText(), /^search-service · /u, "the earlier find's late facts left the panel alone")
    assert.equal(await status.innerText(), 'Found search-service for “search-svc”.')
    await closeClean(opened)
  })

  it('withholds a phone number from the hover label, as the Markdown export does', async () => {
    const payload = await graph()
    const phone = payload.nodes.find((node) => node.label === PHONE)
    assert.equal(phone?.sensitivity, 'phone')
    const opened = await openGraph()
    const { page } = opened
    const stars = await settled(page)
    const at = stars[phone?.id ?? '']
    assert.ok(at !== undefined)
    const canvas = await page.locator('fm-graph [data-fm="nebula"] canvas').boundingBox()
    await page.mouse.move((canvas?.x ?? 0) + at[0], (canvas?.y ?? 0) + at[1])
    await until(
      async () =>
        (await drawnLabels(page)).some((label) => label.key === `n:${phone?.id}` && / · 1 fact$/u.test(label.text)),
      'the hover names the star',
    ).catch(async (error: unknown) => {
      await screenshot(page, 'nebula-hover-withheld')
      throw new Error(
        `${String(error)}: ${(await drawnLabels(page)).map((label) => `${label.key} ${label.text}`).join(', ')}`,
      )
    })
    const texts = (await drawnLabels(page)).map((label) => label.text)
    assert.ok(texts.includes('withheld: phone · 1 fact'), texts.join(', '))
    assert.deepEqual(
      texts.filter((text) => text.includes('138')),
      [],
    )
    await screenshot(page, 'nebula-hover-withheld')
    await closeClean(opened)
  })

  it('keeps every edge off every label in the one-hop tree, names qualifiers, and withholds the phone', async () => {
    const opened = await openGraph()
    const { page } = opened
    await page.locator('fm-graph').getByRole('button', { name: 'One-hop tree' }).click()
    const tree = page.locator('fm-graph fm-svg-tree [data-fm="svg-tree"]')
    for (const [subject, expected] of [
      ['billing-api', ['port (env=dev)', 'port (env=staging)']],
      ['王芳', ['withheld: phone']],
    ] as const) {
      await page.locator('fm-graph [data-fm="tree-center"]').fill(subject)
      await page.locator('fm-graph [data-fm="tree-center"]').press('Enter')
      await tree.locator('g.node.center', { hasText: subject }).waitFor()
      const texts = await tree
        .locator('text')
        .evaluateAll((elements) => elements.map((element) => element.textContent ?? ''))
      for (const text of expected) assert.ok(texts.includes(text), `${subject}: ${texts.join(', ')}`)
      assert.deepEqual(
        texts.filter((text) => text.includes('138')),
        [],
      )
      const crossings = await tree.evaluate(
        new Function(
          'svg',
          `
        const out = [];
        const lines = [...svg.querySelectorAll('g[data-fm="tree-edge"] line.edge')];
        for (const text of svg.querySelectorAll('text')) {
          const b = text.getBBox();
          const own = text.closest('g[data-fm="tree-edge"]');
          for (const line of lines) {
            if (own !== null && own.contains(line)) continue;
            const [x1, y1, x2, y2] = ['x1', 'y1', 'x2', 'y2'].map((name) => Number(line.getAttribute(name)));
            let t0 = 0, t1 = 1, hit = true;
            for (const [p, q] of [[x1 - x2, x1 - b.x], [x2 - x1, b.x + b.width - x1], [y1 - y2, y1 - b.y], [y2 - y1, b.y + b.height - y1]]) {
              if (p === 0) { if (q < 0) hit = false; continue; }
              const t = q / p;
              if (p < 0) { if (t > t1) hit = false; else if (t > t0) t0 = t; } else { if (t < t0) hit = false; else if (t < t1) t1 = t; }
            }
            if (hit && t0 < t1) out.push(text.textContent + ' × ' + line.parentElement.getAttribute('data-target'));
          }
        }
        return out;`,
        ) as (svg: unknown) => string[],
      )
      assert.deepEqual(crossings, [], `${subject}: edges cross labels`)
      await screenshot(page, `tree-${subject === '王芳' ? 'wang' : subject}`)
    }
    await closeClean(opened)
  })
})
