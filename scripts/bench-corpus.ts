/**
 * The bench's synthetic library: a deterministic PRNG and a store of Chinese and English facts about made-up
 * services, with a Zipf-distributed vocabulary of made-up words. Used by the speed bench (10k and 100k facts) and as
 * filler for the near-duplicate gate's bench, and the seeding of a bench store with it.
 */
import { performance } from 'node:perf_hooks'
import type { Clock } from '../src/clock.ts'
import type { ResolvedConfig } from '../src/config.ts'
import { prepareWrite } from '../src/fact-input.ts'
import { Database } from '../src/store/database.ts'
import { FactStore } from '../src/store/fact-store.ts'
import type { FactInput } from '../src/types.ts'

/** A deterministic PRNG so every run benchmarks the same corpus. */
export function mulberry32(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Common properties, most used first (sampled with a Zipf law, as real attribute names are). */
export const PROPERTIES_EN = [
  'port',
  'host',
  'owner',
  'version',
  'deploy target',
  'database',
  'region',
  'language',
  'build command',
  'on-call rotation',
  'preferred editor',
  'log level',
  'timeout',
  'cache ttl',
  'repository',
  'release day',
  'test command',
  'runtime',
  'framework',
  'queue',
  'dashboard url',
  'alert channel',
  'backup schedule',
  'cpu limit',
  'memory limit',
  'replica count',
  'health check path',
  'auth provider',
  'feature flag',
  'license',
  'node version',
  'python version',
  'package manager',
  'ci system',
  'code owner',
  'slack channel',
  'base image',
  'storage bucket',
  'cdn',
  'dns zone',
]
export const PROPERTIES_ZH = [
  '端口',
  '负责人',
  '部署环境',
  '数据库',
  '版本',
  '地区',
  '日志级别',
  '超时时间',
  '发布日期',
  '缓存时间',
  '告警群',
  '备份计划',
]
export const SERVICE_KINDS = [
  'api',
  'worker',
  'web',
  'db',
  'service',
  'cli',
  'bot',
  'pipeline',
  'gateway',
  'cache',
  'scheduler',
  'proxy',
]
export const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ra',
  'ven',
  'tor',
  'qui',
  'bel',
  'dra',
  'sen',
  'ul',
  'pax',
  'zor',
  'fi',
  'nem',
  'tal',
  'gru',
  'hex',
  'ori',
  'vas',
  'lum',
  'cor',
  'ne',
  'tri',
  'bo',
  'sa',
  'ke',
  'mon',
  'pri',
  'dex',
  'al',
  'ryn',
  'sto',
  'wex',
  'jin',
  'ost',
  'pel',
  'yar',
  'eku',
  'zan',
]
const HAN =
  '数据支付订单用户库存搜索消息网关报表日志推荐账单客户商品物流仓储结算风控审核营销会员积分优惠评论通知文件图片视频直播音乐地图定位天气新闻翻译语音识别安全权限配置监控告警调度任务队列缓存索引备份迁移测试发布运维'

/** Zipf sampler over `n` ranks: rank r is drawn with weight 1/(r+1). */
function zipf(n: number, random: () => number): () => number {
  const cumulative: number[] = []
  let total = 0
  for (let rank = 0; rank < n; rank += 1) {
    total += 1 / (rank + 1)
    cumulative.push(total)
  }
  return () => {
    const target = random() * total
    let low = 0
    let high = n - 1
    while (low < high) {
      const mid = (low + high) >> 1
      if ((cumulative[mid] ?? 0) < target) low = mid + 1
      else high = mid
    }
    return low
  }
}

export interface Corpus {
  readonly facts: FactInput[]
  readonly identifiers: string[]
  readonly entities: { readonly name: string; readonly zh: boolean }[]
}

/**
 * A synthetic library.
 * @param size - how many facts.
 * @param random - the PRNG (`mulberry32`), consumed in a fixed order.
 * @returns the facts, the identifier values among them and the subjects.
 */
