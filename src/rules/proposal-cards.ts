/**
 * Pure rules of the cards that change stored facts (merge, retire, fold, alias): which facts a row was proposed
 * against, what identifies a row's change apart from revisions, why a row cannot be proposed, how a long list splits
 * into cards of at most {@link CARD_ROW_LIMIT} rows numbered n/m, and a card's fingerprint. No database, no clock.
 */
import { sha256 } from '../text/normalize.ts'
import type { CardBatch, CardRows, FactRef, ReviewKind } from '../types.ts'

/** The most rows one aggregated card holds (seed 000, "The health check"); a longer list continues as batch n/m. */
export const CARD_ROW_LIMIT = 50

/** Why a card of each review kind exists, stored as its reason. */
export const REVIEW_REASONS = {
  merge: 'near_duplicate',
  retire: 'self_restating',
  fold: 'pipeline',
  alias: 'split_entity',
} as const satisfies Record<ReviewKind, string>

/** The rules of one kind's rows. */
interface RowRules<R> {
  /** The facts the row was proposed against, with the revisions it saw: it applies only while all of them stand. */
  targets(row: R): readonly FactRef[]
  /** What the row changes, without revisions: two rows with one key propose the same change. */
  key(row: R): string
  /** Why the row makes no sense whatever the store holds, or undefined. */
  problem(row: R): string | undefined
}

const byId = (refs: readonly FactRef[]): string =>
  refs
    .map((ref) => ref.factId)
    .sort((a, b) => a - b)
    .join(',')

const RULES: { readonly [K in ReviewKind]: RowRules<CardRows[K]> } = {
  merge: {
    targets: (row) => [row.keeper, row.loser],
    key: (row) => `merge:${row.keeper.factId}<${row.loser.factId}`,
    problem: () => undefined,
  },
  retire: {
    targets: (row) => [row.fact],
    key: (row) => `retire:${row.fact.factId}`,
    problem: () => undefined,
  },
  fold: {
    targets: (row) => [row.survivor, ...row.runs],
    key: (row) => `fold:${row.survivor.factId}<${byId(row.runs)}`,
    problem: (row) => (row.runs.length === 0 ? 'a fold needs at least one run to absorb' : undefined),
  },
  alias: {
    targets: (row) => row.facts,
    key: (row) => `alias:${JSON.stringify([row.fragment, row.canonical])}`,
    problem: (row) => {
      if (row.fragment === row.canonical) return 'an entity cannot be an alias of itself'
      return row.facts.length === 0 ? 'the fragment has no fact to move' : undefined
    },
  },
}

/**
 * The facts a row was proposed against, with the revisions it saw: the row applies only while all of them stand.
 * @param kind - the card's kind.
 * @param row - one of its rows.
 * @returns the row's targets.
 */
export function rowTargets<K extends ReviewKind>(kind: K, row: CardRows[K]): readonly FactRef[] {
  const rules: RowRules<CardRows[K]> = RULES[kind]
  return rules.targets(row)
}

/**
 * What a row changes, without the revisions it saw: two rows with one key propose the same change.
 * @param kind - the card's kind.
 * @param row - one of its rows.
 * @returns a stable key.
 */
export function rowKey<K extends ReviewKind>(kind: K, row: CardRows[K]): string {
  const rules: RowRules<CardRows[K]> = RULES[kind]
  return rules.key(row)
}

/**
 * Why a row cannot be proposed whatever the store holds, or undefined when it can: a fact named twice (a fact
 * merged into itself, a survivor among its own runs), a fold without runs, an entity aliased into itself, an alias
 * without facts.
 * @param kind - the card's kind.
 * @param row - the row.
 * @returns the reason, or undefined.
 */
export function rowProblem<K extends ReviewKind>(kind: K, row: CardRows[K]): string | undefined {
  const rules: RowRules<CardRows[K]> = RULES[kind]
  const targets = rules.targets(row)
  if (new Set(targets.map((target) => target.factId)).size !== targets.length) return 'the row names one fact twice'
  return rules.problem(row)
}

/**
 * Split rows into cards of at most `limit` rows. A list that fits one card gets no batch number; a longer one is
 * numbered 1/m … m/m in order.
 * @param rows - the rows, in the order the cards should list them.
 * @param limit - rows per card; {@link CARD_ROW_LIMIT} by default.
 * @returns one entry per card.
 */
export function batchRows<T>(
  rows: readonly T[],
  limit: number = CARD_ROW_LIMIT,
): { rows: readonly T[]; batch: CardBatch | null }[] {
  if (rows.length === 0) return []
  const count = Math.ceil(rows.length / limit)
  return Array.from({ length: count }, (_, at) => ({
    rows: rows.slice(at * limit, (at + 1) * limit),
    batch: count === 1 ? null : { index: at + 1, count },
  }))
}

/**
 * A card's fingerprint: its kind and the keys of its rows, in any order.
 * @param kind - the card's kind.
 * @param rows - its rows.
 * @returns a hex SHA-256.
 */
export function cardFingerprint<K extends ReviewKind>(kind: K, rows: readonly CardRows[K][]): string {
  return sha256(JSON.stringify([kind, rows.map((row) => rowKey(kind, row)).sort()]))
}
