/**
 * LoCoMo retrieval quality, measured where the model reads it: every observation is written through the
 * memory_write tool and every question asked through the memory_search tool, both called as the host calls them
 * (execute, then the output's render), at the default search budget. A question counts as answered at k when an
 * evidence turn's fact id is among the first k fact ids of the rendered text, read in the order rendered.
 *
 * Two shapes of the same store:
 * - `multi`: one multi-valued `observation` slot per speaker (the shape a model picks for a stream of statements);
 * - `slot`: one slot per observation (its dialogue turn as a qualifier).
 *
 * LoCoMo: Maharana et al., ACL 2024; data CC BY-NC 4.0, read locally from shared/, never shipped.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Clock } from '../src/clock.ts'
import { configWith, resolveConfig } from '../src/config.ts'
import { FactMemory } from '../src/fact-memory.ts'
import type { ToolCall, ToolSpec } from '../src/host/ports.ts'
import { MONTH_NAMES } from '../src/text/date-mentions.ts'
import { memorySearchTool } from '../src/tools/memory-search.ts'
import { memoryWriteTool } from '../src/tools/memory-write.ts'
import { queryGuards } from '../src/semantic/query-guards.ts'
import { semanticLegs, type EndpointAccess } from '../src/semantic/search-legs.ts'
import { VectorIndex } from '../src/semantic/vector-index.ts'
import { ratio } from './bench-stats.ts'
import { sweepVectors } from './bench-vector-sweep.ts'

/** How observations are laid out in the store. */
export type LocomoShape = 'multi' | 'slot'

/** One category's figures. */
export interface LocomoRow {
  /** 0 for all categories together. */
  readonly category: number
  readonly questions: number
  readonly anyAt5: number
  readonly anyAt10: number
  readonly allAt10: number
}

/** One shape's figures. */
export interface LocomoResult {
  readonly shape: LocomoShape
  /** The embedding model the vector channel ran on, or null for the lexical channels alone. */
  readonly vector: string | null
  readonly facts: number
  readonly questions: number
  readonly rows: readonly LocomoRow[]
  /** Characters of the rendered answers. */
  readonly answerChars: { readonly mean: number; readonly max: number }
  /** The budget the answers were cut to. */
  readonly budgetChars: number
  /** Answers that left a matched fact out to fit the budget. */
  readonly answersCut: number
}

/** `D8:6; D9:17` → [`D8:6`, `D9:17`]; leading zeros dropped; malformed ids skipped. */
export function evidenceIds(evidence: readonly unknown[] | undefined): string[] {
  return (evidence ?? [])
    .flat()
    .flatMap((entry) => String(entry).split(/[;\s,]+/u))
    .map((id) => /^D(\d+):(\d+)$/u.exec(id.trim()))
    .flatMap((match) => (match === null ? [] : [`D${Number(match[1])}:${Number(match[2])}`]))
}

/** `1:56 pm on 8 May, 2023` → epoch ms (UTC), or undefined. */
function sessionInstant(text: unknown): number | undefined {
  const match = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})$/iu.exec(String(text).trim())
  if (match === null) return undefined
  const month = MONTH_NAMES.indexOf(String(match[5]).toLowerCase())
  if (month < 0) return undefined
  const hour = (Number(match[1]) % 12) + (String(match[3]).toLowerCase() === 'pm' ? 12 : 0)
  return Date.UTC(Number(match[6]), month, Number(match[4]), hour, Number(match[2]))
}

/** A clock the bench sets to each session's date, so observations carry the dates they were made on. */
export class SessionClock implements Clock {
  current = Date.UTC(2023, 0, 1)
  now(): number {
    return this.current
  }
  every(): () => void {
    return () => undefined
  }
  after(): () => void {
    return () => undefined
  }
}

const CALL: ToolCall = { callId: 'bench', signal: new AbortController().signal }

/** Call a tool the way the host does: execute, then render the value into the text the model reads. */
async function callTool(tool: ToolSpec, args: Record<string, unknown>): Promise<{ value: unknown; text: string }> {
  const value = await tool.execute(args, CALL)
  const text = tool.output
    .render(args, value as never)
    .map((block) => block.text)
    .join('\n')
  return { value, text }
}

