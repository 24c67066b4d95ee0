/**
 * English rule patterns: read property-value bindings ("the staging host is db-2", "billing-api's owner is Alice",
 * "we run the API on port 8123"), stated preferences with a topic ("I prefer tabs for indentation") and decisions
 * with a topic ("we'll use Redis as the cache") out of one clause. Each reading names the words it came from;
 * judging them is left to the rule path and the shape gate. Pure.
 */
import { EN_COMPOUND_PROPERTIES, EN_FUNCTION_WORDS, isKnownProperty, isValueShaped } from './signals-grammar.ts'
import { reading } from './rule-reading.ts'
import type { RuleMatch } from './types.ts'

const NP_TOKEN = /^[\p{L}\p{N}][\p{L}\p{N}._/@+#-]*$/u
/** Determiners dropped in front of a name ("the API", "our billing service"). */
const DROPPED_DETERMINERS = new Set(['the', 'a', 'an', 'our'])
/** Determiners kept, so the shape gate sees a deictic or speaker-relative subject and refuses it. */
const KEPT_DETERMINERS = new Set(['this', 'that', 'these', 'those', 'my', 'your', 'his', 'her', 'their', 'its'])
const MAX_NP_WORDS = 6
/** Modifiers that are never a subject on their own ("the default branch", "the main issue"). */
const MODIFIERS = new Set([
  'default',
  'main',
  'primary',
  'secondary',
  'current',
  'new',
  'old',
  'preferred',
  'favorite',
  'favourite',
  'first',
  'last',
  'next',
  'previous',
  'same',
  'other',
  'right',
  'wrong',
  'correct',
  'actual',
  'real',
  'final',
  'only',
  'best',
  'biggest',
  'whole',
  'entire',
  'usual',
  'official',
  'latest',
  'newest',
  'oldest',
  'stable',
  'recommended',
])

/** Where an English value stops: a clause break, a parenthesis, a connector, "for …", or a second statement. */
const VALUE_END =
  /\s*(?:[,;]|\s[-–—]\s|\(|\b(?:because|since|so that|so|but|which|when|while|if|unless|though|although|for|right now|btw)\b|\band\s+(?:the|it|its|we|I|you|they|our|his|her|their)\b|\s(?:I|we|you|he|she|they)\s)/iu
const VALUE_LEAD = /^(?:now|currently|still|actually|just|always)\s+/iu
/**
 * A value that opens on a preposition, a negation, a copula, a degree word, an -ing verb phrase ("failing on node 20")
 * or a Chinese particle.
 */
const VALUE_BAD_START =
  /^(?:on|at|in|to|for|from|with|by|of|about|like|under|over|that|not|no|never|is|are|was|were|being|going|a lot|too|much|more|less|very|really|so|quite|pretty)\b|^[a-z]{2,}ing\s+\S|^[的是了=:：]/iu
const PREFERENCE_TAIL = /\s+(?:over|rather than|instead of|to|than)\s+.*$/iu

const COPULA =
  /(?:\s+(?:is(?:\s+set\s+to)?|equals)\s+|\s*(?<![=!<>])=(?!=)\s*)(?:(?:now|currently|still)\s+)?(?!not\b|no\b|never\b|no longer\b)/giu
const PORT_PATTERNS: readonly RegExp[] = [
  /\b(?:we|I|they)\s+(?:run|serve|host|expose|deploy|start|put|keep)\s+(?<s>[^,;]{1,60}?)\s+(?:on|at)\s+port\s+(?<v>\d{2,5})\b/giu,
  /(?<s>[^,;]{1,60}?)\s+(?:runs|is running|listens|is listening|lives|is served|is hosted|is exposed|is deployed|sits|is|binds)\s+(?:on|at|to)\s+port\s+(?<v>\d{2,5})\b/giu,
  /(?<s>[^,;]{1,60}?)\s+uses\s+port\s+(?<v>\d{2,5})\b/giu,
]
const USES =
  /(?<s>[^,;]{1,60}?)\s+(?<verb>uses|is using|runs on|is built with|is written in|depends on|is hosted on|is deployed (?:on|to))\s+(?<v>[^,;]+)/giu
const VERB_PROPERTY: Readonly<Record<string, string>> = {
  uses: 'uses',
  'is using': 'uses',
  'runs on': 'runs on',
  'is built with': 'built with',
  'is written in': 'written in',
  'depends on': 'depends on',
  'is hosted on': 'hosted on',
  'is deployed on': 'deployed on',
  'is deployed to': 'deployed to',
}
const TOPIC_PATTERNS: readonly (readonly [RegExp, RuleMatch['family'], string])[] = [
  [
    /\bmy\s+(?:preferred|favou?rite|go-to|default)\s+(?<t>[\w-]+(?:\s+[\w-]+){0,2}?)\s+(?:is|=)\s+(?<v>[^,;]+)/giu,
    'preference',
    'preference',
  ],
  [
    /\bI\s+(?:\w+\s+)?prefer\s+(?:using\s+|to use\s+)?(?<v>[^,;]+?)\s+(?:for|as(?:\s+my)?|when\s+(?:writing|using|doing|working\s+(?:on|with)))\s+(?<t>[^,;]+)/giu,
    'preference',
    'preference',
  ],
  [
    /\bfor\s+(?<t>[^,;]{1,40}?),?\s+I\s+(?:\w+\s+)?prefer\s+(?:using\s+|to use\s+)?(?<v>[^,;]+)/giu,
    'preference',
    'preference',
  ],
  [/\bI\s+(?:always|usually|generally)\s+use\s+(?<v>[^,;]+?)\s+for\s+(?<t>[^,;]+)/giu, 'preference', 'preference'],
  [/\bI\s+never\s+use\s+(?<v>[^,;]+?)\s+for\s+(?<t>[^,;]+)/giu, 'preference', 'avoid'],
  [
    /\b(?:we|I|the team)\s+(?:have\s+|'ve\s+|just\s+|finally\s+)?(?:(?:decided|agreed|chose|opted)\s+(?:to\s+)?(?:use|go with|adopt|switch to|stick with|standardi[sz]e on)|(?:settled|agreed)\s+on)\s+(?<v>[^,;]+?)\s+(?:for|as)\s+(?<t>[^,;]+)/giu,
    'decision',
    'choice',
  ],
  [
    /\b(?:we'll|we will|we're going to|we are going to|let's|let us)\s+(?:use|go with|adopt|switch to|stick with|standardi[sz]e on)\s+(?<v>[^,;]+?)\s+(?:for|as)\s+(?<t>[^,;]+)/giu,
    'decision',
    'choice',
  ],
  [
    /\bfor\s+(?<t>[^,;]{1,40}?),?\s+(?:we'll|we will|let's|we decided to|we're going to|we are going to|we agreed to)\s+(?:use|go with|adopt|switch to|stick with)\s+(?<v>[^,;]+)/giu,
    'decision',
    'choice',
  ],
]

/**
 * Read the English statements of one clause body, in priority order: ports, topic preferences and decisions,
 * "X uses Y", then copula bindings.
 * @param body - the clause without any explicit memory request.
 * @param explicit - the user asked to remember it: any value is accepted, not only value-shaped ones.
 * @returns the readings, possibly overlapping; the rule path keeps the first of overlapping ones.
 */
export function matchEnglish(body: string, explicit: boolean): RuleMatch[] {
  return [...matchPorts(body), ...matchTopics(body), ...matchUses(body, explicit), ...matchCopulas(body, explicit)]
}

function matchPorts(body: string): RuleMatch[] {
  const found: RuleMatch[] = []
  for (const pattern of PORT_PATTERNS) {
    for (const m of body.matchAll(pattern)) {
      const phrase = nounPhraseBefore(m.groups?.['s'] ?? '')
      const value = m.groups?.['v']
      if (phrase === undefined || value === undefined) continue
      found.push(reading('binding', phrase.words.join(' '), 'port', value, m.index, m.index + m[0].length))
    }
  }
  return found
}

function matchTopics(body: string): RuleMatch[] {
  const found: RuleMatch[] = []
  for (const [pattern, family, property] of TOPIC_PATTERNS) {
    for (const m of body.matchAll(pattern)) {
      const topic = tidyTopic(m.groups?.['t'] ?? '')
      const value = cutValue(m.groups?.['v'] ?? '').replace(PREFERENCE_TAIL, '')
      if (topic === '' || value === '' || wordCount(value) > 6 || VALUE_BAD_START.test(value)) continue
      found.push(reading(family, topic, property, value, m.index, m.index + m[0].length))
    }
  }
  return found
}

function matchUses(body: string, explicit: boolean): RuleMatch[] {
  const found: RuleMatch[] = []
  for (const m of body.matchAll(USES)) {
    const phrase = nounPhraseBefore(m.groups?.['s'] ?? '')
    const value = cutValue(m.groups?.['v'] ?? '')
    const property = VERB_PROPERTY[(m.groups?.['verb'] ?? '').toLowerCase().replace(/\s+/gu, ' ')]
    if (phrase === undefined || property === undefined || value === '' || VALUE_BAD_START.test(value)) continue
    if (!explicit && (!isValueShaped(value) || wordCount(value) > 4)) continue
    found.push(reading('binding', phrase.words.join(' '), property, value, m.index, m.index + m[0].length))
  }
  return found
}

function matchCopulas(body: string, explicit: boolean): RuleMatch[] {
  const found: RuleMatch[] = []
  for (const m of body.matchAll(COPULA)) {
    const phrase = nounPhraseBefore(body.slice(0, m.index))
    const rest = body.slice(m.index + m[0].length)
    const value = cutValue(rest)
    if (phrase === undefined || value === '' || VALUE_BAD_START.test(value)) continue
    const split = splitPhrase(phrase.words, m[0].includes('='))
    if (split === undefined) continue
    if (!explicit && !isKnownProperty(split.property) && !isValueShaped(value)) continue
    if (!explicit && wordCount(value) > 8) continue
    const end = m.index + m[0].length + value.length
    found.push(reading('binding', split.subject, split.property, value, phrase.start, end))
  }
  return found
}

/**
 * The noun phrase that ends a stretch of text: walk back over name-like words until a function word, punctuation or
 * a determiner. "the"/"our" are dropped; "this"/"my" and the like are kept so the gate refuses the subject. "the P of
 * S" keeps P in front as a property marker ("owner of billing-api" → words [owner, of, billing-api]).
 */
function nounPhraseBefore(text: string): { readonly words: string[]; readonly start: number } | undefined {
  const tokens = [...text.matchAll(/\S+/gu)]
  const words: string[] = []
  let start = text.length
  for (let i = tokens.length - 1; i >= 0 && words.length < MAX_NP_WORDS; i -= 1) {
    const token = tokens[i]
    if (token === undefined) break
    const raw = token[0].replace(/^["'`“‘]+|["'`”’]+$/gu, '')
    const lower = raw.toLowerCase()
    if (words.length > 0 && /[,;:]$/u.test(raw)) break
    // A capital "A" inside a phrase is a name ("Service A"), not the article.
    if (DROPPED_DETERMINERS.has(lower) && !(raw === 'A' && i > 0)) break
    if (KEPT_DETERMINERS.has(lower)) {
      words.unshift(raw)
      start = token.index
      break
    }
    if (lower === 'of' && words.length > 0) {
      const owner = nounPhraseBefore(text.slice(0, token.index))
      if (owner === undefined || owner.words.length > 2) break
      return { words: [...owner.words, 'of', ...words], start: owner.start }
    }
    if (EN_FUNCTION_WORDS.has(lower) || !NP_TOKEN.test(raw.replace(/['’]s$/u, ''))) break
    words.unshift(raw)
    start = token.index
  }
  return words.length === 0 ? undefined : { words, start }
}

/**
 * Split a noun phrase into subject and property: "P of S" → S · P; "S's P" → S · P; otherwise the last word (or a
 * known two-word property, when words remain for a subject) is the property and the words before it the subject. A
 * lone dotted name is split at its last dot only after "=" ("billing.port = 7801"). A phrase whose subject would be a
 * lone modifier ("the default branch", "the main issue") has no subject.
 */
function splitPhrase(words: readonly string[], assignment: boolean): { subject: string; property: string } | undefined {
  const of = words.indexOf('of')
  if (of > 0) return { subject: words.slice(of + 1).join(' '), property: words.slice(0, of).join(' ') }
  const possessive = words.findIndex((word) => /['’]s$/u.test(word))
  if (possessive >= 0 && possessive < words.length - 1) {
    const subject = [...words.slice(0, possessive), (words[possessive] ?? '').replace(/['’]s$/u, '')].join(' ')
    return { subject, property: words.slice(possessive + 1).join(' ') }
  }
  if (words.length === 1) {
    const dotted = /^(?<s>[\p{L}\p{N}][\w.-]*)\.(?<p>[\p{L}][\w-]*)$/u.exec(words[0] ?? '')
    if (!assignment || dotted?.groups === undefined) return undefined
    return { subject: dotted.groups['s'] ?? '', property: dotted.groups['p'] ?? '' }
  }
  const tail = words.slice(-2).join(' ')
  const compound = words.length >= 3 && EN_COMPOUND_PROPERTIES.has(tail.toLowerCase())
  const split = compound
    ? { subject: words.slice(0, -2).join(' '), property: tail }
    : { subject: words.slice(0, -1).join(' '), property: words[words.length - 1] ?? '' }
  return split.subject === '' || MODIFIERS.has(split.subject.toLowerCase()) ? undefined : split
}

/** The value a clause binds: up to a clause break, without trailing punctuation, wrapping quotes or a leading "now". */
function cutValue(text: string): string {
  const end = VALUE_END.exec(text)
  const cut = (end === null ? text : text.slice(0, end.index)).replace(VALUE_LEAD, '')
  return cut
    .replace(/[\s.!?。！？:：]+$/u, '')
    .replace(/^[`"“'‘](.+)[`"”'’]$/u, '$1')
    .trim()
}

/** A preference or decision topic: cut like a value, leading determiners dropped ("for the cache" → "cache"). */
function tidyTopic(text: string): string {
  return cutValue(text)
    .replace(/^(?:the|a|an|my|our|all|any)\s+/iu, '')
    .replace(/^(?:my|our)\s+/iu, '')
}

function wordCount(text: string): number {
  return text.split(/\s+/u).filter((word) => word !== '').length
}
