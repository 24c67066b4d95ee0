/**
 * The near-duplicate gate's pure core: whether one statement (subject · property · value) restates another, judged by
 * an IDF-weighted cosine over their tokens with at least three shared tokens, the rare-token veto, the negation veto
 * and the one-word exchange rule. The write path asks it about a candidate and the current values of its slot (`findRestatement`); the
 * review sweep can score any two statements of one subject (`scorePair`). Document frequencies come in from the
 * store: nothing here reads a database or ships a word list. Its operating point on the labeled pairs of
 * tests/fixtures/near-duplicate-pairs.jsonl is measured by scripts/bench-review.ts.
 */
import { extractIdentifiers } from '../text/identifiers.ts'
import { canonicalEntity, canonicalPredicate } from '../text/normalize.ts'
import { indexForm } from '../text/porter.ts'
import { hasCjk, searchTerms } from '../text/tokenize.ts'

/**
 * At or above this cosine two statements are one (the seed's number). With equal weights, sharing three tokens and
 * differing in one on each side scores 3/4 = 0.75 and passes, differing in two on each side scores 3/5 = 0.6 and does
 * not; the IDF then moves it: a rare token on one side pulls the score down, a common one barely counts.
 */
export const NEAR_DUPLICATE_COSINE = 0.72

/**
 * The fewest shared tokens a restatement needs (the seed's number). On one or two tokens the cosine jumps on a single
 * word: "green tea" and "green tea latte" score 2/√6 = 0.82 with equal weights, yet name two drinks. Short values
 * therefore fold only as exact duplicates.
 */
export const NEAR_DUPLICATE_MIN_SHARED = 3

/**
 * Below this many current facts the gate is off (the seed's number): document frequencies over a dozen rows say
 * nothing about which words are rare, so only exact duplicates (the claim key) fold.
 */
export const NEAR_DUPLICATE_MIN_FACTS = 12

/** One statement as the gate reads it. */
export interface Statement {
  readonly subject: string
  readonly property: string
  readonly value: string
}

/** A field of a statement. */
export type StatementField = 'subject' | 'property' | 'value'

/** What the store knows about the words of a comparison. */
export interface TermStatistics {
  /** How many facts the full-text index holds (N). */
  readonly documents: number
  /** Document frequency per token, keyed by the token's indexed form; a token absent from the map is held by none. */
  readonly frequency: ReadonlyMap<string, number>
}

/**
 * Why a pair is, or is not, one statement, by the first check it fails: `too_few_shared` under three shared tokens;
 * `vetoed` by an identifier or a negation one side lacks; `exchanged` when the two are one sentence with one word exchanged;
 * `below_threshold` under the cosine; `restates` when it passes them all.
 */
export type PairVerdict = 'restates' | 'vetoed' | 'exchanged' | 'too_few_shared' | 'below_threshold'

/** The score of one pair, with everything needed to explain it. */
export interface PairScore {
  readonly verdict: PairVerdict
  /** IDF-weighted cosine of the compared tokens, 0 to 1; computed whatever the verdict, to show how close a kept pair came. */
  readonly cosine: number
  /** Tokens both sides hold, in their indexed form. */
  readonly shared: readonly string[]
  /** What kept the pair apart before weighing: the lone identifiers or negations (veto) or the exchanged words. */
  readonly apart: readonly string[]
  /** The fields compared: a field both sides hold under one canonical key is agreed, not evidence. */
  readonly compared: readonly StatementField[]
}

/** A stored row the candidate may restate. */
export interface RestatementRow {
  readonly id: number
  readonly statement: Statement
}

/** What the library can tell the gate. */
export interface Library {
  /** Facts currently held (active, scheduled, conflict). */
  readonly currentFacts: number
  /**
   * Document frequencies and the index size. Called at most once per write, and only when some row survived the
   * checks that need no frequencies. It is given one written word per token; the store counts the facts a full-text
   * MATCH on that word finds, which is the token's own count since the index holds the same form.
   * @param words - the words to count.
   * @returns the index size and the count per word.
   */
  statistics(words: readonly string[]): { readonly documents: number; readonly frequency: ReadonlyMap<string, number> }
}

