/**
 * subject-rename, property-rename and alias-remove over real HTTP, against one DSH rc.8 web host with the plugin
 * linked: status codes and bodies, the fence (409 for a stale generation, a replayed operation id answered from its
 * receipt), a merge opening a conflict the conflicts verb lists, the aliases on the entity verb, the undo through
 * fact-restore, bad input (400, nothing changed), and a memory_write under the old name landing on the new one.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { DshHome, WebHost } from './helpers/dsh-host.ts'
import { converse, type FactMemoryApi, writeCall } from './helpers/fact-memory-web.ts'
import type { FakeModel } from './helpers/fake-model.ts'
import { type ApiHost, importLines, startApiHost } from './helpers/page-host.ts'

let model: FakeModel
let home: DshHome
let host: WebHost
let api: FactMemoryApi

interface FactView {
  readonly id: number
  readonly subject: string
  readonly entityKey: string
  readonly property: string
  readonly value: string
  readonly status: string
}
interface EntityAnswer {
  entity: { key: string; display: string }
  properties: { property: string; facts: FactView[] }[]
  aliases: { id: number; kind: string; alias: string; canonical: string }[]
}

const SEED = [
  { subject: 'Billing Svc', property: 'port', value: '7801' },
  { subject: 'Billing Svc', property: 'owner', value: 'team payments' },
  { subject: 'billing-api', property: 'port', value: '7802' },
  { subject: 'dsh', property: 'created_by', value: 'DeepSeek' },
]

let env: ApiHost | undefined

before(async () => {
  env = await startApiHost()
  ;({ model, home, host, api } = env)
  await importLines(api, SEED)
})

after(async () => {
  await env?.stop()
})

const entity = async (subject: string): Promise<EntityAnswer> =>
  (await api.ok('entity', { subject })) as unknown as EntityAnswer
const errorCode = (json: Record<string, unknown> | undefined): string | undefined =>
  (json?.['error'] as { code?: string } | undefined)?.code

describe('renames over HTTP', () => {
  it('refuses bad input with 400 and a stale generation with 409, changing nothing', async () => {
    const generation = await api.generation()
    for (const body of [
      { entityKey: 'billing svc' },
      { entityKey: 'billing svc', to: '' },
      { entityKey: 'billing svc', to: 'x', surprise: 1 },
    ]) {
      const refused = await api.post('subject-rename', {
        ...body,
        expectedGeneration: generation,
        operationId: api.op(),
      })
      assert.equal(refused.status, 400, JSON.stringify(body))
    }
    const stale = await api.post('subject-rename', {
      entityKey: 'billing svc',
      to: 'billing-api',
      expectedGeneration: generation - 1,
      operationId: api.op(),
    })
    assert.deepEqual([stale.status, errorCode(stale.json)], [409, 'stale'])
    const unknown = await api.post('subject-rename', await api.fence({ entityKey: 'no such subject', to: 'x' }))
    assert.deepEqual([unknown.status, errorCode(unknown.json)], [422, 'refused'])
    assert.equal(await api.generation(), generation)
  })

  it("says with dryRun whether a name is free or another subject's, writing nothing", async () => {
    const generation = await api.generation()
    const free = await api.ok(
      'subject-rename',
      await api.fence({ entityKey: 'billing svc', to: 'payments', dryRun: true }),
    )
    const taken = await api.ok(
      'subject-rename',
      await api.fence({ entityKey: 'billing svc', to: 'Billing-API', dryRun: true }),
    )
    assert.deepEqual(
      [free['kind'], free['to'], taken['kind'], taken['to']],
      ['rename', 'payments', 'merge', 'billing-api'],
    )
    assert.equal(await api.generation(), generation)
  })

  it('merges a subject into another (200), opening a conflict for the two ports; a replay answers the receipt; the undo splits them again', async () => {
    const body = await api.fence({ entityKey: 'billing svc', to: 'billing-api' })
    const merged = await api.post('subject-rename', body)
    assert.equal(merged.status, 200)
    assert.deepEqual(
      [merged.json?.['kind'], merged.json?.['to'], merged.json?.['moved'], merged.json?.['contested']],
      ['merge', 'billing-api', 2, 2],
    )
    const replay = await api.post('subject-rename', body)
    assert.deepEqual(
      [replay.status, replay.json?.['replayed'], replay.json?.['editId']],
      [200, true, merged.json?.['editId']],
    )
    const groups = (await api.ok('conflicts', {}))['groups'] as { subject: string; property: string }[]
    assert.deepEqual(
      groups.map((group) => [group.subject, group.property]),
      [['billing-api', 'port']],
    )
    const opened = await entity('billing-api')
    assert.deepEqual(
      opened.aliases.map((alias) => [alias.kind, alias.alias, alias.canonical]),
      [['entity', 'Billing Svc', 'billing-api']],
    )

    const undone = await api.post('fact-restore', await api.fence({ editId: merged.json?.['editId'] }))
    assert.equal(undone.status, 200)
    assert.deepEqual((await entity('Billing Svc')).properties.map((group) => group.property).sort(), ['owner', 'port'])
    assert.deepEqual((await entity('billing-api')).aliases, [])
    assert.deepEqual((await api.ok('conflicts', {}))['groups'], [])
  })

  it("renames a property, lists it as an alias, and the model's memory_write under the old name lands on the new one", async () => {
    const renamed = await api.ok(
      'property-rename',
      await api.fence({ entityKey: 'dsh', property: 'created_by', to: 'developed_by' }),
    )
    assert.deepEqual([renamed['kind'], renamed['from'], renamed['to']], ['rename', 'created_by', 'developed_by'])
    await converse(host.url, model, home.workspace, 'Remember: dsh was also created by the harness team.', {
      toolCalls: [
        writeCall({
          subject: 'dsh',
          property: 'created_by',
          value: 'the harness team',
          evidence: 'explicit_user',
          multi: true,
        }),
      ],
    })
    const opened = await entity('dsh')
    assert.deepEqual(
      opened.properties.map((group) => [group.property, group.facts.map((fact) => fact.value).sort()]),
      [['developed_by', ['DeepSeek', 'the harness team']]],
    )
    const [alias] = opened.aliases
    assert.ok(alias !== undefined)
    const removed = await api.post('alias-remove', await api.fence({ id: alias.id }))
    assert.equal(removed.status, 200)
    const again = await api.post('alias-remove', await api.fence({ id: alias.id }))
    assert.deepEqual([again.status, errorCode(again.json)], [404, 'not_found'])
  })
})
