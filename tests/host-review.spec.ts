/**
 * The near-duplicate review end to end: the real DSH rc.8 web host with the plugin linked, the scripted fake model on
 * loopback, the consolidate verb over real HTTP. A forced sweep answers at once and runs in the background (a second
 * press while it runs says so; the summary shows its progress, then its outcome). It asks the model one closed question per pair, turns
 * "same" into one merge proposal and remembers "distinct" so the next sweep asks nothing; with the model failing,
 * nothing is written; the summary reads the ledger.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createDshHome, startWebHost, type DshHome, type WebHost } from './helpers/dsh-host.ts'
import { FakeModel, messageText } from './helpers/fake-model.ts'
import { converse, FactMemoryApi, writeCall } from './helpers/fact-memory-web.ts'
import { waitFor } from './helpers/poll.ts'

let model: FakeModel
let home: DshHome
let host: WebHost
let api: FactMemoryApi

const LIBRARY: readonly Record<string, unknown>[] = [
  ...['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'].map(
    (squad, index) => ({
      subject: `${squad} squad`,
      property: 'lead',
      value: ['Alice', 'Bob', 'Carol', 'Dan', 'Erin', 'Frank', 'Grace', 'Heidi', 'Ivan', 'Judy', 'Ken', 'Liz'][index],
      evidence: 'observed',
    }),
  ),
  { subject: 'orders-api', property: 'database', value: 'PostgreSQL 16 on the managed instance', evidence: 'observed' },
  {
    subject: 'orders-api',
    property: 'storage',
    value: 'PostgreSQL 16 on a managed instance',
    evidence: 'explicit_user',
    quote: 'orders-api stores its data in PostgreSQL 16 on a managed instance',
  },
  { subject: 'user', property: 'hobbies', value: 'plays the piano, mostly jazz standards', evidence: 'observed' },
  { subject: 'user', property: 'pastime', value: 'plays jazz standards on the piano', evidence: 'observed' },
  {
    subject: 'user',
    property: 'contact',
    value: 'plays jazz standards on the piano, mail alice@example.com',
    evidence: 'observed',
  },
]

interface SweepView {
  readonly outcome: string
  readonly budget: number
  readonly candidates: number
  readonly remembered: number
  readonly asked: number
  readonly same: number
  readonly distinct: number
  readonly deferred: number
  readonly proposalIds: readonly number[]
}

before(async () => {
  model = await FakeModel.start()
  home = createDshHome()
  host = await startWebHost(home, model.url)
  api = new FactMemoryApi(host.url)
  await converse(host.url, model, home.workspace, 'remember these', {
    toolCalls: LIBRARY.map((args) => writeCall(args)),
  })
})

after(async () => {
  await host?.stop()
  await model?.close()
  home?.remove()
})

interface RunningView {
  readonly trigger: string
  readonly startedAt: string
  readonly budget: number
  readonly planned: number
  readonly asked: number
}

/** Press "Find near-duplicates" over HTTP and wait, as the settings card does, for the outcome in the summary. */
const sweepAndWait = async (): Promise<SweepView> => {
  const begun = await api.ok('consolidate', { force: true })
  assert.equal(begun['begun'], true, JSON.stringify(begun))
  const startedAt = (begun['running'] as RunningView).startedAt
  const outcome = await waitFor(async () => {
    const summary = await api.ok('consolidate', { summary: true, limit: 1 })
    const last = summary['lastAsked'] as { startedAt: string; sweep: SweepView | null; error: string | null } | null
    return summary['running'] === null && last?.startedAt === startedAt ? last : undefined
  }, 'the asked sweep to end')
  assert.equal(outcome.error, null)
  assert.ok(outcome.sweep !== null)
  return outcome.sweep
}

const verdicts = (): string[] =>
  model
    .verdictRequests()
    .map((request) => messageText(request.body.messages.find((message) => message.role === 'user') ?? { role: 'user' }))

const mergeCards = async (): Promise<{ id: number; reason: string; status: string }[]> =>
  (
    (await api.ok('proposals', { status: 'all', limit: 100 }))['proposals'] as {
      id: number
      kind: string
      reason: string
      status: string
    }[]
  ).filter((card) => card.kind === 'merge')

