/**
 * The management API over real HTTP: one DSH rc.8 web host with the plugin linked, seeded through a conversation in
 * which the fake model calls memory_write. Every verb's happy path and bad input, the request fence (each refusal
 * carried by an otherwise valid fenced write that must not run), and the generation/operation-id fence of row edits.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { Agent } from 'node:http'
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { DatabaseSync } from 'node:sqlite'
import { ERROR_CODES, type ErrorCode } from '../src/errors.ts'
import { VERBS } from '../src/management/verbs.ts'
import { createDshHome, REPO_ROOT, startWebHost, type DshHome, type WebHost } from './helpers/dsh-host.ts'
import { FakeModel } from './helpers/fake-model.ts'
import {
  converse,
  FactMemoryApi,
  hostApi,
  PREFIX,
  rawRequest,
  writeCall,
  type RawRequest,
  type VerbResponse,
} from './helpers/fact-memory-web.ts'

/** A host name the user allowed (the host runs with it in DSH_FACT_MEMORY_ALLOWED_HOSTS). */
const ALLOWED_HOST = 'memory.test'
/** A credential name the host inherits from its environment, so the credential store cannot overwrite it. */
const SHADOWED_ENV = 'FACT_MEMORY_RERANK_KEY'

let model: FakeModel
let home: DshHome
let host: WebHost
let api: FactMemoryApi
let port: string
let seedSession: string

/** Fact ids by role, resolved after seeding. */
const ids: Record<string, number> = {}

/** Every fact the seeding conversation writes; `role` names the ones tests edit. */
const SEED_FACTS: readonly { role?: string; args: Record<string, unknown> }[] = [
  {
    role: 'deploys',
    args: {
      subject: 'deploys',
      property: 'release day',
      value: 'Tuesday',
      evidence: 'explicit_user',
      quote: 'deploys go out on Tuesdays',
    },
  },
  { role: 'port7801', args: { subject: 'api server', property: 'port', value: '7801', evidence: 'observed' } },
  { role: 'port7802', args: { subject: 'api server', property: 'port', value: '7802', evidence: 'unverified' } },
  ...['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'].map(
    (squad, index) => ({
      args: {
        subject: `${squad} squad`,
        property: 'lead',
        value: ['Alice', 'Bob', 'Carol', 'Dan', 'Erin', 'Frank', 'Grace', 'Heidi', 'Ivan', 'Judy'][index],
        evidence: 'observed',
      },
    }),
  ),
  { role: 'buildCache', args: { subject: 'build cache', property: 'location', value: '/var/cache/build' } },
  { role: 'ciRunner', args: { subject: 'ci runner', property: 'operating system', value: 'ubuntu 24.04' } },
  { role: 'fenceTarget', args: { subject: 'lighthouse', property: 'keeper', value: 'Ada' } },
  { role: 'replayTarget', args: { subject: 'orchard', property: 'harvest month', value: 'October' } },
  { role: 'collisionLeft', args: { subject: 'glacier', property: 'elevation', value: '3200 m' } },
  { role: 'collisionRight', args: { subject: 'violin', property: 'maker', value: 'Stradivari' } },
  { role: 'staleTarget', args: { subject: 'bakery', property: 'opening hour', value: '7am' } },
  { role: 'receiptTarget', args: { subject: 'telescope', property: 'aperture', value: '200mm' } },
  { role: 'cacheTtl', args: { subject: 'session cache', property: 'ttl seconds', value: '30' } },
]

/** Writes that become proposals (inferred, or below the 0.6 confidence floor). */
const SEED_PROPOSALS: readonly { role: string; args: Record<string, unknown> }[] = [
  { role: 'apply', args: { subject: 'api server', property: 'language', value: 'Go', evidence: 'inferred' } },
  { role: 'reject', args: { subject: 'database', property: 'engine', value: 'postgres', confidence: 0.3 } },
  { role: 'revise', args: { subject: 'frontend', property: 'framework', value: 'react', evidence: 'inferred' } },
  { role: 'prune', args: { subject: 'message queue', property: 'broker', value: 'rabbitmq', evidence: 'inferred' } },
  { role: 'goesStale', args: { subject: 'session cache', property: 'ttl seconds', value: '60', evidence: 'inferred' } },
  { role: 'spare', args: { subject: 'logging', property: 'level', value: 'debug', confidence: 0.2 } },
]
const proposalIds: Record<string, number> = {}

before(async () => {
  model = await FakeModel.start()
  home = createDshHome()
  host = await startWebHost(home, model.url, {
    DSH_FACT_MEMORY_ALLOWED_HOSTS: `${ALLOWED_HOST}, other.test`,
    [SHADOWED_ENV]: 'value-from-the-environment',
  })
  port = new URL(host.url).port
  api = new FactMemoryApi(host.url)
  seedSession = await converse(
    host.url,
    model,
    home.workspace,
    'remember that deploys go out on Tuesdays, and note the rest',
    { toolCalls: [...SEED_FACTS, ...SEED_PROPOSALS].map((entry) => writeCall(entry.args)) },
  )
  const outcomes = (model.agentRequests().at(-1)?.body.messages ?? [])
    .filter((message) => message.role === 'tool')
    .map((message) => String(message.content))
  const unexpected = outcomes.filter((text) => !/^outcome: (saved|pending|conflict)/u.test(text))
  if (unexpected.length > 0 || outcomes.length !== SEED_FACTS.length + SEED_PROPOSALS.length) {
    throw new Error(`seeding did not go as planned: ${JSON.stringify(outcomes)}`)
  }
  const all = await api.ok('facts', { status: 'all', limit: 100 })
  for (const entry of SEED_FACTS) {
    if (entry.role === undefined) continue
    const fact = (all['facts'] as FactView[]).find(
      (row) =>
        row.subject === entry.args['subject'] &&
        row.property === entry.args['property'] &&
        row.value === entry.args['value'],
    )
    if (fact === undefined) throw new Error(`seeded fact ${entry.role} is missing`)
    ids[entry.role] = fact.id
  }
  const cards = (await api.ok('proposals', { status: 'all', limit: 100 }))['proposals'] as Card[]
  for (const entry of SEED_PROPOSALS) {
    const card = cards.find(
      (candidate) =>
        candidate.rows[0]?.subject === entry.args['subject'] && candidate.rows[0]?.value === entry.args['value'],
    )
    if (card === undefined) throw new Error(`seeded proposal ${entry.role} is missing`)
    proposalIds[entry.role] = card.id
  }
})

after(async () => {
  await host?.stop()
  await model?.close()
  home?.remove()
})

interface FactView {
  readonly id: number
  readonly subject: string
  readonly entityKey: string
  readonly property: string
  readonly value: string
  readonly status: string
  readonly evidence: string
  readonly origin: string
  readonly revision: number
  readonly validTo: string | null
  readonly conflictGroupId: number | null
  readonly sessionId: string | null
}

interface Card {
  readonly id: number
  readonly status: string
  readonly revision: number
  readonly reason: string
  readonly rows: readonly {
    readonly index: number
    readonly subject: string
    readonly property: string
    readonly value: string
    readonly stale: boolean
  }[]
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers

/** Send a verb request with raw node:http (any headers; content-type JSON unless overridden). */
function send(
  verb: string,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
  extra: Partial<RawRequest> = {},
): Promise<VerbResponse> {
  const text = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body)
  return rawRequest(host.url, {
    path: `${PREFIX}/${verb}`,
    headers: { 'content-type': 'application/json', ...headers },
    body: text,
    ...extra,
  })
}

/** Assert a JSON refusal with the given status and closed code; returns the body. */
function refused(response: VerbResponse, status: number, code: ErrorCode, label = ''): Record<string, unknown> {
  const where = `${label} → ${response.status} ${response.text.slice(0, 400)}`
  assert.equal(response.status, status, where)
  assert.match(String(response.headers['content-type']), /^application\/json/u, where)
  assert.ok(response.json !== undefined, `not a JSON object: ${where}`)
  assert.equal(response.json['ok'], false, where)
  const error = response.json['error'] as { code?: unknown; message?: unknown } | undefined
  assert.equal(error?.code, code, where)
  assert.ok(ERROR_CODES.includes(code))
  assert.equal(typeof error?.message, 'string', where)
  assert.ok(String(error?.message).length > 0, where)
  return response.json
}

/** One fact by id through the fact verb. */
async function fact(id: number): Promise<FactView> {
  return (await api.ok('fact', { id }))['fact'] as FactView
}

/** Every fact in a status set, all pages. */
async function allFacts(status: unknown = 'all'): Promise<FactView[]> {
  const facts: FactView[] = []
  let cursor: string | null = null
  do {
    const page: Record<string, unknown> = await api.ok('facts', {
      status,
      limit: 100,
      ...(cursor === null ? {} : { cursor }),
    })
    facts.push(...(page['facts'] as FactView[]))
    cursor = page['nextCursor'] as string | null
  } while (cursor !== null)
  return facts
}

/** One proposal card by id. */
async function card(id: number): Promise<Card> {
  const cards = (await api.ok('proposals', { status: 'all', limit: 100 }))['proposals'] as Card[]
  const found = cards.find((entry) => entry.id === id)
  assert.ok(found, `no card ${id}`)
  return found
}

function id(role: string): number {
  const value = ids[role]
  assert.ok(value !== undefined, `no seeded fact ${role}`)
  return value
}

function proposalId(role: string): number {
  const value = proposalIds[role]
  assert.ok(value !== undefined, `no seeded proposal ${role}`)
  return value
}

/** An otherwise valid fenced write: expire the fence target at the current generation with a fresh operation id. */
async function fencedExpire(): Promise<Record<string, unknown>> {
  return { expectedGeneration: await api.generation(), operationId: api.op('fence'), id: id('fenceTarget') }
}

/** The store generation and the fence target's state must be as before. */
async function assertUntouched(generation: number, label: string): Promise<void> {
  assert.equal(await api.generation(), generation, `${label}: the generation moved`)
  const target = await fact(id('fenceTarget'))
  assert.equal(target.status, 'active', `${label}: the fenced write ran`)
  assert.equal(target.revision, 1, `${label}: the fenced write ran`)
}

/** Operation ids the fence refused; none may have left a receipt. */
const refusedOperationIds: string[] = []

// ---------------------------------------------------------------------------------------------------------------

