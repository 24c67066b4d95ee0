/**
 * Per-turn recall, measured where the model reads it (`npm run bench -- --only recall`).
 *
 * 1. LoCoMo: each conversation's observations are written through the memory_write tool (as the LoCoMo part writes
 *    them, in both shapes), the plugin is applied to that store inside the real rc.8 agent services
 *    (tests/helpers/inproc-host.ts: AgentRegistry, AgentLoop, LlmRuntime, SessionStore, SystemPrompt, ToolRuntime and a
 *    scripted model), and every question is one turn of a fresh agent: the question is the user's own message and the
 *    model answers at once with text. The model's first request of the turn is read: the directory section of the
 *    runtime-context snapshot and the recall block after the user's message. Recall ids are read off the block's rows
 *    (`[#12 · …`); directory lines carry no id, so the directory is rendered again from the same store with the same
 *    renderer and configuration, checked byte for byte against the snapshot the model got, and that rendering names the
 *    facts it lists. A control asks the next conversation's questions of each library (false recall).
 * 2. Latency of `FactMemory.recall` (the pre-step hook's work) on the synthetic corpus of the speed part at each size,
 *    lexical channels only, for questions naming stored subjects, questions about nothing stored and long coding-task
 *    messages, and for the coding-recall bench's developer messages in a session inside a project of 300 facts.
 *
 * Options: --recall-min-score 0.3,0.5,0.7   --recall-max-facts 6,10   --recall-budget-tokens 600,1200   (a grid of
 * configuration overrides, every combination run; the defaults are the shipped configuration's)
 *          --recall-sample N (the first N questions of each conversation; all by default)
 * A benchmark, not a test: nothing here passes or fails.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { Fiber } from '@deepseek-ai/cordis'
import type { GenerateOptions, Message } from '@deepseek-ai/dsh-llm'
import { SessionId } from '@deepseek-ai/dsh-session'
import { systemClock } from '../src/clock.ts'
import { configWith, resolveConfig, type Config, type ResolvedConfig } from '../src/config.ts'
import { CHARS_PER_TOKEN, renderDirectoryShown } from '../src/directory.ts'
import { FactMemory } from '../src/fact-memory.ts'
import * as plugin from '../src/index.ts'
import { memoryWriteTool } from '../src/tools/memory-write.ts'
import { startInprocHost, type InprocHost } from '../tests/helpers/inproc-host.ts'
import { CODING_FACTS, CODING_MESSAGES } from './bench-coding-library.ts'
import { makeCorpus, mulberry32, PROPERTIES_EN, PROPERTIES_ZH, seedStore, type Corpus } from './bench-corpus.ts'
import {
  evidenceIds,
  renderedFactIds,
  SessionClock,
  writeObservations,
  type LocomoSample,
  type LocomoShape,
} from './bench-locomo.ts'
import { ratio, pct } from './bench-stats.ts'

/** What the bench is given by scripts/bench.ts. */
export interface RecallBenchOptions {
  /** locomo10.json, or undefined to skip the LoCoMo part. */
  readonly locomo: string | undefined
  /** Library sizes for the latency part. */
  readonly sizes: readonly number[]
  /** The command line (for the grid options). */
  readonly args: readonly string[]
}

/** Characters one part of the request took per turn. */
export interface CharFigures {
  /** Turns with a block, 0-1. */
  readonly shareWithBlock: number
  /** Per turn, turns without a block counted as 0. */
  readonly medianPerTurn: number
  readonly p95PerTurn: number
  /** Over the turns that had a block. */
  readonly medianOfBlocks: number
  readonly maxOfBlocks: number
}

/** One category's reach. */
export interface RecallReachRow {
  /** 0 for categories 1-4 together. */
  readonly category: number
  readonly questions: number
  /** An evidence fact is among the directory's lines. */
  readonly directory: number
  /** … among the recall block's first 5 (10) rows. */
  readonly blockAt5: number
  readonly blockAt10: number
  /** … among the directory's lines or the block's first 5 rows. */
  readonly anyAt5: number
  /** … anywhere the directory or the block shows (any@block). */
  readonly anyAtBlock: number
  /** Every evidence fact is shown somewhere. */
  readonly allAtBlock: number
}