describe('the near-duplicate review in a real DSH host', () => {
  it('a forced sweep yields one merge proposal for "same", remembers "distinct", and the next sweep asks nothing', async () => {
    model.reset()
    model.enqueueVerdicts({ text: '{"verdict": "same"}' }, { text: '{"verdict": "distinct"}' })
    const sweep = await sweepAndWait()
    assert.deepEqual([sweep.budget, sweep.candidates, sweep.asked, sweep.same, sweep.distinct], [24, 2, 2, 1, 1])
    const asked = verdicts()
    assert.equal(asked.length, 2)
    assert.match(
      asked[0] ?? '',
      /^Statement A: orders-api · database: PostgreSQL 16 on the managed instance\nStatement B: orders-api · storage: /u,
    )
    assert.match(asked[1] ?? '', /^Statement A: user · hobbies: /u, 'subjects take turns')
    assert.doesNotMatch(
      asked.join('\n'),
      /alice@example\.com|#\d/u,
      'no sensitive text and no fact id reaches the model',
    )
    const cards = await mergeCards()
    assert.deepEqual(
      cards.map((card) => [card.id, card.reason, card.status]),
      [[sweep.proposalIds[0], 'near_duplicate', 'pending']],
    )

    model.reset()
    const again = await sweepAndWait()
    assert.deepEqual([again.candidates, again.remembered, again.asked], [2, 2, 0])
    assert.equal(verdicts().length, 0, 'the remembered pair and the pending card cost no call')
    assert.equal((await mergeCards()).length, 1)
  })

  it('a forced sweep answers before the model does, and a second press while it runs says so', async () => {
    await converse(host.url, model, home.workspace, 'and these', {
      toolCalls: [
        writeCall({
          subject: 'docs',
          property: 'host',
          value: 'the docs live on the static site bucket in eu-west',
          evidence: 'observed',
        }),
        writeCall({
          subject: 'docs',
          property: 'hosting',
          value: 'the docs live on the static site bucket in the eu-west region',
          evidence: 'observed',
        }),
      ],
    })
    model.reset()
    model.enqueueVerdicts({ text: '{"verdict": "distinct"}', delayMs: 1500 })
    const pressed = Date.now()
    const begun = await api.ok('consolidate', { force: true })
    assert.ok(Date.now() - pressed < 1000, 'the verb answered without waiting on the model')
    const running = begun['running'] as RunningView
    assert.deepEqual([begun['begun'], running.trigger, running.budget], [true, 'asked', 24])
    const second = await api.ok('consolidate', { force: true })
    assert.equal(second['begun'], false)
    assert.match(String(second['message']), /already running \(0 of 1 pair asked so far\)/u)
    assert.equal((second['running'] as RunningView).startedAt, running.startedAt)
    const during = await api.ok('consolidate', { summary: true })
    assert.equal(
      (during['running'] as RunningView | null)?.startedAt,
      running.startedAt,
      'the summary shows the sweep under way',
    )
    const outcome = await waitFor(async () => {
      const summary = await api.ok('consolidate', { summary: true })
      return summary['running'] === null
        ? (summary['lastAsked'] as { startedAt: string; sweep: SweepView | null })
        : undefined
    }, 'the sweep to end')
    assert.equal(outcome.startedAt, running.startedAt)
    assert.deepEqual([outcome.sweep?.asked, outcome.sweep?.distinct], [1, 1])
  })

  it('with the model failing nothing is written, and the summary reads the ledger', async () => {
    await converse(host.url, model, home.workspace, 'remember these too', {
      toolCalls: [
        writeCall({ subject: 'ci', property: 'runtime', value: 'Node 22 on the Linux runners', evidence: 'observed' }),
        writeCall({ subject: 'ci', property: 'node version', value: 'Node 22 on Linux runners', evidence: 'observed' }),
      ],
    })
    const generation = await api.generation()
    model.reset()
    model.enqueueVerdicts(...Array.from({ length: 10 }, () => ({ status: 500 })))
    const sweep = await sweepAndWait()
    assert.deepEqual([sweep.outcome, sweep.asked, sweep.deferred, sweep.proposalIds.length], ['deferred', 0, 1, 0])
    assert.equal(await api.generation(), generation, 'nothing the page holds changed')
    assert.equal((await mergeCards()).length, 1)

    const summary = await api.ok('consolidate', { summary: true })
    assert.equal(summary['total'], 4)
    assert.deepEqual(
      (summary['sweeps'] as SweepView[]).map((entry) => entry.outcome),
      ['deferred', 'swept', 'swept', 'swept'],
    )
    assert.equal(typeof summary['lastSweepAt'], 'string')
    const bad = await api.post('consolidate', {})
    assert.equal(bad.status, 400)
    assert.equal((bad.json?.['error'] as { code?: string } | undefined)?.code, 'invalid_arguments')
  })
})