describe('the request fence refuses before any handler runs', () => {
  it('refuses a Host that is neither loopback, a private literal nor allowed with 403, and the write it carried never runs', async () => {
    const generation = await api.generation()
    for (const hostHeader of [
      `evil.example:${port}`,
      'evil.example',
      `8.8.8.8:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `${ALLOWED_HOST}.evil.example:${port}`,
      `[2001:db8::1]:${port}`,
      `172.32.0.1:${port}`,
      `localhost:${port}:${port}`,
    ]) {
      const body = await fencedExpire()
      refusedOperationIds.push(String(body['operationId']))
      refused(await send('fact-expire', body, { host: hostHeader }), 403, 'forbidden', hostHeader)
    }
    await assertUntouched(generation, 'foreign host')
  })

  it("refuses an Origin other than the request's own with 403, and the write it carried never runs", async () => {
    const generation = await api.generation()
    const next = String(Number(port) + 1)
    for (const origin of [
      'http://evil.example',
      `http://127.0.0.1:${next}`,
      'null',
      `https://localhost:${port}`,
      `http://127.0.0.1:${port}.evil.example`,
      `http://${ALLOWED_HOST}:${port}`,
    ]) {
      const body = await fencedExpire()
      refusedOperationIds.push(String(body['operationId']))
      refused(await send('fact-expire', body, { origin }), 403, 'forbidden', origin)
    }
    await assertUntouched(generation, 'foreign origin')
  })

  it("refuses a cross-site fetch with 403 even when the Origin is the request's own", async () => {
    const generation = await api.generation()
    for (const site of ['cross-site', 'Cross-Site']) {
      const body = await fencedExpire()
      refusedOperationIds.push(String(body['operationId']))
      refused(
        await send('fact-expire', body, { 'sec-fetch-site': site, origin: `http://127.0.0.1:${port}` }),
        403,
        'forbidden',
        site,
      )
    }
    await assertUntouched(generation, 'cross-site')
  })

  it('refuses a body that is not declared as JSON with 415, and the write it carried never runs', async () => {
    const generation = await api.generation()
    for (const type of [
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonp',
      'application/json-patch+json',
      '',
    ]) {
      const body = await fencedExpire()
      refusedOperationIds.push(String(body['operationId']))
      refused(
        await send('fact-expire', body, { 'content-type': type }),
        415,
        'unsupported_media_type',
        JSON.stringify(type),
      )
    }
    const body = await fencedExpire()
    refusedOperationIds.push(String(body['operationId']))
    refused(
      await rawRequest(host.url, { path: `${PREFIX}/fact-expire`, body: JSON.stringify(body) }),
      415,
      'unsupported_media_type',
      'no content-type',
    )
    await assertUntouched(generation, 'media type')
  })

  it('refuses an oversize body that declares its length with 413, and the write it carried never runs', async () => {
    const generation = await api.generation()
    const body: Record<string, unknown> = { ...(await fencedExpire()), padding: 'x'.repeat(70 * 1024) }
    refusedOperationIds.push(String(body['operationId']))
    refused(await send('fact-expire', body), 413, 'payload_too_large', 'declared length')
    refused(
      await send('status', JSON.stringify({ summary: true }), { 'content-length': '999999999' }, { body: '' }),
      413,
      'payload_too_large',
      'declared huge',
    )
    await assertUntouched(generation, 'oversize')
  })

  it('refuses an oversize chunked body (no declared length) with 413 and a JSON error, and the write it carried never runs', async () => {
    const generation = await api.generation()
    const body: Record<string, unknown> = { ...(await fencedExpire()), padding: 'x'.repeat(70 * 1024) }
    refusedOperationIds.push(String(body['operationId']))
    let response: VerbResponse | undefined
    let failure: unknown
    try {
      response = await send('fact-expire', body, {}, { chunked: true })
    } catch (error) {
      failure = error
    }
    assert.ok(response !== undefined, `no HTTP answer to an oversize chunked body: ${String(failure)}`)
    refused(response, 413, 'payload_too_large', 'chunked')
    await assertUntouched(generation, 'oversize chunked')
  })

  it('lets a client still sending a large body read the 413, declared or chunked, instead of a reset', async () => {
    const generation = await api.generation()
    // A kept-alive connection, as a browser or a client library holds one: the answer must not close it under the body.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      for (let round = 0; round < 4; round += 1) {
        for (const chunked of [false, true]) {
          const body: Record<string, unknown> = {
            ...(await fencedExpire()),
            padding: '\u0000'.repeat(160 * 1024 * (round + 1)),
          }
          refusedOperationIds.push(String(body['operationId']))
          let response: VerbResponse | undefined
          let failure: unknown
          try {
            response = await send('fact-expire', body, {}, { chunked, agent })
          } catch (error) {
            failure = error
          }
          const label = `${chunked ? 'chunked' : 'declared'} ${Buffer.byteLength(JSON.stringify(body))} bytes`
          assert.ok(response !== undefined, `${label}: no HTTP answer: ${String(failure)}`)
          refused(response, 413, 'payload_too_large', label)
        }
      }
    } finally {
      agent.destroy()
    }
    await assertUntouched(generation, 'large body')
  })

  it('reads a body of exactly the size cap and refuses one byte more, declared or chunked', async () => {
    const cap = 64 * 1024
    const exact = `{"summary":true}${' '.repeat(cap - 16)}`
    assert.equal(Buffer.byteLength(exact), cap)
    for (const chunked of [false, true]) {
      const read = await send('status', exact, {}, { chunked })
      assert.equal(read.status, 200, `${chunked ? 'chunked' : 'declared'}: ${read.text.slice(0, 200)}`)
    }
    refused(await send('status', `${exact} `), 413, 'payload_too_large', 'one byte over')
  })

  it('refuses GET and every method other than POST with 405', async () => {
    const generation = await api.generation()
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const body = await fencedExpire()
      refusedOperationIds.push(String(body['operationId']))
      const response =
        method === 'GET'
          ? await rawRequest(host.url, { method, path: `${PREFIX}/fact-expire?id=${id('fenceTarget')}` })
          : await send('fact-expire', body, {}, { method })
      refused(response, 405, 'method_not_allowed', method)
    }
    await assertUntouched(generation, 'method')
  })

  it('runs the fence before the verb lookup: an unknown verb from a foreign host is 403, not 404', async () => {
    refused(await send('no-such-verb', {}, { host: 'evil.example' }), 403, 'forbidden')
    refused(await send('no-such-verb', {}, { 'content-type': 'text/plain' }), 415, 'unsupported_media_type')
  })

  it('answers a verb name that does not exist, including prototype names, with 404 unknown_verb', async () => {
    for (const path of [
      'no-such-verb',
      'constructor',
      '__proto__',
      'hasOwnProperty',
      'toString',
      'STATUS',
      'status/extra',
      '',
      'fact-memory',
      'export-all',
      'a'.repeat(60),
    ]) {
      refused(
        await rawRequest(host.url, {
          path: `${PREFIX}/${path}`,
          headers: { 'content-type': 'application/json' },
          body: '{}',
        }),
        404,
        'unknown_verb',
        path,
      )
    }
  })

  it('accepts a host named in DSH_FACT_MEMORY_ALLOWED_HOSTS, loopback names and private IP literals', async () => {
    for (const hostHeader of [
      `${ALLOWED_HOST}:${port}`,
      ALLOWED_HOST,
      `MEMORY.TEST:${port}`,
      'other.test',
      `localhost:${port}`,
      `app.localhost:${port}`,
      `[::1]:${port}`,
      `127.8.9.10:${port}`,
      `10.0.0.5:${port}`,
      '172.16.4.2',
      `192.168.1.20:${port}`,
      '169.254.1.1',
      `100.64.0.9:${port}`,
      `[fd12:3456::1]:${port}`,
      `[fe80::1]:${port}`,
    ]) {
      const response = await send('status', { summary: true }, { host: hostHeader })
      assert.equal(response.status, 200, `${hostHeader}: ${response.text}`)
      assert.equal(response.json?.['ok'], true, hostHeader)
    }
  })

  it("accepts an Origin equal to the request's own origin and a same-origin fetch", async () => {
    for (const [hostHeader, origin] of [
      [`127.0.0.1:${port}`, `http://127.0.0.1:${port}`],
      [`10.0.0.5:${port}`, `http://10.0.0.5:${port}`],
      [`${ALLOWED_HOST}:${port}`, `https://${ALLOWED_HOST}:${port}`],
      [`[::1]:${port}`, `http://[::1]:${port}`],
    ] as const) {
      const response = await send('facts', { limit: 1 }, { host: hostHeader, origin, 'sec-fetch-site': 'same-origin' })
      assert.equal(response.status, 200, `${hostHeader} ${origin}: ${response.text}`)
    }
  })

  it('lets a fenced write through an allowed host name and matching Origin reach its handler', async () => {
    const generation = await api.generation()
    const response = await send(
      'rebuild',
      { expectedGeneration: generation, operationId: api.op('allowed') },
      { host: `${ALLOWED_HOST}:${port}`, origin: `http://${ALLOWED_HOST}:${port}`, 'sec-fetch-site': 'same-origin' },
    )
    assert.equal(response.status, 200, response.text)
    assert.equal(response.json?.['generation'], generation + 1)
    assert.equal(await api.generation(), generation + 1)
  })

  it('kept no receipt for any operation id the fence refused: each can still be used once', async () => {
    assert.ok(refusedOperationIds.length >= 25, `only ${refusedOperationIds.length} refused ids`)
    // Every refused id is unknown to the store: a first use is not a replay.
    for (const operationId of refusedOperationIds.slice(0, -1)) {
      const probe = await send('fact-expire', { expectedGeneration: 0, operationId, id: id('fenceTarget') })
      // Generation 0 is stale; a receipt would have answered a replay or a collision instead.
      const body = refused(probe, 409, 'stale', operationId)
      assert.equal(body['stale'], true)
    }
    const last = refusedOperationIds.at(-1) ?? ''
    const generation = await api.generation()
    const used = await api.ok('fact-expire', {
      expectedGeneration: generation,
      operationId: last,
      id: id('fenceTarget'),
    })
    assert.equal(used['replayed'], false)
    assert.equal(await api.generation(), generation + 1)
  })
})

// ---------------------------------------------------------------------------------------------------------------

/** Bodies for export and import, used once another change registers them. */
const EXCHANGE_BODIES: Readonly<Record<string, Record<string, unknown>>> = {
  export: { backup: false },
  import: { mode: 'preview', content: '' },
}

