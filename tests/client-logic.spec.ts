/**
 * The browser half's DOM-free logic, run in Node: reading the settings schema the host serves, the per-turn fold
 * the turn-tail card selects on, the one-hop tree geometry, dates in the store's zone, and what a review card will do
 * in plain words.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  countOf,
  describeSource,
  formatInstant,
  formatSince,
  qualifierNote,
  seenNote,
  sensitiveMark,
  slotWords,
} from '../client/format.ts'
import {
  aboutSubject,
  acceptWouldChange,
  batchWords,
  cardWords,
  foldRunLines,
  proposedFrom,
  rowWords,
  WAITING_BECAUSE,
} from '../client/proposal-words.ts'
import { graphCaption, nodeFactIds, selectionTitle } from '../client/graph-selection.ts'
import { humanLabel, readSettingsSchema } from '../client/settings-schema.ts'
import { treeLayout } from '../client/tree-layout.ts'
import { factTurnDefinition, TURN_DATA_KEY } from '../client/turn-data.ts'
import type { SessionEventLike } from '../client/host.ts'
import { embeddingConfigured, rebuiltWords, vectorCount } from '../client/vector-words.ts'
import { chosenScope, moveTargets, NEW_LABEL, scopeFilterOptions, scopeWords } from '../client/scope-words.ts'
import { Config, configWith, resolveConfig, type Config as ConfigShape } from '../src/config.ts'
import { embeddingSettings } from '../src/semantic/settings.ts'
import type { GraphEdge, GraphNode, GraphPayload } from '../src/graph-types.ts'
import type { CardFactWire, FactView, ProposalCardWire, ScopeWire } from '../src/wire-types.ts'

describe('the settings card reads the schema the host serves', () => {
  // The host's describe mirror carries `schema.toJSON()` of the registered Config.
  const sections = readSettingsSchema(JSON.parse(JSON.stringify(Config.toJSON())))

  it('finds four sections: the master switch alone, the everyday keys, the sync keys, and Advanced folded', () => {
    assert.equal(sections.length, 4)
    assert.deepEqual(
      sections[0]?.fields.map((field) => field.key),
      ['enabled'],
    )
    assert.equal(sections[0]?.folded, false)
    assert.equal(sections[1]?.folded, false)
    assert.equal(sections[2]?.title, 'Sync between machines')
    assert.deepEqual(
      sections[2]?.fields.map((field) => field.key),
      ['syncTarget', 'syncPassphraseRef', 'syncSensitive', 'syncIntervalMinutes', 'syncDeviceName'],
    )
    assert.equal(sections[2]?.folded, false)
    assert.equal(sections[3]?.title, 'Advanced')
    assert.equal(sections[3]?.folded, true)
  })

  it('types every one of the configuration keys, with defaults and bounds', () => {
    const fields = new Map(sections.flatMap((section) => section.fields).map((field) => [field.key, field]))
    const keys = Object.keys((Config as unknown as (value: object) => Record<string, unknown>)({}))
    assert.deepEqual([...fields.keys()].sort(), keys.sort())
    assert.deepEqual(fields.get('enabled'), {
      key: 'enabled',
      kind: 'boolean',
      description: fields.get('enabled')?.description,
      defaultValue: true,
      min: undefined,
      max: undefined,
      step: undefined,
      options: [],
      role: undefined,
    })
    const limit = fields.get('searchLimit')
    assert.deepEqual([limit?.kind, limit?.defaultValue, limit?.min, limit?.max], ['number', 5, 1, 10])
    const source = fields.get('llmSource')
    assert.deepEqual([source?.kind, source?.options], ['enum', ['host', 'custom']])
    assert.equal(fields.get('dataDir')?.kind, 'string')
  })

  it('gives nothing back for a shape it does not understand instead of throwing', () => {
    assert.deepEqual(readSettingsSchema(undefined), [])
    assert.deepEqual(readSettingsSchema({ uid: 1 }), [])
    assert.deepEqual(readSettingsSchema({ uid: 9, refs: { 9: { type: 'string' } } }), [])
  })
})

describe('the turn fold counts memory_write calls that stored something', () => {
  /** Run events through the definition the way the conversation engine does, one context per turn. */
  function fold(events: readonly SessionEventLike[]): Map<number, unknown> {
    const states = new Map<string, unknown>()
    for (const event of events) {
      const matched = factTurnDefinition.match(event)
      if (matched === null) continue
      const match = { event }
      if (matched.role === 'start') states.set(matched.id, factTurnDefinition.start(undefined, match))
      else if (states.has(matched.id))
        states.set(matched.id, factTurnDefinition.update({ state: states.get(matched.id) as never }, match))
    }
    const published = new Map<number, unknown>()
    for (const state of states.values()) {
      const data = factTurnDefinition.buildLocationData({ state: state as never }, 'turn')
      assert.equal(factTurnDefinition.buildLocationData({ state: state as never }, 'step'), null)
      if (data !== null) {
        assert.equal(data.key, TURN_DATA_KEY)
        published.set(data.turn, data.value)
      }
    }
    return published
  }
  let seq = 0
  const start = (turn: number): SessionEventLike => ({ type: 'turn/start', seq: ++seq, data: { turn } })
  const call = (turn: number, name: string, callId: string): SessionEventLike => ({
    type: 'tool/call',
    seq: ++seq,
    data: { turn, name, callId },
  })
  const result = (turn: number, callId: string, text: string, surfaceOp = 'append'): SessionEventLike => ({
    type: 'tool/result',
    seq: ++seq,
    surfaceOp,
    data: { turn, message: { source: { callId }, content: [{ type: 'text', text }] } },
  })

  it('counts saved, conflict and pending outcomes, not refusals, other tools or replacements', () => {
    const published = fold([
      start(1),
      call(1, 'memory_write', 'a'),
      result(1, 'a', 'outcome: saved\nSaved billing-api · port = 7801.'),
      call(1, 'memory_write', 'b'),
      result(1, 'b', 'outcome: refused\nThat looks like a credential.'),
      call(1, 'bash', 'c'),
      result(1, 'c', 'outcome: saved'),
      call(1, 'memory_write', 'd'),
      result(1, 'd', 'outcome: conflict\n…'),
      result(1, 'd', 'outcome: conflict\n…', 'replace'),
      start(2),
      call(2, 'memory_write', 'e'),
      result(2, 'e', 'outcome: pending\n…'),
      start(3),
      call(3, 'memory_search', 'f'),
      result(3, 'f', 'outcome: saved'),
    ])
    assert.deepEqual(Object.fromEntries(published), {
      1: { turn: 1, wrote: 2 },
      2: { turn: 2, wrote: 1 },
      3: { turn: 3, wrote: 0 },
    })
  })

  it('reads results whose first block nests its text', () => {
    const nested: SessionEventLike = {
      type: 'tool/result',
      seq: ++seq,
      data: {
        turn: 4,
        message: { source: { callId: 'g' }, content: [{ content: [{ text: 'outcome: ' }, { text: 'saved' }] }] },
      },
    }
    assert.deepEqual(Object.fromEntries(fold([start(4), call(4, 'memory_write', 'g'), nested])), {
      4: { turn: 4, wrote: 1 },
    })
  })

  it('publishes under its own kind, as the host requires', () => {
    assert.equal(factTurnDefinition.kind, TURN_DATA_KEY)
  })

  it('ignores events without a turn', () => {
    assert.equal(factTurnDefinition.match({ type: 'tool/call', seq: 1, data: { name: 'memory_write' } }), null)
  })
})

