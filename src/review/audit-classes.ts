/**
 * Pure classifiers of the health check: shapes in a library that no write-time gate can see, each found over the
 * current facts and returned as the rows one aggregated proposal would list.
 * - Self-restating facts: the value says nothing its property does not ("error message: failed with an error
 *   message"). Accepting retires them.
 * - Dated pipelines: one subject holding a run per day under properties that differ only by the date in their name
 *   ("2026-02-08 result", "2026-02-09 result"), which the write-time fold cannot see because it compares values.
 *   Accepting folds the older runs into the newest.
 * - Split subjects: one subject spelled as two entities that canonicalisation keeps apart ("fact memory" and
 *   "factmemory", or a fragment such as "billing" holding the same facts as "billing api"). Accepting aliases the
 *   fragment into its canonical spelling.
 */
import { cjkRuns, hasCjk, searchTerms } from '../text/tokenize.ts'
import { propertyFoldShape } from '../rules/fold.ts'

/** What a classifier reads of a fact. */
export interface AuditFact {
  readonly id: number
  readonly entityKey: string
  readonly property: string
  readonly value: string
}

/**
 * Words a value may add to its property and still say nothing: verbs of reporting and filler that carry no fact of
 * their own ("failed with an error message", "has a status", "shows the error"). Kept short on purpose: a word here
 * can only make a fact look emptier.
 */
const EMPTY_WORDS = new Set([
  'failed',
  'fails',
  'fail',
  'failure',
  'got',
  'gets',
  'get',
  'shows',
  'showed',
  'show',
  'returned',
  'returns',
  'gave',
  'gives',
  'contains',
  'includes',
  'occurred',
  'happened',
  'present',
  'exists',
  'set',
  'some',
  'one',
  'yes',
  'true',
  '有',
  '出现',
  '发生',
  '存在',
])

/**
 * Whether a fact's value only restates its property. English words: every word of the value is a word of the
 * property or an empty word. Chinese text: once the property's text and the empty words are taken out of the value,
 * no character is left (bigrams would see a new word across every boundary). Either way the value must share
 * something with the property; a number or any word of its own makes it a fact ("端口: 7801").
 * @param fact - the fact.
 * @returns true when the value carries nothing beyond its property.
 */
export function restatesProperty(fact: Pick<AuditFact, 'property' | 'value'>): boolean {
  const property = fact.property.normalize('NFKC').toLowerCase()
  let value = fact.value.normalize('NFKC').toLowerCase()
  let shared = 0
  for (const run of cjkRuns(property)) {
    if (value.includes(run)) shared += 1
    value = value.replaceAll(run, ' ')
  }
  for (const word of EMPTY_WORDS) if (hasCjk(word)) value = value.replaceAll(word, ' ')
  if (hasCjk(value)) return false
  const propertyWords = new Set(searchTerms(property).map(fold))
  for (const word of searchTerms(value).map(fold)) {
    if (propertyWords.has(word)) shared += 1
    else if (!EMPTY_WORDS.has(word)) return false
  }
  return shared > 0
}

/** What the pipeline classifier reads of a fact besides {@link AuditFact}. */
export interface PipelineFact extends AuditFact {
  readonly scope: string
  /** When the fact was observed (ISO UTC): orders two runs of one day. */
  readonly observedAt: string
}

/** One dated pipeline: the run that stays and the older runs it absorbs. */
export interface DatedPipeline {
  readonly survivor: number
  /** The older runs, oldest day first. */
  readonly runs: readonly number[]
  /** The property name folded, its date written as `{date}` (what the runs have in common). */
  readonly template: string
}

/**
 * Find pipelines whose date sits in the property name. Facts of one subject and scope whose property names read as
 * one line around one date ({@link propertyFoldShape}: the same text, one parsable date in the property, at least
 * four other letters or digits in the subject and property together, one of them in the property) and that name at
 * least two different days are one pipeline. The run of the latest day survives (on one
 * day, the latest observed, then the higher id); every run of an earlier day folds into it; another run of the
 * survivor's own day is not a recurrence and is left alone. A property dated more than a day after `today` names a
 * plan, not a run, and is left out, as the write-time fold leaves out a value dated in the future.
 * @param facts - current facts.
 * @param today - `YYYY-MM-DD` of the run (UTC).
 * @returns the pipelines, by survivor id.
 */
export function datedPipelines(facts: readonly PipelineFact[], today: string): DatedPipeline[] {
  const limit = dayAfter(today)
  const groups = new Map<string, { fact: PipelineFact; order: string; day: string }[]>()
  for (const fact of facts) {
    const shape = propertyFoldShape(fact.entityKey, fact.property)
    if (!shape.ok || shape.day > limit) continue
    const key = JSON.stringify([fact.entityKey, fact.scope, shape.template])
    const list = groups.get(key) ?? []
    list.push({ fact, order: shape.order, day: shape.day })
    groups.set(key, list)
  }
  const found: DatedPipeline[] = []
  for (const [key, list] of groups) {
    if (new Set(list.map((entry) => entry.day)).size < 2) continue
    const newestFirst = [...list].sort(
      (a, b) => compare(b.order, a.order) || compare(b.fact.observedAt, a.fact.observedAt) || b.fact.id - a.fact.id,
    )
    const [survivor] = newestFirst
    if (survivor === undefined) continue
    const runs = newestFirst
      .filter((entry) => entry.day !== survivor.day)
      .reverse()
      .map((entry) => entry.fact.id)
    found.push({
      survivor: survivor.fact.id,
      runs,
      template: String((JSON.parse(key) as unknown[])[2]).replaceAll('\u0000', '{date}'),
    })
  }
  return found.sort((a, b) => a.survivor - b.survivor)
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function dayAfter(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)
}