/** The fenced verbs of the specification that this build registers, each with a plausible body. */
function fencedBodies(generation: number): Record<string, Record<string, unknown>> {
  const fence = (): { expectedGeneration: number; operationId: string } => ({
    expectedGeneration: generation,
    operationId: api.op('bad'),
  })
  return {
    'fact-update': { ...fence(), id: id('buildCache'), value: '/srv/cache' },
    'fact-expire': { ...fence(), id: id('staleTarget') },
    'fact-restore': { ...fence(), editId: 1 },
    'fact-move': { ...fence(), id: id('staleTarget'), scope: 'infra' },
    'fact-pin': { ...fence(), id: id('staleTarget'), pinned: true },
    'fact-forget': { ...fence(), id: id('staleTarget') },
    'fact-put-back': { ...fence(), id: id('staleTarget') },
    'subject-rename': { ...fence(), entityKey: 'bakery', to: 'the bakery' },
    'property-rename': { ...fence(), entityKey: 'bakery', property: 'opening hour', to: 'opens at' },
    'alias-remove': { ...fence(), id: 1 },
    'fact-add': { ...fence(), subject: 'stale-probe', property: 'color', value: 'teal' },
    resolve: { ...fence(), groupId: 1, keepFactId: id('port7801') },
    rebuild: { ...fence() },
    wipe: { ...fence() },
    'proposal-apply': { ...fence(), id: proposalId('spare'), revision: 1 },
    'proposal-reject': { ...fence(), id: proposalId('spare'), revision: 1 },
    'proposal-revise': { ...fence(), id: proposalId('spare'), revision: 1, value: 'info' },
    'proposal-prune': { ...fence(), id: proposalId('spare'), revision: 1, row: 0 },
    ...(EXCHANGE
      ? {
          import: {
            ...fence(),
            mode: 'commit',
            content: `${JSON.stringify({ subject: 'a', property: 'b', value: 'c' })}\n`,
            token: 'not-a-preview-token',
          },
        }
      : {}),
  }
}

describe('the page assets', () => {
  const asset = (path: string, extra: Partial<RawRequest> = {}) =>
    rawRequest(host.url, { method: 'GET', path: `${PREFIX}/assets/${path}`, ...extra })

  it('serves the built nebula chunk and its map as GET or HEAD, and nothing else', async () => {
    const chunk = await asset('nebula.js?rev=abc')
    assert.equal(chunk.status, 200)
    assert.equal(chunk.headers['content-type'], 'text/javascript; charset=utf-8')
    assert.equal(chunk.headers['x-content-type-options'], 'nosniff')
    assert.equal(chunk.text, readFileSync(join(REPO_ROOT, 'lib/client/nebula.js'), 'utf8'))
    assert.match(chunk.text, /export\s*\{/u)
    assert.equal((await asset('nebula.js.map')).headers['content-type'], 'application/json; charset=utf-8')
    const head = await asset('nebula.js', { method: 'HEAD' })
    assert.deepEqual(
      [head.status, head.text, head.headers['content-length']],
      [200, '', String(Buffer.byteLength(chunk.text))],
    )
    for (const path of [
      'client.js',
      '../client.js',
      '..%2Fclient.js',
      'nebula.js/',
      'NEBULA.JS',
      'constructor',
      '__proto__',
      '',
      '../../package.json',
    ]) {
      assert.equal((await asset(path)).status, 404, path)
    }
  })

  it('lets a browser keep the chunk its page names by content, and revalidate any other', async () => {
    // The rev the built page asks for (scripts/build-client.mjs), so the build and the route must agree on it.
    const rev = /nebula\.js\?rev=([0-9a-f]{12})/u.exec(readFileSync(join(REPO_ROOT, 'lib/client.js'), 'utf8'))?.[1]
    assert.ok(rev !== undefined, 'lib/client.js names the nebula chunk by its rev')
    const named = await asset(`nebula.js?rev=${rev}`)
    assert.equal(named.status, 200)
    assert.equal(named.headers['cache-control'], 'public, max-age=31536000, immutable')
    for (const path of ['nebula.js', 'nebula.js?rev=abc', `nebula.js?rev=${rev.slice(1)}0`, 'nebula.js.map']) {
      assert.equal((await asset(path)).headers['cache-control'], 'no-cache', path)
    }
  })

  it('refuses other methods with 405 and a foreign Host with 403', async () => {
    assert.equal(
      (await asset('nebula.js', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }))
        .status,
      405,
    )
    const foreign = await asset('nebula.js', { headers: { host: 'evil.example:80' } })
    assert.equal(foreign.status, 403)
    assert.doesNotMatch(foreign.text, /export/u)
  })
})

