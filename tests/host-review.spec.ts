/**
 * The near-duplicate review end to end: the real DSH rc.8 web host with the plugin linked, the scripted fake model on
 * loopback, the consolidate verb over real HTTP. A forced sweep asks the model one closed question per pair, turns
 * "same" into one merge proposal and remembers "distinct" so the next sweep asks nothing; with the model failing,
 * nothing is written; the summary reads the ledger.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createDshHome, startWebHost, type DshHome, type WebHost } from './helpers/dsh-host.ts'
import { FakeModel, messageText } from './helpers/fake-model.ts'
import { converse, FactMemoryApi, writeCall } from './helpers/fact-memory-web.ts'

let model: FakeModel
let home: DshHome
let host: WebHost
let api: FactMemoryApi

const LIBRARY: readonly Record<string, unknown>[] = [
  ...['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'].map((squad, index) => ({
    subject: `${squad} squad`, property: 'lead', value: ['Alice', 'Bob', 'Carol', 'Dan', 'Erin', 'Frank', 'Grace', 'Heidi', 'Ivan', 'Judy', 'Ken', 'Liz'][index], evidence: 'observed',
  })),
  { subject: 'orders-api', property: 'database', value: 'PostgreSQL 16 on the managed instance', evidence: 'observed' },
  { subject: 'orders-api', property: 'storage', value: 'PostgreSQL 16 on a managed instance', evidence: 'explicit_user', quote: 'orders-api stores its data in PostgreSQL 16 on a managed instance' },
  { subject: 'user', property: 'hobbies', value: 'plays the piano, mostly jazz standards', evidence: 'observed' },
  { subject: 'user', property: 'pastime', value: 'plays jazz standards on the piano', evidence: 'observed' },
  { subject: 'user', property: 'contact', value: 'plays jazz standards on the piano, mail alice@example.com', evidence: 'observed' },
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
  await converse(host.url, model, home.workspace, 'remember these', { toolCalls: LIBRARY.map((args) => writeCall(args)) })
})

after(async () => {
  await host?.stop()
  await model?.close()
  home?.remove()
})

const verdicts = (): string[] => model.verdictRequests()
  .map((request) => messageText(request.body.messages.find((message) => message.role === 'user') ?? { role: 'user' }))

const mergeCards = async (): Promise<{ id: number; reason: string; status: string }[]> =>
  ((await api.ok('proposals', { status: 'all', limit: 100 }))['proposals'] as { id: number; kind: string; reason: string; status: string }[])
    .filter((card) => card.kind === 'merge')

describe('the near-duplicate review in a real DSH host', () => {
  it('a forced sweep yields one merge proposal for "same", remembers "distinct", and the next sweep asks nothing', async () => {
    model.reset()
    model.enqueueVerdicts({ text: '{"verdict": "same"}' }, { text: '{"verdict": "distinct"}' })
    const answer = await api.ok('consolidate', { force: true })
    const sweep = answer['sweep'] as SweepView
    assert.deepEqual([sweep.budget, sweep.candidates, sweep.asked, sweep.same, sweep.distinct], [24, 2, 2, 1, 1])
    const asked = verdicts()
    assert.equal(asked.length, 2)
    assert.match(asked[0] ?? '', /^Statement A: orders-api · database: PostgreSQL 16 on the managed instance\nStatement B: orders-api · storage: /u)
    assert.match(asked[1] ?? '', /^Statement A: user · hobbies: /u, 'subjects take turns')
    assert.doesNotMatch(asked.join('\n'), /alice@example\.com|#\d/u, 'no sensitive text and no fact id reaches the model')
    const cards = await mergeCards()
    assert.deepEqual(cards.map((card) => [card.id, card.reason, card.status]), [[sweep.proposalIds[0], 'near_duplicate', 'pending']])

    model.reset()
    const again = (await api.ok('consolidate', { force: true }))['sweep'] as SweepView
    assert.deepEqual([again.candidates, again.remembered, again.asked], [2, 2, 0])
    assert.equal(verdicts().length, 0, 'the remembered pair and the pending card cost no call')
    assert.equal((await mergeCards()).length, 1)
  })

  it('with the model failing nothing is written, and the summary reads the ledger', async () => {
    await converse(host.url, model, home.workspace, 'remember these too', { toolCalls: [
      writeCall({ subject: 'ci', property: 'runtime', value: 'Node 22 on the Linux runners', evidence: 'observed' }),
      writeCall({ subject: 'ci', property: 'node version', value: 'Node 22 on Linux runners', evidence: 'observed' }),
    ] })
    const generation = await api.generation()
    model.reset()
    model.enqueueVerdicts(...Array.from({ length: 10 }, () => ({ status: 500 })))
    const sweep = (await api.ok('consolidate', { force: true }))['sweep'] as SweepView
    assert.deepEqual([sweep.outcome, sweep.asked, sweep.deferred, sweep.proposalIds.length], ['deferred', 0, 1, 0])
    assert.equal(await api.generation(), generation, 'nothing the page holds changed')
    assert.equal((await mergeCards()).length, 1)

    const summary = await api.ok('consolidate', { summary: true })
    assert.equal(summary['total'], 3)
    assert.deepEqual((summary['sweeps'] as SweepView[]).map((entry) => entry.outcome), ['deferred', 'swept', 'swept'])
    assert.equal(typeof summary['lastSweepAt'], 'string')
    const bad = await api.post('consolidate', {})
    assert.equal(bad.status, 400)
    assert.equal((bad.json?.['error'] as { code?: string } | undefined)?.code, 'invalid_arguments')
  })
})