export function makeCorpus(size: number, random: () => number): Corpus {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T
  const word = (): string => Array.from({ length: 2 + Math.floor(random() * 2) }, () => pick(SYLLABLES)).join('')
  const vocabulary = Array.from({ length: 3000 }, word)
  const vocabRank = zipf(vocabulary.length, random)
  const propertyRank = zipf(PROPERTIES_EN.length, random)
  const zhPropertyRank = zipf(PROPERTIES_ZH.length, random)
  const han = (length: number): string => Array.from({ length }, () => HAN[Math.floor(random() * HAN.length)]).join('')
  const entities = Array.from({ length: Math.max(50, Math.floor(size / 6)) }, () =>
    random() < 0.2
      ? { name: `${han(2 + Math.floor(random() * 2))}服务`, zh: true }
      : { name: `${word()}-${pick(SERVICE_KINDS)}`, zh: false },
  )
  const facts: FactInput[] = []
  const identifiers: string[] = []
  for (let i = 0; i < size; i += 1) {
    const entity = entities[Math.floor(random() * entities.length)] as Corpus['entities'][number]
    const property =
      entity.zh && random() < 0.7
        ? (PROPERTIES_ZH[zhPropertyRank()] as string)
        : (PROPERTIES_EN[propertyRank()] as string)
    const roll = random()
    let value: string
    if (roll < 0.15) value = String(1024 + Math.floor(random() * 60000))
    else if (roll < 0.25)
      value = `${1 + Math.floor(random() * 9)}.${Math.floor(random() * 30)}.${Math.floor(random() * 50)}`
    else if (roll < 0.35) value = `${word()}-${Math.floor(random() * 99)}.internal`
    else if (entity.zh && roll < 0.7) value = `${han(2)}团队负责${han(2)}`
    else value = Array.from({ length: 2 + Math.floor(random() * 4) }, () => vocabulary[vocabRank()]).join(' ')
    if (/^[\d.]+$|internal$/u.test(value)) identifiers.push(value)
    facts.push({
      subject: entity.name,
      property,
      value,
      origin: 'tool',
      evidence: random() < 0.3 ? 'explicit_user' : 'observed',
      multi: random() < 0.1,
      ...(random() < 0.1 ? { qualifiers: { env: pick(['prod', 'staging', 'dev']) } } : {}),
      anchor: { sessionId: `session-bench${Math.floor(i / 50)}`, turn: 1 + (i % 7) },
    })
  }
  return { facts, identifiers, entities }
}

/**
 * Write facts into a fresh store through the fact store's write path, 5,000 to a transaction, and close it.
 * @param dataDir - the store's data directory.
 * @param facts - the facts.
 * @param clock - stamps the writes.
 * @param config - the privacy policy and time zone of the writes.
 * @returns the elapsed milliseconds.
 */
export function seedStore(dataDir: string, facts: readonly FactInput[], clock: Clock, config: ResolvedConfig): number {
  const db = Database.open({ dataDir, now: () => new Date(clock.now()).toISOString() })
  const started = performance.now()
  seedFacts(db, facts, clock, config)
  const elapsed = performance.now() - started
  db.close()
  return elapsed
}

/**
 * Write facts through the fact store's write path on an open store, 5,000 to a transaction, in order (so the first
 * fact is the oldest): the gates a memory write passes (near-duplicates, folds) are not run.
 * @param db - an open, migrated store.
 * @param facts - the facts.
 * @param clock - stamps the writes.
 * @param config - the privacy policy and time zone of the writes.
 */
export function seedFacts(db: Database, facts: readonly FactInput[], clock: Clock, config: ResolvedConfig): void {
  const store = new FactStore(db)
  for (let offset = 0; offset < facts.length; offset += 5000) {
    db.transaction(() => {
      for (const input of facts.slice(offset, offset + 5000)) {
        const now = new Date(clock.now()).toISOString()
        const prepared = prepareWrite(input, now, {
          refuseCredentials: config.refuseCredentials,
          timeZone: config.displayTimeZone,
        })
        if (prepared.ok) store.write(prepared.write, now)
      }
    })
  }
}
