/**
 * Recall where developers work (`npm run bench -- --only coding-recall`): two git repositories, the facts a developer
 * keeps about them and about themselves written with memory_write inside the repository they belong to (through the
 * rc.8 agent loop, the user's own words as the quote), buried under a few hundred newer personal facts; then every
 * message of scripts/bench-coding-library.ts as the first message of a fresh session in its repository, the model
 * answering at once. A hit is the needed fact's value anywhere in the model's first request (the directory or the
 * recall block). The library is written twice, once without cues and once with the cues a model would add, and each
 * is asked every message. Also counted: a recall block on a message about nothing stored, and any value of one
 * repository's facts in a request made in the other (a leak).
 * Options: --coding-verbose (print every miss, false block and leak)
 * A benchmark, not a test: nothing here passes or fails.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { Fiber } from '@deepseek-ai/cordis'
import type { GenerateOptions, Message } from '@deepseek-ai/dsh-llm'
import { SessionId } from '@deepseek-ai/dsh-session'
import { configWith } from '../src/config.ts'
import * as plugin from '../src/index.ts'
import { startInprocHost, type InprocHost } from '../tests/helpers/inproc-host.ts'
import {
  CODING_FACTS,
  CODING_MESSAGES,
  personalFacts,
  REPOSITORIES,
  type CodingMessage,
  type LibraryFact,
  type MessageKind,
} from './bench-coding-library.ts'
import { oneTurn } from './bench-recall.ts'
import { ratio, pct } from './bench-stats.ts'

/** Newer personal facts written after the developer's. */
const PERSONAL_FACTS = 320
const RECALL_HEAD = 'Fact memory recalled for this message:'

/** One variant's figures. */
export interface CodingRecallRun {
  readonly cues: boolean
  /** Writes that did not answer "saved". */
  readonly failedWrites: readonly string[]
  /** Developer facts the directory of a fresh session in each repository lists. */
  readonly inDirectory: { readonly billing: number; readonly shop: number }
  readonly rows: readonly CodingRow[]
  /** The held-out messages alone, by kind (languages together). */
  readonly heldOut: readonly CodingRow[]
  /** Messages about nothing stored that got a recall block (the held-out ones apart). */
  readonly falseBlocks: { readonly messages: number; readonly withBlock: number; readonly share: number }
  readonly heldOutFalseBlocks: { readonly messages: number; readonly withBlock: number; readonly share: number }
  /** Requests that carried another repository's fact. */
  readonly leaks: number
  /** Recall block characters: median over the blocks given. */
  readonly medianBlockChars: number
  readonly seconds: number
}

/** One row of a table: a kind of message in a language (or all), and how many reached the model. */
export interface CodingRow {
  readonly kind: MessageKind
  readonly language: 'en' | 'zh' | 'all'
  readonly messages: number
  readonly hits: number
  readonly share: number
}

/** The bench's figures. */
export interface CodingRecallBench {
  readonly facts: number
  readonly messages: number
  readonly runs: readonly CodingRecallRun[]
}

/**
 * Run the bench, print its tables and return its figures.
 * @param args - the command line.
 * @returns the figures.
 */
export async function codingRecallBench(args: readonly string[]): Promise<CodingRecallBench> {
  const verbose = args.includes('--coding-verbose')
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'fact-memory-coding-')))
  try {
    const repos = makeRepositories(root)
    const personal = personalFacts(PERSONAL_FACTS)
    const runs: CodingRecallRun[] = []
    for (const cues of [false, true]) {
      const run = await oneRun(root, repos, personal, cues, verbose)
      runs.push(run)
      printRun(run)
    }
    return { facts: CODING_FACTS.length + personal.length, messages: CODING_MESSAGES.length, runs }
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

type Repos = Readonly<Record<'billing' | 'shop' | 'global', string>>

/** Two git repositories with an origin and a first commit each, and a plain folder for the user's global facts. */
function makeRepositories(root: string): Repos {
  const git = (cwd: string, ...command: string[]): void => {
    const result = spawnSync('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.invalid', ...command], {
      cwd,
      encoding: 'utf8',
    })
    if (result.status !== 0) throw new Error(`git ${command.join(' ')}: ${result.stderr}`)
  }
  const out: Record<string, string> = {}
  for (const [name, repo] of Object.entries(REPOSITORIES)) {
    const folder = join(root, repo.folder)
    mkdirSync(folder, { recursive: true })
    git(folder, 'init', '-q')
    git(folder, 'remote', 'add', 'origin', repo.origin)
    writeFileSync(join(folder, 'README.md'), `# ${repo.folder}\n`)
    git(folder, 'add', '.')
    git(folder, 'commit', '-q', '-m', 'first commit')
    out[name] = folder
  }
  const notes = join(root, 'notes')
  mkdirSync(notes, { recursive: true })
  return { billing: out['billing'] ?? '', shop: out['shop'] ?? '', global: notes }
}

