/**
 * The plugin as the model meets it: the real DSH rc.8 host in a throwaway DSH home with the plugin linked from this
 * checkout, talking to a scripted fake model on loopback. The tool conversations are sessions on one web host (they
 * build on each other's facts and need no host of their own); the one-shot extraction runs boot the headless
 * profile per run, and the first of them reads what the web host stored. Assertions read what the model actually
 * received: tool results, the directory in the runtime-context message, the notice.
 */
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import { runHeadless, type DshHome } from './helpers/dsh-host.ts'
import { messageText, type FakeModel } from './helpers/fake-model.ts'
import {
  directoryOf,
  forget,
  reply,
  search,
  startConversations,
  write,
  type HeadlessConversations,
} from './helpers/headless-conversation.ts'

let conversations: HeadlessConversations
let model: FakeModel
let home: DshHome

before(async () => {
  conversations = await startConversations()
  model = conversations.model
  home = conversations.home
})
after(async () => {
  await conversations.close()
})

const converse: HeadlessConversations['converse'] = (prompt, ...steps) => conversations.converse(prompt, ...steps)

function storeGeneration(): number {
  const db = new Database(join(home.dataDir, 'memory.db'), { readonly: true })
  try {
    return Number(
      (db.prepare("SELECT n AS generation FROM tallies WHERE tally = 'generation'").get() as { generation: number })
        .generation,
    )
  } finally {
    db.close()
  }
}

