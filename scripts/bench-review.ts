/**
 * The near-duplicate gate's precision and recall for npm run bench, on the labeled pairs of
 * tests/fixtures/near-duplicate-pairs.jsonl. A real store is seeded with every statement of the set (and, when asked,
 * synthetic filler facts from the speed bench's corpus), and each pair goes through the gate's own pure core
 * (`findRestatement`) with that store's document frequencies, as a write of the pair's second statement would meet its
 * first: the frequencies as they were before the second was written, the first a current value of a multi-valued
 * slot. A pair whose statements sit in two slots (another canonical subject or property) is never compared by the write
 * gate, so it counts as kept apart. Beside the gate as shipped, the seed's rule alone (cosine, shared tokens and the
 * identifier veto, without the one-word exchange rule) is measured on the same scores.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { prepareWrite } from '../src/fact-input.ts'
import {
  countedWords,
  findRestatement,
  NEAR_DUPLICATE_COSINE,
  scorePair,
  termStatistics,
  type PairScore,
  type Statement,
} from '../src/rules/near-duplicate.ts'
import { indexForm } from '../src/text/porter.ts'
import { searchTerms } from '../src/text/tokenize.ts'
import { Database } from '../src/store/database.ts'
import { FactStore } from '../src/store/fact-store.ts'
import { canonicalEntity, canonicalPredicate } from '../src/text/normalize.ts'
import type { FactInput } from '../src/types.ts'
import { makeCorpus, mulberry32 } from './bench-corpus.ts'
import { REPO_ROOT } from './dsh-profile.ts'

/** One labeled pair of the set. */
export interface LabeledPair {
  readonly a: Statement
  readonly b: Statement
  /** Whether the two state one fact. */
  readonly same: boolean
  readonly kind: string
}

/** Counts and rates over some pairs. */
export interface GateCounts {
  readonly pairs: number
  readonly truePositives: number
  readonly falsePositives: number
  readonly falseNegatives: number
  readonly trueNegatives: number
  /** Merges that were right, of all merges (1 when nothing merged). */
  readonly precision: number
  /** Same pairs merged, of all same pairs (1 when there are none). */
  readonly recall: number
}

/** What the review bench reports. */
export interface ReviewQuality {
  readonly fixture: string
  /** Facts in the seeded store: the set's distinct statements plus the filler. */
  readonly storeFacts: number
  readonly fillerFacts: number
  /** The gate as shipped. */
  readonly overall: GateCounts
  /** The seed's rule alone: the same scores without the one-word exchange rule. */
  readonly seedRule: GateCounts
  /** The gate as shipped, per kind of pair. */
  readonly byKind: readonly (GateCounts & { readonly kind: string; readonly same: boolean })[]
  /** Every wrong merge, with its score, so a reader sees what the gate got wrong. */
  readonly falseMerges: readonly {
    readonly a: Statement
    readonly b: Statement
    readonly kind: string
    readonly cosine: number
  }[]
}

/** The labeled pair set in the repository. */
export const PAIR_FIXTURE = join(REPO_ROOT, 'tests/fixtures/near-duplicate-pairs.jsonl')

/**
 * Read the labeled pairs.
 * @param path - a JSONL file of `{a, b, same, kind}` lines.
 * @returns the pairs in file order.
 */
export function readPairs(path: string): LabeledPair[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      const pair = JSON.parse(line) as LabeledPair
      if (
        typeof pair.same !== 'boolean' ||
        typeof pair.kind !== 'string' ||
        !isStatement(pair.a) ||
        !isStatement(pair.b)
      ) {
        throw new Error(`${path}:${index + 1} is not a labeled pair`)
      }
      return pair
    })
}

/**
 * Measure the gate on the labeled set.
 * @param options - the fixture (the repository's by default) and how many synthetic filler facts join the store (none
 *   by default: the set's own statements are a library of about 700 facts).
 * @returns precision and recall overall and per kind, the seed's rule alone, and the wrong merges.
 */