/** One shape at one configuration. */
export interface RecallQuality {
  readonly shape: LocomoShape
  readonly minScore: number
  readonly maxFacts: number
  /** recallBudgetTokens × 2. */
  readonly budgetChars: number
  readonly facts: number
  readonly questions: number
  readonly rows: readonly RecallReachRow[]
  readonly block: CharFigures
  /** The directory section's characters (the same for every turn of one library). */
  readonly directoryChars: { readonly mean: number; readonly max: number }
  /** Another conversation's questions against each library. */
  readonly control: { readonly questions: number } & CharFigures
  /** Snapshots whose directory did not match the store's own rendering byte for byte (expected 0). */
  readonly directoryMismatches: number
  /** Wall time of the run. */
  readonly seconds: number
}

/** Recall latency at one library size. */
export interface RecallLatency {
  readonly facts: number
  readonly seedSeconds: number
  readonly overall: Percentiles
  readonly kinds: readonly {
    readonly kind: MessageKind
    readonly messages: number
    readonly ms: Percentiles
    readonly shareWithBlock: number /** Over the messages that got a block. */
    readonly medianChars: number
  }[]
}

/** The bench's figures. */
export interface RecallBench {
  readonly locomo: readonly RecallQuality[]
  readonly latency: readonly RecallLatency[]
}

type Percentiles = { readonly p50: number; readonly p95: number; readonly max: number; readonly n: number }
type MessageKind =
  | 'names a stored subject'
  | 'about nothing stored'
  | 'long coding task (300-1500 chars)'
  | "a developer's message in a project of 300 facts"

const CATEGORY = ['all (1-4)', 'multi-hop', 'temporal', 'open-domain', 'single-hop']
const SHAPE_LABEL: Readonly<Record<LocomoShape, string>> = {
  multi: 'one multi-valued observation slot per speaker',
  slot: 'one slot per observation',
}
const RECALL_HEAD = 'Fact memory recalled for this message:'
/** The facts of the repository the latency part's developer messages are sent in. */
const PROJECT_FACTS = 300
const SNAPSHOT_HEAD = 'Current runtime context.'

/**
 * Run the recall bench, print its tables and return its figures.
 * @param options - the LoCoMo file, the sizes and the command line.
 * @returns the figures, for the bench's JSON.
 */
export async function recallBench(options: RecallBenchOptions): Promise<RecallBench> {
  const option = (name: string): string | undefined => {
    const index = options.args.indexOf(name)
    return index >= 0 ? options.args[index + 1] : undefined
  }
  const shipped = configWith({})
  const minScores = (option('--recall-min-score') ?? String(shipped.recallMinScore)).split(',').map(Number)
  const maxFacts = (option('--recall-max-facts') ?? String(shipped.recallMaxFacts)).split(',').map(Number)
  const budgets = (option('--recall-budget-tokens') ?? String(shipped.recallBudgetTokens)).split(',').map(Number)
  const sample = option('--recall-sample') === undefined ? Infinity : Number(option('--recall-sample'))
  const locomo: RecallQuality[] = []
  if (options.locomo !== undefined) {
    const grid = minScores.flatMap((minScore) =>
      maxFacts.flatMap((facts) =>
        budgets.map((budget) => ({ recallMinScore: minScore, recallMaxFacts: facts, recallBudgetTokens: budget })),
      ),
    )
    for (const shape of ['multi', 'slot'] as const) {
      const libraries = await buildLibraries(options.locomo, shape, sample)
      try {
        for (const overrides of grid) {
          const quality = await recallQuality(libraries, shape, overrides)
          locomo.push(quality)
          printQuality(quality)
        }
      } finally {
        for (const library of libraries) library.close()
      }
    }
    if (locomo.length > 2) printGrid(locomo)
  }
  const latency = await latencies(options.sizes.filter((size) => size > 0))
  printLatency(latency)
  return { locomo, latency }
}

// ---------------------------------------------------------------------------------------------------------------
// LoCoMo libraries, written as the LoCoMo part writes them

interface Question {
  readonly text: string
  readonly category: number
  /** Dialogue ids of the evidence turns. */
  readonly evidence: readonly string[]
}

interface Library {
  readonly dir: string
  /** The store as the bench wrote it, open for the directory's second rendering. */
  readonly memory: FactMemory
  /** Fact id → the dialogue turn its observation came from. */
  readonly diaOf: ReadonlyMap<number, string>
  readonly questions: readonly Question[]
  close(): void
}

