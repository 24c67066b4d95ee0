/**
 * fact-add over real HTTP, against one DSH rc.8 web host with the plugin linked: 200 with what the write path did,
 * the fence (409 for a stale generation, a replayed operation id answered from its receipt, one row), a credential
 * refused with 422 and nothing stored, bad bodies refused with 400, and the undo through fact-restore.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { FactMemoryApi } from './helpers/fact-memory-web.ts'
import { startApiHost, type ApiHost } from './helpers/page-host.ts'

let env: ApiHost | undefined
let api: FactMemoryApi

interface FactView {
  readonly id: number
  readonly subject: string
  readonly property: string
  readonly value: string
  readonly status: string
  readonly evidence: string
}

before(async () => {
  env = await startApiHost()
  api = env.api
})

after(async () => {
  await env?.stop()
})

const current = async (): Promise<FactView[]> =>
  (await api.ok('facts', { status: 'current', limit: 100 }))['facts'] as FactView[]
const errorCode = (json: Record<string, unknown> | undefined): string | undefined =>
  (json?.['error'] as { code?: string } | undefined)?.code

describe('fact-add over HTTP', () => {
  it("adds the user's statement (200), answers a replay from its receipt, refuses a stale generation with 409, and the undo takes it out", async () => {
    const body = await api.fence({ subject: 'lighthouse', property: 'keeper', value: 'Ada' })
    const first = await api.post('fact-add', body)
    assert.equal(first.status, 200)
    assert.equal(first.json?.['outcome'], 'saved')
    const fact = first.json?.['fact'] as FactView
    assert.deepEqual([fact.value, fact.status, fact.evidence], ['Ada', 'active', 'explicit_user'])
    const replay = await api.post('fact-add', body)
    assert.equal(replay.status, 200)
    assert.equal(replay.json?.['replayed'], true)
    assert.equal((await current()).filter((row) => row.subject === 'lighthouse').length, 1)

    const generation = await api.generation()
    const stale = await api.post('fact-add', {
      subject: 'orchard',
      property: 'harvest',
      value: 'October',
      expectedGeneration: generation - 1,
      operationId: api.op(),
    })
    assert.equal(stale.status, 409)
    assert.equal(errorCode(stale.json), 'stale')
    assert.equal(await api.generation(), generation)

    await api.ok('fact-restore', await api.fence({ editId: first.json?.['editId'] }))
    assert.ok(!(await current()).some((row) => row.id === fact.id))
  })

  it('refuses a credential with 422 and stores nothing, and bad bodies with 400', async () => {
    const generation = await api.generation()
    const secret = await api.post(
      'fact-add',
      await api.fence({
        subject: 'deploy bot',
        property: 'api token',
        value: 'sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c',
      }),
    )
    assert.equal(secret.status, 422)
    assert.equal(errorCode(secret.json), 'credential_refused')
    assert.equal(await api.generation(), generation)
    assert.ok(!(await current()).some((row) => row.subject === 'deploy bot'))
    for (const extra of [
      { subject: 'a', property: 'b' },
      { subject: 'a', property: 'b', value: 'c', origin: 'tool' },
      { subject: 'a', property: 'b', value: 'c', multi: 'yes' },
    ]) {
      const bad = await api.post('fact-add', await api.fence(extra))
      assert.equal(bad.status, 400, JSON.stringify(extra))
      assert.equal(errorCode(bad.json), 'invalid_arguments')
    }
    assert.equal(await api.generation(), generation)
  })
})
