/**
 * The grammar the signal prefilter and the rule path share: clause splitting with verbatim offsets, leading filler,
 * explicit memory requests ("remember that …", "记住：…"), hedges, the property words a binding may name, and what a
 * bound value looks like. Pure.
 */
import { hasCjk } from '../text/tokenize.ts'
import { readsAsQuestion } from './shape-gate.ts'

/** One clause of a message: its text, trimmed, and where it starts, so `text.slice(start, start + length)` is it. */
export interface Clause {
  readonly text: string
  readonly start: number
}

/** A clause split into an explicit memory request and the statement it asks to keep. */
export interface ExplicitSplit {
  /** True when the clause asks in so many words to remember something. */
  readonly explicit: boolean
  /** The statement without the request: the whole clause when not explicit. */
  readonly body: string
  /** Where the body starts inside the clause. */
  readonly offset: number
  /** The request as written ("remember that", "请记一下："), trimmed; empty when not explicit. */
  readonly marker: string
}

const FENCE = /^[ \t]*(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^[ \t]*\1[ \t]*$|(?![\s\S]))/gmu
/** Sentence ends: CJK terminators always, ASCII ones only before whitespace (so db-2.example.com stays whole). */
const CLAUSE_END = /[。！？；]+[」』”’)）]*|[.!?;]+(?=\s|$)|\n/gu

const LEAD =
  /^(?:(?:[-*•>]+|\d+[.)])\s+|(?:and|also|oh|btw|ok|okay|so|well|hey|fyi|by the way|one more thing)(?:\s*[,，:：]\s*|\s+)|(?:另外|对了|还有|顺便说一下|顺便|然后|好的|嗯|哦|那么|其实|补充一下)\s*[,，:：、]?\s*)+/iu