async function buildLibraries(path: string, shape: LocomoShape, sample: number): Promise<Library[]> {
  const samples = JSON.parse(readFileSync(path, 'utf8')) as LocomoSample[]
  const libraries: Library[] = []
  for (const conversation of samples) {
    const dir = mkdtempSync(join(tmpdir(), `fact-memory-recall-${shape}-`))
    const config = resolveConfig(configWith({ dataDir: dir, storeTimezone: 'UTC' }), { dshHome: dir, userHome: dir })
    const clock = new SessionClock()
    const memory = new FactMemory({ clock })
    memory.open(dir)
    const diaOf = await writeObservations(conversation, shape, memoryWriteTool({ memory, config: () => config }), clock)
    const questions = conversation.qa
      .filter((qa) => qa.category !== 5)
      .map((qa) => ({ text: qa.question, category: qa.category, evidence: evidenceIds(qa.evidence) }))
      .filter((question) => question.evidence.length > 0)
      .slice(0, sample)
    libraries.push({
      dir,
      memory,
      diaOf,
      questions,
      close: () => {
        memory.close()
        rmSync(dir, { recursive: true, force: true })
      },
    })
  }
  return libraries
}

// ---------------------------------------------------------------------------------------------------------------
// One turn through the agent loop, and what its first request carried

/** What the model's first request of a turn showed of the memory. */
interface Seen {
  /** The directory section of the runtime-context snapshot, or ''. */
  readonly directory: string
  /** The recall block after the user's message, or ''. */
  readonly block: string
}

function textOf(message: Message): string {
  return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n')
}

/**
 * One turn of a fresh agent (a fresh session: no earlier notice, snapshot or history), the model answering at once.
 * @param cwd - the session's working directory, when it has one.
 * @returns the model's first request of the turn.
 */
export async function oneTurn(
  host: InprocHost,
  sessionId: string,
  text: string,
  cwd?: string,
): Promise<GenerateOptions> {
  host.adapter.requests.length = 0
  host.adapter.script.length = 0
  host.adapter.script.push({ text: 'ok' })
  const handle = await host.ctx.agentLoop.createAgent(host.ctx, {
    sessionId: SessionId(sessionId),
    agentOptions: { provider: 'mock', model: 'mock' },
    ...(cwd === undefined ? {} : { meta: { cwd } }),
  })
  try {
    await host.say(handle.agent, text)
  } finally {
    await handle.dispose()
  }
  const first = host.adapter.requests.find((request) => (request.tools?.length ?? 0) > 0)
  if (first === undefined) throw new Error(`the model was not asked for ${sessionId}`)
  return first
}

/** Read a request as the model reads it: the last runtime-context snapshot's directory, and the block after the user's message. */
function seenIn(request: GenerateOptions, question: string): Seen {
  const messages = request.messages
  const own = messages.findIndex(
    (message) => message.role === 'user' && message.source.kind === 'user' && textOf(message) === question,
  )
  if (own < 0) throw new Error("the user's message is not in the request")
  const snapshots = messages.filter((message) => message.role === 'user' && textOf(message).startsWith(SNAPSHOT_HEAD))
  const snapshot = snapshots.length === 0 ? '' : textOf(snapshots[snapshots.length - 1] as Message)
  const directory =
    snapshot
      .split('\n\n')
      .find((section) => section.startsWith('Fact memory:') || section.startsWith('Fact memory (')) ?? ''
  const block =
    messages
      .slice(own + 1)
      .map(textOf)
      .find((text) => text.startsWith(RECALL_HEAD)) ?? ''
  return { directory, block }
}

/**
 * The directory the plugin renders for this store and configuration, with the facts it lists: the same renderer over
 * the same rows `FactMemory.directory` reads.
 */
function directoryOf(memory: FactMemory, config: ResolvedConfig): { text: string; shown: ReadonlySet<number> } {
  const opened = memory.stores()
  if (!('stores' in opened)) throw new Error('store not open')
  const store = opened.stores.facts
  const budgetChars = config.directoryBudget * CHARS_PER_TOKEN
  const visibility = { includeSensitive: config.sensitiveModelVisible }
  const facts = store.directoryFacts(Math.min(Math.ceil(budgetChars / 12) + 1, 5000), visibility)
  return renderDirectoryShown({
    facts,
    total: store.countDirectoryFacts(visibility),
    contested: store.contestedSlots([...new Set(facts.map((fact) => fact.slotKey))]),
    budgetChars,
    timeZone: config.displayTimeZone,
  })
}

