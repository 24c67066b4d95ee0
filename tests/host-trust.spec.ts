/**
 * Issue 18's trust fixes proven from outside: the real DSH rc.8 host in a throwaway DSH home with the
 * plugin linked, the scripted fake model on loopback, and what the model received in its next request (the tool
 * results and the directory) as the only evidence; the one-off extract route is called over real HTTP on a real web
 * host, and its whole answer is read as sent.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createDshHome, startWebHost, type DshHome, type WebHost } from './helpers/dsh-host.ts'
import { FactMemoryApi, PREFIX } from './helpers/fact-memory-web.ts'
import { FakeModel } from './helpers/fake-model.ts'
import {
  directoryOf,
  forget,
  reply,
  search,
  startConversations,
  write,
  type HeadlessConversations,
} from './helpers/headless-conversation.ts'

/** A project key's shape: `sk-proj-` and forty characters of the alphabet such keys use. */
const KEY_TAIL = 'Q7vR2mXk9LpT4wZs8NbY3cHd6F-jG1aUe5KqW0_y'
const KEY = `sk-proj-${KEY_TAIL}`

/** Whether a text holds the key, or any sixteen characters in a row of its random part. */
function holdsKey(text: string): boolean {
  if (text.includes(KEY)) return true
  for (let at = 0; at + 16 <= KEY_TAIL.length; at += 1) if (text.includes(KEY_TAIL.slice(at, at + 16))) return true
  return false
}

/** The fact id a saved memory_write answer names. */
function storedId(result: string): string {
  const id = /^outcome: saved\nStored #(\d+):/u.exec(result)?.[1]
  assert.ok(id !== undefined, `not a saved answer:\n${result}`)
  return id
}

