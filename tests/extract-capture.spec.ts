/**
 * Automatic capture as the session event listener drives it, in process on a real store with a fake clock and a
 * scripted model: the rule path (and its silence when the model path will read the message), the model path's
 * queueing, subagent sessions, the master switches and one-off extraction.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { SessionEvent } from '@deepseek-ai/dsh-session'
import type { Config, ResolvedConfig } from '../src/config.ts'
import { AutoCapture } from '../src/extract/capture.ts'
import type { ExtractionModel, ModelRequest } from '../src/host/model-client.ts'
import type { ExtractSessionView } from '../src/host/ports.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { assistantSays, turnEnd, turnStart, userSays } from './helpers/session-events.ts'
import { openMemory, type MemoryHandle } from './helpers/store.ts'

/** A live session the test appends to, announcing each event to capture like the host's session/event. */
class LiveSession implements ExtractSessionView {
  readonly events: SessionEvent[] = []
  readonly header: { readonly origin?: 'subagent'; readonly delegationDepth?: number }
  readonly id: string
  private readonly capture: () => AutoCapture

  constructor(id: string, capture: () => AutoCapture, header: { origin?: 'subagent'; delegationDepth?: number } = {}) {
    this.id = id
    this.capture = capture
    this.header = header
  }

  requestHeader() {
    return { config: { provider: 'fake', model: 'extractor' } }
  }

  append(build: (seq: number) => SessionEvent): number {
    const event = build(this.events.length)
    this.events.push(event)
    this.capture().onEvent(this, event)
    return event.seq
  }

  /** One whole turn; returns the turn/end seq. */
  turn(turn: number, user: string, reply?: string): number {
    this.append((seq) => turnStart(seq, turn))
    this.append((seq) => userSays(seq, user))
    if (reply !== undefined) this.append((seq) => assistantSays(seq, turn, [{ type: 'text', text: reply }]))
    return this.append((seq) => turnEnd(seq, turn))
  }
}

class ScriptedModel implements ExtractionModel {
  readonly name = 'fake/extractor'
  readonly requests: ModelRequest[] = []
  readonly answers: string[] = []
  async complete(request: ModelRequest) {
    this.requests.push(request)
    const text = this.answers.shift()
    return text === undefined ? { ok: false as const, error: 'no scripted answer' } : { ok: true as const, text }
  }
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i += 1) await new Promise((resolve) => setImmediate(resolve))
}