describe('the one-hop tree geometry', () => {
  const node = (id: string, degree: number): GraphNode =>
    ({ id, label: id, kind: 'entity', degree }) as unknown as GraphNode
  const edge = (source: string, target: string): GraphEdge =>
    ({ id: `${source}>${target}`, source, target, label: '' }) as unknown as GraphEdge
  const payload = (center: GraphNode | null, nodes: GraphNode[], edges: GraphEdge[]): GraphPayload =>
    ({ view: 'tree', scope: 'current', center, nodes, edges }) as unknown as GraphPayload

  it('puts the centre in the middle and the neighbours on a ring around it', () => {
    const hub = node('hub', 3)
    const layout = treeLayout(
      payload(
        hub,
        [node('c', 1), hub, node('a', 1), node('b', 1)],
        [edge('hub', 'a'), edge('hub', 'b'), edge('hub', 'zzz')],
      ),
      400,
      300,
    )
    const at = new Map(layout.nodes.map((placed) => [placed.node.id, placed]))
    assert.deepEqual([at.get('hub')?.x, at.get('hub')?.y], [200, 150])
    const radius = 300 / 2 - 60
    for (const id of ['a', 'b', 'c']) {
      const placed = at.get(id)
      assert.ok(placed !== undefined)
      assert.ok(Math.abs(Math.hypot(placed.x - 200, placed.y - 150) - radius) < 1e-9, id)
    }
    // The first neighbour in id order sits at the top; an edge to a node not drawn is left out.
    assert.ok(Math.abs((at.get('a')?.x ?? 0) - 200) < 1e-9)
    assert.deepEqual(
      layout.edges.map((placed) => placed.edge.target),
      ['a', 'b'],
    )
    assert.deepEqual(layout.edges[0] && [layout.edges[0].x1, layout.edges[0].y1], [200, 150])
  })

  it('keeps edge labels apart: each moves along its edge until it clears the labels before it', () => {
    const hub = node('hub', 14)
    const others = Array.from({ length: 14 }, (_, i) => node(`n${String(i).padStart(2, '0')}`, 1))
    const edges = others.map((other, i) => ({
      ...edge(i % 2 === 0 ? 'hub' : other.id, i % 2 === 0 ? other.id : 'hub'),
      label: 'depends on',
    }))
    const layout = treeLayout(payload(hub, [hub, ...others], edges), 800, 560)
    assert.equal(layout.edges.filter((placed) => placed.labelShown).length, 14)
    const cramped = treeLayout(payload(hub, [hub, ...others], edges), 360, 240)
    assert.ok(
      cramped.edges.some((placed) => !placed.labelShown),
      'a cramped tree leaves some labels to the tooltip',
    )
    const boxes = layout.edges
      .filter((placed) => placed.labelShown)
      .map((placed) => ({ x: placed.labelX, y: placed.labelY, w: placed.edge.label.length * 6.6 }))
    for (const [i, a] of boxes.entries()) {
      for (const b of boxes.slice(i + 1))
        assert.ok(
          Math.abs(a.x - b.x) >= (a.w + b.w) / 2 || Math.abs(a.y - b.y) >= 14,
          `labels ${JSON.stringify(a)} and ${JSON.stringify(b)} overlap`,
        )
    }
    for (const placed of cramped.edges.filter((e) => e.labelShown)) {
      for (const other of cramped.edges.filter((e) => e.labelShown && e !== placed)) {
        assert.ok(Math.abs(placed.labelX - other.labelX) >= 66 || Math.abs(placed.labelY - other.labelY) >= 14)
      }
    }
  })

  it('without a centre picks the best-connected node, and draws nothing for an empty graph', () => {
    const layout = treeLayout(payload(null, [node('a', 1), node('b', 4)], []), 400, 400)
    assert.equal(layout.nodes.find((placed) => placed.x === 200 && placed.y === 200)?.node.id, 'b')
    assert.deepEqual(treeLayout(payload(null, [], []), 400, 400), { nodes: [], edges: [] })
  })
})

