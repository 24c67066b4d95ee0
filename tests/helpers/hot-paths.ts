/**
 * The store's hot and cold paths, driven through the real code on a verb harness, with every statement they send
 * recorded (Database's onStatement observer) under the name of the path that sent it. tests/query-plans.spec.ts
 * explains the hot paths' statements; a probe can drive the same paths on a large store.
 */
import { readFileSync } from 'node:fs'
import type { ExtractionModel, ModelAnswer } from '../../src/host/model-client.ts'
import { namedSubjects, subjectChannel, textChannel } from '../../src/retrieval/channels.ts'
import { runSweep } from '../../src/review/sweep-run.ts'
import { normalize } from '../../src/semantic/quantize.ts'
import { embeddingSettings } from '../../src/semantic/settings.ts'
import { VectorIndex } from '../../src/semantic/vector-index.ts'
import { runVectorSweep } from '../../src/semantic/vector-sweep-run.ts'
import type { SqlValue } from '../../src/store/connection.ts'
import type { StoreSet } from '../../src/store/store-set.ts'
import type { Config } from '../../src/config.ts'
import type { ProjectRef } from '../../src/types.ts'
import { fakeEmbedding } from './fake-embedding.ts'
import { SimDevice, slot } from './sync-devices.ts'
import { expectKind, write, type PartialFact } from './store.ts'
import type { VerbHarness } from './verbs.ts'

/** One statement a path sent. */
export interface RecordedStatement {
  readonly path: string
  readonly sql: string
  readonly params: readonly SqlValue[]
}

/** Records statements under the name of the path running now. */
export class StatementLog {
  readonly entries: RecordedStatement[] = []
  private path: string | undefined

  /** The observer to open the store with. */
  readonly observe = (sql: string, params: readonly SqlValue[]): void => {
    if (this.path !== undefined) this.entries.push({ path: this.path, sql, params: [...params] })
  }

  /** Record what `work` sends under `path`; nothing is recorded outside such a call. */
  async during(path: string, work: () => unknown): Promise<void> {
    this.path = path
    try {
      await work()
    } finally {
      this.path = undefined
    }
  }
}

/** The embedding identity the vector paths use: never called over HTTP, the sweep is handed an embed function. */
export const PLAN_EMBEDDING: Partial<Config> = {
  embeddingSource: 'openai',
  embeddingBaseUrl: 'http://127.0.0.1:9/v1',
  embeddingModel: 'fake-embed-1',
  embeddingDim: 64,
}

const DIM = 64
const BILLING: ProjectRef = { key: '/home/ada/src/billing-api', name: 'billing-api' }
const SESSION = 'session-5be1c0de-9d2f-4c11'

/** A model that answers every verdict with `word`. */
function verdictModel(word: 'same' | 'distinct'): ExtractionModel {
  return {
    name: 'fake/verdicts',
    complete: async (): Promise<ModelAnswer> => ({ ok: true, text: JSON.stringify({ verdict: word }) }),
  }
}

function storesOf(v: VerbHarness): StoreSet {
  const opened = v.h.memory.storeSet()
  if (!('stores' in opened)) throw new Error('the store is not open')
  return opened.stores
}

async function vectorSweep(v: VerbHarness, since?: string): Promise<void> {
  const settings = embeddingSettings(v.h.config)
  if (!settings.configured) throw new Error(settings.reason)
  const result = await runVectorSweep({
    vectors: storesOf(v).vectors,
    settings,
    now: () => v.clock.iso(),
    signal: new AbortController().signal,
    since,
    embed: async (texts) => ({ ok: true, dim: DIM, vectors: texts.map((text) => fakeEmbedding(text, DIM)) }),
  })
  if (result.outcome !== 'swept')
    throw new Error(`the vector sweep ended ${result.outcome}: ${result.error?.message ?? ''}`)
}