interface Tally {
  n: number
  directory: number
  block5: number
  block10: number
  any5: number
  anyBlock: number
  allBlock: number
}

async function recallQuality(
  libraries: readonly Library[],
  shape: LocomoShape,
  overrides: Pick<Config, 'recallMinScore' | 'recallMaxFacts' | 'recallBudgetTokens'>,
): Promise<RecallQuality> {
  const started = performance.now()
  const host = await startInprocHost()
  const tallies = new Map<number, Tally>()
  const blockChars: number[] = []
  const controlChars: number[] = []
  const directoryChars: number[] = []
  let mismatches = 0
  let budgetChars = 0
  try {
    for (const [index, library] of libraries.entries()) {
      const composition = configWith({ dataDir: library.dir, storeTimezone: 'UTC', ...overrides })
      const config = resolveConfig(composition, { dshHome: library.dir, userHome: library.dir })
      budgetChars = config.recallBudgetTokens * CHARS_PER_TOKEN
      const fiber: Fiber = await host.ctx.plugin(plugin, composition)
      try {
        const expected = directoryOf(library.memory, config)
        for (const [q, question] of library.questions.entries()) {
          const seen = seenIn(await oneTurn(host, `recall-${shape}-${index}-${q}`, question.text), question.text)
          if (seen.directory !== expected.text) mismatches += 1
          const directory = seen.directory === expected.text ? expected.shown : new Set<number>()
          directoryChars.push(seen.directory.length)
          blockChars.push(seen.block.length)
          const ranked = renderedFactIds(seen.block)
          const dia = (ids: Iterable<number>): Set<string | undefined> =>
            new Set([...ids].map((id) => library.diaOf.get(id)))
          const inDirectory = dia(directory)
          const at = (k: number): Set<string | undefined> => dia(ranked.slice(0, k))
          const everywhere = new Set([...inDirectory, ...at(Infinity)])
          const tally = tallies.get(question.category) ?? {
            n: 0,
            directory: 0,
            block5: 0,
            block10: 0,
            any5: 0,
            anyBlock: 0,
            allBlock: 0,
          }
          const some = (set: Set<string | undefined>): number => (question.evidence.some((id) => set.has(id)) ? 1 : 0)
          tally.n += 1
          tally.directory += some(inDirectory)
          tally.block5 += some(at(5))
          tally.block10 += some(at(10))
          tally.any5 += some(new Set([...inDirectory, ...at(5)]))
          tally.anyBlock += some(everywhere)
          tally.allBlock += question.evidence.every((id) => everywhere.has(id)) ? 1 : 0
          tallies.set(question.category, tally)
        }
        // The control: the next conversation's questions, asked of this library.
        const other = libraries[(index + 1) % libraries.length]
        for (const [q, question] of (other === library ? [] : (other?.questions ?? [])).entries()) {
          controlChars.push(
            seenIn(await oneTurn(host, `control-${shape}-${index}-${q}`, question.text), question.text).block.length,
          )
        }
      } finally {
        await fiber.dispose()
      }
    }
  } finally {
    await host.dispose()
  }
  const rows = [...tallies.entries()].sort(([a], [b]) => a - b).map(([category, tally]) => reachRow(category, tally))
  const all = [...tallies.values()].reduce(
    (sum, t) => ({
      n: sum.n + t.n,
      directory: sum.directory + t.directory,
      block5: sum.block5 + t.block5,
      block10: sum.block10 + t.block10,
      any5: sum.any5 + t.any5,
      anyBlock: sum.anyBlock + t.anyBlock,
      allBlock: sum.allBlock + t.allBlock,
    }),
    { n: 0, directory: 0, block5: 0, block10: 0, any5: 0, anyBlock: 0, allBlock: 0 },
  )
  rows.push(reachRow(0, all))
  return {
    shape,
    minScore: overrides.recallMinScore,
    maxFacts: overrides.recallMaxFacts,
    budgetChars,
    facts: libraries.reduce((sum, library) => sum + library.diaOf.size, 0),
    questions: all.n,
    rows,
    block: charFigures(blockChars),
    directoryChars: {
      mean: Math.round(directoryChars.reduce((a, b) => a + b, 0) / Math.max(1, directoryChars.length)),
      max: Math.max(0, ...directoryChars),
    },
    control: { questions: controlChars.length, ...charFigures(controlChars) },
    directoryMismatches: mismatches,
    seconds: Math.round((performance.now() - started) / 100) / 10,
  }
}

