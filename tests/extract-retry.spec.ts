/**
 * Parked extraction ranges come back, in process on a real store (one binding) with a fake clock and a scripted
 * model: a range parked after four failed attempts is read again from the session's events once the model answers
 * the next pass, or when Retry is asked for (the extract-retry verb), from the live session or its persisted log; a
 * retry that fails keeps the range parked with one more attempt, narrowed to what is still unread; a second ask joins
 * the retry under way; a range the model keeps failing on stops being retried on its own; and the cursor never moves.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { SessionEvent } from '@deepseek-ai/dsh-session'
import type { Config } from '../src/config.ts'
import { AutoCapture } from '../src/extract/capture.ts'
import { AUTO_RETRY_ATTEMPTS } from '../src/extract/retry.ts'
import type { ExtractionModel, ModelRequest } from '../src/host/model-client.ts'
import type { ExtractSessionView } from '../src/host/ports.ts'
import type { ExtractStore } from '../src/store/extract-store.ts'
import { turnEnd, turnStart, userSays } from './helpers/session-events.ts'
import { ONE_DRIVER } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

/** A live session the test appends to, announcing each event to capture like the host's session/event. */
class LiveSession implements ExtractSessionView {
  readonly events: SessionEvent[] = []
  readonly header = {}
  readonly id: string
  private readonly capture: () => AutoCapture

  constructor(id: string, capture: () => AutoCapture) {
    this.id = id
    this.capture = capture
  }

  requestHeader() {
    return { config: { provider: 'fake', model: 'extractor' } }
  }

  /** One whole turn of user words; returns the turn/end seq. */
  turn(turn: number, ...user: string[]): number {
    const append = (build: (seq: number) => SessionEvent): number => {
      const event = build(this.events.length)
      this.events.push(event)
      this.capture().onEvent(this, event)
      return event.seq
    }
    append((seq) => turnStart(seq, turn))
    for (const text of user) append((seq) => userSays(seq, text))
    return append((seq) => turnEnd(seq, turn))
  }
}

/** A model answering from a script: a JSON text, or a failure with its error. */
class ScriptedModel implements ExtractionModel {
  readonly name = 'fake/extractor'
  readonly requests: ModelRequest[] = []
  readonly answers: (string | { readonly fail: string })[] = []
  async complete(request: ModelRequest) {
    this.requests.push(request)
    const answer = this.answers.shift() ?? { fail: 'no scripted answer' }
    return typeof answer === 'string' ? { ok: true as const, text: answer } : { ok: false as const, error: answer.fail }
  }

  fail(times: number, error = 'the endpoint answered 503'): void {
    for (let i = 0; i < times; i += 1) this.answers.push({ fail: error })
  }

  facts(...facts: { subject: string; property: string; value: string; quote: string }[]): void {
    this.answers.push(JSON.stringify({ facts: facts.map((fact) => ({ ...fact, confidence: 0.9 })) }))
  }
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve))
}

const LEDGER = { subject: 'ledger service', property: 'port', value: '7444', quote: 'the ledger service port is 7444' }
const CACHE = {
  subject: 'cache engine',
  property: 'version',
  value: 'redis-7',
  quote: 'the cache engine version is redis-7',
}