/** One split subject: the fragment spelling and the canonical one it should be read as. */
export interface SplitSubject {
  readonly fragment: string
  readonly canonical: string
  /** Facts the fragment holds. */
  readonly factIds: readonly number[]
  /** Why the two are taken for one subject. */
  readonly reason: 'spelling' | 'fragment'
}

/**
 * Find subjects spelled as two entities. Two keys are one subject when they are the same letters once spaces are
 * taken out ("fact memory" / "factmemory"), or when one is the other's leading words and they hold at least one
 * identical property and value ("billing · port: 7801" beside "billing api · port: 7801"). The spelling with more
 * facts is the canonical one (the longer name on a tie); each fragment is listed once, against one canonical key.
 * @param facts - current facts.
 * @returns the split subjects, fragments in key order.
 */
export function splitSubjects(facts: readonly AuditFact[]): SplitSubject[] {
  const byEntity = new Map<string, AuditFact[]>()
  for (const fact of facts) {
    const list = byEntity.get(fact.entityKey) ?? []
    list.push(fact)
    byEntity.set(fact.entityKey, list)
  }
  const keys = [...byEntity.keys()].sort()
  const statements = new Map(
    keys.map((key) => [
      key,
      new Set((byEntity.get(key) ?? []).map((fact) => `${fold(fact.property)}\u0000${fold(fact.value)}`)),
    ]),
  )
  const weight = (key: string): number => byEntity.get(key)?.length ?? 0
  const canonicalOf = (a: string, b: string): [string, string] =>
    weight(a) > weight(b) || (weight(a) === weight(b) && a.length >= b.length) ? [a, b] : [b, a]
  const found = new Map<string, SplitSubject>()
  for (let i = 0; i < keys.length; i += 1) {
    for (let j = i + 1; j < keys.length; j += 1) {
      const a = keys[i] ?? ''
      const b = keys[j] ?? ''
      let reason: SplitSubject['reason'] | undefined
      if (a.replaceAll(' ', '') === b.replaceAll(' ', '')) reason = 'spelling'
      else if ((leadsWith(a, b) || leadsWith(b, a)) && shares(statements.get(a), statements.get(b))) reason = 'fragment'
      if (reason === undefined) continue
      const [canonical, fragment] = reason === 'fragment' ? (a.length > b.length ? [a, b] : [b, a]) : canonicalOf(a, b)
      if (found.has(fragment)) continue
      found.set(fragment, {
        fragment,
        canonical,
        factIds: (byEntity.get(fragment) ?? []).map((fact) => fact.id),
        reason,
      })
    }
  }
  return [...found.values()].sort((x, y) => (x.fragment < y.fragment ? -1 : 1))
}

/**
 * The entity keys {@link splitSubjects} could pair, found without comparing every pair: keys that are one another's
 * spelling once spaces are taken out, and keys one of whose leading-word prefixes is another key. The caller then
 * needs to read the facts of these entities only.
 * @param keys - entity keys.
 * @returns the keys that take part in at least one candidate pair.
 */
export function splitCandidates(keys: readonly string[]): Set<string> {
  const all = new Set(keys)
  const bySpelling = new Map<string, string[]>()
  for (const key of all) {
    const joined = key.replaceAll(' ', '')
    bySpelling.set(joined, [...(bySpelling.get(joined) ?? []), key])
  }
  const found = new Set<string>()
  for (const group of bySpelling.values()) if (group.length > 1) for (const key of group) found.add(key)
  for (const key of all) {
    for (let at = key.indexOf(' '); at > 0; at = key.indexOf(' ', at + 1)) {
      const prefix = key.slice(0, at)
      if (all.has(prefix)) {
        found.add(prefix)
        found.add(key)
      }
    }
  }
  return found
}

/** Whether `long` starts with all of `short`'s words and has more. */
function leadsWith(long: string, short: string): boolean {
  return long.length > short.length && long.startsWith(`${short} `)
}

function shares(a: ReadonlySet<string> | undefined, b: ReadonlySet<string> | undefined): boolean {
  if (a === undefined || b === undefined) return false
  for (const statement of a) if (b.has(statement)) return true
  return false
}

/** Fold case and a plural "s" so "messages" restates "message". */
function fold(word: string): string {
  const lower = word.normalize('NFKC').toLowerCase()
  return lower.length > 3 && lower.endsWith('s') && !lower.endsWith('ss') ? lower.slice(0, -1) : lower
}
