/**
 * The signal prefilter: which clauses of a text carry something worth extracting — an explicit memory request, a
 * standing preference, a decision, or a property-value binding — in English and Chinese. Questions, requests for
 * work, chit-chat, transcripts and quoted injected context carry none. Pure.
 */
import {
  isKnownProperty,
  isValueShaped,
  leadLength,
  splitClauses,
  splitExplicit,
  ZH_PROPERTIES,
} from './signals-grammar.ts'
import { isQuotedContext, isTranscript, readsAsQuestion, readsAsRequest } from './shape-gate.ts'
import type { Signal, SignalKind } from './types.ts'

/** A global pattern for one signal kind, with an optional check on each match (a binding's value must look bound). */
interface SignalPattern {
  readonly pattern: RegExp
  readonly accept?: (match: RegExpMatchArray) => boolean
}

const PREFERENCE: readonly SignalPattern[] = [
  { pattern: /\bI\s+(?:really\s+|strongly\s+|generally\s+|usually\s+|much\s+)?(?:prefer|'d prefer|would prefer)\b/giu },
  { pattern: /\bI(?:'d| would)\s+rather\b/giu },
  {
    pattern:
      /\bI\s+(?:always|never|usually|generally)\s+(?!forget|remember|wonder|get|got|thought|think|knew|know|feel|felt|have to|had to|need|needed|want|wanted|seem|end up|ended up|find)[a-z]+/giu,
  },
  { pattern: /\bmy\s+(?:preferred|favou?rite|go-to|default)\s+[\w-]+/giu },
  { pattern: /我(?:比较|更|最|一般|通常|平时)?(?:喜欢|习惯|偏好|倾向于?|爱用|常用)(?!你|您|这|那|它|他|她)/gu },
  { pattern: /我(?:总是|一直|向来|从来都|从来|从不)(?!忘|记不住|搞不清|不知道|不懂|觉得|以为|在想|没|很|不太)/gu },
  { pattern: /以后(?:都|一律|统一|全部|一直)/gu },
]

const DECISION: readonly SignalPattern[] = [
  {
    pattern:
      /\b(?:we|I|the team)\s+(?:have\s+|'ve\s+|just\s+|finally\s+)?(?:decided|agreed|settled on|chose|chosen|opted|picked)\b/giu,
  },
  {
    pattern:
      /\bwe(?:'ll| will| are going to|'re going to|'re| are)\s+(?:use|using|go with|going with|stick with|sticking with|switch to|switching to|adopt|standardi[sz]e on|migrate to|moving to|move to)\b/giu,
  },
  { pattern: /\blet'?s\s+(?:go with|use|stick with|switch to|adopt|standardi[sz]e on)\b/giu },
  { pattern: /\b(?:from now on|going forward|from here on)\b/giu },
  { pattern: /\b(?:the\s+)?decision\s+(?:is|was)\b|\bdecision:\s/giu },
  { pattern: /(?<!你|您|你来|您来|由你|由您|没|未|不|还没|没有)(?:决定|拍板)(?!吧|吗|一下)/gu },
  { pattern: /(?<!一)定了(?!吗)/gu },
  { pattern: /以后(?:就|都|统一|一律)?(?:用|使用|采用|改用|换成)/gu },
  { pattern: /以后[^，,。；;\s]{1,12}?(?:就|都|统一|一律)(?:用|使用|采用|改用|换成)/gu },
  { pattern: /从现在(?:起|开始)|从今以后|今后|往后/gu },
  { pattern: /(?:就|统一|一律)(?:用|使用|采用)[^，,。；;]{1,30}?吧/gu },
]

/** Words that cannot end the noun phrase of an English binding ("it is …", "that was …"). */
const NOT_A_NAME = /^(?:it|this|that|there|here|he|she|they|what|which|who|one|all|everything|nothing|which)$/iu

const BINDING: readonly SignalPattern[] = [
  { pattern: /\bport\s+(?:number\s+)?(?:is\s+|=\s*|:\s*)?\d{2,5}\b/giu },
  {
    pattern:
      /\b(?:runs?|running|listens?|listening|lives?|served|serves|hosted|deployed|exposed)\s+(?:on|at)\s+(?:port\s+)?[\w.-]*\d[\w.:-]*/giu,
  },
  {
    pattern:
      /\b([\w.@/-]+)\s+(?:is|=|is set to|equals)\s+(?:now\s+|currently\s+)?(?!not\b|no\b|never\b)([^\s,;]+(?:\s+[^\s,;]+){0,3})/giu,
    accept: (m) => !NOT_A_NAME.test(m[1] ?? '') && (isKnownProperty(m[1] ?? '') || isValueShaped(m[2] ?? '')),
  },
  { pattern: /(?:^|[\s(])[A-Za-z][\w.-]*\w\s*=\s*[^\s=]/gu },
  {
    pattern: /\b([\w.@/-]+)\s+(?:uses|is using|runs on|is built with|is written in|depends on)\s+([^\s,;]+)/giu,
    accept: (m) => !NOT_A_NAME.test(m[1] ?? '') && isValueShaped(m[2] ?? ''),
  },
  { pattern: new RegExp(`(?:${ZH_PROPERTIES.join('|')})\\s*(?<!不|没)(?:是|为|[:：=])\\s*[^\\s，,。；;！!？?]`, 'gu') },
  { pattern: /的\s*[^\s，,。；;！!？?的是]{1,12}\s*(?<!不|没)(?:是|为)\s*[A-Za-z0-9`"“]/gu },
  { pattern: /[^\s，,。；;！!？?]\s*(?:用的是|使用的是|采用的是)\s*[^\s，,。；;！!？?]/gu },
  { pattern: /(?:跑|运行|部署|监听)在\s*(?:端口\s*)?\d{2,5}/gu },
]

const PATTERNS: readonly (readonly [SignalKind, readonly SignalPattern[]])[] = [
  ['preference', PREFERENCE],
  ['decision', DECISION],
  ['binding', BINDING],
]

/**
 * Find the signals in a text, clause by clause: at most one per kind and clause, each with the verbatim text that
 * carried it. A clause that is a question or a request for work carries no signal unless it asks to remember
 * ("could you remember that …?"); a transcript or quoted injected context carries none at all.
 * @param text - one message or the new text of a turn.
 * @returns the signals in text order.
 */
export function findSignals(text: string): Signal[] {
  if (isTranscript(text) || isQuotedContext(text)) return []
  return splitClauses(text).flatMap((clause) => clauseSignals(clause.text))
}

/**
 * Whether a text carries any signal.
 * @param text - one message or the new text of a turn.
 * @returns true when {@link findSignals} finds at least one.
 */
export function hasSignal(text: string): boolean {
  return findSignals(text).length > 0
}

function clauseSignals(clause: string): Signal[] {
  const split = splitExplicit(clause)
  const signals: Signal[] = []
  const spoken = clause.slice(leadLength(clause))
  if (split.explicit) signals.push({ kind: 'remember', match: split.marker })
  else if (readsAsQuestion(spoken) || readsAsRequest(spoken)) return []
  for (const [kind, patterns] of PATTERNS) {
    const match = firstMatch(split.body, patterns)
    if (match !== undefined) signals.push({ kind, match })
  }
  return signals
}

function firstMatch(body: string, patterns: readonly SignalPattern[]): string | undefined {
  for (const { pattern, accept } of patterns) {
    for (const match of body.matchAll(pattern)) {
      if (accept === undefined || accept(match)) return match[0].trim()
    }
  }
  return undefined
}
