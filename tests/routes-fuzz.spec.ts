/**
 * Random bodies against every verb of the specification on a real DSH web host: random JSON values, objects with
 * random keys, known keys with wrong-typed or huge values, NaN-like strings, prototype keys, deep nesting, malformed
 * JSON, invalid UTF-8 and empty bodies. No body is valid for any verb, so every answer is a 4xx in JSON with `ok: false`
 * and a closed error code, never a 5xx, and the store generation ends where it started.
 *
 * Reproduce a run with FUZZ_SEED=<seed> (printed in every failure); FUZZ_PER_VERB sets the bodies per verb.
 */
import assert from 'node:assert/strict'
import { existsSync, readdirSync } from 'node:fs'
import { Agent } from 'node:http'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { ERROR_CODES, type ErrorCode } from '../src/errors.ts'
import { SPEC_VERBS, verbNamed } from '../src/management/verbs.ts'
import { createDshHome, startWebHost, type DshHome, type WebHost } from './helpers/dsh-host.ts'
import { FakeModel } from './helpers/fake-model.ts'
import { converse, FactMemoryApi, PREFIX, rawRequest, writeCall, type VerbResponse } from './helpers/fact-memory-web.ts'
import { fuzzBody, Rng, type FuzzBody, type FuzzContext } from './helpers/fuzz-bodies.ts'

const SEED = Number.parseInt(process.env['FUZZ_SEED'] ?? '', 10) || (Date.now() ^ (process.pid << 8)) >>> 0
const PER_VERB = Math.max(100, Number.parseInt(process.env['FUZZ_PER_VERB'] ?? '', 10) || 110)
const TAG = `seed ${SEED} (rerun with FUZZ_SEED=${SEED})`

let model: FakeModel
let home: DshHome
let host: WebHost
let api: FactMemoryApi
const agent = new Agent({ keepAlive: true, maxSockets: 1 })
let context: FuzzContext
let startGeneration = -1
let startStatus: Record<string, unknown> | undefined
let sent = 0
const tally = new Map<string, number>()

before(async () => {
  model = await FakeModel.start()
  home = createDshHome()
  host = await startWebHost(home, model.url)
  api = new FactMemoryApi(host.url)
  await converse(host.url, model, home.workspace, 'remember that deploys go out on Tuesdays', {
    toolCalls: [
      writeCall({
        subject: 'deploys',
        property: 'release day',
        value: 'Tuesday',
        evidence: 'explicit_user',
        quote: 'deploys go out on Tuesdays',
      }),
      writeCall({ subject: 'api server', property: 'port', value: '7801', evidence: 'observed' }),
      writeCall({ subject: 'api server', property: 'port', value: '7802', evidence: 'unverified' }),
      writeCall({ subject: 'kettle', property: 'colour', value: 'red' }),
      writeCall({ subject: 'api server', property: 'language', value: 'Go', evidence: 'inferred' }),
      writeCall({ subject: 'database', property: 'engine', value: 'postgres', confidence: 0.3 }),
    ],
  })
  const facts = (await api.ok('facts', { status: 'all' }))['facts'] as { id: number }[]
  const proposals = (await api.ok('proposals', { status: 'all' }))['proposals'] as { id: number }[]
  if (facts.length < 4 || proposals.length < 2)
    throw new Error(`seeding failed: ${facts.length} facts, ${proposals.length} proposals`)
  startGeneration = await api.generation()
  startStatus = await api.ok('status', {})
  context = {
    generation: startGeneration,
    factIds: facts.map((row) => row.id),
    proposalIds: proposals.map((row) => row.id),
  }
  console.log(`# routes fuzz: ${TAG}, ${PER_VERB} bodies per verb`)
})

after(async () => {
  agent.destroy()
  await host?.stop()
  await model?.close()
  home?.remove()
})

/** Send one body; a transport error is a failure too (the server must answer). */
async function post(verb: string, body: FuzzBody, rng: Rng): Promise<VerbResponse> {
  const contentType = rng.pick(['application/json', 'application/json; charset=utf-8', 'Application/JSON'])
  try {
    return await rawRequest(host.url, {
      path: `${PREFIX}/${verb}`,
      headers: { 'content-type': contentType },
      body: body.bytes,
      agent,
    })
  } catch (error) {
    assert.fail(`${TAG}: ${verb} ${describeBody(body)} got no answer: ${String(error)}`)
  }
}

