/**
 * Folded log lines on a real store, both SQLite bindings: a recurring line written on other days updates its row in
 * place (value, observation time, sources, fold count and history, revision, generation, both search indexes), in
 * single- and multi-valued slots alike; what does not fold keeps the slot rules; a user's page edit never folds; an
 * accepted proposal that folds is undone exactly; forgetting a folded row forgets its prior lines too.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { renderSearchText } from '../src/retrieval/render.ts'
import { FOLD_HISTORY } from '../src/rules/fold.ts'
import type { Fact } from '../src/types.ts'
import { count, DRIVERS, expectKind, write, type PartialFact } from './helpers/store.ts'
import { indexedTermsOf } from './helpers/fts-terms.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

const DAY = 24 * 60 * 60 * 1000
const nightly = (date: string): string => `nightly backup finished ${date}, 412 files`

for (const driver of DRIVERS) {
  describe(`folded log lines (${driver})`, () => {
    let v: VerbHarness

    beforeEach(() => {
      v = verbHarness(driver)
      // The lines report days in late November 2026; a report names a day that has come.
      v.clock.advance(Date.parse('2026-12-01T09:00:00.000Z') - v.clock.now())
    })
    afterEach(() => v.dispose())

    const line = (value: string, extra: PartialFact = {}) =>
      write(v.h.memory, v.h.config, { subject: 'backup-runner', property: 'last run', value, ...extra })
    const fact = (id: number): Fact => {
      const opened = v.h.memory.storeSet()
      if (!('stores' in opened)) throw new Error('the store is not open')
      const [found] = opened.stores.facts.getFacts([id])
      if (found === undefined) throw new Error(`no fact ${id}`)
      return found
    }
    const searchText = (query: string): string =>
      renderSearchText(v.h.memory.searchLexical({ query, limit: 5, asOf: undefined }, v.h.config))

    it('a nightly line written on three dates is one row seen 3 times: the newest value, the two prior values, a source per night', () => {
      const first = expectKind(line(nightly('2026-11-24')), 'saved').fact
      v.clock.advance(DAY)
      const generation = v.generation()
      const second = expectKind(line(nightly('2026-11-25')), 'folded')
      assert.equal(second.fact.id, first.id)
      assert.equal(second.prior, nightly('2026-11-24'))
      assert.ok(v.generation() > generation, 'a fold moves the generation')
      v.clock.advance(DAY)
      const third = expectKind(line(nightly('2026-11-26')), 'folded').fact

      assert.equal(third.id, first.id)
      assert.equal(count(v.h.db(), `SELECT count(*) AS n FROM facts WHERE subject = 'backup-runner'`), 1)
      assert.equal(third.value, nightly('2026-11-26'))
      assert.equal(third.foldedCount, 2)
      assert.deepEqual(third.foldedFrom, [nightly('2026-11-24'), nightly('2026-11-25')])
      assert.equal(third.revision, first.revision + 2)
      assert.equal(third.observedAt, v.clock.iso())
      assert.equal(third.validFrom, first.validFrom, 'the row holds since the first night')
      assert.equal(count(v.h.db(), 'SELECT count(*) AS n FROM fact_sources WHERE fact_id = ?', first.id), 3)
      assert.match(
        searchText('nightly backup'),
        /nightly backup finished 2026-11-26, 412 files \[#\d+ · since 2026-12-01 · .* · seen 3 times\]/u,
      )
    })

    it('keeps only the last 20 prior values: the 21st fold drops the first night', () => {
      const day = (n: number): string => new Date(Date.UTC(2026, 10, 1 + n)).toISOString().slice(0, 10)
      const id = expectKind(line(nightly(day(0))), 'saved').fact.id
      for (let n = 1; n <= FOLD_HISTORY + 1; n += 1) expectKind(line(nightly(day(n))), 'folded')
      const folded = fact(id)
      assert.equal(folded.foldedCount, FOLD_HISTORY + 1)
      assert.equal(folded.foldedFrom.length, FOLD_HISTORY)
      assert.equal(folded.foldedFrom[0], nightly(day(1)))
      assert.equal(folded.foldedFrom.at(-1), nightly(day(FOLD_HISTORY)))
      assert.equal(folded.value, nightly(day(FOLD_HISTORY + 1)))
    })

    it('keeps the full-text and identifier indexes on the new value', () => {
      const log = (date: string): string => `backup log written to /var/log/backup-${date}.log`
      const id = expectKind(line(log('2026-11-24')), 'saved').fact.id
      expectKind(line(log('2026-11-25')), 'folded')
      const idents = v.h
        .db()
        .all('SELECT ident FROM fact_identifiers WHERE fact_id = ? ORDER BY ident', id)
        .map((row) => String(row['ident']))
      assert.ok(idents.includes('/var/log/backup-2026-11-25.log'), idents.join(' '))
      assert.ok(!idents.some((ident) => ident.includes('2026-11-24')), idents.join(' '))
      assert.match(indexedTermsOf(v.h.db().path, id) ?? '', /25/u)
      assert.doesNotMatch(indexedTermsOf(v.h.db().path, id) ?? '', /\b24\b/u)
      assert.match(searchText('/var/log/backup-2026-11-25.log'), /^outcome: ok/u)
    })

    it('folds inside a multi-valued slot: each recurring line keeps its own row, and a new line is a new row', () => {
      const multi = { property: 'pipeline runs', multi: true }
      const backup = expectKind(line('backup job ok 2026-11-24', multi), 'saved').fact
      const sweep = expectKind(line('weekly sweep ok 2026-11-22', multi), 'saved').fact
      v.clock.advance(DAY)
      assert.equal(expectKind(line('backup job ok 2026-11-25', multi), 'folded').fact.id, backup.id)
      assert.equal(expectKind(line('weekly sweep ok 2026-11-29', multi), 'folded').fact.id, sweep.id)
      expectKind(line('index rebuild ok 2026-11-25', multi), 'saved')
      const rows = v.h
        .db()
        .all(`SELECT value, folded_count FROM facts WHERE property = 'pipeline runs' AND status = 'active' ORDER BY id`)
        .map((row) => [row['value'], Number(row['folded_count'])])
      assert.deepEqual(rows, [
        ['backup job ok 2026-11-25', 1],
        ['weekly sweep ok 2026-11-29', 1],
        ['index rebuild ok 2026-11-25', 0],
      ])
    })

    it('never folds across qualifiers or scopes: another qualifier is another slot, another scope keeps the slot rules', () => {
      const staging = expectKind(line('backup job ok 2026-11-24', { qualifiers: { env: 'staging' } }), 'saved').fact
      expectKind(line('backup job ok 2026-11-25', { qualifiers: { env: 'prod' } }), 'saved')
      assert.equal(fact(staging.id).foldedCount, 0)
      const scoped = expectKind(
        line('restore drill ok 2026-11-24', { property: 'drill', scope: 'team-a' }),
        'saved',
      ).fact
      const other = expectKind(line('restore drill ok 2026-11-25', { property: 'drill', scope: 'team-b' }), 'saved')
      assert.deepEqual(
        other.superseded.map((f) => f.id),
        [scoped.id],
      )
    })

    it('does not fold what only differs by a number: 187/188 and port 7801/7802 supersede as before', () => {
      const a = expectKind(line('187', { property: 'count' }), 'saved').fact
      assert.deepEqual(
        expectKind(line('188', { property: 'count' }), 'saved').superseded.map((f) => f.id),
        [a.id],
      )
      const p = expectKind(line('port 7801', { property: 'listen' }), 'saved').fact
      assert.deepEqual(
        expectKind(line('port 7802', { property: 'listen' }), 'saved').superseded.map((f) => f.id),
        [p.id],
      )
      const range = expectKind(line('from 20260101 to 20260201', { property: 'freeze' }), 'saved').fact
      assert.deepEqual(
        expectKind(line('from 20260301 to 20260401', { property: 'freeze' }), 'saved').superseded.map((f) => f.id),
        [range.id],
      )
    })

    it('keeps a plan that moved as history: a line dated after the day it is written supersedes, it does not fold', () => {
      const plan = expectKind(line('the license expires on 2026-12-01', { property: 'license' }), 'saved').fact
      const moved = expectKind(line('the license expires on 2027-12-01', { property: 'license' }), 'saved')
      assert.deepEqual(
        moved.superseded.map((f) => f.id),
        [plan.id],
      )
      assert.equal(moved.fact.foldedCount, 0)
    })

    it("never lets a weaker source rewrite a stronger row: an observed line against the user's is a conflict; a stronger one folds and raises the evidence", () => {
      const user = expectKind(
        line('每日备份完成 2026-11-24', { evidence: 'explicit_user', quote: '每日备份完成 2026-11-24' }),
        'saved',
      ).fact
      expectKind(line('每日备份完成 2026-11-25', { evidence: 'observed' }), 'conflict')
      assert.equal(fact(user.id).foldedCount, 0)
      const observed = expectKind(
        line('self-check passed 2026-11-24', { property: 'self check', evidence: 'observed' }),
        'saved',
      ).fact
      const raised = expectKind(
        line('self-check passed 2026-11-25', {
          property: 'self check',
          evidence: 'explicit_user',
          quote: 'self-check passed 2026-11-25',
        }),
        'folded',
      ).fact
      assert.equal(raised.id, observed.id)
      assert.equal(raised.evidence, 'explicit_user')
      assert.equal(raised.quote, 'self-check passed 2026-11-25')
    })

    it("absorbs a line dated before the row's: the newer value stays, the older one joins the fold history", () => {
      const id = expectKind(line(nightly('2026-11-25')), 'saved').fact.id
      const late = expectKind(line(nightly('2026-11-24')), 'folded')
      assert.equal(late.tookValue, false)
      assert.equal(late.fact.value, nightly('2026-11-25'))
      assert.equal(late.fact.foldedCount, 1)
      assert.deepEqual(late.fact.foldedFrom, [nightly('2026-11-24')])
      assert.equal(fact(id).revision, 2)
    })

    it('leaves sensitive values and scheduled ones to the slot rules', () => {
      const mail = expectKind(
        line('report mailed to ops@example.com on 2026-11-24', { property: 'report' }),
        'saved',
      ).fact
      assert.deepEqual(
        expectKind(
          line('report mailed to ops@example.com on 2026-11-25', { property: 'report' }),
          'saved',
        ).superseded.map((f) => f.id),
        [mail.id],
      )
      expectKind(line('maintenance window ok 2026-11-24', { property: 'window' }), 'saved')
      expectKind(line('maintenance window ok 2026-11-30', { property: 'window', validFrom: '2026-04-01' }), 'saved')
    })

    it("a page edit of the date is the user's correction: the old value is superseded and kept as history, not folded", async () => {
      const id = expectKind(line(nightly('2026-11-24')), 'saved').fact.id
      const edited = await v.ok('fact-update', {
        id,
        value: nightly('2026-11-23'),
        expectedGeneration: v.generation(),
        operationId: v.op(),
      })
      const next = edited['fact'] as { id: number }
      assert.notEqual(next.id, id)
      assert.equal(fact(id).status, 'superseded')
      assert.equal(fact(next.id).foldedCount, 0)
    })

    it('an accepted proposal that folds is undone exactly: value, quote, fold record, evidence and both indexes come back', async () => {
      const log = (date: string): string => `backup log written to /var/log/backup-${date}.log`
      const row = expectKind(line(log('2026-11-24'), { quote: 'log at /var/log/backup-2026-11-24.log' }), 'saved').fact
      v.clock.advance(DAY)
      const card = expectKind(line(log('2026-11-25'), { confidence: 0.4 }), 'proposed')
      const applied = await v.ok('proposal-apply', {
        id: card.proposalId,
        revision: 1,
        expectedGeneration: v.generation(),
        operationId: v.op(),
      })
      assert.deepEqual(
        (applied['applied'] as { factId: number; outcome: string }[]).map((entry) => [entry.factId, entry.outcome]),
        [[row.id, 'folded']],
      )
      const folded = fact(row.id)
      assert.equal(folded.value, log('2026-11-25'))
      assert.equal(folded.evidence, 'confirmed_user')

      await v.ok('fact-restore', { editId: applied['editId'], expectedGeneration: v.generation(), operationId: v.op() })
      const back = fact(row.id)
      assert.deepEqual(
        [
          back.value,
          back.quote,
          back.claimKey,
          back.foldedCount,
          back.foldedFrom,
          back.evidence,
          back.observedAt,
          back.status,
        ],
        [row.value, row.quote, row.claimKey, 0, [], row.evidence, row.observedAt, 'active'],
      )
      const idents = v.h
        .db()
        .all('SELECT ident FROM fact_identifiers WHERE fact_id = ?', row.id)
        .map((r) => String(r['ident']))
      assert.ok(
        idents.includes('/var/log/backup-2026-11-24.log') && !idents.includes('/var/log/backup-2026-11-25.log'),
        idents.join(' '),
      )
      assert.match(searchText('/var/log/backup-2026-11-24.log'), /^outcome: ok/u)
    })

    it('forgetting a folded row forgets its prior lines too: none of them can be written back', () => {
      const id = expectKind(line(nightly('2026-11-24')), 'saved').fact.id
      expectKind(line(nightly('2026-11-25')), 'folded')
      assert.equal(v.h.memory.forgetById(id).kind, 'forgotten')
      expectKind(line(nightly('2026-11-24')), 'refused')
      expectKind(line(nightly('2026-11-25')), 'refused')
      expectKind(line(nightly('2026-11-26')), 'saved')
    })
  })
}
