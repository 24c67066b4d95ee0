/**
 * The fold guard's operating point for npm run bench: precision and recall of `foldVerdict` against the labeled
 * pairs in tests/fixtures/fold-pairs.jsonl (dated pipeline lines that should fold, near-misses that must not),
 * overall and per kind of pair. Pure over the file: no store, no clock.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { foldVerdict } from '../src/rules/fold.ts'
import { REPO_ROOT } from './dsh-profile.ts'

/** The labeled set shipped with the tests. */
export const FOLD_PAIRS = join(REPO_ROOT, 'tests/fixtures/fold-pairs.jsonl')

/** One labeled pair: a stored value, an incoming one written on day `on`, and whether they are one recurring line. */
export interface FoldPair {
  readonly a: string
  readonly b: string
  /** The day `b` is written (`YYYY-MM-DD`, read as noon UTC). */
  readonly on: string
  readonly fold: boolean
  /** What the pair exercises (`pipeline`, `identifier`, `two_dates`, …). */
  readonly kind: string
  readonly lang: 'en' | 'zh'
}

/** How the guard did on one kind of pair. */
export interface FoldKindRow {
  readonly kind: string
  readonly fold: boolean
  readonly pairs: number
  /** Pairs the guard judged as labeled. */
  readonly agreed: number
}

/** The operating point. */
export interface FoldBench {
  readonly pairs: number
  readonly positives: number
  readonly truePositives: number
  readonly falsePositives: number
  readonly falseNegatives: number
  /** Of the pairs the guard folds, the share labeled to fold (1 when it folds none). */
  readonly precision: number
  /** Of the pairs labeled to fold, the share the guard folds. */
  readonly recall: number
  readonly byKind: readonly FoldKindRow[]
  /** Every pair the guard judged against its label. */
  readonly misjudged: readonly FoldPair[]
}

/**
 * Read the labeled pairs.
 * @param path - a JSONL file of {@link FoldPair} lines.
 * @returns the pairs; a malformed line throws, naming its number.
 */
export function readFoldPairs(path: string = FOLD_PAIRS): FoldPair[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((text, index) => {
      if (text.trim() === '') return []
      const value = JSON.parse(text) as Partial<FoldPair>
      if (
        typeof value.a !== 'string' ||
        typeof value.b !== 'string' ||
        typeof value.fold !== 'boolean' ||
        typeof value.kind !== 'string' ||
        typeof value.on !== 'string' ||
        !/^\d{4}-\d{2}-\d{2}$/u.test(value.on) ||
        (value.lang !== 'en' && value.lang !== 'zh')
      ) {
        throw new Error(`${path}:${index + 1} is not a labeled fold pair`)
      }
      return [value as FoldPair]
    })
}

/**
 * Judge every pair with the guard and compare with its label.
 * @param pairs - the labeled pairs.
 * @returns precision, recall, the counts behind them, and the misjudged pairs.
 */
export function foldBench(pairs: readonly FoldPair[]): FoldBench {
  const judged = pairs.map((pair) => ({
    pair,
    folds: foldVerdict(pair.a, pair.b, { writtenAt: `${pair.on}T12:00:00.000Z` }).fold,
  }))
  const truePositives = judged.filter(({ pair, folds }) => folds && pair.fold).length
  const falsePositives = judged.filter(({ pair, folds }) => folds && !pair.fold).length
  const falseNegatives = judged.filter(({ pair, folds }) => !folds && pair.fold).length
  const kinds = new Map<string, { fold: boolean; pairs: number; agreed: number }>()
  for (const { pair, folds } of judged) {
    const row = kinds.get(pair.kind) ?? { fold: pair.fold, pairs: 0, agreed: 0 }
    row.pairs += 1
    if (folds === pair.fold) row.agreed += 1
    kinds.set(pair.kind, row)
  }
  const ratio = (part: number, whole: number): number => (whole === 0 ? 1 : Math.round((part / whole) * 1000) / 1000)
  return {
    pairs: pairs.length,
    positives: pairs.filter((pair) => pair.fold).length,
    truePositives,
    falsePositives,
    falseNegatives,
    precision: ratio(truePositives, truePositives + falsePositives),
    recall: ratio(truePositives, truePositives + falseNegatives),
    byKind: [...kinds].map(([kind, row]) => ({ kind, ...row })),
    misjudged: judged.filter(({ pair, folds }) => folds !== pair.fold).map(({ pair }) => pair),
  }
}
