/**
 * The nebula at its drawing budget, in Debian's Chromium against a real DSH rc.8 web host: 320 subjects in eight
 * groups, past the 300-entity cap, draw 600 nodes; the graph is framed, its hubs coloured and its labels apart, in
 * light and dark. Split from page-nebula-browser.spec.ts so the two run side by side.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { screenshot } from './helpers/browser.ts'
import { drawnLabels, overlapping, settledFrame } from './helpers/nebula-view.ts'
import { closeClean, importLines, openNebula, type PageHost, startPageHost } from './helpers/page-host.ts'
import type { GraphPayload } from '../src/graph-types.ts'

let env: PageHost | undefined

/** 320 subjects in 8 groups, each naming its group's lead, with two values each: past the 300-entity cap. */
function library(): Record<string, string>[] {
  const lines: Record<string, string>[] = []
  for (let i = 0; i < 320; i += 1) {
    const subject = `node-${String(i).padStart(3, '0')}`
    lines.push({ subject, property: 'reports to', value: `lead-${i % 8}` })
    lines.push({ subject, property: 'port', value: String(9000 + i) })
    lines.push({ subject, property: 'zone', value: `zone ${i % 40}` })
  }
  for (let g = 0; g < 8; g += 1) lines.push({ subject: `lead-${g}`, property: 'title', value: `group ${g} lead` })
  return lines
}

before(async () => {
  env = await startPageHost()
  await importLines(env.api, library())
})

after(async () => {
  await env?.stop()
})

function started(): PageHost {
  assert.ok(env !== undefined)
  return env
}

async function nebula(): Promise<GraphPayload> {
  return (await started().api.ok('graph', {})) as unknown as GraphPayload
}

describe('the nebula at its budget in a real browser', () => {
  it('at the 600-node budget: frames the graph, colours its hubs, and labels without overlap', async () => {
    const payload = await nebula()
    assert.equal(payload.nodes.length, 600)
    assert.equal(payload.nodes.filter((node) => node.kind === 'entity').length, 300)
    assert.ok(payload.omitted.entities > 0 && payload.omitted.facts > 0)
    for (const scheme of ['light', 'dark'] as const) {
      const opened = await openNebula(started(), { viewport: { width: 1440, height: 900 }, colorScheme: scheme })
      const { page } = opened
      await page
        .locator('fm-graph [data-fm="graph-counts"]')
        .filter({ hasText: /^600 nodes · \d+ edges · [\d,]+ more subjects and [\d,]+ more facts not drawn$/u })
        .waitFor()
      const frame = await settledFrame(page)
      await screenshot(page, `nebula-budget-${scheme}`)
      assert.ok(frame.coverage >= 0.5, `the budget graph covers ${frame.coverage.toFixed(2)}`)
      const colours = (
        (await page.locator('fm-graph [data-fm="nebula"] canvas').getAttribute('data-clusters')) ?? ''
      ).split(' ')
      assert.ok(new Set(colours).size >= 3, `cluster colours: ${colours.join(' ')}`)
      const labels = await drawnLabels(page)
      assert.deepEqual(overlapping(labels), [])
      assert.ok(labels.length >= 3, `${labels.length} labels`)
      await closeClean(opened)
    }
  })
})
