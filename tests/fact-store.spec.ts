/**
 * The fact store through FactMemory.write / forget / advance and the real SQLite file: slot rules (duplicates,
 * bi-temporal supersession, conflicts and their settlement, multi-valued slots, proposals), forgetting with
 * tombstones, privacy, scheduled and expiring values on a fake clock, the generation counter, nested transactions,
 * query plans, and crash safety under SIGKILL.
 */
import { afterEach, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Config } from '../src/config.ts'
import { prepareWrite } from '../src/fact-input.ts'
import { MemoryRuntime } from '../src/runtime.ts'
import type { SqlValue } from '../src/store/connection.ts'
import { Database } from '../src/store/database.ts'
import { FactStore } from '../src/store/fact-store.ts'
import { MASK } from '../src/text/privacy.ts'
import type { FactInput } from '../src/types.ts'
import { DAY_MS, FakeClock } from './helpers/fake-clock.ts'
import {
  count,
  DRIVERS,
  expectKind,
  oneRow,
  openMemory,
  removeDir,
  tempDir,
  write,
  writeFact,
  type MemoryHandle,
} from './helpers/store.ts'
import { indexedTermsOf } from './helpers/fts-terms.ts'
import { instantColumn } from '../src/store/fact-rows.ts'

const HOUR_MS = 3_600_000
const CRASH_WRITER = fileURLToPath(new URL('./fixtures/crash-writer.ts', import.meta.url))

