/**
 * Every verb's answer against its answer schema in the verb contract, over real HTTP: one DSH rc.8 web host with the
 * plugin, a store seeded through a conversation (facts, a conflict, proposals, personal data, history),
 * then every verb of the router called with a realistic body, each answer parsed strictly by the contract, so an
 * answer that drifts from the schema the page is typed against fails here. Verbs this host cannot run (no reranker,
 * no embedding endpoint) have their refusal checked instead, and are named.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { VERB_CONTRACTS, type VerbName } from '../src/management/verb-contract.ts'
import { VERBS } from '../src/management/verbs.ts'
import { converse, writeCall } from './helpers/fact-memory-web.ts'
import { startApiHost, type ApiHost } from './helpers/page-host.ts'

/**
 * Verbs this host cannot answer, with what they are asked and the code their refusal carries: no reranker, no
 * embedding endpoint, and no parked extraction range (a range parks only when an extraction model fails).
 */
const REFUSED_HERE: Readonly<Partial<Record<VerbName, { readonly body: object; readonly code: string }>>> = {
  calibrate: { body: {}, code: 'unavailable' },
  'index-vectors': { body: {}, code: 'unavailable' },
  'extract-retry': { body: { id: 1 }, code: 'not_found' },
  // Sync is off in this host (no syncTarget); the host sync specs read its answers.
  'sync-now': { body: {}, code: 'unavailable' },
  // The root folder is in no git repository; tests/host-team-memory.spec.ts reads its answers.
  'team-memory': { body: { folder: '/', shared: true }, code: 'invalid_path' },
}

/** One answer the spec read: the verb, what it was asked, and the answer's fields (without `ok`). */
interface Read {
  readonly verb: VerbName
  readonly body: unknown
  readonly data: Record<string, unknown>
}

let env: ApiHost
const reads: Read[] = []

/** Call a verb and keep its answer for the schema check; throws on a refusal. */
async function call(verb: VerbName, body: unknown = {}): Promise<Record<string, unknown>> {
  const { ok: _ok, ...data } = await env.api.ok(verb, body)
  reads.push({ verb, body, data })
  return data
}

/** A fenced edit's body. */
const fence = (extra: Record<string, unknown>): Promise<Record<string, unknown>> => env.api.fence(extra)

/** The id of the current fact of a subject and property. */
async function factId(subject: string, property: string, value?: string): Promise<number> {
  const { facts } = (await env.api.ok('facts', { subject, status: 'all' })) as {
    facts: { id: number; property: string; value: string; status: string }[]
  }
  const fact = facts.find((row) => row.property === property && (value === undefined || row.value === value))
  if (fact === undefined) throw new Error(`no fact ${subject} · ${property}`)
  return fact.id
}

before(async () => {
  env = await startApiHost()
  const writes = [
    {
      subject: 'billing-api',
      property: 'port',
      value: '7801',
      evidence: 'explicit_user',
      quote: 'billing-api runs on port 7801',
    },
    { subject: 'billing-api', property: 'owner', value: 'team payments', evidence: 'observed' },
    { subject: 'api server', property: 'port', value: '8080', evidence: 'observed' },
    { subject: 'api server', property: 'port', value: '8081', evidence: 'unverified' },
    {
      subject: 'deploys',
      property: 'release day',
      value: 'Tuesday',
      evidence: 'explicit_user',
      cues: ['when do we ship'],
    },
    { subject: 'deploys', property: 'release day', value: 'Wednesday', evidence: 'explicit_user' },
    { subject: 'alice', property: 'email', value: 'alice@example.com', evidence: 'explicit_user' },
    { subject: 'nightly build', property: 'status', value: 'green', evidence: 'observed' },
    { subject: 'frontend', property: 'framework', value: 'react', evidence: 'inferred' },
    { subject: 'message queue', property: 'broker', value: 'rabbitmq', evidence: 'inferred' },
    { subject: 'logging', property: 'level', value: 'debug', confidence: 0.2 },
    { subject: 'database', property: 'engine', value: 'postgres', confidence: 0.3 },
    // What the health check turns into review cards: facts that only restate their property (retire), a dated
    // pipeline (fold) and a subject split in two (alias).
    ...[0, 1, 2].map((n) => ({
      subject: `job-${n}`,
      property: 'error message',
      value: 'failed with an error message',
      evidence: 'observed',
    })),
    ...['2026-02-08', '2026-02-09', '2026-02-10'].map((day) => ({
      subject: 'nightly backup',
      property: `${day} result`,
      value: 'ok',
      evidence: 'observed',
    })),
    { subject: 'billing', property: 'port', value: '7801', evidence: 'observed' },
  ]
  await converse(env.host.url, env.model, env.home.workspace, 'remember these', { toolCalls: writes.map(writeCall) })
})

