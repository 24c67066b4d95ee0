/**
 * The shape gate both capture paths share: whether a candidate reads as a fact about a stable entity, and whether a
 * text is a retold transcript or quoted injected context, which neither path reads. Pure; same input, same verdict.
 */
import { foldText } from '../text/normalize.ts'
import { hasCjk } from '../text/tokenize.ts'
import {
  CJK_CLAUSE_WORDS,
  CJK_PERSONAL,
  EN_CLAUSE_WORDS,
  EN_DANGLING,
  EN_PROPERTY_CONNECTORS,
  INJECTED_MARKERS,
  INSTRUCTION_PATTERNS,
  META_PROPERTIES,
  META_SUBJECTS,
  NON_ENTITY_PREFIX,
  NON_ENTITY_SUBJECTS,
  QUESTION_PATTERNS,
  REQUEST_PATTERNS,
  SENTENCE_PUNCTUATION,
  TURN_LABEL,
} from './shape-gate-lexicon.ts'
import type { ShapeVerdict } from './types.ts'

/**
 * Size limits of a candidate's fields, in code points and whitespace-separated words. A subject is a name, so it is
 * short; Han characters are counted separately because a CJK name has no spaces to count.
 */
export const SHAPE_LIMITS = {
  subjectChars: 80,
  subjectWords: 8,
  subjectHanChars: 20,
  propertyChars: 60,
  propertyWords: 6,
  propertyHanChars: 12,
  valueChars: 500,
} as const

/** The three fields the gate judges. */
export interface ShapeInput {
  readonly subject: string
  readonly property: string
  readonly value: string
}

const OK: ShapeVerdict = { ok: true }

/** The subjects that name the person the memory belongs to. */
const PERSON_SUBJECTS: ReadonlySet<string> = new Set(['user', '用户'])

/**
 * Judge whether a candidate has the shape of a fact. The checks run in a fixed order and the first failure names the
 * reason: empty, too_long, instruction, request, question, conversation_meta, subject_not_entity, fragment.
 * Instructions are checked before everything but size so that an injected order is always reported as one, and
 * requests before questions because "can you fix …?" is both.
 * @param candidate - subject, property and value as the path produced them.
 * @returns `{ ok: true }`, or the refusal reason.
 */
export function shapeGate(candidate: ShapeInput): ShapeVerdict {
  const subject = candidate.subject.trim()
  const property = candidate.property.trim()
  const value = candidate.value.trim()
  if (subject === '' || property === '' || value === '') return refuse('empty')
  if (
    tooLong(subject, SHAPE_LIMITS.subjectChars, SHAPE_LIMITS.subjectWords, SHAPE_LIMITS.subjectHanChars) ||
    tooLong(property, SHAPE_LIMITS.propertyChars, SHAPE_LIMITS.propertyWords, SHAPE_LIMITS.propertyHanChars) ||
    [...value].length > SHAPE_LIMITS.valueChars
  )
    return refuse('too_long')
  if ([subject, property, value].some(readsAsInstruction)) return refuse('instruction')
  if ([subject, property, value].some(readsAsRequest)) return refuse('request')
  if ([subject, property, value].some(readsAsQuestion)) return refuse('question')
  const subjectKey = withoutArticle(foldText(subject))
  // "user" (用户), exactly so, is the canonical subject for the person the memory belongs to, as memory_write and the
  // extraction prompt use it; "the user", "users" and the other participants stay conversation meta.
  const person = PERSON_SUBJECTS.has(subject.toLowerCase())
  if ((!person && META_SUBJECTS.has(subjectKey)) || META_PROPERTIES.has(withoutArticle(foldText(property)))) {
    return refuse('conversation_meta')
  }
  if (person) return OK
  if (!isEntityName(subject, subjectKey)) return refuse('subject_not_entity')
  if (isFragment(subject, true) || isFragment(property, false) || NON_ENTITY_SUBJECTS.has(foldText(value))) {
    return refuse('fragment')
  }
  return OK
}

/**
 * Whether a text reads as an instruction to the assistant: an order addressed to "you", an override of earlier
 * instructions, a standing order ("always run …", "以后每次都要 …") or a destructive command.
 * @param text - a subject, property, value or any clause.
 * @returns true when any instruction pattern matches.
 */
