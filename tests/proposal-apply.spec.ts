/**
 * Applying the cards that change stored facts, on a real store with both drivers: each kind's own apply at the store
 * (merge, retire, fold, alias under the slot rules), and through the real verbs: per-row application with stale rows
 * skipped as skippedStale, refusal when nothing lands, proposal-prune before accepting, and the undo through
 * fact-restore, which puts every row, source, index entry and conflict group back and the card back in the queue.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { keysUnder } from '../src/fact-input.ts'
import type { Database } from '../src/store/database.ts'
import type { StoreSet } from '../src/store/store-set.ts'
import type { Fact, FactRef } from '../src/types.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { count, DRIVERS, openMemory, writeFact, type MemoryHandle, type PartialFact } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'
import { indexedTerms } from './helpers/fts-terms.ts'

const HOUR = 3_600_000
const FRAGMENT = [
  'fragmentPort',
  'fragmentOwner',
  'fragmentTier',
  'region',
  'onCall',
  'onCallRival',
  'oldLanguage',
  'language',
]
const ref = (fact: Fact): FactRef => ({ factId: fact.id, revision: fact.revision })

/** Everything an apply may change and its undo must put back. */
function snapshot(db: Database): Record<string, unknown[]> {
  return {
    facts: db.all(`SELECT id, entity_id, subject, slot_key, claim_key, status, evidence, multi, valid_from, valid_to,
      superseded_by, conflict_group_id FROM facts ORDER BY id`),
    sources: db.all('SELECT id, fact_id FROM fact_sources ORDER BY id'),
    fts: [...indexedTerms(db.path)],
    identifiers: db.all('SELECT ident, fact_id FROM fact_identifiers ORDER BY fact_id, ident'),
    groups: db.all('SELECT id, slot_key, status, closed_at, settled_by FROM conflict_groups ORDER BY id'),
  }
}

/** The alias library: billing-api and the fragment "billing", which spells the same service (with a contest of its own). */
function seedAlias(write: (partial: PartialFact) => Fact, advance: () => void): Record<string, Fact> {
  const seeded: Record<string, Fact> = {}
  seeded['port'] = write({ subject: 'billing-api', property: 'port', value: '7801' })
  seeded['owner'] = write({
    subject: 'billing-api',
    property: 'owner',
    value: 'team payments',
    evidence: 'explicit_user',
  })
  seeded['tier'] = write({ subject: 'billing-api', property: 'tier', value: 'gold' })
  advance()
  seeded['fragmentPort'] = write({
    subject: 'billing',
    property: 'port',
    value: '7801',
    evidence: 'explicit_user',
    quote: 'billing runs on 7801',
  })
  seeded['fragmentOwner'] = write({ subject: 'billing', property: 'owner', value: 'team billing' })
  seeded['fragmentTier'] = write({ subject: 'billing', property: 'tier', value: 'platinum', evidence: 'explicit_user' })
  seeded['region'] = write({ subject: 'billing', property: 'region', value: 'eu-west' })
  seeded['onCall'] = write({ subject: 'billing', property: 'on call', value: 'alice', evidence: 'explicit_user' })
  seeded['onCallRival'] = write({ subject: 'billing', property: 'on call', value: 'bob' })
  seeded['oldLanguage'] = write({ subject: 'billing', property: 'language', value: 'Go' })
  advance()
  seeded['language'] = write({ subject: 'billing', property: 'language', value: 'Rust' })
  return seeded
}