function describeBody(body: FuzzBody): string {
  const preview = body.bytes.subarray(0, 300).toString('utf8')
  return `[${body.kind}, ${body.bytes.byteLength} bytes] ${JSON.stringify(preview)}${body.bytes.byteLength > 300 ? '…' : ''}`
}

/** Whether the verb's own schema would accept the body (a generator bug, checked before sending): none may. */
function acceptedLocally(verb: string, body: FuzzBody): boolean {
  const definition = verbNamed(verb)
  if (definition === undefined) return false
  let value: unknown
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body.bytes))
  } catch {
    return false
  }
  return definition.schema.safeParse(value).success
}

/** Check one answer against the rules every answer must follow. */
function check(verb: string, body: FuzzBody, response: VerbResponse): void {
  const where = `${TAG}: ${verb} ${describeBody(body)} → ${response.status} ${response.text.slice(0, 300)}`
  assert.ok(response.status < 500, `a 5xx: ${where}`)
  assert.match(String(response.headers['content-type']), /^application\/json/u, where)
  assert.ok(response.json !== undefined, `not a JSON object: ${where}`)
  const okField = response.json['ok']
  assert.equal(typeof okField, 'boolean', `no ok: ${where}`)
  if (okField === false) {
    const error = response.json['error'] as { code?: unknown; message?: unknown } | undefined
    assert.ok(ERROR_CODES.includes(error?.code as ErrorCode), `error.code outside the closed set: ${where}`)
    assert.equal(typeof error?.message, 'string', where)
    assert.ok(response.status >= 400, `a refusal with a success status: ${where}`)
  } else {
    assert.fail(`a body meant to be invalid was accepted: ${where}`)
  }
}

describe(`random bodies against every verb of the specification (${TAG})`, () => {
  SPEC_VERBS.forEach((verb, index) => {
    it(`${verb}: answers ${PER_VERB} random bodies with a 4xx, always JSON with a closed code, never a 5xx`, async () => {
      const rng = new Rng((SEED + Math.imul(index + 1, 0x9e3779b1)) >>> 0)
      for (let n = 0; n < PER_VERB; n += 1) {
        const body = fuzzBody(rng, verb, context)
        assert.ok(
          !acceptedLocally(verb, body),
          `${TAG}: the generator made a body the ${verb} schema accepts: ${describeBody(body)}`,
        )
        const response = await post(verb, body, rng)
        check(verb, body, response)
        sent += 1
        const key = `${response.status} ${response.json?.['ok'] === false ? (response.json['error'] as { code: string }).code : 'ok'}`
        tally.set(key, (tally.get(key) ?? 0) + 1)
      }
    })
  })

  it('refuses an empty body on every verb with a 400 that says a JSON object is wanted', async () => {
    for (const verb of SPEC_VERBS) {
      const response = await rawRequest(host.url, {
        path: `${PREFIX}/${verb}`,
        headers: { 'content-type': 'application/json' },
        body: Buffer.alloc(0),
        agent,
      })
      const where = `${verb} → ${response.status} ${response.text.slice(0, 300)}`
      assert.equal(response.status, 400, where)
      const error = response.json?.['error'] as { code?: unknown; message?: unknown } | undefined
      assert.equal(error?.code, 'invalid_arguments', where)
      assert.match(String(error?.message), /^the body is empty: send a JSON object/u, where)
    }
  })

  it('sent over 3,000 bodies and left the store exactly as it found it', async () => {
    console.log(`# routes fuzz: ${sent} bodies, answers ${JSON.stringify(Object.fromEntries([...tally].sort()))}`)
    assert.ok(sent >= 3000, `${TAG}: only ${sent} bodies were sent`)
    assert.equal(sent, SPEC_VERBS.length * PER_VERB)
    assert.equal(await api.generation(), startGeneration, `${TAG}: the store generation moved`)
    const status = await api.ok('status', {})
    assert.deepEqual(status['counts'], startStatus?.['counts'], `${TAG}: the counts moved`)
    assert.equal(status['reviewSeenAt'], startStatus?.['reviewSeenAt'], `${TAG}: review-seen ran`)
    assert.equal(existsSync(join(home.home, '.credentials.yaml')), false, `${TAG}: the key verb stored a credential`)
    const exports = join(home.dataDir, 'exports')
    assert.deepEqual(existsSync(exports) ? readdirSync(exports) : [], [], `${TAG}: an export was written`)
  })
})