describe('bad input is a 4xx with a JSON error and changes nothing', () => {
  it('refuses malformed JSON, invalid UTF-8 and non-object bodies with 400 invalid_arguments', async () => {
    const generation = await api.generation()
    const bodies: readonly (string | Buffer)[] = [
      '{',
      '{"id": 1,}',
      "{'id': 1}",
      'undefined',
      'NaN',
      '{"id": NaN}',
      '[',
      '"',
      'nul',
      Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
      Buffer.from([0xc3, 0x28]),
      'null',
      '[]',
      '[{}]',
      '42',
      '"text"',
      'true',
      '{"id":1}{"id":2}',
    ]
    for (const verb of ['fact-expire', 'status', 'facts', 'key', 'wipe']) {
      for (const body of bodies) refused(await send(verb, body), 400, 'invalid_arguments', `${verb} ${String(body)}`)
    }
    assert.equal(await api.generation(), generation)
  })

  it('refuses an unknown field on every verb, naming the field', async () => {
    const generation = await api.generation()
    const valid: Record<string, Record<string, unknown>> = {
      ...fencedBodies(generation),
      status: {},
      facts: {},
      fact: { id: id('deploys') },
      entity: { subject: 'deploys' },
      'subject-find': { name: 'deploys' },
      conflicts: {},
      activity: {},
      'review-seen': {},
      sessions: {},
      'session-pause': { sessionId: 's-route', paused: false },
      key: { ref: 'llm', value: 'never-stored-value' },
      proposals: {},
      graph: {},
      queue: {},
      'extract-run': { id: 1 },
      'extract-retry': { id: 1 },
      audit: {},
      search: { query: 'deploys' },
      extract: { text: 'billing-api runs on port 7801', dryRun: true },
      consolidate: { summary: true },
      calibrate: {},
      'index-vectors': {},
      'sync-now': {},
      'team-memory': { folder: '/', shared: false },
    }
    for (const verb of Object.keys(VERBS)) {
      const base = valid[verb] ?? EXCHANGE_BODIES[verb]
      assert.ok(base !== undefined, `no valid body for ${verb}`)
      const body = refused(await send(verb, { ...base, surprise: 1 }), 400, 'invalid_arguments', verb)
      // A union schema (entity, import) answers with the shapes it accepts instead of the field's name.
      if (verb !== 'entity' && verb !== 'import')
        assert.match(String((body['error'] as { message: string }).message), /unknown field "surprise"/u, verb)
    }
    assert.equal(await api.generation(), generation)
  })

  it('refuses prototype-pollution keys as unknown fields', async () => {
    const generation = await api.generation()
    for (const text of [
      '{"__proto__":{"force":true}}',
      '{"constructor":{"prototype":{"summary":true}}}',
      '{"summary":true,"__proto__":null}',
    ]) {
      refused(await send('status', text), 400, 'invalid_arguments', text)
    }
    const body = `{"__proto__":{"expectedGeneration":${generation},"operationId":"proto-pollution-1","id":${id('fenceTarget')}}}`
    refused(await send('fact-expire', body), 400, 'invalid_arguments', 'polluted fence')
    assert.equal(await api.generation(), generation)
  })

  it('refuses wrong types, NaN-like strings, fractions and out-of-range numbers with 400', async () => {
    const generation = await api.generation()
    const cases: readonly [string, unknown][] = [
      ['fact', { id: '1' }],
      ['fact', { id: 'NaN' }],
      ['fact', { id: 1.5 }],
      ['fact', { id: 0 }],
      ['fact', { id: -3 }],
      ['fact', { id: 2 ** 60 }],
      ['fact', { id: null }],
      ['fact', { id: [1] }],
      ['fact', {}],
      ['status', { force: 'true' }],
      ['status', { summary: 1 }],
      ['facts', { limit: 0 }],
      ['facts', { limit: 101 }],
      ['facts', { limit: '5' }],
      ['facts', { cursor: 12 }],
      ['facts', { cursor: 'abc' }],
      ['facts', { cursor: '-1' }],
      ['facts', { status: 'bogus' }],
      ['facts', { status: [] }],
      ['facts', { status: ['active', 'forgotten'] }],
      ['facts', { evidence: [] }],
      ['facts', { evidence: ['inferred'] }],
      ['facts', { subject: '' }],
      ['facts', { subject: '   ' }],
      ['facts', { text: 'a\nb' }],
      ['entity', {}],
      ['entity', { subject: 'deploys', entityKey: 'deploys' }],
      ['entity', { subject: 7 }],
      ['sessions', { limit: 0 }],
      ['sessions', { sessionIds: [] }],
      ['sessions', { sessionIds: 'x' }],
      ['proposals', { status: 'open' }],
      ['proposals', { limit: 0 }],
      ['proposals', { cursor: 'next' }],
      ['fact-expire', { expectedGeneration: '1', operationId: 'op-wrong-type-1', id: id('fenceTarget') }],
      ['fact-expire', { expectedGeneration: generation, operationId: 12345678, id: id('fenceTarget') }],
      ['fact-expire', { expectedGeneration: generation, operationId: 'op-wrong-type-2', id: 'Infinity' }],
      ['fact-expire', { expectedGeneration: -1, operationId: 'op-wrong-type-3', id: id('fenceTarget') }],
      ['fact-expire', { expectedGeneration: generation + 0.5, operationId: 'op-wrong-type-4', id: id('fenceTarget') }],
      ['fact-update', { expectedGeneration: generation, operationId: 'op-wrong-type-5', id: id('buildCache') }],
      [
        'fact-update',
        { expectedGeneration: generation, operationId: 'op-wrong-type-6', id: id('buildCache'), value: '   ' },
      ],
      [
        'fact-update',
        { expectedGeneration: generation, operationId: 'op-wrong-type-7', id: id('buildCache'), validFrom: 'tomorrow' },
      ],
      [
        'fact-update',
        {
          expectedGeneration: generation,
          operationId: 'op-wrong-type-8',
          id: id('buildCache'),
          qualifiers: { env: 3 },
        },
      ],
      ['resolve', { expectedGeneration: generation, operationId: 'op-wrong-type-9', groupId: 'one', keepFactId: 1 }],
      ['wipe', { expectedGeneration: generation, operationId: 'op-wrong-type-10', confirmToken: 42 }],
      [
        'proposal-prune',
        {
          expectedGeneration: generation,
          operationId: 'op-wrong-type-11',
          id: proposalId('spare'),
          revision: 1,
          row: 10_001,
        },
      ],
      [
        'proposal-revise',
        {
          expectedGeneration: generation,
          operationId: 'op-wrong-type-12',
          id: proposalId('spare'),
          revision: 0,
          value: 'x',
        },
      ],
      ['key', { ref: 'openai', value: 'some-value-1234' }],
      ['key', { ref: 'llm' }],
      ['key', { ref: 'llm', value: '' }],
      ['key', { ref: 'llm', value: '   ' }],
      ['key', { ref: 'llm', value: 'abc\u0001def' }],
      ['key', { ref: 'llm', value: 123 }],
    ]
    for (const [verb, body] of cases)
      refused(await send(verb, body), 400, 'invalid_arguments', `${verb} ${JSON.stringify(body)}`)
    assert.equal(await api.generation(), generation)
    assert.equal((await fact(id('buildCache'))).status, 'active')
  })

  it('refuses strings beyond their cap with 400 while the body is still under the size cap', async () => {
    const generation = await api.generation()
    const long = 'y'.repeat(60_000)
    const cases: readonly [string, unknown][] = [
      ['facts', { subject: long }],
      ['facts', { text: long }],
      ['entity', { subject: long }],
      ['sessions', { sessionIds: [long] }],
      ['fact-update', { expectedGeneration: generation, operationId: 'op-huge-1', id: id('buildCache'), value: long }],
      [
        'fact-update',
        { expectedGeneration: generation, operationId: 'op-huge-2', id: id('buildCache'), subject: 's'.repeat(201) },
      ],
      ['fact-expire', { expectedGeneration: generation, operationId: 'o'.repeat(129), id: id('fenceTarget') }],
      ['key', { ref: 'llm', value: 'k'.repeat(8193) }],
      ['wipe', { expectedGeneration: generation, operationId: 'op-huge-3', confirmToken: long }],
    ]
    for (const [verb, body] of cases) {
      const answer = refused(await send(verb, body), 400, 'invalid_arguments', verb)
      assert.ok(String((answer['error'] as { message: string }).message).length < 2000, `${verb} echoes the huge input`)
    }
    assert.equal(await api.generation(), generation)
  })

  it('refuses every fenced verb without expectedGeneration or operationId, and with a malformed operation id', async () => {
    const generation = await api.generation()
    for (const [verb, body] of Object.entries(fencedBodies(generation))) {
      const { expectedGeneration: _generation, ...noGeneration } = body
      const { operationId: _operation, ...noOperation } = body
      assert.match(
        String(
          (refused(await send(verb, noGeneration), 400, 'invalid_arguments', verb)['error'] as { message: string })
            .message,
        ),
        /expectedGeneration/u,
      )
      assert.match(
        String(
          (refused(await send(verb, noOperation), 400, 'invalid_arguments', verb)['error'] as { message: string })
            .message,
        ),
        /operationId/u,
      )
      for (const operationId of ['short', 'has spaces in it', 'slash/inside/id', 'ünïcödé-operation', '']) {
        refused(await send(verb, { ...body, operationId }), 400, 'invalid_arguments', `${verb} ${operationId}`)
      }
    }
    assert.equal(await api.generation(), generation)
  })

  it('refuses an empty body, as not JSON, on a read verb and on a fenced one', async () => {
    const generation = await api.generation()
    refused(await send('facts', ''), 400, 'invalid_arguments', 'empty read')
    refused(await send('status', ''), 400, 'invalid_arguments', 'empty read')
    refused(await send('fact-expire', ''), 400, 'invalid_arguments', 'empty fenced')
    assert.equal(await api.generation(), generation)
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe('status', () => {
  it('reports availability, generation, store id, driver, data directory and counts', async () => {
    const status = await api.ok('status', {})
    assert.equal(status['available'], true)
    assert.equal(status['error'], null)
    assert.equal(typeof status['generation'], 'number')
    assert.match(String(status['storeId']), /^[0-9a-f-]{36}$/u)
    assert.ok(['better-sqlite3', 'node:sqlite'].includes(String(status['driver'])))
    assert.equal(status['dataDir'], home.dataDir)
    const counts = status['counts'] as {
      byStatus: Record<string, number>
      pendingProposals: number
      openConflictGroups: number
    }
    assert.ok((counts.byStatus['active'] ?? 0) >= 15, JSON.stringify(counts))
    assert.equal(counts.pendingProposals, SEED_PROPOSALS.length)
    assert.equal(counts.openConflictGroups, 1)
    assert.equal(status['badge'], counts.pendingProposals + counts.openConflictGroups)
    assert.deepEqual((status['maintenance'] as { advanced: unknown }).advanced, null)
  })

  it('answers {summary:true} with only the badge numbers, the generation, whether capture is on and the display zone', async () => {
    const summary = await api.ok('status', { summary: true })
    assert.deepEqual(Object.keys(summary).sort(), [
      'autoCapture',
      'autoExtract',
      'available',
      'badge',
      'generation',
      'ok',
      'openConflictGroups',
      'pendingProposals',
      'recall',
      'timeZone',
    ])
    assert.equal(summary['timeZone'], (await api.ok('status', {}))['timeZone'])
    assert.equal(summary['badge'], Number(summary['pendingProposals']) + Number(summary['openConflictGroups']))
  })

  it('runs the maintenance pass now with {force:true}, which changes nothing when nothing is due', async () => {
    const generation = await api.generation()
    const forced = await api.ok('status', { force: true })
    assert.deepEqual((forced['maintenance'] as { advanced: unknown }).advanced, { promoted: 0, expired: 0 })
    assert.equal(await api.generation(), generation)
  })
})

describe('facts', () => {
  it('pages through the current facts newest first with a cursor, without repeats or gaps', async () => {
    const everything = (await api.ok('facts', { limit: 100 }))['facts'] as FactView[]
    assert.ok(everything.length >= 15)
    const seen: number[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const page: Record<string, unknown> = await api.ok('facts', { limit: 4, ...(cursor === null ? {} : { cursor }) })
      const rows = page['facts'] as FactView[]
      assert.ok(rows.length <= 4)
      seen.push(...rows.map((row) => row.id))
      cursor = page['nextCursor'] as string | null
      pages += 1
    } while (cursor !== null && pages < 50)
    assert.equal(cursor, null)
    assert.deepEqual(
      seen,
      everything.map((row) => row.id),
    )
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => b - a),
      'newest (highest id) first',
    )
    assert.ok(everything.every((row) => ['active', 'scheduled', 'conflict'].includes(row.status)))
  })

  it('filters by status word and status list', async () => {
    const conflicts = (await api.ok('facts', { status: ['conflict'] }))['facts'] as FactView[]
    assert.deepEqual(
      conflicts.map((row) => row.id),
      [id('port7802')],
    )
    const all = (await api.ok('facts', { status: 'all' }))['facts'] as FactView[]
    assert.ok(all.length >= SEED_FACTS.length)
    const history = (await api.ok('facts', { status: 'history' }))['facts'] as FactView[]
    assert.ok(history.every((row) => ['superseded', 'retired', 'expired'].includes(row.status)))
  })

  it('filters by evidence, subject prefix and text', async () => {
    const explicit = (await api.ok('facts', { evidence: ['explicit_user'] }))['facts'] as FactView[]
    assert.deepEqual(
      explicit.map((row) => row.id),
      [id('deploys')],
    )
    const subject = (await api.ok('facts', { subject: 'API Server' }))['facts'] as FactView[]
    assert.deepEqual(
      subject.map((row) => row.id).sort((a, b) => a - b),
      [id('port7801'), id('port7802')],
    )
    const text = (await api.ok('facts', { text: 'Tuesday' }))['facts'] as FactView[]
    assert.deepEqual(
      text.map((row) => row.id),
      [id('deploys')],
    )
    const none = (await api.ok('facts', { text: 'zeppelin' }))['facts'] as FactView[]
    assert.deepEqual(none, [])
    const combined = (await api.ok('facts', { subject: 'api', evidence: ['unverified'], status: 'all' }))[
      'facts'
    ] as FactView[]
    assert.deepEqual(
      combined.map((row) => row.id),
      [id('port7802')],
    )
  })

  it('answers search syntax in the text filter as plain words, not as an error', async () => {
    for (const text of [
      '"unbalanced',
      'NEAR(a b)',
      'a AND OR b',
      '*',
      '^start',
      'col:value',
      "'; DROP TABLE facts; --",
    ]) {
      const response = await api.post('facts', { text })
      assert.equal(response.status, 200, `${text}: ${response.text}`)
    }
    assert.ok(((await api.ok('facts', {}))['facts'] as FactView[]).length > 0)
  })
})

describe('fact, entity, conflicts, sessions, activity and review-seen', () => {
  it('returns one fact with its history, sources and edits', async () => {
    const detail = await api.ok('fact', { id: id('deploys') })
    const view = detail['fact'] as FactView
    assert.equal(view.value, 'Tuesday')
    assert.equal(view.evidence, 'explicit_user')
    assert.deepEqual(
      (detail['history'] as FactView[]).map((row) => row.id),
      [id('deploys')],
    )
    assert.ok(Array.isArray(detail['sources']))
    assert.ok(Array.isArray(detail['edits']))
    assert.equal(detail['generation'], await api.generation())
  })

  it('answers an id that names no fact with 404 not_found', async () => {
    refused(await send('fact', { id: 987_654 }), 404, 'not_found')
  })

  it('returns an entity by subject or key, grouped by property', async () => {
    const entity = await api.ok('entity', { subject: 'API server' })
    const properties = entity['properties'] as { property: string; facts: FactView[] }[]
    const port = properties.find((entry) => entry.property === 'port')
    assert.ok(port, JSON.stringify(properties))
    assert.deepEqual(port.facts.map((row) => row.value).sort(), ['7801', '7802'])
    const key = (entity['entity'] as { key: string }).key
    const byKey = await api.ok('entity', { entityKey: key })
    assert.deepEqual(byKey['entity'], entity['entity'])
    refused(await send('entity', { subject: 'no such subject anywhere' }), 404, 'not_found')
  })

  it('lists the open conflict group with both sides', async () => {
    const groups = (await api.ok('conflicts', {}))['groups'] as {
      id: number
      subject: string
      property: string
      rows: FactView[]
    }[]
    assert.equal(groups.length, 1)
    assert.equal(groups[0]?.property, 'port')
    assert.deepEqual(
      groups[0]?.rows.map((row) => row.id).sort((a, b) => a - b),
      [id('port7801'), id('port7802')],
    )
  })

  it('lists the seeding session with its facts and pending proposals, filtered by id', async () => {
    const sessions = (await api.ok('sessions', {}))['sessions'] as {
      sessionId: string
      facts: number
      pending: number
    }[]
    const seeded = sessions.find((entry) => entry.sessionId === seedSession)
    assert.ok(seeded, JSON.stringify(sessions))
    assert.ok(seeded.facts >= 20)
    assert.ok(seeded.pending >= 1)
    const only = (await api.ok('sessions', { sessionIds: [seedSession], limit: 5 }))['sessions'] as {
      sessionId: string
    }[]
    assert.deepEqual(
      only.map((entry) => entry.sessionId),
      [seedSession],
    )
    assert.deepEqual((await api.ok('sessions', { sessionIds: ['session-unknown'] }))['sessions'], [])
  })

  it('digests what arrived, and review-seen starts the digest afresh', async () => {
    const before = await api.ok('activity', {})
    assert.ok(Number(before['facts']) >= 20, JSON.stringify(before))
    const seen = await api.ok('review-seen', {})
    assert.match(String(seen['seenAt']), /^\d{4}-\d{2}-\d{2}T/u)
    const afterwards = await api.ok('activity', {})
    assert.equal(afterwards['since'], seen['seenAt'])
    assert.equal(afterwards['facts'], 0)
    assert.equal((await api.ok('status', {}))['reviewSeenAt'], seen['seenAt'])
    refused(await send('review-seen', { at: 'now' }), 400, 'invalid_arguments')
    refused(await send('activity', { since: 'yesterday' }), 400, 'invalid_arguments')
  })

  it("marks the queue as seen without moving the generation, so another page's edit with the generation it read is accepted", async () => {
    const generation = await api.generation()
    const seen = await api.ok('review-seen', {})
    assert.equal(seen['generation'], generation)
    assert.equal(await api.generation(), generation)
    const edited = await api.ok('rebuild', { expectedGeneration: generation, operationId: api.op('after-seen') })
    assert.equal(edited['replayed'], false)
    assert.equal(edited['generation'], generation + 1)
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe('row edits', () => {
  it("fact-update supersedes the old value with the user's own and bumps the generation once", async () => {
    const generation = await api.generation()
    const updated = await api.ok('fact-update', {
      expectedGeneration: generation,
      operationId: api.op('update'),
      id: id('buildCache'),
      value: '/srv/cache/build',
    })
    assert.equal(updated['replayed'], false)
    assert.equal(updated['generation'], generation + 1)
    assert.equal(updated['previousId'], id('buildCache'))
    const next = updated['fact'] as FactView
    assert.notEqual(next.id, id('buildCache'))
    assert.equal(next.value, '/srv/cache/build')
    assert.equal(next.evidence, 'explicit_user')
    assert.equal(next.origin, 'page')
    assert.equal((await fact(id('buildCache'))).status, 'superseded')
    assert.equal(await api.generation(), generation + 1)
    const detail = await api.ok('fact', { id: next.id })
    assert.deepEqual(
      (detail['history'] as FactView[]).map((row) => row.id).sort((a, b) => a - b),
      [id('buildCache'), next.id].sort((a, b) => a - b),
    )
    ids['buildCacheNext'] = next.id
  })

  it('fact-update refuses an edit that changes nothing, a value that is a credential, and a fact that is no longer current', async () => {
    const generation = await api.generation()
    const current = id('buildCacheNext')
    refused(
      await send('fact-update', {
        expectedGeneration: generation,
        operationId: api.op('same'),
        id: current,
        value: '/srv/cache/build',
      }),
      422,
      'refused',
      'same',
    )
    refused(
      await send('fact-update', {
        expectedGeneration: generation,
        operationId: api.op('secret'),
        id: current,
        value: 'sk-live-abcdefghijklmnopqrstuvwx',
      }),
      422,
      'credential_refused',
      'secret',
    )
    refused(
      await send('fact-update', {
        expectedGeneration: generation,
        operationId: api.op('old'),
        id: id('buildCache'),
        value: '/elsewhere',
      }),
      422,
      'refused',
      'old',
    )
    refused(
      await send('fact-update', {
        expectedGeneration: generation,
        operationId: api.op('gone'),
        id: 987_654,
        value: '/elsewhere',
      }),
      404,
      'not_found',
      'gone',
    )
    assert.equal(await api.generation(), generation)
    assert.equal((await fact(current)).value, '/srv/cache/build')
  })

  it('fact-update of only the validity window ends the same fact then, and fact-restore gives back its open end', async () => {
    const target = ((await api.ok('facts', { subject: 'golf squad' }))['facts'] as FactView[])[0]
    assert.ok(target !== undefined)
    const generation = await api.generation()
    const updated = await api.ok('fact-update', {
      expectedGeneration: generation,
      operationId: api.op('window'),
      id: target.id,
      validTo: '2099-01-31T00:00:00Z',
    })
    assert.equal(updated['generation'], generation + 1)
    const edited = updated['fact'] as FactView
    assert.deepEqual(
      [edited.id, edited.value, edited.status, edited.validTo],
      [target.id, 'Grace', 'active', '2099-01-31T00:00:00.000Z'],
    )
    assert.equal((await fact(target.id)).validTo, '2099-01-31T00:00:00.000Z')

    const restored = await api.ok('fact-restore', {
      expectedGeneration: generation + 1,
      operationId: api.op('window-undo'),
      editId: updated['editId'],
    })
    assert.equal(restored['kind'], 'update')
    assert.deepEqual([(await fact(target.id)).status, (await fact(target.id)).validTo], ['active', null])
  })

  it('fact-expire retires a current fact, and fact-restore undoes exactly that edit', async () => {
    const generation = await api.generation()
    const expired = await api.ok('fact-expire', {
      expectedGeneration: generation,
      operationId: api.op('expire'),
      id: id('ciRunner'),
    })
    assert.equal((expired['fact'] as FactView).status, 'expired')
    assert.equal(typeof (expired['fact'] as FactView).validTo, 'string')
    const editId = expired['editId']
    assert.equal(typeof editId, 'number')
    assert.deepEqual(expired['undo'], { editId })
    assert.equal((await fact(id('ciRunner'))).status, 'expired')
    assert.ok(!((await api.ok('facts', {}))['facts'] as FactView[]).some((row) => row.id === id('ciRunner')))

    const restored = await api.ok('fact-restore', {
      expectedGeneration: generation + 1,
      operationId: api.op('restore'),
      editId,
    })
    assert.equal(restored['kind'], 'expire')
    assert.equal((await fact(id('ciRunner'))).status, 'active')
    assert.equal(await api.generation(), generation + 2)

    refused(
      await send('fact-restore', { expectedGeneration: generation + 2, operationId: api.op('again'), editId }),
      422,
      'refused',
      'undone twice',
    )
    refused(
      await send('fact-restore', { expectedGeneration: generation + 2, operationId: api.op('none'), editId: 987_654 }),
      404,
      'not_found',
      'no edit',
    )
    assert.equal(await api.generation(), generation + 2)
  })

  it('resolve settles the conflict on the chosen side and closes the group', async () => {
    const groups = (await api.ok('conflicts', {}))['groups'] as { id: number }[]
    const groupId = groups[0]?.id
    assert.ok(groupId !== undefined)
    const generation = await api.generation()
    refused(
      await send('resolve', {
        expectedGeneration: generation,
        operationId: api.op('resolve-bad'),
        groupId,
        keepFactId: id('deploys'),
      }),
      422,
      'refused',
      'not a side',
    )
    refused(
      await send('resolve', {
        expectedGeneration: generation,
        operationId: api.op('resolve-none'),
        groupId: 987_654,
        keepFactId: id('port7801'),
      }),
      404,
      'not_found',
      'no group',
    )
    assert.equal(await api.generation(), generation)

    const resolved = await api.ok('resolve', {
      expectedGeneration: generation,
      operationId: api.op('resolve'),
      groupId,
      keepFactId: id('port7801'),
    })
    assert.equal((resolved['kept'] as FactView).id, id('port7801'))
    assert.deepEqual((await api.ok('conflicts', {}))['groups'], [])
    assert.equal((await fact(id('port7801'))).status, 'active')
    assert.ok(!['active', 'conflict', 'scheduled'].includes((await fact(id('port7802'))).status))
    assert.equal((await api.ok('status', { summary: true }))['openConflictGroups'], 0)
  })

  it('rebuild re-derives the indexes: text search finds the same facts afterwards', async () => {
    const before = ((await api.ok('facts', { text: 'Stradivari' }))['facts'] as FactView[]).map((row) => row.id)
    const generation = await api.generation()
    const rebuilt = await api.ok('rebuild', { expectedGeneration: generation, operationId: api.op('rebuild') })
    assert.equal(typeof rebuilt['indexed'], 'number')
    assert.ok(Number(rebuilt['indexed']) >= 15)
    assert.equal(rebuilt['generation'], generation + 1)
    assert.deepEqual(
      ((await api.ok('facts', { text: 'Stradivari' }))['facts'] as FactView[]).map((row) => row.id),
      before,
    )
    assert.deepEqual(before, [id('collisionRight')])
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe('fenced writes: generation precondition and operation id', () => {
  it('answers a double click (two identical fact-expire requests) with one write and one replay', async () => {
    const generation = await api.generation()
    const body = { expectedGeneration: generation, operationId: api.op('double'), id: id('replayTarget') }
    const [first, second] = await Promise.all([send('fact-expire', body), send('fact-expire', body)])
    assert.ok(first && second)
    assert.equal(first.status, 200, first.text)
    assert.equal(second.status, 200, second.text)
    const answers = [first.json, second.json].sort((a, b) => Number(a?.['replayed']) - Number(b?.['replayed']))
    assert.equal(answers[0]?.['replayed'], false)
    assert.equal(answers[1]?.['replayed'], true)
    const { replayed: _a, ...original } = answers[0] ?? {}
    const { replayed: _b, ...replay } = answers[1] ?? {}
    assert.deepEqual(replay, original, 'the replay is the first receipt')
    assert.equal(original['generation'], generation + 1)
    assert.equal(await api.generation(), generation + 1, 'the generation moved once')
    assert.equal((await fact(id('replayTarget'))).status, 'expired')

    // A third click, after the store moved on, is still the same operation.
    await api.ok('rebuild', { expectedGeneration: generation + 1, operationId: api.op('move-on') })
    const third = await send('fact-expire', body)
    assert.equal(third.status, 200, third.text)
    assert.equal(third.json?.['replayed'], true)
    assert.equal(third.json?.['editId'], original['editId'])
    assert.equal(await api.generation(), generation + 2)
  })

  it('refuses a stale page with stale: true and the fresh generation, leaving the fact alone', async () => {
    const generation = await api.generation()
    const operationId = api.op('stale')
    for (const expectedGeneration of [generation - 1, 0, generation + 5]) {
      const body = refused(
        await send('fact-expire', { expectedGeneration, operationId, id: id('staleTarget') }),
        409,
        'stale',
        String(expectedGeneration),
      )
      assert.equal(body['stale'], true)
      assert.equal(body['generation'], generation)
    }
    assert.equal(await api.generation(), generation)
    assert.equal((await fact(id('staleTarget'))).status, 'active')
    // The refused attempts kept no receipt: the honest retry with the fresh generation goes through.
    const retried = await api.ok('fact-expire', { expectedGeneration: generation, operationId, id: id('staleTarget') })
    assert.equal(retried['replayed'], false)
    assert.equal(await api.generation(), generation + 1)
  })

  it('refuses a stale generation on every fenced verb, before the handler looks at the rows', async () => {
    const generation = await api.generation()
    for (const [verb, body] of Object.entries(fencedBodies(generation + 7))) {
      const answer = refused(await send(verb, body), 409, 'stale', verb)
      assert.equal(answer['stale'], true, verb)
      assert.equal(answer['generation'], generation, verb)
    }
    assert.equal(await api.generation(), generation)
    assert.equal((await card(proposalId('spare'))).status, 'pending')
  })

  it('refuses the same operation id with a different payload as a collision, and the other fact is untouched', async () => {
    const generation = await api.generation()
    const operationId = api.op('collide')
    await api.ok('fact-expire', { expectedGeneration: generation, operationId, id: id('collisionLeft') })
    const collisions: readonly [string, Record<string, unknown>][] = [
      ['fact-expire', { expectedGeneration: generation + 1, operationId, id: id('collisionRight') }],
      ['fact-expire', { expectedGeneration: generation, operationId, id: id('collisionRight') }],
      ['fact-expire', { expectedGeneration: generation + 1, operationId, id: id('collisionLeft') }],
      ['rebuild', { expectedGeneration: generation, operationId }],
    ]
    for (const [verb, body] of collisions)
      refused(await send(verb, body), 409, 'operation_collision', `${verb} ${JSON.stringify(body)}`)
    assert.equal(await api.generation(), generation + 1)
    assert.equal((await fact(id('collisionRight'))).status, 'active')
  })

  it('keeps no receipt for a refused write: the same operation id then serves a valid request', async () => {
    const generation = await api.generation()
    const notFound = api.op('receipt')
    refused(
      await send('fact-expire', { expectedGeneration: generation, operationId: notFound, id: 987_654 }),
      404,
      'not_found',
      'not found',
    )
    const notCurrent = api.op('receipt')
    refused(
      await send('fact-expire', { expectedGeneration: generation, operationId: notCurrent, id: id('replayTarget') }),
      422,
      'refused',
      'not current',
    )
    const invalid = api.op('receipt')
    refused(
      await send('fact-expire', { expectedGeneration: generation, operationId: invalid, id: 'seven' }),
      400,
      'invalid_arguments',
      'invalid',
    )
    assert.equal(await api.generation(), generation)

    const first = await api.ok('fact-expire', {
      expectedGeneration: generation,
      operationId: notFound,
      id: id('receiptTarget'),
    })
    assert.equal(first['replayed'], false)
    const second = await api.ok('rebuild', { expectedGeneration: generation + 1, operationId: notCurrent })
    assert.equal(second['replayed'], false)
    const third = await api.ok('rebuild', { expectedGeneration: generation + 2, operationId: invalid })
    assert.equal(third['replayed'], false)
    assert.equal(await api.generation(), generation + 3)
    assert.equal((await fact(id('receiptTarget'))).status, 'expired')
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe('proposals', () => {
  it('lists pending cards newest first, pages with a cursor, and filters by status', async () => {
    const pending = (await api.ok('proposals', {}))['proposals'] as Card[]
    assert.equal(pending.length, SEED_PROPOSALS.length)
    assert.ok(pending.every((entry) => entry.status === 'pending' && entry.revision === 1 && entry.rows.length === 1))
    assert.deepEqual(
      pending.map((entry) => entry.id),
      [...pending.map((entry) => entry.id)].sort((a, b) => b - a),
    )
    const paged: number[] = []
    let cursor: string | null = null
    do {
      const page: Record<string, unknown> = await api.ok('proposals', {
        limit: 2,
        ...(cursor === null ? {} : { cursor }),
      })
      paged.push(...(page['proposals'] as Card[]).map((entry) => entry.id))
      cursor = page['nextCursor'] as string | null
    } while (cursor !== null)
    assert.deepEqual(
      paged,
      pending.map((entry) => entry.id),
    )
    assert.deepEqual((await api.ok('proposals', { status: 'applied' }))['proposals'], [])
    const reasons = new Set(pending.map((entry) => entry.reason))
    assert.deepEqual([...reasons].sort(), ['inferred', 'low_confidence'])
  })

  it("proposal-apply writes the card's row as confirmed_user and takes the card out of the queue", async () => {
    const generation = await api.generation()
    const applied = await api.ok('proposal-apply', {
      expectedGeneration: generation,
      operationId: api.op('apply'),
      id: proposalId('apply'),
      revision: 1,
    })
    const rows = applied['applied'] as { row: number; factId: number; outcome: string }[]
    assert.equal(rows.length, 1)
    const written = await fact(rows[0]?.factId ?? 0)
    assert.equal(written.value, 'Go')
    assert.equal(written.evidence, 'confirmed_user')
    assert.equal(written.status, 'active')
    assert.equal((await card(proposalId('apply'))).status, 'applied')
    assert.equal(await api.generation(), generation + 1)
    refused(
      await send('proposal-apply', {
        expectedGeneration: generation + 1,
        operationId: api.op('apply-again'),
        id: proposalId('apply'),
        revision: 1,
      }),
      422,
      'refused',
      'applied twice',
    )
    refused(
      await send('proposal-apply', {
        expectedGeneration: generation + 1,
        operationId: api.op('apply-none'),
        id: 987_654,
        revision: 1,
      }),
      404,
      'not_found',
      'no card',
    )
    assert.equal(await api.generation(), generation + 1)
  })

  it('proposal-reject takes the card out of the queue and writes no fact', async () => {
    const generation = await api.generation()
    const rejected = await api.ok('proposal-reject', {
      expectedGeneration: generation,
      operationId: api.op('reject'),
      id: proposalId('reject'),
      revision: 1,
    })
    assert.equal(rejected['status'], 'rejected')
    assert.equal((await card(proposalId('reject'))).status, 'rejected')
    assert.deepEqual((await api.ok('facts', { subject: 'database', status: 'all' }))['facts'], [])
    refused(
      await send('proposal-apply', {
        expectedGeneration: generation + 1,
        operationId: api.op('apply-rejected'),
        id: proposalId('reject'),
        revision: 1,
      }),
      422,
      'refused',
      'rejected card',
    )
  })

  it('proposal-revise makes a new revision that must be named to apply it', async () => {
    const generation = await api.generation()
    const revised = await api.ok('proposal-revise', {
      expectedGeneration: generation,
      operationId: api.op('revise'),
      id: proposalId('revise'),
      revision: 1,
      value: 'vue',
    })
    assert.equal(revised['revision'], 2)
    const revisedCard = await card(proposalId('revise'))
    assert.equal(revisedCard.revision, 2)
    assert.equal(revisedCard.rows[0]?.value, 'vue')

    const stale = refused(
      await send('proposal-apply', {
        expectedGeneration: generation + 1,
        operationId: api.op('apply-old'),
        id: proposalId('revise'),
        revision: 1,
      }),
      409,
      'stale',
      'old revision',
    )
    assert.equal(stale['stale'], true)
    assert.equal(stale['revision'], 2)
    refused(
      await send('proposal-revise', {
        expectedGeneration: generation + 1,
        operationId: api.op('revise-secret'),
        id: proposalId('revise'),
        revision: 2,
        value: 'ghp_abcdefghijklmnopqrstuvwxyz0123',
      }),
      422,
      'credential_refused',
      'secret revision',
    )
    refused(
      await send('proposal-revise', {
        expectedGeneration: generation + 1,
        operationId: api.op('revise-row'),
        id: proposalId('revise'),
        revision: 2,
        row: 4,
        value: 'x',
      }),
      404,
      'not_found',
      'no row',
    )
    assert.equal(await api.generation(), generation + 1)

    const applied = await api.ok('proposal-apply', {
      expectedGeneration: generation + 1,
      operationId: api.op('apply-new'),
      id: proposalId('revise'),
      revision: 2,
    })
    const factId = (applied['applied'] as { factId: number }[])[0]?.factId ?? 0
    assert.equal((await fact(factId)).value, 'vue')
  })

  it("proposal-prune refuses to strike a card's only row, and strikes one row of an aggregated card", async () => {
    const generation = await api.generation()
    const pruneId = proposalId('prune')
    refused(
      await send('proposal-prune', {
        expectedGeneration: generation,
        operationId: api.op('prune-one'),
        id: pruneId,
        revision: 1,
        row: 0,
      }),
      422,
      'refused',
      'single row',
    )
    refused(
      await send('proposal-prune', {
        expectedGeneration: generation,
        operationId: api.op('prune-far'),
        id: pruneId,
        revision: 1,
        row: 3,
      }),
      404,
      'not_found',
      'no row',
    )
    assert.equal(await api.generation(), generation)

    // No route or tool of this version aggregates rows into one card (the health check that does comes later), so
    // the card is given a second row directly in the store file, as that sweep would write it.
    const db = new DatabaseSync(join(home.dataDir, 'memory.db'))
    try {
      db.exec('PRAGMA busy_timeout = 5000')
      const stored = db.prepare('SELECT rows FROM proposals WHERE id = ?').get(pruneId) as { rows: string } | undefined
      assert.ok(stored)
      const rows = JSON.parse(stored.rows) as Record<string, unknown>[]
      db.prepare('UPDATE proposals SET rows = ? WHERE id = ?').run(
        JSON.stringify([...rows, { ...rows[0], value: 'kafka' }]),
        pruneId,
      )
    } finally {
      db.close()
    }
    assert.deepEqual(
      (await card(pruneId)).rows.map((row) => row.value),
      ['rabbitmq', 'kafka'],
    )

    const fresh = await api.generation()
    const pruned = await api.ok('proposal-prune', {
      expectedGeneration: fresh,
      operationId: api.op('prune'),
      id: pruneId,
      revision: 1,
      row: 0,
    })
    assert.equal(pruned['revision'], 2)
    const after = await card(pruneId)
    assert.equal(after.status, 'pending')
    assert.deepEqual(
      after.rows.map((row) => row.value),
      ['kafka'],
    )
    assert.equal(await api.generation(), fresh + 1)
  })

  it('undoing an applied card through fact-restore takes its fact back out and returns the card to the queue', async () => {
    const generation = await api.generation()
    const applied = await api.ok('proposal-apply', {
      expectedGeneration: generation,
      operationId: api.op('apply-spare'),
      id: proposalId('spare'),
      revision: 1,
    })
    const factId = (applied['applied'] as { factId: number }[])[0]?.factId ?? 0
    assert.equal((await fact(factId)).status, 'active')
    assert.equal((await card(proposalId('spare'))).status, 'applied')
    await api.ok('fact-restore', {
      expectedGeneration: generation + 1,
      operationId: api.op('undo-apply'),
      editId: applied['editId'],
    })
    assert.ok(
      !((await api.ok('facts', {}))['facts'] as FactView[]).some((row) => row.id === factId),
      'the applied fact is still current',
    )
    assert.equal((await card(proposalId('spare'))).status, 'pending')
    assert.equal(await api.generation(), generation + 2)
  })

  it('marks a card stale instead of applying it when the fact it was proposed against changed', async () => {
    const generation = await api.generation()
    await api.ok('fact-expire', {
      expectedGeneration: generation,
      operationId: api.op('move-target'),
      id: id('cacheTtl'),
    })
    const before = await card(proposalId('goesStale'))
    assert.equal(before.rows[0]?.stale, true)
    const answer = refused(
      await send('proposal-apply', {
        expectedGeneration: generation + 1,
        operationId: api.op('apply-stale'),
        id: proposalId('goesStale'),
        revision: 1,
      }),
      422,
      'refused',
      'all rows stale',
    )
    assert.deepEqual(answer['skippedStale'], [0])
    assert.equal((await card(proposalId('goesStale'))).status, 'stale')
    assert.deepEqual((await api.ok('facts', { subject: 'session cache' }))['facts'], [], 'nothing landed')
  })

  it('memory_write answers a change proposed again by what became of its card: rejected, applied or stale', async () => {
    const again = (role: string): Record<string, unknown> => {
      const entry = SEED_PROPOSALS.find((seed) => seed.role === role)
      assert.ok(entry !== undefined)
      return entry.args
    }
    await converse(host.url, model, home.workspace, 'note those again', {
      toolCalls: ['reject', 'apply', 'goesStale'].map((role) => writeCall(again(role))),
    })
    const [rejected, applied, stale] = (model.agentRequests().at(-1)?.body.messages ?? [])
      .filter((message) => message.role === 'tool')
      .map((message) => String(message.content))
    assert.match(
      rejected ?? '',
      new RegExp(
        `^outcome: refused\nthe user rejected this change on \\d{4}-\\d{2}-\\d{2} \\(proposal #${proposalId('reject')}\\)`,
        'u',
      ),
    )
    const language = ((await api.ok('facts', { subject: 'api server' }))['facts'] as FactView[]).find(
      (row) => row.property === 'language',
    )
    assert.ok(language !== undefined)
    assert.match(
      applied ?? '',
      new RegExp(`^outcome: ok\nAlready known as #${language.id}: api server · language = Go`, 'u'),
    )
    const fresh = /^outcome: pending\nQueued as proposal #(\d+): /u.exec(stale ?? '')
    assert.ok(fresh !== null, stale)
    assert.doesNotMatch(stale ?? '', /already queued/u)
    assert.notEqual(Number(fresh[1]), proposalId('goesStale'))
    assert.equal((await card(Number(fresh[1]))).status, 'pending')
    assert.equal((await card(proposalId('goesStale'))).status, 'stale')
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe('audit', () => {
  it('runs the health check on force without moving the generation when it queues nothing, and reads its ledger', async () => {
    const generation = await api.generation()
    const before = Number((await api.ok('audit', {}))['total'])
    const forced = await api.ok('audit', { force: true })
    assert.equal(forced['ran'], true)
    assert.deepEqual(
      (forced['run'] as { cards: unknown[] }).cards,
      [],
      'the seeded library holds nothing the health check finds',
    )
    assert.equal(forced['message'], 'the library looks clean')
    assert.equal(await api.generation(), generation, 'a run that queued nothing moved the generation')
    const summary = await api.ok('audit', { summary: true, limit: 1 })
    assert.equal(summary['total'], before + 1)
    assert.deepEqual(
      (summary['runs'] as { id: number }[]).map((run) => run.id),
      [(forced['run'] as { id: number }).id],
    )
    assert.equal(summary['autoAudit'], true)
    refused(await send('audit', { force: true, summary: true }), 400, 'invalid_arguments', 'force and summary')
    refused(await send('audit', { force: 'yes' }), 400, 'invalid_arguments', 'force as text')
  })
})

describe('key', () => {
  const SECRET = 'emb-key-7c1f0e9a4b2d4e61a0f3'
  const credentialsFile = (): string => readFileSync(join(home.home, '.credentials.yaml'), 'utf8')

  it('stores the key in the host credential store and never echoes it', async () => {
    const response = await api.post('key', { ref: 'embedding', value: `  ${SECRET}  ` })
    assert.equal(response.status, 200, response.text)
    assert.ok(!response.text.includes(SECRET), 'the answer echoes the key')
    assert.deepEqual(response.json, {
      ok: true,
      ref: 'embedding',
      name: 'FACT_MEMORY_EMBEDDING_KEY',
      configured: true,
      source: 'file',
      writable: true,
    })
    assert.match(
      credentialsFile(),
      new RegExp(`FACT_MEMORY_EMBEDDING_KEY: ['"]?${SECRET}['"]?\\n`, 'u'),
      'written, trimmed',
    )

    const described = await hostApi<{
      credentials: Record<string, { configured: boolean; source?: string; writable: boolean }>
    }>(host.url, 'credentials.describe', { refs: ['FACT_MEMORY_EMBEDDING_KEY', 'FACT_MEMORY_LLM_KEY'] })
    assert.deepEqual(described.credentials['FACT_MEMORY_EMBEDDING_KEY'], {
      configured: true,
      source: 'file',
      writable: true,
    })
    assert.equal(described.credentials['FACT_MEMORY_LLM_KEY']?.configured, false)

    const status = await api.post('status', {})
    assert.ok(!status.text.includes(SECRET))
    assert.ok(!host.output().includes(SECRET), 'the host log shows the key')
  })

  it('replaces a stored key with a new value, and refuses bad input without touching it', async () => {
    const next = `${SECRET}-rotated`
    await api.ok('key', { ref: 'embedding', value: next })
    assert.ok(credentialsFile().includes(next))
    for (const body of [
      { ref: 'embedding', value: '' },
      { ref: 'embedding', value: 'bad\u0000key' },
      { ref: 'embedding', value: 'x'.repeat(8193) },
      { ref: 'vectors', value: 'other-key-1234' },
      { ref: 'embedding', value: 'other-key-1234', name: 'PATH' },
    ]) {
      const answer = refused(await send('key', body), 400, 'invalid_arguments', JSON.stringify(body).slice(0, 80))
      assert.ok(!JSON.stringify(answer).includes('other-key-1234'))
    }
    assert.ok(credentialsFile().includes(next))
    assert.ok(!credentialsFile().includes('other-key-1234'))
  })

  it('refuses with a 4xx, not a 5xx, a key whose name the host environment already supplies', async () => {
    // The host inherits FACT_MEMORY_RERANK_KEY (the default rerank key name), a read-only source the store cannot shadow.
    const response = await send('key', { ref: 'rerank', value: 'shadowed-key-5d2a' })
    assert.ok(response.status >= 400 && response.status < 500, `${response.status} ${response.text}`)
    assert.equal(response.json?.['ok'], false)
    assert.ok(ERROR_CODES.includes((response.json?.['error'] as { code: ErrorCode }).code))
    assert.ok(!response.text.includes('shadowed-key-5d2a'))
    assert.ok(!credentialsFile().includes('shadowed-key-5d2a'))
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe('wipe', () => {
  it('asks for confirmation first: a token bound to the generation, and nothing removed', async () => {
    const generation = await api.generation()
    const before = (await allFacts()).length
    const asked = refused(
      await send('wipe', { expectedGeneration: generation, operationId: api.op('wipe-ask') }),
      409,
      'confirm_required',
    )
    assert.equal(typeof asked['confirmToken'], 'string')
    assert.match(String(asked['expiresAt']), /^\d{4}-\d{2}-\d{2}T/u)
    assert.equal(asked['backupBeforeWipe'], true)
    assert.ok(asked['counts'] !== undefined)
    assert.equal(await api.generation(), generation)
    assert.equal((await allFacts()).length, before)

    refused(
      await send('wipe', {
        expectedGeneration: generation,
        operationId: api.op('wipe-forged'),
        confirmToken: 'forged-token-value',
      }),
      409,
      'confirm_required',
    )
    const stale = refused(
      await send('wipe', { expectedGeneration: generation - 1, operationId: api.op('wipe-stale') }),
      409,
      'stale',
    )
    assert.equal(stale['generation'], generation)
    assert.equal((await allFacts()).length, before)
  })

  it('refuses a confirmation token once the store has moved past the generation it was issued for', async () => {
    const generation = await api.generation()
    const asked = refused(
      await send('wipe', { expectedGeneration: generation, operationId: api.op('wipe-ask') }),
      409,
      'confirm_required',
    )
    await api.ok('rebuild', { expectedGeneration: generation, operationId: api.op('move-on') })
    refused(
      await send('wipe', {
        expectedGeneration: generation + 1,
        operationId: api.op('wipe-moved'),
        confirmToken: String(asked['confirmToken']),
      }),
      409,
      'confirm_required',
    )
    assert.ok((await allFacts()).length > 0)
  })

  it('clears everything on the second step after writing a backup, and a repeated click is a replay', async () => {
    const generation = await api.generation()
    const facts = (await allFacts()).length
    const asked = refused(
      await send('wipe', { expectedGeneration: generation, operationId: api.op('wipe-ask') }),
      409,
      'confirm_required',
    )
    const body = {
      expectedGeneration: generation,
      operationId: api.op('wipe'),
      confirmToken: String(asked['confirmToken']),
    }
    const wiped = await api.ok('wipe', body)
    assert.equal(wiped['replayed'], false)
    assert.equal((wiped['removed'] as { facts: number }).facts, facts)
    const backup = wiped['backup'] as { path: string; relativePath: string; at: string }
    assert.ok(backup.path.startsWith(join(home.dataDir, 'backups')), backup.path)
    assert.ok(existsSync(backup.path))
    assert.equal(wiped['generation'], generation + 1)
    assert.deepEqual(await allFacts(), [])
    assert.deepEqual((await api.ok('proposals', { status: 'all' }))['proposals'], [])
    assert.equal((await api.ok('status', { summary: true }))['badge'], 0)
    assert.deepEqual((await api.ok('status', {}))['lastBackup'], { at: backup.at, path: backup.path })

    const again = await api.ok('wipe', body)
    assert.equal(again['replayed'], true)
    assert.deepEqual(again['backup'], wiped['backup'])
    assert.equal(await api.generation(), generation + 1)
  })

  it('answers a double click on the confirmation with one wipe and one replay', async () => {
    await converse(host.url, model, home.workspace, 'one more', {
      toolCalls: [writeCall({ subject: 'kettle', property: 'colour', value: 'red' })],
    })
    const generation = await api.generation()
    const asked = refused(
      await send('wipe', { expectedGeneration: generation, operationId: api.op('wipe-ask') }),
      409,
      'confirm_required',
    )
    const body = {
      expectedGeneration: generation,
      operationId: api.op('wipe-double'),
      confirmToken: String(asked['confirmToken']),
    }
    const [first, second] = await Promise.all([send('wipe', body), send('wipe', body)])
    assert.ok(first && second)
    assert.deepEqual([first.status, second.status], [200, 200], `${first.text}\n${second.text}`)
    assert.deepEqual([first.json?.['replayed'], second.json?.['replayed']].sort(), [false, true])
    assert.equal(await api.generation(), generation + 1)
    assert.deepEqual(await allFacts(), [])
  })
})

// ---------------------------------------------------------------------------------------------------------------

const EXCHANGE = Object.hasOwn(VERBS, 'export') && Object.hasOwn(VERBS, 'import')

/** Current, observed facts only: what an export → wipe → import round trip can restore exactly. */
const EXCHANGE_FACTS: readonly Record<string, unknown>[] = [
  { subject: 'kettle', property: 'colour', value: 'red', evidence: 'observed' },
  {
    subject: 'greenhouse',
    property: 'humidity target',
    value: '65 %',
    evidence: 'observed',
    qualifiers: { season: 'summer', zone: 'north' },
  },
  {
    subject: 'tram line 4',
    property: 'terminus',
    value: 'Gare du Nord',
    evidence: 'observed',
    quote: 'the 4 ends at Gare du Nord',
  },
  { subject: 'bicycle', property: 'tyre pressure', value: '4.5 bar', evidence: 'observed' },
  { subject: '灯塔', property: '颜色', value: '白色', evidence: 'observed' },
]

interface ExportAnswer {
  readonly path: string
  readonly relativePath: string
  readonly records: number
  readonly recordsSha256: string
}

/** The record lines of an export file (manifest excluded), checking its framing on the way. */
function exportLines(path: string): { manifest: Record<string, unknown>; records: string[] } {
  const bytes = readFileSync(path)
  assert.notDeepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'no BOM')
  const text = bytes.toString('utf8')
  assert.ok(!text.includes('\r'), 'LF endings only')
  assert.ok(text.endsWith('\n'), 'the last line ends with LF')
  const [first, ...records] = text.slice(0, -1).split('\n')
  return { manifest: JSON.parse(first ?? '') as Record<string, unknown>, records }
}

/** Both steps of Clear everything. */
async function wipeAll(): Promise<void> {
  const generation = await api.generation()
  const asked = refused(
    await send('wipe', { expectedGeneration: generation, operationId: api.op('wipe-ask') }),
    409,
    'confirm_required',
  )
  await api.ok('wipe', {
    expectedGeneration: generation,
    operationId: api.op('wipe'),
    confirmToken: String(asked['confirmToken']),
  })
}

describe('exchange: export and import', {
  skip: EXCHANGE ? false : 'export and import are not registered in VERBS',
}, () => {
  let exported: ExportAnswer | undefined

  it('exports every fact as JSONL: a manifest line, one record per fact, LF, no BOM, records_sha256 over the record lines', async () => {
    await wipeAll()
    await converse(host.url, model, home.workspace, 'note these down', { toolCalls: EXCHANGE_FACTS.map(writeCall) })
    assert.equal((await allFacts()).length, EXCHANGE_FACTS.length)
    const generation = await api.generation()
    const answer = (await api.ok('export', {})) as unknown as ExportAnswer & Record<string, unknown>
    assert.ok(answer.path.startsWith(join(home.dataDir, 'exports')), answer.path)
    assert.match(answer.relativePath, /^exports\/facts-[^/]+\.jsonl$/u)
    const { manifest, records } = exportLines(answer.path)
    assert.equal(manifest['format'], 'dsh-fact-memory.facts')
    assert.equal(manifest['records'], EXCHANGE_FACTS.length)
    assert.equal(records.length, EXCHANGE_FACTS.length)
    const digest = createHash('sha256')
      .update(records.map((line) => `${line}\n`).join(''), 'utf8')
      .digest('hex')
    assert.equal(manifest['records_sha256'], digest)
    assert.equal(answer.recordsSha256, digest)
    assert.equal(answer.records, EXCHANGE_FACTS.length)
    assert.ok(
      records.some((line) => line.includes('白色')),
      'non-ASCII text stays UTF-8',
    )
    assert.equal(await api.generation(), generation, 'an export changes nothing in the store')
    exported = answer
  })

  it('restores the same facts after Clear everything: export, wipe and import give an equal re-export', async () => {
    assert.ok(exported, 'the export test ran first')
    const before = await allFacts()
    await wipeAll()
    assert.deepEqual(await allFacts(), [])

    const generation = await api.generation()
    const preview = await api.ok('import', { mode: 'preview', path: exported.relativePath })
    assert.deepEqual(preview['counts'], {
      new: EXCHANGE_FACTS.length,
      duplicate: 0,
      repeated: 0,
      conflict: 0,
      tombstoned: 0,
      invalid: 0,
    })
    assert.equal(preview['untouched'], true)
    assert.equal(await api.generation(), generation, 'a preview writes nothing')
    const commit = await api.ok('import', {
      mode: 'commit',
      path: exported.relativePath,
      token: String(preview['token']),
      expectedGeneration: generation,
      operationId: api.op('import'),
    })
    assert.equal((commit['counts'] as { new: number }).new, EXCHANGE_FACTS.length)
    assert.equal(commit['generation'], generation + 1)

    const restored = await allFacts()
    assert.deepEqual(
      restored.map((row) => `${row.subject} · ${row.property} = ${row.value} (${row.status}, ${row.evidence})`).sort(),
      before.map((row) => `${row.subject} · ${row.property} = ${row.value} (${row.status}, ${row.evidence})`).sort(),
    )
    const again = (await api.ok('export', {})) as unknown as ExportAnswer
    const firstLines = exportLines(exported.path).records
    const secondLines = exportLines(again.path).records
    const changed = secondLines.filter((line) => !firstLines.includes(line))
    assert.equal(
      again.recordsSha256,
      exported.recordsSha256,
      `the re-export differs; first record before/after:\n${firstLines.find((line) => !secondLines.includes(line)) ?? ''}\n${changed[0] ?? ''}`,
    )
  })

  it('refuses to bring a forgotten claim back through an import', async () => {
    assert.ok(exported, 'the export test ran first')
    const kettle = (await allFacts()).find((row) => row.subject === 'kettle')
    assert.ok(kettle)
    await converse(host.url, model, home.workspace, 'forget the kettle colour', {
      toolCalls: [{ name: 'memory_forget', arguments: { fact_id: kettle.id } }],
    })
    refused(await send('fact', { id: kettle.id }), 404, 'not_found', 'forgotten')

    const generation = await api.generation()
    const preview = await api.ok('import', { mode: 'preview', path: exported.relativePath })
    const counts = preview['counts'] as Record<string, number>
    assert.equal(counts['tombstoned'], 1, JSON.stringify(preview['records']))
    const row = (preview['records'] as { subject: string; class: string }[]).find((entry) => entry.subject === 'kettle')
    assert.equal(row?.class, 'tombstoned')
    const commit = await api.ok('import', {
      mode: 'commit',
      path: exported.relativePath,
      token: String(preview['token']),
      expectedGeneration: generation,
      operationId: api.op('import-tomb'),
    })
    assert.equal((commit['counts'] as Record<string, number>)['tombstoned'], 1)
    assert.equal((commit['counts'] as Record<string, number>)['new'], 0)
    assert.ok(!(await allFacts()).some((entry) => entry.subject === 'kettle'), 'the forgotten claim came back')

    const inline = `${JSON.stringify({ subject: 'kettle', property: 'colour', value: 'red' })}\n`
    const inlinePreview = await api.ok('import', { mode: 'preview', content: inline })
    assert.deepEqual(inlinePreview['counts'], {
      new: 0,
      duplicate: 0,
      repeated: 0,
      conflict: 0,
      tombstoned: 1,
      invalid: 0,
    })
  })

  it('refuses import paths that leave the data directory, and names that do not exist', async () => {
    const generation = await api.generation()
    const outside = join(home.home, 'outside.jsonl')
    writeFileSync(outside, `${JSON.stringify({ subject: 'outside', property: 'secret', value: 'leaked' })}\n`)
    symlinkSync(outside, join(home.dataDir, 'exports', 'link-out.jsonl'))
    for (const path of [
      '../outside.jsonl',
      '../../etc/passwd',
      'exports/../../outside.jsonl',
      '..',
      outside,
      '/etc/passwd',
      '//server/share/facts.jsonl',
      '\\\\server\\share\\facts.jsonl',
      'C:/Windows/win.ini',
      'exports/link-out.jsonl',
      'exports\\..\\..\\outside.jsonl',
    ]) {
      const answer = refused(await send('import', { mode: 'preview', path }), 422, 'invalid_path', path)
      assert.ok(!JSON.stringify(answer).includes('leaked'))
    }
    refused(await send('import', { mode: 'preview', path: 'exports/missing.jsonl' }), 404, 'not_found', 'missing')
    refused(await send('import', { mode: 'preview', path: 'exports/\u0000x.jsonl' }), 400, 'invalid_arguments', 'NUL')
    refused(await send('import', { mode: 'preview', path: 'a', content: 'b' }), 400, 'invalid_arguments', 'both')
    refused(
      await send('import', {
        mode: 'commit',
        path: '../outside.jsonl',
        token: 'x'.repeat(43),
        expectedGeneration: generation,
        operationId: api.op('import-out'),
      }),
      422,
      'invalid_path',
      'commit outside',
    )
    assert.equal(await api.generation(), generation)
    assert.ok(!(await allFacts()).some((entry) => entry.subject === 'outside'))
  })

  it('refuses to commit an import whose preview no longer matches the store or the file', async () => {
    assert.ok(exported, 'the export test ran first')
    const preview = await api.ok('import', { mode: 'preview', path: exported.relativePath })
    await api.ok('rebuild', { expectedGeneration: await api.generation(), operationId: api.op('move-on') })
    const generation = await api.generation()
    const stale = refused(
      await send('import', {
        mode: 'commit',
        path: exported.relativePath,
        token: String(preview['token']),
        expectedGeneration: generation,
        operationId: api.op('import-stale'),
      }),
      409,
      'stale',
      'moved store',
    )
    assert.equal(stale['stale'], true)
    const fresh = await api.ok('import', { mode: 'preview', path: exported.relativePath })
    refused(
      await send('import', {
        mode: 'commit',
        content: `${JSON.stringify({ subject: 'other', property: 'file', value: 'entirely' })}\n`,
        token: String(fresh['token']),
        expectedGeneration: generation,
        operationId: api.op('import-other-file'),
      }),
      409,
      'stale',
      'another file',
    )
    refused(
      await send('import', {
        mode: 'commit',
        path: exported.relativePath,
        expectedGeneration: generation,
        operationId: api.op('import-no-token'),
      }),
      400,
      'invalid_arguments',
      'no token',
    )
    assert.equal(await api.generation(), generation)
  })
})