/**
 * Fill a store with every kind of row: current, superseded, scheduled, expired, folded, multi-valued, sensitive,
 * project-scoped, pinned and forgotten facts (tombstones), anchored sources, identifiers, an alias (a rename), vectors,
 * an add-fact and a merge card, a remembered distinct pair, a recall ledger row, an edit log. A conflict and its
 * settlement come from the hot paths' own writes.
 * @param v - a harness opened with {@link PLAN_EMBEDDING}.
 */
export async function seedEveryKind(v: VerbHarness): Promise<void> {
  const put = (fact: PartialFact) => {
    const answer = write(v.h.memory, v.h.config, { evidence: 'observed', origin: 'tool', ...fact })
    v.clock.advance(60_000)
    return answer
  }
  const library: PartialFact[] = [
    { subject: 'billing-api', property: 'owner', value: 'the payments team in Berlin' },
    {
      subject: 'billing-api',
      property: 'port',
      value: '7801',
      anchor: { sessionId: SESSION, turn: 1 },
      quote: 'billing runs on 7801',
    },
    { subject: 'search-service', property: 'region', value: 'eu-west-1' },
    { subject: 'user', property: 'editor', value: 'Neovim with LazyVim', evidence: 'explicit_user' },
    { subject: 'user', property: 'home city', value: 'Hamburg' },
    { subject: '支付服务', property: '端口', value: '7802' },
    { subject: '订单服务', property: '负责人', value: '张三' },
    { subject: 'docs site', property: 'url', value: 'https://docs.example.com/guide/setup.md' },
    { subject: 'payments team', property: 'standup', value: 'every day at 09:30' },
    { subject: 'release', property: 'cadence', value: 'every second Thursday' },
    { subject: 'staging', property: 'host', value: 'staging.internal:8443' },
    { subject: 'orders-api', property: 'database', value: 'PostgreSQL 16 on the managed instance' },
    { subject: 'user', property: 'contact', value: 'mail alice@example.com for the rota' },
    { subject: 'test command', property: 'value', value: 'pnpm test --filter billing', project: BILLING },
  ]
  for (const fact of library) put(fact)
  put({ subject: 'billing-api', property: 'port', value: '7803', evidence: 'explicit_user' })
  put({ subject: 'search-service', property: 'region', value: 'us-east-2' })
  const stores = storesOf(v)
  const sweep = (word: 'same' | 'distinct') =>
    runSweep(
      { stores, model: async () => verdictModel(word), now: () => v.clock.iso() },
      { trigger: 'asked', budget: 8 },
    )
  put({ subject: 'partner', property: 'hobbies', value: 'plays the piano, mostly jazz standards', multi: true })
  put({ subject: 'partner', property: 'pastime', value: 'plays jazz standards on the piano', multi: true })
  await sweep('distinct')
  put({ subject: 'user', property: 'hobbies', value: 'plays the piano, mostly jazz standards', multi: true })
  put({ subject: 'user', property: 'pastime', value: 'plays jazz standards on the piano', multi: true })
  await sweep('same')
  put({ subject: 'release', property: 'freeze', value: 'starts on 2026-04-01', validFrom: '2026-04-01T00:00:00.000Z' })
  put({ subject: 'trial licence', property: 'status', value: 'valid', validTo: '2026-03-01T09:30:00.000Z' })
  const nightly = (date: string): string => `nightly backup finished ${date}, 412 files`
  put({
    subject: 'backup-runner',
    property: 'last run',
    value: nightly('2026-02-27'),
    validFrom: '2026-02-27T03:00:00.000Z',
  })
  put({
    subject: 'backup-runner',
    property: 'last run',
    value: nightly('2026-02-28'),
    validFrom: '2026-02-28T03:00:00.000Z',
  })
  put({ subject: 'draft', property: 'idea', value: 'maybe move billing to a queue', inferred: true })
  const gone = expectKind(put({ subject: 'old laptop', property: 'serial', value: 'C02XK1' }), 'saved').fact
  await v.ok('fact-forget', v.fence({ id: gone.id }))
  const renamed = expectKind(put({ subject: 'Billing Svc', property: 'deploy day', value: 'Tuesday' }), 'saved').fact
  await v.ok('subject-rename', v.fence({ entityKey: renamed.entityKey, to: 'billing-api' }))
  const pinned = expectKind(
    put({ subject: 'user', property: 'timezone', value: 'Europe/Berlin', evidence: 'explicit_user' }),
    'saved',
  ).fact
  await v.ok('fact-pin', v.fence({ id: pinned.id, pinned: true }))
  v.clock.advance(3_600_000)
  v.h.memory.advance()
  await vectorSweep(v)
  await v.h.memory.recall(
    { text: 'which port does billing-api use', sessionId: SESSION, turn: 2, messageId: 'msg-1' },
    v.h.config,
  )
}