for (const driver of DRIVERS) {
  describe(`each review kind's own apply, at the store (${driver})`, () => {
    let h: MemoryHandle
    let stores: StoreSet
    beforeEach(() => {
      h = openMemory(driver, new FakeClock('2026-03-01T09:00:00.000Z'))
      const opened = h.memory.storeSet()
      if (!('stores' in opened)) throw new Error('store not open')
      stores = opened.stores
    })
    afterEach(() => h.dispose())
    const write = (partial: PartialFact): Fact => writeFact(h.memory, h.config, partial)
    const fact = (id: number): Fact => {
      const [found] = stores.facts.getFacts([id])
      if (found === undefined) throw new Error(`no fact ${id}`)
      return found
    }
    const sources = (id: number): number =>
      count(h.db(), 'SELECT count(*) AS n FROM fact_sources WHERE fact_id = ?', id)

    it('merges a near-duplicate: the loser is superseded by the keeper, its sources move to it, and the keeper takes the stronger evidence', () => {
      const keeper = write({ subject: 'billing-api', property: 'port', value: '7801' })
      const loser = write({
        subject: 'billing-api',
        property: 'listening port',
        value: '7801',
        evidence: 'explicit_user',
        quote: 'it listens on 7801',
      })
      write({ subject: 'billing-api', property: 'listening port', value: '7801', quote: 'listening on 7801' })
      const merged = stores.facts.curation.applyMerge(
        { keeper: ref(keeper), loser: ref(fact(loser.id)) },
        h.clock.iso(),
      )
      assert.ok(merged.ok)
      assert.deepEqual(merged.value, { keeperId: keeper.id, loserId: loser.id, sourcesMoved: 2 })
      assert.deepEqual(
        [fact(loser.id).status, fact(loser.id).supersededBy, fact(loser.id).validTo],
        ['superseded', keeper.id, h.clock.iso()],
      )
      assert.deepEqual(
        [fact(keeper.id).status, fact(keeper.id).evidence, sources(keeper.id), sources(loser.id)],
        ['active', 'explicit_user', 3, 0],
      )
    })

    it('refuses to merge into a keeper that only starts later, and to merge a fact that is no longer current', () => {
      const keeper = write({ subject: 'svc', property: 'port', value: '1', validFrom: '2026-04-01' })
      const loser = write({ subject: 'svc', property: 'port number', value: '1' })
      const later = stores.facts.curation.applyMerge({ keeper: ref(keeper), loser: ref(loser) }, h.clock.iso())
      assert.match(later.ok ? '' : later.reason, /only starts on 2026-04-01/u)
      stores.facts.expireFact(loser.id, h.clock.iso())
      const gone = stores.facts.curation.applyMerge({ keeper: ref(keeper), loser: ref(fact(loser.id)) }, h.clock.iso())
      assert.equal(gone.ok ? '' : gone.reason, `#${loser.id} is no longer current`)
    })

    it('retires a fact that only restates its property, and a contest it leaves with nothing to settle closes', () => {
      const value = write({
        subject: 'deploy job',
        property: 'error',
        value: 'failed with an error message',
        evidence: 'explicit_user',
      })
      const rival = write({ subject: 'deploy job', property: 'error', value: 'has an error' })
      assert.equal(rival.status, 'conflict')
      const retired = stores.facts.curation.applyRetire({ fact: ref(rival) }, h.clock.iso())
      assert.ok(retired.ok)
      assert.deepEqual([fact(rival.id).status, fact(rival.id).validTo], ['retired', h.clock.iso()])
      assert.equal(count(h.db(), `SELECT count(*) AS n FROM conflict_groups WHERE status = 'open'`), 0)
      assert.equal(fact(value.id).status, 'active')
    })

    it('folds a pipeline into its newest run: the runs are superseded by it, their sources move to it, and the result says how many it absorbed', () => {
      const runs = ['01', '02', '03', '04'].map((day) => {
        h.clock.advance(HOUR)
        return write({ subject: 'nightly report', property: `2026-02-${day} result`, value: 'ok' })
      })
      const survivor = runs.at(-1)
      assert.ok(survivor !== undefined)
      const folded = stores.facts.curation.applyFold(
        { survivor: ref(survivor), runs: runs.slice(0, 3).map(ref) },
        h.clock.iso(),
      )
      assert.ok(folded.ok)
      assert.deepEqual(folded.value, { survivorId: survivor.id, absorbed: 3 })
      assert.deepEqual(
        runs.slice(0, 3).map((run) => [fact(run.id).status, fact(run.id).supersededBy]),
        runs.slice(0, 3).map(() => ['superseded', survivor.id]),
      )
      assert.deepEqual([fact(survivor.id).status, sources(survivor.id)], ['active', 4])
      assert.deepEqual(
        [fact(survivor.id).foldedCount, fact(survivor.id).foldedFrom],
        [3, ['ok', 'ok', 'ok']],
        'the survivor reads "seen 4 times", as a write-time fold would',
      )
    })

    it('aliases a fragment into its canonical entity: every fact moves, keyed anew as a write would key it, under the slot rules', () => {
      const seeded = seedAlias(write, () => h.clock.advance(HOUR))
      const fragment = FRAGMENT.map((name) => fact(seeded[name]?.id ?? 0))
      const aliased = stores.facts.curation.applyAlias(
        { fragment: 'billing', canonical: 'billing api', facts: fragment.map(ref) },
        keysUnder,
        h.clock.iso(),
      )
      assert.ok(aliased.ok, aliased.ok ? '' : aliased.reason)
      assert.deepEqual(aliased.value, {
        fragment: 'billing',
        canonical: 'billing api',
        moved: 8,
        merged: 1,
        contested: 4,
      })
      const now = (name: string): Fact => fact(seeded[name]?.id ?? 0)
      for (const name of FRAGMENT) {
        assert.deepEqual([now(name).entityKey, now(name).subject], ['billing api', 'billing-api'], name)
      }
      // The same claim is one fact: the canonical row keeps it, with the fragment's evidence and sources.
      assert.deepEqual(
        [now('fragmentPort').status, now('fragmentPort').supersededBy],
        ['superseded', seeded['port']?.id],
      )
      assert.deepEqual(
        [now('port').status, now('port').evidence, sources(now('port').id)],
        ['active', 'explicit_user', 2],
      )
      // A later, weaker value is contested beside the user's; a later, stronger one replaces the earlier.
      assert.deepEqual([now('owner').status, now('fragmentOwner').status], ['active', 'conflict'])
      assert.equal(now('owner').conflictGroupId, now('fragmentOwner').conflictGroupId)
      assert.deepEqual(
        [now('tier').status, now('tier').supersededBy, now('fragmentTier').status],
        ['superseded', seeded['fragmentTier']?.id, 'active'],
      )
      // History moves too, and the moved facts are found and written under the canonical name.
      assert.deepEqual([now('oldLanguage').status, now('language').status], ['superseded', 'active'])
      assert.equal(now('region').slotKey, keysUnder(now('region'), 'billing-api').slotKey)
      const again = h.memory.write(
        { subject: 'Billing API', property: 'region', value: 'eu-west', evidence: 'observed', origin: 'tool' },
        h.config,
      )
      assert.deepEqual([again.kind, again.kind === 'duplicate' && again.fact.id], ['duplicate', seeded['region']?.id])
      const found = h.memory.searchLexical({ query: 'billing-api region', limit: 5, asOf: undefined }, h.config)
      assert.equal(found.results[0]?.values[0]?.value, 'eu-west')
      assert.equal(
        count(
          h.db(),
          `SELECT count(*) AS n FROM facts f JOIN entities e ON e.id = f.entity_id WHERE e.entity_key = 'billing'`,
        ),
        0,
      )
      assert.equal(
        h.memory.searchLexical({ query: 'billing-api owner', limit: 5, asOf: undefined }, h.config).outcome,
        'needs_selection',
      )
      // The fragment's own contest moves with it and can be settled under the canonical name.
      const groups = stores.library
        .openConflicts()
        .map((group) => group.rows.map((row) => `${row.subject} · ${row.property}: ${row.value}`).sort())
      assert.deepEqual(groups.sort(), [
        ['billing-api · on call: alice', 'billing-api · on call: bob'],
        ['billing-api · owner: team billing', 'billing-api · owner: team payments'],
      ])
    })

    it('aliases a Chinese fragment into its canonical name', () => {
      write({ subject: '支付网关', property: '端口', value: '9000' })
      const moved = write({ subject: '支付', property: '负责人', value: '支付团队' })
      const aliased = stores.facts.curation.applyAlias(
        { fragment: '支付', canonical: '支付网关', facts: [ref(moved)] },
        keysUnder,
        h.clock.iso(),
      )
      assert.ok(aliased.ok)
      assert.deepEqual([fact(moved.id).subject, fact(moved.id).entityKey], ['支付网关', '支付网关'])
      assert.equal(
        h.memory.searchLexical({ query: '支付网关 负责人', limit: 5, asOf: undefined }, h.config).results[0]?.values[0]
          ?.value,
        '支付团队',
      )
    })

    it('refuses an alias, moving nothing, when a moved fact would restate a claim the user forgot under the canonical name', () => {
      const forgotten = write({ subject: 'billing-api', property: 'colour', value: 'red' })
      h.memory.forgetById(forgotten.id)
      const fragment = write({ subject: 'billing', property: 'colour', value: 'red' })
      const before = snapshot(h.db())
      const aliased = stores.facts.curation.applyAlias(
        { fragment: 'billing', canonical: 'billing api', facts: [ref(fragment)] },
        keysUnder,
        h.clock.iso(),
      )
      assert.match(
        aliased.ok ? '' : aliased.reason,
        new RegExp(`#${fragment.id} would restate a claim the user forgot`, 'u'),
      )
      assert.deepEqual(snapshot(h.db()), before)
    })

    it('says a row is stale once a fact it names changed, and an alias row once its fragment gained a fact', () => {
      const keeper = write({ subject: 'svc', property: 'port', value: '1' })
      const loser = write({ subject: 'svc', property: 'port number', value: '1' })
      const merge = { keeper: ref(keeper), loser: ref(loser) }
      assert.equal(stores.facts.curation.stands('merge', merge), true)
      stores.facts.reviseWindow(loser.id, '2026-02-01T00:00:00.000Z', null, h.clock.iso())
      assert.equal(stores.facts.curation.stands('merge', merge), false)
      const moved = write({ subject: 'svc-x', property: 'colour', value: 'red' })
      const alias = { fragment: 'svc x', canonical: 'svc', facts: [ref(moved)] }
      assert.equal(stores.facts.curation.stands('alias', alias), true)
      write({ subject: 'svc-x', property: 'size', value: 'large' })
      assert.equal(stores.facts.curation.stands('alias', alias), false)
    })
  })

  describe(`review cards through the verbs (${driver})`, () => {
    let v: VerbHarness
    beforeEach(() => {
      v = verbHarness(driver)
    })
    afterEach(() => v.dispose())
    const stores = (): StoreSet => {
      const opened = v.h.memory.storeSet()
      if (!('stores' in opened)) throw new Error('store not open')
      return opened.stores
    }
    const write = (partial: PartialFact): Fact => writeFact(v.h.memory, v.h.config, partial)
    const status = async (id: number): Promise<string> =>
      ((await v.ok('fact', { id }))['fact'] as { status: string }).status
    const cardStatus = (id: number): string | undefined => stores().proposals.get(id)?.status
    /** Apply, check the answer, undo through fact-restore, and check the store is as it was and the card pending again. */
    const applyAndUndo = async (id: number): Promise<Record<string, unknown>> => {
      const before = snapshot(v.h.db())
      const applied = await v.ok('proposal-apply', v.fence({ id, revision: 1 }))
      assert.equal(cardStatus(id), 'applied')
      assert.notDeepEqual(snapshot(v.h.db()), before)
      await v.ok('fact-restore', v.fence({ editId: applied['editId'] }))
      const after = snapshot(v.h.db())
      const opened = new Set((before['groups'] as { id: number }[]).map((group) => group.id))
      assert.deepEqual(
        { ...after, groups: (after['groups'] as { id: number }[]).filter((group) => opened.has(group.id)) },
        before,
      )
      assert.deepEqual(
        (after['groups'] as { id: number; status: string }[])
          .filter((group) => !opened.has(group.id))
          .map((group) => group.status),
        (after['groups'] as { id: number }[]).filter((group) => !opened.has(group.id)).map(() => 'closed'),
        'a group the apply opened is closed again',
      )
      assert.equal(cardStatus(id), 'pending')
      return applied
    }

    it('applies a merge card per row: a row whose fact changed since is skipped as skippedStale and the rest lands', async () => {
      const pairs = ['a', 'b'].map((name) => ({
        keeper: ref(write({ subject: `svc-${name}`, property: 'port', value: '1' })),
        loser: ref(write({ subject: `svc-${name}`, property: 'port number', value: '1' })),
      }))
      const id = stores().proposals.proposeMerges(pairs, v.clock.iso()).cards[0]?.id ?? 0
      await v.ok('fact-update', v.fence({ id: pairs[1]?.loser.factId, validFrom: '2026-02-01' }))
      assert.deepEqual(
        ((await v.ok('proposals', {}))['proposals'] as { rows: { stale: boolean }[] }[])[0]?.rows.map(
          (row) => row.stale,
        ),
        [false, true],
      )
      const applied = await v.ok('proposal-apply', v.fence({ id, revision: 1 }))
      assert.deepEqual(applied['skippedStale'], [1])
      assert.deepEqual(applied['applied'], [
        { row: 0, keeperId: pairs[0]?.keeper.factId, loserId: pairs[0]?.loser.factId, sourcesMoved: 1 },
      ])
      assert.deepEqual(
        [await status(pairs[0]?.loser.factId ?? 0), await status(pairs[1]?.loser.factId ?? 0)],
        ['superseded', 'active'],
      )
      assert.equal(cardStatus(id), 'applied')
    })

    it('applies a retire, a fold and an alias card per row too, skipping the row whose facts changed since', async () => {
      const retired = ['a', 'b'].map((name) =>
        write({ subject: `job-${name}`, property: 'status', value: 'has a status' }),
      )
      const pipelines = ['a', 'b'].map((name) => ({
        run: write({ subject: `report-${name}`, property: '2026-02-01 result', value: 'ok' }),
        survivor: write({ subject: `report-${name}`, property: '2026-02-02 result', value: 'ok' }),
      }))
      const fragments = ['a', 'b'].map((name) => write({ subject: `svc ${name}`, property: 'colour', value: 'red' }))
      for (const name of ['a', 'b']) write({ subject: `svc-${name}-api`, property: 'port', value: '1' })
      const now = v.clock.iso()
      const cards = {
        retire:
          stores().proposals.proposeRetires(
            retired.map((one) => ({ fact: ref(one) })),
            now,
          ).cards[0]?.id ?? 0,
        fold:
          stores().proposals.proposeFolds(
            pipelines.map((pipeline) => ({ survivor: ref(pipeline.survivor), runs: [ref(pipeline.run)] })),
            now,
          ).cards[0]?.id ?? 0,
        alias:
          stores().proposals.proposeAliases(
            fragments.map((one, at) => ({
              fragment: one.entityKey,
              canonical: `svc ${['a', 'b'][at]} api`,
              facts: [ref(one)],
            })),
            now,
          ).cards[0]?.id ?? 0,
      }
      await v.ok('fact-update', v.fence({ id: retired[1]?.id, validFrom: '2026-02-01' }))
      await v.ok('fact-update', v.fence({ id: pipelines[1]?.run.id, validFrom: '2026-02-01' }))
      write({ subject: 'svc b', property: 'size', value: 'large' })
      for (const [kind, id] of Object.entries(cards)) {
        const applied = await v.ok('proposal-apply', v.fence({ id, revision: 1 }))
        assert.deepEqual(
          [(applied['applied'] as { row: number }[]).map((row) => row.row), applied['skippedStale']],
          [[0], [1]],
          kind,
        )
      }
      assert.deepEqual([await status(retired[0]?.id ?? 0), await status(retired[1]?.id ?? 0)], ['retired', 'active'])
      assert.deepEqual(
        [await status(pipelines[0]?.run.id ?? 0), await status(pipelines[1]?.run.id ?? 0)],
        ['superseded', 'active'],
      )
      const subjects = stores()
        .facts.getFacts(fragments.map((one) => one.id))
        .map((one) => one.subject)
      assert.deepEqual(subjects, ['svc-a-api', 'svc b'])
    })

    it('refuses a card that lands nothing, marks it stale when every row was, and changes no fact', async () => {
      const facts = ['a', 'b'].map((name) =>
        write({ subject: `job-${name}`, property: 'status', value: 'has a status' }),
      )
      const id =
        stores().proposals.proposeRetires(
          facts.map((one) => ({ fact: ref(one) })),
          v.clock.iso(),
        ).cards[0]?.id ?? 0
      for (const one of facts) await v.ok('fact-update', v.fence({ id: one.id, validFrom: '2026-02-01' }))
      const before = snapshot(v.h.db())
      const refused = await v.call('proposal-apply', v.fence({ id, revision: 1 }))
      assert.equal(!refused.ok && refused.code, 'refused')
      assert.deepEqual(!refused.ok && refused.details?.['skippedStale'], [0, 1])
      assert.deepEqual(snapshot(v.h.db()), before)
      assert.equal(cardStatus(id), 'stale')
    })

    it("refuses a card as stale once a write turned its fact's slot multi-valued", async () => {
      const keeper = write({ subject: 'svc', property: 'port', value: '1' })
      const loser = write({ subject: 'svc', property: 'port number', value: '1' })
      const id =
        stores().proposals.proposeMerges([{ keeper: ref(keeper), loser: ref(loser) }], v.clock.iso()).cards[0]?.id ?? 0
      write({ subject: 'svc', property: 'port', value: '2', multi: true })
      assert.equal(stores().facts.getFacts([keeper.id])[0]?.multi, true, 'the write turned the slot multi-valued')
      const refused = await v.call('proposal-apply', v.fence({ id, revision: 1 }))
      assert.equal(!refused.ok && refused.code, 'refused')
      assert.deepEqual(!refused.ok && refused.details?.['skippedStale'], [0])
      assert.equal(cardStatus(id), 'stale')
    })

    it("refuses a card as stale once an alias turned its fact's slot multi-valued", async () => {
      const canonical = write({ subject: 'svc-api', property: 'language', value: 'Go' })
      const fragment = write({ subject: 'svc', property: 'language', value: 'Rust', multi: true })
      const now = v.clock.iso()
      const retire = stores().proposals.proposeRetires([{ fact: ref(canonical) }], now).cards[0]?.id ?? 0
      const alias =
        stores().proposals.proposeAliases(
          [{ fragment: fragment.entityKey, canonical: canonical.entityKey, facts: [ref(fragment)] }],
          now,
        ).cards[0]?.id ?? 0
      await v.ok('proposal-apply', v.fence({ id: alias, revision: 1 }))
      assert.equal(stores().facts.getFacts([canonical.id])[0]?.multi, true, 'the alias turned the slot multi-valued')
      const refused = await v.call('proposal-apply', v.fence({ id: retire, revision: 1 }))
      assert.equal(!refused.ok && refused.code, 'refused')
      assert.deepEqual(!refused.ok && refused.details?.['skippedStale'], [0])
      assert.equal(cardStatus(retire), 'stale')
    })

    it('refuses a card whose every row the store refuses, names why, and keeps it pending', async () => {
      const forgotten = write({ subject: 'billing-api', property: 'colour', value: 'red' })
      v.h.memory.forgetById(forgotten.id)
      const fragment = write({ subject: 'billing', property: 'colour', value: 'red' })
      const id =
        stores().proposals.proposeAliases(
          [{ fragment: 'billing', canonical: 'billing api', facts: [ref(fragment)] }],
          v.clock.iso(),
        ).cards[0]?.id ?? 0
      const refused = await v.call('proposal-apply', v.fence({ id, revision: 1 }))
      assert.equal(!refused.ok && refused.code, 'refused')
      const why = (refused.ok ? [] : (refused.details?.['skippedRefused'] ?? [])) as { row: number; reason: string }[]
      assert.match(why[0]?.reason ?? '', /would restate a claim the user forgot/u)
      assert.equal(cardStatus(id), 'pending')
    })

    it('undoes a merge exactly: the loser is current again with its own sources, and the card is back in the queue and applies again', async () => {
      const keeper = write({ subject: 'svc', property: 'port', value: '1' })
      const loser = write({ subject: 'svc', property: 'port number', value: '1', evidence: 'explicit_user' })
      const id =
        stores().proposals.proposeMerges([{ keeper: ref(keeper), loser: ref(loser) }], v.clock.iso()).cards[0]?.id ?? 0
      await applyAndUndo(id)
      const again = await v.ok('proposal-apply', v.fence({ id, revision: 1 }))
      assert.deepEqual(again['skippedStale'], [])
      assert.equal(await status(loser.id), 'superseded')
    })

    it('undoes a retire exactly, reopening the contest it had closed', async () => {
      write({
        subject: 'deploy job',
        property: 'error',
        value: 'failed with an error message',
        evidence: 'explicit_user',
      })
      const rival = write({ subject: 'deploy job', property: 'error', value: 'has an error' })
      const id = stores().proposals.proposeRetires([{ fact: ref(rival) }], v.clock.iso()).cards[0]?.id ?? 0
      await applyAndUndo(id)
      assert.equal(await status(rival.id), 'conflict')
    })

    it('undoes a fold exactly and reports the runs the survivor absorbed', async () => {
      const runs = ['01', '02', '03'].map((day) =>
        write({ subject: 'nightly report', property: `2026-02-${day} result`, value: 'ok' }),
      )
      const [first, second, survivor] = runs
      assert.ok(first !== undefined && second !== undefined && survivor !== undefined)
      const id =
        stores().proposals.proposeFolds([{ survivor: ref(survivor), runs: [ref(first), ref(second)] }], v.clock.iso())
          .cards[0]?.id ?? 0
      const applied = await applyAndUndo(id)
      assert.deepEqual(applied['applied'], [{ row: 0, survivorId: survivor.id, absorbed: 2 }])
    })

    it('undoes an alias exactly: every fact, source, index entry and conflict group is back under the fragment', async () => {
      const seeded = seedAlias(write, () => v.clock.advance(HOUR))
      const facts = stores().facts.getFacts(FRAGMENT.map((name) => seeded[name]?.id ?? 0))
      const id =
        stores().proposals.proposeAliases(
          [{ fragment: 'billing', canonical: 'billing api', facts: facts.map(ref) }],
          v.clock.iso(),
        ).cards[0]?.id ?? 0
      const applied = await applyAndUndo(id)
      assert.deepEqual(applied['applied'], [
        { row: 0, fragment: 'billing', canonical: 'billing api', moved: 8, merged: 1, contested: 4 },
      ])
      assert.equal(
        v.h.memory.searchLexical({ query: 'billing region', limit: 5, asOf: undefined }, v.h.config).results[0]
          ?.values[0]?.value,
        'eu-west',
      )
    })

    it('refuses to undo an applied card once a fact it touched has changed since', async () => {
      const keeper = write({ subject: 'svc', property: 'port', value: '1' })
      const loser = write({ subject: 'svc', property: 'port number', value: '1', evidence: 'explicit_user' })
      const id =
        stores().proposals.proposeMerges([{ keeper: ref(keeper), loser: ref(loser) }], v.clock.iso()).cards[0]?.id ?? 0
      const applied = await v.ok('proposal-apply', v.fence({ id, revision: 1 }))
      await v.ok('fact-update', v.fence({ id: keeper.id, value: '2' }))
      const undo = await v.call('fact-restore', v.fence({ editId: applied['editId'] }))
      assert.equal(!undo.ok && undo.code, 'refused')
      assert.equal(cardStatus(id), 'applied')
    })

    it('applies what is left of a card after one row was struck with proposal-prune', async () => {
      const facts = ['a', 'b', 'c'].map((name) =>
        write({ subject: `job-${name}`, property: 'status', value: 'has a status' }),
      )
      const id =
        stores().proposals.proposeRetires(
          facts.map((one) => ({ fact: ref(one) })),
          v.clock.iso(),
        ).cards[0]?.id ?? 0
      await v.ok('proposal-prune', v.fence({ id, revision: 1, row: 1 }))
      const applied = await v.ok('proposal-apply', v.fence({ id, revision: 2 }))
      assert.deepEqual(
        (applied['applied'] as { factId: number }[]).map((row) => row.factId),
        [facts[0]?.id, facts[2]?.id],
      )
      assert.deepEqual(await Promise.all(facts.map((one) => status(one.id))), ['retired', 'active', 'retired'])
    })

    it('follows a merge chain inside one card and undoes it with every source back where it began', async () => {
      const a = write({ subject: 'svc', property: 'port', value: '1' })
      const b = write({ subject: 'svc', property: 'port no', value: '1' })
      const c = write({ subject: 'svc', property: 'port number', value: '1' })
      const id =
        stores().proposals.proposeMerges(
          [
            { keeper: ref(b), loser: ref(a) },
            { keeper: ref(c), loser: ref(b) },
          ],
          v.clock.iso(),
        ).cards[0]?.id ?? 0
      const applied = await applyAndUndo(id)
      assert.deepEqual(
        (applied['applied'] as { row: number }[]).map((row) => row.row),
        [0, 1],
      )
    })
  })
}