describe('memory tools in a real DSH host', () => {
  before(async () => {
    await conversations.shareHost()
  })
  after(async () => {
    await conversations.endSharedHost()
  })

  it('a fact written in one session is found by search in a new session, and the notice names the tools', async () => {
    const first = await converse(
      'Please remember: billing-api runs on port 7801',
      write({
        subject: 'billing-api',
        property: 'port',
        value: '7801',
        evidence: 'explicit_user',
        quote: 'billing-api runs on port 7801',
      }),
      reply,
    )
    assert.match(first.toolResults[0] ?? '', /^outcome: saved\n/u)
    const notices = first.lastRequest
      .filter((message) => message.role === 'user')
      .map(messageText)
      .filter((text) => text.startsWith('Fact memory is on'))
    assert.equal(notices.length, 1)
    assert.match(notices[0] ?? '', /memory_search/u)
    assert.match(notices[0] ?? '', /memory_write/u)
    assert.match(notices[0] ?? '', /memory_forget/u)

    const second = await converse('Which port does billing use?', search({ query: 'billing port' }), reply)
    assert.match(second.toolResults[0] ?? '', /^outcome: ok\n/u)
    assert.match(
      second.toolResults[0] ?? '',
      /1\. billing-api · port: 7801 \[#\d+ · since \d{4}-\d{2}-\d{2} · explicit_user/u,
    )
    assert.match(
      second.toolResults[0] ?? '',
      /· memory_write, session-[0-9a-f]{8} turn 1 · quote: "billing-api runs on port 7801"\]/u,
      'anchored to the writing session and turn',
    )
    assert.match(directoryOf(second.lastRequest), /- billing-api · port: 7801 \(\d{4}-\d{2}-\d{2}\)/u)
  })

  it('"7801" finds the port fact through the exact-identifier channel', async () => {
    const { toolResults } = await converse('what was on 7801 again?', search({ query: '7801' }), reply)
    assert.match(toolResults[0] ?? '', /^outcome: ok\n/u)
    assert.match(toolResults[0] ?? '', /Channels: bm25, identifier\./u)
    assert.match(toolResults[0] ?? '', /billing-api · port/u)
  })

  it('a user statement supersedes the old value, which stays as history', async () => {
    const { toolResults } = await converse(
      'billing-api moved to port 7802 today',
      write({
        subject: 'billing-api',
        property: 'port',
        value: '7802',
        evidence: 'explicit_user',
        quote: 'billing-api moved to port 7802',
      }),
      search({ query: 'billing-api port' }),
      reply,
    )
    assert.match(toolResults[0] ?? '', /^outcome: saved\n.*It replaces 7801 \(#\d+\), kept as history\./su)
    const found = toolResults[1] ?? ''
    assert.match(found, /- 7802 \[#\d+ · since/u)
    assert.match(found, /- 7801 \[#\d+ · superseded, was current .* → /u)
    assert.ok(found.indexOf('7802 [#') < found.indexOf('7801 [#'), 'the newest value is listed first')
  })

  it('an observed contradiction is a conflict, search reports needs_selection, and a user statement settles it', async () => {
    const conflict = await converse(
      'check the config file',
      write({ subject: 'billing-api', property: 'port', value: '7900', evidence: 'observed', quote: 'port: 7900' }),
      search({ query: 'billing-api port' }),
      reply,
    )
    assert.match(conflict.toolResults[0] ?? '', /^outcome: conflict\n.*contradicts 7802/su)
    assert.match(conflict.toolResults[1] ?? '', /^outcome: needs_selection\n/u)
    assert.match(conflict.toolResults[1] ?? '', /CONTESTED/u)
    assert.match(directoryOf(conflict.lastRequest), /billing-api · port: 7802 \(\d{4}-\d{2}-\d{2}, contested\)/u)

    const settled = await converse(
      'The billing-api port is 7900 now, trust the config',
      write({
        subject: 'billing-api',
        property: 'port',
        value: '7900',
        evidence: 'explicit_user',
        quote: 'The billing-api port is 7900 now',
      }),
      search({ query: 'billing-api port' }),
      reply,
    )
    assert.match(settled.toolResults[0] ?? '', /^outcome: saved\n.*settles the conflict/su)
    assert.match(settled.toolResults[1] ?? '', /^outcome: ok\n/u)
    assert.match(settled.toolResults[1] ?? '', /- 7900 \[#\d+ · since/u)
    assert.doesNotMatch(settled.toolResults[1] ?? '', /CONTESTED/u)
  })

  it('a fact the user forgets is gone from search and cannot be written back', async () => {
    await converse(
      'remember that the staging host is db-2',
      write({
        subject: 'staging',
        property: 'host',
        value: 'db-2',
        evidence: 'explicit_user',
        quote: 'the staging host is db-2',
      }),
      reply,
    )
    const forgot = await converse(
      'forget the staging host',
      forget({ subject: 'staging', property: 'host' }),
      search({ query: 'staging host' }),
      reply,
    )
    assert.match(forgot.toolResults[0] ?? '', /^outcome: ok\nForgot 1 fact: #\d+ staging · host = db-2/u)
    assert.match(
      forgot.toolResults[1] ?? '',
      /^outcome: not_found\n.*has no record.*says nothing about whether it is true/su,
    )
    const before = storeGeneration()
    const again = await converse(
      'the staging host is db-2',
      write({
        subject: 'staging',
        property: 'host',
        value: 'db-2',
        evidence: 'explicit_user',
        quote: 'the staging host is db-2',
      }),
      reply,
    )
    assert.match(again.toolResults[0] ?? '', /^outcome: refused\n.*forgotten at the user's request/su)
    assert.equal(storeGeneration(), before, 'a refused write changes nothing')
  })

  it('a credential is refused and never stored', async () => {
    const before = storeGeneration()
    const { toolResults, lastRequest } = await converse(
      'my key is sk-live-4f9a8b7c6d5e4f3a2b1c0d9e',
      write({
        subject: 'openai',
        property: 'api key',
        value: 'sk-live-4f9a8b7c6d5e4f3a2b1c0d9e',
        evidence: 'explicit_user',
        quote: 'my key is sk-live-4f9a8b7c6d5e4f3a2b1c0d9e',
      }),
      reply,
    )
    assert.match(toolResults[0] ?? '', /^outcome: refused\n.*credential/su)
    assert.equal(storeGeneration(), before)
    assert.doesNotMatch(directoryOf(lastRequest), /sk-live/u)
  })

  it('a password written with the sentence it came from as its quote is refused and never stored', async () => {
    const before = storeGeneration()
    const sentence = 'the staging db password is Tr0ub4dor&3'
    const { toolResults, lastRequest } = await converse(
      sentence,
      write({
        subject: 'staging db',
        property: 'password',
        value: 'Tr0ub4dor&3',
        evidence: 'explicit_user',
        quote: sentence,
      }),
      search({ query: 'staging db password' }),
      reply,
    )
    assert.match(toolResults[0] ?? '', /^outcome: refused\n.*"password" names a secret/su)
    assert.match(toolResults[1] ?? '', /^outcome: not_found\n/u)
    assert.equal(storeGeneration(), before)
    assert.doesNotMatch(directoryOf(lastRequest), /Tr0ub4dor/u)
  })

  it('an email is stored but absent from the directory and from search', async () => {
    const saved = await converse(
      'my email is alice@example.com',
      write({
        subject: 'user',
        property: 'email',
        value: 'alice@example.com',
        evidence: 'explicit_user',
        quote: 'my email is alice@example.com',
      }),
      search({ query: 'user email' }),
      search({ query: 'alice@example.com' }),
      reply,
    )
    assert.match(saved.toolResults[0] ?? '', /^outcome: saved\n.*personal data \(email\)/su)
    assert.doesNotMatch(saved.toolResults[0] ?? '', /alice@example\.com/u, 'the value is not echoed back')
    assert.match(saved.toolResults[1] ?? '', /^outcome: not_found\n/u)
    assert.match(saved.toolResults[2] ?? '', /^outcome: not_found\n/u)
    const later = await converse('hi', reply)
    assert.doesNotMatch(directoryOf(later.lastRequest), /alice@example\.com/u)
    assert.match(directoryOf(later.lastRequest), /billing-api · port: 7900/u)
  })

  it('a Chinese query finds a Chinese fact', async () => {
    await converse(
      '记住：支付服务的端口是9911',
      write({
        subject: '支付服务',
        property: '端口',
        value: '9911',
        evidence: 'explicit_user',
        quote: '支付服务的端口是9911',
      }),
      reply,
    )
    const { toolResults } = await converse('支付服务用哪个端口？', search({ query: '支付服务的端口是多少' }), reply)
    assert.match(toolResults[0] ?? '', /^outcome: ok\n/u)
    assert.match(toolResults[0] ?? '', /支付服务 · 端口: 9911 \[#\d+ · /u)
  })

  it('a slot holding many values answers a question about one of them with that value', async () => {
    const hobbies = [
      'read a novel about sailors',
      'walked along the river',
      'baked rye bread',
      'fixed an old bicycle',
      'planted tomatoes',
      'watched a documentary on whales',
      'knitted a blue scarf',
      'visited an aquarium',
      'wrote letters to a cousin',
      'learned a card trick',
    ]
    const values = [
      'Melanie signed up for a pottery class',
      ...Array.from({ length: 39 }, (_, i) => `Melanie ${hobbies[i % hobbies.length] ?? ''} (week ${i + 1})`),
    ]
    const observe = (value: string): Record<string, unknown> => ({
      subject: 'Melanie',
      property: 'observation',
      value,
      evidence: 'observed',
      multi: true,
    })
    const written = await converse(
      'Note what Melanie told us',
      { toolCalls: values.map((value) => ({ name: 'memory_write', arguments: observe(value) })) },
      reply,
    )
    assert.equal(written.toolResults.filter((result) => result.startsWith('outcome: saved')).length, 40)

    const { toolResults } = await converse(
      'What class did Melanie sign up for?',
      search({ query: 'What class did Melanie sign up for?', limit: 10 }),
      reply,
    )
    const answer = toolResults[0] ?? ''
    assert.match(answer, /^outcome: ok\n/u)
    assert.match(
      answer,
      /\n1\. Melanie · observation\n {3}- Melanie signed up for a pottery class \[#\d+ · since \d{4}-\d{2}-\d{2} · observed · memory_write, session-[0-9a-f]{8} turn 1\]\n/u,
      'the value asked about is in the answer the model received, first in its slot',
    )
    assert.match(answer, /\+ 39 other values of Melanie · observation/u)
    assert.doesNotMatch(answer, /week \d+/u, 'values that do not match are counted, not listed')
  })

  it('bad arguments get a clear refused answer and change nothing', async () => {
    const before = storeGeneration()
    const { toolResults } = await converse(
      'try some bad writes',
      write({ subject: 'x' }),
      write({ subject: 'x', property: 'y', value: 42 }),
      write({ subject: 'x', property: 'y', value: 'a'.repeat(200_000) }),
      write({ subject: 'x\u0007', property: 'y', value: 'z' }),
      write({ subject: 'x', property: 'y', value: 'z', colour: 'blue' }),
      search({}),
      forget({ fact_id: 'seven' }),
      reply,
    )
    assert.equal(toolResults.length, 7)
    for (const result of toolResults) assert.match(result, /^outcome: refused\n.*invalid arguments/su)
    assert.match(toolResults[0] ?? '', /property: is required/u)
    assert.match(toolResults[2] ?? '', /value: at most 4000 characters/u)
    assert.match(toolResults[3] ?? '', /subject: must not contain control characters/u)
    assert.match(toolResults[4] ?? '', /unknown field "colour"/u)
    assert.equal(storeGeneration(), before)
  })

  it("an explicit_user claim without the user's words is recorded as observed", async () => {
    const { toolResults } = await converse(
      'what editor do I use?',
      write({
        subject: 'user',
        property: 'editor',
        value: 'vim',
        evidence: 'explicit_user',
        quote: 'I always use vim',
      }),
      reply,
    )
    assert.match(toolResults[0] ?? '', /^outcome: saved\n.*\(observed\).*evidence lowered to observed/su)
  })

  it('as_of answers with the value current on a past day', async () => {
    const { toolResults } = await converse(
      'what was the billing port on the first of January 2020?',
      search({ query: 'billing-api port', as_of: '2020-01-01' }),
      search({ query: 'billing-api port', as_of: '2999-01-01' }),
      reply,
    )
    assert.match(toolResults[0] ?? '', /^outcome: not_found\n/u, 'nothing was recorded yet in 2020')
    assert.match(toolResults[1] ?? '', /^outcome: ok\n.*as of 2999-01-01.*billing-api · port: 7900 \[#\d+ · /su)
    assert.doesNotMatch(toolResults[1] ?? '', /7802/u)
  })

  it('a memory_write that restates a stored value in other words answers as a duplicate of it; port 7801 and port 7802 stay two', async () => {
    // Twelve unrelated facts first: below twelve current facts only exact duplicates fold.
    const library = [
      'owner',
      'region',
      'runtime',
      'queue',
      'cdn',
      'license',
      'ci system',
      'base image',
      'log level',
      'timeout',
      'cache ttl',
      'repository',
    ].map((property, i) => ({
      name: 'memory_write',
      arguments: { subject: 'ledger-service', property, value: `ledger ${property} setting ${i + 1}` },
    }))
    const hobby = { subject: 'user', property: 'hobbies', multi: true }
    const port = { subject: 'ledger-service', property: 'listens on', multi: true }
    const { toolResults } = await converse(
      'I play jazz standards on the piano. The ledger service listens on port 7801 and on port 7802 for public HTTP traffic.',
      { toolCalls: library },
      {
        toolCalls: [
          { name: 'memory_write', arguments: { ...hobby, value: 'plays the piano, mostly jazz standards' } },
          { name: 'memory_write', arguments: { ...port, value: 'port 7801 for public HTTP traffic' } },
        ],
      },
      {
        toolCalls: [
          {
            name: 'memory_write',
            arguments: {
              ...hobby,
              value: 'plays jazz standards on the piano',
              evidence: 'explicit_user',
              quote: 'I play jazz standards on the piano',
            },
          },
          { name: 'memory_write', arguments: { ...port, value: 'port 7802 for public HTTP traffic' } },
        ],
      },
      reply,
    )
    assert.equal(toolResults.length, 16)
    assert.equal(toolResults.slice(0, 12).filter((result) => result.startsWith('outcome: saved')).length, 12)
    const firstHobby = /^outcome: saved\nStored #(\d+): user · hobbies = plays the piano, mostly jazz standards/u.exec(
      toolResults[12] ?? '',
    )?.[1]
    const firstPort = /^outcome: saved\nStored #(\d+): ledger-service · listens on = port 7801/u.exec(
      toolResults[13] ?? '',
    )?.[1]
    assert.ok(firstHobby !== undefined && firstPort !== undefined, toolResults.slice(12).join('\n---\n'))
    assert.match(
      toolResults[14] ?? '',
      new RegExp(
        `^outcome: ok\\nAlready known as #${firstHobby}: user · hobbies = plays the piano, mostly jazz standards\\. ` +
          `The value written restates it in other words \\(similarity 0\\.\\d\\d\\), so no second row was made; this observation was added to the sources of #${firstHobby}\\. ` +
          'Evidence raised to explicit_user\\.',
        'u',
      ),
    )
    const secondPort = /^outcome: saved\nStored #(\d+): ledger-service · listens on = port 7802/u.exec(
      toolResults[15] ?? '',
    )?.[1]
    assert.ok(secondPort !== undefined && secondPort !== firstPort, toolResults[15])
    const db = new Database(join(home.dataDir, 'memory.db'), { readonly: true })
    try {
      const current = (property: string): number =>
        Number(
          (
            db
              .prepare(
                `SELECT count(*) AS n FROM facts WHERE property = ? AND status = 'active' AND subject IN ('user', 'ledger-service')`,
              )
              .get(property) as { n: number }
          ).n,
        )
      assert.deepEqual([current('hobbies'), current('listens on')], [1, 2])
    } finally {
      db.close()
    }
  })
})

describe('automatic extraction in a one-shot headless run', () => {
  /** One headless run with this plugin configuration; answers the extraction call with one schedule fact. */
  async function oneShot(config: string, quote: string, subject: string): Promise<void> {
    home.writeProfilePatch('headless', `- id: dsh-fact-memory\n  config:\n${config}`)
    model.reset()
    model.enqueue(reply)
    model.enqueueExtraction({
      text: JSON.stringify({ facts: [{ subject, property: 'schedule', value: '02:30', quote, confidence: 0.9 }] }),
    })
    const run = await runHeadless(home, model.url, `${quote}, please keep that in mind`)
    assert.equal(run.code, 0, `dsh exited with ${run.code}:\n${run.stderr}`)
  }

  function readStore<T>(read: (db: Database.Database) => T): T {
    const db = new Database(join(home.dataDir, 'memory.db'), { readonly: true })
    try {
      return read(db)
    } finally {
      db.close()
    }
  }

  const scheduleOf = (subject: string): unknown =>
    readStore((db) =>
      db
        .prepare(
          "SELECT value, origin, evidence FROM facts WHERE subject = ? AND property = 'schedule' AND status = 'active'",
        )
        .get(subject),
    )
  const lastPass = (): Record<string, unknown> =>
    readStore((db) => ({
      ...(db
        .prepare(
          'SELECT trigger, decision, written, note, end_seq AS endSeq, session_id AS sessionId FROM extract_runs ORDER BY id DESC LIMIT 1',
        )
        .get() as object),
    }))
  const cursorOf = (sessionId: unknown): unknown =>
    readStore(
      (db) =>
        (
          db.prepare('SELECT next_seq AS nextSeq FROM extract_cursors WHERE session_id = ?').get(sessionId) as
            | { nextSeq: number }
            | undefined
        )?.nextSeq,
    )

  after(() => home.writeProfilePatch('headless', ''))

  it("with extractDelayMs 0 the pass runs at the turn's end and the unloading host waits for it: the fact is on disk after exit", async () => {
    await oneShot(
      '    autoExtract: true\n    extractDelayMs: 0\n',
      'the nightly export job runs at 02:30',
      'nightly export job',
    )
    assert.match(
      directoryOf(model.agentRequests()[0]?.body.messages ?? []),
      /billing-api · port: 7900/u,
      'a new host reads what the last one stored',
    )
    assert.equal(model.extractionRequests().length, 1)
    assert.deepEqual(scheduleOf('nightly export job'), { value: '02:30', origin: 'extract', evidence: 'explicit_user' })
    const pass = lastPass()
    assert.deepEqual([pass['trigger'], pass['decision'], pass['written']], ['turn', 'extracted', 1])
  })

  it('a custom endpoint is still reachable while the host unloads: the pass waiting in its merge window is flushed and lands', async () => {
    await oneShot(
      `    autoExtract: true\n    llmSource: custom\n    llmBaseUrl: ${model.url}/v1\n    llmModel: fake-extractor\n`,
      'the weekly report job runs at 02:30',
      'weekly report job',
    )
    assert.equal(model.extractionRequests().length, 1, 'the flushed pass called the endpoint')
    assert.match(model.extractionRequests()[0]?.url ?? '', /^\/v1\/chat\/completions$/u)
    assert.deepEqual(scheduleOf('weekly report job'), { value: '02:30', origin: 'extract', evidence: 'explicit_user' })
    assert.equal(lastPass()['trigger'], 'flush')
    assert.equal(lastPass()['decision'], 'extracted')
  })

  it("the host's own model is gone while it unloads: the flushed pass says so and leaves the range unread", async () => {
    await oneShot('    autoExtract: true\n', 'the monthly audit job runs at 02:30', 'monthly audit job')
    assert.equal(model.extractionRequests().length, 0)
    assert.equal(scheduleOf('monthly audit job'), undefined)
    const pass = lastPass()
    assert.equal(pass['trigger'], 'flush')
    assert.equal(pass['decision'], 'failed')
    assert.match(String(pass['note']), /cursor did not move.*extractDelayMs to 0/u)
    assert.ok(Number(cursorOf(pass['sessionId'])) < Number(pass['endSeq']), 'the cursor stays before the unread range')
  })
})
