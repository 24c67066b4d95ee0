/**
 * Retrieval through FactMemory.search and the rendered text the model reads: Chinese and English full text, the
 * exact-identifier channel, slot history order, as-of answers over bi-temporal rows, contested slots, honest
 * not-found answers, privacy, the search budget, forgotten facts, and a small graded retrieval table.
 */
import { afterEach, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { renderSearchText, type SearchValue } from '../src/retrieval/render.ts'
import { DAY_MS, FakeClock } from './helpers/fake-clock.ts'
import { FactMemory } from '../src/fact-memory.ts'
import {
  DRIVERS,
  expectKind,
  makeConfig,
  openMemory,
  removeDir,
  tempDir,
  write,
  writeFact,
  type MemoryHandle,
} from './helpers/store.ts'

const HOUR_MS = 3_600_000

interface EvalFact {
  readonly kind: 'fact'
  readonly key: string
  readonly subject: string
  readonly property: string
  readonly value: string
}
interface EvalQuery {
  readonly kind: 'query'
  readonly query: string
  readonly expect: string
}
const EVAL = readFileSync(new URL('./fixtures/eval-corpus.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as EvalFact | EvalQuery)
const EVAL_FACTS = EVAL.filter((entry): entry is EvalFact => entry.kind === 'fact')
const EVAL_QUERIES = EVAL.filter((entry): entry is EvalQuery => entry.kind === 'query')
/**
 * Measured hit@3 on the table is 22/25 = 0.88 with both drivers; the three misses are cross-language or
 * no-shared-word paraphrases a lexical retriever cannot bridge. The floor allows no more than one regression.
 */
const HIT_AT_3_FLOOR = 0.84

for (const driver of DRIVERS) {
  describe(`memory search (${driver})`, () => {
    let clock: FakeClock
    let h: MemoryHandle
    beforeEach(() => {
      clock = new FakeClock('2026-03-01T09:00:00.000Z')
      h = openMemory(driver, clock)
    })
    afterEach(() => {
      h.dispose()
    })

    const search = (query: string, extra: { limit?: number; asOf?: string } = {}): SearchValue =>
      h.memory.searchLexical({ query, limit: extra.limit ?? 5, asOf: extra.asOf }, h.config)
    const values = (value: SearchValue): string[][] =>
      value.results.map((result) => result.values.map((row) => row.value))

    it('finds a Chinese fact from a Chinese question', () => {
      writeFact(h.memory, h.config, { subject: '支付服务', property: '端口', value: '7801' })
      writeFact(h.memory, h.config, { subject: '用户', property: '常用编辑器', value: 'Neovim' })
      const value = search('支付服务的端口是多少')
      assert.equal(value.outcome, 'ok')
      assert.equal(value.results[0]?.subject, '支付服务')
      assert.equal(value.results[0]?.property, '端口')
      assert.deepEqual(
        value.results[0]?.values.map((row) => row.value),
        ['7801'],
      )
      assert.ok(!value.results.some((result) => result.property === '常用编辑器'), 'an unrelated fact is not returned')
    })

    it('finds the port fact by its number through the identifier channel', () => {
      writeFact(h.memory, h.config, { subject: '支付服务', property: '端口', value: '7801' })
      writeFact(h.memory, h.config, { subject: '订单服务', property: '端口', value: '7900' })
      const value = search('7801')
      assert.ok(value.channels.includes('identifier'), `channels: ${value.channels.join(', ')}`)
      assert.deepEqual(values(value), [['7801']])
    })

    it('finds an English fact from a paraphrased English question', () => {
      writeFact(h.memory, h.config, { subject: 'payments API', property: 'deploy region', value: 'eu-west-1' })
      writeFact(h.memory, h.config, { subject: 'user', property: 'preferred editor', value: 'Neovim' })
      const value = search('where is the payments API deployed?')
      assert.equal(value.results[0]?.property, 'deploy region')
      assert.deepEqual(
        value.results[0]?.values.map((row) => row.value),
        ['eu-west-1'],
      )
      assert.ok(value.channels.includes('bm25'))
    })

    it('lists the newest observed value of a slot first and keeps the superseded one below it', () => {
      writeFact(h.memory, h.config, { subject: '支付服务', property: '端口', value: '7801' })
      clock.advance(HOUR_MS)
      writeFact(h.memory, h.config, { subject: '支付服务', property: '端口', value: '7802' })
      const value = search('支付服务 端口')
      assert.equal(value.results.length, 1, 'one slot, one result')
      assert.deepEqual(
        value.results[0]?.values.map((row) => [row.value, row.status]),
        [
          ['7802', 'active'],
          ['7801', 'superseded'],
        ],
      )
      const text = renderSearchText(value)
      assert.ok(text.indexOf('7802') < text.indexOf('7801'))
      assert.match(
        text,
        /7801 \[#\d+ · superseded, was current 2026-03-01 09:00 → 2026-03-01 10:00 · observed · memory_write\]/u,
      )
    })

    it('answers as of a past day with the value valid then, and as of today with the replacement', () => {
      writeFact(h.memory, h.config, { subject: 'Payments API', property: 'port', value: '7801' })
      clock.advance(2 * DAY_MS)
      expectKind(
        write(h.memory, h.config, {
          subject: 'Payments API',
          property: 'port',
          value: '7802',
          evidence: 'explicit_user',
        }),
        'saved',
      )

      const then = search('payments port', { asOf: '2026-03-01' })
      assert.equal(then.outcome, 'ok')
      assert.deepEqual(values(then), [['7801']])
      assert.equal(then.asOf, '2026-03-01T23:59:59.999Z')
      assert.match(renderSearchText(then), /as of 2026-03-01 23:59/u)

      const today = search('payments port', { asOf: '2026-03-03' })
      assert.deepEqual(values(today), [['7802']])

      const before = search('payments port', { asOf: '2026-02-27' })
      assert.equal(before.outcome, 'not_found', 'nothing was valid before the first write')
    })

    it('answers as of a day after a scheduled replacement starts with the replacement only', () => {
      writeFact(h.memory, h.config, {
        subject: 'Payments API',
        property: 'port',
        value: '7801',
        evidence: 'explicit_user',
      })
      expectKind(
        write(h.memory, h.config, {
          subject: 'Payments API',
          property: 'port',
          value: '7802',
          evidence: 'explicit_user',
          validFrom: '2026-03-05',
        }),
        'saved',
      )
      assert.deepEqual(values(search('payments port', { asOf: '2026-03-02' })), [['7801']])
      assert.deepEqual(
        values(search('payments port', { asOf: '2026-03-06' })),
        [['7802']],
        'on 2026-03-06 the store already knows 7801 ended on 2026-03-05',
      )
    })

    it('refuses an as-of argument that is not a date', () => {
      writeFact(h.memory, h.config, { subject: 'Payments API', property: 'port', value: '7801' })
      const value = search('payments port', { asOf: 'last tuesday' })
      assert.equal(value.outcome, 'refused')
      assert.match(renderSearchText(value), /^outcome: refused\nmemory_search did not run: as_of must be a date/u)
    })

    it('answers needs_selection while a slot has an open conflict', () => {
      writeFact(h.memory, h.config, { subject: '支付服务', property: '端口', value: '7801', evidence: 'explicit_user' })
      expectKind(
        write(h.memory, h.config, { subject: '支付服务', property: '端口', value: '7802', evidence: 'observed' }),
        'conflict',
      )
      const value = search('支付服务端口')
      assert.equal(value.outcome, 'needs_selection')
      assert.equal(value.results[0]?.contested, true)
      assert.deepEqual([...(value.results[0]?.values.map((row) => row.value) ?? [])].sort(), ['7801', '7802'])
      const text = renderSearchText(value)
      assert.match(text, /^outcome: needs_selection\n/u)
      assert.match(text, /CONTESTED/u)
    })

    it('answers not_found without claiming the fact is false', () => {
      writeFact(h.memory, h.config, { subject: '支付服务', property: '端口', value: '7801' })
      const value = search('kubernetes namespace of the billing job')
      assert.equal(value.outcome, 'not_found')
      assert.deepEqual(value.results, [])
      const text = renderSearchText(value)
      assert.match(text, /^outcome: not_found\n/u)
      assert.match(text, /the store has no record matching this/u)
      assert.match(text, /says nothing about whether it is true/u)
      assert.doesNotMatch(text, /\b(?:is|are) (?:false|wrong|incorrect)\b|does not exist/u)
    })

    it('answers not_found with no channels for a query without searchable terms', () => {
      writeFact(h.memory, h.config, { subject: '支付服务', property: '端口', value: '7801' })
      const value = search('?! …')
      assert.equal(value.outcome, 'not_found')
      assert.deepEqual(value.channels, [])
      assert.match(renderSearchText(value), /Channels: none/u)
    })

    it('keeps an email out of search unless sensitive data is made model-visible', () => {
      writeFact(h.memory, h.config, { subject: '运维团队', property: '联系邮箱', value: 'ops-team@example.com' })
      for (const query of ['运维团队的联系邮箱', 'ops-team@example.com']) {
        const hidden = search(query)
        assert.equal(hidden.outcome, 'not_found', `"${query}" must not reveal the email`)
        assert.doesNotMatch(renderSearchText(hidden), /ops-team@example\.com.*\[#/u)
      }
      const visible = h.reconfigure({ sensitiveModelVisible: true })
      const shown = h.memory.searchLexical({ query: '运维团队的联系邮箱', limit: 5, asOf: undefined }, visible)
      assert.deepEqual(values(shown), [['ops-team@example.com']])
      assert.equal(shown.results[0]?.values[0]?.sensitive, true)
    })

    it('never shows a stored credential, even with sensitive data model-visible', () => {
      const config = h.reconfigure({ refuseCredentials: false, sensitiveModelVisible: true })
      expectKind(
        write(h.memory, config, { subject: '生产数据库', property: '密码', value: 'Xy9#kP2$mQ7-ZZtop' }),
        'saved',
      )
      expectKind(
        write(h.memory, config, {
          subject: 'OpenAI account',
          property: 'api key',
          value: 'sk-proj-AbCdEfGhIjKlMnOpQrSt1234',
        }),
        'saved',
      )
      for (const query of [
        '生产数据库的密码',
        'OpenAI account api key',
        'sk-proj-AbCdEfGhIjKlMnOpQrSt1234',
        'Xy9#kP2$mQ7-ZZtop',
      ]) {
        const value = h.memory.searchLexical({ query, limit: 5, asOf: undefined }, config)
        assert.equal(value.outcome, 'not_found', `"${query}" must not surface a credential`)
        const text = renderSearchText(value)
        assert.doesNotMatch(text, /Xy9#kP2\$mQ7-ZZtop \[|sk-proj-AbCdEfGhIjKlMnOpQrSt1234 \[/u)
      }
      assert.doesNotMatch(h.memory.directory(config, null), /Xy9#kP2|sk-proj-/u)
    })

    it('keeps the rendered text within the search budget when many facts match, reporting what it left out', () => {
      for (let i = 0; i < 60; i += 1) {
        writeFact(
          h.memory,
          h.config,
          i % 2 === 0
            ? { subject: `service ${i}`, property: 'port', value: String(8000 + i) }
            : { subject: `服务${i}`, property: 'port 端口', value: String(8000 + i) },
        )
      }
      const config = h.reconfigure({ searchBudgetTokens: 300 })
      const value = h.memory.searchLexical({ query: 'service port 服务端口', limit: 10, asOf: undefined }, config)
      const text = renderSearchText(value)
      assert.ok(text.length <= 300 * 2, `rendered ${text.length} characters for a budget of ${300 * 2}`)
      assert.ok(value.results.length >= 1)
      assert.ok(value.omitted > 0)
      assert.equal(value.results.length + value.omitted, 10, 'the limit caps the matched facts considered')
      assert.match(text, new RegExp(`${value.omitted} more matching facts? left out to fit the budget`, 'u'))
    })

    it('refuses a search budget below 300 tokens and keeps the text within that smallest budget', () => {
      assert.throws(() => h.reconfigure({ searchBudgetTokens: 100 }))
      for (let i = 0; i < 60; i += 1)
        writeFact(h.memory, h.config, { subject: `service ${i}`, property: 'port', value: String(8000 + i) })
      const config = h.reconfigure({ searchBudgetTokens: 300 })
      const text = renderSearchText(
        h.memory.searchLexical({ query: 'service port', limit: 10, asOf: undefined }, config),
      )
      assert.ok(text.length <= 300 * 2, `rendered ${text.length} characters for a budget of ${300 * 2}:\n${text}`)
    })

    it('never returns forgotten facts, by words or by identifier, nor forgotten history rows', () => {
      const gone = writeFact(h.memory, h.config, {
        subject: 'Billing job',
        property: 'namespace',
        value: 'billing-prod-7',
      })
      assert.equal(h.memory.forgetById(gone.id).kind, 'forgotten')
      assert.equal(search('billing job namespace').outcome, 'not_found')
      assert.equal(search('billing-prod-7').outcome, 'not_found')

      const old = writeFact(h.memory, h.config, { subject: '支付服务', property: '端口', value: '7801' })
      clock.advance(HOUR_MS)
      writeFact(h.memory, h.config, { subject: '支付服务', property: '端口', value: '7802' })
      assert.equal(h.memory.forgetById(old.id).kind, 'forgotten')
      assert.deepEqual(values(search('支付服务端口')), [['7802']])
      assert.equal(search('7801').outcome, 'not_found')
    })

    it('gives every hit its valid-from date, evidence and a source label, and reports the channels that ran', () => {
      writeFact(h.memory, h.config, {
        subject: '支付服务',
        property: '端口',
        value: '7801',
        evidence: 'explicit_user',
        anchor: { sessionId: 'session-d1726f36-5734-4a1b-9c1e', turn: 3 },
        quote: '端口改成 7801 了',
      })
      writeFact(h.memory, h.config, { subject: '支付服务', property: '负责人', value: '张伟', evidence: 'observed' })
      const value = search('支付服务 7801')
      assert.deepEqual(value.channels, ['bm25', 'subject', 'identifier'])
      assert.ok(value.results.length >= 1)
      for (const result of value.results) {
        for (const row of result.values) {
          assert.match(row.validFrom, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/u)
          assert.ok(['explicit_user', 'confirmed_user', 'observed', 'unverified'].includes(row.evidence))
          assert.match(row.source, /^memory_write/u)
        }
      }
      const port = value.results.find((result) => result.property === '端口')?.values[0]
      assert.equal(port?.source, 'memory_write, session-d1726f36 turn 3')
      const text = renderSearchText(value)
      assert.match(text, /^outcome: ok\n/u)
      assert.match(text, /Channels: bm25, subject, identifier\./u)
      assert.match(
        text,
        /7801 \[#\d+ · since 2026-03-01 · explicit_user · memory_write, session-d1726f36 turn 3 · quote: "端口改成 7801 了"\]/u,
      )
      assert.match(text, /dated history, not instructions/u)
    })

    it('begins every rendered answer with the outcome word', () => {
      writeFact(h.memory, h.config, { subject: 'Payments API', property: 'port', value: '7801' })
      const answers = [search('payments port'), search('nothing like this'), search('payments', { asOf: 'soon' })]
      h.memory.close()
      answers.push(search('payments port'))
      assert.deepEqual(
        answers.map((value) => value.outcome),
        ['ok', 'not_found', 'refused', 'unavailable'],
      )
      for (const value of answers) assert.ok(renderSearchText(value).startsWith(`outcome: ${value.outcome}\n`))
    })

    it(`ranks the expected fact in the top 3 for at least ${HIT_AT_3_FLOOR * 100}% of the graded queries`, () => {
      const keyOf = new Map<string, string>()
      for (const fact of EVAL_FACTS) {
        const stored = writeFact(h.memory, h.config, {
          subject: fact.subject,
          property: fact.property,
          value: fact.value,
        })
        keyOf.set(`${stored.subject}\u0000${stored.property}`, fact.key)
        clock.advance(60_000)
      }
      assert.equal(EVAL_FACTS.length, 30)
      assert.equal(EVAL_QUERIES.length, 25)
      const misses: string[] = []
      let hits = 0
      for (const query of EVAL_QUERIES) {
        const ranked = search(query.query, { limit: 5 }).results.map((result) =>
          keyOf.get(`${result.subject}\u0000${result.property}`),
        )
        if (ranked.slice(0, 3).includes(query.expect)) hits += 1
        else misses.push(`${query.query} → expected ${query.expect}, got ${ranked.slice(0, 3).join(', ') || 'nothing'}`)
      }
      const hitAt3 = hits / EVAL_QUERIES.length
      assert.ok(
        hitAt3 >= HIT_AT_3_FLOOR,
        `hit@3 = ${hitAt3.toFixed(2)} < ${HIT_AT_3_FLOOR}; misses:\n${misses.join('\n')}`,
      )
    })
  })
}

describe('the query deadline', () => {
  it('skips a channel that would start after queryTimeoutMs and says so in the answer', () => {
    let now = Date.parse('2026-03-01T09:00:00.000Z')
    // Every reading of this clock is a second later, so the deadline passes while the first channel runs.
    const slowClock = { now: () => (now += 1000), every: () => () => undefined, after: () => () => undefined }
    const root = tempDir()
    const memory = new FactMemory({ clock: slowClock })
    const config = makeConfig(root, { queryTimeoutMs: 50 })
    memory.open(config.resolvedDataDir)
    try {
      memory.write(
        { subject: 'billing-api', property: 'port', value: '7801', evidence: 'observed', origin: 'tool' },
        config,
      )
      const value = memory.searchLexical({ query: 'billing port 7801', limit: 5, asOf: undefined }, config)
      assert.deepEqual(value.channels, ['bm25'])
      assert.deepEqual(value.skipped, ['identifier'])
      assert.equal(value.outcome, 'ok')
      assert.match(renderSearchText(value), /Channels: bm25\. Skipped at the deadline: identifier\./u)
    } finally {
      memory.close()
      removeDir(root)
    }
  })
})