describe("dates in the store's zone", () => {
  // 2026-11-24T16:30Z is Tuesday 08:30 in Los Angeles and already Wednesday 01:30 in Tokyo.
  const SINCE = '2026-11-24T16:30:00.000Z'
  const at = (iso: string): number => new Date(iso).getTime()

  it("formats an instant in the zone it is given, not the machine's", () => {
    assert.equal(formatInstant(SINCE, 'Asia/Tokyo'), '2026-11-25 01:30')
    assert.equal(formatInstant(SINCE, 'America/Los_Angeles'), '2026-11-24 08:30')
    assert.equal(formatInstant(null, 'Asia/Tokyo'), '—')
  })

  it('names the last look as a time earlier today, yesterday, a weekday within the week, or a date, counting days in the zone', () => {
    assert.equal(formatSince(SINCE, 'Asia/Tokyo', at('2026-11-25T03:00:00Z')), '01:30')
    assert.equal(formatSince(SINCE, 'America/Los_Angeles', at('2026-11-25T03:00:00Z')), '08:30')
    assert.equal(formatSince(SINCE, 'Asia/Tokyo', at('2026-11-25T16:00:00Z')), 'yesterday')
    assert.equal(formatSince(SINCE, 'America/Los_Angeles', at('2026-11-25T16:00:00Z')), 'yesterday')
    assert.equal(formatSince(SINCE, 'America/Los_Angeles', at('2026-11-28T12:00:00Z')), 'Tuesday')
    assert.equal(formatSince(SINCE, 'Asia/Tokyo', at('2026-11-28T12:00:00Z')), 'Wednesday')
    assert.equal(formatSince(SINCE, 'Asia/Tokyo', at('2026-12-05T12:00:00Z')), '2026-11-25')
  })
})

