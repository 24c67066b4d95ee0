/**
 * Extraction timings for npm run bench: what automatic capture adds to a turn (the session/event listener, which is
 * all the conversation ever waits for), the rule path on a user message (run right after it, off the turn), and one
 * pass over a 24,000-character turn with an instant model (everything but the model call: snapshot, prefilter,
 * segments, prompt, answer check, anchoring, shape gate and the writes).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { systemClock } from '../src/clock.ts'
import { configWith, resolveConfig } from '../src/config.ts'
import { AutoCapture } from '../src/extract/capture.ts'
import type { ExtractionModel } from '../src/host/model-client.ts'
import { runPass } from '../src/extract/pass.ts'
import { captureRules } from '../src/extract/rules.ts'
import { FactMemory } from '../src/fact-memory.ts'
import type { ExtractSessionView, SessionEventView } from '../src/host/ports.ts'

/** Percentiles of a sample, in ms. */
export interface Timing {
  readonly p50: number
  readonly p95: number
  readonly max: number
  readonly n: number
}

/** What the extraction bench reports. */
export interface ExtractionTimings {
  /** Listener time per turn (turn/start, the user message, the reply, turn/end), with both paths on. */
  readonly listenerPerTurnMs: Timing
  /** The rule path on one user message, after the turn. */
  readonly rulesPerMessageMs: Timing
  /** One pass over a 24,000-character turn, the model answering instantly with 20 facts. */
  readonly pass24kMs: Timing
}

const PARAGRAPH = 'We went through the deployment plan again today and agreed on the details below. '
const BINDINGS = Array.from({ length: 20 }, (_, i) => `The service svc-${i} runs on port ${8000 + i}.`)

function percentiles(samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number): number =>
    Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) * 1000) / 1000
  return { p50: at(0.5), p95: at(0.95), max: at(1), n: sorted.length }
}

/** A 24,000-character user message with twenty bindings spread through it. */
function longTurn(): string {
  const parts: string[] = []
  let length = 0
  let next = 0
  while (length < 24_000) {
    const part = next < BINDINGS.length && parts.length % 12 === 11 ? (BINDINGS[next++] ?? PARAGRAPH) : PARAGRAPH
    parts.push(part)
    length += part.length + 1
  }
  return parts.join(' ').slice(0, 24_000)
}

function events(user: string, turn: number, from: number): SessionEventView[] {
  return [
    { type: 'turn/start', seq: from, data: { turn } },
    {
      type: 'user/message',
      seq: from + 1,
      data: { role: 'user', content: [{ type: 'text', text: user }], source: { kind: 'user' } },
    },
    {
      type: 'assistant/message',
      seq: from + 2,
      data: { turn, step: 1, message: { content: [{ type: 'text', text: 'Noted, thanks.' }] } },
    },
    { type: 'turn/end', seq: from + 3, data: { turn, reason: { kind: 'completed' } } },
  ]
}

/**
 * Measure extraction.
 * @returns listener, rule and pass timings.
 */
export async function extractionTimings(): Promise<ExtractionTimings> {
  const root = mkdtempSync(join(tmpdir(), 'fact-memory-bench-extract-'))
  try {
    const config = resolveConfig(
      configWith({ autoCapture: true, autoExtract: true, extractDelayMs: 3_600_000, storeTimezone: 'UTC' }),
      { dshHome: root, userHome: root },
    )
    const memory = new FactMemory({ clock: systemClock })
    memory.open(config.resolvedDataDir)
    const text = longTurn()
    const facts = BINDINGS.map((quote, i) => ({
      subject: `svc-${i}`,
      property: 'port',
      value: String(8000 + i),
      quote: quote.slice(0, -1),
      confidence: 0.9,
    }))
    const instant: ExtractionModel = {
      name: 'bench/instant',
      complete: async () => ({ ok: true, text: JSON.stringify({ facts }) }),
    }

    // The listener: what the conversation waits for. The merge window is an hour, so no pass runs meanwhile.
    const capture = new AutoCapture({
      clock: systemClock,
      logger: { info: () => undefined, warn: () => undefined },
      memory,
      config: () => config,
      model: async () => instant,
      session: async (sessionId) => ({ unavailable: `no session ${sessionId} in the bench` }),
    })
    const log: SessionEventView[] = []
    const session: ExtractSessionView = { id: 'bench-session', header: {}, events: log, requestHeader: () => undefined }
    const listener: number[] = []
    for (let turn = 1; turn <= 300; turn += 1) {
      const turnEvents = events(`Turn ${turn}: remember that the staging host is db-${turn}.`, turn, log.length)
      let spent = 0
      for (const event of turnEvents) {
        log.push(event)
        const started = performance.now()
        capture.onEvent(session, event)
        spent += performance.now() - started
      }
      listener.push(spent)
    }
    capture.stop()

    const rules = BINDINGS.concat(
      Array.from({ length: 180 }, (_, i) => `Remember that the build server for team ${i} is ci-${i}.`),
    ).map((message) => {
      const started = performance.now()
      captureRules(message)
      return performance.now() - started
    })

    const passes: number[] = []
    for (let run = 0; run < 12; run += 1) {
      const sessionId = `bench-pass-${run}`
      const turnEvents = events(text, 1, 0)
      const started = performance.now()
      await runPass(
        { sessionId, endSeq: 3, attempt: 1, trigger: 'turn', signal: new AbortController().signal },
        { memory, config, events: turnEvents, model: instant, clock: systemClock, project: null },
      )
      passes.push(performance.now() - started)
    }
    memory.close()
    return {
      listenerPerTurnMs: percentiles(listener.slice(20)),
      rulesPerMessageMs: percentiles(rules),
      pass24kMs: percentiles(passes.slice(2)),
    }
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}
