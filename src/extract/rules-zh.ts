/**
 * Chinese rule patterns: read property-value bindings ("billing-api 的端口是 7801", "测试环境数据库是 db-3",
 * "API 跑在 8123 端口", "X 用的是 Y"), stated preferences with a topic ("编辑器我习惯用 Vim") and decisions with a topic
 * ("数据库就用 PostgreSQL 吧", "以后用 pnpm 做包管理") out of one clause. Judging them is left to the rule path and
 * the shape gate. Pure.
 */
import { EN_FUNCTION_WORDS, isKnownProperty, isValueShaped, ZH_PROPERTIES } from './signals-grammar.ts'
import { reading } from './rule-reading.ts'
import type { RuleMatch } from './types.ts'

/** A name read out of a clause and where it starts. */
interface NameSpan {
  readonly name: string
  readonly start: number
}

/** The most space-separated words a name read back from a Chinese pattern may have ("Google Cloud Run"). */
const MAX_NAME_WORDS = 3
/** Characters a name is written with: Han, Latin letters, digits and identifier joints. */
const NAME_CHAR = /[\p{Script=Han}A-Za-z0-9_.\-/@+#]/u
const ASCII_NAME_CHAR = /[A-Za-z0-9_.\-/@+#]/u
/**
 * Discourse words, decision markers and team pronouns that open a clause in front of the name ("另外测试环境…",
 * "决定了数据库…", "我们的 API …").
 */
const LEADING_NOISE =
  /^(?:另外|对了|还有|然后|其实|现在|目前|当前|以后|今后|往后|从现在起|从现在开始|决定了|决定|确定了|定了|我们的|我们|咱们的|咱们|所以|但是|而且|因为|就是|那么|顺便说一下|顺便|说一下|提一下|请注意|注意一下|注意|补充一下|补充)+/u
/** Where a Chinese value stops: punctuation or a connector starting the next clause. */
const VALUE_END = /[，,。；;！!？?\n]|因为|所以|但是|不过|而且|然后|因此|就行|就好/u
/** A value opening on a negation, a verb of action or a question word is a clause, not a value. */
const VALUE_BAD_START = /^(?:的|不|没|在|要|把|让|被|因为|怎么|什么|多少|哪)/u
/** Modifiers that are never a subject on their own ("默认分支", "发布分支", "代码仓库"). */
const MODIFIERS = new Set([
  '默认',
  '主',
  '主要',
  '当前',
  '最新',
  '新',
  '旧',
  '代码',
  '发布',
  '首选',
  '常用',
  '线上',
  '本地',
  '远程',
])
/** The readings, one pattern per form named in matchChinese. */
const COPULA = /(?<![不没的])(?:是|为|[:：=])/gu
const OF_BINDING =
  /的\s*(?<p>[^\s，,。；;：:！!？?、的是不没]{1,12}?)\s*(?:是|为|[:：=])\s*(?<v>[^，,。；;！!？?\n]+)/gu
const USED = /(?:用的是|使用的是|采用的是)\s*(?<v>[^，,。；;！!？?\n]+)/gu
const PORT = /(?:跑|运行|部署|监听|启动)在\s*(?:端口\s*)?(?<v>\d{2,5})\s*(?:号)?\s*(?:端口)?/gu
const PREFERRED_OF =
  /我(?:最|比较|更)?(?:喜欢|偏好|习惯|常用|爱用)(?:用|使用)?的\s*(?<t>[^\s，,。；;：:！!？?、的是]{1,12}?)\s*(?:是|为)\s*(?<v>[^，,。；;！!？?\n]+)/gu
const TOPIC_PREFERENCE =
  /[，,]?\s*我(?:一般|通常|平时|总是|一直|更|比较|最)?(?:喜欢|偏好|习惯|倾向于?)(?:用|使用)\s*(?<v>[^，,。；;！!？?\n]+)/gu
const DECIDED_TOPIC =
  /(?:决定|定了|以后|今后|从现在(?:起|开始)|往后)(?:了)?\s*[，,]?\s*(?<t>[^\s，,。；;：:！!？?、]{1,16}?)\s*(?:都|就|统一|一律)?(?:用|使用|采用|改用|换成)\s*(?<v>[^，,。；;！!？?\n]+)/gu
const TOPIC_DECIDED = /(?:就|统一|一律|定了|决定)(?:用|使用|采用|改用)\s*(?<v>[^，,。；;！!？?\n]+)/gu
const DECIDED_AS =
  /(?:决定|以后|今后|统一)(?:都|就|统一)?(?:用|使用|采用|改用)\s*(?<v>[^，,。；;！!？?\n]+?)\s*(?:来|做|作为|当)\s*(?<t>[^，,。；;！!？?\n]+)/gu

/**
 * Read the Chinese statements of one clause body, in priority order: ports, preferences and decisions with a topic,
 * "X 的 P 是 V", "X 用的是 V", then "XP 是 V" with a known property word.
 * @param body - the clause without any explicit memory request.
 * @param explicit - the user asked to remember it: any value is accepted, not only value-shaped ones.
 * @returns the readings, possibly overlapping; the rule path keeps the first of overlapping ones.
 */
export function matchChinese(body: string, explicit: boolean): RuleMatch[] {
  return [
    ...matchPorts(body),
    ...matchPreferences(body),
    ...matchDecisions(body),
    ...matchOfBindings(body, explicit),
    ...matchUsed(body, explicit),
    ...matchSuffixBindings(body, explicit),
  ]
}

function matchPorts(body: string): RuleMatch[] {
  return [...body.matchAll(PORT)].flatMap((m) => {
    const subject = nameBefore(body, m.index)
    const value = m.groups?.['v'] ?? ''
    if (subject === undefined) return []
    return [reading('binding', subject.name, '端口', value, subject.start, m.index + m[0].length)]
  })
}

function matchPreferences(body: string): RuleMatch[] {
  const found: RuleMatch[] = []
  for (const m of body.matchAll(PREFERRED_OF)) {
    const value = cutValue(m.groups?.['v'] ?? '')
    const topic = m.groups?.['t'] ?? ''
    if (value === '' || topic === '' || VALUE_BAD_START.test(value)) continue
    found.push(reading('preference', topic, '偏好', value, m.index, m.index + m[0].length))
  }
  for (const m of body.matchAll(TOPIC_PREFERENCE)) {
    const topic = nameBefore(body, m.index, /(?:方面|上|的话)$/u)
    const value = cutValue(m.groups?.['v'] ?? '')
    if (topic === undefined || value === '' || VALUE_BAD_START.test(value)) continue
    found.push(reading('preference', topic.name, '偏好', value, topic.start, m.index + m[0].length))
  }
  return found
}

function matchDecisions(body: string): RuleMatch[] {
  const found: RuleMatch[] = []
  for (const m of body.matchAll(DECIDED_AS)) {
    const value = cutValue(m.groups?.['v'] ?? '')
    const topic = cutValue(m.groups?.['t'] ?? '')
    if (value === '' || topic === '' || VALUE_BAD_START.test(value)) continue
    found.push(reading('decision', topic, '选用', value, m.index, m.index + m[0].length))
  }
  for (const m of body.matchAll(DECIDED_TOPIC)) {
    const topic = stripNoise(m.groups?.['t'] ?? '')
    const value = cutValue(m.groups?.['v'] ?? '')
    if (topic === '' || /[使采改换都就]$/u.test(topic) || value === '' || VALUE_BAD_START.test(value)) continue
    found.push(reading('decision', topic, '选用', value, m.index, m.index + m[0].length))
  }
  for (const m of body.matchAll(TOPIC_DECIDED)) {
    const topic = nameBefore(body, m.index)
    const value = cutValue(m.groups?.['v'] ?? '')
    if (topic === undefined || value === '' || VALUE_BAD_START.test(value)) continue
    found.push(reading('decision', topic.name, '选用', value, topic.start, m.index + m[0].length))
  }
  return found
}

function matchOfBindings(body: string, explicit: boolean): RuleMatch[] {
  const found: RuleMatch[] = []
  for (const m of body.matchAll(OF_BINDING)) {
    let property = m.groups?.['p'] ?? ''
    const value = cutValue(m.groups?.['v'] ?? '')
    let subject = nameBefore(body, m.index)
    if (subject === undefined || value === '' || VALUE_BAD_START.test(value)) continue
    // One nested 的: "X 的数据库的端口" reads as X · 数据库端口.
    const head = body.slice(0, subject.start).trimEnd()
    const outer = head.endsWith('的') ? nameBefore(body, head.length - 1) : undefined
    if (outer !== undefined) {
      property = `${subject.name}${property}`
      subject = outer
    }
    if (!explicit && !isKnownProperty(property) && !isValueShaped(value)) continue
    found.push(reading('binding', subject.name, property, value, subject.start, m.index + m[0].length))
  }
  return found
}

function matchUsed(body: string, explicit: boolean): RuleMatch[] {
  const found: RuleMatch[] = []
  for (const m of body.matchAll(USED)) {
    const value = cutValue(m.groups?.['v'] ?? '')
    const before = body.slice(0, m.index).trimEnd()
    const owned = /的\s*(?<p>[^\s，,。；;：:！!？?、的是]{1,12})$/u.exec(before)
    const property = owned?.groups?.['p'] ?? '使用'
    const subject = nameBefore(body, owned === null ? before.length : owned.index)
    if (subject === undefined || value === '' || VALUE_BAD_START.test(value)) continue
    if (!explicit && !isValueShaped(value) && !isKnownProperty(property)) continue
    found.push(reading('binding', subject.name, property, value, subject.start, m.index + m[0].length))
  }
  return found
}

/**
 * "测试环境数据库是 db-3", "billing-api 端口是 7801": a name run ending in a known property word, split there. A
 * remainder that is only a modifier ("默认分支") is no subject.
 */
function matchSuffixBindings(body: string, explicit: boolean): RuleMatch[] {
  const found: RuleMatch[] = []
  for (const m of body.matchAll(COPULA)) {
    const run = nameBefore(body, m.index)
    if (run === undefined) continue
    const property = ZH_PROPERTIES.find((word) => run.name.endsWith(word) && run.name.length > word.length)
    if (property === undefined) continue
    const subject = run.name.slice(0, -property.length).trim()
    const value = cutValue(body.slice(m.index + m[0].length))
    if (subject === '' || MODIFIERS.has(subject) || value === '' || VALUE_BAD_START.test(value)) continue
    const asciiSubject = /^[A-Za-z0-9]/u.test(subject)
    if (!asciiSubject && [...subject].length < 2) continue
    if (!explicit && !asciiSubject && !isValueShaped(value)) continue
    found.push(reading('binding', subject, property, value, run.start, m.index + m[0].length + value.length))
  }
  return found
}

/**
 * The name that ends just before `end`: Han and identifier characters, spaces only next to a Latin character, with
 * leading discourse words and team pronouns dropped and an optional suffix removed.
 */
function nameBefore(text: string, end: number, suffix?: RegExp): NameSpan | undefined {
  let stop = end
  while (stop > 0 && /\s/u.test(text[stop - 1] ?? '')) stop -= 1
  let start = stop
  while (start > 0) {
    const char = text[start - 1] ?? ''
    if (char === '的' || char === '是') break
    if (NAME_CHAR.test(char)) {
      start -= 1
      continue
    }
    const left = text[start - 2] ?? ''
    const right = text[start] ?? ''
    const joinsLatin = ASCII_NAME_CHAR.test(left) || ASCII_NAME_CHAR.test(right)
    if (/\s/u.test(char) && NAME_CHAR.test(left) && NAME_CHAR.test(right) && joinsLatin) {
      start -= 1
      continue
    }
    break
  }
  const raw = latinTail(text.slice(start, stop))
  const name = stripNoise(suffix === undefined ? raw : raw.replace(suffix, ''))
  if (name === '') return undefined
  return { name, start: stop - raw.length + raw.indexOf(name) }
}

/**
 * The end of a run that a name can be: at most three space-separated words, none an English function word, so "we
 * discussed and the backend 用的是 Go" names "backend", not the sentence.
 */
function latinTail(run: string): string {
  const words = run.split(/\s+/u)
  const kept: string[] = []
  for (let i = words.length - 1; i >= 0 && kept.length < MAX_NAME_WORDS; i -= 1) {
    const word = words[i] ?? ''
    // A capitalized word is part of a name ("Google Cloud Run"), except the pronoun I.
    if (EN_FUNCTION_WORDS.has(word) || word === 'I') break
    kept.unshift(word)
  }
  return kept.join(' ')
}

function stripNoise(name: string): string {
  return name.replace(LEADING_NOISE, '').trim()
}

/** The value up to the next clause break, without trailing particles, punctuation or wrapping quotes. */
function cutValue(text: string): string {
  const end = VALUE_END.exec(text)
  const cut = (end === null ? text : text.slice(0, end.index)).trim()
  return cut
    .replace(/[了啦吧哦呀呢嘛\s。.!！~～]+$/u, '')
    .replace(/^[`"“「『'‘](.+)[`"”」』'’]$/u, '$1')
    .trim()
}
