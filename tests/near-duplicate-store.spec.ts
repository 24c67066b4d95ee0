/**
 * The near-duplicate gate on a real store, both SQLite bindings: a write that restates a current value of its slot
 * (multi-valued or single-valued) in other words answers as a duplicate of that fact (a source added, evidence
 * raised), through FactMemory.write (the tools, the rules and extraction), an import and an accepted proposal;
 * identifiers that differ (7801 / 7802), a negation on one side only, a one-word exchange, another scope, a page edit,
 * a restored backup and a library under 12 facts keep two rows, and a real change of a single-valued slot still
 * supersedes or conflicts.
 */
import { afterEach, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { WriteAnswer } from '../src/fact-memory.ts'
import { memoryWriteTool, type WriteValue } from '../src/tools/memory-write.ts'
import type { FactInput } from '../src/types.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { count, DRIVERS, expectKind, openMemory, write, type MemoryHandle } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

const HOUR_MS = 3_600_000

/** Twelve unrelated current facts: the library the gate needs before its frequencies mean anything. */
const LIBRARY: readonly Pick<FactInput, 'subject' | 'property' | 'value'>[] = [
  { subject: 'billing-api', property: 'owner', value: 'the payments team in Berlin' },
  { subject: 'orders-api', property: 'database', value: 'PostgreSQL 16 on the managed instance' },
  { subject: 'search-service', property: 'region', value: 'eu-west-1' },
  { subject: 'user', property: 'editor', value: 'Neovim with LazyVim' },
  { subject: 'user', property: 'home city', value: 'Hamburg' },
  { subject: 'user', property: 'coffee', value: 'black coffee every morning' },
  { subject: '支付服务', property: '端口', value: '7801' },
  { subject: '订单服务', property: '负责人', value: '张三' },
  { subject: 'ci', property: 'node version', value: 'Node 22 on the Linux runners' },
  { subject: 'docs site', property: 'url', value: 'https://docs.example.com' },
  { subject: 'payments team', property: 'standup', value: 'every day at 09:30' },
  { subject: 'user', property: 'shell', value: 'fish with the starship prompt' },
]

/** Four more, so the library holds 16 facts before a test writes its own. */
const EXTRA: readonly Pick<FactInput, 'subject' | 'property' | 'value'>[] = [
  { subject: 'release', property: 'cadence', value: 'every second Thursday' },
  { subject: 'staging', property: 'host', value: 'staging.internal' },
  { subject: 'user', property: 'terminal', value: 'WezTerm with a light theme' },
  { subject: 'orders-api', property: 'owner', value: 'the checkout team in Lisbon' },
]

const HOBBY = 'plays the piano, mostly jazz standards'
const HOBBY_AGAIN = 'plays jazz standards on the piano'

for (const driver of DRIVERS) {
  describe(`near-duplicate gate on the store (${driver})`, () => {
    let clock: FakeClock
    let h: MemoryHandle
    beforeEach(() => {
      clock = new FakeClock('2026-03-01T09:00:00.000Z')
      h = openMemory(driver, clock)
    })
    afterEach(() => {
      h.dispose()
    })

    const seed = (n = LIBRARY.length): void => {
      for (const fact of LIBRARY.slice(0, n)) expectKind(write(h.memory, h.config, fact), 'saved')
    }
    const hobby = (value: string, extra: Partial<FactInput> = {}): WriteAnswer =>
      write(h.memory, h.config, { subject: 'user', property: 'hobbies', value, multi: true, ...extra })
    const currentIn = (property: string): number =>
      count(
        h.db(),
        `SELECT count(*) AS n FROM facts WHERE property = ? AND status IN ('active', 'scheduled', 'conflict')`,
        property,
      )

    it('a re-worded value of a multi-valued slot answers as a duplicate of the first: a source is added and the evidence rises', () => {
      seed()
      const first = expectKind(hobby(HOBBY, { anchor: { sessionId: 'session-aaaaaaaa', turn: 1 } }), 'saved').fact
      clock.advance(HOUR_MS)
      const again = expectKind(
        hobby(HOBBY_AGAIN, {
          evidence: 'explicit_user',
          quote: 'I play jazz standards on the piano',
          anchor: { sessionId: 'session-bbbbbbbb', turn: 4 },
        }),
        'duplicate',
      )
      assert.equal(again.fact.id, first.id)
      assert.equal(again.fact.value, HOBBY, 'the row keeps its first wording')
      assert.equal(again.upgraded, true)
      assert.equal(again.fact.evidence, 'explicit_user')
      assert.equal(again.fact.observedAt, '2026-03-01T10:00:00.000Z')
      assert.ok(
        again.restatement !== null && again.restatement.factId === first.id && again.restatement.similarity >= 0.72,
        `the answer names the restated fact: ${JSON.stringify(again.restatement)}`,
      )
      assert.equal(currentIn('hobbies'), 1)
      const sources = h
        .db()
        .all('SELECT session_id, quote, evidence FROM fact_sources WHERE fact_id = ? ORDER BY id', first.id)
        .map((row) => ({ ...row }))
      assert.deepEqual(sources, [
        { session_id: 'session-aaaaaaaa', quote: null, evidence: 'observed' },
        { session_id: 'session-bbbbbbbb', quote: 'I play jazz standards on the piano', evidence: 'explicit_user' },
      ])
    })

    it("a raise to explicit_user carries the user's words to the row, as a direct write would: its quote and anchor are theirs", () => {
      seed()
      const first = expectKind(hobby(HOBBY, { anchor: { sessionId: 'session-aaaaaaaa', turn: 1 } }), 'saved').fact
      assert.equal(first.quote, null)
      const said = 'I play jazz standards on the piano'
      const raised = expectKind(
        hobby(HOBBY_AGAIN, {
          evidence: 'explicit_user',
          quote: said,
          anchor: { sessionId: 'session-bbbbbbbb', turn: 4 },
        }),
        'duplicate',
      )
      assert.equal(raised.upgraded, true)
      assert.equal(raised.fact.quote, said, 'the row quotes the user')
      assert.deepEqual(
        { sessionId: raised.fact.sessionId, turn: raised.fact.turn },
        { sessionId: 'session-bbbbbbbb', turn: 4 },
      )
      // A later, weaker restatement adds a source and leaves the user's words on the row.
      const again = expectKind(
        hobby(HOBBY_AGAIN, {
          quote: 'he mentioned the piano and jazz standards',
          anchor: { sessionId: 'session-cccccccc', turn: 2 },
        }),
        'duplicate',
      )
      assert.equal(again.upgraded, false)
      assert.equal(again.fact.quote, said)
      // The same claim key raised by the user's words: the same carry.
      const port = expectKind(
        write(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' }),
        'saved',
      ).fact
      const portSaid = 'the billing api listens on 7801'
      const portRaised = expectKind(
        write(h.memory, h.config, {
          subject: 'billing-api',
          property: 'port',
          value: '7801',
          evidence: 'explicit_user',
          quote: portSaid,
        }),
        'duplicate',
      )
      assert.equal(portRaised.fact.id, port.id)
      assert.equal(portRaised.fact.quote, portSaid)
    })

    it('a raise whose quote holds personal data makes the row sensitive, as a direct write of that quote would', () => {
      seed()
      const first = expectKind(hobby(HOBBY), 'saved').fact
      assert.equal(first.sensitivity, null)
      const raised = expectKind(
        hobby(HOBBY_AGAIN, {
          evidence: 'explicit_user',
          quote: 'I play jazz standards on the piano, write to me at ana.lima@example.org',
        }),
        'duplicate',
      )
      assert.equal(raised.fact.quote, 'I play jazz standards on the piano, write to me at ana.lima@example.org')
      assert.equal(raised.fact.sensitivity, 'email')
    })

    it('restates a Chinese value re-worded with a few characters more', () => {
      seed()
      const first = expectKind(
        write(h.memory, h.config, { subject: '用户', property: '爱好', value: '每天晚饭后散步半小时', multi: true }),
        'saved',
      ).fact
      const again = expectKind(
        write(h.memory, h.config, { subject: '用户', property: '爱好', value: '每天晚饭后都散步半小时', multi: true }),
        'duplicate',
      )
      assert.equal(again.fact.id, first.id)
    })

    it('port 7801 and port 7802 stay two current values, however alike the rest', () => {
      seed()
      const a = expectKind(
        write(h.memory, h.config, {
          subject: 'billing-api',
          property: 'listens on',
          value: 'port 7801 for public HTTP traffic',
          multi: true,
        }),
        'saved',
      )
      const b = expectKind(
        write(h.memory, h.config, {
          subject: 'billing-api',
          property: 'listens on',
          value: 'port 7802 for public HTTP traffic',
          multi: true,
        }),
        'saved',
      )
      assert.notEqual(a.fact.id, b.fact.id)
      assert.equal(currentIn('listens on'), 2)
    })

    it('one word exchanged is another value: the piano and the guitar stay two', () => {
      seed()
      expectKind(hobby(HOBBY), 'saved')
      expectKind(hobby('plays the guitar, mostly jazz standards'), 'saved')
      assert.equal(currentIn('hobbies'), 2)
    })

    it('a negation on one side keeps a statement and its opposite two current values through memory_write, in English and in Chinese', async () => {
      seed()
      const tool = memoryWriteTool({ memory: h.memory, config: () => h.config })
      const slot = async (subject: string, property: string, value: string): Promise<WriteValue> =>
        (await tool.execute(
          { subject, property, value, multi: true },
          { callId: 'call-1', signal: new AbortController().signal },
        )) as WriteValue
      for (const [subject, property, negated, plain] of [
        [
          'user',
          'meeting preferences',
          'does not want meetings scheduled before ten in the morning',
          'wants meetings scheduled before ten in the morning',
        ],
        ['用户', '会议偏好', '不想在早上十点前安排会议', '想在早上十点前安排会议'],
      ] as const) {
        const no = await slot(subject, property, negated)
        const yes = await slot(subject, property, plain)
        assert.equal(no.outcome, 'saved', no.message)
        assert.equal(yes.outcome, 'saved', `${plain}: ${yes.message}`)
        assert.equal(currentIn(property), 2)
      }
    })

    it('two negated statements still fold: a negation on both sides is no veto', () => {
      seed()
      const first = expectKind(hobby('does not want meetings scheduled before ten in the morning'), 'saved').fact
      const again = expectKind(hobby("doesn't want meetings scheduled before ten in the morning"), 'duplicate')
      assert.equal(again.fact.id, first.id)
      const zhFirst = expectKind(
        write(h.memory, h.config, {
          subject: '用户',
          property: '爱好',
          value: '不想在早上十点前安排会议',
          multi: true,
        }),
        'saved',
      ).fact
      const zhAgain = expectKind(
        write(h.memory, h.config, {
          subject: '用户',
          property: '爱好',
          value: '不想在早上十点前就安排会议',
          multi: true,
        }),
        'duplicate',
      )
      assert.equal(zhAgain.fact.id, zhFirst.id)
    })

    it('below 12 current facts only the same claim folds', () => {
      seed(10)
      expectKind(hobby(HOBBY), 'saved')
      expectKind(hobby(HOBBY_AGAIN), 'saved')
      assert.equal(currentIn('hobbies'), 2, '11 current facts: the gate is off')
      expectKind(hobby(HOBBY), 'duplicate')
      expectKind(hobby('walks the dog every morning before work'), 'saved')
      const third = expectKind(hobby('every morning before work, walks the dog'), 'duplicate')
      assert.ok(third.restatement !== null, 'with 13 current facts the gate is on')
    })

    it('another scope is another statement', () => {
      seed()
      expectKind(hobby(HOBBY), 'saved')
      expectKind(hobby(HOBBY_AGAIN, { scope: 'weekend club' }), 'saved')
      assert.equal(currentIn('hobbies'), 2)
    })

    it("a single-valued slot folds a re-worded value too: the user's value, then an observed restatement through memory_write, is one fact with two sources and no conflict", async () => {
      seed()
      for (const extra of EXTRA) expectKind(write(h.memory, h.config, extra), 'saved')
      const tool = memoryWriteTool({ memory: h.memory, config: () => h.config })
      const deploy = async (value: string, evidence: string, quote?: string): Promise<WriteValue> =>
        (await tool.execute(
          {
            subject: 'billing-api',
            property: 'deploy schedule',
            value,
            evidence,
            ...(quote === undefined ? {} : { quote }),
          },
          { callId: 'call-1', signal: new AbortController().signal },
        )) as WriteValue
      const first = await deploy(
        'deploys from the main branch every Friday afternoon',
        'explicit_user',
        'we deploy from the main branch every Friday afternoon',
      )
      assert.equal(first.outcome, 'saved', first.message)
      const again = await deploy('deploys from the main branch every Friday afternoon after review', 'observed')
      assert.equal(again.outcome, 'ok', again.message)
      assert.equal(again.factId, first.factId)
      assert.equal(
        count(h.db(), `SELECT count(*) AS n FROM facts WHERE property = 'deploy schedule' AND status = 'conflict'`),
        0,
      )
      assert.equal(currentIn('deploy schedule'), 1)
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM fact_sources WHERE fact_id = ?', first.factId), 2)
    })

    it('a real change in a single-valued slot still supersedes from the user and conflicts when observed: 7801 is not 7802', () => {
      seed()
      for (const extra of EXTRA) expectKind(write(h.memory, h.config, extra), 'saved')
      const port = (value: string, evidence: FactInput['evidence']): WriteAnswer =>
        write(h.memory, h.config, { subject: 'billing-api', property: 'public port', value, evidence })
      const first = expectKind(port('port 7801 for public HTTP traffic', 'explicit_user'), 'saved').fact
      const conflict = expectKind(port('port 7802 for public HTTP traffic', 'observed'), 'conflict')
      assert.deepEqual(
        conflict.rivals.map((rival) => rival.id),
        [first.id],
      )
      const replaced = expectKind(port('port 7803 for public HTTP traffic', 'explicit_user'), 'saved')
      assert.deepEqual(
        replaced.superseded.map((fact) => fact.id),
        [first.id],
      )
    })

    it('a value written from the page is taken exactly as typed', () => {
      seed()
      const first = expectKind(hobby(HOBBY), 'saved').fact
      const edited = expectKind(hobby(HOBBY_AGAIN, { origin: 'page', evidence: 'explicit_user' }), 'saved')
      assert.notEqual(edited.fact.id, first.id)
    })
  })

  describe(`near-duplicate gate on imports and proposals (${driver})`, () => {
    let v: VerbHarness
    beforeEach(() => {
      v = verbHarness(driver)
      for (const fact of LIBRARY) expectKind(write(v.h.memory, v.h.config, fact), 'saved')
    })
    afterEach(() => {
      v.dispose()
    })
    const line = (value: string): string => JSON.stringify({ subject: 'user', property: 'hobbies', value, multi: true })

    it('an import line that restates a current fact, or an earlier line, is a duplicate in the preview and in the commit', async () => {
      const first = expectKind(
        write(v.h.memory, v.h.config, { subject: 'user', property: 'hobbies', value: HOBBY, multi: true }),
        'saved',
      ).fact
      const content = `${[line(HOBBY_AGAIN), line('bakes sourdough bread every weekend'), line('bakes sourdough bread on every weekend')].join('\n')}\n`
      const preview = await v.ok('import', { mode: 'preview', content })
      // A restatement of a stored fact is a duplicate; of an earlier line of the same file, a repeat of that line.
      assert.deepEqual(preview['counts'], { new: 1, duplicate: 1, repeated: 1, conflict: 0, tombstoned: 0, invalid: 0 })
      const records = preview['records'] as { class: string; factId?: number; sameAsLine?: number }[]
      assert.deepEqual(
        records.map((record) => [record.class, record.factId ?? record.sameAsLine ?? null]),
        [
          ['duplicate', first.id],
          ['new', null],
          ['repeated', 2],
        ],
      )
      const committed = await v.ok('import', v.fence({ mode: 'commit', content, token: preview['token'] }))
      assert.deepEqual(committed['counts'], preview['counts'])
      assert.deepEqual((committed['duplicateIds'] as number[])[0], first.id)
    })

    it('a restored backup brings back two rows however alike their words: a backup comes back as it was', async () => {
      // Two alike rows can stand side by side: a person typed the second on the page.
      expectKind(
        write(v.h.memory, v.h.config, { subject: 'user', property: 'hobbies', value: HOBBY, multi: true }),
        'saved',
      )
      expectKind(
        write(v.h.memory, v.h.config, {
          subject: 'user',
          property: 'hobbies',
          value: HOBBY_AGAIN,
          multi: true,
          origin: 'page',
        }),
        'saved',
      )
      const exported = await v.ok('export', {})
      const wipe = await v.call('wipe', v.fence())
      assert.equal(!wipe.ok && wipe.code, 'confirm_required')
      await v.ok(
        'wipe',
        v.fence({ confirmToken: (!wipe.ok && (wipe.details as { confirmToken: string }).confirmToken) || '' }),
      )
      const source = { path: String(exported['relativePath']) }
      const preview = await v.ok('import', { mode: 'preview', ...source })
      assert.equal(preview['restore'], true)
      assert.deepEqual(preview['counts'], {
        new: 14,
        duplicate: 0,
        repeated: 0,
        conflict: 0,
        tombstoned: 0,
        invalid: 0,
      })
      await v.ok('import', v.fence({ mode: 'commit', ...source, token: preview['token'] }))
      const values = v.h
        .db()
        .all(`SELECT value FROM facts WHERE property = 'hobbies' AND status = 'active' ORDER BY value`)
        .map((row) => row['value'])
      assert.deepEqual(values, [HOBBY_AGAIN, HOBBY])
    })

    it('an accepted proposal that restates a current fact lands on that fact', async () => {
      const first = expectKind(
        write(v.h.memory, v.h.config, { subject: 'user', property: 'hobbies', value: HOBBY, multi: true }),
        'saved',
      ).fact
      const proposed = expectKind(
        write(v.h.memory, v.h.config, {
          subject: 'user',
          property: 'hobbies',
          value: HOBBY_AGAIN,
          multi: true,
          confidence: 0.4,
        }),
        'proposed',
      )
      const applied = await v.ok('proposal-apply', v.fence({ id: proposed.proposalId, revision: 1 }))
      assert.deepEqual(applied['applied'], [{ row: 0, factId: first.id, outcome: 'duplicate' }])
      const evidence = v.h.db().get('SELECT evidence FROM facts WHERE id = ?', first.id)?.['evidence']
      assert.equal(evidence, 'confirmed_user', 'accepting raised the evidence of the fact it restates')
    })
  })
}