/** One path: a name and what drives it. */
export interface DrivenPath {
  readonly name: string
  readonly run: (v: VerbHarness) => unknown
}

const writeOf = (input: PartialFact) => (v: VerbHarness) => {
  write(v.h.memory, v.h.config, { evidence: 'observed', origin: 'tool', ...input })
  v.clock.advance(60_000)
}

/**
 * The hot paths: run per write, per search, per turn, per page view, per sweep. Each of their statements must read
 * through an index.
 */
export const HOT_PATHS: readonly DrivenPath[] = [
  {
    name: 'write new',
    run: writeOf({
      subject: 'ledger-service',
      property: 'port',
      value: '9100',
      anchor: { sessionId: SESSION, turn: 3 },
      quote: 'ledger on 9100',
    }),
  },
  {
    name: 'write duplicate',
    run: writeOf({ subject: 'ledger-service', property: 'port', value: '9100', evidence: 'explicit_user' }),
  },
  {
    name: 'write supersede',
    run: writeOf({ subject: 'ledger-service', property: 'port', value: '9200', evidence: 'explicit_user' }),
  },
  { name: 'write conflict', run: writeOf({ subject: 'ledger-service', property: 'port', value: '9300' }) },
  {
    name: 'write settle',
    run: writeOf({ subject: 'ledger-service', property: 'port', value: '9300', evidence: 'explicit_user' }),
  },
  {
    name: 'write restatement',
    run: writeOf({ subject: 'user', property: 'hobbies', value: 'mostly jazz standards on the piano', multi: true }),
  },
  {
    name: 'write fold',
    run: writeOf({
      subject: 'backup-runner',
      property: 'last run',
      value: 'nightly backup finished 2026-03-01, 412 files',
      validFrom: '2026-03-01T03:00:00.000Z',
    }),
  },
  {
    name: 'write project',
    run: writeOf({ subject: 'lint command', property: 'value', value: 'pnpm lint', project: BILLING }),
  },
  {
    name: 'write proposal',
    run: writeOf({ subject: 'draft', property: 'idea', value: 'maybe split the ledger', inferred: true }),
  },
  { name: 'write tombstoned', run: writeOf({ subject: 'old laptop', property: 'serial', value: 'C02XK1' }) },
  {
    name: 'search',
    run: (v) => {
      const queries = [
        '7803',
        'billing-api port',
        '支付服务的端口是多少',
        'what is the region of search-service',
        'which owner and port do we use for the api',
        'docs.example.com/guide/setup.md',
        'what did we change yesterday',
        'zzz-unknown nothing',
      ]
      for (const query of queries) v.h.memory.searchLexical({ query, limit: 5, asOf: undefined }, v.h.config)
      v.h.memory.searchLexical(
        { query: 'billing-api port', limit: 5, asOf: '2026-03-01', project: BILLING },
        v.h.config,
      )
      // The plans a large library takes, where a term matches more facts than the candidate cap: a window over one
      // common term, a split whose rarest term alone fills the cap, and words so common that they rank as a bonus
      // (beside the rarest of them alone, beside a split of rarer words, and in the subject channel).
      const stores = storesOf(v)
      const visibility = { includeSensitive: false }
      textChannel(stores.facts, ['port'], visibility, { candidateCap: 1 })
      textChannel(stores.facts, ['port', 'billing'], visibility, { candidateCap: 1 })
      textChannel(stores.facts, ['port', 'billing', 'api'], visibility, { candidateCap: 1, hugeAbove: 1 })
      const counts = stores.facts.termDocumentCounts(['plays', 'berlin', 'hamburg'])
      const [plays, berlin, hamburg] = ['plays', 'berlin', 'hamburg'].map((term) => counts.get(term) ?? 0) as [
        number,
        number,
        number,
      ]
      if (plays <= 2 || berlin < 1 || berlin > 2 || hamburg < 1 || hamburg > 2)
        throw new Error(`hot-path counts ${JSON.stringify([...counts])}`)
      textChannel(stores.facts, ['plays', 'berlin', 'hamburg'], visibility, { candidateCap: 1, hugeAbove: 2 })
      // The subject channel for a name few facts hold: a rarer word and a bonus word, and a bonus word alone.
      const named = namedSubjects(stores.facts, 'partner plays the piano')
      if (named.length !== 1) throw new Error(`hot-path subjects ${JSON.stringify(named)}`)
      subjectChannel(
        stores.facts,
        named.map((subject) => subject.entityKey),
        ['plays', 'jazz'],
        visibility,
        {
          hugeAbove: 2,
          documentCounts: new Map([
            ['plays', 4],
            ['jazz', 2],
          ]),
        },
      )
      subjectChannel(
        stores.facts,
        named.map((subject) => subject.entityKey),
        ['plays'],
        visibility,
        { hugeAbove: 2 },
      )
    },
  },
  {
    name: 'directory',
    run: (v) => {
      v.h.memory.directory(v.h.config, null)
      v.h.memory.directory(v.h.config, BILLING)
    },
  },
  {
    name: 'recall',
    run: (v) =>
      v.h.memory.recall(
        {
          text: 'where does the search-service run and who owns billing-api',
          sessionId: SESSION,
          turn: 4,
          messageId: 'msg-2',
          inView: ['msg-1'],
          project: BILLING,
        },
        v.h.config,
      ),
  },
  { name: 'advance', run: (v) => v.h.memory.advance() },
  {
    name: 'status',
    run: async (v) => {
      v.h.memory.status()
      await v.ok('status', {})
    },
  },
  { name: 'facts page', run: (v) => v.ok('facts', {}) },
  { name: 'graph nebula', run: (v) => v.ok('graph', {}) },
  {
    name: 'graph nebula after a write',
    run: async (v) => {
      writeOf({ subject: 'nebula newcomer', property: 'depends on', value: 'billing-api' })(v)
      await v.ok('graph', {})
    },
  },
  { name: 'graph tree', run: (v) => v.ok('graph', { view: 'tree', center: 'billing-api' }) },
  {
    name: 'review sweep',
    run: (v) =>
      runSweep(
        { stores: storesOf(v), model: async () => verdictModel('distinct'), now: () => v.clock.iso() },
        { trigger: 'timer', budget: 8 },
      ),
  },
  { name: 'vector sweep', run: (v) => vectorSweep(v) },
  { name: 'vector sweep after a write', run: (v) => vectorSweep(v, new Date(v.clock.now() - 300_000).toISOString()) },
  {
    name: 'vector search',
    run: (v) => {
      const settings = embeddingSettings(v.h.config)
      const stores = storesOf(v)
      const space = settings.configured ? stores.vectors.space(settings.fingerprint) : undefined
      const query = normalize(fakeEmbedding('who owns billing', DIM))
      if (space === undefined || query === undefined) throw new Error('no vector space to search')
      new VectorIndex().search(stores.vectors, space, query, 10, { includeSensitive: false })
    },
  },
  {
    name: 'vector preload',
    run: async (v) => {
      const settings = embeddingSettings(v.h.config)
      const stores = storesOf(v)
      const space = settings.configured ? stores.vectors.space(settings.fingerprint) : undefined
      if (space === undefined) throw new Error('no vector space to load')
      await new VectorIndex().preload(stores.vectors, space.id, async () => undefined)
    },
  },
  {
    // A sync round's receive (every few minutes, and after writes): another device's write, rename and undo, applied
    // by the subjects they name.
    name: 'sync receive',
    run: (v) => {
      const desktop = new SimDevice('desktop', v.clock.now())
      const write = desktop.write(slot('billing api'), '7810')
      const records = [write, desktop.rename('ledger service', 'ledger'), desktop.restore([write.op])]
      storesOf(v).sync.receive(records, { desktop: 1 }, { desktop: 'home desktop' })
    },
  },
]