for (const driver of ONE_DRIVER) {
  describe(`parked extraction ranges come back (${driver})`, () => {
    let v: VerbHarness
    let model: ScriptedModel
    let capture: AutoCapture
    /** Sessions the host still has live; one removed from here is read from its persisted log. */
    let live: Map<string, LiveSession>
    /** The persisted logs of every session, as the session query service would read them. */
    let persisted: Map<string, readonly SessionEvent[]>
    const warnings: string[] = []

    beforeEach(() => {
      model = new ScriptedModel()
      live = new Map()
      persisted = new Map()
      v = verbHarness(
        driver,
        { autoExtract: true, extractDelayMs: 0, extractRetryMs: 100 },
        {
          extraction: (h, clock) => {
            capture = new AutoCapture({
              clock,
              logger: {
                info: () => undefined,
                warn: (format, ...args) => {
                  warnings.push(`${format} ${args.join(' ')}`)
                },
              },
              memory: h.memory,
              config: () => h.config,
              model: async () => model,
              session: async (sessionId) => {
                const session = live.get(sessionId)
                if (session !== undefined) return session
                const events = persisted.get(sessionId)
                return events === undefined
                  ? { unavailable: `conversation ${sessionId} is gone` }
                  : { id: sessionId, header: {}, events, requestHeader: () => undefined }
              },
            })
            return capture
          },
        },
      )
    })
    afterEach(() => {
      capture.stop()
      v.dispose()
    })

    const ledger = (): ExtractStore => {
      const opened = v.h.memory.storeSet()
      if (!('stores' in opened)) throw new Error('store not open')
      return opened.stores.extract
    }
    const session = (id = 'session-a'): LiveSession => {
      const created = new LiveSession(id, () => capture)
      live.set(id, created)
      persisted.set(id, created.events)
      return created
    }
    const facts = () =>
      v.h
        .db()
        .all("SELECT subject, property, value, origin, session_id, turn FROM facts WHERE status = 'active' ORDER BY id")
        .map((row) => [row['subject'], row['property'], row['value'], row['origin'], row['session_id'], row['turn']])
    const use = (overrides: Partial<Config>): void => {
      v.h.reconfigure({ autoExtract: true, extractDelayMs: 0, extractRetryMs: 100, ...overrides })
    }

    /** A first turn whose pass fails four times: the first try and the three retries after 100, 500 and 3000 ms. */
    const parkFirstTurn = async (chat: LiveSession): Promise<number> => {
      model.fail(4)
      const end = chat.turn(1, `Remember: ${LEDGER.quote}.`)
      await settle()
      v.clock.advance(0)
      for (const wait of [0, 100, 500, 3000]) {
        v.clock.advance(wait)
        await settle()
      }
      assert.equal(model.requests.length, 4, 'four attempts')
      const [range] = ledger().pending()
      assert.ok(range, 'the range is parked')
      assert.deepEqual([range.sessionId, range.endSeq, range.attempts, range.turns], [chat.id, end, 4, [1]])
      assert.equal(ledger().cursor(chat.id), end, 'the session moved on past it')
      assert.deepEqual(facts(), [])
      return range.id
    }

    it('a parked range is read again once the model answers the next pass, and its facts land on its own turn', async () => {
      const chat = session()
      const id = await parkFirstTurn(chat)
      const cursor = ledger().cursor(chat.id)
      model.facts(CACHE)
      model.facts(LEDGER)
      const end = chat.turn(2, `Remember: ${CACHE.quote}.`)
      v.clock.advance(0)
      await settle()

      assert.equal(model.requests.length, 6, 'the next pass, then the retry')
      assert.match(
        model.requests[5]?.user ?? '',
        /the ledger service port is 7444/u,
        'the retry re-read the parked words from the session',
      )
      assert.doesNotMatch(model.requests[5]?.user ?? '', /redis-7/u, 'and only them')
      assert.deepEqual(facts(), [
        ['cache engine', 'version', 'redis-7', 'extract', chat.id, 2],
        ['ledger service', 'port', '7444', 'extract', chat.id, 1],
      ])
      assert.deepEqual(ledger().pending(), [])
      assert.equal(ledger().pendingById(id)?.resolvedAt, v.clock.iso())
      assert.equal(ledger().cursor(chat.id), Math.max(cursor ?? 0, end), 'the retry never moved the cursor')
      const [retried] = ledger().recent(1)
      assert.deepEqual(
        [retried?.decision, retried?.trigger, retried?.attempt, retried?.written, retried?.note],
        ['extracted', 'turn', 5, 1, `retry of parked range #${id} (the model answered again)`],
      )
    })

    it('Retry from the page reads a range again from the persisted log once the session is no longer live', async () => {
      const chat = session()
      const id = await parkFirstTurn(chat)
      live.delete(chat.id)
      model.facts(LEDGER)
      const answer = await v.ok('extract-retry', { id })
      assert.deepEqual(answer['outcome'], { kind: 'resolved', factIds: [1], proposalIds: [] })
      assert.equal((answer['range'] as { resolvedAt: string | null }).resolvedAt, v.clock.iso())
      assert.deepEqual(facts(), [['ledger service', 'port', '7444', 'extract', chat.id, 1]])
      assert.deepEqual(
        [ledger().recent(1)[0]?.trigger, ledger().recent(1)[0]?.note],
        ['manual', `retry of parked range #${id} (asked from the page)`],
      )

      const again = await v.call('extract-retry', { id })
      assert.deepEqual(again.ok ? 'answered' : [again.code, again.message], [
        'not_found',
        `parked range #${id} was already read again at ${v.clock.iso()}; nothing is left to retry`,
      ])
      const unknown = await v.call('extract-retry', { id: id + 40 })
      assert.deepEqual(unknown.ok ? 'answered' : unknown.code, 'not_found')
      assert.equal(model.requests.length, 5, 'neither refusal called the model')
    })

    it('a retry that fails again keeps the range parked with one more attempt and the new error', async () => {
      const chat = session()
      const id = await parkFirstTurn(chat)
      model.fail(1, 'the endpoint answered 502')
      const answer = await v.ok('extract-retry', { id })
      assert.deepEqual(answer['outcome'], { kind: 'failed', error: 'the endpoint answered 502' })
      const [range] = ledger().pending()
      assert.deepEqual(
        [range?.id, range?.attempts, range?.lastError, range?.startSeq],
        [id, 5, 'the endpoint answered 502', 0],
      )
      assert.deepEqual(
        [ledger().recent(1)[0]?.decision, ledger().recent(1)[0]?.error],
        ['failed', 'the endpoint answered 502'],
      )

      // A session neither live nor persisted is said so, and the range still waits.
      live.delete(chat.id)
      persisted.delete(chat.id)
      const gone = await v.ok('extract-retry', { id })
      assert.deepEqual(gone['outcome'], { kind: 'failed', error: `conversation ${chat.id} is gone` })
      assert.deepEqual(
        ledger()
          .pending()
          .map((entry) => [entry.id, entry.attempts]),
        [[id, 6]],
      )
      assert.equal(model.requests.length, 5, 'no model call for a session that cannot be read')
    })

    it('a second ask while the retry runs joins it: the range is read once', async () => {
      const chat = session()
      const id = await parkFirstTurn(chat)
      model.facts(LEDGER)
      const [first, second] = await Promise.all([v.ok('extract-retry', { id }), v.ok('extract-retry', { id })])
      assert.deepEqual(first['outcome'], second['outcome'])
      assert.equal(model.requests.length, 5)
      assert.equal(facts().length, 1)
    })

    it('a range longer than one pass is read pass by pass, and a failure part-way parks only what is still unread', async () => {
      use({ extractMaxChars: 1000, extractChunksPerPass: 1 })
      const chat = session()
      const long = (i: number): string =>
        `Remember: the service number ${i} port is ${7000 + i}. ${'Context words for the segment. '.repeat(30)}`
      model.fail(4)
      const end = chat.turn(1, long(1), long(2), long(3))
      for (const wait of [0, 100, 500, 3000]) {
        v.clock.advance(wait)
        await settle()
      }
      const [range] = ledger().pending()
      assert.ok(range)
      const fact = (i: number) => ({
        subject: `service number ${i}`,
        property: 'port',
        value: String(7000 + i),
        quote: `the service number ${i} port is ${7000 + i}`,
      })
      model.facts(fact(1))
      model.fail(1, 'timed out')
      const failed = await v.ok('extract-retry', { id: range.id })
      assert.deepEqual(failed['outcome'], { kind: 'failed', error: 'timed out' })
      const narrowed = ledger().pendingById(range.id)
      assert.ok(
        narrowed !== undefined && narrowed.startSeq > range.startSeq && narrowed.endSeq === end,
        JSON.stringify(narrowed),
      )
      assert.deepEqual(
        facts().map((row) => row[0]),
        ['service number 1'],
      )

      model.facts(fact(2))
      model.facts(fact(3))
      const resolved = await v.ok('extract-retry', { id: range.id })
      assert.equal((resolved['outcome'] as { kind: string }).kind, 'resolved')
      assert.deepEqual(
        facts().map((row) => row[0]),
        ['service number 1', 'service number 2', 'service number 3'],
      )
      const sent = model.requests
        .slice(-2)
        .map((request) => request.user)
        .join('\n')
      assert.doesNotMatch(sent, /service number 1 port/u, 'what was read before the failure is not sent again')
    })

    it('a range the model keeps failing on stops being retried on its own; Retry still reads it', async () => {
      const chat = session()
      const id = await parkFirstTurn(chat)
      for (let turn = 2; ledger().pendingById(id)?.attempts !== AUTO_RETRY_ATTEMPTS; turn += 1) {
        assert.ok(turn < 10, 'the automatic retries stop')
        model.facts()
        model.fail(1)
        chat.turn(turn, `Remember: the cache engine version is redis-${turn}.`)
        v.clock.advance(0)
        await settle()
      }
      const asked = model.requests.length
      model.facts()
      chat.turn(20, 'Remember: the queue broker is rabbit-3.')
      v.clock.advance(0)
      await settle()
      assert.equal(model.requests.length, asked + 1, 'the pass ran, and no retry followed it')
      model.facts(LEDGER)
      assert.equal(((await v.ok('extract-retry', { id }))['outcome'] as { kind: string }).kind, 'resolved')
      assert.equal(
        facts().some((row) => row[0] === 'ledger service'),
        true,
      )
    })

    it('a range whose conversation is gone does not hold back the automatic retry of the others', async () => {
      const gone = session('session-gone')
      const goneId = await parkFirstTurn(gone)
      live.delete(gone.id)
      persisted.delete(gone.id)
      const chat = session('session-b')
      model.fail(4)
      chat.turn(1, `Remember: ${LEDGER.quote}.`)
      for (const wait of [0, 100, 500, 3000]) {
        v.clock.advance(wait)
        await settle()
      }
      const other = ledger()
        .pending()
        .find((range) => range.sessionId === chat.id)
      assert.ok(other, 'the second range is parked')
      model.facts(CACHE)
      model.facts(LEDGER)
      chat.turn(2, `Remember: ${CACHE.quote}.`)
      v.clock.advance(0)
      await settle()
      assert.deepEqual(
        ledger()
          .pending()
          .map((range) => [range.id, range.attempts, range.lastError]),
        [[goneId, 5, 'conversation session-gone is gone']],
      )
      assert.equal(
        ledger().pendingById(other.id)?.resolvedAt,
        v.clock.iso(),
        'the readable range was read after the unreadable one failed',
      )
      assert.deepEqual(
        facts().map((row) => [row[0], row[4]]),
        [
          ['cache engine', chat.id],
          ['ledger service', chat.id],
        ],
      )
    })

    it('no automatic retry follows a pass that called no model', async () => {
      const chat = session()
      await parkFirstTurn(chat)
      chat.turn(2, 'thanks')
      v.clock.advance(0)
      await settle()
      assert.equal(model.requests.length, 4, 'a skipped pass says nothing of the model')
      assert.equal(ledger().pending().length, 1)
    })
  })
}
