/**
 * The old-facts part of npm run bench (`--only old-facts`): whether questions made only of common words still find
 * the old facts that match them best, and what that costs. On the speed bench's synthetic library at each size it
 * times memory_search (lexical channels, limit 10, the default budget) on questions whose words each more than the
 * ranking's candidate cap of facts hold, with subject·property questions between them, and counts
 * - the text channel's top 10 whose scores differ from an exact BM25 ranking's of every match (no candidate cap; the
 *   scores, since facts that score alike may come in another order), and
 * - with `--answers <file>`, the rendered answers' top 10 that differ from those a run saved there (`--save <file>`),
 *   so a change to the ranking can be judged on the answers themselves.
 * `--store-dir <dir>` keeps the seeded stores there and reuses them (minutes at a million facts). A benchmark, not a test.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { systemClock } from '../src/clock.ts'
import { configWith, resolveConfig } from '../src/config.ts'
import { FactMemory } from '../src/fact-memory.ts'
import { MAX_QUERY_TERMS } from '../src/retrieval/retrieve.ts'
import { RANK_CANDIDATE_CAP, textChannel } from '../src/retrieval/channels.ts'
import type { SearchValue } from '../src/retrieval/render.ts'
import { Database } from '../src/store/database.ts'
import { FactStore } from '../src/store/fact-store.ts'
import { questionTerms } from '../src/text/tokenize.ts'
import { makeCorpus, mulberry32, PROPERTIES_EN, PROPERTIES_ZH, seedStore, SERVICE_KINDS } from './bench-corpus.ts'
import { percentiles, time, type Percentiles } from './bench-stats.ts'

/** Questions timed per size. */
const QUESTIONS = 300
/** The properties the corpus draws most (Zipf), each held by more than the cap of facts from 100,000 facts on. */
const COMMON_PROPERTIES = PROPERTIES_EN.slice(0, 3)

/** The old-facts figures at one size. */
export interface OldFactsRow {
  readonly facts: number
  /** memory_search over every question (lexical, limit 10). */
  readonly searchMs: Percentiles
  /** The same, over the questions whose every word more than the cap of facts hold. */
  readonly commonSearchMs: Percentiles
  /** Questions whose every word more than the cap of facts hold. */
  readonly common: number
  /** Of those, the ones whose text channel's top 10 scores differ from an exact ranking's of every match. */
  readonly channelChanged: number
  /** The rendered answers' matched ids, top 10, by question. */
  readonly answers: readonly (readonly number[])[]
  /** With `--answers`: how many answers' top 10 differ from the saved run's, of all and of the common questions. */
  readonly answersChanged: { readonly all: number; readonly common: number } | null
}

/** The facts an answer shows as matched, in order, at most ten. */
function topTen(value: SearchValue): number[] {
  return value.results.flatMap((slot) => slot.values.filter((row) => row.matched).map((row) => row.id)).slice(0, 10)
}

/**
 * Run the old-facts part at one size.
 * @param size - facts in the store.
 * @param options - where seeded stores are kept, and the saved answers to compare with.
 * @returns the figures.
 */
