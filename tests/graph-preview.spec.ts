/**
 * The settings card's graph preview without a DOM, over payloads projectGraph makes from plain rows: the busiest
 * subject is the one with the most facts about or naming it; the neighbours are capped with the rest counted; those
 * that name the centre sit on the left; chips never overlap each other or the centre, stay inside the drawing and
 * hold their (cut) labels; and the same payload always gives the same drawing.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  busiestSubject,
  fitText,
  PREVIEW_NEIGHBOURS,
  PREVIEW_SIZES,
  previewLayout,
  previewPlan,
  textWidth,
  type Box,
  type PreviewLayout,
} from '../client/graph-preview.ts'
import { projectGraph, type GraphFactRow } from '../src/graph.ts'
import type { GraphPayload } from '../src/graph-types.ts'
import { canonicalEntity } from '../src/text/normalize.ts'

const NOW = '2026-03-01T09:00:00.000Z'

/** Subjects as written, by their entity key. */
const DISPLAY = new Map<string, string>()

/** Rows with ids in call order, plain active facts, about the subject as written (keyed as the store keys it). */
function rowMaker(): (subject: string, property: string, value: string) => GraphFactRow {
  let next = 0
  return (subject, property, value) => {
    next += 1
    const entityKey = canonicalEntity(subject)
    DISPLAY.set(entityKey, subject)
    return {
      id: next,
      entityKey,
      property,
      value,
      status: 'active',
      evidence: 'observed',
      observedAt: NOW,
      contested: false,
      credential: false,
    }
  }
}

const entitiesOf = (rows: readonly GraphFactRow[]): Map<string, string> =>
  new Map(rows.map((row) => [row.entityKey, DISPLAY.get(row.entityKey) ?? row.entityKey]))
const nebulaOf = (rows: readonly GraphFactRow[]): GraphPayload =>
  projectGraph(rows, entitiesOf(rows), { view: 'nebula', scope: 'current', generation: 1 })
const treeOf = (rows: readonly GraphFactRow[], center: string): GraphPayload =>
  projectGraph(rows, entitiesOf(rows), {
    view: 'tree',
    scope: 'current',
    center: canonicalEntity(center),
    generation: 1,
  })

/** A store where orders-api has eleven values and two squads report to it; the squads have a value each. */
function library(): GraphFactRow[] {
  const row = rowMaker()
  return [
    ...Array.from({ length: 11 }, (_, index) =>
      row('orders-api', `setting ${String(index + 1).padStart(2, '0')}`, `value ${index + 1}`),
    ),
    row('orders-api', 'setting 03', 'value 3 again'),
    row('alpha squad', 'owns', 'orders-api'),
    row('alpha squad', 'reviews', 'orders-api'),
    row('alpha squad', 'lead', 'Alice'),
    row('bravo squad', 'owns', 'orders-api'),
    row('bravo squad', 'lead', 'Bob'),
    row('bravo squad', 'size', '5'),
  ]
}

const overlaps = (a: Box, b: Box): boolean =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height

function inside(layout: PreviewLayout, box: Box): boolean {
  return box.x >= 0 && box.y >= 0 && box.x + box.width <= layout.width && box.y + box.height <= layout.height
}

describe('the graph preview picks the busiest subject', () => {
  it('centres on the subject with the most facts about or naming it, not on the one with the most facts of its own', () => {
    const row = rowMaker()
    // hub has two facts of its own but four name it; solo has three of its own and nothing names it.
    const rows = [
      row('hub', 'a', '1'),
      row('hub', 'b', '2'),
      ...['x', 'y', 'z', 'w'].map((key) => row(key, 'uses', 'hub')),
      row('solo', 'a', '1'),
      row('solo', 'b', '2'),
      row('solo', 'c', '3'),
    ]
    assert.equal(busiestSubject(nebulaOf(rows))?.label, 'hub')
    assert.equal(busiestSubject(nebulaOf(rows.filter((fact) => fact.entityKey === 'solo')))?.label, 'solo')
  })

  it('finds nothing in an empty store, so the card shows nothing', () => {
    assert.equal(busiestSubject(nebulaOf([])), undefined)
  })
})

