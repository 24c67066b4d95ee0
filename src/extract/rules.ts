/**
 * The rule path of automatic capture: one user message in, fact candidates out. Each candidate is read from one
 * clause (its verbatim quote), passes the shared shape gate, and carries no credential or personal data. Transcripts
 * and quoted injected context yield nothing. Pure; the same message always gives the same candidates.
 */
import { MONTH_NAMES } from '../text/date-mentions.ts'
import { isIdentifierShaped } from '../text/identifiers.ts'
import { foldText } from '../text/normalize.ts'
import { scanPrivacy } from '../text/privacy.ts'
import { hasCjk } from '../text/tokenize.ts'
import { matchEnglish } from './rules-en.ts'
import { matchChinese } from './rules-zh.ts'
import { isQuotedContext, isTranscript, readsAsQuestion, readsAsRequest, shapeGate } from './shape-gate.ts'
import { isHedged, leadLength, splitClauses, splitExplicit } from './signals-grammar.ts'
import { findSignals } from './signals.ts'
import type { RuleCandidate, RuleKind, RuleMatch } from './types.ts'

/**
 * Fixed confidence per rule kind. An explicit request is the user's own words about what to keep (0.9); a bare
 * binding is a plain statement of a value (0.8); a preference or decision is read around a topic the rule had to
 * pick out of the sentence, so it is less certain (0.7). All sit above the default proposal floor (0.6).
 */
export const RULE_CONFIDENCE: Readonly<Record<RuleKind, number>> = {
  remember: 0.9,
  note: 0.9,
  binding: 0.8,
  preference: 0.7,
  decision: 0.7,
}

/**
 * The longest clause the rule path reads, in code points. A longer run without a sentence end is pasted material
 * (a log, a file), not a statement, and its quote would be the whole paste.
 */
const MAX_CLAUSE_CHARS = 600