describe("a folded line's caption", () => {
  it('says how many times the line was seen, and nothing for a row that never folded', () => {
    assert.equal(seenNote(0), '')
    assert.equal(seenNote(1), ' · seen 2 times')
    assert.equal(seenNote(6), ' · seen 7 times')
  })
})

describe('a review card says in plain words what accepting it will do', () => {
  const base = {
    status: 'pending',
    reason: 'near_duplicate',
    revision: 1,
    batch: null,
    sessionId: null,
    turn: null,
    createdAt: '2026-03-01T09:00:00.000Z',
    updatedAt: '2026-03-01T09:00:00.000Z',
    decidedAt: null,
    unreadable: null,
  }
  const fact = (id: number, subject: string, property: string, value: string): CardFactWire => ({
    id,
    subject,
    property,
    value,
    status: 'active',
  })
  const cases: { card: ProposalCardWire; words: string; row?: { does: string; facts: string } }[] = [
    {
      card: {
        ...base,
        id: 1,
        kind: 'merge',
        rows: [
          {
            index: 0,
            stale: false,
            keeper: fact(12, 'billing-api', 'port', '7801'),
            loser: fact(31, 'billing-api', 'listening port', '7801'),
            sources: 2,
          },
        ],
      },
      words: 'keep #12, retire #31, move 2 sources',
      row: {
        does: 'keep #12, retire #31, move 2 sources',
        facts: '#12 billing-api · port: 7801 ← #31 billing-api · listening port: 7801',
      },
    },
    {
      card: {
        ...base,
        id: 2,
        kind: 'merge',
        rows: [
          { index: 0, stale: false, keeper: fact(1, 'a', 'p', 'v'), loser: fact(2, 'a', 'q', 'v'), sources: 1 },
          { index: 1, stale: false, keeper: null, loser: null, sources: 0 },
        ],
      },
      words: 'merge 2 pairs of near-duplicates',
      row: { does: 'keep #1, retire #2, move 1 source', facts: '#1 a · p: v ← #2 a · q: v' },
    },
    {
      card: {
        ...base,
        id: 3,
        kind: 'retire',
        rows: [0, 1, 2].map((index) => ({
          index,
          stale: false,
          fact: fact(40 + index, 'deploy job', 'error', 'failed with an error message'),
        })),
      },
      words: 'retire 3 facts that only restate their property',
      row: { does: 'retire #40', facts: '#40 deploy job · error: failed with an error message' },
    },
    {
      card: {
        ...base,
        id: 4,
        kind: 'retire',
        rows: [{ index: 0, stale: false, fact: fact(5, '部署任务', '错误', '出错了') }],
      },
      words: 'retire 1 fact that only restates its property',
    },
    {
      card: {
        ...base,
        id: 9,
        kind: 'retire',
        reason: 'privacy_rescan',
        rows: [0, 1].map((index) => ({
          index,
          stale: false,
          fact: fact(50 + index, 'billing api', 'auth mode', '••••••••'),
        })),
      },
      words: 'retire 2 facts stored before the privacy rules (already masked or withheld from the model)',
    },
    {
      card: {
        ...base,
        id: 10,
        kind: 'retire',
        reason: 'privacy_rescan',
        rows: [{ index: 0, stale: false, fact: fact(5, 'billing api', 'owner', 'platform team') }],
      },
      words: 'retire 1 fact stored before the privacy rules (already masked or withheld from the model)',
    },
    {
      card: {
        ...base,
        id: 5,
        kind: 'fold',
        rows: [
          {
            index: 0,
            stale: false,
            survivor: fact(40, 'nightly report', '2026-02-08 result', 'ok'),
            runs: 7,
            runFacts: [fact(33, 'nightly report', '2026-02-01 result', 'ok'), null],
          },
        ],
      },
      words: 'fold 7 runs into #40',
    },
    {
      card: {
        ...base,
        id: 6,
        kind: 'alias',
        rows: [
          {
            index: 0,
            stale: false,
            fragment: { entityKey: 'billing', display: 'billing' },
            canonical: { entityKey: 'billing api', display: 'billing-api' },
            facts: 4,
          },
        ],
      },
      words: "treat 'billing' as 'billing-api' (4 facts move)",
      row: { does: "treat 'billing' as 'billing-api' (4 facts move)", facts: 'billing → billing-api' },
    },
    {
      card: {
        ...base,
        id: 7,
        kind: 'alias',
        rows: [
          {
            index: 0,
            stale: false,
            fragment: { entityKey: '支付', display: '支付' },
            canonical: { entityKey: '支付网关', display: '支付网关' },
            facts: 1,
          },
        ],
      },
      words: "treat '支付' as '支付网关' (1 fact moves)",
    },
  ]
  for (const { card, words, row } of cases) {
    it(`${card.kind}: "${words}"`, () => {
      assert.equal(cardWords(card), words)
      if (row !== undefined) assert.deepEqual(rowWords(card, 0), row)
    })
  }

  it('lists the runs a fold row folds, a gone run named so, and how many more it folds than it lists', () => {
    const card = cases.find((entry) => entry.card.kind === 'fold')?.card
    assert.ok(card?.kind === 'fold' && card.rows[0] !== undefined)
    assert.deepEqual(foldRunLines(card.rows[0]), {
      lines: ['#33 nightly report · 2026-02-01 result: ok', 'a fact that is gone'],
      more: 5,
    })
  })

  it('numbers a card that continues a longer list, and says nothing for one that does not', () => {
    const card: ProposalCardWire = { ...base, id: 8, kind: 'retire', batch: { index: 2, count: 3 }, rows: [] }
    assert.equal(batchWords(card), 'batch 2/3')
    assert.equal(batchWords({ ...card, batch: null }), null)
  })
})