describe('automatic capture', () => {
  let h: MemoryHandle
  let config: ResolvedConfig
  let model: ScriptedModel
  let capture: AutoCapture
  const warnings: string[] = []
  beforeEach(() => {
    h = openMemory('better-sqlite3', new FakeClock('2026-03-01T09:00:00.000Z'))
    model = new ScriptedModel()
    config = h.reconfigure({})
    capture = new AutoCapture({
      clock: h.clock,
      logger: {
        info: () => undefined,
        warn: (format, ...args) => {
          warnings.push(`${format} ${args.join(' ')}`)
        },
      },
      memory: h.memory,
      config: () => config,
      model: async () => model,
      session: async (sessionId) => ({ unavailable: `no session ${sessionId} in this test` }),
    })
  })
  afterEach(() => {
    capture.stop()
    h.dispose()
  })

  const use = (overrides: Partial<Config>): void => {
    config = h.reconfigure(overrides)
  }
  const rows = () =>
    h
      .db()
      .all(
        "SELECT subject, property, value, evidence, origin, session_id, turn FROM facts WHERE status <> 'forgotten' ORDER BY id",
      )
      .map((row) => [
        row['subject'],
        row['property'],
        row['value'],
        row['evidence'],
        row['origin'],
        row['session_id'],
        row['turn'],
      ])
  const session = (id = 'session-a', header: { origin?: 'subagent'; delegationDepth?: number } = {}) =>
    new LiveSession(id, () => capture, header)

  it('does nothing while both paths are off (the default)', async () => {
    session().turn(1, 'Remember that the staging host is db-2.')
    await settle()
    h.clock.advance(60_000)
    await settle()
    assert.deepEqual(rows(), [])
    assert.deepEqual(model.requests, [])
  })

  it('rules: captures "remember that the staging host is db-2" right after the message, and never a pasted key', async () => {
    use({ autoCapture: true })
    const live = session()
    live.turn(1, 'Remember that the staging host is db-2.')
    live.turn(2, 'Remember my key sk-abcdef0123456789abcdef0123')
    await settle()
    assert.deepEqual(rows(), [['staging', 'host', 'db-2', 'explicit_user', 'rule', 'session-a', 1]])
    assert.equal(JSON.stringify(h.db().all('SELECT value, quote FROM facts')).includes('sk-abcdef'), false)
  })

  it('rules stay quiet on what the model path will read, except an explicit "remember this"', async () => {
    use({ autoCapture: true, autoExtract: true })
    const live = session()
    live.append((seq) => turnStart(seq, 1))
    live.append((seq) => userSays(seq, 'We run the API on port 8123.'))
    await settle()
    assert.deepEqual(rows(), [], 'the binding is left to the model')
    live.append((seq) => userSays(seq, 'Remember that the staging host is db-2.'))
    await settle()
    assert.deepEqual(
      rows().map((row) => row.slice(0, 3)),
      [['staging', 'host', 'db-2']],
    )
  })

  it('model: a turn/end only enqueues; after the merge window the pass runs, and what the rules already wrote folds', async () => {
    use({ autoCapture: true, autoExtract: true, extractDelayMs: 5000 })
    const live = session()
    model.answers.push(
      JSON.stringify({
        facts: [
          { subject: 'API', property: 'port', value: '8123', quote: 'we run the API on port 8123', confidence: 0.9 },
          { subject: 'staging', property: 'host', value: 'db-2', quote: 'the staging host is db-2', confidence: 0.9 },
        ],
      }),
    )
    const end = live.turn(1, 'Remember that the staging host is db-2, and we run the API on port 8123.')
    await settle()
    assert.equal(capture.busy('session-a'), true)
    assert.deepEqual(
      capture.entries().map((entry) => [entry.state, entry.endSeq]),
      [['debounce', end]],
    )
    assert.equal(model.requests.length, 0, 'nothing runs inside the merge window')
    h.clock.advance(5000)
    await settle()
    assert.equal(model.requests.length, 1)
    assert.equal(capture.busy('session-a'), false)
    // The whole message asked to be remembered, so the rules wrote both at once; the model's copies fold into them.
    assert.deepEqual(
      rows()
        .map((row) => row.slice(0, 5))
        .sort(),
      [
        ['API', 'port', '8123', 'explicit_user', 'rule'],
        ['staging', 'host', 'db-2', 'explicit_user', 'rule'],
      ],
    )
    const opened = h.memory.storeSet()
    const run = 'stores' in opened ? opened.stores.extract.recent(1)[0] : undefined
    assert.deepEqual(
      [run?.decision, run?.written, run?.refused.map((entry) => entry.reason)],
      ['extracted', 0, ['duplicate', 'duplicate']],
    )
  })

  it('never reads a delegated subagent session, by either path', async () => {
    use({ autoCapture: true, autoExtract: true, extractDelayMs: 0 })
    session('child-1', { origin: 'subagent' }).turn(1, 'Remember that the staging host is db-9.')
    session('child-2', { delegationDepth: 1 }).turn(1, 'Remember that the staging host is db-8.')
    await settle()
    h.clock.advance(1000)
    await settle()
    assert.deepEqual(rows(), [])
    assert.deepEqual(model.requests, [])
    assert.deepEqual(capture.entries(), [])
  })

  it('stops when the master switch is off, and extracts a pasted text once, as observed evidence', async () => {
    use({ enabled: false, autoCapture: true, autoExtract: true, extractDelayMs: 0 })
    session().turn(1, 'Remember that the staging host is db-2.')
    await settle()
    assert.deepEqual(rows(), [])
    assert.deepEqual(await capture.extractText('x', { dryRun: false }), {
      ok: false,
      code: 'unavailable',
      message: 'fact memory is switched off',
    })

    use({})
    model.answers.push(
      JSON.stringify({
        facts: [
          {
            subject: 'orders-api',
            property: 'owner',
            value: 'team checkout',
            quote: 'orders-api is owned by team checkout',
            confidence: 0.9,
          },
        ],
      }),
    )
    const dry = await capture.extractText('Notes: orders-api is owned by team checkout.', { dryRun: true })
    assert.equal(dry.ok && dry.candidates.length, 1)
    assert.deepEqual(rows(), [], 'a dry run writes nothing')
    model.answers.push(
      JSON.stringify({
        facts: [
          {
            subject: 'orders-api',
            property: 'owner',
            value: 'team checkout',
            quote: 'orders-api is owned by team checkout',
            confidence: 0.9,
          },
        ],
      }),
    )
    const wet = await capture.extractText('Notes: orders-api is owned by team checkout.', { dryRun: false })
    assert.equal(wet.ok && wet.factIds.length, 1)
    assert.deepEqual(rows(), [['orders-api', 'owner', 'team checkout', 'observed', 'extract', null, null]])
  })
})