export function reviewQuality(
  options: { readonly fixture?: string; readonly fillerFacts?: number } = {},
): ReviewQuality {
  const fixture = options.fixture ?? PAIR_FIXTURE
  const pairs = readPairs(fixture)
  // A fixed seed, so every run pads with the same facts.
  const filler = (options.fillerFacts ?? 0) > 0 ? makeCorpus(options.fillerFacts ?? 0, mulberry32(11)).facts : []
  const dir = mkdtempSync(join(tmpdir(), 'fact-memory-bench-review-'))
  const db = Database.open({ dataDir: dir, now: () => '2026-03-01T09:00:00.000Z' })
  try {
    const store = new FactStore(db)
    const now = '2026-03-01T09:00:00.000Z'
    const statements = new Map<string, Statement>()
    for (const pair of pairs)
      for (const statement of [pair.a, pair.b]) statements.set(JSON.stringify(statement), statement)
    db.transaction(() => {
      const inputs: FactInput[] = [...statements.values()].map((statement) => ({
        ...statement,
        evidence: 'observed',
        origin: 'tool',
        multi: true,
        exactOnly: true,
      }))
      for (const input of [...inputs, ...filler.map((fact) => ({ ...fact, exactOnly: true }))]) {
        const prepared = prepareWrite(input, now, { refuseCredentials: true, timeZone: 'UTC' })
        if (prepared.ok) store.write(prepared.write, now)
      }
    })
    const outcomes = pairs.map((pair) => ({ pair, score: gateScore(store, pair) }))
    const verdicts = outcomes.map(({ pair, score }) => ({ pair, merged: score !== undefined }))
    const seedVerdicts = pairs.map((pair) => ({ pair, merged: seedRuleMerges(store, pair) }))
    const kinds = [...new Set(pairs.map((pair) => `${pair.kind}\u0000${String(pair.same)}`))]
    return {
      fixture: fixture.startsWith(REPO_ROOT) ? fixture.slice(REPO_ROOT.length + 1) : fixture,
      storeFacts: store.indexedFactCount(),
      fillerFacts: filler.length,
      overall: countOf(verdicts),
      seedRule: countOf(seedVerdicts),
      byKind: kinds.map((key) => {
        const [kind = '', same = ''] = key.split('\u0000')
        return {
          kind,
          same: same === 'true',
          ...countOf(verdicts.filter(({ pair }) => pair.kind === kind && String(pair.same) === same)),
        }
      }),
      falseMerges: outcomes
        .filter(({ pair, score }) => !pair.same && score !== undefined)
        .map(({ pair, score }) => ({
          a: pair.a,
          b: pair.b,
          kind: pair.kind,
          cosine: Math.round((score?.cosine ?? 0) * 1000) / 1000,
        })),
    }
  } finally {
    db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The gate's score when writing `b` while `a` is a current value of its slot answers as a duplicate of `a`; undefined
 * when it does not, or when the two sit in different slots (the write gate compares only one slot). The store holds
 * `b` already, so its own contribution is taken out of the counts: `findRestatement` adds it back, as for every write.
 */
function gateScore(store: FactStore, pair: LabeledPair): PairScore | undefined {
  if (!inOneSlot(pair)) return undefined
  const own = new Set(
    [pair.b.subject, pair.b.property, pair.b.value].flatMap((text) => searchTerms(text)).map(indexForm),
  )
  const match = findRestatement(pair.b, [{ id: 1, statement: pair.a }], {
    currentFacts: store.currentFactCount() - 1,
    statistics: (words) => {
      const counts = store.termDocumentCounts(words)
      const frequency = new Map(
        [...counts].map(([word, n]) => [word, Math.max(0, n - (own.has(indexForm(word)) ? 1 : 0))]),
      )
      return { documents: store.indexedFactCount() - 1, frequency }
    },
  })
  return match?.score
}

/**
 * Whether the seed's rule alone merges the pair: the same score, with a one-word exchange weighed by its cosine
 * instead of kept apart. The store holds both statements, so its counts are those `findRestatement` works with.
 */
function seedRuleMerges(store: FactStore, pair: LabeledPair): boolean {
  if (!inOneSlot(pair)) return false
  const stats = termStatistics(store.indexedFactCount(), store.termDocumentCounts(countedWords(pair.a, pair.b)))
  const score = scorePair(pair.a, pair.b, stats)
  return score.verdict === 'restates' || (score.verdict === 'exchanged' && score.cosine >= NEAR_DUPLICATE_COSINE)
}

function inOneSlot(pair: LabeledPair): boolean {
  return (
    canonicalEntity(pair.a.subject) === canonicalEntity(pair.b.subject) &&
    canonicalPredicate(pair.a.property) === canonicalPredicate(pair.b.property)
  )
}

function countOf(verdicts: readonly { readonly pair: LabeledPair; readonly merged: boolean }[]): GateCounts {
  const truePositives = verdicts.filter((v) => v.pair.same && v.merged).length
  const falsePositives = verdicts.filter((v) => !v.pair.same && v.merged).length
  const falseNegatives = verdicts.filter((v) => v.pair.same && !v.merged).length
  const trueNegatives = verdicts.length - truePositives - falsePositives - falseNegatives
  const rate = (hit: number, miss: number): number =>
    hit + miss === 0 ? 1 : Math.round((hit / (hit + miss)) * 1000) / 1000
  return {
    pairs: verdicts.length,
    truePositives,
    falsePositives,
    falseNegatives,
    trueNegatives,
    precision: rate(truePositives, falsePositives),
    recall: rate(truePositives, falseNegatives),
  }
}

function isStatement(value: unknown): value is Statement {
  if (typeof value !== 'object' || value === null) return false
  const record = value as Record<string, unknown>
  return (
    typeof record['subject'] === 'string' &&
    typeof record['property'] === 'string' &&
    typeof record['value'] === 'string'
  )
}