describe('the graph says what it shows', () => {
  const edge = (id: string, source: string, target: string, factIds: number[]): GraphEdge => ({
    id,
    source,
    target,
    label: id,
    factIds,
    contested: false,
    scheduled: false,
  })
  const payload = (
    edges: readonly GraphEdge[],
    omitted = { nodes: 0, edges: 0, entities: 0, facts: 0 },
  ): GraphPayload => ({
    view: 'nebula',
    scope: 'current',
    center: null,
    edges,
    clusters: [],
    omitted,
    generation: 1,
    limits: { nodes: 600, edges: 1200, entities: 300 },
    nodes: [...new Set(edges.flatMap((e) => [e.source, e.target]))].map((id) => ({
      id,
      kind: 'entity',
      label: id,
      entityKey: id,
      factCount: 0,
      degree: 0,
      cluster: 0,
      hub: false,
    })),
  })

  it('counts with real plurals and thousands separators', () => {
    assert.equal(countOf(1, 'fact'), '1 fact')
    assert.equal(countOf(5, 'fact'), '5 facts')
    assert.equal(countOf(0, 'edge'), '0 edges')
    assert.equal(countOf(15241, 'subject'), '15,241 subjects')
    assert.equal(countOf(2, 'entry', 'entries'), '2 entries')
  })

  it('lists for a star the facts behind every drawn edge touching it, each once, in both directions', () => {
    const graph = payload([
      edge('a', 'e:bob', 'v:1', [3, 1]),
      edge('b', 'e:team', 'e:bob', [7]),
      edge('c', 'e:team', 'v:2', [9]),
    ])
    assert.deepEqual(nodeFactIds(graph, 'e:bob'), [1, 3, 7])
    assert.deepEqual(nodeFactIds(graph, 'e:nobody'), [])
  })

  it('titles a selection with the count it lists, and says when it lists fewer than there are', () => {
    assert.equal(selectionTitle('Bob Martinez', 1, 1), 'Bob Martinez · 1 fact')
    assert.equal(selectionTitle('Bob Martinez', 5, 5), 'Bob Martinez · 5 facts')
    assert.equal(selectionTitle('prod', 100, 230), 'prod · 100 of 230 facts')
  })

  it('captions the toolbar with the nodes and edges drawn, and what the budget left out', () => {
    const graph = payload([edge('a', 'e:x', 'v:1', [1])])
    assert.equal(graphCaption(graph), '2 nodes · 1 edge')
    assert.equal(
      graphCaption(payload(graph.edges, { nodes: 9, edges: 9, entities: 15241, facts: 83276 })),
      '2 nodes · 1 edge · 15,241 more subjects and 83,276 more facts not drawn',
    )
    assert.equal(
      graphCaption(payload(graph.edges, { nodes: 0, edges: 0, entities: 0, facts: 1 })),
      '2 nodes · 1 edge · 1 more fact not drawn',
    )
  })
})

