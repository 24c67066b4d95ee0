/**
 * The management verbs' logic on a real store, called in process through their schemas: the fence (stale,
 * replay, collision, no receipt for refusals), reversible edits and their undo, conflict resolution, the proposal
 * queue (re-checked apply, reject, revise, prune), the paged library, sessions, activity, wipe, rebuild and key.
 */
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { SPEC_VERBS, VERBS } from '../src/management/verbs.ts'
import type { Fact } from '../src/types.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'
import { ONE_DRIVER } from './helpers/store.ts'

const DAY = 86_400_000

for (const driver of ONE_DRIVER) {
  describe(`management verbs (${driver})`, () => {
    let v: VerbHarness
    beforeEach(() => {
      v = verbHarness(driver)
    })
    afterEach(() => v.dispose())

    const write = (subject: string, property: string, value: string, extra: Record<string, unknown> = {}): Fact => {
      const answer = v.h.memory.write(
        { subject, property, value, evidence: 'observed', origin: 'tool', ...extra },
        v.h.config,
      )
      if (answer.kind !== 'saved' && answer.kind !== 'conflict' && answer.kind !== 'duplicate')
        throw new Error(`write ${answer.kind}`)
      return answer.fact
    }
    const operations = (): number => Number(v.h.db().get('SELECT count(*) AS n FROM operations')?.['n'])

    describe('the fence', () => {
      it('refuses a stale generation with stale: true and the fresh generation, changing nothing', async () => {
        const fact = write('billing-api', 'port', '7801')
        const generation = v.generation()
        const outcome = await v.call('fact-expire', {
          id: fact.id,
          expectedGeneration: generation - 1,
          operationId: v.op(),
        })
        assert.equal(outcome.ok, false)
        assert.equal(!outcome.ok && outcome.code, 'stale')
        assert.deepEqual(!outcome.ok && outcome.details, { stale: true, generation })
        assert.equal(v.generation(), generation)
      })

      it('answers a double click with the first receipt, replayed, and moves the generation once', async () => {
        const fact = write('billing-api', 'port', '7801')
        const body = v.fence({ id: fact.id })
        const first = await v.ok('fact-expire', body)
        const generation = v.generation()
        assert.equal(first['replayed'], false)
        assert.equal(first['generation'], generation)
        const second = await v.ok('fact-expire', body)
        assert.equal(second['replayed'], true)
        assert.equal(second['editId'], first['editId'])
        assert.equal(v.generation(), generation)
      })

      it('refuses the same operation id with a different payload as a collision', async () => {
        const a = write('billing-api', 'port', '7801')
        const b = write('orders-api', 'port', '7802')
        const operationId = v.op()
        await v.ok('fact-expire', { id: a.id, expectedGeneration: v.generation(), operationId })
        const outcome = await v.call('fact-expire', { id: b.id, expectedGeneration: v.generation(), operationId })
        assert.equal(!outcome.ok && outcome.code, 'operation_collision')
      })

      it('keeps no receipt for a refused write, so an honest retry with the same id is not a replay', async () => {
        const fact = write('billing-api', 'port', '7801')
        const operationId = v.op()
        const before = operations()
        const refused = await v.call('fact-expire', { id: 99_999, expectedGeneration: v.generation(), operationId })
        assert.equal(!refused.ok && refused.code, 'not_found')
        assert.equal(operations(), before)
        const retried = await v.ok('fact-expire', { id: fact.id, expectedGeneration: v.generation(), operationId })
        assert.equal(retried['replayed'], false)
      })
    })

    describe('edits and their undo', () => {
      it("edits a value as the user's statement, keeps the old one as history, and undoes it exactly", async () => {
        const old = write('billing-api', 'port', '7801')
        const edited = await v.ok('fact-update', v.fence({ id: old.id, value: '7802' }))
        const next = edited['fact'] as { id: number; value: string; evidence: string; origin: string }
        assert.deepEqual([next.value, next.evidence, next.origin], ['7802', 'explicit_user', 'page'])
        const detail = await v.ok('fact', { id: next.id })
        const history = detail['history'] as { value: string; status: string }[]
        assert.deepEqual(
          history.map((row) => [row.value, row.status]),
          [
            ['7802', 'active'],
            ['7801', 'superseded'],
          ],
        )

        await v.ok('fact-restore', v.fence({ editId: edited['editId'] }))
        const restored = await v.ok('fact', { id: old.id })
        const rows = restored['history'] as { id: number; value: string; status: string; validTo: string | null }[]
        assert.deepEqual(
          rows.find((row) => row.id === old.id),
          { ...rows.find((row) => row.id === old.id), status: 'active', validTo: null },
        )
        assert.equal(rows.find((row) => row.id === next.id)?.status, 'retired')
        const again = await v.call('fact-restore', v.fence({ editId: edited['editId'] }))
        assert.equal(!again.ok && again.code, 'refused')
      })

      it('refuses to undo an edit once a later change moved the facts it touched', async () => {
        const old = write('billing-api', 'port', '7801')
        const edited = await v.ok('fact-update', v.fence({ id: old.id, value: '7802' }))
        const next = edited['fact'] as { id: number }
        await v.ok('fact-update', v.fence({ id: next.id, value: '7803' }))
        const outcome = await v.call('fact-restore', v.fence({ editId: edited['editId'] }))
        assert.equal(!outcome.ok && outcome.code, 'refused')
        assert.deepEqual(!outcome.ok && outcome.details, { movedFactIds: [next.id] })
      })

      it('refuses to undo an edit once a later contradiction contested the value it wrote', async () => {
        const old = write('billing-api', 'port', '7801')
        const edited = await v.ok('fact-update', v.fence({ id: old.id, value: '7802' }))
        const next = edited['fact'] as { id: number }
        assert.equal(write('billing-api', 'port', '7900').status, 'conflict')
        const outcome = await v.call('fact-restore', v.fence({ editId: edited['editId'] }))
        assert.equal(!outcome.ok && outcome.code, 'refused')
        assert.deepEqual(!outcome.ok && outcome.details, { movedFactIds: [next.id] })
        assert.equal(
          ((await v.ok('conflicts', {}))['groups'] as unknown[]).length,
          1,
          'the contest stands, with its current side',
        )
      })

      it('moves a fact to another subject and can move it back', async () => {
        const old = write('billing api', 'owner', 'team-a')
        const edited = await v.ok('fact-update', v.fence({ id: old.id, subject: 'payments-api' }))
        assert.equal((edited['fact'] as { subject: string }).subject, 'payments-api')
        const before = await v.ok('fact', { id: old.id })
        assert.equal((before['fact'] as { status: string }).status, 'superseded')
        await v.ok('fact-restore', v.fence({ editId: edited['editId'] }))
        const after = await v.ok('fact', { id: old.id })
        assert.equal((after['fact'] as { status: string }).status, 'active')
      })

      it('refuses an edit that turns a value into a credential, and changes nothing', async () => {
        const fact = write('openai', 'note', 'ask ops')
        const generation = v.generation()
        const outcome = await v.call('fact-update', v.fence({ id: fact.id, value: 'sk-live-4f9a8b7c6d5e4f3a2b1c0d9e' }))
        assert.equal(!outcome.ok && outcome.code, 'credential_refused')
        assert.equal(v.generation(), generation)
      })

      it('refuses an edit that states the same value', async () => {
        const fact = write('billing-api', 'port', '7801')
        const outcome = await v.call('fact-update', v.fence({ id: fact.id, value: '7801' }))
        assert.equal(!outcome.ok && outcome.code, 'refused')
      })

      it("edits only the end of a value's window on the same row, records the edit, and undoes it exactly", async () => {
        const fact = write('billing-api', 'port', '7801')
        const generation = v.generation()
        const edited = await v.ok('fact-update', v.fence({ id: fact.id, validTo: '2026-03-10' }))
        const view = edited['fact'] as {
          id: number
          value: string
          status: string
          validFrom: string
          validTo: string | null
          revision: number
        }
        assert.deepEqual(
          [view.id, view.value, view.status, view.validFrom, view.validTo],
          [fact.id, '7801', 'active', fact.validFrom, '2026-03-10T00:00:00.000Z'],
        )
        assert.ok(view.revision > fact.revision)
        assert.equal(v.generation(), generation + 1)
        const detail = await v.ok('fact', { id: fact.id })
        assert.deepEqual(
          (detail['edits'] as { id: number; kind: string }[]).map((edit) => [edit.id, edit.kind]),
          [[edited['editId'], 'update']],
        )

        await v.ok('fact-restore', v.fence({ editId: edited['editId'] }))
        const restored = (await v.ok('fact', { id: fact.id }))['fact'] as { status: string; validTo: string | null }
        assert.deepEqual([restored.status, restored.validTo], ['active', null])

        await v.ok('fact-update', v.fence({ id: fact.id, validTo: '2026-03-10' }))
        v.clock.advance(10 * DAY)
        v.h.memory.advance()
        assert.equal(
          ((await v.ok('fact', { id: fact.id }))['fact'] as { status: string }).status,
          'expired',
          'the new end took effect',
        )
      })

      it('ends a value at a past instant when the edited end has already passed, and undo brings it back', async () => {
        const fact = write('支付服务', '端口', '9911')
        v.clock.advance(4 * DAY)
        const edited = await v.ok('fact-update', v.fence({ id: fact.id, validTo: '2026-03-03' }))
        const view = edited['fact'] as { id: number; status: string; validTo: string | null }
        assert.deepEqual([view.id, view.status, view.validTo], [fact.id, 'expired', '2026-03-03T00:00:00.000Z'])
        assert.equal(
          v.h.memory.searchLexical({ query: '支付服务 端口', limit: 5, asOf: '2026-03-02' }, v.h.config).results[0]
            ?.values[0]?.value,
          '9911',
        )
        assert.equal(
          v.h.memory.searchLexical({ query: '支付服务 端口', limit: 5, asOf: '2026-03-04' }, v.h.config).outcome,
          'not_found',
        )
        await v.ok('fact-restore', v.fence({ editId: edited['editId'] }))
        const restored = (await v.ok('fact', { id: fact.id }))['fact'] as { status: string; validTo: string | null }
        assert.deepEqual([restored.status, restored.validTo], ['active', null])
      })

      it('moves the start of a scheduled value; a start that has come makes it current and ends the old value there', async () => {
        const old = write('billing-api', 'port', '7801', { evidence: 'explicit_user' })
        const next = write('billing-api', 'port', '7802', { evidence: 'explicit_user', validFrom: '2026-03-05' })
        assert.equal(next.status, 'scheduled')
        const later = await v.ok('fact-update', v.fence({ id: next.id, validFrom: '2026-03-08' }))
        assert.deepEqual(
          [(later['fact'] as Fact).status, (later['fact'] as Fact).validFrom],
          ['scheduled', '2026-03-08T00:00:00.000Z'],
        )

        v.clock.advance(2 * DAY)
        const sooner = await v.ok('fact-update', v.fence({ id: next.id, validFrom: '2026-03-02' }))
        assert.deepEqual([(sooner['fact'] as Fact).id, (sooner['fact'] as Fact).status], [next.id, 'active'])
        const ended = (await v.ok('fact', { id: old.id }))['fact'] as Fact
        assert.deepEqual(
          [ended.status, ended.validTo, ended.supersededBy],
          ['superseded', '2026-03-02T00:00:00.000Z', next.id],
        )

        await v.ok('fact-restore', v.fence({ editId: sooner['editId'] }))
        const back = (await v.ok('fact', { id: next.id }))['fact'] as Fact
        assert.deepEqual([back.status, back.validFrom], ['scheduled', '2026-03-08T00:00:00.000Z'])
        assert.deepEqual([((await v.ok('fact', { id: old.id }))['fact'] as Fact).status], ['active'])
      })

      it('never ends the old value before it began when a scheduled start moves to before it', async () => {
        const old = write('billing-api', 'port', '7801', { evidence: 'explicit_user' })
        const next = write('billing-api', 'port', '7802', { evidence: 'explicit_user', validFrom: '2026-03-05' })
        await v.ok('fact-update', v.fence({ id: next.id, validFrom: '2026-02-20' }))
        const ended = (await v.ok('fact', { id: old.id }))['fact'] as Fact
        assert.deepEqual([ended.status, ended.validTo], ['superseded', old.validFrom])
      })

      it('moves the start of a current value back, and the value it replaced now ends there', async () => {
        const old = write('billing-api', 'port', '7801')
        v.clock.advance(4 * DAY)
        const next = write('billing-api', 'port', '7802')
        const edited = await v.ok('fact-update', v.fence({ id: next.id, validFrom: '2026-03-03' }))
        assert.deepEqual(
          [(edited['fact'] as Fact).status, (edited['fact'] as Fact).validFrom],
          ['active', '2026-03-03T00:00:00.000Z'],
        )
        assert.equal(((await v.ok('fact', { id: old.id }))['fact'] as Fact).validTo, '2026-03-03T00:00:00.000Z')
        const asOf = v.h.memory.searchLexical({ query: 'billing-api port', limit: 5, asOf: '2026-03-04' }, v.h.config)
          .results[0]?.values
        assert.deepEqual(
          asOf?.map((value) => value.value),
          ['7802'],
          'one value held on the 4th',
        )
        await v.ok('fact-restore', v.fence({ editId: edited['editId'] }))
        assert.equal(((await v.ok('fact', { id: old.id }))['fact'] as Fact).validTo, next.validFrom)
      })

      it('refuses to move the start of a current value into the future, and changes nothing', async () => {
        const fact = write('billing-api', 'port', '7801')
        const generation = v.generation()
        const outcome = await v.call('fact-update', v.fence({ id: fact.id, validFrom: '2026-03-05' }))
        assert.equal(!outcome.ok && outcome.code, 'refused')
        assert.match(!outcome.ok ? outcome.message : '', /cannot move into the future/u)
        assert.equal(v.generation(), generation)
      })

      it('refuses a window edit that changes nothing or ends before it starts, and changes nothing', async () => {
        const fact = write('billing-api', 'port', '7801')
        const generation = v.generation()
        const same = await v.call('fact-update', v.fence({ id: fact.id, validFrom: fact.validFrom }))
        assert.equal(!same.ok && same.code, 'refused')
        const inverted = await v.call(
          'fact-update',
          v.fence({ id: fact.id, validFrom: '2026-03-05', validTo: '2026-03-04' }),
        )
        assert.equal(!inverted.ok && inverted.code, 'invalid_arguments')
        assert.equal(v.generation(), generation)
      })

      it('expires a fact now and undoes the expiry', async () => {
        const fact = write('支付服务', '端口', '9911')
        const expired = await v.ok('fact-expire', v.fence({ id: fact.id }))
        assert.equal((expired['fact'] as { status: string }).status, 'expired')
        assert.equal(
          v.h.memory.searchLexical({ query: '支付服务 端口', limit: 5, asOf: undefined }, v.h.config).results[0]
            ?.values[0]?.status,
          'expired',
        )
        await v.ok('fact-restore', v.fence({ editId: expired['editId'] }))
        const detail = await v.ok('fact', { id: fact.id })
        assert.deepEqual(
          [(detail['fact'] as { status: string }).status, (detail['fact'] as { validTo: unknown }).validTo],
          ['active', null],
        )
      })
    })

    describe('conflicts', () => {
      it('lists an open group with both sides and settles it on the side the user chose; undo reopens it', async () => {
        const stated = write('billing-api', 'port', '7801', { evidence: 'explicit_user' })
        const seen = write('billing-api', 'port', '7900')
        assert.equal(seen.status, 'conflict')
        const listed = await v.ok('conflicts', {})
        const groups = listed['groups'] as {
          id: number
          subject: string
          rows: { id: number; evidence: string; validFrom: string }[]
        }[]
        assert.equal(groups.length, 1)
        assert.deepEqual(
          groups[0]?.rows.map((row) => [row.id, row.evidence]),
          [
            [stated.id, 'explicit_user'],
            [seen.id, 'observed'],
          ],
        )
        const groupId = groups[0]?.id ?? 0

        const settled = await v.ok('resolve', v.fence({ groupId, keepFactId: seen.id }))
        assert.deepEqual(
          [(settled['kept'] as { status: string }).status, (settled['kept'] as { evidence: string }).evidence],
          ['active', 'confirmed_user'],
        )
        assert.deepEqual((await v.ok('conflicts', {}))['groups'], [])
        assert.equal(
          v.h.memory.searchLexical({ query: 'billing-api port', limit: 5, asOf: undefined }, v.h.config).outcome,
          'ok',
        )

        await v.ok('fact-restore', v.fence({ editId: settled['editId'] }))
        assert.equal(((await v.ok('conflicts', {}))['groups'] as unknown[]).length, 1)
        assert.equal(
          v.h.memory.searchLexical({ query: 'billing-api port', limit: 5, asOf: undefined }, v.h.config).outcome,
          'needs_selection',
        )
      })

      it('refuses to keep a fact that is not a side of the group', async () => {
        write('billing-api', 'port', '7801', { evidence: 'explicit_user' })
        write('billing-api', 'port', '7900')
        const other = write('orders-api', 'port', '7000')
        const groupId = ((await v.ok('conflicts', {}))['groups'] as { id: number }[])[0]?.id
        const outcome = await v.call('resolve', v.fence({ groupId, keepFactId: other.id }))
        assert.equal(!outcome.ok && outcome.code, 'refused')
      })
    })

    describe('proposals', () => {
      const propose = (value: string, extra: Record<string, unknown> = {}): number => {
        const answer = v.h.memory.write(
          {
            subject: 'user',
            property: 'time zone',
            value,
            evidence: 'observed',
            origin: 'tool',
            inferred: true,
            ...extra,
          },
          v.h.config,
        )
        if (answer.kind !== 'proposed') throw new Error(answer.kind)
        return answer.proposalId
      }
      const card = async (id: number) =>
        (
          (await v.ok('proposals', { status: 'all' }))['proposals'] as {
            id: number
            revision: number
            status: string
            rows: { value: string; stale: boolean }[]
          }[]
        ).find((entry) => entry.id === id)

      it('applies a card as confirmed_user and lets the undo put it back in the queue', async () => {
        const id = propose('Asia/Shanghai')
        const applied = await v.ok('proposal-apply', v.fence({ id, revision: 1 }))
        const factId = (applied['applied'] as { factId: number }[])[0]?.factId ?? 0
        const detail = await v.ok('fact', { id: factId })
        assert.deepEqual(
          [(detail['fact'] as { evidence: string }).evidence, (detail['fact'] as { origin: string }).origin],
          ['confirmed_user', 'proposal'],
        )
        assert.equal((await card(id))?.status, 'applied')
        await v.ok('fact-restore', v.fence({ editId: applied['editId'] }))
        assert.equal((await card(id))?.status, 'pending')
        assert.equal(((await v.ok('fact', { id: factId }))['fact'] as { status: string }).status, 'retired')
      })

      it('re-checks the targets: a slot that moved since the proposal makes the card stale instead of overwriting', async () => {
        write('user', 'time zone', 'Europe/Berlin', { evidence: 'explicit_user' })
        const id = propose('Asia/Shanghai')
        write('user', 'time zone', 'America/New_York', { evidence: 'explicit_user' })
        assert.equal((await card(id))?.rows[0]?.stale, true)
        const before = v.generation()
        const outcome = await v.call('proposal-apply', v.fence({ id, revision: 1 }))
        assert.equal(!outcome.ok && outcome.code, 'refused')
        assert.deepEqual(!outcome.ok && outcome.details?.['skippedStale'], [0])
        assert.equal((await card(id))?.status, 'stale')
        assert.equal(v.generation(), before + 1, 'only the stale mark was written')
        const current = v.h.memory.searchLexical({ query: 'user time zone', limit: 5, asOf: undefined }, v.h.config)
          .results[0]?.values[0]?.value
        assert.equal(current, 'America/New_York')
      })

      it('re-runs the privacy scan on apply, so a card cannot launder personal data into model recall', async () => {
        const answer = v.h.memory.write(
          {
            subject: 'user',
            property: 'contact',
            value: 'bob@example.com',
            evidence: 'observed',
            origin: 'tool',
            confidence: 0.3,
          },
          v.h.config,
        )
        assert.equal(answer.kind, 'proposed')
        const id = answer.kind === 'proposed' ? answer.proposalId : 0
        const applied = await v.ok('proposal-apply', v.fence({ id, revision: 1 }))
        const factId = (applied['applied'] as { factId: number }[])[0]?.factId ?? 0
        assert.equal(((await v.ok('fact', { id: factId }))['fact'] as { sensitivity: string }).sensitivity, 'email')
        assert.equal(
          v.h.memory.searchLexical({ query: 'bob@example.com', limit: 5, asOf: undefined }, v.h.config).outcome,
          'not_found',
        )
      })

      it('re-runs the privacy scan on apply with the quote beside the value, so a quoted password queued while credentials were allowed is refused once they are not', async () => {
        v.h.reconfigure({ refuseCredentials: false })
        const answer = v.h.memory.write(
          {
            subject: 'staging db',
            property: 'password',
            value: 'Tr0ub4dor&3',
            quote: 'the staging db password is Tr0ub4dor&3',
            evidence: 'observed',
            origin: 'tool',
            confidence: 0.3,
          },
          v.h.config,
        )
        assert.equal(answer.kind, 'proposed')
        const id = answer.kind === 'proposed' ? answer.proposalId : 0
        assert.equal(
          JSON.stringify(await card(id)).includes('Tr0ub4dor'),
          false,
          'the card shows neither the value nor the quote in clear',
        )
        v.h.reconfigure({ refuseCredentials: true })
        const outcome = await v.call('proposal-apply', v.fence({ id, revision: 1 }))
        assert.equal(!outcome.ok && outcome.code, 'refused')
        const skipped = (outcome.ok ? [] : (outcome.details?.['skippedRefused'] ?? [])) as { reason: string }[]
        assert.match(skipped[0]?.reason ?? '', /"password" names a secret/u)
        assert.equal(Number(v.h.db().get('SELECT count(*) AS n FROM facts')?.['n']), 0)
      })

      it('revises a row as a new revision, re-validated, and refuses a page holding the old revision', async () => {
        const id = propose('Asia/Shanghai')
        const revised = await v.ok('proposal-revise', v.fence({ id, revision: 1, value: 'Asia/Tokyo' }))
        assert.equal(revised['revision'], 2)
        assert.equal((await card(id))?.rows[0]?.value, 'Asia/Tokyo')
        const stale = await v.call('proposal-apply', v.fence({ id, revision: 1 }))
        assert.equal(!stale.ok && stale.code, 'stale')
        const secret = await v.call(
          'proposal-revise',
          v.fence({ id, revision: 2, value: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789' }),
        )
        assert.equal(!secret.ok && secret.code, 'credential_refused')
        await v.ok('proposal-apply', v.fence({ id, revision: 2 }))
      })

      it('rejects a card, and returns the same card when the same change is proposed again', async () => {
        const id = propose('Asia/Shanghai')
        assert.equal(propose('Asia/Shanghai'), id)
        await v.ok('proposal-reject', v.fence({ id, revision: 1 }))
        assert.equal((await card(id))?.status, 'rejected')
        const again = await v.call('proposal-reject', v.fence({ id, revision: 1 }))
        assert.equal(!again.ok && again.code, 'refused')
      })

      it('refuses a change the user rejected when it is proposed again, saying who rejected it and when', async () => {
        const id = propose('Asia/Shanghai')
        await v.ok('proposal-reject', v.fence({ id, revision: 1 }))
        const answer = v.h.memory.write(
          {
            subject: 'user',
            property: 'time zone',
            value: 'Asia/Shanghai',
            evidence: 'observed',
            origin: 'tool',
            inferred: true,
          },
          v.h.config,
        )
        assert.equal(answer.kind, 'refused')
        assert.equal(answer.kind === 'refused' && answer.code, 'refused')
        assert.match(
          answer.kind === 'refused' ? answer.message : '',
          new RegExp(`the user rejected this change on 2026-03-01 \\(proposal #${id}\\)`, 'u'),
        )
        assert.equal(Number(v.h.db().get('SELECT count(*) AS n FROM proposals')?.['n']), 1)
      })

      it('answers a change whose card was applied with the fact the card wrote', async () => {
        const id = propose('Asia/Shanghai')
        const applied = await v.ok('proposal-apply', v.fence({ id, revision: 1 }))
        const factId = (applied['applied'] as { factId: number }[])[0]?.factId
        const answer = v.h.memory.write(
          {
            subject: 'user',
            property: 'time zone',
            value: 'Asia/Shanghai',
            evidence: 'observed',
            origin: 'tool',
            inferred: true,
          },
          v.h.config,
        )
        assert.equal(answer.kind, 'duplicate')
        assert.deepEqual(answer.kind === 'duplicate' && [answer.fact.id, answer.fact.evidence, answer.upgraded], [
          factId,
          'confirmed_user',
          false,
        ])
        assert.equal(Number(v.h.db().get('SELECT count(*) AS n FROM proposals')?.['n']), 1)
      })

      it('gives a change whose card went stale a fresh card, proposed against the slot as it stands, that can be applied', async () => {
        write('user', 'time zone', 'Europe/Berlin', { evidence: 'explicit_user' })
        const id = propose('Asia/Shanghai')
        write('user', 'time zone', 'America/New_York', { evidence: 'explicit_user' })
        await v.call('proposal-apply', v.fence({ id, revision: 1 }))
        assert.equal((await card(id))?.status, 'stale')
        const fresh = propose('Asia/Shanghai')
        assert.notEqual(fresh, id)
        assert.deepEqual([(await card(fresh))?.status, (await card(fresh))?.rows[0]?.stale], ['pending', false])
        assert.equal(propose('Asia/Shanghai'), fresh, 'the fresh card is the one queued now')
        await v.ok('proposal-apply', v.fence({ id: fresh, revision: 1 }))
        assert.equal(
          v.h.memory.searchLexical({ query: 'user time zone', limit: 5, asOf: undefined }, v.h.config).results[0]
            ?.values[0]?.value,
          'Asia/Shanghai',
        )
      })

      it('gives a change a fresh card when the value its applied card wrote has since been replaced', async () => {
        const id = propose('Asia/Shanghai')
        await v.ok('proposal-apply', v.fence({ id, revision: 1 }))
        write('user', 'time zone', 'Europe/Berlin', { evidence: 'explicit_user' })
        const fresh = propose('Asia/Shanghai')
        assert.notEqual(fresh, id)
        assert.equal((await card(fresh))?.status, 'pending')
      })

      it('keeps one pending card per change when undoing an applied card whose change is queued again', async () => {
        const id = propose('Asia/Shanghai')
        write('user', 'time zone', 'Asia/Shanghai', { evidence: 'explicit_user' })
        const applied = await v.ok('proposal-apply', v.fence({ id, revision: 1 }))
        write('user', 'time zone', 'Europe/Berlin', { evidence: 'explicit_user' })
        const fresh = propose('Asia/Shanghai')
        await v.ok('fact-restore', v.fence({ editId: applied['editId'] }))
        const pending = ((await v.ok('proposals', {}))['proposals'] as { id: number }[]).map((entry) => entry.id)
        assert.deepEqual(pending, [fresh])
      })

      it('prunes one row of an aggregated card, and refuses to prune the last row', async () => {
        const id = propose('Asia/Shanghai')
        const rows = JSON.parse(
          String(v.h.db().get('SELECT rows FROM proposals WHERE id = ?', id)?.['rows']),
        ) as unknown[]
        v.h
          .db()
          .run(
            'UPDATE proposals SET rows = ? WHERE id = ?',
            JSON.stringify([...rows, { ...(rows[0] as object), value: 'Asia/Tokyo' }]),
            id,
          )
        const pruned = await v.ok('proposal-prune', v.fence({ id, revision: 1, row: 0 }))
        assert.equal(pruned['revision'], 2)
        assert.deepEqual(
          (await card(id))?.rows.map((row) => row.value),
          ['Asia/Tokyo'],
        )
        const last = await v.call('proposal-prune', v.fence({ id, revision: 2, row: 0 }))
        assert.equal(!last.ok && last.code, 'refused')
      })
    })

    describe('the library', () => {
      it('pages 100 facts at a time, newest first, with a cursor until the end', async () => {
        for (let i = 0; i < 230; i += 1) write(`service-${i}`, 'port', String(7000 + i))
        const first = await v.ok('facts', {})
        const second = await v.ok('facts', { cursor: first['nextCursor'] })
        const third = await v.ok('facts', { cursor: second['nextCursor'] })
        const ids = [first, second, third].flatMap((page) => (page['facts'] as { id: number }[]).map((fact) => fact.id))
        assert.deepEqual(
          [first, second, third].map((page) => (page['facts'] as unknown[]).length),
          [100, 100, 30],
        )
        assert.equal(third['nextCursor'], null)
        assert.equal(new Set(ids).size, 230)
        assert.deepEqual(
          ids,
          [...ids].sort((a, b) => b - a),
        )
      })

      it('filters by status, evidence, subject and text, in Chinese and English', async () => {
        write('billing-api', 'port', '7801')
        write('billing-api', 'port', '7802')
        write('支付服务', '负责人', '张三', { evidence: 'explicit_user' })
        write('orders-api', 'owner', 'team orders')
        const values = async (body: Record<string, unknown>) =>
          ((await v.ok('facts', body))['facts'] as { value: string }[]).map((fact) => fact.value)
        assert.deepEqual(await values({ status: 'history' }), ['7801'])
        assert.deepEqual(await values({ evidence: ['explicit_user'] }), ['张三'])
        assert.deepEqual(await values({ subject: 'Billing API' }), ['7802'])
        assert.deepEqual(await values({ text: '负责人' }), ['张三'])
        assert.deepEqual(await values({ text: 'team orders' }), ['team orders'])
        assert.deepEqual(await values({ text: 'nothing like this' }), [])
      })

      it('masks a credential everywhere the page reads it, and shows personal data to its owner', async () => {
        const memory = verbHarness(driver, { refuseCredentials: false })
        try {
          const answer = memory.h.memory.write(
            {
              subject: 'openai',
              property: 'api key',
              value: 'sk-live-4f9a8b7c6d5e4f3a2b1c0d9e',
              evidence: 'observed',
              origin: 'tool',
              quote: 'key sk-live-4f9a8b7c6d5e4f3a2b1c0d9e',
            },
            memory.h.config,
          )
          const email = memory.h.memory.write(
            { subject: 'user', property: 'email', value: 'a@example.com', evidence: 'observed', origin: 'tool' },
            memory.h.config,
          )
          const id = answer.kind === 'saved' ? answer.fact.id : 0
          const detail = await memory.ok('fact', { id })
          assert.doesNotMatch(JSON.stringify(detail), /sk-live/u)
          assert.doesNotMatch(JSON.stringify(await memory.ok('facts', {})), /sk-live/u)
          assert.equal(
            ((await memory.ok('fact', { id: email.kind === 'saved' ? email.fact.id : 0 }))['fact'] as { value: string })
              .value,
            'a@example.com',
          )
        } finally {
          memory.dispose()
        }
      })

      it('shows one subject with its facts grouped by property', async () => {
        write('DSH Fact Memory plugin', 'license', 'MIT')
        write('dsh-fact-memory', 'node version', '>= 22.19')
        const entity = await v.ok('entity', { subject: 'dsh fact memory' })
        assert.deepEqual((entity['properties'] as { property: string }[]).map((group) => group.property).sort(), [
          'license',
          'node version',
        ])
        const missing = await v.call('entity', { subject: 'nobody' })
        assert.equal(!missing.ok && missing.code, 'not_found')
      })

      it('counts per conversation and per turn what was written, pending and unsettled', async () => {
        const anchor = (turn: number) => ({ anchor: { sessionId: 'session-aaaaaaaa-1', turn } })
        write('billing-api', 'port', '7801', { evidence: 'explicit_user', ...anchor(1) })
        write('billing-api', 'owner', 'team-a', anchor(1))
        write('billing-api', 'port', '7900', anchor(2))
        v.h.memory.write(
          {
            subject: 'user',
            property: 'mood',
            value: 'tired',
            evidence: 'observed',
            origin: 'tool',
            inferred: true,
            ...anchor(2),
          },
          v.h.config,
        )
        const answer = await v.ok('sessions', { sessionIds: ['session-aaaaaaaa-1'] })
        assert.deepEqual(answer['sessions'], [
          {
            sessionId: 'session-aaaaaaaa-1',
            facts: 3,
            pending: 1,
            unsettled: 1,
            lastAt: v.clock.iso(),
            turns: [
              { turn: 1, facts: 2, pending: 0, unsettled: 0, factIds: [1, 2], recalled: 0, recalledIds: [] },
              { turn: 2, facts: 1, pending: 1, unsettled: 1, factIds: [3], recalled: 0, recalledIds: [] },
            ],
            extractingTurns: [],
            paused: false,
          },
        ])
      })

      it('answers the same nebula while the store is unchanged, and re-reads it after any write', async () => {
        write('billing-api', 'owner', 'team payments')
        write('team payments', 'lead', 'Ana')
        const first = await v.ok('graph', {})
        assert.deepEqual(await v.ok('graph', {}), first)
        const edges = (payload: Record<string, unknown>) =>
          (payload['edges'] as { label: string }[]).map((edge) => edge.label).sort()
        assert.deepEqual(edges(first), ['lead', 'owner'])
        write('billing-api', 'port', '7801')
        const second = await v.ok('graph', {})
        assert.ok(Number(second['generation']) > Number(first['generation']))
        assert.deepEqual(edges(second), ['lead', 'owner', 'port'])
        // Editing through the page is a write too: the expired fact's edge is gone from the next answer.
        const port = (second['edges'] as { label: string; factIds: number[] }[]).find((edge) => edge.label === 'port')
        await v.ok('fact-expire', v.fence({ id: port?.factIds[0] }))
        assert.deepEqual(edges(await v.ok('graph', {})), ['lead', 'owner'])
        assert.deepEqual(edges(await v.ok('graph', { scope: 'all' })), ['lead', 'owner'])
      })

      it("lists the facts one conversation recorded, whatever their status, and no other conversation's", async () => {
        const anchor = (sessionId: string, turn: number) => ({ anchor: { sessionId, turn } })
        write('billing-api', 'port', '7801', { evidence: 'explicit_user', ...anchor('session-aaaaaaaa-1', 1) })
        write('billing-api', 'port', '7802', { evidence: 'explicit_user', ...anchor('session-aaaaaaaa-1', 2) })
        write('orders-api', 'port', '7000', anchor('session-bbbbbbbb-2', 1))
        write('staging', 'host', 'db-2')
        const own = await v.ok('facts', { session: 'session-aaaaaaaa-1', status: 'all' })
        assert.deepEqual(
          (own['facts'] as { value: string; status: string; turn: number }[]).map((fact) => [
            fact.value,
            fact.status,
            fact.turn,
          ]),
          [
            ['7802', 'active', 2],
            ['7801', 'superseded', 1],
          ],
        )
        const current = await v.ok('facts', { session: 'session-aaaaaaaa-1' })
        assert.deepEqual(
          (current['facts'] as { value: string }[]).map((fact) => fact.value),
          ['7802'],
        )
        const paged = await v.ok('facts', { session: 'session-aaaaaaaa-1', status: 'all', limit: 1 })
        assert.equal(paged['nextCursor'], String((paged['facts'] as { id: number }[])[0]?.id))
        const none = await v.ok('facts', { session: 'session-nobody' })
        assert.deepEqual(none['facts'], [])
      })

      it('digests what arrived since the queue was last marked as seen', async () => {
        write('billing-api', 'port', '7801', { evidence: 'explicit_user' })
        await v.ok('review-seen', {})
        v.clock.advance(DAY)
        write('billing-api', 'port', '7900')
        write('orders-api', 'port', '7000')
        const activity = await v.ok('activity', {})
        assert.deepEqual([activity['facts'], activity['conflicts'], activity['openConflictGroups']], [2, 1, 1])
      })

      it('marks the queue as seen without moving the generation, so a page holding the old one can still edit', async () => {
        const fact = write('billing-api', 'port', '7801')
        const generation = v.generation()
        const seen = await v.ok('review-seen', {})
        assert.equal(seen['generation'], generation)
        assert.equal(v.generation(), generation)
        assert.equal((await v.ok('status', {}))['reviewSeenAt'], seen['seenAt'])
        const expired = await v.ok('fact-expire', { id: fact.id, expectedGeneration: generation, operationId: v.op() })
        assert.equal(expired['replayed'], false)
        assert.equal(v.generation(), generation + 1)
      })
    })

    describe('maintenance', () => {
      it('wipes only after a confirmation bound to the generation, backs up first, and keeps tombstones', async () => {
        const kept = write('staging', 'host', 'db-2')
        write('billing-api', 'port', '7801')
        v.h.memory.forgetById(kept.id)
        const first = await v.call('wipe', v.fence())
        assert.equal(!first.ok && first.code, 'confirm_required')
        const token = !first.ok ? first.details?.['confirmToken'] : undefined
        assert.equal(typeof token, 'string')
        const wrong = await v.call('wipe', v.fence({ confirmToken: 'not-the-token' }))
        assert.equal(!wrong.ok && wrong.code, 'confirm_required')
        const done = await v.ok('wipe', v.fence({ confirmToken: token }))
        const backup = done['backup'] as { path: string }
        assert.ok(existsSync(backup.path))
        assert.equal(((await v.ok('facts', { status: 'all' }))['facts'] as unknown[]).length, 0)
        assert.equal(
          v.h.memory.write(
            { subject: 'staging', property: 'host', value: 'db-2', evidence: 'observed', origin: 'tool' },
            v.h.config,
          ).kind,
          'refused',
        )
        const status = await v.ok('status', {})
        assert.deepEqual(status['lastBackup'], { at: (done['backup'] as { at: string }).at, path: backup.path })
      })

      it('refuses a confirmation once the store has moved on', async () => {
        write('billing-api', 'port', '7801')
        const first = await v.call('wipe', v.fence())
        const token = !first.ok ? first.details?.['confirmToken'] : undefined
        write('orders-api', 'port', '7000')
        const late = await v.call('wipe', v.fence({ confirmToken: token }))
        assert.equal(!late.ok && late.code, 'confirm_required')
        assert.equal(((await v.ok('facts', {}))['facts'] as unknown[]).length, 2)
      })

      it('rebuilds the full-text index from the facts', async () => {
        write('billing-api', 'port', '7801')
        v.h.db().run('DELETE FROM facts_fts')
        v.h.db().run('DELETE FROM fact_identifiers')
        assert.equal(
          v.h.memory.searchLexical({ query: 'billing port 7801', limit: 5, asOf: undefined }, v.h.config).outcome,
          'not_found',
        )
        const rebuilt = await v.ok('rebuild', v.fence())
        assert.equal(rebuilt['indexed'], 1)
        assert.equal(
          v.h.memory.searchLexical({ query: 'billing port 7801', limit: 5, asOf: undefined }, v.h.config).outcome,
          'ok',
        )
      })

      it('stores a key under the configured credential name and never returns it', async () => {
        const answer = await v.ok('key', { ref: 'embedding', value: 'sk-embed-123456' })
        assert.equal(v.credentials.get('FACT_MEMORY_EMBEDDING_KEY'), 'sk-embed-123456')
        assert.doesNotMatch(JSON.stringify(answer), /sk-embed/u)
        assert.equal(answer['configured'], true)
      })

      it('answers index-vectors and calibrate with unavailable while no embedding or rerank channel is configured', async () => {
        for (const name of ['index-vectors', 'calibrate']) {
          const outcome = await v.call(name, {})
          assert.equal(!outcome.ok && outcome.code, 'unavailable', name)
          assert.match(!outcome.ok ? outcome.message : '', /Source|configured/u, name)
        }
      })

      it('reports the driver, data dir and counts, a summary for the badge, and runs maintenance on force', async () => {
        write('billing-api', 'port', '7801', { evidence: 'explicit_user' })
        write('billing-api', 'port', '7900')
        v.h.memory.write(
          { subject: 'user', property: 'mood', value: 'tired', evidence: 'observed', origin: 'tool', inferred: true },
          v.h.config,
        )
        const status = await v.ok('status', {})
        assert.equal(status['driver'], driver)
        assert.equal(status['dataDir'], v.h.config.resolvedDataDir)
        assert.equal(status['badge'], 2)
        const summary = await v.ok('status', { summary: true })
        assert.deepEqual(summary, {
          available: true,
          generation: v.generation(),
          badge: 2,
          pendingProposals: 1,
          openConflictGroups: 1,
          autoCapture: false,
          autoExtract: false,
          recall: true,
          timeZone: v.h.config.displayTimeZone,
        })
        assert.deepEqual(status['recall'], {
          on: true,
          budgetChars: 1200,
          maxFacts: 8,
          minScore: 0.4,
          timeoutMs: 600,
          recent: { turns: 0, withBlock: 0, factsPerTurn: 0, charsPerTurn: 0, p95Ms: 0, lastAt: null },
        })
        write('release', 'version', '2.0', { validFrom: '2026-03-02' })
        v.clock.advance(DAY)
        const forced = await v.ok('status', { force: true })
        assert.deepEqual((forced['maintenance'] as { advanced: unknown }).advanced, { promoted: 1, expired: 0 })
      })
    })
  })
}

describe('the verb table', () => {
  it('has every verb the specification names, and nothing else', () => {
    assert.deepEqual(Object.keys(VERBS).sort(), [...SPEC_VERBS].sort())
  })
})