after(async () => {
  await env?.stop()
})

describe('every verb answers in the shape of its contract', () => {
  it('runs every verb of the router on a seeded store', async () => {
    await call('status', {})
    await call('status', { summary: true })
    await call('status', { force: true })
    const facts = await call('facts', {})
    await call('facts', { text: 'port', status: 'all' })
    const session = String(
      (facts['facts'] as { sessionId: string | null }[]).find((row) => row.sessionId !== null)?.sessionId,
    )
    await call('sessions', {})
    await call('sessions', { sessionIds: [session] })
    await call('session-pause', { sessionId: session, paused: true })
    await call('session-pause', { sessionId: session, paused: false })
    await call('activity', {})
    await call('review-seen', {})
    const port = await factId('billing-api', 'port')
    await call('fact', { id: port })
    await call('fact', { id: await factId('alice', 'email') })
    await call('entity', { subject: 'billing-api' })
    await call('subject-find', { name: 'billing-api' })
    await call('subject-find', { name: 'no such subject' })
    const conflicts = await call('conflicts', {})
    await call('search', { query: 'which port does billing-api use' })
    await call('graph', {})
    await call('graph', { view: 'tree', center: 'billing-api' })
    const audit = await call('audit', { force: true })
    await call('audit', { summary: true, limit: 2 })
    const reviewCards = await call('proposals', {})
    const auditCard = (kind: string): { id: number; revision: number } => {
      const ids = (audit['run'] as { cards: { id: number; kind: string }[] }).cards
        .filter((entry) => entry.kind === kind)
        .map((entry) => entry.id)
      const found = (reviewCards['proposals'] as { id: number; revision: number }[]).find((entry) =>
        ids.includes(entry.id),
      )
      if (found === undefined) throw new Error(`the health check queued no ${kind} card`)
      return found
    }
    const retire = auditCard('retire')
    await call('proposal-prune', await fence({ id: retire.id, revision: retire.revision, row: 1 }))
    await call('proposal-apply', await fence({ id: retire.id, revision: retire.revision + 1 }))
    const fold = auditCard('fold')
    await call('proposal-apply', await fence({ id: fold.id, revision: fold.revision }))

    const updated = await call('fact-update', await fence({ id: port, value: '7802' }))
    await call(
      'fact-update',
      await fence({ id: Number((updated['fact'] as { id: number }).id), cues: ['billing port'] }),
    )
    const owner = await factId('billing-api', 'owner')
    const expired = await call('fact-expire', await fence({ id: owner }))
    await call('fact-restore', await fence({ editId: expired['editId'] }))
    await call('fact-move', await fence({ id: owner, scope: 'work' }))
    const pinned = await call('fact-pin', await fence({ id: owner, pinned: true }))
    const pinOperation = String(pinned['operationId'])
    await call('fact-pin', await fence({ id: owner, undoes: pinOperation }))
    await call('fact-put-back', await fence({ id: await factId('billing-api', 'port', '7801') }))
    const group = (conflicts['groups'] as { id: number; rows: { id: number }[] }[])[0]
    assert.ok(group !== undefined, 'the seed opened a conflict group')
    await call('resolve', await fence({ groupId: group.id, keepFactId: group.rows[0]?.id }))
    await call('subject-rename', await fence({ entityKey: 'nightly build', to: 'nightly pipeline', dryRun: true }))
    await call('subject-rename', await fence({ entityKey: 'nightly build', to: 'nightly pipeline' }))
    await call('property-rename', await fence({ entityKey: 'nightly pipeline', property: 'status', to: 'state' }))
    const entity = await call('entity', { subject: 'nightly pipeline' })
    const alias = (entity['aliases'] as { id: number }[])[0]
    assert.ok(alias !== undefined, 'the rename left an alias')
    await call('alias-remove', await fence({ id: alias.id }))
    await call('fact-add', await fence({ subject: 'ci runner', property: 'os', value: 'ubuntu 24.04' }))
    await call('fact-add', await fence({ subject: 'ci runner', property: 'os', value: 'ubuntu 24.04' }))
    await call('fact-forget', await fence({ id: await factId('ci runner', 'os') }))
    await call('fact-forget', await fence({ entityKey: 'nightly pipeline' }))

    const cards = await call('proposals', { status: 'pending', since: '2020-01-01T00:00:00Z' })
    const card = (name: string): { id: number; revision: number } => {
      const found = (
        cards['proposals'] as { id: number; revision: number; kind: string; rows: { subject?: string }[] }[]
      ).find((entry) => entry.kind === 'add_fact' && entry.rows[0]?.subject === name)
      if (found === undefined) throw new Error(`no card for ${name}`)
      return found
    }
    const revised = await call(
      'proposal-revise',
      await fence({ id: card('frontend').id, revision: card('frontend').revision, value: 'lit' }),
    )
    await call('proposal-apply', await fence({ id: card('frontend').id, revision: Number(revised['revision']) }))
    await call('proposal-reject', await fence({ id: card('database').id, revision: card('database').revision }))
    await call('proposals', { status: 'all' })

    await call('consolidate', { summary: true })
    await call('consolidate', { force: true })
    const extracted = await call('extract', { text: 'the billing-api runs on port 7801', dryRun: true })
    await call('extract-run', { id: extracted['runId'] })
    await call('queue', {})
    await call('key', { ref: 'embedding', value: 'sk-contract-spec-0000' })
    await call('export', {})
    await call('export', { format: 'markdown' })
    const exported = await call('export', {})
    const path = String(exported['relativePath'])
    const preview = await call('import', { mode: 'preview', path })
    await call('import', await fence({ mode: 'commit', path, token: preview['token'] }))
    await call('rebuild', await fence({}))
    for (const [verb, { body, code }] of Object.entries(REFUSED_HERE)) {
      const answer = await env.api.post(verb, body)
      assert.equal(
        (answer.json?.['error'] as { code?: string } | undefined)?.code,
        code,
        `${verb}: ${answer.text.slice(0, 300)}`,
      )
    }
    const asked = await env.api.post('wipe', await fence({}))
    await call('wipe', await fence({ confirmToken: asked.json?.['confirmToken'] }))
  })

  it('read every verb of the router, or named why not', () => {
    const read = new Set<string>([...reads.map((entry) => entry.verb), ...Object.keys(REFUSED_HERE)])
    assert.deepEqual(
      Object.keys(VERBS).filter((verb) => !read.has(verb)),
      [],
    )
  })

  it("each answer parses strictly with its verb's answer schema", () => {
    const drifted = reads.flatMap((entry) => {
      const parsed = VERB_CONTRACTS[entry.verb].answer.safeParse(entry.data)
      return parsed.success
        ? []
        : [
            `${entry.verb} ${JSON.stringify(entry.body).slice(0, 80)}: ${parsed.error.issues
              .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
              .join('; ')}`,
          ]
    })
    assert.deepEqual(drifted, [])
  })
})
