/**
 * Proves the one-hop tree's geometry (issue 32, item 12, and item 3 for the tree): no edge crosses a label (a node's
 * or another edge's), labels never overlap and stay on the drawing, two values of one slot read apart by their
 * qualifiers, and a sensitive value is withheld from its label.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { segmentCrossesBox, textWidth, treeLayout, type LabelBox } from '../client/tree-layout.ts'
import type { GraphEdge, GraphNode, GraphPayload } from '../src/graph-types.ts'

const node = (
  id: string,
  label: string,
  kind: 'entity' | 'value' = 'value',
  extra: Partial<GraphNode> = {},
): GraphNode => ({
  id,
  kind,
  label,
  entityKey: kind === 'entity' ? label : null,
  factCount: 1,
  degree: 1,
  cluster: 0,
  hub: false,
  ...extra,
})
const edge = (source: string, target: string, label: string, extra: Partial<GraphEdge> = {}): GraphEdge => ({
  id: `${source}>${label}>${target}`,
  source,
  target,
  label,
  factIds: [1],
  contested: false,
  scheduled: false,
  ...extra,
})

/** A centre with `n` neighbours, half pointing at it, labels of mixed length and script. */
function tree(n: number): GraphPayload {
  const centre = node('e:billing-api', 'billing-api', 'entity', { degree: n })
  const names = [
    'checkout-web',
    '王芳',
    'payments team',
    'postgres 16',
    'a rather long neighbour name indeed',
    'eu-west-1',
    'Carol Ng',
    '7801',
  ]
  const properties = ['depends on', 'owner', 'database', 'region', 'on-call', 'port', 'alert channel', 'runs on']
  const nodes = [centre]
  const edges: GraphEdge[] = []
  for (let i = 0; i < n; i += 1) {
    const other = node(
      `n:${String(i).padStart(3, '0')}`,
      `${names[i % names.length] ?? ''}${i >= names.length ? ` ${i}` : ''}`,
      i % 3 === 0 ? 'entity' : 'value',
    )
    nodes.push(other)
    const property = properties[i % properties.length] ?? 'p'
    edges.push(i % 2 === 0 ? edge(centre.id, other.id, property) : edge(other.id, centre.id, property))
  }
  return {
    view: 'tree',
    scope: 'current',
    center: centre,
    nodes,
    edges,
    clusters: [],
    omitted: { nodes: 0, edges: 0, entities: 0, facts: 0 },
    limits: { nodes: 100, edges: 200, entities: 100 },
    generation: 1,
  }
}

/** Every shown label's box, with the edge it belongs to (an edge's own label sits on it). */
function labelBoxes(layout: ReturnType<typeof treeLayout>): { text: string; box: LabelBox; own?: GraphEdge }[] {
  return [
    ...layout.nodes
      .filter((placed) => placed.labelShown)
      .map((placed) => ({ text: placed.labelText, box: placed.labelBox })),
    ...layout.edges
      .filter((placed) => placed.labelShown)
      .map((placed) => ({ text: placed.labelText, box: placed.labelBox, own: placed.edge })),
  ]
}

describe('the one-hop tree: no edge crosses a label', () => {
  for (const n of [3, 8, 14, 30, 99]) {
    it(`with ${n} neighbours on the page's 800×560 drawing`, () => {
      const layout = treeLayout(tree(n), 800, 560)
      const labels = labelBoxes(layout)
      for (const { text, box, own } of labels) {
        for (const placed of layout.edges) {
          if (placed.edge === own) continue
          assert.ok(
            !segmentCrossesBox(placed.x1, placed.y1, placed.x2, placed.y2, box),
            `edge ${placed.edge.id} crosses the label "${text}" ${JSON.stringify(box)}`,
          )
        }
        assert.ok(
          box.left >= 0 && box.top >= 0 && box.right <= 800 && box.bottom <= 560,
          `"${text}" leaves the drawing: ${JSON.stringify(box)}`,
        )
      }
      for (const [i, a] of labels.entries()) {
        for (const b of labels.slice(i + 1)) {
          assert.ok(
            a.box.right <= b.box.left ||
              b.box.right <= a.box.left ||
              a.box.bottom <= b.box.top ||
              b.box.bottom <= a.box.top,
            `"${a.text}" and "${b.text}" overlap`,
          )
        }
      }
      // The centre is always named, and a roomy tree names every node.
      assert.ok(layout.nodes[0]?.labelShown)
      if (n <= 14)
        assert.deepEqual(
          layout.nodes.filter((placed) => !placed.labelShown).map((placed) => placed.labelText),
          [],
        )
      if (n <= 8)
        assert.deepEqual(
          layout.edges.filter((placed) => !placed.labelShown).map((placed) => placed.labelText),
          [],
        )
    })
  }

  it('measures CJK text wider than Latin text of the same length', () => {
    assert.ok(textWidth('王芳王芳', 12) > textWidth('abcd', 12))
  })
})

describe('the one-hop tree names what tells values apart', () => {
  it('shows the qualifiers of two values of one slot, and withholds a sensitive value', () => {
    const centre = node('e:billing-api', 'billing-api', 'entity')
    const payload: GraphPayload = {
      ...tree(0),
      nodes: [
        centre,
        node('v:1', '7802'),
        node('v:2', '17801'),
        node('v:3', '+86 138 0000 0000', 'value', { sensitivity: 'phone' }),
      ],
      edges: [
        edge(centre.id, 'v:1', 'port', { qualifiers: { env: 'staging' } }),
        edge(centre.id, 'v:2', 'port', { qualifiers: { env: 'dev' } }),
        edge(centre.id, 'v:3', 'on-call phone'),
      ],
    }
    const layout = treeLayout(payload, 800, 560)
    assert.deepEqual(layout.edges.map((placed) => placed.labelText).sort(), [
      'on-call phone',
      'port (env=dev)',
      'port (env=staging)',
    ])
    const texts = layout.nodes.map((placed) => placed.labelText)
    assert.ok(texts.includes('withheld: phone'), texts.join(', '))
    assert.ok(!texts.some((text) => text.includes('138')), texts.join(', '))
  })
})