describe('conflicts and proposals say what the user needs to decide', () => {
  it('says where a value came from: evidence, origin, conversation and turn, and when', () => {
    assert.equal(
      describeSource(
        {
          origin: 'tool',
          evidence: 'explicit_user',
          sessionId: 'session-7f3a91c2d4e5f6',
          turn: 3,
          observedAt: '2026-03-01T09:00:00.000Z',
        },
        'UTC',
      ),
      'you said it · memory_write in conversation session-7f3a…, turn 3 · 2026-03-01 09:00',
    )
    assert.equal(
      describeSource(
        { origin: 'import', evidence: 'observed', sessionId: null, turn: null, observedAt: '2026-03-01T09:00:00.000Z' },
        'Asia/Shanghai',
      ),
      'observed · import · 2026-03-01 17:00',
    )
    assert.equal(
      describeSource(
        {
          origin: 'page',
          evidence: 'explicit_user',
          sessionId: null,
          turn: null,
          observedAt: '2026-03-01T09:00:00.000Z',
        },
        'UTC',
      ),
      'you, from the page · 2026-03-01 09:00',
    )
  })

  it('says in plain words why a proposal waits, and what accepting it would change', () => {
    assert.doesNotMatch(Object.values(WAITING_BECAUSE).join(' '), /floor|low_confidence|inferred by/u)
    const fact = (id: number, property: string, value: string, multi = false) => ({
      id,
      property,
      value,
      multi,
      status: 'active',
    })
    assert.equal(
      acceptWouldChange({ property: 'port', value: '7900' }, [fact(12, 'Port', '7801')]),
      'Accepting would replace 7801 (#12).',
    )
    assert.equal(
      acceptWouldChange({ property: 'port', value: '7801' }, [fact(12, 'port', '7801')]),
      'Accepting confirms the value already current.',
    )
    assert.equal(
      acceptWouldChange({ property: 'language', value: 'Go' }, [fact(3, 'language', 'Rust', true)]),
      'Accepting adds a value beside Rust.',
    )
    assert.equal(
      acceptWouldChange({ property: 'language', value: 'Go' }, [fact(4, 'port', '7000')]),
      'Accepting adds a new fact.',
    )
    assert.equal(
      acceptWouldChange({ property: 'port', value: '1' }, [{ ...fact(5, 'port', '2'), status: 'superseded' }]),
      'Accepting adds a new fact.',
    )
    assert.equal(
      proposedFrom({ sessionId: 's-1', turn: 2, createdAt: '2026-03-01T09:00:00.000Z' }, 'UTC'),
      'proposed in conversation s-1, turn 2 · 2026-03-01 09:00',
    )
    assert.equal(aboutSubject({ subject: 'Billing API', entityKey: 'billing api' }, 'billing-api'), true)
    assert.equal(aboutSubject({ subject: 'billing-api', entityKey: 'billing api' }, 'billing'), false)
  })
})