/**
 * The page's other reads: one per view the user opens (a fact, a subject, a conversation, the activity and conflict
 * panels, the review queue). Not per write or per turn, but each is a click that must not wait on the store's size.
 */
export const PAGE_PATHS: readonly DrivenPath[] = [
  { name: 'fact view', run: (v) => v.ok('fact', { id: 2 }) },
  { name: 'subject view', run: (v) => v.ok('entity', { subject: 'billing-api' }) },
  { name: 'facts by conversation', run: (v) => v.ok('facts', { session: SESSION }) },
  { name: 'facts by subject and text', run: (v) => v.ok('facts', { subject: 'billing-api', text: 'port' }) },
  { name: 'facts by scope', run: (v) => v.ok('facts', { scope: `project:${BILLING.key}` }) },
  { name: 'facts history', run: (v) => v.ok('facts', { status: 'history' }) },
  { name: 'sessions', run: (v) => v.ok('sessions', {}) },
  { name: 'activity', run: (v) => v.ok('activity', {}) },
  { name: 'conflicts', run: (v) => v.ok('conflicts', {}) },
  { name: 'review queue', run: (v) => v.ok('proposals', {}) },
]

/**
 * The cold paths: one action a user asked for. Their plans are recorded for the audit; a scan here is acceptable.
 */