async function oneRun(
  root: string,
  repos: Repos,
  personal: readonly LibraryFact[],
  cues: boolean,
  verbose: boolean,
): Promise<CodingRecallRun> {
  const started = performance.now()
  const dataDir = join(root, cues ? 'store-cues' : 'store-plain')
  const host = await startInprocHost()
  const fiber: Fiber = await host.ctx.plugin(plugin, configWith({ dataDir, storeTimezone: 'UTC' }))
  try {
    const failedWrites: string[] = []
    // The developer's facts first, each in its own repository's session; then the newer personal ones.
    for (const home of ['billing', 'shop', 'global'] as const) {
      await writeFacts(
        host,
        `write-${home}-${String(cues)}`,
        repos[home],
        CODING_FACTS.filter((fact) => fact.home === home),
        cues,
        failedWrites,
      )
    }
    await writeFacts(host, `write-personal-${String(cues)}`, repos.global, personal, cues, failedWrites)

    const inDirectory = { billing: 0, shop: 0 }
    for (const repo of ['billing', 'shop'] as const) {
      const seen = seenText(await oneTurn(host, `directory-${repo}-${String(cues)}`, 'hello', repos[repo]), 'hello')
      inDirectory[repo] = CODING_FACTS.filter((fact) => seen.directory.includes(fact.value)).length
    }

    const tallies = new Map<string, { messages: number; hits: number }>()
    const count = (kind: MessageKind, language: 'en' | 'zh' | 'all' | 'held-out', hit: boolean): void => {
      const key = `${kind}\u0000${language}`
      const entry = tallies.get(key) ?? { messages: 0, hits: 0 }
      entry.messages += 1
      entry.hits += hit ? 1 : 0
      tallies.set(key, entry)
    }
    let falseBlocks = 0
    let nothing = 0
    let heldFalse = 0
    let heldNothing = 0
    let leaks = 0
    const blockChars: number[] = []
    for (const [index, message] of CODING_MESSAGES.entries()) {
      const seen = seenText(
        await oneTurn(host, `ask-${String(cues)}-${index}`, message.text, repos[message.repo]),
        message.text,
      )
      if (seen.block !== '') blockChars.push(seen.block.length)
      const leaked = CODING_FACTS.filter(
        (fact) => fact.home !== 'global' && fact.home !== message.repo && seen.all.includes(fact.value),
      )
      leaks += leaked.length > 0 ? 1 : 0
      if (verbose && leaked.length > 0)
        console.log(`  LEAK [${message.repo}] ${message.text} ← ${leaked.map((fact) => fact.key).join(', ')}`)
      if (message.needs === null) {
        nothing += 1
        if (message.heldOut === true) heldNothing += 1
        if (seen.block !== '') {
          falseBlocks += 1
          if (message.heldOut === true) heldFalse += 1
          if (verbose)
            console.log(
              `  FALSE BLOCK${message.heldOut === true ? ' (held out)' : ''} [${message.repo}] ${message.text}\n${indent(seen.block)}`,
            )
        }
        continue
      }
      const fact = factOf(message)
      const hit = seen.all.includes(fact.value)
      count(message.kind, message.language, hit)
      count(message.kind, 'all', hit)
      if (message.heldOut === true) count(message.kind, 'held-out', hit)
      if (verbose && !hit)
        console.log(
          `  MISS${message.heldOut === true ? ' (held out)' : ''} ${message.kind}/${message.language} [${message.repo}] ${message.text} → ${fact.key}${seen.block === '' ? ' (no block)' : `\n${indent(seen.block)}`}`,
        )
    }
    const kinds: MessageKind[] = ['direct', 'paraphrase', 'other-language']
    const rows = kinds.flatMap((kind) =>
      (['en', 'zh', 'all'] as const).flatMap((language) => {
        const entry = tallies.get(`${kind}\u0000${language}`)
        return entry === undefined
          ? []
          : [{ kind, language, messages: entry.messages, hits: entry.hits, share: ratio(entry.hits, entry.messages) }]
      }),
    )
    const heldOut = kinds.flatMap((kind) => {
      const entry = tallies.get(`${kind}\u0000held-out`)
      return entry === undefined
        ? []
        : [
            {
              kind,
              language: 'all' as const,
              messages: entry.messages,
              hits: entry.hits,
              share: ratio(entry.hits, entry.messages),
            },
          ]
    })
    return {
      cues,
      failedWrites,
      inDirectory,
      rows,
      heldOut,
      falseBlocks: { messages: nothing, withBlock: falseBlocks, share: ratio(falseBlocks, nothing) },
      heldOutFalseBlocks: { messages: heldNothing, withBlock: heldFalse, share: ratio(heldFalse, heldNothing) },
      leaks,
      medianBlockChars: median(blockChars),
      seconds: Math.round((performance.now() - started) / 100) / 10,
    }
  } finally {
    await fiber.dispose()
    await host.dispose()
  }
}