describe("the settings card reads like the host's cards", () => {
  it('labels keys in words, acronyms in capitals', () => {
    assert.equal(humanLabel('dataDir'), 'Data folder')
    assert.equal(humanLabel('llmApiKeyEnv'), 'LLM API key variable')
    assert.equal(humanLabel('auditIntervalMs'), 'Audit interval (ms)')
    assert.equal(humanLabel('enabled'), 'Enabled')
    assert.equal(humanLabel('injectDirectory'), 'Inject directory')
  })

  it('puts every key where the card shows it: nothing says "not active in this version" any more', () => {
    const sections = readSettingsSchema(JSON.parse(JSON.stringify(Config.toJSON())))
    const everyday = sections[1]?.fields.map((field) => field.key) ?? []
    const advanced = sections.find((section) => section.title === 'Advanced')?.fields.map((field) => field.key) ?? []
    for (const key of [
      'embeddingSource',
      'embeddingBaseUrl',
      'embeddingModel',
      'embeddingApiKeyEnv',
      'rerankSource',
      'rerankBaseUrl',
      'rerankModel',
      'rerankApiKeyEnv',
    ])
      assert.ok(everyday.includes(key), key)
    for (const key of ['embeddingDim', 'rerankScoreMode', 'vectorIndexIntervalMs'])
      assert.ok(advanced.includes(key), key)
    for (const field of sections.flatMap((section) => section.fields)) {
      assert.notEqual(field.description, '', `${field.key} has a description`)
      assert.doesNotMatch(field.description, /not active|later version/iu, field.key)
    }
  })
})

describe("the settings card's embedding words", () => {
  const home = { dshHome: '/tmp/dsh', userHome: '/tmp' }
  const cases: readonly Partial<ConfigShape>[] = [
    {},
    { embeddingSource: 'none', embeddingBaseUrl: 'http://127.0.0.1:9/v1', embeddingModel: 'embed-1' },
    { embeddingSource: 'openai' },
    { embeddingSource: 'openai', embeddingModel: 'embed-1' },
    { embeddingSource: 'openai', embeddingBaseUrl: 'http://127.0.0.1:9/v1' },
    { embeddingSource: 'openai', embeddingBaseUrl: 'http://127.0.0.1:9/v1', embeddingModel: '   ' },
    { embeddingSource: 'openai', embeddingBaseUrl: ' / ', embeddingModel: 'embed-1' },
    { embeddingSource: 'openai', embeddingBaseUrl: 'http://127.0.0.1:9/v1', embeddingModel: 'embed-1' },
  ]

  it('shows Rebuild vectors exactly when the plugin configures an embedding channel', () => {
    for (const saved of cases) {
      const plugin = embeddingSettings(resolveConfig(configWith(saved), home)).configured
      // The settings scope may hold only the keys set, or every key with its default: the card answers alike.
      assert.equal(embeddingConfigured(saved), plugin, `${JSON.stringify(saved)} as saved`)
      assert.equal(
        embeddingConfigured(configWith(saved) as unknown as Record<string, unknown>),
        plugin,
        `${JSON.stringify(saved)} with defaults`,
      )
    }
    assert.equal(embeddingConfigured(cases.at(-1) ?? {}), true)
  })

  it('counts current vectors and the facts waiting for one, and says what a rebuild did', () => {
    assert.equal(vectorCount(null), null)
    assert.equal(vectorCount({ current: 0, stale: 1, missing: 2 }), '0 facts with current vectors (3 waiting)')
    assert.equal(vectorCount({ current: 1, stale: 0, missing: 0 }), '1 fact with current vectors')
    assert.equal(
      rebuiltWords({ sweep: { embedded: 3, rechecked: 0, pruned: 1 }, coverage: { current: 3, stale: 0, missing: 0 } }),
      'Vectors: 3 facts embedded, 1 removed. 3 facts now have current vectors.',
    )
    assert.equal(
      rebuiltWords({ sweep: { embedded: 1, rechecked: 0, pruned: 0 }, coverage: null }),
      'Vectors: 1 fact embedded.',
    )
    assert.equal(
      rebuiltWords({ sweep: { embedded: 0, rechecked: 2, pruned: 0 }, coverage: { current: 2, stale: 0, missing: 0 } }),
      'Vectors: nothing to embed. 2 facts now have current vectors.',
    )
  })
})