/** Capitalized words that open sentences or name dates, never the subject of a note. */
const NOT_A_NOTE_SUBJECT = new Set([
  'i',
  "i'm",
  "i've",
  "i'll",
  'the',
  'a',
  'an',
  'we',
  'our',
  'my',
  'this',
  'that',
  'it',
  'please',
  'remember',
  'note',
  'also',
  'and',
  'but',
  'so',
  'ok',
  'okay',
  'yes',
  'no',
  'today',
  'tomorrow',
  'yesterday',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
  ...MONTH_NAMES,
  'fyi',
  'btw',
  "don't",
  'never',
  'always',
])
const NOTE_TOKEN = /[A-Za-z@][\w./@+#-]*[A-Za-z0-9]|[A-Za-z]{2,}/gu

/**
 * Turn one user message into fact candidates.
 *
 * Clause by clause: an explicit request ("remember that …", "记住：…") makes the clause explicit (and the next one, when
 * the request stands alone, as in "Please remember this:"); questions and requests for work are skipped, and so are
 * hedged clauses ("maybe", "I think", "可能") unless explicit. Readings overlapping an earlier one are dropped.
 *
 * Subjects: the words in front of the property ("the staging host is db-2" → staging · host · db-2; "the API base URL"
 * → API · base URL), the owner in "S's P" / "P of S" / "S 的 P", the topic of a preference or decision ("I prefer
 * tabs for indentation" → indentation · preference · tabs). Synthesized properties follow the clause's language
 * (preference/偏好, choice/选用, avoid, uses/使用, port/端口, note/备注).
 *
 * Notes: an explicit request with no recognisable binding becomes a `note` (the request's statement verbatim as the
 * value) only when the statement names a subject — its first identifier-shaped, all-caps, camel-case or capitalized
 * Latin word ("billing-api", "API", "Alice"). Without one it is dropped: the rules never take "user" as a subject,
 * and a note about nothing cannot be found again. The model path and memory_write still see the message.
 *
 * @param text - one user message.
 * @returns candidates in text order, without duplicates (same subject, property and value folded).
 */
export function captureRules(text: string): RuleCandidate[] {
  if (isTranscript(text) || isQuotedContext(text)) return []
  const candidates: RuleCandidate[] = []
  const seen = new Set<string>()
  let carried = false
  for (const clause of splitClauses(text)) {
    const split = splitExplicit(clause.text)
    const explicit = split.explicit || carried
    carried = split.explicit && split.body.trim() === ''
    for (const candidate of clauseCandidates(clause.text, split.body, explicit)) {
      const key = JSON.stringify([foldText(candidate.subject), foldText(candidate.property), foldText(candidate.value)])
      if (seen.has(key)) continue
      seen.add(key)
      candidates.push(candidate)
    }
  }
  return candidates
}

function clauseCandidates(clause: string, body: string, explicit: boolean): RuleCandidate[] {
  const statement = body.slice(leadLength(body)).trim()
  if (statement === '' || [...clause].length > MAX_CLAUSE_CHARS) return []
  const judged = explicit ? statement : clause.slice(leadLength(clause))
  if (readsAsQuestion(judged) || readsAsRequest(judged)) return []
  if (!explicit && isHedged(statement)) return []
  const matches = keepFirst(
    hasCjk(statement)
      ? [...matchChinese(statement, explicit), ...matchEnglish(statement, explicit)]
      : [...matchEnglish(statement, explicit), ...matchChinese(statement, explicit)],
  )
  const decided = !explicit && findSignals(clause).some((signal) => signal.kind === 'decision')
  const drafts = matches.map((match) => draft(match, kindOf(match, explicit, decided), clause, explicit))
  if (explicit && matches.length === 0) {
    const note = noteOf(statement, clause)
    if (note !== undefined) drafts.push(note)
  }
  if (drafts.length === 0 || scanPrivacy('', clause) !== undefined) return []
  // The gate lets "user" stand for the person the memory belongs to (the model names them so); a user message that
  // says "the user …" or "用户 …" is talking about a role, so the rules never take it as that person.
  return drafts.filter(
    (candidate) => shapeGate(candidate).ok && !isPrivate(candidate) && !PERSON.has(foldText(candidate.subject)),
  )
}

/** Subjects that name the person (see above). */
const PERSON: ReadonlySet<string> = new Set(['user', '用户'])

function kindOf(match: RuleMatch, explicit: boolean, decided: boolean): RuleKind {
  if (explicit) return 'remember'
  if (match.family !== 'binding') return match.family
  return decided ? 'decision' : 'binding'
}

function draft(match: RuleMatch, kind: RuleKind, clause: string, explicit: boolean): RuleCandidate {
  return {
    kind,
    explicit,
    subject: tidySubject(match.subject),
    property: match.property.trim(),
    value: match.value.trim(),
    quote: clause,
    confidence: RULE_CONFIDENCE[kind],
  }
}

/** A note: the statement verbatim, about the first name it mentions; undefined when it names nothing. */
function noteOf(statement: string, clause: string): RuleCandidate | undefined {
  const subject = [...statement.matchAll(NOTE_TOKEN)].map((m) => m[0]).find(isNoteSubject)
  const value = statement.replace(/[\s.!?。！？;；]+$/u, '')
  if (subject === undefined || foldText(value) === foldText(subject)) return undefined
  return {
    kind: 'note',
    explicit: true,
    subject,
    property: hasCjk(statement) ? '备注' : 'note',
    value,
    quote: clause,
    confidence: RULE_CONFIDENCE.note,
  }
}

function isNoteSubject(token: string): boolean {
  if (NOT_A_NOTE_SUBJECT.has(token.toLowerCase()) || /^v?\d/u.test(token)) return false
  const folded = token.toLowerCase()
  return (
    (isIdentifierShaped(folded) && /\p{L}/u.test(token)) ||
    /^[A-Z]{2,}\d*$/u.test(token) ||
    /^[a-z]+[A-Z]/u.test(token) ||
    /^[A-Z][a-z]+[A-Z]?/u.test(token)
  )
}

/** Keep readings in order, dropping any that overlaps one already kept. */
function keepFirst(matches: readonly RuleMatch[]): RuleMatch[] {
  const kept: RuleMatch[] = []
  for (const match of matches) {
    if (kept.every((other) => match.end <= other.start || match.start >= other.end)) kept.push(match)
  }
  return kept
}

/** A subject without leading determiners or team pronouns, wrapping quotes or a trailing possessive. */
function tidySubject(subject: string): string {
  return subject
    .trim()
    .replace(/^(?:the|our|a|an)\s+/iu, '')
    .replace(/^(?:我们的|咱们的|我们|咱们)\s*/u, '')
    .replace(/^[`"“'‘](.+)[`"”'’]$/u, '$1')
    .replace(/['’]s$/u, '')
    .trim()
}

/**
 * Whether a candidate's own fields carry a credential or personal data; the property name counts ("password",
 * "phone"). The clause as a whole is scanned once before, so nothing is captured from a clause holding a secret.
 */
function isPrivate(candidate: RuleCandidate): boolean {
  return (
    scanPrivacy(candidate.property, candidate.value) !== undefined || scanPrivacy('', candidate.subject) !== undefined
  )
}
