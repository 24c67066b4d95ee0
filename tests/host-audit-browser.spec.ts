/**
 * The health check end to end, through a real DSH rc.8 web host and the fake model: a library written by memory_write
 * calls in a conversation is audited with `audit {force: true}` over real HTTP, which queues aggregated cards (a list
 * past 50 rows as batch 1/2 and 2/2) that apply per row, skip a row edited since the sweep as skippedStale, and can
 * lose a row to proposal-prune first; then the settings card's "Run the health check" button in Chromium runs it and
 * says what it found. A screenshot lands in test-artifacts/.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { openHost, openPluginCard, screenshot } from './helpers/browser.ts'
import { converse, writeCall } from './helpers/fact-memory-web.ts'
import { closeClean, startPageHost, type PageHost } from './helpers/page-host.ts'

let env: PageHost | undefined

before(async () => {
  env = await startPageHost()
})

after(async () => {
  await env?.stop()
})

interface FactRow {
  readonly id: number
  readonly subject: string
  readonly property: string
  readonly status: string
  readonly entityKey: string
}
interface RunWire {
  readonly found: Record<string, number>
  readonly cards: { kind: string; id: number; rows: number; batch: { index: number; count: number } | null }[]
}
interface CardWire {
  readonly id: number
  readonly revision: number
  readonly kind: string
  readonly status: string
}

const RESTATING = 52

describe('the health check through the real host', () => {
  it('queues aggregated cards from a forced audit that apply per row, skip a stale row and can be pruned', async () => {
    assert.ok(env !== undefined)
    const { api, model, host, home } = env
    const calls = [
      ...Array.from({ length: RESTATING }, (_, n) => ({
        subject: `job-${n}`,
        property: 'error message',
        value: 'failed with an error message',
      })),
      ...['2026-02-08', '2026-02-09', '2026-02-10'].map((day) => ({
        subject: 'nightly backup',
        property: `${day} result`,
        value: 'ok',
      })),
      { subject: 'billing-api', property: 'port', value: '7801' },
      { subject: 'billing-api', property: 'owner', value: 'team payments' },
      { subject: 'billing', property: 'port', value: '7801' },
    ]
    await converse(host.url, model, home.workspace, 'note these down', {
      toolCalls: calls.map((args) => writeCall({ ...args, evidence: 'observed' })),
    })
    const facts = (await api.ok('facts', { limit: 100 }))['facts'] as FactRow[]
    assert.equal(facts.length, calls.length, 'every write landed as its own row')

    const answer = await api.ok('audit', { force: true })
    const run = answer['run'] as RunWire
    assert.deepEqual(run.found, { retire: RESTATING, fold: 1, alias: 1 })
    assert.deepEqual(
      run.cards.map((card) => [card.kind, card.rows, card.batch]),
      [
        ['retire', 50, { index: 1, count: 2 }],
        ['retire', 2, { index: 2, count: 2 }],
        ['fold', 1, null],
        ['alias', 1, null],
      ],
    )
    assert.match(
      String(answer['message']),
      /^4 cards queued: retire 52 facts that only restate their property; fold 1 dated pipeline; alias 1 split subject$/u,
    )
    const pending = (await api.ok('proposals', { status: 'pending', limit: 100 }))['proposals'] as CardWire[]
    const [firstRetire, secondRetire, fold, alias] = run.cards.map((card) =>
      pending.find((entry) => entry.id === card.id),
    )
    assert.ok(firstRetire && secondRetire && fold && alias)

    const fence = async (extra: Record<string, unknown>): Promise<Record<string, unknown>> => ({
      expectedGeneration: await api.generation(),
      operationId: api.op('audit'),
      ...extra,
    })
    const job = (n: number): FactRow | undefined => facts.find((fact) => fact.subject === `job-${n}`)
    await api.ok('fact-update', await fence({ id: job(0)?.id, validFrom: '2026-02-01' }))
    const applied = await api.ok('proposal-apply', await fence({ id: firstRetire.id, revision: firstRetire.revision }))
    assert.deepEqual(applied['skippedStale'], [0])
    assert.equal((applied['applied'] as unknown[]).length, 49)

    await api.ok('proposal-prune', await fence({ id: secondRetire.id, revision: secondRetire.revision, row: 1 }))
    await api.ok('proposal-apply', await fence({ id: secondRetire.id, revision: secondRetire.revision + 1 }))
    await api.ok('proposal-apply', await fence({ id: fold.id, revision: fold.revision }))
    await api.ok('proposal-apply', await fence({ id: alias.id, revision: alias.revision }))

    const after = new Map(
      ((await api.ok('facts', { status: 'all', limit: 100 }))['facts'] as FactRow[]).map((fact) => [fact.id, fact]),
    )
    const statusOf = (fact: FactRow | undefined): string | undefined => after.get(fact?.id ?? 0)?.status
    assert.deepEqual(
      [statusOf(job(0)), statusOf(job(1)), statusOf(job(50)), statusOf(job(51))],
      ['active', 'retired', 'retired', 'active'],
    )
    const nightly = facts
      .filter((fact) => fact.subject === 'nightly backup')
      .sort((a, b) => a.property.localeCompare(b.property))
    assert.deepEqual(nightly.map(statusOf), ['superseded', 'superseded', 'active'])
    const billing = facts.find((fact) => fact.subject === 'billing')
    assert.equal(after.get(billing?.id ?? 0)?.entityKey, 'billing api')

    const summary = await api.ok('audit', { summary: true })
    assert.equal(summary['total'], 1)
  })

  it("runs from the settings card's button and says what it found", async () => {
    assert.ok(env !== undefined)
    const { api, model, host, home, browser } = env
    await converse(host.url, model, home.workspace, 'two more', {
      toolCalls: ['deploy job', 'indexer'].map((subject) =>
        writeCall({ subject, property: 'status', value: 'has a status', evidence: 'observed' }),
      ),
    })
    const before = (await api.ok('audit', {}))['total']
    const opened = await openHost(browser, host.url)
    const { page } = opened
    const card = await openPluginCard(page)
    await card.waitFor()
    await card.locator('[data-fm="run-audit"]').click()
    const said = card.locator('[data-fm="card-status"]').filter({ hasText: /^Health check:/u })
    await said.waitFor()
    // The two new facts and job-0, whose row the earlier card skipped as stale; job-51 was struck, so it stays declined.
    assert.equal(
      await said.innerText(),
      'Health check: 1 card queued: retire 3 facts that only restate their property (1 row declined before).',
    )
    await said.scrollIntoViewIfNeeded()
    await screenshot(page, 'settings-card-health-check')
    assert.equal((await api.ok('audit', {}))['total'], Number(before) + 1)
    await closeClean(opened)
  })
})