/** The row a candidate restates, and how closely. */
export interface RestatementMatch {
  readonly id: number
  readonly score: PairScore
}

const FIELDS: readonly StatementField[] = ['subject', 'property', 'value']
const ASCII_TOKEN = /^[\x21-\x7e]+$/u
const HAS_DIGIT = /\d/u
const VERSION_PREFIX = /^v(?=\d)/u
const WORD_PART = /[\p{L}\p{N}]+/gu
/** A name made only of letters joined by hyphens or underscores: `bge-large`, but also `long-haul`. */
const LETTER_COMPOUND = /^\p{L}+(?:[-_]\p{L}+)+$/u
/**
 * English negations, read on the written text: "not" and "no" are stopwords and never reach the compared tokens. A
 * contraction counts with its apostrophe (any "…n't") or without it in the common spellings ("dont", "cant").
 */
const ENGLISH_NEGATION =
  /(?<![\p{L}\p{N}])(?:not|never|no|cannot|without|[\p{L}]+n['’]t|dont|doesnt|didnt|isnt|wont|cant)(?![\p{L}\p{N}])/gu
/** Chinese negation characters. */
const CHINESE_NEGATION = /[不没別别无無非未]/gu
/**
 * Common Chinese words that hold a negation character without negating what follows ("very", "regardless", "but",
 * "others", "future", "different", "wireless", "not only", "constantly"). They are blanked out before the negation
 * characters are read. The list is small on purpose: a word missing from it makes the gate keep two rows apart, which
 * the review sweep can still fold; a negation wrongly listed here would merge a statement into its opposite.
 */
const CHINESE_NOT_NEGATION =
  /非常|无论|無論|不过|不過|别人|別人|别的|別的|未来|未來|不同|无线|無線|不仅|不僅|不但|不断|不斷/gu

/**
 * Score two statements of one subject. Fields both sides hold under one canonical key (the subject, and the property
 * inside one slot) are agreed by construction and left out: agreement on what a comparison is blocked on is not
 * evidence that two values are one (with them in, "user · languages spoken · English" and "… · French" would share
 * three of four tokens and pass). The value is always compared.
 * @param a - one statement.
 * @param b - the other.
 * @param stats - document frequencies for the tokens of both (a missing token counts as held by none).
 * @returns the verdict, the cosine and what decided it.
 */
export function scorePair(a: Statement, b: Statement, stats: TermStatistics): PairScore {
  const formOf = memoizedForms()
  return weigh(new Cut(a, formOf), new Cut(b, formOf), stats)
}

/**
 * The words to ask the store about for a pair (one written word per token of both statements).
 * @param statements - the statements to be scored.
 * @returns distinct written words.
 */
export function countedWords(...statements: readonly Statement[]): string[] {
  const formOf = memoizedForms()
  const words = new Map<string, string>()
  for (const statement of statements) {
    const cut = new Cut(statement, formOf)
    for (const field of FIELDS)
      for (const [form, word] of cut.field(field).forms) if (!words.has(form)) words.set(form, word)
  }
  return [...words.values()]
}

/**
 * Turn a store's answer about written words into frequencies keyed by indexed form.
 * @param documents - facts in the index.
 * @param counts - facts holding each written word (a full-text MATCH count).
 * @returns statistics for `scorePair`.
 */
export function termStatistics(documents: number, counts: ReadonlyMap<string, number>): TermStatistics {
  const frequency = new Map<string, number>()
  for (const [word, count] of counts) frequency.set(indexForm(word), count)
  return { documents, frequency }
}

/**
 * Find the current row a write restates: the one scoring highest at or above the threshold (the earliest row on a
 * tie), among rows the checks that need no frequencies leave standing. The candidate is not in the library yet, so it
 * counts as one more document: each of its tokens is held by one more fact, as it would be after the write.
 * @param candidate - the statement being written.
 * @param rows - current rows it may restate (one slot, one scope, in id order).
 * @param library - the library's size and its document frequencies.
 * @returns the match, or undefined when the library is too small or no row is restated.
 */
export function findRestatement(
  candidate: Statement,
  rows: readonly RestatementRow[],
  library: Library,
): RestatementMatch | undefined {
  if (rows.length === 0 || library.currentFacts < NEAR_DUPLICATE_MIN_FACTS) return undefined
  const formOf = memoizedForms()
  const mine = new Cut(candidate, formOf)
  const standing = rows.flatMap((row) => {
    const theirs = new Cut(row.statement, formOf)
    return screen(mine, theirs, comparedFields(mine, theirs)) === undefined ? [{ row, theirs }] : []
  })
  if (standing.length === 0) return undefined
  const asked = new Map<string, string>()
  for (const { theirs } of standing) {
    for (const field of comparedFields(mine, theirs)) {
      for (const cut of [mine, theirs])
        for (const [form, word] of cut.field(field).forms) if (!asked.has(form)) asked.set(form, word)
    }
  }
  const stored = library.statistics([...asked.values()])
  const own = new Set(FIELDS.flatMap((field) => [...mine.field(field).forms.keys()]))
  const frequency = new Map<string, number>()
  for (const [form, word] of asked) frequency.set(form, (stored.frequency.get(word) ?? 0) + (own.has(form) ? 1 : 0))
  const stats: TermStatistics = { documents: stored.documents + 1, frequency }
  let best: RestatementMatch | undefined
  for (const { row, theirs } of standing) {
    const score = weigh(mine, theirs, stats)
    if (score.verdict === 'restates' && (best === undefined || score.cosine > best.score.cosine))
      best = { id: row.id, score }
  }
  return best
}

/**
 * The weight of a token: the Robertson–Spärck Jones inverse document frequency that FTS5's own bm25() ranks with,
 * ln(1 + (N − df + 0.5) / (df + 0.5)). The 0.5s keep a token no fact holds finite (the heaviest weight), and the
 * 1 + inside the logarithm keeps a token most facts hold slightly positive rather than negative.
 * @param documentFrequency - facts holding the token (clamped to 0…N).
 * @param documents - facts in the index (N).
 * @returns the weight, above 0.
 */
export function inverseDocumentFrequency(documentFrequency: number, documents: number): number {
  const n = Math.max(0, documents)
  const df = Math.min(Math.max(0, documentFrequency), n)
  return Math.log(1 + (n - df + 0.5) / (df + 0.5))
}

function weigh(a: Cut, b: Cut, stats: TermStatistics): PairScore {
  const compared = comparedFields(a, b)
  const mine = formsOf(a, compared)
  const theirs = formsOf(b, compared)
  const shared = mine.filter((form) => theirs.includes(form))
  const weight = (form: string): number => inverseDocumentFrequency(stats.frequency.get(form) ?? 0, stats.documents)
  const norm = (forms: readonly string[]): number => Math.sqrt(forms.reduce((sum, form) => sum + weight(form) ** 2, 0))
  const dot = shared.reduce((sum, form) => sum + weight(form) ** 2, 0)
  const denominator = norm(mine) * norm(theirs)
  const cosine = denominator === 0 ? 0 : Math.min(1, dot / denominator)
  const early = screen(a, b, compared)
  if (early !== undefined) return { verdict: early.verdict, cosine, shared, apart: early.apart, compared }
  return {
    verdict: cosine >= NEAR_DUPLICATE_COSINE ? 'restates' : 'below_threshold',
    cosine,
    shared,
    apart: [],
    compared,
  }
}

/**
 * The checks that need no frequencies, in order: the shared-token floor (cheap, and it rules most rows of a slot out
 * before their identifiers are read), the veto, the one-word exchange.
 */
function screen(
  a: Cut,
  b: Cut,
  compared: readonly StatementField[],
): { verdict: 'vetoed' | 'too_few_shared' | 'exchanged'; apart: readonly string[] } | undefined {
  const mine = formsOf(a, compared)
  const theirs = new Set(formsOf(b, compared))
  const shared = new Set(mine.filter((form) => theirs.has(form)))
  if (shared.size < NEAR_DUPLICATE_MIN_SHARED) return { verdict: 'too_few_shared', apart: [] }
  const vetoedBy = vetoOf(a, b, compared)
  if (vetoedBy.length > 0) return { verdict: 'vetoed', apart: vetoedBy }
  const negatedBy = negationVetoOf(a, b, compared)
  if (negatedBy.length > 0) return { verdict: 'vetoed', apart: negatedBy }
  const onlyMine = mine.filter((form) => !shared.has(form))
  const onlyTheirs = [...theirs].filter((form) => !shared.has(form))
  if (isExchange(onlyMine, onlyTheirs)) return { verdict: 'exchanged', apart: [...onlyMine, ...onlyTheirs] }
  return undefined
}

/**
 * The one-word exchange rule: two statements that are one sentence except for one word on each side ("plays the
 * piano, mostly jazz standards" / "… guitar …", "visited Kyoto in spring" / "visited Osaka in spring") are two
 * values, however high the cosine. That is how two values of one slot differ, and no lexical score tells such a pair
 * from a synonym swapped in ("keeps a personal wiki" / "maintains a personal wiki"): a wrong merge loses a fact, a
 * missed one leaves a row for the review sweep, so the gate keeps both. It looks only at words written outside CJK
 * runs; a CJK difference is the cosine's to weigh, as the seed asks.
 */
function isExchange(onlyMine: readonly string[], onlyTheirs: readonly string[]): boolean {
  return onlyMine.length === 1 && onlyTheirs.length === 1 && !hasCjk(onlyMine[0] ?? '') && !hasCjk(onlyTheirs[0] ?? '')
}

/** One field cut into words: as written (lower-cased, without stopwords, in order) and their indexed forms. */
interface FieldCut {
  readonly words: readonly string[]
  /** Distinct indexed forms, each with the first word written for it. */
  readonly forms: ReadonlyMap<string, string>
}

/** A statement cut into what the gate compares, each field on first use: inside one slot only the value is read. */
class Cut {
  readonly subjectKey: string
  readonly propertyKey: string
  private readonly statement: Statement
  private readonly formOf: (word: string) => string
  private readonly fields = new Map<StatementField, FieldCut>()
  private readonly marks = new Map<StatementField, readonly string[]>()
  private readonly negated = new Map<StatementField, readonly string[]>()

  constructor(statement: Statement, formOf: (word: string) => string) {
    this.statement = statement
    this.formOf = formOf
    this.subjectKey = canonicalEntity(statement.subject)
    this.propertyKey = canonicalPredicate(statement.property)
  }

  /** The field's words and forms. */
  field(name: StatementField): FieldCut {
    let cut = this.fields.get(name)
    if (cut === undefined) {
      const words = searchTerms(this.statement[name])
      const forms = new Map<string, string>()
      for (const word of words) {
        const form = this.formOf(word)
        if (!forms.has(form)) forms.set(form, word)
      }
      cut = { words, forms }
      this.fields.set(name, cut)
    }
    return cut
  }

  /** The field's identifier-shaped ASCII tokens. */
  identifiers(name: StatementField): readonly string[] {
    let found = this.marks.get(name)
    if (found === undefined) {
      found = marksOf(this.statement[name], this.field(name).words)
      this.marks.set(name, found)
    }
    return found
  }

  /** The field's negations, as written. */
  negations(name: StatementField): readonly string[] {
    let found = this.negated.get(name)
    if (found === undefined) {
      found = negationsOf(this.statement[name])
      this.negated.set(name, found)
    }
    return found
  }
}

/** indexForm with a memo for one comparison's words: the rows of one slot repeat most of them. */
function memoizedForms(): (word: string) => string {
  const memo = new Map<string, string>()
  return (word) => {
    let form = memo.get(word)
    if (form === undefined) {
      form = indexForm(word)
      memo.set(word, form)
    }
    return form
  }
}

function comparedFields(a: Cut, b: Cut): StatementField[] {
  return FIELDS.filter((field) =>
    field === 'subject' ? a.subjectKey !== b.subjectKey : field === 'property' ? a.propertyKey !== b.propertyKey : true,
  )
}

function formsOf(cut: Cut, fields: readonly StatementField[]): string[] {
  if (fields.length === 1) return [...cut.field(fields[0] ?? 'value').forms.keys()]
  return [...new Set(fields.flatMap((field) => [...cut.field(field).forms.keys()]))]
}

/**
 * The identifier-shaped ASCII tokens of one field: every identifier `extractIdentifiers` finds (ports, versions,
 * paths, URLs, names with a digit or a separator such as bge-m3) and every ASCII word holding a digit, a lone one
 * included ("3 replicas" / "4 replicas", "week 1" / "week 2", the day of a date). Plain words and CJK text are not
 * identifiers: their differences are the cosine's to weigh. A version's leading v is dropped, so v22 and 22 agree.
 */
function marksOf(text: string, words: readonly string[]): string[] {
  const found = new Set<string>()
  for (const identifier of extractIdentifiers(text))
    if (ASCII_TOKEN.test(identifier)) found.add(identifier.replace(VERSION_PREFIX, ''))
  for (const word of words)
    if (ASCII_TOKEN.test(word) && HAS_DIGIT.test(word)) found.add(word.replace(VERSION_PREFIX, ''))
  return [...found]
}

/**
 * The rare-token veto: identifier-shaped tokens of the compared fields that only one side carries. A side carries a
 * token it holds itself, or whose word parts it writes as a run of words ("dark-mode" is carried by "dark mode",
 * "bge-m3" is not carried by "bge large"). A name made only of letters and hyphens ("bge-large", but as well
 * "long-haul", "two-week") vetoes only against another such token in its place ("bge-large" / "bge-small"): alone it
 * is as often an English compound, whose rewording ("long flights") is the cosine's to weigh.
 */
function vetoOf(a: Cut, b: Cut, compared: readonly StatementField[]): string[] {
  const aMarks = new Set(compared.flatMap((field) => a.identifiers(field)))
  const bMarks = new Set(compared.flatMap((field) => b.identifiers(field)))
  const aWords = compared.flatMap((field) => a.field(field).words.map(unprefixed))
  const bWords = compared.flatMap((field) => b.field(field).words.map(unprefixed))
  const uncarried = (
    marks: ReadonlySet<string>,
    otherMarks: ReadonlySet<string>,
    otherWords: readonly string[],
  ): string[] => [...marks].filter((mark) => !otherMarks.has(mark) && !writesAsRun(mark, otherWords))
  const onlyA = uncarried(aMarks, bMarks, bWords)
  const onlyB = uncarried(bMarks, aMarks, aWords)
  const strong = [...onlyA, ...onlyB].filter((mark) => !LETTER_COMPOUND.test(mark))
  if (strong.length > 0) return strong
  return onlyA.length > 0 && onlyB.length > 0 ? [...onlyA, ...onlyB] : []
}

function unprefixed(word: string): string {
  return word.replace(VERSION_PREFIX, '')
}

function writesAsRun(mark: string, words: readonly string[]): boolean {
  const parts = [...mark.matchAll(WORD_PART)].map((match) => unprefixed(match[0]))
  if (parts.length === 0) return false
  for (let start = 0; start + parts.length <= words.length; start += 1) {
    if (parts.every((part, offset) => words[start + offset] === part)) return true
  }
  return false
}

/**
 * The negations a text writes, in order: English negation words and contractions, and Chinese negation characters
 * outside the common words that only contain one (see CHINESE_NOT_NEGATION). Read on the raw text, lower-cased.
 * @param text - a statement's field as written.
 * @returns the negation words and characters found (empty when the text negates nothing).
 */
export function negationsOf(text: string): string[] {
  const lower = text.toLowerCase()
  const english = [...lower.matchAll(ENGLISH_NEGATION)].map((match) => match[0])
  const chinese = [...lower.replace(CHINESE_NOT_NEGATION, ' ').matchAll(CHINESE_NEGATION)].map((match) => match[0])
  return [...english, ...chinese]
}

/**
 * The negation veto: a negation that only one side writes makes the two opposites ("does not want meetings before
 * ten" / "wants meetings before ten"), however many words they share. Both sides negated is no veto: which
 * negation each writes ("not" / "never", "不" / "没") is the cosine's to weigh, as for any word.
 */
function negationVetoOf(a: Cut, b: Cut, compared: readonly StatementField[]): string[] {
  const mine = compared.flatMap((field) => a.negations(field))
  const theirs = compared.flatMap((field) => b.negations(field))
  if (mine.length > 0 && theirs.length === 0) return [...new Set(mine)]
  if (theirs.length > 0 && mine.length === 0) return [...new Set(theirs)]
  return []
}
