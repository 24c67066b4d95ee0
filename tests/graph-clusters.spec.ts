/**
 * Proves the nebula's cluster rule over plain rows (issue 32, item 8): a cluster is held together by real links (one
 * subject's fact names another subject), never by a shared value such as "prod" or a city; subjects with no link to
 * any other stand in one neutral group labelled as such, never in a cluster named after a person; and a cluster is
 * labelled by the subject its members link to.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { projectGraph, type GraphFactRow } from '../src/graph.ts'
import type { GraphPayload } from '../src/graph-types.ts'
import { canonicalEntity } from '../src/text/normalize.ts'

const NOW = '2026-03-01T09:00:00.000Z'

/** One fact per call, ids in call order; the entity key is the subject's canonical key. */
function library(): { rows: GraphFactRow[]; entities: Map<string, string> } {
  const rows: GraphFactRow[] = []
  const entities = new Map<string, string>()
  const fact = (subject: string, property: string, value: string): void => {
    const entityKey = canonicalEntity(subject)
    entities.set(entityKey, subject)
    rows.push({
      id: rows.length + 1,
      entityKey,
      property,
      value,
      status: 'active',
      evidence: 'observed',
      observedAt: NOW,
      contested: false,
      credential: false,
    })
  }
  // People with real links: Carol Ng and Dave Li report to 王芳, who has many facts of her own.
  const own: [string, string][] = [
    ['phone', '+86 138 0000 0000'],
    ['location', 'Shanghai'],
    ['team', 'platform'],
    ['role', 'manager'],
    ['language', 'Mandarin'],
    ['env', 'prod'],
  ]
  for (const [property, value] of own) fact('王芳', property, value)
  fact('Carol Ng', 'reports to', '王芳')
  fact('Carol Ng', 'location', 'Shanghai')
  fact('Dave Li', 'reports to', '王芳')
  fact('Dave Li', 'team', 'platform')
  // Unrelated subjects, some sharing a value with the people or with each other ("prod", "Shanghai", "platform").
  fact('grafana', 'env', 'prod')
  fact('grafana', 'port', '3000')
  fact('terraform', 'env', 'prod')
  fact('terraform', 'version', '1.7')
  fact('consul', 'datacenter', 'Shanghai')
  fact('minio', 'team', 'platform')
  fact('minio', 'bucket', 'backups')
  fact('VPN', 'gateway', 'vpn.example.com')
  fact('laptop', 'os', 'macOS')
  // Fifty more, each with values of its own: more components than the palette has colours.
  for (let i = 0; i < 50; i += 1) {
    fact(`tool-${i}`, 'version', `${i}.0`)
    fact(`tool-${i}`, 'home', `https://tool-${i}.example.com`)
  }
  return { rows, entities }
}

const UNRELATED = [
  'grafana',
  'terraform',
  'consul',
  'minio',
  'VPN',
  'laptop',
  ...Array.from({ length: 50 }, (_, i) => `tool-${i}`),
]
const PEOPLE = ['王芳', 'Carol Ng', 'Dave Li']

/** The entities (by display name) of each cluster. */
function subjectsByCluster(payload: GraphPayload): Map<number, string[]> {
  const out = new Map<number, string[]>()
  for (const node of payload.nodes)
    if (node.kind === 'entity') out.set(node.cluster, [...(out.get(node.cluster) ?? []), node.label])
  return out
}

describe('projectGraph: clusters reflect real links', () => {
  const { rows, entities } = library()
  const payload = projectGraph(rows, entities, { view: 'nebula', scope: 'current', generation: 1 })
  const clusterOf = (label: string): number => payload.nodes.find((node) => node.label === label)?.cluster ?? -1

  it('puts the linked people in one cluster labelled by the subject they link to, and nothing unrelated with them', () => {
    const people = clusterOf('王芳')
    assert.deepEqual(PEOPLE.map(clusterOf), [people, people, people])
    assert.deepEqual(subjectsByCluster(payload).get(people)?.sort(), [...PEOPLE].sort())
    const described = payload.clusters.find((cluster) => cluster.index === people)
    assert.deepEqual(described, { index: people, kind: 'linked', label: '王芳', subjects: 3 })
  })

  it('stands unrelated subjects in one neutral group labelled as such, whatever values they share', () => {
    const group = payload.clusters.filter((cluster) => cluster.kind === 'unlinked')
    assert.equal(group.length, 1)
    const unlinked = group[0]
    assert.ok(unlinked !== undefined)
    assert.equal(unlinked.label, 'Unlinked')
    assert.equal(unlinked.subjects, UNRELATED.length)
    assert.deepEqual(
      UNRELATED.filter((subject) => clusterOf(subject) !== unlinked.index),
      [],
    )
    assert.deepEqual(
      PEOPLE.filter((subject) => clusterOf(subject) === unlinked.index),
      [],
    )
  })

  it('never names a cluster after a subject that unrelated subjects merely share a value with', () => {
    for (const cluster of payload.clusters) {
      const members = subjectsByCluster(payload).get(cluster.index) ?? []
      if (cluster.kind === 'unlinked')
        assert.ok(!members.includes(cluster.label), `${cluster.label} names the unlinked group`)
      else
        assert.deepEqual(
          members.filter((subject) => UNRELATED.includes(subject)),
          [],
          `cluster ${cluster.label}: ${members.join(', ')}`,
        )
    }
    // Every drawn node has a described cluster, and each cluster is described once.
    assert.deepEqual(
      new Set(payload.nodes.map((node) => node.cluster)),
      new Set(payload.clusters.map((cluster) => cluster.index)),
    )
    assert.equal(new Set(payload.clusters.map((cluster) => cluster.index)).size, payload.clusters.length)
  })

  it('keeps every value next to a subject of its own cluster', () => {
    for (const edge of payload.edges) {
      const source = payload.nodes.find((node) => node.id === edge.source)
      const target = payload.nodes.find((node) => node.id === edge.target)
      if (target?.kind !== 'value') continue
      const own = payload.edges
        .filter((other) => other.target === target.id)
        .map((other) => payload.nodes.find((node) => node.id === other.source)?.cluster)
      assert.ok(
        own.includes(target.cluster),
        `${target.label} sits in cluster ${target.cluster}, its subjects in ${own.join(', ')} (${source?.label})`,
      )
    }
  })
})