/** Fact ids in the order the rendered text names them, each once. */
export function renderedFactIds(text: string): number[] {
  return [...new Set([...text.matchAll(/\[#(\d+)\b/gu)].map((match) => Number(match[1])))]
}

/** One LoCoMo conversation as the data set holds it. */
export interface LocomoSample {
  readonly conversation: Record<string, unknown>
  readonly observation: Record<string, Record<string, [string, string][]>>
  readonly qa: { readonly question: string; readonly evidence?: unknown[]; readonly category: number }[]
}

/**
 * Write one conversation's observations through the memory_write tool, as the host calls it, each session's on that
 * session's date.
 * @param sample - the conversation.
 * @param shape - how observations are written.
 * @param write - the memory_write tool over the store.
 * @param clock - the clock the store reads, set to each session's date.
 * @returns fact id → the dialogue turn its observation came from.
 */
export async function writeObservations(
  sample: LocomoSample,
  shape: LocomoShape,
  write: ToolSpec,
  clock: SessionClock,
): Promise<Map<number, string>> {
  const diaOf = new Map<number, string>()
  const sessions = Object.keys(sample.observation)
    .map((key) => ({ key, n: Number(/(\d+)/u.exec(key)?.[1] ?? 0) }))
    .sort((a, b) => a.n - b.n)
  for (const { key, n } of sessions) {
    clock.current = sessionInstant(sample.conversation[`session_${n}_date_time`]) ?? clock.current
    for (const [speaker, observations] of Object.entries(sample.observation[key] ?? {})) {
      for (const [text, dia] of observations) {
        const id = evidenceIds([dia])[0]
        if (id === undefined) continue
        const args =
          shape === 'multi'
            ? { subject: speaker, property: 'observation', value: text, evidence: 'observed', multi: true }
            : {
                subject: speaker,
                property: 'observation',
                value: text,
                evidence: 'observed',
                qualifiers: { dialogue: id },
              }
        const { value } = await callTool(write, args)
        const factId = (value as { factId: number | null }).factId
        if (factId !== null) diaOf.set(factId, id)
      }
    }
  }
  return diaOf
}

/**
 * Measure one shape over every conversation.
 * @param path - locomo10.json.
 * @param shape - how observations are written.
 * @returns the figures per category and overall.
 */
export async function locomoQuality(
  path: string,
  shape: LocomoShape,
  semantic?: LocomoSemantic,
): Promise<LocomoResult> {
  const samples = JSON.parse(readFileSync(path, 'utf8')) as LocomoSample[]
  const totals = new Map<number, { n: number; any5: number; any10: number; all10: number }>()
  let factCount = 0
  let questionCount = 0
  let chars = 0
  let maxChars = 0
  let budgetChars = 0
  let cut = 0
  for (const sample of samples) {
    const dir = mkdtempSync(join(tmpdir(), `fact-memory-locomo-${shape}-`))
    const config = resolveConfig(
      configWith({
        dataDir: dir,
        storeTimezone: 'UTC',
        ...(semantic === undefined
          ? {}
          : { embeddingSource: 'openai', embeddingBaseUrl: semantic.baseUrl, embeddingModel: semantic.model }),
      }),
      { dshHome: dir, userHome: dir },
    )
    budgetChars = config.searchBudgetTokens * 2
    const clock = new SessionClock()
    const access: EndpointAccess = { key: async () => undefined, fetch: globalThis.fetch, now: () => clock.now() }
    const index = new VectorIndex()
    // A quality figure: every question asks the endpoint, as it did before the breaker (a slow local model never skipped).
    const guards = queryGuards(() => clock.now(), { breaker: 'off' })
    const memory = new FactMemory({
      clock,
      ...(semantic === undefined
        ? {}
        : { semantic: (current, stores) => semanticLegs(access, index, guards, current, stores) }),
    })
    memory.open(dir)
    const deps = { memory, config: () => config }
    const write = memoryWriteTool(deps)
    const search = memorySearchTool(deps)
    const diaOf = await writeObservations(sample, shape, write, clock)
    factCount += diaOf.size
    if (semantic !== undefined) await sweepVectors(memory, config, access, 'LoCoMo')
    for (const qa of sample.qa) {
      if (qa.category === 5) continue
      const wanted = evidenceIds(qa.evidence)
      if (wanted.length === 0) continue
      questionCount += 1
      const { text } = await callTool(search, { query: qa.question, limit: 10 })
      chars += text.length
      if (/left out to fit/u.test(text)) cut += 1
      maxChars = Math.max(maxChars, text.length)
      const ranked = renderedFactIds(text).map((id) => diaOf.get(id))
      const top = (k: number): Set<string | undefined> => new Set(ranked.slice(0, k))
      const entry = totals.get(qa.category) ?? { n: 0, any5: 0, any10: 0, all10: 0 }
      entry.n += 1
      if (wanted.some((id) => top(5).has(id))) entry.any5 += 1
      if (wanted.some((id) => top(10).has(id))) entry.any10 += 1
      if (wanted.every((id) => top(10).has(id))) entry.all10 += 1
      totals.set(qa.category, entry)
    }
    memory.close()
    rmSync(dir, { recursive: true, force: true })
  }
  const rows: LocomoRow[] = [...totals.entries()]
    .sort(([a], [b]) => a - b)
    .map(([category, t]) => ({
      category,
      questions: t.n,
      anyAt5: ratio(t.any5, t.n),
      anyAt10: ratio(t.any10, t.n),
      allAt10: ratio(t.all10, t.n),
    }))
  const all = [...totals.values()].reduce(
    (sum, t) => ({ n: sum.n + t.n, any5: sum.any5 + t.any5, any10: sum.any10 + t.any10, all10: sum.all10 + t.all10 }),
    { n: 0, any5: 0, any10: 0, all10: 0 },
  )
  rows.push({
    category: 0,
    questions: all.n,
    anyAt5: ratio(all.any5, all.n),
    anyAt10: ratio(all.any10, all.n),
    allAt10: ratio(all.all10, all.n),
  })
  return {
    shape,
    vector: semantic?.model ?? null,
    facts: factCount,
    questions: questionCount,
    rows,
    answerChars: { mean: questionCount === 0 ? 0 : Math.round(chars / questionCount), max: maxChars },
    budgetChars,
    answersCut: cut,
  }
}

/** The fake embedding endpoint a LoCoMo run may point the vector channel at (a plumbing check, not a model). */
export interface LocomoSemantic {
  /** e.g. http://127.0.0.1:PORT/v1 */
  readonly baseUrl: string
  readonly model: string
}