function factOf(message: CodingMessage): LibraryFact {
  const fact = CODING_FACTS.find((candidate) => candidate.key === message.needs)
  if (fact === undefined) throw new Error(`no fact ${String(message.needs)}`)
  return fact
}

/** One conversation in a folder writing facts, each turn the user's statement and the model's memory_write of it. */
async function writeFacts(
  host: InprocHost,
  sessionId: string,
  cwd: string,
  facts: readonly LibraryFact[],
  cues: boolean,
  failed: string[],
): Promise<void> {
  if (facts.length === 0) return
  const handle = await host.ctx.agentLoop.createAgent(host.ctx, {
    sessionId: SessionId(sessionId),
    agentOptions: { provider: 'mock', model: 'mock' },
    meta: { cwd },
  })
  try {
    for (const fact of facts) {
      host.adapter.requests.length = 0
      host.adapter.script.length = 0
      const args = {
        subject: fact.subject,
        property: fact.property,
        value: fact.value,
        evidence: 'explicit_user',
        quote: fact.said,
        ...(fact.home === 'global' ? {} : { scope: 'project' }),
        ...(cues && fact.cues.length > 0 ? { cues: fact.cues } : {}),
      }
      host.adapter.script.push({ call: { name: 'memory_write', args } }, { text: 'ok' })
      await host.say(handle.agent, fact.said)
      const answer = toolAnswer(host.adapter.requests)
      if (!/^outcome: saved/u.test(answer)) failed.push(`${fact.key}: ${answer.split('\n')[0] ?? ''}`)
    }
  } finally {
    await handle.dispose()
  }
}

/** The text of the newest tool result the model was sent. */
function toolAnswer(requests: readonly GenerateOptions[]): string {
  const blocks = (requests.at(-1)?.messages ?? []).flatMap((message) => message.content)
  const result = [...blocks].reverse().find((block) => block.type === 'tool-result')
  if (result === undefined || result.type !== 'tool-result') return ''
  return result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
}

function textOf(message: Message): string {
  return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n')
}

/** What a request showed: every message but the user's own, the directory section, and the recall block. */
function seenText(request: GenerateOptions, own: string): { all: string; directory: string; block: string } {
  const texts = request.messages
    .filter((message) => !(message.role === 'user' && message.source.kind === 'user' && textOf(message) === own))
    .map(textOf)
  const snapshot = texts.filter((text) => text.startsWith('Current runtime context.')).at(-1) ?? ''
  const directory =
    snapshot
      .split('\n\n')
      .find((section) => section.startsWith('Fact memory:') || section.startsWith('Fact memory (')) ?? ''
  return { all: texts.join('\n'), directory, block: texts.find((text) => text.startsWith(RECALL_HEAD)) ?? '' }
}

function printRun(run: CodingRecallRun): void {
  console.log(
    `\nRecall where developers work, ${run.cues ? 'facts written WITH cues' : 'facts written without cues'}: the needed fact anywhere in the model's first request ` +
      `(${CODING_FACTS.length} developer facts under ${PERSONAL_FACTS} newer personal ones; two git repositories; ${run.seconds} s)`,
  )
  if (run.failedWrites.length > 0) console.log(`writes that were not saved: ${run.failedWrites.join('; ')}`)
  console.log(
    `directory of a fresh session lists ${run.inDirectory.billing} developer facts in billing-service, ${run.inDirectory.shop} in shop-web`,
  )
  console.log('| messages | language | n | reached the model |')
  console.log('|---|---|---:|---:|')
  for (const row of run.rows)
    console.log(`| ${row.kind} | ${row.language} | ${row.messages} | ${row.hits} (${pct(row.share)}) |`)
  for (const row of run.heldOut)
    console.log(`| ${row.kind}, held out | all | ${row.messages} | ${row.hits} (${pct(row.share)}) |`)
  console.log(
    `about nothing stored: a block on ${run.falseBlocks.withBlock} of ${run.falseBlocks.messages} (${pct(run.falseBlocks.share)}; held out ${run.heldOutFalseBlocks.withBlock} of ${run.heldOutFalseBlocks.messages}); ` +
      `requests carrying the other repository's facts: ${run.leaks}; median block ${run.medianBlockChars} characters`,
  )
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `      ${line}`)
    .join('\n')
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}
