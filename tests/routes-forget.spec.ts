/**
 * fact-forget and fact-put-back over real HTTP, against one DSH rc.8 web host with the plugin linked: status codes
 * and bodies, the fence (409 for a stale generation, a replayed operation id answered from its receipt), the undo
 * through fact-restore, and the export carrying the tombstones.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import type { FactMemoryApi } from './helpers/fact-memory-web.ts'
import { type ApiHost, importLines, startApiHost } from './helpers/page-host.ts'

let api: FactMemoryApi

interface FactView {
  readonly id: number
  readonly subject: string
  readonly entityKey: string
  readonly property: string
  readonly value: string
  readonly status: string
  readonly evidence: string
}

const SEED = [
  { subject: 'lighthouse', property: 'keeper', value: 'Ada' },
  { subject: 'lighthouse', property: 'height', value: '41 m' },
  { subject: 'orchard', property: 'harvest month', value: 'October' },
  { subject: 'bakery', property: 'opening hour', value: '7am' },
]

let env: ApiHost | undefined

before(async () => {
  env = await startApiHost()
  ;({ api } = env)
  await importLines(api, SEED)
})

after(async () => {
  await env?.stop()
})

const current = async (): Promise<FactView[]> =>
  (await api.ok('facts', { status: 'current', limit: 100 }))['facts'] as FactView[]
const find = async (subject: string, property: string): Promise<FactView> => {
  const fact = (await current()).find((row) => row.subject === subject && row.property === property)
  if (fact === undefined) throw new Error(`no current ${subject} · ${property}`)
  return fact
}

describe('fact-forget over HTTP', () => {
  it('forgets one fact (200), answers a replay from its receipt, refuses a stale generation with 409, and the undo brings it back', async () => {
    const fact = await find('orchard', 'harvest month')
    const body = await api.fence({ id: fact.id })
    const first = await api.post('fact-forget', body)
    assert.equal(first.status, 200)
    assert.deepEqual(
      (first.json?.['forgotten'] as FactView[]).map((row) => [row.id, row.value]),
      [[fact.id, 'October']],
    )
    const replay = await api.post('fact-forget', body)
    assert.equal(replay.status, 200)
    assert.equal(replay.json?.['replayed'], true)
    assert.equal(replay.json?.['editId'], first.json?.['editId'])
    assert.ok(!(await current()).some((row) => row.id === fact.id))

    const other = await find('bakery', 'opening hour')
    const generation = await api.generation()
    const stale = await api.post('fact-forget', {
      id: other.id,
      expectedGeneration: generation - 1,
      operationId: api.op(),
    })
    assert.equal(stale.status, 409)
    assert.equal((stale.json?.['error'] as { code?: string } | undefined)?.code, 'stale')
    assert.equal(await api.generation(), generation)

    const undone = await api.ok('fact-restore', await api.fence({ editId: first.json?.['editId'] }))
    assert.equal(undone['kind'], 'forget')
    assert.ok((await current()).some((row) => row.id === fact.id && row.status === 'active'))
  })

  it('forgets a whole subject by its entity key, exports its tombstones, and refuses bad bodies with 400 and an unknown subject with 404', async () => {
    const keeper = await find('lighthouse', 'keeper')
    const claimLines = async (): Promise<Record<string, unknown>[]> => {
      const exported = await api.ok('export', { backup: false })
      return readFileSync(String(exported['path']), 'utf8')
        .split('\n')
        .slice(1, -1)
        .map((line) => JSON.parse(line) as Record<string, unknown>)
    }
    const before = (await claimLines()).filter((line) => line['tombstone'] === 'claim').length
    const forgot = await api.ok('fact-forget', await api.fence({ entityKey: keeper.entityKey }))
    assert.deepEqual((forgot['forgotten'] as FactView[]).map((row) => row.property).sort(), ['height', 'keeper'])
    const lines = await claimLines()
    assert.equal(lines.filter((line) => line['tombstone'] === 'claim').length, before + 2)
    assert.ok(!lines.some((line) => line['subject'] === 'lighthouse'))

    const both = await api.post('fact-forget', await api.fence({ id: keeper.id, entityKey: keeper.entityKey }))
    assert.equal(both.status, 400)
    assert.equal((both.json?.['error'] as { code?: string } | undefined)?.code, 'invalid_arguments')
    const unknown = await api.post('fact-forget', await api.fence({ entityKey: 'no such subject' }))
    assert.equal(unknown.status, 404)
  })
})

describe('fact-put-back over HTTP', () => {
  it('makes a past value current as confirmed_user and supersedes the value it replaces; the undo restores both', async () => {
    const hour = await find('bakery', 'opening hour')
    const edited = await api.ok('fact-update', await api.fence({ id: hour.id, value: '8am' }))
    const now = edited['fact'] as FactView
    const put = await api.post('fact-put-back', await api.fence({ id: hour.id }))
    assert.equal(put.status, 200)
    const back = put.json?.['fact'] as FactView
    assert.deepEqual([back.value, back.status, back.evidence], ['7am', 'active', 'confirmed_user'])
    const replaced = (await api.ok('fact', { id: now.id }))['fact'] as FactView
    assert.equal(replaced.status, 'superseded')
    const again = await api.post('fact-put-back', await api.fence({ id: back.id }))
    assert.equal(again.status, 422)

    await api.ok('fact-restore', await api.fence({ editId: put.json?.['editId'] }))
    assert.equal(((await api.ok('fact', { id: now.id }))['fact'] as FactView).status, 'active')
    assert.equal(((await api.ok('fact', { id: back.id }))['fact'] as FactView).status, 'retired')
  })
})