describe('issue 18 trust fixes as the model meets them in a real DSH host', () => {
  let conversations: HeadlessConversations
  const converse: HeadlessConversations['converse'] = (prompt, ...steps) => conversations.converse(prompt, ...steps)

  before(async () => {
    assert.equal(KEY_TAIL.length, 40)
    conversations = await startConversations()
    // The conversations build on one library and need no host of their own: sessions on one web host.
    await conversations.shareHost()
    // Twelve unrelated current facts first: below twelve only exact duplicates fold, and the near-duplicate gate these
    // proofs are about would not even be asked.
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
    const seeded = await converse('Record the ledger service settings', { toolCalls: library }, reply)
    assert.equal(
      seeded.toolResults.filter((result) => result.startsWith('outcome: saved')).length,
      12,
      seeded.toolResults.join('\n---\n'),
    )
  })
  after(async () => {
    await conversations.close()
  })

  it('a negated statement stays beside its opposite in one multi-valued slot, while a plain rewording of either still folds', async () => {
    const slot = { subject: 'user', property: 'meeting preferences', multi: true }
    const negated = 'does not want meetings scheduled before ten in the morning'
    const wanted = 'wants meetings scheduled before ten in the morning'
    const first = await converse(
      'I do not want meetings scheduled before ten in the morning.',
      write({ ...slot, value: negated }),
      reply,
    )
    const negatedId = storedId(first.toolResults[0] ?? '')

    const second = await converse(
      'I changed my mind: I want meetings scheduled before ten in the morning. Check what you have.',
      write({ ...slot, value: wanted }),
      write({ ...slot, value: 'wants the meetings scheduled before ten in the morning' }),
      search({ query: 'meetings before ten in the morning' }),
      reply,
    )
    const [opposite, reworded, found] = second.toolResults
    assert.doesNotMatch(opposite ?? '', /Already known as/u, 'the opposite statement is not answered as a duplicate')
    const wantedId = storedId(opposite ?? '')
    assert.notEqual(wantedId, negatedId)
    // The gate is live here: a rewording without a negation on either side is folded into the positive row.
    assert.match(
      reworded ?? '',
      new RegExp(
        `^outcome: ok\\nAlready known as #${wantedId}: user · meeting preferences = ${wanted}\\. The value written restates it in other words`,
        'u',
      ),
    )

    assert.match(found ?? '', /^outcome: ok\n/u)
    assert.match(found ?? '', new RegExp(`- ${negated} \\[#${negatedId} · `, 'u'))
    assert.match(found ?? '', new RegExp(`- ${wanted} \\[#${wantedId} · `, 'u'))
  })

  it('"yes" as the quote of an explicit_user write lands as observed, and the answer says the quote does not carry the value', async () => {
    const saved = await converse(
      'yes. The release branch is cut on Mondays, remember that.',
      write({
        subject: 'release train',
        property: 'branch cut day',
        value: 'Monday',
        evidence: 'explicit_user',
        quote: 'yes',
      }),
      search({ query: 'release train branch cut day' }),
      reply,
    )
    const [written, found] = saved.toolResults
    assert.match(written ?? '', /^outcome: saved\nStored #\d+: release train · branch cut day = Monday \(observed\)\./u)
    assert.match(
      written ?? '',
      /Note: evidence lowered to observed: the quote is too short to carry a statement \(explicit_user needs at least 6 characters and 2 words/u,
    )
    assert.match(found ?? '', /^outcome: ok\n/u)
    assert.match(found ?? '', /release train · branch cut day: Monday \[#\d+ · since \d{4}-\d{2}-\d{2} · observed · /u)
    assert.doesNotMatch(found ?? '', /explicit_user/u)
  })

  it("the model restating the user's single value in longer words adds a source and opens no conflict", async () => {
    const slot = { subject: 'platform team', property: 'deploy routine' }
    const stated = 'deploys from the main branch every Friday afternoon'
    const { toolResults, lastRequest } = await converse(
      'The platform team deploys from the main branch every Friday afternoon.',
      write({
        ...slot,
        value: stated,
        evidence: 'explicit_user',
        quote: 'The platform team deploys from the main branch every Friday afternoon',
      }),
      write({ ...slot, value: `${stated} after review`, evidence: 'observed' }),
      search({ query: 'platform team deploy routine' }),
      reply,
    )
    const [userWrite, restated, found] = toolResults
    assert.match(
      userWrite ?? '',
      new RegExp(
        `^outcome: saved\\nStored #\\d+: platform team · deploy routine = ${stated} \\(explicit_user\\)\\.`,
        'u',
      ),
    )
    const id = storedId(userWrite ?? '')
    assert.match(
      restated ?? '',
      new RegExp(
        `^outcome: ok\\nAlready known as #${id}: platform team · deploy routine = ${stated}\\. The value written restates it in other words \\(similarity 0\\.\\d\\d\\), so no second row was made; this observation was added to the sources of #${id}\\.`,
        'u',
      ),
    )
    assert.doesNotMatch(restated ?? '', /CONFLICT|contradicts/u)

    assert.match(found ?? '', /^outcome: ok\n/u, 'not needs_selection')
    assert.match(
      found ?? '',
      new RegExp(
        `platform team · deploy routine: ${stated} \\[#${id} · since \\d{4}-\\d{2}-\\d{2} · explicit_user · `,
        'u',
      ),
    )
    assert.doesNotMatch(found ?? '', /CONTESTED|after review/u)
    assert.match(
      directoryOf(lastRequest),
      new RegExp(`- platform team · deploy routine: ${stated} \\(\\d{4}-\\d{2}-\\d{2}\\)\\n`, 'u'),
    )
  })

  it('the user restating an observed value in their own words raises it, and a search shows their words as its quote', async () => {
    const slot = { subject: 'data team', property: 'deploy routine' }
    const observed = 'deploys from the main branch every Friday afternoon after review'
    const noted = await converse(
      'Note how the data team deploys, from the release notes.',
      write({ ...slot, value: observed, evidence: 'observed' }),
      reply,
    )
    const id = storedId(noted.toolResults[0] ?? '')
    const said = 'The data team deploys from the main branch every Friday afternoon'
    const { toolResults } = await converse(
      `${said}, that is how it works.`,
      write({
        ...slot,
        value: 'deploys from the main branch every Friday afternoon',
        evidence: 'explicit_user',
        quote: said,
      }),
      search({ query: 'data team deploy routine' }),
      reply,
    )
    const [raised, found] = toolResults
    assert.match(
      raised ?? '',
      new RegExp(
        `^outcome: ok\\nAlready known as #${id}: data team · deploy routine = ${observed}\\. The value written restates it`,
        'u',
      ),
    )
    assert.match(
      found ?? '',
      new RegExp(`${observed} \\[#${id} · since \\d{4}-\\d{2}-\\d{2} · explicit_user · [^\\]]*quote: "${said}"`, 'u'),
    )
  })

  it('a memory_write whose qualifier holds a key is refused, and neither its answer nor a later search shows the key', async () => {
    const { toolResults, lastRequest } = await converse(
      `The deploy bot calls OpenAI with the token ${KEY}.`,
      write({ subject: 'deploy bot', property: 'model provider', value: 'OpenAI', qualifiers: { token: KEY } }),
      search({ query: 'deploy bot model provider' }),
      search({ query: KEY }),
      reply,
    )
    const [refused, bySlot, byKey] = toolResults
    assert.match(refused ?? '', /^outcome: refused\n.*Nothing was stored\.$/su)
    assert.match(refused ?? '', /credential/u)
    assert.doesNotMatch(bySlot ?? '', /deploy bot ·/u, 'nothing of the refused write was stored')
    assert.match(byKey ?? '', /^outcome: not_found\n/u)
    for (const result of toolResults) assert.equal(holdsKey(result), false, `a tool result shows the key:\n${result}`)
    assert.equal(holdsKey(directoryOf(lastRequest)), false)
  })

  it("memory_forget given a key as the property answers not found, and the model's next request holds no key", async () => {
    const { toolResults, lastRequest } = await converse(
      "Forget the deploy bot's token.",
      forget({ subject: 'deploy bot', property: KEY }),
      reply,
    )
    const [answer] = toolResults
    assert.match(
      answer ?? '',
      /^outcome: not_found\nthe store has no live fact for "deploy bot · ••••••••"; nothing was forgotten\. Reached: global, labels(, project [^.]+)?\.$/u,
    )
    assert.equal(
      holdsKey(JSON.stringify(lastRequest.filter((message) => message.role !== 'assistant'))),
      false,
      'the tool result the model reads back shows the key',
    )
  })
})

describe('the extract route over real HTTP on a conversation that holds a key', () => {
  let model: FakeModel
  let home: DshHome
  let host: WebHost
  let api: FactMemoryApi

  before(async () => {
    model = await FakeModel.start()
    home = createDshHome()
    host = await startWebHost(home, model.url)
    api = new FactMemoryApi(host.url)
  })
  after(async () => {
    await host?.stop()
    await model?.close()
    home?.remove()
  })

  const conversation = [
    `USER: the billing service calls OpenAI with the key ${KEY}`,
    'ASSISTANT: Noted, I will not repeat it.',
    'USER: and the billing service runs on port 7311',
  ].join('\n')

  /** The extraction model proposing the key in every field a candidate has, beside one plain fact. */
  const modelAnswer = (): { readonly text: string } => ({
    text: JSON.stringify({
      facts: [
        {
          subject: 'billing service',
          property: 'openai key',
          value: KEY,
          quote: `the billing service calls OpenAI with the key ${KEY}`,
          confidence: 0.95,
        },
        {
          subject: 'billing service',
          property: 'provider',
          value: 'OpenAI',
          qualifiers: { token: KEY },
          quote: `the billing service calls OpenAI with the key ${KEY}`,
          confidence: 0.95,
        },
        {
          subject: 'billing service',
          property: 'note',
          value: `calls OpenAI with ${KEY}`,
          quote: 'the billing service runs on port 7311',
          confidence: 0.9,
        },
        {
          subject: `billing service ${KEY}`,
          property: 'client',
          value: 'openai-node',
          quote: `billing service calls OpenAI with the key ${KEY} in production`,
          confidence: 0.9,
        },
        {
          subject: 'billing service',
          property: 'port',
          value: '7311',
          quote: 'the billing service runs on port 7311',
          confidence: 0.9,
        },
      ],
    }),
  })

  for (const dryRun of [true, false]) {
    it(`answers with no key in clear anywhere in its JSON (${dryRun ? 'dry run' : 'written'}), and the run it logged shows none either`, async () => {
      model.reset()
      model.enqueueExtraction(modelAnswer())
      const response = await api.post('extract', { text: conversation, dryRun })
      assert.equal(response.status, 200, response.text)
      assert.equal(response.json?.['ok'], true, response.text)
      assert.equal(model.extractionRequests().length, 1, 'the extraction model was asked')
      assert.equal(holdsKey(response.text), false, `the extract answer shows the key:\n${response.text}`)
      assert.equal(holdsKey(JSON.stringify(response.json)), false)
      const candidates = response.json?.['candidates'] as { subject: string; property: string; value: string }[]
      assert.deepEqual(
        candidates.map((candidate) => candidate.property),
        ['openai key', 'provider', 'note', 'client', 'port'],
        'every candidate is still listed',
      )
      assert.equal(candidates[4]?.value, '7311')

      const runId = response.json?.['runId']
      assert.equal(typeof runId, 'number')
      const logged = await fetch(`${host.url}${PREFIX}/extract-run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: runId }),
      })
      const loggedText = await logged.text()
      assert.equal(logged.status, 200, loggedText)
      assert.match(loggedText, /billing service runs on port 7311/u, 'the run kept the text it sent')
      assert.equal(holdsKey(loggedText), false, `the logged run shows the key:\n${loggedText}`)
    })
  }

  it('leaves no key in the facts it wrote', async () => {
    const facts = await api.ok('facts', { limit: 100 })
    assert.ok(JSON.stringify(facts).includes('7311'), 'the plain fact was written')
    assert.equal(holdsKey(JSON.stringify(facts)), false, JSON.stringify(facts))
  })
})
