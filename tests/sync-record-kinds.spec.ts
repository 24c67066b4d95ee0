/**
 * Every kind of change is appended to the sync log (store/sync-recorder.ts), both drivers, through the real verbs and
 * store paths with sync on: a settled conflict (`settle`), an expiry and the merge, retire and fold cards
 * (`supersede`), subject and property renames and merges and the alias card (`alias`), an alias removed (`unalias`), a
 * display-only rename (`display`), an import's tombstones of claims never held here (`tombstone`), a move (`move`),
 * an import with past values (`write`, `put_back`, `pin`), and undo (`restore` naming the operations it takes back;
 * for an edit made before sync was on, what the undo does). Each record is valid, stamped with this device's clock
 * and what it has seen, appended in the change's own transaction (a change rolled back leaves none), and
 * `mergeRecords(ownLog)` gives back the store's own library: current values, aliases and tombstones. Turning sync on
 * writes its snapshot in slices that a crash resumes without writing anything twice.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { keysUnder } from '../src/fact-input.ts'
import { projectKeyOfScope } from '../src/project/project-ref.ts'
import type { StoreSet } from '../src/store/store-set.ts'
import { parseChangeRecord } from '../src/sync/change-record.schema.ts'
import type { ChangeRecord } from '../src/sync/change-record.ts'
import { mergeRecords } from '../src/sync/merge.ts'
import { canonicalEntity, canonicalQualifiers, canonicalValue } from '../src/text/normalize.ts'
import type { Fact } from '../src/types.ts'
import { DRIVERS, expectKind, write, writeFact } from './helpers/store.ts'
import { storesOf } from './helpers/vectors.ts'
import { exportOfForgotten, importContent, verbHarness, type VerbHarness } from './helpers/verbs.ts'

const BILLING = { key: '/home/ada/src/billing-api', name: 'billing-api' }

for (const driver of DRIVERS) {
  describe(`every kind of change is recorded for sync (${driver})`, () => {
    let v: VerbHarness
    let stores: StoreSet
    beforeEach(async () => {
      v = verbHarness(driver)
      stores = storesOf(v.h.memory)
      await stores.sync.enableSync(v.clock.iso())
    })
    afterEach(() => v.dispose())

    const fact = (partial: Parameters<typeof writeFact>[2]): Fact => writeFact(v.h.memory, v.h.config, partial)
    const current = (id: number): Fact => {
      const [row] = stores.facts.getFacts([id])
      if (row === undefined) throw new Error(`no fact ${id}`)
      return row
    }
    const ownCount = (): number => Number(v.h.db().get('SELECT count(*) AS n FROM sync_own_records')?.['n'])
    /** Run a change; the records it appended, each valid, of this device, stamped after the last and with `seen`. */
    const appended = async (change: () => unknown): Promise<ChangeRecord[]> => {
      const before = stores.sync.ownLog()
      v.clock.advance(1000)
      await change()
      const added = stores.sync.ownLog().slice(before.length)
      const last = before.at(-1)?.hlc ?? ''
      for (const record of added) {
        const parsed = parseChangeRecord(JSON.parse(JSON.stringify(record)))
        assert.ok(parsed.ok, JSON.stringify(parsed))
        assert.equal(record.device, stores.sync.device().id)
        assert.ok(record.hlc > last, 'clocks only rise')
        assert.ok(record.hlc.startsWith(String(Date.parse(v.clock.iso()))), record.hlc)
        assert.deepEqual(record.seen, {})
      }
      return added
    }
    /** The store's library and the library its own log merges to: current values, aliases and tombstones. */
    const assertLogMergesToStore = (): void => {
      const merged = mergeRecords(stores.sync.ownLog())
      const ids = v.h
        .db()
        .all("SELECT id FROM facts WHERE status IN ('active', 'conflict') ORDER BY id")
        .map((row) => Number(row['id']))
      const slotText = (entity: string, predicate: string, qualifiers: string, project: string | null): string =>
        `${entity}|${predicate}|${qualifiers}|${project ?? ''}`
      const fromStore = stores.facts
        .getFacts(ids)
        .map(
          (row) =>
            `${slotText(row.entityKey, row.predicateKey, canonicalQualifiers(row.qualifiers), projectKeyOfScope(row.scope))}|${canonicalValue(row.value)}|${row.status}|${row.pinnedAt ?? ''}`,
        )
        .sort()
      const fromMerge = merged.slots
        .flatMap((entry) =>
          entry.current.map(
            (value) =>
              `${slotText(entry.slot.entity, entry.slot.predicate, entry.slot.qualifiers, entry.slot.project)}|${value.value}|${value.status}|${value.pinnedAt ?? ''}`,
          ),
        )
        .sort()
      assert.deepEqual(fromMerge, fromStore)
      const aliases = v.h
        .db()
        .all('SELECT kind, entity_key, alias_key, canonical_key FROM aliases ORDER BY id')
        .map(
          (row) =>
            `${String(row['kind'])}|${String(row['entity_key'])}|${String(row['alias_key'])}|${String(row['canonical_key'])}`,
        )
        .sort()
      assert.deepEqual(
        merged.aliases.map((alias) => `${alias.aliasKind}|${alias.entity ?? ''}|${alias.from}|${alias.to}`).sort(),
        aliases,
      )
      const tombstones = v.h
        .db()
        .all('SELECT kind, key FROM tombstones')
        .map((row) => `${String(row['kind'])}:${String(row['key'])}`)
        .sort()
      assert.deepEqual(merged.storeTombstones.map((key) => `${key.kind}:${key.key}`).sort(), tombstones)
    }
    /** A change inside a transaction that then fails leaves no record. */
    const assertRolledBackLeavesNone = (change: () => unknown): void => {
      const before = ownCount()
      assert.throws(
        () =>
          stores.db.transaction(() => {
            change()
            throw new Error('disk full')
          }),
        /disk full/u,
      )
      assert.equal(ownCount(), before)
    }
    const contested = (): { kept: Fact; rival: Fact; groupId: number } => {
      const rival = fact({ subject: 'shop-web', property: 'owner', value: 'payments team', evidence: 'explicit_user' })
      const answer = expectKind(
        write(v.h.memory, v.h.config, { subject: 'shop-web', property: 'owner', value: 'growth team' }),
        'conflict',
      )
      const kept = current(answer.fact.id)
      assert.ok(kept.conflictGroupId !== null)
      return { kept, rival: current(rival.id), groupId: kept.conflictGroupId }
    }

    it('a conflict settled on the page appends one settle that keeps the value and ends its rival', async () => {
      const { kept, rival, groupId } = contested()
      assertRolledBackLeavesNone(() => stores.facts.resolveGroup(groupId, kept.id, v.clock.iso()))
      const [record, ...more] = await appended(() => v.ok('resolve', v.fence({ groupId, keepFactId: kept.id })))
      assert.deepEqual(more, [])
      assert.ok(record?.kind === 'settle', JSON.stringify(record))
      assert.deepEqual(record.slot, { entity: 'shop web', predicate: 'owner', qualifiers: '{}', project: null })
      assert.equal(record.keep, 'growth team')
      assert.deepEqual(record.ends, [{ value: canonicalValue(rival.value), as: 'superseded' }])
      assertLogMergesToStore()
    })

    it('an expiry and the merge, retire and fold cards each append one supersede', async () => {
      const port = fact({ subject: 'billing-api', property: 'port', value: '7801' })
      assertRolledBackLeavesNone(() => stores.facts.expireFact(port.id, v.clock.iso()))
      const [expired] = await appended(() => v.ok('fact-expire', v.fence({ id: port.id })))
      assert.ok(expired?.kind === 'supersede')
      assert.deepEqual(expired.ends, [{ value: '7801', as: 'expired' }])
      assert.equal(expired.by, null)

      const keeper = fact({ subject: 'languages', property: 'spoken', value: 'English', multi: true })
      const loser = fact({
        subject: 'languages',
        property: 'spoken',
        value: 'english language',
        multi: true,
        evidence: 'explicit_user',
      })
      const ref = (row: Fact) => ({ factId: row.id, revision: current(row.id).revision })
      const mergeRow = { keeper: ref(keeper), loser: ref(loser) }
      assertRolledBackLeavesNone(() => stores.facts.curation.applyMerge(mergeRow, v.clock.iso()))
      const [merged, ...moreMerged] = await appended(() => stores.facts.curation.applyMerge(mergeRow, v.clock.iso()))
      assert.deepEqual(moreMerged, [])
      // The keeper took the loser's stronger evidence: one write of it, ending the loser.
      assert.ok(merged?.kind === 'write', JSON.stringify(merged))
      assert.equal(merged.value, 'english')
      assert.equal(merged.row.evidence, 'explicit_user')
      assert.deepEqual(merged.ends, [{ value: 'english language', as: 'superseded' }])

      const tool = fact({ subject: 'linter', property: 'tool', value: 'eslint' })
      const [retired] = await appended(() => stores.facts.curation.applyRetire({ fact: ref(tool) }, v.clock.iso()))
      assert.ok(retired?.kind === 'supersede')
      assert.deepEqual(retired.ends, [{ value: 'eslint', as: 'retired' }])

      const runs = ['nightly 11-24 passed', 'nightly 11-25 passed'].map((value) =>
        fact({ subject: 'backup-runner', property: 'last run', value, multi: true }),
      )
      const survivor = fact({
        subject: 'backup-runner',
        property: 'last run',
        value: 'nightly 11-26 passed',
        multi: true,
      })
      const folded = await appended(() =>
        stores.facts.curation.applyFold({ survivor: ref(survivor), runs: runs.map(ref) }, v.clock.iso()),
      )
      assert.deepEqual(
        folded.map((record) => (record.kind === 'supersede' ? [record.ends, record.by] : record.kind)),
        [
          [[{ value: 'nightly 11-24 passed', as: 'folded' }], 'nightly 11-26 passed'],
          [[{ value: 'nightly 11-25 passed', as: 'folded' }], 'nightly 11-26 passed'],
        ],
      )
      assertLogMergesToStore()
    })

    it('renames and merges of subjects and properties, and the alias card, each append their alias', async () => {
      const port = fact({ subject: 'billing-api', property: 'port', value: '7801', evidence: 'explicit_user' })
      const otherPort = fact({ subject: 'payments', property: 'port', value: '7802', evidence: 'explicit_user' })
      fact({ subject: 'payments', property: 'owner', value: 'ops', evidence: 'explicit_user' })
      assertRolledBackLeavesNone(() =>
        stores.facts.renames.renameSubject('billing api', 'billing-backend', keysUnder, v.clock.iso()),
      )
      const [renamed, ...moreRenamed] = await appended(() =>
        v.ok('subject-rename', v.fence({ entityKey: 'billing api', to: 'billing-backend' })),
      )
      assert.deepEqual(moreRenamed, [])
      assert.ok(renamed?.kind === 'alias', JSON.stringify(renamed))
      assert.deepEqual(
        [renamed.aliasKind, renamed.entity, renamed.from, renamed.to, renamed.display],
        ['entity', null, 'billing api', canonicalEntity('billing-backend'), 'billing-backend'],
      )
      assertLogMergesToStore()

      // A merge into a subject that holds another port: an alias, and the two ports stand as one conflict.
      // The old alias (billing api) is repointed too, so no chain is stored.
      const mergedInto = await appended(() =>
        v.ok('subject-rename', v.fence({ entityKey: canonicalEntity('billing-backend'), to: 'payments' })),
      )
      assert.deepEqual(
        mergedInto.map((record) => (record.kind === 'alias' ? [record.from, record.to] : record.kind)),
        [
          ['billing api', 'payments'],
          [canonicalEntity('billing-backend'), 'payments'],
        ],
      )
      const ports = [current(port.id).status, current(otherPort.id).status].sort()
      assert.deepEqual(ports, ['active', 'conflict'])
      assertLogMergesToStore()

      const [property] = await appended(() =>
        v.ok('property-rename', v.fence({ entityKey: 'payments', property: 'owner', to: 'team' })),
      )
      assert.ok(property?.kind === 'alias')
      assert.deepEqual(
        [property.aliasKind, property.entity, property.from, property.to],
        ['predicate', 'payments', 'owner', 'team'],
      )
      assertLogMergesToStore()

      fact({ subject: 'shop web', property: 'url', value: 'https://shop.example' })
      const fragment = fact({ subject: 'shopweb', property: 'owner', value: 'growth' })
      const row = {
        fragment: 'shopweb',
        canonical: 'shop web',
        facts: [{ factId: fragment.id, revision: current(fragment.id).revision }],
      }
      const [card] = await appended(() => stores.facts.curation.applyAlias(row, keysUnder, v.clock.iso()))
      assert.ok(card?.kind === 'alias')
      assert.deepEqual([card.from, card.to], ['shopweb', 'shop web'])
      assertLogMergesToStore()
    })

    it('an alias removed, a display-only rename and an import’s bare tombstones each append their record', async () => {
      fact({ subject: 'billing-api', property: 'port', value: '7801', evidence: 'explicit_user' })
      await v.ok('subject-rename', v.fence({ entityKey: 'billing api', to: 'billing-backend' }))
      const [alias] = stores.facts.renames.aliasesOf(canonicalEntity('billing-backend'))
      assert.ok(alias !== undefined)
      const [removed, ...moreRemoved] = await appended(() => v.ok('alias-remove', v.fence({ id: alias.id })))
      assert.deepEqual(moreRemoved, [])
      assert.ok(removed?.kind === 'unalias', JSON.stringify(removed))
      assert.deepEqual(
        [removed.aliasKind, removed.entity, removed.from, removed.to],
        ['entity', null, 'billing api', canonicalEntity('billing-backend')],
      )
      assertLogMergesToStore()

      const [shown] = await appended(() =>
        v.ok('subject-rename', v.fence({ entityKey: canonicalEntity('billing-backend'), to: 'Billing-Backend' })),
      )
      assert.ok(shown?.kind === 'display', JSON.stringify(shown))
      assert.deepEqual(
        [shown.nameKind, shown.entity, shown.predicate, shown.display, shown.before],
        ['entity', canonicalEntity('billing-backend'), null, 'Billing-Backend', 'billing-backend'],
      )
      const [property] = await appended(() =>
        v.ok(
          'property-rename',
          v.fence({ entityKey: canonicalEntity('billing-backend'), property: 'port', to: 'Port' }),
        ),
      )
      assert.ok(property?.kind === 'display', JSON.stringify(property))
      assert.deepEqual([property.nameKind, property.predicate, property.display], ['predicate', 'port', 'Port'])

      const content = await exportOfForgotten(driver, { subject: 'shell', property: 'preferred', value: 'zsh' })
      const records = await appended(() => importContent(v, content))
      const bare = records.filter((record) => record.kind === 'tombstone')
      assert.equal(bare.length, 1, JSON.stringify(records.map((record) => record.kind)))
      assert.ok(bare[0]?.kind === 'tombstone')
      assert.deepEqual(bare[0].tombstones.map((key) => key.kind).sort(), ['claim', 'evidence'])
      assertLogMergesToStore()
    })

    it('tombstones an import kept before sync was on go into the snapshot as bare keys', async () => {
      stores.sync.disableSync()
      v.h.db().run('DELETE FROM sync_own_records')
      await importContent(v, await exportOfForgotten(driver, { subject: 'shell', property: 'preferred', value: 'zsh' }))
      await stores.sync.enableSync(v.clock.iso())
      const bare = stores.sync.ownLog().filter((record) => record.kind === 'tombstone')
      assert.equal(bare.length, 1, JSON.stringify(stores.sync.ownLog().map((record) => record.kind)))
      assertLogMergesToStore()
    })

    it('a move to a project appends one move naming both slots and the row as moved', async () => {
      const tool = fact({ subject: 'linter', property: 'tool', value: 'eslint', evidence: 'explicit_user' })
      fact({ subject: 'builder', property: 'tool', value: 'make', project: BILLING })
      const scope = `project:${BILLING.key}`
      assertRolledBackLeavesNone(() =>
        stores.facts.scopes.moveToScope(
          tool.id,
          { scope, project: BILLING },
          (row, to) => keysUnder({ ...row, scope: to }, row.subject),
          v.clock.iso(),
        ),
      )
      const [moved, ...more] = await appended(() => v.ok('fact-move', v.fence({ id: tool.id, scope })))
      assert.deepEqual(more, [])
      assert.ok(moved?.kind === 'move', JSON.stringify(moved))
      assert.equal(moved.slot.project, null)
      assert.deepEqual(moved.to, { entity: 'linter', predicate: 'tool', qualifiers: '{}', project: BILLING.key })
      assert.equal(moved.value, 'eslint')
      assert.equal(moved.row.scope, scope)
      assertLogMergesToStore()
    })

    it('an undo appends one restore naming the operations of the edit it takes back', async () => {
      const { kept, groupId } = contested()
      const settled = await v.ok('resolve', v.fence({ groupId, keepFactId: kept.id }))
      const [settle] = stores.sync.ownLog().slice(-1)
      const [undo, ...more] = await appended(() => v.ok('fact-restore', v.fence({ editId: settled['editId'] })))
      assert.deepEqual(more, [])
      assert.ok(undo?.kind === 'restore', JSON.stringify(undo))
      assert.deepEqual(undo.undoes, [settle?.op])
      assertLogMergesToStore()

      const renamed = await v.ok('subject-rename', v.fence({ entityKey: 'shop web', to: 'storefront' }))
      const [alias] = stores.sync.ownLog().slice(-1)
      const [undoRename] = await appended(() => v.ok('fact-restore', v.fence({ editId: renamed['editId'] })))
      assert.ok(undoRename?.kind === 'restore')
      assert.deepEqual(undoRename.undoes, [alias?.op])

      const gone = fact({ subject: 'editor', property: 'preferred', value: 'vim', quote: 'I use vim' })
      const forgot = await v.ok('fact-forget', v.fence({ id: gone.id }))
      const [forget] = stores.sync.ownLog().slice(-1)
      assert.equal(forget?.kind, 'forget')
      const [undoForget] = await appended(() => v.ok('fact-restore', v.fence({ editId: forgot['editId'] })))
      assert.ok(undoForget?.kind === 'restore')
      assert.deepEqual(undoForget.undoes, [forget?.op])
      assertLogMergesToStore()
      assertRolledBackLeavesNone(() => {
        const edit = stores.edits.tracked('expire', [current(gone.id).slotKey], {}, v.clock.iso(), () => ({
          result: stores.facts.expireFact(gone.id, v.clock.iso()),
          created: [],
        }))
        stores.edits.restore(edit.editId, v.clock.iso())
      })
    })

    it('an import appends a write per current value, a put_back per past value and its pins', async () => {
      fact({ subject: 'billing-api', property: 'port', value: '7801', evidence: 'explicit_user' })
      const port = fact({ subject: 'billing-api', property: 'port', value: '7802', evidence: 'explicit_user' })
      stores.pins.setPin(port.id, v.clock.iso())
      fact({ subject: 'shop-web', property: 'owner', value: 'payments team' })
      const exported = await v.ok('export', { backup: false })
      const content = readFileSync(String(exported['path']), 'utf8')
      const first = await v.call('wipe', v.fence())
      assert.ok(!first.ok && first.code === 'confirm_required')
      await v.ok('wipe', { ...v.fence(), confirmToken: (first.details as { confirmToken: string }).confirmToken })
      stores.sync.disableSync()
      v.h.db().run('DELETE FROM sync_own_records')
      await stores.sync.enableSync(v.clock.iso())
      assert.equal(ownCount(), 0)

      const records = await appended(() => importContent(v, content))
      assert.deepEqual(records.map((record) => record.kind).sort(), ['pin', 'put_back', 'write', 'write'])
      const putBack = records.find((record) => record.kind === 'put_back')
      assert.ok(putBack?.kind === 'put_back')
      assert.deepEqual([putBack.value, putBack.status], ['7801', 'superseded'])
      const written = records.find((record) => record.kind === 'write' && record.value === '7802')
      assert.ok(written?.kind === 'write')
      assert.equal(written.row.observedAt, port.observedAt, 'the record carries the row as imported')
      assertLogMergesToStore()
      assert.deepEqual(
        mergeRecords(stores.sync.ownLog()).slots.flatMap((slot) => slot.history.map((entry) => entry.value)),
        ['7801'],
      )
    })

    it('an undo of an edit made before sync was on records what it does to the library', async () => {
      stores.sync.disableSync()
      const old = fact({ subject: 'billing-api', property: 'port', value: '7801', evidence: 'explicit_user' })
      const edited = await v.ok('fact-update', v.fence({ id: old.id, value: '7802' }))
      const gone = fact({ subject: 'editor', property: 'preferred', value: 'vim' })
      const forgot = await v.ok('fact-forget', v.fence({ id: gone.id }))
      v.h.db().run('DELETE FROM sync_own_records')
      await stores.sync.enableSync(v.clock.iso())
      const [restated, ...more] = await appended(() => v.ok('fact-restore', v.fence({ editId: edited['editId'] })))
      assert.deepEqual(more, [])
      assert.ok(restated?.kind === 'write', JSON.stringify(restated))
      assert.deepEqual([restated.value, restated.ends], ['7801', [{ value: '7802', as: 'retired' }]])
      const snapshotForget = stores.sync.ownLog().find((record) => record.kind === 'forget')
      const back = await appended(() => v.ok('fact-restore', v.fence({ editId: forgot['editId'] })))
      assert.deepEqual(
        back.map((record) => (record.kind === 'restore' ? record.undoes : record.kind)),
        [[snapshotForget?.op], 'write'],
      )
      assertLogMergesToStore()
    })

    it('turning sync on writes its snapshot in slices, and a crash resumes it without writing anything twice', async () => {
      stores.sync.disableSync()
      v.h.db().run('DELETE FROM sync_own_records')
      for (let i = 0; i < 1200; i += 1) fact({ subject: `service ${i}`, property: 'port', value: String(7000 + i) })
      fact({ subject: 'shopweb', property: 'owner', value: 'growth' })
      await v.ok('subject-rename', v.fence({ entityKey: 'shopweb', to: 'shop web' }))
      let slices = 0
      // A crash after the second slice: the pause throws, the slices before it stay committed.
      await assert.rejects(
        stores.sync.enableSync(v.clock.iso(), async () => {
          slices += 1
          if (slices === 2) throw new Error('killed')
        }),
        /killed/u,
      )
      assert.equal(stores.sync.snapshotPending(), true)
      const partial = ownCount()
      assert.ok(partial > 0 && partial < 1202, String(partial))
      // Meanwhile a live change to a row the snapshot has not reached is recorded once, live.
      const late = stores.facts.getFacts([
        Number(v.h.db().get("SELECT max(id) AS n FROM facts WHERE status = 'active'")?.['n']),
      ])[0]
      assert.ok(late !== undefined)
      stores.pins.setPin(late.id, v.clock.iso())
      const resumed = await stores.sync.enableSync(v.clock.iso())
      assert.equal(resumed.started, false)
      assert.equal(stores.sync.snapshotPending(), false)
      const log = stores.sync.ownLog()
      assert.equal(new Set(log.map((record) => record.op)).size, log.length)
      assert.equal(log.filter((record) => record.kind === 'write').length, 1201)
      assert.equal(log.filter((record) => record.kind === 'pin').length, 1)
      assert.equal(log.filter((record) => record.kind === 'alias').length, 1)
      assertLogMergesToStore()
    })
  })
}