describe('scope words on the page', () => {
  const scopes: ScopeWire[] = [
    { scope: 'global', kind: 'global', name: 'global', facts: 3 },
    { scope: 'project:/home/ada/src/billing-api', kind: 'project', name: 'billing-api', facts: 2 },
    { scope: 'infra', kind: 'label', name: 'infra', facts: 1 },
  ]

  it('reads a scope by its kind and name, a project never by its path', () => {
    assert.equal(scopeWords('global', 'global'), 'global')
    assert.equal(scopeWords('project', 'billing-api'), 'project billing-api')
    assert.equal(scopeWords('label', 'infra'), 'label infra')
    assert.deepEqual(
      scopeFilterOptions(scopes).map((option) => option.label),
      ['global (3)', 'project billing-api (2)', 'label infra (1)'],
    )
    assert.equal(
      scopeFilterOptions(scopes)[1]?.value,
      'project:/home/ada/src/billing-api',
      'the stored text is only sent back',
    )
  })

  it("offers every known scope but the fact's own as a move target, global always among them", () => {
    const fact = { scope: 'project:/home/ada/src/billing-api' } as FactView
    assert.deepEqual(
      moveTargets(fact, scopes).map((option) => option.label),
      ['global', 'label infra'],
    )
    assert.deepEqual(
      moveTargets(fact, scopes.slice(1)).map((option) => option.label),
      ['global', 'label infra'],
    )
    assert.deepEqual(
      moveTargets({ scope: 'global' } as FactView, scopes).map((option) => option.value),
      ['project:/home/ada/src/billing-api', 'infra'],
    )
  })

  it('takes a chosen scope as it is, and a new label as typed, tidied; says what is missing otherwise', () => {
    assert.deepEqual(chosenScope('infra', undefined), { scope: 'infra' })
    assert.deepEqual(chosenScope('', undefined), { missing: 'Choose a scope to move to.' })
    assert.deepEqual(chosenScope(NEW_LABEL.value, '  platform   ops '), { scope: 'platform ops' })
    assert.deepEqual(chosenScope(NEW_LABEL.value, ' '), { missing: "Type the new label's name." })
    assert.match(JSON.stringify(chosenScope(NEW_LABEL.value, 'Global')), /not a label name/u)
    assert.match(JSON.stringify(chosenScope(NEW_LABEL.value, 'project:/tmp/x')), /not a label name/u)
  })
})

describe('a listed fact names what tells it apart', () => {
  it('names a slot with its qualifiers, and marks a sensitive value by its kind', () => {
    assert.equal(slotWords({ subject: 'billing-api', property: 'port', qualifiers: {} }), 'billing-api · port')
    assert.equal(
      slotWords({ subject: 'billing-api', property: 'port', qualifiers: { env: 'staging', region: 'eu' } }),
      'billing-api · port (env=staging, region=eu)',
    )
    assert.equal(qualifierNote(undefined), '')
    assert.equal(sensitiveMark({ sensitivity: null }), '')
    assert.equal(sensitiveMark({ sensitivity: 'id_number' }), 'sensitive: id number')
  })
})