export const COLD_PATHS: readonly DrivenPath[] = [
  {
    name: 'export and import',
    run: async (v) => {
      const exported = await v.ok('export', { backup: false })
      const content = readFileSync(String(exported['path']), 'utf8')
      const preview = await v.ok('import', { mode: 'preview', content })
      await v.ok('import', v.fence({ mode: 'commit', content, token: preview['token'] }))
    },
  },
  {
    name: 'forget and undo',
    run: async (v) => {
      const forgotten = await v.ok('fact-forget', v.fence({ id: 1 }))
      await v.ok('fact-restore', v.fence({ editId: forgotten['editId'] }))
    },
  },
  {
    name: 'put back',
    run: async (v) => {
      const past = v.h.db().get(`SELECT id FROM facts WHERE status = 'superseded' ORDER BY id DESC LIMIT 1`)
      if (past === undefined) throw new Error('no superseded fact')
      await v.ok('fact-put-back', v.fence({ id: Number(past['id']) }))
    },
  },
  {
    name: 'rename and undo',
    run: async (v) => {
      const [fact] = storesOf(v).facts.getFacts([3])
      if (fact === undefined) throw new Error('no fact 3')
      const renamed = await v.ok('subject-rename', v.fence({ entityKey: fact.entityKey, to: 'search-api' }))
      await v.ok('fact-restore', v.fence({ editId: renamed['editId'] }))
    },
  },
  {
    name: 'proposal apply',
    run: async (v) => {
      const cards = (await v.ok('proposals', {}))['proposals'] as
        | { id: number; revision: number; kind: string }[]
        | undefined
      const card = cards?.find((one) => one.kind === 'merge') ?? cards?.[0]
      if (card === undefined) throw new Error('no pending card')
      await v.ok('proposal-apply', v.fence({ id: card.id, revision: card.revision }))
    },
  },
]