export function readsAsInstruction(text: string): boolean {
  const normalized = text.normalize('NFKC')
  return INSTRUCTION_PATTERNS.some((pattern) => pattern.test(normalized))
}

/**
 * Whether a text reads as a question: a closing question mark, an interrogative opening ("what is", "can you"), or a
 * Chinese question word or particle.
 * @param text - a field or clause.
 * @returns true for a question.
 */
export function readsAsQuestion(text: string): boolean {
  const normalized = text.normalize('NFKC').trim()
  return QUESTION_PATTERNS.some((pattern) => pattern.test(normalized))
}

/**
 * Whether a text reads as a request for work ("can you fix …", "please update …", "帮我 …"). A request to remember
 * ("please remember …") is not a request for work.
 * @param text - a field or clause.
 * @returns true for a work request.
 */
export function readsAsRequest(text: string): boolean {
  const normalized = text.normalize('NFKC').trim()
  return REQUEST_PATTERNS.some((pattern) => pattern.test(normalized))
}

/**
 * Whether a text is a retold conversation, as a compaction or title agent writes it: its first non-empty line opens
 * with a turn label (USER: / ASSISTANT: / 用户： / 助手：), or at least two lines do. Both paths refuse such text: it
 * is the assistant's retelling, not the user speaking.
 * @param text - a message or a range of text.
 * @returns true for a transcript.
 */
export function isTranscript(text: string): boolean {
  const lines = text.split(/\r?\n/u).filter((line) => line.trim() !== '')
  if (lines[0] !== undefined && TURN_LABEL.test(lines[0])) return true
  let labelled = 0
  for (const line of lines) {
    if (TURN_LABEL.test(line)) labelled += 1
    if (labelled >= 2) return true
  }
  return false
}

/**
 * Whether a text quotes context the host or this plugin injected: a system reminder, runtime context, the fact-memory
 * notice or directory, or a memory tool's outcome. Facts read from such text would be the machine's words (or an
 * injection riding on them), so both paths refuse it.
 * @param text - a message or a range of text.
 * @returns true when an injected-context marker occurs.
 */
export function isQuotedContext(text: string): boolean {
  return INJECTED_MARKERS.some((pattern) => pattern.test(text))
}

function refuse(reason: Exclude<ShapeVerdict, { ok: true }>['reason']): ShapeVerdict {
  return { ok: false, reason }
}

function tooLong(text: string, maxChars: number, maxWords: number, maxHan: number): boolean {
  const han = text.match(/\p{Script=Han}/gu)?.length ?? 0
  return [...text].length > maxChars || text.split(/\s+/u).length > maxWords || han > maxHan
}

function withoutArticle(folded: string): string {
  return folded.replace(/^(?:the|a|an)\s+/u, '')
}

/** A subject names an entity when it has a letter, is not only digits, and is no pronoun or deictic phrase. */
function isEntityName(subject: string, key: string): boolean {
  if (!/\p{L}/u.test(subject)) return false
  if (NON_ENTITY_SUBJECTS.has(key) || NON_ENTITY_SUBJECTS.has(foldText(subject))) return false
  if (NON_ENTITY_PREFIX.test(subject.normalize('NFKC'))) return false
  return !(hasCjk(subject) && CJK_PERSONAL.test(subject))
}

/**
 * A subject or property is a fragment when it carries sentence punctuation, dangles on a function word, or holds
 * clause words (a verb or connector for subjects, a connector for properties; a CJK clause word for both).
 */
function isFragment(text: string, isSubject: boolean): boolean {
  const normalized = text.normalize('NFKC')
  if (SENTENCE_PUNCTUATION.test(normalized) || /[:：]$/u.test(normalized)) return true
  if (EN_DANGLING.some((pattern) => pattern.test(normalized))) return true
  if (isSubject ? EN_CLAUSE_WORDS.test(normalized) : EN_PROPERTY_CONNECTORS.test(normalized)) return true
  return hasCjk(normalized) && CJK_CLAUSE_WORDS.test(normalized)
}