export function oldFacts(
  size: number,
  options: { readonly storeDir: string; readonly saved?: readonly (readonly number[])[] },
): OldFactsRow {
  const dir = join(options.storeDir, String(size))
  const config = resolveConfig(configWith({ dataDir: dir }), { dshHome: dir, userHome: dir })
  const random = mulberry32(size)
  const corpus = makeCorpus(size, random)
  const seeded = join(dir, 'seeded')
  if (!existsSync(seeded)) {
    mkdirSync(dir, { recursive: true })
    seedStore(dir, corpus.facts, systemClock, config)
    writeFileSync(seeded, '')
  }
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T
  const en = corpus.entities.filter((entity) => !entity.zh)
  const zh = corpus.entities.filter((entity) => entity.zh)
  const questions = Array.from({ length: QUESTIONS }, (_, i) => {
    switch (i % 4) {
      case 0:
        return `which ${pick(COMMON_PROPERTIES)} and ${pick(COMMON_PROPERTIES)} for the ${pick(SERVICE_KINDS)}`
      case 1:
        return `${pick(COMMON_PROPERTIES)} ${pick(SERVICE_KINDS)}`
      case 2:
        return `what is the ${pick(PROPERTIES_EN)} of ${pick(en).name}`
      default:
        return `${pick(zh).name}的${pick(PROPERTIES_ZH)}是多少`
    }
  })
  const memory = new FactMemory({ clock: systemClock })
  memory.open(dir)
  const db = Database.open({ dataDir: dir, now: () => new Date().toISOString() })
  const store = new FactStore(db)
  try {
    for (const question of questions.slice(0, 20))
      memory.searchLexical({ query: question, limit: 10, asOf: undefined }, config)
    const all: number[] = []
    const commonMs: number[] = []
    const answers: number[][] = []
    const common = new Set<number>()
    let channelChanged = 0
    questions.forEach((question, i) => {
      let value: SearchValue | undefined
      const ms = time(() => {
        value = memory.searchLexical({ query: question, limit: 10, asOf: undefined }, config)
      })
      all.push(ms)
      answers.push(topTen(value as SearchValue))
      const terms = questionTerms(question, MAX_QUERY_TERMS)
      const counts = store.termDocumentCounts(terms)
      if (terms.length === 0 || !terms.every((term) => (counts.get(term) ?? 0) > RANK_CANDIDATE_CAP)) return
      common.add(i)
      commonMs.push(ms)
      const planned = textChannel(store, terms, undefined)
        .slice(0, 10)
        .map((hit) => hit.score)
      const exact = textChannel(store, terms, undefined, {
        candidateCap: Number.POSITIVE_INFINITY,
        hugeAbove: Number.POSITIVE_INFINITY,
      })
        .slice(0, 10)
        .map((hit) => hit.score)
      if (exact.length !== planned.length || exact.some((score, at) => Math.abs(score - (planned[at] ?? 0)) > 1e-9))
        channelChanged += 1
    })
    const differs = (i: number): boolean => (options.saved?.[i] ?? []).join() !== (answers[i] ?? []).join()
    return {
      facts: size,
      searchMs: percentiles(all),
      commonSearchMs: percentiles(commonMs),
      common: common.size,
      channelChanged,
      answers,
      answersChanged:
        options.saved === undefined
          ? null
          : { all: answers.filter((_, i) => differs(i)).length, common: [...common].filter((i) => differs(i)).length },
    }
  } finally {
    db.close()
    memory.close()
  }
}

/**
 * The part as npm run bench runs it: each size in turn, a table printed, the answers saved when asked.
 * @param sizes - store sizes.
 * @param args - the bench's arguments (`--store-dir`, `--save`, `--answers`).
 * @returns the rows.
 */
export function oldFactsBench(sizes: readonly number[], args: readonly string[]): OldFactsRow[] {
  const option = (name: string): string | undefined => {
    const index = args.indexOf(name)
    return index >= 0 ? args[index + 1] : undefined
  }
  const storeDir = option('--store-dir') ?? join(process.cwd(), 'bench-results', 'old-facts-stores')
  const savedPath = option('--answers')
  const saved =
    savedPath === undefined ? undefined : (JSON.parse(readFileSync(savedPath, 'utf8')) as Record<string, number[][]>)
  const rows = sizes.map((size) =>
    oldFacts(size, { storeDir, ...(saved?.[size] === undefined ? {} : { saved: saved[size] }) }),
  )
  console.log('\n## Old facts in search (questions of common words)\n')
  console.log(
    '| facts | search p50 / p95 | common-word questions | their p50 / p95 | text top 10 scores ≠ exact | answers top 10 changed (all / common) |',
  )
  console.log('|---:|---:|---:|---:|---:|---:|')
  for (const row of rows) {
    const changed =
      row.answersChanged === null
        ? 'not compared'
        : `${row.answersChanged.all} of ${QUESTIONS} / ${row.answersChanged.common} of ${row.common}`
    console.log(
      `| ${row.facts.toLocaleString('en')} | ${row.searchMs.p50} / ${row.searchMs.p95} ms | ${row.common} of ${QUESTIONS} | ` +
        `${row.commonSearchMs.p50} / ${row.commonSearchMs.p95} ms | ${row.channelChanged} of ${row.common} | ${changed} |`,
    )
  }
  const savePath = option('--save')
  if (savePath !== undefined)
    writeFileSync(savePath, JSON.stringify(Object.fromEntries(rows.map((row) => [row.facts, row.answers]))))
  return rows
}