describe('the graph preview chooses what it shows', () => {
  const tree = treeOf(library(), 'orders-api')

  it('shows at most eight neighbours, the ones with the most facts linking them first, and counts the rest', () => {
    const plan = previewPlan(tree)
    assert.ok(plan !== undefined)
    assert.equal(plan.center.label, 'orders-api')
    assert.equal(plan.shown.length, PREVIEW_NEIGHBOURS)
    const neighbours = new Set(
      tree.edges.flatMap((edge) => [edge.source, edge.target]).filter((id) => id !== plan.center.id),
    )
    assert.equal(plan.more, neighbours.size - PREVIEW_NEIGHBOURS)
    // alpha squad names orders-api in two facts: it leads; bravo squad (a subject) comes before the plain values.
    assert.deepEqual(
      plan.shown.slice(0, 2).map((entry) => [entry.node.label, entry.facts, entry.incoming, entry.outgoing]),
      [
        ['alpha squad', 2, true, false],
        ['bravo squad', 1, true, false],
      ],
    )
    assert.deepEqual(plan.shown[0]?.properties, ['owns', 'reviews'])
    assert.ok(plan.shown.slice(2).every((entry) => entry.node.kind === 'value' && entry.outgoing && !entry.incoming))
    // Two values of one property are two neighbours under the same property.
    assert.ok(plan.shown.filter((entry) => entry.properties.includes('setting 03')).length === 2)
  })

  it("counts the neighbours the tree's own budget left out among the rest", () => {
    const cut = { ...tree, omitted: { ...tree.omitted, nodes: 40 } }
    assert.equal(previewPlan(cut)?.more, (previewPlan(tree)?.more ?? 0) + 40)
  })

  it('shows everything when there are few neighbours, and a lone centre alone', () => {
    const row = rowMaker()
    const small = previewPlan(treeOf([row('cache', 'engine', 'redis'), row('cache', 'port', '6379')], 'cache'))
    assert.deepEqual([small?.shown.length, small?.more], [2, 0])
    const alone = previewPlan({ ...treeOf([row('cache', 'engine', 'redis')], 'cache'), edges: [] })
    assert.deepEqual([alone?.center.label, alone?.shown.length], ['cache', 0])
    assert.equal(previewPlan(projectGraph([], new Map(), { view: 'tree', scope: 'current', generation: 1 })), undefined)
  })
})

describe('the graph preview lays itself out', () => {
  const plan = previewPlan(treeOf(library(), 'orders-api'))
  assert.ok(plan !== undefined)

  for (const width of [420, 560, 900]) {
    it(`keeps every chip apart, off the centre and inside a ${width} px drawing`, () => {
      const layout = previewLayout(plan, width)
      assert.equal(layout.width, width)
      const boxes: Box[] = [layout.center, ...layout.chips]
      for (const box of boxes) assert.ok(inside(layout, box), `${JSON.stringify(box)} leaves the drawing`)
      for (const [index, a] of boxes.entries()) {
        for (const b of boxes.slice(index + 1))
          assert.ok(!overlaps(a, b), `${JSON.stringify(a)} overlaps ${JSON.stringify(b)}`)
      }
      assert.ok(layout.more !== null && inside(layout, layout.more.box))
      for (const box of boxes) assert.ok(!overlaps(box, layout.more.box))
      // Each line fits inside its chip, by the same estimate that cut it.
      for (const chip of layout.chips) {
        assert.ok(textWidth(chip.label.text, PREVIEW_SIZES.labelPx) <= chip.width - 2 * PREVIEW_SIZES.chipPadX)
        assert.ok(textWidth(chip.caption.text, PREVIEW_SIZES.captionPx) <= chip.width - 2 * PREVIEW_SIZES.chipPadX)
      }
    })
  }

  it('balances the columns and puts the neighbours that name the centre on the left, reading into it', () => {
    const layout = previewLayout(plan, 560)
    const left = layout.chips.filter((chip) => chip.side === 'left')
    const right = layout.chips.filter((chip) => chip.side === 'right')
    assert.deepEqual([left.length, right.length], [4, 4])
    assert.deepEqual(
      left.slice(0, 2).map((chip) => chip.neighbour.node.label),
      ['alpha squad', 'bravo squad'],
    )
    // A column's chips line up: one width each, as wide as the column's widest label needs.
    for (const side of [left, right]) assert.equal(new Set(side.map((chip) => `${chip.width}:${chip.x}`)).size, 1)
    for (const chip of left) assert.ok(chip.x + chip.width < layout.center.x)
    for (const chip of right) assert.ok(chip.x > layout.center.x + layout.center.width)
    // Each connector runs from the centre's side to the chip's near side.
    for (const chip of layout.chips) {
      const [from, to] = [chip.path.match(/^M([\d.]+),/u)?.[1], chip.path.match(/ ([\d.]+),[\d.]+$/u)?.[1]].map(Number)
      assert.equal(from, chip.side === 'left' ? layout.center.x : layout.center.x + layout.center.width)
      assert.equal(to, chip.side === 'left' ? chip.x + chip.width : chip.x)
    }
    assert.equal(layout.more?.text, `+${plan.more} more`)
    assert.deepEqual(previewLayout(plan, 560), layout)
  })

  it('cuts a long label with an ellipsis, counts CJK characters as wide, and never draws narrower than its minimum', () => {
    const cut = fitText('PostgreSQL 16 on the managed instance in eu-west-1', 120, 13)
    assert.match(cut, /^PostgreSQL.*…$/u)
    assert.ok(textWidth(cut, 13) <= 120)
    assert.equal(fitText('redis', 120, 13), 'redis')
    assert.ok(textWidth('王小明', 13) > textWidth('abc', 13) * 1.5)
    assert.equal(previewLayout(plan, 200).width, PREVIEW_SIZES.minWidth)
  })

  it('draws a centre without neighbours alone, with no "+N more"', () => {
    const row = rowMaker()
    const alone = previewPlan({ ...treeOf([row('cache', 'engine', 'redis')], 'cache'), edges: [] })
    assert.ok(alone !== undefined)
    const layout = previewLayout(alone, 560)
    assert.deepEqual([layout.chips.length, layout.more], [0, null])
    assert.ok(inside(layout, layout.center))
    assert.equal(layout.center.caption.text, `${alone.centerFacts} ${alone.centerFacts === 1 ? 'fact' : 'facts'}`)
  })
})