for (const driver of DRIVERS) {
  describe(`fact store writes (${driver})`, () => {
    let clock: FakeClock
    let h: MemoryHandle
    beforeEach(() => {
      clock = new FakeClock('2026-03-01T09:00:00.000Z')
      h = openMemory(driver, clock)
    })
    afterEach(() => {
      h.dispose()
    })

    const statusOf = (id: number): string =>
      String(oneRow(h.db(), 'SELECT status FROM facts WHERE id = ?', id)['status'])

    it('saves a new fact as active with its session and turn anchor', () => {
      const answer = expectKind(
        write(h.memory, h.config, {
          subject: '支付服务',
          property: '端口',
          value: '7801',
          evidence: 'explicit_user',
          anchor: { sessionId: 'session-d1726f36-5734-4a1b', turn: 3 },
          quote: '支付服务的端口是 7801',
        }),
        'saved',
      )
      const fact = answer.fact
      assert.equal(fact.status, 'active')
      assert.equal(fact.value, '7801')
      assert.equal(fact.subject, '支付服务')
      assert.equal(fact.sessionId, 'session-d1726f36-5734-4a1b')
      assert.equal(fact.turn, 3)
      assert.equal(fact.quote, '支付服务的端口是 7801')
      assert.equal(fact.recordedAt, '2026-03-01T09:00:00.000Z')
      assert.equal(fact.validFrom, '2026-03-01T09:00:00.000Z')
      assert.equal(fact.validTo, null)
      assert.equal(fact.origin, 'tool')
      assert.deepEqual(answer.superseded, [])
      assert.deepEqual(answer.retired, [])
      const source = oneRow(
        h.db(),
        'SELECT session_id, turn, quote, origin, evidence FROM fact_sources WHERE fact_id = ?',
        fact.id,
      )
      assert.deepEqual(
        { ...source },
        {
          session_id: 'session-d1726f36-5734-4a1b',
          turn: 3,
          quote: '支付服务的端口是 7801',
          origin: 'tool',
          evidence: 'explicit_user',
        },
      )
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM facts'), 1)
    })

    it('returns the same row for the same claim after case, space and role-word folding, adding a source', () => {
      const first = expectKind(
        write(h.memory, h.config, {
          subject: 'DSH Fact Memory plugin',
          property: 'Default Port',
          value: 'Port 7801',
          anchor: { sessionId: 'session-aaaaaaaa', turn: 1 },
        }),
        'saved',
      ).fact
      clock.advance(HOUR_MS)
      const again = expectKind(
        write(h.memory, h.config, {
          subject: 'dsh-fact-memory',
          property: 'default_port',
          value: '  port   7801 ',
          anchor: { sessionId: 'session-bbbbbbbb', turn: 7 },
        }),
        'duplicate',
      )
      assert.equal(again.fact.id, first.id)
      assert.equal(again.upgraded, false)
      assert.equal(again.settled, false)
      assert.equal(again.fact.subject, 'DSH Fact Memory plugin', 'the row keeps its first wording')
      assert.equal(again.fact.observedAt, '2026-03-01T10:00:00.000Z', 'a repeat refreshes the observation time')
      assert.equal(again.fact.recordedAt, '2026-03-01T09:00:00.000Z')
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM facts'), 1)
      const sources = h.db().all('SELECT session_id, turn FROM fact_sources WHERE fact_id = ? ORDER BY id', first.id)
      assert.deepEqual(
        sources.map((row) => [row['session_id'], row['turn']]),
        [
          ['session-aaaaaaaa', 1],
          ['session-bbbbbbbb', 7],
        ],
      )
    })

    it('upgrades the evidence of an existing claim when the user confirms it', () => {
      const first = writeFact(h.memory, h.config, {
        subject: 'Payments API',
        property: 'region',
        value: 'eu-west-1',
        evidence: 'observed',
      })
      const again = expectKind(
        write(h.memory, h.config, {
          subject: 'payments api',
          property: 'Region',
          value: 'EU-WEST-1',
          evidence: 'explicit_user',
        }),
        'duplicate',
      )
      assert.equal(again.fact.id, first.id)
      assert.equal(again.upgraded, true)
      assert.equal(again.fact.evidence, 'explicit_user')
      assert.equal(Number(oneRow(h.db(), 'SELECT evidence_rank FROM facts WHERE id = ?', first.id)['evidence_rank']), 0)
    })

    it('supersedes the old value bi-temporally when a trusted new value arrives, never deleting it', () => {
      const old = writeFact(h.memory, h.config, {
        subject: 'Payments API',
        property: 'port',
        value: '7801',
        evidence: 'observed',
      })
      clock.advance(2 * HOUR_MS)
      const answer = expectKind(
        write(h.memory, h.config, { subject: 'Payments API', property: 'port', value: '7802', evidence: 'observed' }),
        'saved',
      )
      assert.deepEqual(
        answer.superseded.map((fact) => fact.id),
        [old.id],
      )
      const next = answer.fact
      assert.equal(next.status, 'active')
      assert.equal(next.recordedAt, '2026-03-01T11:00:00.000Z')
      const row = oneRow(
        h.db(),
        `SELECT status, ${instantColumn('valid_from')}, ${instantColumn('valid_to')}, superseded_by FROM facts WHERE id = ?`,
        old.id,
      )
      assert.equal(row['status'], 'superseded')
      assert.equal(row['valid_from'], '2026-03-01T09:00:00.000Z', 'the old value keeps its start')
      assert.equal(row['valid_to'], next.recordedAt, 'the old value ends when the new one arrived')
      assert.equal(Number(row['superseded_by']), next.id)
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM facts'), 2)
      assert.equal(
        count(h.db(), `SELECT count(*) AS n FROM facts WHERE slot_key = unhex(?) AND status = 'active'`, next.slotKey),
        1,
      )
    })

    it('keeps both values when an observed value contradicts an explicit user statement', () => {
      const stated = writeFact(h.memory, h.config, {
        subject: '支付服务',
        property: '端口',
        value: '7801',
        evidence: 'explicit_user',
      })
      clock.advance(HOUR_MS)
      const answer = expectKind(
        write(h.memory, h.config, { subject: '支付服务', property: '端口', value: '7802', evidence: 'observed' }),
        'conflict',
      )
      assert.equal(answer.fact.status, 'conflict')
      assert.deepEqual(
        answer.rivals.map((fact) => fact.id),
        [stated.id],
      )
      assert.equal(statusOf(stated.id), 'active', "the user's value stays current")
      const groups = h
        .db()
        .all(`SELECT id, lower(hex(slot_key)) AS slot_key FROM conflict_groups WHERE status = 'open'`)
      assert.equal(groups.length, 1)
      const groupId = Number(groups[0]?.['id'])
      assert.equal(groups[0]?.['slot_key'], stated.slotKey)
      assert.equal(answer.fact.conflictGroupId, groupId)
      assert.equal(
        Number(oneRow(h.db(), 'SELECT conflict_group_id FROM facts WHERE id = ?', stated.id)['conflict_group_id']),
        groupId,
      )
      assert.equal(h.memory.status().counts?.openConflictGroups, 1)
    })

    it('settles a contested slot when the user states a new value: rivals retired, group closed, one active row', () => {
      const stated = writeFact(h.memory, h.config, {
        subject: '支付服务',
        property: '端口',
        value: '7801',
        evidence: 'explicit_user',
      })
      const rival = expectKind(
        write(h.memory, h.config, { subject: '支付服务', property: '端口', value: '7802', evidence: 'observed' }),
        'conflict',
      ).fact
      clock.advance(HOUR_MS)
      const answer = expectKind(
        write(h.memory, h.config, { subject: '支付服务', property: '端口', value: '7803', evidence: 'explicit_user' }),
        'saved',
      )
      const settler = answer.fact
      assert.deepEqual(
        answer.superseded.map((fact) => fact.id),
        [stated.id],
      )
      assert.deepEqual(
        answer.retired.map((fact) => fact.id),
        [rival.id],
      )
      assert.equal(statusOf(stated.id), 'superseded')
      assert.equal(statusOf(rival.id), 'retired')
      assert.equal(
        oneRow(h.db(), `SELECT ${instantColumn('valid_to')} FROM facts WHERE id = ?`, rival.id)['valid_to'],
        settler.recordedAt,
      )
      const group = oneRow(h.db(), 'SELECT status, settled_by, closed_at FROM conflict_groups')
      assert.equal(group['status'], 'closed')
      assert.equal(Number(group['settled_by']), settler.id)
      assert.equal(group['closed_at'], settler.recordedAt)
      const active = h
        .db()
        .all(`SELECT id FROM facts WHERE slot_key = unhex(?) AND status IN ('active', 'conflict')`, settler.slotKey)
      assert.deepEqual(
        active.map((row) => Number(row['id'])),
        [settler.id],
      )
    })

    it('settles a contested slot on the restated value when the user repeats the contested one', () => {
      const stated = writeFact(h.memory, h.config, {
        subject: 'Payments API',
        property: 'port',
        value: '7801',
        evidence: 'explicit_user',
      })
      const rival = expectKind(
        write(h.memory, h.config, { subject: 'Payments API', property: 'port', value: '7802', evidence: 'observed' }),
        'conflict',
      ).fact
      clock.advance(HOUR_MS)
      const answer = expectKind(
        write(h.memory, h.config, {
          subject: 'payments api',
          property: 'Port',
          value: '7802',
          evidence: 'explicit_user',
        }),
        'duplicate',
      )
      assert.equal(answer.fact.id, rival.id)
      assert.equal(answer.settled, true)
      assert.equal(answer.upgraded, true)
      assert.equal(answer.fact.status, 'active')
      assert.equal(answer.fact.evidence, 'explicit_user')
      assert.deepEqual(
        answer.superseded.map((fact) => fact.id),
        [stated.id],
      )
      const old = oneRow(h.db(), 'SELECT status, superseded_by FROM facts WHERE id = ?', stated.id)
      assert.equal(old['status'], 'superseded')
      assert.equal(Number(old['superseded_by']), rival.id)
      assert.equal(count(h.db(), `SELECT count(*) AS n FROM conflict_groups WHERE status = 'open'`), 0)
      const current = h
        .db()
        .all(`SELECT id FROM facts WHERE slot_key = unhex(?) AND status IN ('active', 'conflict')`, rival.slotKey)
      assert.deepEqual(
        current.map((row) => Number(row['id'])),
        [rival.id],
      )
    })

    it('keeps several active rows in one slot when the values are multi-valued', () => {
      const ts = writeFact(h.memory, h.config, {
        subject: 'Alice',
        property: 'languages',
        value: 'TypeScript',
        evidence: 'explicit_user',
        multi: true,
      })
      const rust = writeFact(h.memory, h.config, {
        subject: 'Alice',
        property: 'languages',
        value: 'Rust',
        evidence: 'explicit_user',
        multi: true,
      })
      const zh = writeFact(h.memory, h.config, {
        subject: 'Alice',
        property: 'languages',
        value: '中文',
        evidence: 'observed',
        multi: true,
      })
      const active = h
        .db()
        .all(`SELECT id FROM facts WHERE slot_key = unhex(?) AND status = 'active' ORDER BY id`, ts.slotKey)
      assert.deepEqual(
        active.map((row) => Number(row['id'])),
        [ts.id, rust.id, zh.id],
      )
    })

    it('lets later writes without the multi flag join a slot that is already multi-valued', () => {
      writeFact(h.memory, h.config, {
        subject: 'Alice',
        property: 'languages',
        value: 'TypeScript',
        evidence: 'explicit_user',
        multi: true,
      })
      writeFact(h.memory, h.config, {
        subject: 'Alice',
        property: 'languages',
        value: 'Rust',
        evidence: 'explicit_user',
        multi: true,
      })
      const go = expectKind(
        write(h.memory, h.config, { subject: 'Alice', property: 'languages', value: 'Go', evidence: 'explicit_user' }),
        'saved',
      )
      const python = write(h.memory, h.config, {
        subject: 'Alice',
        property: 'languages',
        value: 'Python',
        evidence: 'explicit_user',
      })
      assert.equal(python.kind, 'saved', `a fourth value in a multi-valued slot failed: ${JSON.stringify(python)}`)
      assert.equal(
        count(
          h.db(),
          `SELECT count(*) AS n FROM facts WHERE slot_key = unhex(?) AND status = 'active'`,
          go.fact.slotKey,
        ),
        4,
      )
    })

    it('turns an inferred value into a pending proposal without a fact row, and re-proposing returns the same proposal', () => {
      const input = { subject: 'Bob', property: 'timezone', value: 'Asia/Shanghai', inferred: true } as const
      const first = expectKind(write(h.memory, h.config, input), 'proposed')
      assert.equal(first.existing, false)
      assert.equal(first.reason, 'inferred')
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM facts'), 0)
      const proposal = oneRow(h.db(), 'SELECT status, kind, rows FROM proposals WHERE id = ?', first.proposalId)
      assert.equal(proposal['status'], 'pending')
      const rows = JSON.parse(String(proposal['rows'])) as { value: string; targets: unknown[] }[]
      assert.equal(rows.length, 1)
      assert.equal(rows[0]?.value, 'Asia/Shanghai')
      assert.ok(Array.isArray(rows[0]?.targets))
      const again = expectKind(write(h.memory, h.config, { ...input, subject: 'bob' }), 'proposed')
      assert.equal(again.proposalId, first.proposalId)
      assert.equal(again.existing, true)
      assert.equal(h.memory.status().counts?.pendingProposals, 1)
    })

    it('turns a confidence-0.5 value into a low-confidence proposal', () => {
      const answer = expectKind(
        write(h.memory, h.config, { subject: '订单服务', property: '负责人', value: '张三', confidence: 0.5 }),
        'proposed',
      )
      assert.equal(answer.reason, 'low_confidence')
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM facts'), 0)
      assert.equal(count(h.db(), `SELECT count(*) AS n FROM proposals WHERE status = 'pending'`), 1)
    })

    it('forgets by id: tombstones claim and evidence, drops the text and identifier index, and refuses the claim later', () => {
      const fact = writeFact(h.memory, h.config, {
        subject: 'Payments API',
        property: 'endpoint',
        value: 'https://pay.internal:7801/v2',
        quote: 'the payments endpoint is https://pay.internal:7801/v2',
      })
      assert.ok(count(h.db(), 'SELECT count(*) AS n FROM fact_identifiers WHERE fact_id = ?', fact.id) > 0)
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM facts_fts WHERE rowid = ?', fact.id), 1)
      const answer = h.memory.forgetById(fact.id)
      assert.equal(answer.kind, 'forgotten')
      assert.equal(statusOf(fact.id), 'forgotten')
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM facts_fts WHERE rowid = ?', fact.id), 0)
      assert.equal(count(h.db(), `SELECT count(*) AS n FROM facts_fts WHERE facts_fts MATCH '"payments"'`), 0)
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM fact_identifiers WHERE fact_id = ?', fact.id), 0)
      const tombs = h.db().all('SELECT kind, key, fact_id FROM tombstones ORDER BY kind')
      assert.deepEqual(
        tombs.map((row) => [row['kind'], Number(row['fact_id'])]),
        [
          ['claim', fact.id],
          ['evidence', fact.id],
        ],
      )
      assert.equal(tombs[0]?.['key'], fact.claimKey)

      const generation = h.memory.status().generation
      const again = expectKind(
        write(h.memory, h.config, {
          subject: 'payments api',
          property: 'Endpoint',
          value: 'HTTPS://pay.internal:7801/v2',
        }),
        'refused',
      )
      assert.equal(again.code, 'tombstoned')
      assert.equal(h.memory.status().generation, generation, 'a refused write commits nothing')
      const sameQuote = expectKind(
        write(h.memory, h.config, {
          subject: 'Payments API',
          property: 'base url',
          value: 'pay.internal',
          quote: 'The payments endpoint is https://pay.internal:7801/v2',
        }),
        'refused',
      )
      assert.equal(sameQuote.code, 'tombstoned', 'the forgotten quote cannot be cited again')
      assert.equal(count(h.db(), `SELECT count(*) AS n FROM facts WHERE status <> 'forgotten'`), 0)
      assert.equal(h.memory.forgetById(fact.id).kind, 'not_found')
    })

    it('forgets one side of a two-way conflict and makes the survivor current', () => {
      const stated = writeFact(h.memory, h.config, {
        subject: '支付服务',
        property: '端口',
        value: '7801',
        evidence: 'explicit_user',
      })
      const rival = expectKind(
        write(h.memory, h.config, { subject: '支付服务', property: '端口', value: '7802', evidence: 'observed' }),
        'conflict',
      ).fact
      assert.equal(h.memory.forgetById(stated.id).kind, 'forgotten')
      assert.equal(statusOf(rival.id), 'active')
      assert.equal(count(h.db(), `SELECT count(*) AS n FROM conflict_groups WHERE status = 'open'`), 0)
    })

    it('gives a row a new revision when a contradiction puts it into a conflict group and when it takes effect again', () => {
      const revisionOf = (id: number): number =>
        Number(oneRow(h.db(), 'SELECT revision FROM facts WHERE id = ?', id)['revision'])
      const stated = writeFact(h.memory, h.config, {
        subject: '支付服务',
        property: '端口',
        value: '7801',
        evidence: 'explicit_user',
      })
      const before = revisionOf(stated.id)
      const rival = expectKind(
        write(h.memory, h.config, { subject: '支付服务', property: '端口', value: '7802', evidence: 'observed' }),
        'conflict',
      ).fact
      assert.ok(revisionOf(stated.id) > before, 'the current value became contested')

      const waiting = revisionOf(rival.id)
      assert.equal(h.memory.forgetById(stated.id).kind, 'forgotten')
      assert.equal(statusOf(rival.id), 'active')
      assert.ok(revisionOf(rival.id) > waiting, 'the rival went from conflict to active')
    })

    it('gives the current value a new revision when a promoted scheduled value contests it', () => {
      const revisionOf = (id: number): number =>
        Number(oneRow(h.db(), 'SELECT revision FROM facts WHERE id = ?', id)['revision'])
      const stated = writeFact(h.memory, h.config, {
        subject: 'Payments API',
        property: 'port',
        value: '7801',
        evidence: 'explicit_user',
      })
      const scheduled = expectKind(
        write(h.memory, h.config, {
          subject: 'Payments API',
          property: 'port',
          value: '7802',
          evidence: 'observed',
          validFrom: '2026-03-05',
        }),
        'saved',
      ).fact
      const before = revisionOf(stated.id)
      clock.advance(5 * DAY_MS)
      h.memory.advance()
      assert.equal(statusOf(scheduled.id), 'conflict')
      assert.ok(revisionOf(stated.id) > before)
    })

    it('forgets by subject, optionally narrowed to one property, including superseded history', () => {
      const port = writeFact(h.memory, h.config, { subject: '支付服务', property: '端口', value: '7801' })
      const owner = writeFact(h.memory, h.config, { subject: '支付服务', property: '负责人', value: '张三' })
      const other1 = writeFact(h.memory, h.config, { subject: '订单服务', property: '端口', value: '7900' })
      clock.advance(HOUR_MS)
      const other2 = writeFact(h.memory, h.config, { subject: '订单服务', property: '端口', value: '7901' })

      const byProperty = h.memory.forgetBySubject('支付服务', '端口')
      assert.equal(byProperty.kind, 'forgotten')
      assert.deepEqual(byProperty.kind === 'forgotten' ? byProperty.facts.map((fact) => fact.id) : [], [port.id])
      assert.equal(statusOf(owner.id), 'active')

      const bySubject = h.memory.forgetBySubject('支付服务', undefined)
      assert.deepEqual(bySubject.kind === 'forgotten' ? bySubject.facts.map((fact) => fact.id) : [], [owner.id])
      assert.equal(h.memory.forgetBySubject('支付服务', undefined).kind, 'not_found')

      const orders = h.memory.forgetBySubject('订单服务', undefined)
      assert.deepEqual(orders.kind === 'forgotten' ? orders.facts.map((fact) => fact.id).sort((a, b) => a - b) : [], [
        other1.id,
        other2.id,
      ])
      assert.equal(count(h.db(), `SELECT count(*) AS n FROM facts WHERE status <> 'forgotten'`), 0)
      assert.equal(count(h.db(), `SELECT count(*) AS n FROM tombstones WHERE kind = 'claim'`), 4)
    })

    it('forgets an English subject under another spelling of the same entity', () => {
      const fact = writeFact(h.memory, h.config, { subject: 'dsh-fact-memory', property: 'license', value: 'MIT' })
      const answer = h.memory.forgetBySubject('DSH Fact Memory plugin', 'License')
      assert.equal(answer.kind, 'forgotten')
      assert.equal(statusOf(fact.id), 'forgotten')
      assert.equal(h.memory.forgetBySubject('unknown thing', undefined).kind, 'not_found')
    })

    it('refuses a credential when refuseCredentials is on, writing nothing', () => {
      const generation = h.memory.status().generation
      for (const input of [
        { subject: 'OpenAI account', property: 'api key', value: 'sk-proj-AbCdEfGhIjKlMnOpQrSt1234' },
        { subject: '生产数据库', property: '密码', value: 'Xy9#kP2$mQ7' },
      ]) {
        const answer = expectKind(write(h.memory, h.config, input), 'refused')
        assert.equal(answer.code, 'credential_refused')
      }
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM facts'), 0)
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM proposals'), 0)
      assert.equal(h.memory.status().generation, generation)
    })

    it('stores a credential as sensitive and never model-usable when refuseCredentials is off, without indexing the secret', () => {
      const config = h.reconfigure({ refuseCredentials: false })
      const fact = expectKind(
        write(h.memory, config, { subject: '生产数据库', property: '密码', value: 'Xy9#kP2$mQ7-ZZtop' }),
        'saved',
      ).fact
      assert.equal(fact.sensitivity, 'credential')
      assert.equal(fact.modelUseAllowed, false)
      const terms = indexedTermsOf(h.db().path, fact.id) ?? ''
      assert.doesNotMatch(terms, /xy9|zztop|mq7/iu)
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM fact_identifiers WHERE fact_id = ?', fact.id), 0)
    })

    it('stores an email address with sensitivity email', () => {
      const fact = writeFact(h.memory, h.config, {
        subject: '运维团队',
        property: 'contact',
        value: 'ops-team@example.com',
      })
      assert.equal(fact.sensitivity, 'email')
      assert.equal(fact.modelUseAllowed, true)
    })

    /** Every stored copy of a fact's quote and any proposal rows, as one text to search for a secret. */
    const storedText = (): string =>
      JSON.stringify([
        h.db().all('SELECT subject, value, quote FROM facts'),
        h.db().all('SELECT quote FROM fact_sources'),
        h.db().all('SELECT rows FROM proposals'),
      ])
    const quotedPassword = {
      subject: 'staging db',
      property: 'password',
      value: 'Tr0ub4dor&3',
      quote: 'the staging db password is Tr0ub4dor&3',
    }

    it('refuses a password written with the sentence it came from as its quote, as it refuses the bare value', () => {
      const generation = h.memory.status().generation
      for (const input of [
        { ...quotedPassword, quote: undefined },
        quotedPassword,
        { ...quotedPassword, confidence: 0.5 },
        {
          subject: 'OpenAI account',
          property: 'api key',
          value: 'Zx9Qw7Er',
          quote: 'our OpenAI api key is Zx9Qw7Er',
          evidence: 'explicit_user' as const,
        },
      ]) {
        assert.equal(
          expectKind(write(h.memory, h.config, input), 'refused').code,
          'credential_refused',
          JSON.stringify(input),
        )
      }
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM facts'), 0)
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM proposals'), 0)
      assert.equal(h.memory.status().generation, generation)
    })

    it('stores a quoted password as a credential, never model-usable, with the secret masked in its quote, when refuseCredentials is off', () => {
      const config = h.reconfigure({ refuseCredentials: false })
      const fact = expectKind(write(h.memory, config, quotedPassword), 'saved').fact
      assert.equal(fact.sensitivity, 'credential')
      assert.equal(fact.modelUseAllowed, false)
      assert.equal(fact.quote, `the staging db password is ${MASK}`)
      assert.equal(
        expectKind(
          write(h.memory, config, {
            ...quotedPassword,
            subject: 'prod db',
            quote: 'the prod db password is Tr0ub4dor&3',
            confidence: 0.5,
          }),
          'proposed',
        ).kind,
        'proposed',
      )
      const stored = storedText()
      assert.equal(stored.split('Tr0ub4dor&3').length - 1, 2, 'only the two values keep the secret, neither quote does')
      const terms = indexedTermsOf(h.db().path, fact.id) ?? ''
      assert.doesNotMatch(terms, /tr0ub4dor/iu)
      assert.equal(
        h.memory.searchLexical({ query: 'staging db password', limit: 5, asOf: undefined }, config).outcome,
        'not_found',
      )
    })

    it('masks a credential that only the quote carries and stores the fact as an ordinary one, whatever refuseCredentials says', () => {
      for (const [subject, refuseCredentials] of [
        ['staging', true],
        ['preview', false],
      ] as const) {
        const config = h.reconfigure({ refuseCredentials })
        const fact = writeFact(h.memory, config, {
          subject,
          property: 'host',
          value: 'db-2',
          quote: `the ${subject} host is db-2, its password is Tr0ub4dor&3; deploy with ghp_abcdefghijklmnopqrstuvwxyz0123456789`,
        })
        assert.equal(fact.sensitivity, null)
        assert.equal(fact.modelUseAllowed, true)
        assert.equal(fact.quote, `the ${subject} host is db-2, its password is ${MASK}; deploy with ${MASK}`)
      }
      const stored = storedText()
      assert.equal(stored.includes('Tr0ub4dor'), false)
      assert.equal(stored.includes('ghp_'), false)
      const found = h.memory.searchLexical({ query: 'staging host', limit: 5, asOf: undefined }, h.config)
      assert.deepEqual(
        found.results[0]?.values.map((row) => [row.value, row.quote]),
        [['db-2', `the staging host is db-2, its password is ${MASK}; deploy with ${MASK}`]],
      )
    })

    it('marks a fact sensitive when only its quote carries personal data, keeping that quote as said', () => {
      const quote = 'the ops on-call owner is Alice, reach her at alice@example.com'
      const fact = writeFact(h.memory, h.config, { subject: 'ops on-call', property: 'owner', value: 'Alice', quote })
      assert.equal(fact.sensitivity, 'email')
      assert.equal(fact.quote, quote)
      assert.equal(
        h.memory.searchLexical({ query: 'ops on-call owner', limit: 5, asOf: undefined }, h.config).outcome,
        'not_found',
      )
      assert.doesNotMatch(h.memory.directory(h.config, null), /Alice/u)
    })

    it('scans the subject too: an email address there is personal data and a token there is a credential', () => {
      assert.equal(
        writeFact(h.memory, h.config, { subject: 'alice@example.com', property: 'role', value: 'admin' }).sensitivity,
        'email',
      )
      const token = expectKind(
        write(h.memory, h.config, {
          subject: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
          property: 'owner',
          value: 'ci',
        }),
        'refused',
      )
      assert.equal(token.code, 'credential_refused')
    })

    it('stores a future value as scheduled and promotes it once the clock passes its start, ending the old value there', () => {
      const old = writeFact(h.memory, h.config, {
        subject: 'Payments API',
        property: 'port',
        value: '7801',
        evidence: 'explicit_user',
      })
      const scheduled = expectKind(
        write(h.memory, h.config, {
          subject: 'Payments API',
          property: 'port',
          value: '7802',
          evidence: 'explicit_user',
          validFrom: '2026-03-05',
        }),
        'saved',
      ).fact
      assert.equal(scheduled.status, 'scheduled')
      assert.equal(scheduled.validFrom, '2026-03-05T00:00:00.000Z')
      assert.equal(statusOf(old.id), 'active')

      clock.advance(2 * DAY_MS)
      assert.deepEqual(h.memory.advance(), { promoted: 0, expired: 0 })
      assert.equal(statusOf(scheduled.id), 'scheduled')

      clock.advance(3 * DAY_MS)
      assert.deepEqual(h.memory.advance(), { promoted: 1, expired: 0 })
      assert.equal(statusOf(scheduled.id), 'active')
      const row = oneRow(
        h.db(),
        `SELECT status, ${instantColumn('valid_to')}, superseded_by FROM facts WHERE id = ?`,
        old.id,
      )
      assert.equal(row['status'], 'superseded')
      assert.equal(row['valid_to'], '2026-03-05T00:00:00.000Z', 'the old value ends where the new one starts')
      assert.equal(Number(row['superseded_by']), scheduled.id)
    })

    it('expires a fact whose valid_to has passed', () => {
      const fact = writeFact(h.memory, h.config, {
        subject: 'Sprint 12',
        property: '值班人',
        value: '李四',
        validTo: '2026-03-03',
      })
      assert.equal(fact.validTo, '2026-03-03T00:00:00.000Z')
      clock.advance(HOUR_MS)
      assert.deepEqual(h.memory.advance(), { promoted: 0, expired: 0 })
      assert.equal(statusOf(fact.id), 'active')
      clock.advance(2 * DAY_MS)
      assert.deepEqual(h.memory.advance(), { promoted: 0, expired: 1 })
      assert.equal(statusOf(fact.id), 'expired')
    })

    it('leaves no fact current after one advance when a scheduled window opened and closed while nobody advanced', () => {
      const old = writeFact(h.memory, h.config, {
        subject: '支付服务',
        property: '端口',
        value: '7801',
        evidence: 'explicit_user',
      })
      const window = expectKind(
        write(h.memory, h.config, {
          subject: '支付服务',
          property: '端口',
          value: '9999',
          evidence: 'explicit_user',
          validFrom: '2026-03-05',
          validTo: '2026-03-07',
        }),
        'saved',
      ).fact
      assert.equal(window.status, 'scheduled')
      clock.advance(10 * DAY_MS)
      h.memory.advance()
      assert.equal(statusOf(old.id), 'superseded')
      assert.equal(statusOf(window.id), 'expired', 'a value that ended on 2026-03-07 must not be current on 2026-03-11')
    })

    it('counts exactly one generation per committed write and none for reads or refused writes', () => {
      const g = (): number => h.memory.status().generation
      const g0 = g()
      const fact = writeFact(h.memory, h.config, { subject: 'Payments API', property: 'port', value: '7801' })
      assert.equal(g(), g0 + 1)
      write(h.memory, h.config, { subject: 'payments api', property: 'port', value: '7801' })
      assert.equal(g(), g0 + 2, 'a duplicate records a source: one commit')
      writeFact(h.memory, h.config, { subject: 'Payments API', property: 'port', value: '7802' })
      assert.equal(g(), g0 + 3, 'a supersession is one commit')

      h.memory.searchLexical({ query: 'payments port', limit: 5, asOf: undefined }, h.config)
      h.memory.directory(h.config, null)
      h.memory.status()
      h.memory.advance()
      assert.equal(g(), g0 + 3, 'reads and an idle advance commit nothing')

      expectKind(
        write(h.memory, h.config, { subject: 'x', property: 'token', value: 'ghp_abcdefghijklmnopqrstuvwxyz0123' }),
        'refused',
      )
      expectKind(write(h.memory, h.config, { subject: 'x', property: 'y', value: '   ' }), 'refused')
      expectKind(
        write(h.memory, h.config, { subject: 'Payments API', property: 'port', value: '7803', validTo: '2020-01-01' }),
        'refused',
      )
      assert.equal(g(), g0 + 3, 'refused writes commit nothing')

      assert.equal(h.memory.forgetById(fact.id).kind, 'forgotten')
      assert.equal(g(), g0 + 4)
      expectKind(write(h.memory, h.config, { subject: 'Payments API', property: 'port', value: '7801' }), 'refused')
      assert.equal(g(), g0 + 4, 'a tombstoned write commits nothing')
    })

    /** The plugin's runtime on this test's data directory, its maintenance timer firing hourly on the fake clock. */
    const startRuntime = (): MemoryRuntime => {
      const runtime = new MemoryRuntime({
        clock,
        home: () => ({ dshHome: h.root, userHome: h.root }),
        logger: { info: () => undefined, warn: () => undefined },
        registerTools: () => () => undefined,
        store: { driver },
      })
      h.memory.close()
      // auditIntervalMs 0: the health check's timer stays off, so the maintenance timer is the only one.
      runtime.reconfigure({
        ...Config({} as Config),
        dataDir: h.dataDir,
        storeTimezone: 'UTC',
        advanceIntervalMs: HOUR_MS,
        auditIntervalMs: 0,
      })
      return runtime
    }

    it('promotes a scheduled value from the maintenance timer as the fake clock passes its start', () => {
      const runtime = startRuntime()
      try {
        assert.equal(clock.pendingTimers, 1)
        const config = runtime.config()
        const scheduled = expectKind(
          write(runtime.memory, config, {
            subject: '支付服务',
            property: '端口',
            value: '7802',
            evidence: 'explicit_user',
            validFrom: '2026-03-02',
          }),
          'saved',
        ).fact
        assert.equal(scheduled.status, 'scheduled')
        clock.advance(12 * HOUR_MS)
        assert.equal(statusOf(scheduled.id), 'scheduled')
        const fired = clock.advance(12 * HOUR_MS)
        assert.equal(fired, 12)
        assert.equal(statusOf(scheduled.id), 'active')
      } finally {
        runtime.stop()
      }
      assert.equal(clock.pendingTimers, 0, 'stopping the runtime cancels its timer')
    })

    it('closes the conflict group when the maintenance timer expires the contested value, as expiring it from the page does', () => {
      const runtime = startRuntime()
      try {
        const config = runtime.config()
        const stated = writeFact(runtime.memory, config, {
          subject: 'billing-api',
          property: 'port',
          value: '7801',
          evidence: 'explicit_user',
        })
        const rival = expectKind(
          write(runtime.memory, config, {
            subject: 'billing-api',
            property: 'port',
            value: '7900',
            evidence: 'observed',
            validTo: '2026-03-03',
          }),
          'conflict',
        ).fact
        const search = () =>
          runtime.memory.searchLexical({ query: 'billing-api port', limit: 5, asOf: undefined }, config)
        assert.equal(search().outcome, 'needs_selection')
        assert.match(runtime.memory.directory(config, null), /billing-api · port: 7801 \([^)]*, contested\)/u)

        clock.advance(2 * DAY_MS)
        assert.equal(statusOf(rival.id), 'expired')
        assert.equal(statusOf(stated.id), 'active')
        assert.equal(
          String(oneRow(h.db(), 'SELECT status FROM conflict_groups WHERE id = ?', rival.conflictGroupId)['status']),
          'closed',
        )
        assert.equal(runtime.memory.status().counts?.openConflictGroups, 0, 'the badge counts no dead group')
        assert.equal(search().outcome, 'ok')
        assert.doesNotMatch(runtime.memory.directory(config, null), /contested/u)
      } finally {
        runtime.stop()
      }
    })

    it('lets the rival take effect when the maintenance timer expires the current side of a conflict', () => {
      const runtime = startRuntime()
      try {
        const config = runtime.config()
        const stated = writeFact(runtime.memory, config, {
          subject: 'billing-api',
          property: 'port',
          value: '7801',
          evidence: 'explicit_user',
          validTo: '2026-03-03',
        })
        const rival = expectKind(
          write(runtime.memory, config, {
            subject: 'billing-api',
            property: 'port',
            value: '7900',
            evidence: 'observed',
          }),
          'conflict',
        ).fact
        clock.advance(2 * DAY_MS)
        assert.equal(statusOf(stated.id), 'expired')
        assert.equal(statusOf(rival.id), 'active', 'the one value left is current, as after an expiry from the page')
        assert.equal(runtime.memory.status().counts?.openConflictGroups, 0)
        const answer = runtime.memory.searchLexical({ query: 'billing-api port', limit: 5, asOf: undefined }, config)
        assert.deepEqual([answer.outcome, answer.results[0]?.values[0]?.value], ['ok', '7900'])
      } finally {
        runtime.stop()
      }
    })
  })

  describe(`transactions (${driver})`, () => {
    let dir: string
    let db: Database
    beforeEach(() => {
      dir = tempDir()
      db = Database.open({ dataDir: dir, driver, now: () => '2026-03-01T09:00:00.000Z' })
    })
    afterEach(() => {
      db.close()
      removeDir(dir)
    })

    const addEntity = (key: string): void => {
      db.run(
        'INSERT INTO entities (entity_key, display, created_at) VALUES (?, ?, ?)',
        key,
        key,
        '2026-03-01T09:00:00.000Z',
      )
    }
    const entityKeys = (): string[] =>
      db.all('SELECT entity_key FROM entities ORDER BY id').map((row) => String(row['entity_key']))

    it('rolls back only the inner savepoint when nested work throws, and commits the rest once', () => {
      const g0 = db.generation()
      db.transaction(() => {
        addEntity('outer')
        assert.throws(
          () =>
            db.transaction(() => {
              addEntity('inner 内层')
              throw new Error('inner failure')
            }),
          /inner failure/u,
        )
        db.transaction(() => {
          addEntity('sibling')
        })
      })
      assert.deepEqual(entityKeys(), ['outer', 'sibling'])
      assert.equal(db.generation(), g0 + 1, 'one outer commit is one generation')
    })

    it('undoes a committed-looking inner savepoint when a middle level throws', () => {
      db.transaction(() => {
        addEntity('outer')
        try {
          db.transaction(() => {
            addEntity('middle')
            db.transaction(() => {
              addEntity('innermost')
            })
            throw new Error('middle failure')
          })
        } catch {
          // expected
        }
      })
      assert.deepEqual(entityKeys(), ['outer'])
    })

    it('rolls everything back and keeps the generation when the outer work throws', () => {
      const g0 = db.generation()
      assert.throws(
        () =>
          db.transaction(() => {
            addEntity('one')
            db.transaction(() => {
              addEntity('two')
            })
            throw new Error('outer failure')
          }),
        /outer failure/u,
      )
      assert.deepEqual(entityKeys(), [])
      assert.equal(db.generation(), g0)
      db.transaction(() => {
        addEntity('after')
      })
      assert.deepEqual(entityKeys(), ['after'], 'the handle is usable after a rollback')
    })

    it('refuses transaction work that returns a promise and rolls back what it did synchronously', async () => {
      const g0 = db.generation()
      let pending: unknown
      assert.throws(
        () =>
          db.transaction(() => {
            addEntity('before await')
            pending = Promise.resolve(1)
            return pending
          }),
        /synchronous/u,
      )
      await pending
      assert.deepEqual(entityKeys(), [])
      assert.equal(db.generation(), g0)
      assert.throws(
        () =>
          db.transaction(() => {
            addEntity('outer')
            return db.transaction(async () => {
              addEntity('async inner')
            })
          }),
        /synchronous/u,
      )
      assert.deepEqual(entityKeys(), [])
      db.transaction(() => {
        addEntity('sync')
      })
      assert.deepEqual(entityKeys(), ['sync'], 'the depth counter recovered')
    })

    it('does not bump the generation for a transaction that changes nothing', () => {
      const g0 = db.generation()
      db.transaction(() => db.all('SELECT * FROM facts'))
      assert.equal(db.generation(), g0)
    })
  })

  describe(`query plans (${driver})`, () => {
    let dir: string
    let db: Database
    let store: FactStore
    let seen: { sql: string; params: SqlValue[] }[]
    let explain: (sql: string, params: readonly SqlValue[]) => string[]
    const NOW = '2026-03-01T09:00:00.000Z'

    const prepared = (input: Partial<FactInput>) => {
      const result = prepareWrite(
        { subject: '支付服务', property: '端口', value: '7801', evidence: 'observed', origin: 'tool', ...input },
        NOW,
        { refuseCredentials: true, timeZone: 'UTC' },
      )
      if (!result.ok) throw new Error(result.message)
      return result.write
    }

    beforeEach(() => {
      dir = tempDir()
      db = Database.open({ dataDir: dir, driver, now: () => NOW })
      store = new FactStore(db)
      for (let i = 0; i < 30; i += 1)
        store.write(prepared({ subject: `service ${i}`, property: 'port', value: String(7000 + i) }), NOW)
      const originalAll = db.all.bind(db)
      explain = (sql, params) => originalAll(`EXPLAIN QUERY PLAN ${sql}`, ...params).map((row) => String(row['detail']))
      seen = []
      // Record the SQL the store sends through this (real) handle, so the plans checked are the ones it runs.
      const spied = db as unknown as Record<'run' | 'get' | 'all', (sql: string, ...params: SqlValue[]) => unknown>
      for (const method of ['run', 'get', 'all'] as const) {
        const original = spied[method].bind(db)
        spied[method] = (sql, ...params) => {
          seen.push({ sql, params })
          return original(sql, ...params)
        }
      }
    })
    afterEach(() => {
      db.close()
      removeDir(dir)
    })

    const statementLike = (pattern: RegExp): { sql: string; params: SqlValue[] } => {
      const found = seen.find((entry) => pattern.test(entry.sql))
      assert.ok(
        found,
        `no statement matching ${String(pattern)} among:\n${seen.map((entry) => entry.sql).join('\n---\n')}`,
      )
      return found
    }

    it('reads the directory through facts_directory_order without sorting', () => {
      store.directoryFacts(50, { includeSensitive: false })
      const { sql, params } = statementLike(/ORDER BY evidence_rank/u)
      const plan = explain(sql, params).join('\n')
      assert.match(plan, /USING (?:COVERING )?INDEX facts_directory_order/u)
      assert.doesNotMatch(plan, /TEMP B-TREE FOR ORDER BY/u)
    })

    it("looks up a slot's current rows through a slot index, not a table scan", () => {
      store.write(prepared({ value: '7802' }), NOW)
      const { sql, params } = statementLike(/WHERE slot_key = unhex\(\?\) AND status IN/u)
      const plan = explain(sql, params).join('\n')
      assert.match(plan, /USING (?:COVERING )?INDEX (?:facts_by_slot|facts_one_active_per_slot)/u)
      assert.doesNotMatch(plan, /SCAN facts(?! USING)/u)
    })

    it('reads the rows a write may restate through the slot index, never the scope index (every global fact shares one scope)', () => {
      store.write(prepared({ value: '7805', multi: true }), NOW)
      const { sql, params } = statementLike(/WHERE slot_key = unhex\(\?\) AND scope = \? AND status IN/u)
      const plan = explain(sql, params).join('\n')
      assert.match(plan, /USING (?:COVERING )?INDEX facts_by_slot/u)
      assert.doesNotMatch(plan, /facts_by_scope/u)
    })

    it('checks tombstones through their unique index', () => {
      store.write(prepared({ value: '7803' }), NOW)
      const { sql, params } = statementLike(/FROM tombstones/u)
      assert.match(explain(sql, params).join('\n'), /sqlite_autoindex_tombstones_1/u)
    })

    it('reads slot history through facts_by_slot', () => {
      const fact = store.write(prepared({ value: '7804' }), NOW)
      assert.ok(fact.kind === 'saved')
      store.slotHistory([fact.fact.slotKey])
      const { sql, params } = statementLike(/slot_key IN \(unhex\(\?\)\) AND status <> 'forgotten'/u)
      const plan = explain(sql, params).join('\n')
      assert.match(plan, /USING (?:COVERING )?INDEX facts_by_slot/u)
    })
  })

  describe(`crash safety (${driver})`, () => {
    it('keeps every committed fact and none of the in-flight transaction after SIGKILL', () => {
      const dir = tempDir()
      try {
        const child = spawnSync(
          process.execPath,
          ['--disable-warning=ExperimentalWarning', CRASH_WRITER, dir, driver, '12'],
          {
            encoding: 'utf8',
            timeout: 60_000,
          },
        )
        assert.equal(child.signal, 'SIGKILL', `the writer should die by SIGKILL; stderr:\n${child.stderr}`)
        const lines = child.stdout.trim().split('\n')
        assert.equal(lines.at(-1), 'killing')
        assert.ok(!lines.includes('still alive'))
        const committed = lines.filter((line) => line.startsWith('committed ')).map((line) => line.split(' '))
        assert.equal(committed.length, 12)
        assert.ok(
          existsSync(join(dir, 'memory.db-wal')) && statSync(join(dir, 'memory.db-wal')).size > 0,
          'the commits are still in the WAL, not checkpointed by a clean close',
        )

        const db = Database.open({ dataDir: dir, driver, now: () => '2026-03-02T00:00:00.000Z' })
        try {
          for (const [, id, value] of committed) {
            const row = db.get('SELECT value, status FROM facts WHERE id = ?', Number(id))
            assert.deepEqual(row === undefined ? undefined : { ...row }, { value, status: 'active' })
          }
          assert.equal(Number(db.get('SELECT count(*) AS n FROM facts')?.['n']), 12)
          assert.equal(db.get(`SELECT 1 AS x FROM entities WHERE entity_key = 'uncommitted'`), undefined)
          assert.equal(db.generation(), 12)
          assert.equal(String(db.get('PRAGMA integrity_check')?.['integrity_check']), 'ok')
          assert.equal(
            Number(db.get(`SELECT count(*) AS n FROM facts_fts WHERE facts_fts MATCH '"port" OR "端口"'`)?.['n']),
            12,
          )
        } finally {
          db.close()
        }
      } finally {
        removeDir(dir)
      }
    })
  })
}