function reachRow(category: number, t: Tally): RecallReachRow {
  return {
    category,
    questions: t.n,
    directory: ratio(t.directory, t.n),
    blockAt5: ratio(t.block5, t.n),
    blockAt10: ratio(t.block10, t.n),
    anyAt5: ratio(t.any5, t.n),
    anyAtBlock: ratio(t.anyBlock, t.n),
    allAtBlock: ratio(t.allBlock, t.n),
  }
}

function charFigures(chars: readonly number[]): CharFigures {
  const present = chars.filter((length) => length > 0)
  return {
    shareWithBlock: ratio(present.length, chars.length),
    medianPerTurn: quantile(chars, 0.5),
    p95PerTurn: quantile(chars, 0.95),
    medianOfBlocks: quantile(present, 0.5),
    maxOfBlocks: Math.max(0, ...present),
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Latency on the synthetic corpus

const NOTHING_STORED = [
  'how do I center a div with flexbox',
  'write me a haiku about autumn leaves',
  'what is the difference between TCP and UDP',
  'explain the borrow checker in rust',
  'why does my python list comprehension run slower than map',
  'what does git rebase --onto do',
  'which database should I use for a small todo app',
  'how do I read a csv file in pandas and skip the first row',
  'what time zone is Lisbon in',
  'summarise the plot of Hamlet in three sentences',
  'is it safe to store JWTs in localStorage',
  'how many bytes are in a kibibyte',
  'give me a regex for an ISO date',
  'what is a monad, briefly',
  'how do I undo the last commit but keep the changes',
  'recommend a good book on distributed systems',
  '今天天气怎么样',
  '帮我写一个快速排序的例子',
  '解释一下什么是闭包',
  'how do I profile a node script for memory leaks',
  'what port does postgres listen on by default',
  'convert 72 fahrenheit to celsius',
  'what is the capital of Australia',
  'how do I write a unit test for an async function in jest',
  'why is my docker build cache not being used',
]
const CODING_SENTENCES = [
  'I am refactoring the retry logic in our HTTP client so that it backs off exponentially and gives up after five attempts.',
  'Right now the tests in tests/client.spec.ts time out intermittently on CI, and I suspect the fake timers are not advanced.',
  "Here is the stack trace: TypeError: Cannot read properties of undefined (reading 'status') at handleResponse (src/http/client.ts:118:23).",
  'Please keep the public API unchanged; callers pass an options object with timeoutMs, retries and an AbortSignal.',
  'The function should be pure apart from the injected clock, and it must not swallow errors from the abort signal.',
  'We also need a migration that adds a nullable column last_attempt_at to the requests table and backfills it from created_at.',
  'Could you write the change as a small diff, explain each hunk in one sentence, and add a test for the give-up path?',
  'The linter complains about a floating promise in the cleanup handler; make sure every promise is awaited or explicitly voided.',
  'const result = await fetchWithRetry(url, { retries: 5, timeoutMs: 2000, signal })',
  'if (response.status >= 500 && attempt < retries) { await sleep(backoff(attempt)); continue }',
  'For context, the service runs on Node 22 behind a load balancer and the logs go to the usual place.',
  'Performance matters here: this path runs on every request, so avoid allocating a new closure per attempt.',
]

async function latencies(sizes: readonly number[]): Promise<RecallLatency[]> {
  const rows: RecallLatency[] = []
  for (const size of sizes) {
    process.stdout.write(`recall latency: seeding ${size} facts… `)
    const dir = mkdtempSync(join(tmpdir(), `fact-memory-recall-latency-${size}-`))
    const config = resolveConfig(configWith({ dataDir: dir }), { dshHome: dir, userHome: dir })
    // The speed part's corpus at this size (the same seed).
    const corpus = makeCorpus(size, mulberry32(size))
    const seedMs = seedStore(dir, corpus.facts, systemClock, config)
    console.log(`done in ${Math.round(seedMs / 100) / 10} s`)
    const memory = new FactMemory({ clock: systemClock })
    memory.open(dir)
    try {
      // A repository's own facts beside the corpus: a session in it weighs them as its context (recall/project-context.ts).
      const project = { key: 'git:example.com/acme/bench-repo', name: 'bench-repo', repository: true }
      for (let index = 0; index < PROJECT_FACTS; index += 1) {
        const fact = CODING_FACTS[index % CODING_FACTS.length] as (typeof CODING_FACTS)[number]
        memory.write(
          {
            subject: 'bench-repo',
            property: `${fact.property} ${Math.floor(index / CODING_FACTS.length)}`,
            value: fact.value,
            evidence: 'observed',
            origin: 'tool',
            project,
            cues: fact.cues,
          },
          config,
        )
      }
      const messages = [
        ...recallMessages(corpus, mulberry32(size + 1)).map((message) => ({ ...message, project: null })),
        ...CODING_MESSAGES.map((message) => ({
          kind: "a developer's message in a project of 300 facts" as const,
          text: message.text,
          project,
        })),
      ]
      // One untimed pass first: the timed pass is the steady state (compiled code, warm page cache), as a live host is.
      for (const [turn, message] of messages.entries())
        await memory.recall({ text: message.text, sessionId: 'bench-warm', turn, project: message.project }, config)
      const timed: { kind: MessageKind; ms: number; chars: number }[] = []
      for (const [turn, message] of messages.entries()) {
        const started = performance.now()
        const answer = await memory.recall(
          { text: message.text, sessionId: 'bench', turn, project: message.project },
          config,
        )
        timed.push({
          kind: message.kind,
          ms: performance.now() - started,
          chars: answer.kind === 'recalled' ? answer.text.length : 0,
        })
      }
      const kinds = (
        [
          'names a stored subject',
          'about nothing stored',
          'long coding task (300-1500 chars)',
          "a developer's message in a project of 300 facts",
        ] as const
      ).map((kind) => {
        const mine = timed.filter((entry) => entry.kind === kind)
        return {
          kind,
          messages: mine.length,
          ms: percentiles(mine.map((entry) => entry.ms)),
          shareWithBlock: ratio(mine.filter((entry) => entry.chars > 0).length, mine.length),
          medianChars: quantile(
            mine.map((entry) => entry.chars).filter((chars) => chars > 0),
            0.5,
          ),
        }
      })
      rows.push({
        facts: size,
        seedSeconds: Math.round(seedMs / 100) / 10,
        overall: percentiles(timed.map((entry) => entry.ms)),
        kinds,
      })
    } finally {
      memory.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }
  return rows
}

/** 300 realistic user messages: a third name a stored subject, a third are about nothing stored, a third are long coding tasks. */
export function recallMessages(corpus: Corpus, random: () => number): { kind: MessageKind; text: string }[] {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T
  const en = corpus.entities.filter((entity) => !entity.zh)
  const zh = corpus.entities.filter((entity) => entity.zh)
  const out: { kind: MessageKind; text: string }[] = []
  for (let i = 0; i < 100; i += 1) {
    const subject = pick(en).name
    const text = [
      `what is the ${pick(PROPERTIES_EN)} of ${subject}?`,
      `${pick(zh).name}的${pick(PROPERTIES_ZH)}是多少？`,
      `can you check the ${pick(PROPERTIES_EN)} for ${subject} before I deploy it`,
      `is ${subject} still on ${pick(corpus.identifiers)}?`,
    ][i % 4] as string
    out.push({ kind: 'names a stored subject', text })
  }
  const tails = ['', ' please', ', in simple terms', ' with a short example']
  for (let i = 0; i < 100; i += 1)
    out.push({
      kind: 'about nothing stored',
      text: `${NOTHING_STORED[i % NOTHING_STORED.length] ?? ''}${tails[Math.floor(i / NOTHING_STORED.length) % tails.length] ?? ''}`,
    })
  for (let i = 0; i < 100; i += 1) {
    const target = 300 + Math.floor(random() * 1200)
    const parts: string[] = []
    // Half of them name a stored service somewhere in the task, as a real one would.
    if (i % 2 === 0) parts.push(`This is about ${pick(en).name}: its ${pick(PROPERTIES_EN)} changed last week.`)
    while (parts.join(' ').length < target) parts.push(pick(CODING_SENTENCES))
    out.push({ kind: 'long coding task (300-1500 chars)', text: parts.join(' ').slice(0, 1500) })
  }
  return out
}

// ---------------------------------------------------------------------------------------------------------------
// Tables

function printQuality(quality: RecallQuality): void {
  console.log(
    `\nPer-turn recall on LoCoMo, ${SHAPE_LABEL[quality.shape]}: what the model's first request carries, one turn of a fresh agent per question ` +
      `through the rc.8 agent loop (recallMinScore ${quality.minScore}, recallMaxFacts ${quality.maxFacts}, ${quality.budgetChars}-character budget; ` +
      `${quality.facts} observations, ${quality.questions} questions, categories 1-4; ${quality.seconds} s)`,
  )
  console.log(
    '| category | questions | directory | block@5 | block@10 | directory + block@5 | any@block (directory + block) | all@block |',
  )
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|')
  for (const row of quality.rows) {
    console.log(
      `| ${CATEGORY[row.category] ?? row.category} | ${row.questions} | ${row.directory} | ${row.blockAt5} | ${row.blockAt10} | ${row.anyAt5} | ${row.anyAtBlock} | ${row.allAtBlock} |`,
    )
  }
  const { block, control } = quality
  console.log(
    `recall block: on ${pct(block.shareWithBlock)} of turns; characters per turn median ${block.medianPerTurn}, p95 ${block.p95PerTurn} (no block = 0); ` +
      `median block ${block.medianOfBlocks}, largest ${block.maxOfBlocks}. Directory section: mean ${quality.directoryChars.mean}, max ${quality.directoryChars.max} characters` +
      `${quality.directoryMismatches === 0 ? " (every snapshot matched the store's own rendering)" : `; ${quality.directoryMismatches} snapshots did NOT match the store's rendering`}`,
  )
  console.log(
    `control, the next conversation's ${control.questions} questions asked of each library: a block on ${pct(control.shareWithBlock)} of turns, ` +
      `median block ${control.medianOfBlocks} characters (per turn median ${control.medianPerTurn}, p95 ${control.p95PerTurn})`,
  )
}

function printGrid(rows: readonly RecallQuality[]): void {
  console.log('\nPer-turn recall, the trade-off across configuration overrides (overall, categories 1-4)')
  console.log(
    '| shape | recallMinScore | recallMaxFacts | budget chars | any@block | block@5 | turns with a block | chars/turn median / p95 | control: turns with a block | control: median block chars |',
  )
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const row of rows) {
    const all = row.rows.find((entry) => entry.category === 0)
    console.log(
      `| ${row.shape} | ${row.minScore} | ${row.maxFacts} | ${row.budgetChars} | ${all?.anyAtBlock ?? 0} | ${all?.blockAt5 ?? 0} | ${pct(row.block.shareWithBlock)} | ${row.block.medianPerTurn} / ${row.block.p95PerTurn} | ${pct(row.control.shareWithBlock)} | ${row.control.medianOfBlocks} |`,
    )
  }
}

function printLatency(rows: readonly RecallLatency[]): void {
  if (rows.length === 0) return
  console.log(
    "\nPer-turn recall latency, FactMemory.recall (the pre-step hook's work: directory lookup, search, relevance floor, rendering, the ledger row), lexical channels, synthetic corpus",
  )
  console.log('| facts | messages | p50 ms | p95 ms | max ms | turns with a block | median block chars |')
  console.log('|---:|---|---:|---:|---:|---:|---:|')
  for (const row of rows) {
    for (const kind of row.kinds)
      console.log(
        `| ${row.facts} | ${kind.kind} (${kind.messages}) | ${kind.ms.p50} | ${kind.ms.p95} | ${kind.ms.max} | ${pct(kind.shareWithBlock)} | ${kind.medianChars} |`,
      )
    console.log(
      `| ${row.facts} | all (${row.overall.n}) | ${row.overall.p50} | ${row.overall.p95} | ${row.overall.max} | | |`,
    )
  }
}

function percentiles(samples: readonly number[]): Percentiles {
  const round = (ms: number): number => Math.round(ms * 1000) / 1000
  return {
    p50: round(quantile(samples, 0.5, false)),
    p95: round(quantile(samples, 0.95, false)),
    max: round(Math.max(0, ...samples)),
    n: samples.length,
  }
}

/** The q-quantile (nearest rank, as the speed part takes it), rounded to a whole number unless asked not to. */
function quantile(samples: readonly number[], q: number, whole = true): number {
  const sorted = [...samples].sort((a, b) => a - b)
  const value = sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
  return whole ? Math.round(value) : value
}
