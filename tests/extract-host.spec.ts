/**
 * Automatic capture in one long-lived DSH rc.8 web host, watched from outside: what the fake model was sent for
 * extraction, and what the plugin's routes (facts, proposals, queue, extract-run, extract) report. Each case uses
 * its own subjects and sessions; settings change live through the host's settings service.
 */
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import type { QueueEntry } from '../src/extract/queue.ts'
import type { ExtractRun } from '../src/store/extract-store.ts'
import type { FactView } from '../src/wire-types.ts'
import { createDshHome, startWebHost, type DshHome, type WebHost } from './helpers/dsh-host.ts'
import { FactMemoryApi, hostApi } from './helpers/fact-memory-web.ts'
import {
  FakeModel,
  messageText,
  type ExtractionReply,
  type RecordedRequest,
  type ScriptStep,
} from './helpers/fake-model.ts'
import { until, waitFor } from './helpers/poll.ts'

/** Settings in force for the model path (the first cases). */
const MODEL_PATH = { autoExtract: true, autoCapture: false, llmSource: 'host', extractDelayMs: 300 } as const

let model: FakeModel
let home: DshHome
let host: WebHost
let api: FactMemoryApi

before(async () => {
  model = await FakeModel.start()
  home = createDshHome()
  host = await startWebHost(home, model.url)
  api = new FactMemoryApi(host.url)
  await settings(MODEL_PATH)
})
after(async () => {
  await host?.stop()
  await model?.close()
  home?.remove()
})

// ---------------------------------------------------------------------------------------------------------------
// Helpers

interface QueueView {
  readonly autoExtract: boolean
  readonly delayMs: number
  readonly running: readonly QueueEntry[]
  readonly recent: readonly ExtractRun[]
  readonly lastRun:
    | (ExtractRun & {
        readonly snapshot: {
          startSeq: number | null
          endSeq: number | null
          messageCount: number
          chars: number
          textSha256: string | null
        }
      })
    | null
}

interface CardView {
  readonly id: number
  readonly status: string
  readonly rows: readonly {
    readonly subject: string
    readonly property: string
    readonly value: string
    readonly confidence: number
    readonly quote: string | null
  }[]
}

interface Candidate {
  readonly subject: string
  readonly property: string
  readonly value: string
  readonly quote: string
  readonly confidence: number
}

async function settings(patch: Record<string, unknown>): Promise<void> {
  await hostApi(host.url, 'settings.update', { ns: 'dsh-fact-memory', patch })
}

/** A scripted extraction answer listing these facts. */
function answer(...facts: Candidate[]): { readonly text: string } {
  return { text: JSON.stringify({ facts }) }
}

/**
 * One user prompt, in a new session or a given one; waits until the model has served every scripted agent step and
 * the final text (the model is not reset, so extraction answers queued beforehand stay in place).
 */
async function turn(
  prompt: string,
  options: { session?: string; steps?: ScriptStep[]; reply?: string } = {},
): Promise<string> {
  const steps = options.steps ?? []
  const served = model.agentRequests().length
  model.enqueue(...steps, { text: options.reply ?? 'Noted.' })
  const sessionId =
    options.session ??
    (await hostApi<{ sessionId: string }>(host.url, 'session.create', { cwd: home.workspace })).sessionId
  await hostApi(host.url, 'session.prompt', { sessionId, mode: 'queue', content: [{ type: 'text', text: prompt }] })
  await until(
    () => model.agentRequests().length >= served + steps.length + 1,
    () => `the turn "${prompt}" to be served; host output:\n${host.output().slice(-3000)}`,
    30_000,
  )
  return sessionId
}

async function queue(): Promise<QueueView> {
  return (await api.ok('queue', { limit: 50 })) as unknown as QueueView
}

/** The passes of one session once it has nothing running or waiting, newest first. */
async function settledRuns(sessionId: string, atLeast = 1): Promise<readonly ExtractRun[]> {
  return waitFor(
    async () => {
      const view = await queue()
      const runs = view.recent.filter((run) => run.sessionId === sessionId)
      return runs.length >= atLeast && !view.running.some((entry) => entry.sessionId === sessionId) ? runs : undefined
    },
    async () => `${atLeast} settled pass(es) of session ${sessionId}; queue: ${JSON.stringify(await queue())}`,
  )
}