const EN_START =
  /^(?:(?:please|pls|kindly)\s+|(?<polite>(?:can|could|would|will)\s+you\s+(?:please\s+)?))?(?:remember|memori[sz]e|note|keep in mind|bear in mind|make a note|take note|note down|don'?t forget|do not forget|never forget|for the record)\b(?!\s+(?:to|how|why|when|where|what|who|which|if|whether)\b)(?:\s+(?:of\s+)?(?:that|this)\b)?(?:\s*[:：,，—-]+\s*|\s+|$)/iu
const EN_INSIDE =
  /\b(?:I\s+(?:want|need|'d like|would like)\s+you\s+to\s+(?:remember|note)|(?:save|store|add|put|commit|write)\s+(?:this|that|it)\s+(?:to|in|into)\s+(?:your\s+)?(?:long-term\s+)?(?:memory|memories))\b(?:\s+that\b)?(?:\s*[:：,，—-]+\s*|\s+|$)/iu
const EN_TRAILING =
  /(?:\s*[,，—-]\s*|\s+)(?:please\s+)?(?:remember|note|save|store)\s+(?:that|this|it)(?:\s+(?:to|in)\s+(?:your\s+)?memory)?\s*[.!。！]*$/iu
const ZH_START =
  /^(?:请|麻烦|劳驾)?你?(?:帮我|给我)?(?:务必|一定要?|千万)?(?:记住|记一下|记下来|记下|记录一下|记录下来|记录下|记好|记着|牢记|记得|别忘了|别忘记|不要忘了|不要忘记)(?:了|哦|啊|一下)?(?:这个|这件事|这一点|以下|下面)?(?:[:：,，、\s]+)?/u
const ZH_INSIDE =
  /(?:请|帮我|麻烦你?)(?:记住|记一下|记下来|记下|记录一下|记录下来)(?:[:：,，、\s]+)?|(?:存|记|写|加)(?:到|进|入)(?:你的)?(?:记忆|备忘)(?:里|中)?(?:[:：,，、\s]+)?/u
const ZH_TRAILING = /[，,、\s]*(?:请|帮我)?(?:记住|记一下|记下来|记好|别忘了)(?:了|哦|啊|这个|这一点)?[。！!~～]*$/u

const HEDGE_EN =
  /\b(?:maybe|perhaps|probably|possibly|might|may be|I think|I guess|I believe|I suppose|not sure|unsure|seems?|apparently|supposedly|if|unless|whether|assuming|suppose|hopefully|said|says|told me|according to|claims?|claimed|I heard|rumou?r)\b/iu
const HEDGE_ZH =
  /可能|也许|大概|好像|似乎|估计|不确定|不清楚|如果|假如|要是|或许|说不定|貌似|假设|听说|据说|[他她]说|传言/u

/** Openings that make a value a description or a clause rather than a bound value. */
const VALUE_BAD_START =
  /^(?:that|to|not|no|never|because|when|if|being|going|also|too|very|really|so|quite|pretty|just|a lot|much|more|less|on|at|in|for|from|with|by|of|about|like)\b/iu
/** Capitalized words that open a sentence without naming anything. */
const CAPITALIZED_NON_NAME =
  /^(?:I|It|Its|This|That|These|Those|The|A|An|We|You|He|She|They|Yes|No|Done|Fine|Good|Bad|Great|True|False|OK|Okay)\b/u

/** English function words: a noun phrase or a name never runs across one. */
export const EN_FUNCTION_WORDS: ReadonlySet<string> = new Set([
  'and',
  'or',
  'but',
  'so',
  'because',
  'if',
  'when',
  'while',
  'then',
  'also',
  'think',
  'believe',
  'guess',
  'know',
  'knew',
  'said',
  'says',
  'say',
  'told',
  'tell',
  'is',
  'are',
  'was',
  'were',
  'be',
  'been',
  'to',
  'of',
  'for',
  'in',
  'on',
  'at',
  'by',
  'with',
  'from',
  'as',
  'into',
  'about',
  'i',
  'we',
  'you',
  'he',
  'she',
  'they',
  'it',
  'me',
  'us',
  'them',
  'now',
  'currently',
  'actually',
  'basically',
  'just',
  'btw',
  'ok',
  'okay',
  'yes',
  'no',
  'well',
  'oh',
  'note',
  'remember',
  'which',
  'who',
  'what',
  'where',
  'how',
  'why',
  'whose',
  'there',
  'here',
  'than',
  'not',
  'all',
  'both',
  'each',
  'every',
  'some',
  'any',
  'only',
  'still',
  'even',
  'please',
  'whether',
  'since',
  'until',
  'after',
  'before',
  'though',
  'although',
  'unless',
  'do',
  'does',
  'did',
  'have',
  'has',
  'had',
  'will',
  'would',
  'should',
  'can',
  'could',
  'may',
  'might',
  'must',
  'shall',
  'make',
  'sure',
  'let',
  "let's",
  'like',
  'such',
  'more',
  'most',
  'very',
  'really',
  'run',
  'runs',
  'use',
  'uses',
  'used',
  'using',
])

/** English property words a binding may name with any value, not only a value-shaped one ("the API branch is main"). */
export const EN_PROPERTIES: ReadonlySet<string> = new Set([
  'host',
  'hostname',
  'port',
  'url',
  'endpoint',
  'domain',
  'address',
  'ip',
  'path',
  'directory',
  'dir',
  'folder',
  'repo',
  'repository',
  'branch',
  'version',
  'owner',
  'maintainer',
  'lead',
  'manager',
  'language',
  'framework',
  'database',
  'db',
  'region',
  'zone',
  'timezone',
  'cluster',
  'namespace',
  'bucket',
  'registry',
  'image',
  'tag',
  'runtime',
  'editor',
  'shell',
  'os',
  'platform',
  'provider',
  'name',
  'license',
  'target',
  'environment',
  'env',
  'server',
  'model',
  'team',
  'channel',
  'deadline',
  'codename',
  'username',
  'user',
  'account',
  'queue',
  'topic',
  'schema',
  'table',
  'index',
  'config',
  'entrypoint',
  'command',
  'script',
  'workflow',
  'pipeline',
  'stack',
  'backend',
  'frontend',
  'cache',
  'broker',
  'proxy',
  'gateway',
  'formatter',
  'linter',
  'compiler',
  'bundler',
])

/** Two-word English properties kept whole when they end a noun phrase ("the API base URL" → "base URL"). */
export const EN_COMPOUND_PROPERTIES: ReadonlySet<string> = new Set([
  'base url',
  'default branch',
  'main branch',
  'release branch',
  'node version',
  'python version',
  'go version',
  'java version',
  'time zone',
  'package manager',
  'test runner',
  'build command',
  'start command',
  'test command',
  'entry point',
  'home page',
  'ip address',
  'code owner',
  'tech lead',
  'deploy target',
  'default port',
  'default model',
  'default editor',
  'database host',
  'database name',
  'database port',
  'ci provider',
  'build tool',
  'issue tracker',
])

/** Chinese property words, longest first so a suffix match takes the whole word ("端口号" before "端口"). */
export const ZH_PROPERTIES: readonly string[] = [
  '端口号',
  '端口',
  '地址',
  '主机名',
  '主机',
  '域名',
  '网址',
  '路径',
  '目录',
  '仓库',
  '分支',
  '版本号',
  '版本',
  '负责人',
  '维护人',
  '维护者',
  '所有者',
  '开发语言',
  '语言',
  '框架',
  '数据库',
  '区域',
  '时区',
  '集群',
  '命名空间',
  '镜像',
  '编辑器',
  '操作系统',
  '运行时',
  '服务器',
  '名称',
  '名字',
  '模型',
  '包管理器',
  '截止日期',
  '团队',
  '频道',
  '接口',
  '缓存',
  '消息队列',
  '队列',
  '网关',
  '代理',
  '账号',
  '用户名',
  '负载均衡',
  '入口',
  '命令',
  '脚本',
].sort((a, b) => b.length - a.length)

/**
 * Split a message into clauses at sentence ends and line breaks, skipping fenced code blocks (code is not a
 * statement). Each clause keeps its terminator and its offset into the message.
 * @param text - one message.
 * @returns the non-empty clauses in order.
 */
export function splitClauses(text: string): Clause[] {
  const clauses: Clause[] = []
  let last = 0
  for (const fence of text.matchAll(FENCE)) {
    pushClauses(text, last, fence.index, clauses)
    last = fence.index + fence[0].length
  }
  pushClauses(text, last, text.length, clauses)
  return clauses
}

/**
 * The length of the filler that opens a clause (a bullet, "btw", "另外", "对了" …).
 * @param clause - a clause.
 * @returns how many characters of filler to skip.
 */
export function leadLength(clause: string): number {
  return LEAD.exec(clause)?.[0].length ?? 0
}

/**
 * Separate an explicit memory request from the statement it asks to keep: a request opening the clause
 * ("remember that …", "请记一下：…"), inside it ("I want you to remember that …", "存到记忆里：…") or closing it
 * ("…, remember that", "…，记住了"). "remember to …" and "don't forget to …" ask for work, not memory, and are not
 * explicit. A body that is itself a question is not explicit either.
 * @param clause - a clause.
 * @returns the split; the whole clause as body when there is no request.
 */
export function splitExplicit(clause: string): ExplicitSplit {
  const lead = leadLength(clause)
  const rest = clause.slice(lead)
  const start = EN_START.exec(rest) ?? ZH_START.exec(rest)
  if (start !== null) {
    let body = rest.slice(start[0].length)
    if (start.groups?.['polite'] !== undefined) body = body.replace(/\s*[?？]+\s*$/u, '')
    if (!readsAsQuestion(body)) return { explicit: true, body, offset: lead + start[0].length, marker: start[0].trim() }
  }
  const inside = EN_INSIDE.exec(rest) ?? ZH_INSIDE.exec(rest)
  if (inside !== null) {
    const offset = lead + inside.index + inside[0].length
    const body = clause.slice(offset)
    if (!readsAsQuestion(body)) return { explicit: true, body, offset, marker: inside[0].trim() }
  }
  const trailing = EN_TRAILING.exec(rest) ?? ZH_TRAILING.exec(rest)
  if (trailing !== null && trailing.index > 0) {
    const body = rest.slice(0, trailing.index)
    const marker = trailing[0].replace(/^[\s,，、—-]+/u, '').trim()
    if (!readsAsQuestion(body)) return { explicit: true, body, offset: lead, marker }
  }
  return { explicit: false, body: clause, offset: 0, marker: '' }
}

/**
 * Whether a clause hedges, supposes or reports ("maybe", "I think", "if", "he said", "可能", "如果", "听说"): the rule
 * path does not record a statement its speaker is not sure of or only passes on.
 * @param clause - a clause.
 * @returns true for a hedged clause.
 */
export function isHedged(clause: string): boolean {
  return HEDGE_EN.test(clause) || HEDGE_ZH.test(clause)
}

/**
 * Whether a value looks bound rather than described: it carries a digit, an identifier joint (db-2, a.b, x_y, @x),
 * quotes, a capitalized name (Alice, PostgreSQL), or Latin letters inside CJK text. "flaky", "broken" and "slow" do
 * not; a clause opening on a pronoun or adverb does not either.
 * @param value - the value as cut from the clause.
 * @returns true for a value-shaped value.
 */
export function isValueShaped(value: string): boolean {
  const v = value.trim()
  if (v === '' || VALUE_BAD_START.test(v)) return false
  if (/^["'`“‘「『].+["'`”’」』]$/u.test(v)) return true
  if (/\d/u.test(v) || /[\p{L}\d][-_./:@#+][\p{L}\d]/u.test(v)) return true
  if (hasCjk(v)) return /[A-Za-z]/u.test(v)
  if (/^[A-Z]/u.test(v)) return !CAPITALIZED_NON_NAME.test(v)
  return /^[a-z]+[A-Z]/u.test(v)
}

/**
 * Whether a word (or two) is a property a binding may name with any value.
 * @param property - the property as written.
 * @returns true for a known English or Chinese property word.
 */
export function isKnownProperty(property: string): boolean {
  const folded = property.normalize('NFKC').toLowerCase().trim()
  return EN_PROPERTIES.has(folded) || EN_COMPOUND_PROPERTIES.has(folded) || ZH_PROPERTIES.includes(folded)
}

function pushClauses(text: string, from: number, to: number, out: Clause[]): void {
  const segment = text.slice(from, to)
  let last = 0
  const push = (end: number): void => {
    const raw = segment.slice(last, end)
    const trimmedStart = raw.length - raw.trimStart().length
    const trimmed = raw.trim()
    if (trimmed !== '') out.push({ text: trimmed, start: from + last + trimmedStart })
  }
  for (const end of segment.matchAll(CLAUSE_END)) {
    const stop = end[0] === '\n' ? end.index : end.index + end[0].length
    push(stop)
    last = end.index + end[0].length
  }
  push(segment.length)
}