async function allFacts(): Promise<FactView[]> {
  const facts: FactView[] = []
  let cursor: string | null = null
  do {
    const page: Record<string, unknown> = await api.ok('facts', {
      status: 'all',
      limit: 100,
      ...(cursor === null ? {} : { cursor }),
    })
    facts.push(...(page['facts'] as FactView[]))
    cursor = page['nextCursor'] as string | null
  } while (cursor !== null)
  return facts
}

async function findFact(subject: string, property: string): Promise<FactView | undefined> {
  return (await allFacts()).find((fact) => fact.subject === subject && fact.property === property)
}

/** Wait for a fact to land. */
async function landed(subject: string, property: string): Promise<FactView> {
  return waitFor(
    () => findFact(subject, property),
    async () =>
      `the fact ${subject} · ${property}; facts: ${JSON.stringify((await allFacts()).map((fact) => `${fact.subject} · ${fact.property} = ${fact.value}`))}`,
  )
}

const bodyOf = (request: RecordedRequest): string => JSON.stringify(request.body)

// ---------------------------------------------------------------------------------------------------------------

describe('automatic extraction in a real DSH web host', () => {
  beforeEach(async () => {
    // Nothing of an earlier case may still be running when this case's script is laid out.
    await until(
      async () => (await queue()).running.length === 0,
      async () => `the extraction queue to drain: ${JSON.stringify((await queue()).running)}`,
    )
    model.reset()
  })

  it('lands a fact after the turn without holding the conversation', async () => {
    const quote = 'we run the API on port 8123'
    const thinkingMs = 4000
    model.enqueueExtraction({
      ...answer({ subject: 'API', property: 'port', value: '8123', quote, confidence: 0.95 }),
      delayMs: thinkingMs,
    })
    const session = await turn(quote)
    const asked = await waitFor(
      () => model.extractionRequests()[0],
      async () => `the extraction call; queue: ${JSON.stringify(await queue())}`,
    )
    assert.match(bodyOf(asked), /we run the API on port 8123/u)

    // The model is still answering, yet the same session takes another prompt and finishes that turn: its turn/end
    // queues behind the running pass instead of waiting for it.
    await turn('thanks, that is all for now', { session })
    const served = model.agentRequests().at(-1)?.receivedAt ?? Infinity
    assert.ok(
      served < asked.receivedAt + thinkingMs,
      `the second turn was served ${served - asked.receivedAt} ms after the extraction call`,
    )
    const entry = await waitFor(
      async () => (await queue()).running.find((line) => line.sessionId === session && line.queuedEndSeq !== null),
      async () => `the second turn to end while the first pass runs; queue: ${JSON.stringify(await queue())}`,
    )
    assert.equal(entry.state, 'running')
    assert.ok(entry.queuedEndSeq !== null && entry.queuedEndSeq > entry.endSeq)
    assert.equal(await findFact('API', 'port'), undefined, 'nothing lands before the model answers')

    const fact = await landed('API', 'port')
    assert.equal(fact.value, '8123')
    assert.equal(fact.evidence, 'explicit_user')
    assert.equal(fact.origin, 'extract')
    assert.equal(fact.sessionId, session)
    assert.equal(fact.quote, quote)
    const runs = await settledRuns(session, 2)
    assert.deepEqual(
      runs.map((run) => run.decision),
      ['skipped', 'extracted'],
      'the signal-free second turn is not sent to the model',
    )
    assert.equal(model.extractionRequests().length, 1)

    // lastRun.snapshot answers "what did that pass process": the second pass starts where the first one ended.
    const { lastRun } = await queue()
    assert.equal(lastRun?.id, runs[0]?.id)
    assert.equal(lastRun?.snapshot.startSeq, runs[1]?.endSeq)
    assert.ok((lastRun?.snapshot.endSeq ?? 0) > (lastRun?.snapshot.startSeq ?? Infinity))
    assert.equal(lastRun?.snapshot.messageCount, 2, "the user's words and the assistant's reply")
    assert.ok((lastRun?.snapshot.chars ?? 0) > 'thanks, that is all for now'.length)
    assert.match(lastRun?.snapshot.textSha256 ?? '', /^[0-9a-f]{64}$/u)
  })

  it('drops a candidate whose quote is not in the conversation', async () => {
    model.enqueueExtraction(
      answer({
        subject: 'billing service',
        property: 'port',
        value: '7311',
        quote: 'billing listens on 7311 in production',
        confidence: 0.9,
      }),
    )
    const session = await turn('the billing service port is 7311')
    const [run] = await settledRuns(session)
    assert.ok(run)
    assert.equal(run.decision, 'extracted')
    assert.equal(run.written, 0)
    assert.equal(run.review, 0)
    assert.deepEqual(run.refused, [
      { reason: 'quote_not_in_input', subject: 'billing service', property: 'port', value: '7311' },
    ])
    const detail = (await api.ok('extract-run', { id: run.id }))['run'] as ExtractRun
    assert.match(detail.textSent ?? '', /\[user\]\nthe billing service port is 7311/u)
    assert.equal(await findFact('billing service', 'port'), undefined)
  })

  it('queues a low-confidence candidate as a proposal instead of a fact', async () => {
    const quote = 'the docs site theme is Solarized'
    model.enqueueExtraction(
      answer({ subject: 'docs site', property: 'theme', value: 'Solarized', quote, confidence: 0.4 }),
    )
    const session = await turn(quote)
    const [run] = await settledRuns(session)
    assert.equal(run?.written, 0)
    assert.equal(run?.review, 1)
    const cards = (await api.ok('proposals', { status: 'pending', limit: 100 }))['proposals'] as CardView[]
    const card = cards.find((entry) => entry.id === run?.proposalIds[0])
    assert.ok(card, `no pending card ${JSON.stringify(run?.proposalIds)} among ${JSON.stringify(cards)}`)
    assert.deepEqual(
      card.rows.map(({ subject, property, value, confidence }) => ({ subject, property, value, confidence })),
      [{ subject: 'docs site', property: 'theme', value: 'Solarized', confidence: 0.4 }],
    )
    assert.equal(await findFact('docs site', 'theme'), undefined)
  })

  it("sends the user's words but never tool output, the notice or the runtime context to the model", async () => {
    const file = join(home.workspace, 'vault-notes.txt')
    writeFileSync(file, 'TOOLSECRET-7731\nthe vault service port is 7731\n')
    const prompt = 'please read vault-notes.txt; also, the cache cluster port is 6390'
    model.enqueueExtraction(
      answer({
        subject: 'cache cluster',
        property: 'port',
        value: '6390',
        quote: 'the cache cluster port is 6390',
        confidence: 0.9,
      }),
    )
    const session = await turn(prompt, { steps: [{ toolCalls: [{ name: 'read', arguments: { file_path: file } }] }] })
    await settledRuns(session)

    // The agent did see all of it, so leaving it out of extraction is a choice, not an accident.
    const agentSaw = model.agentRequests().map(bodyOf).join('\n')
    for (const seen of [
      'TOOLSECRET-7731',
      'Current runtime context',
      'Fact memory is on:',
      'Fact memory: values recorded in earlier conversations',
    ]) {
      assert.ok(agentSaw.includes(seen), `the agent request should carry ${seen}`)
    }
    const extraction = model.extractionRequests()
    assert.equal(extraction.length, 1)
    const sent = bodyOf(extraction[0] as RecordedRequest)
    assert.ok(sent.includes(prompt), "the user's words reach the model")
    for (const leak of [
      'TOOLSECRET-7731',
      'vault service',
      'Current runtime context',
      'Fact memory is on',
      'Fact memory is available',
      'Fact memory: values recorded',
    ]) {
      assert.ok(!sent.includes(leak), `the extraction request carries ${leak}`)
    }
    assert.equal((await landed('cache cluster', 'port')).value, '6390')
    assert.equal(await findFact('vault service', 'port'), undefined)
  })

  it('never reads a delegated subagent session', async () => {
    const firstRun = Math.max(0, ...(await queue()).recent.map((run) => run.id))
    const childAnswer = 'The build server runs on port 9444.'
    model.enqueueExtraction(
      answer({
        subject: 'release train',
        property: 'day',
        value: 'Thursday',
        quote: 'the release train day is Thursday',
        confidence: 0.9,
      }),
    )
    const session = await turn('the release train day is Thursday; ask a helper to look at the build server', {
      steps: [
        {
          toolCalls: [
            {
              name: 'subagent',
              arguments: {
                description: 'check build server',
                prompt: 'Check the build server and report what you find.',
                run_in_background: false,
              },
            },
          ],
        },
        { text: childAnswer },
      ],
    })
    await settledRuns(session)
    await until(async () => (await queue()).running.length === 0, 'every pass to settle')

    // The child really ran: its prompt reached the model in a request of its own, and its answer came back as a tool result.
    const requests = model.agentRequests()
    assert.ok(
      requests.some((request) =>
        request.body.messages.some(
          (message) => message.role === 'user' && messageText(message).includes('Check the build server'),
        ),
      ),
    )
    assert.ok(
      requests
        .at(-1)
        ?.body.messages.some(
          (message) => message.role === 'tool' && JSON.stringify(message.content).includes(childAnswer),
        ),
    )

    const runs = (await queue()).recent.filter((run) => run.id > firstRun)
    assert.deepEqual(
      runs.map((run) => run.sessionId),
      [session],
      'only the parent session was read',
    )
    for (const request of model.extractionRequests())
      assert.ok(!bodyOf(request).includes('9444'), "the child's words reached extraction")
    assert.equal((await landed('release train', 'day')).value, 'Thursday')
    assert.ok(!(await allFacts()).some((fact) => fact.value.includes('9444')))
  })

  it('keeps a failed range for a later pass, with a retry due a minute later', async () => {
    const quote = 'the ledger service port is 7444'
    model.enqueueExtraction({ status: 500 })
    const session = await turn(quote)
    const entry = await waitFor(
      async () => (await queue()).running.find((line) => line.sessionId === session && line.state === 'retry'),
      async () => `a retry for the failed pass; queue: ${JSON.stringify(await queue())}`,
    )
    assert.equal(entry.attempt, 2)
    const dueIn = Date.parse(entry.at) - Date.now()
    assert.ok(dueIn > 45_000 && dueIn <= 60_000, `the retry is due in ${dueIn} ms`)
    assert.match(entry.lastError ?? '', /500|scripted failure/u)
    const [failed] = (await queue()).recent.filter((run) => run.sessionId === session)
    assert.equal(failed?.decision, 'failed')
    assert.equal(failed?.error, entry.lastError)
    assert.equal(failed?.written, 0)
    assert.equal(await findFact('ledger service', 'port'), undefined)

    // Re-apply the plugin instead of waiting a minute: a composition change (the host merges the live settings over
    // it and re-applies only when the result differs) gives a fresh, empty queue, and the session's next turn is read
    // from the cursor the failed pass left where it was.
    home.writeProfilePatch('web', '- id: dsh-fact-memory\n  config:\n    searchLimit: 4\n')
    const reapplied = await waitFor(
      async () => {
        try {
          const view = await queue()
          return view.running.some((line) => line.sessionId === session) ? undefined : view
        } catch {
          return undefined // the routes are briefly away while the plugin re-applies
        }
      },
      async () => `the plugin to be re-applied with an empty queue: ${JSON.stringify(await queue().catch(String))}`,
    )
    assert.equal(reapplied.autoExtract, true, 'the live settings survive the re-apply')
    assert.equal(reapplied.delayMs, MODEL_PATH.extractDelayMs)
    model.enqueueExtraction(
      answer({ subject: 'ledger service', property: 'port', value: '7444', quote, confidence: 0.9 }),
    )
    await turn('and its region is eu-west-3', { session })
    const [retried] = await settledRuns(session, 2)
    assert.equal(retried?.decision, 'extracted')
    assert.equal(retried?.startSeq, failed?.startSeq, 'the cursor did not move past the failed range')
    const sent = model.extractionRequests().map(bodyOf)
    assert.equal(sent.length, 2)
    assert.ok(
      sent[1]?.includes(quote) && sent[1].includes('and its region is eu-west-3'),
      'the later pass carries the earlier text',
    )
    assert.equal((await landed('ledger service', 'port')).value, '7444')
  })

  it('reads a turn the user cancelled', async () => {
    const quote = 'the metrics exporter listens on port 9302'
    model.enqueueExtraction(
      answer({ subject: 'metrics exporter', property: 'port', value: '9302', quote, confidence: 0.9 }),
    )
    model.enqueue({ stall: 'Let me look' })
    const served = model.agentRequests().length
    const { sessionId } = await hostApi<{ sessionId: string }>(host.url, 'session.create', { cwd: home.workspace })
    await hostApi(host.url, 'session.prompt', {
      sessionId,
      mode: 'queue',
      content: [{ type: 'text', text: `${quote}; check it for me` }],
    })
    await until(() => model.agentRequests().length > served, 'the stalled step to be requested')
    await hostApi(host.url, 'session.cancel', { sessionId })

    const [run] = await settledRuns(sessionId)
    assert.equal(run?.decision, 'extracted')
    const [asked] = model.extractionRequests()
    assert.ok(asked !== undefined && bodyOf(asked).includes(quote), "the cancelled turn's words reach the model")
    assert.equal((await landed('metrics exporter', 'port')).value, '9302')
    const history = JSON.stringify(await hostApi(host.url, 'session.history', { sessionId }))
    assert.match(
      history,
      /"type":"turn\/end"[^}]*"data":\{"turn":1,"reason":\{"kind":"aborted"/u,
      'the host ended the turn as aborted',
    )
  })

  it('captures an explicit request by rule when the model path is off, and never a key', async () => {
    await settings({ autoExtract: false, autoCapture: true })
    const session = await turn('remember that the staging host is db-2')
    const fact = await landed('staging', 'host')
    assert.equal(fact.value, 'db-2')
    assert.equal(fact.origin, 'rule')
    assert.equal(fact.evidence, 'explicit_user')
    assert.equal(fact.sessionId, session)

    await turn('remember my key sk-abcdef0123456789abcdef0123', { session })
    // A later message is captured in order, so by the time it lands the key message has been looked at.
    await turn('remember that the qa host is db-3', { session })
    assert.equal((await landed('qa', 'host')).value, 'db-3')
    const stored = await allFacts()
    for (const fact of stored)
      assert.ok(
        !`${fact.subject} ${fact.value} ${fact.quote ?? ''}`.includes('sk-abcdef'),
        `fact #${fact.id} holds the key`,
      )
    // The facts route masks a credential's value and quote, so also ask what the key message left behind: nothing.
    assert.deepEqual(
      stored
        .filter((fact) => fact.sessionId === session)
        .map((fact) => `${fact.subject} · ${fact.property} = ${fact.value}`)
        .sort(),
      ['qa · host = db-3', 'staging · host = db-2'],
    )
    const cards = (await api.ok('proposals', { status: 'all', limit: 100 }))['proposals'] as CardView[]
    assert.ok(!JSON.stringify(cards).includes('sk-abcdef'))
    assert.equal(model.extractionRequests().length, 0, 'the model path is off')
  })

  it('extracts from a pasted text through the extract route, dry or for real', async () => {
    const text = 'From the ops wiki: The metrics service listens on port 9091.'
    const reply: ExtractionReply = answer({
      subject: 'metrics service',
      property: 'port',
      value: '9091',
      quote: 'The metrics service listens on port 9091.',
      confidence: 0.9,
    })
    model.enqueueExtraction(reply, reply)
    const dry = await api.ok('extract', { text, dryRun: true })
    assert.deepEqual(
      (dry['candidates'] as Candidate[]).map(({ subject, property, value }) => ({ subject, property, value })),
      [{ subject: 'metrics service', property: 'port', value: '9091' }],
    )
    assert.deepEqual(dry['factIds'], [])
    assert.equal(await findFact('metrics service', 'port'), undefined, 'a dry run writes nothing')

    const real = await api.ok('extract', { text })
    const fact = await findFact('metrics service', 'port')
    assert.ok(fact)
    assert.deepEqual(real['factIds'], [fact.id])
    assert.equal(fact.value, '9091')
    assert.equal(fact.evidence, 'observed')
    assert.equal(fact.origin, 'extract')
    assert.equal(fact.sessionId, null)
    assert.equal(model.extractionRequests().length, 2)
  })
})
