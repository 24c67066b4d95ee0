/**
 * The vector store on a real file, both SQLite bindings: which facts may be embedded (never a sensitive, hidden or
 * forgotten one), revision checks against the text hash, replacement under a new rowid with a version bump, vector
 * writes that never move the store generation, pruning, clearing with "Clear everything", coverage counts and the
 * rescoring read under model visibility.
 */
import { afterEach, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { prepareWrite } from '../src/fact-input.ts'
import type { SqlValue } from '../src/store/connection.ts'
import type { StoreSet } from '../src/store/store-set.ts'
import type { VectorSpace } from '../src/store/vector-store.ts'
import type { FactInput } from '../src/types.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { count, DRIVERS, expectKind, openMemory, write, writeFact, type MemoryHandle } from './helpers/store.ts'
import { rowFor, storesOf, TEST_IDENTITY, vectorSource } from './helpers/vectors.ts'

const DIM = 64
const NOW = '2026-03-01T09:00:00.000Z'

for (const driver of DRIVERS) {
  describe(`vector store (${driver})`, () => {
    let h: MemoryHandle
    let stores: StoreSet
    let space: VectorSpace
    const source = vectorSource(DIM)
    beforeEach(() => {
      h = openMemory(driver, new FakeClock(NOW))
      stores = storesOf(h.memory)
      space = stores.vectors.ensureSpace('emb-test', TEST_IDENTITY, NOW)
      stores.vectors.fixDimension(space.id, DIM)
    })
    afterEach(() => { h.dispose() })

    const fact = (subject: string, extra: Partial<FactInput> = {}): number => writeFact(h.memory, h.config, { subject, property: 'port', value: `${subject.length}801`, ...extra }).id
    /** A fact written as a restoring import writes one the file marked as withheld from the model. */
    const hiddenFact = (subject: string): number => {
      const prepared = prepareWrite({ subject, property: 'port', value: '9900', evidence: 'observed', origin: 'import' }, NOW, { refuseCredentials: true, timeZone: 'UTC' })
      if (!prepared.ok) throw new Error('not prepared')
      const result = stores.facts.write({ ...prepared.write, modelUseAllowed: false }, NOW)
      if (result.kind !== 'saved') throw new Error(result.kind)
      return result.fact.id
    }
    const sensitiveFact = (subject: string): number => writeFact(h.memory, h.config, { subject, property: 'email', value: 'anna@example.com' }).id
    const forgottenFact = (subject: string): number => {
      const id = fact(subject)
      assert.ok(!('code' in h.memory.forgetById(id)))
      return id
    }
    const store = (...ids: number[]): number => stores.vectors.storeVectors(space.id, ids.map((id) => rowFor(id, revisionOf(id), source.gaussianUnit())), NOW)
    const revisionOf = (id: number): number => count(h.db(), 'SELECT revision AS n FROM facts WHERE id = ?', id)
    const rowIds = (): Map<number, number> => new Map(h.db().all('SELECT fact_id, id FROM fact_vectors WHERE space_id = ?', space.id)
      .map((row) => [Number(row['fact_id']), Number(row['id'])]))
    const versionNow = (): number => stores.vectors.version(space.id) ?? -1

    it('makes one space per fingerprint and fixes its dimension once', () => {
      const again = stores.vectors.ensureSpace('emb-test', { ...TEST_IDENTITY, model: 'other' }, NOW)
      assert.equal(again.id, space.id)
      assert.equal(again.dim, DIM)
      assert.equal(stores.vectors.fixDimension(space.id, 128), DIM, 'a fixed dimension stays')
      const other = stores.vectors.ensureSpace('emb-other', TEST_IDENTITY, NOW)
      assert.notEqual(other.id, space.id)
      assert.equal(other.dim, 0)
      assert.equal(stores.vectors.space('emb-none'), undefined)
    })

    it('never lists a sensitive, a hidden or a forgotten fact for embedding, and never stores a vector for one', () => {
      const plain = fact('billing-api')
      const sensitive = sensitiveFact('anna')
      const hidden = hiddenFact('vault')
      const forgotten = forgottenFact('old-api')
      const listed = stores.vectors.factsNeedingVectors(space.id, 100)
      assert.deepEqual(listed.map((row) => row.id), [plain])
      assert.deepEqual(listed[0], { id: plain, revision: 1, subject: 'billing-api', property: 'port', qualifiers: {}, value: '11801', storedHash: null })
      assert.equal(store(plain, sensitive, hidden, forgotten), 1)
      assert.deepEqual([...rowIds().keys()], [plain])
      assert.deepEqual(stores.vectors.factsNeedingVectors(space.id, 100), [])
    })

    it('lists a fact again when its revision moves, with the stored text hash, and a recheck records the revision without a new vector', () => {
      const first = fact('orders-api', { value: '7801' })
      store(first)
      const before = rowIds().get(first)
      const version = versionNow()
      expectKind(write(h.memory, h.config, { subject: 'orders-api', property: 'port', value: '7802' }), 'saved')
      const [again] = stores.vectors.factsNeedingVectors(space.id, 100).filter((row) => row.id === first)
      assert.equal(again?.revision, 2, 'superseding the value moved its revision')
      assert.equal(again?.storedHash, `hash-${first}`)
      stores.vectors.recheck(space.id, [{ factId: first, revision: 2 }])
      assert.equal(stores.vectors.factsNeedingVectors(space.id, 100).some((row) => row.id === first), false)
      assert.equal(rowIds().get(first), before, 'the same row')
      assert.equal(versionNow(), version, 'the vectors did not change')
    })

    it('replaces a vector with a row of a rowid above every earlier one and bumps the version, even after the newest row was deleted', () => {
      const [a, b, c] = [fact('alpha'), fact('beta'), fact('gamma')]
      store(a, b)
      const first = rowIds()
      const version = versionNow()
      store(b)
      const replaced = rowIds().get(b) ?? 0
      assert.ok(replaced > Math.max(...first.values()), `the newest vector replaced: ${JSON.stringify([...first])} → ${replaced}`)
      const afterReplace = versionNow()
      assert.ok(afterReplace > version, 'the version moved')
      // The newest row goes (its fact hidden), then another fact's vector arrives: its rowid must still be new.
      h.db().run('UPDATE facts SET model_use_allowed = 0 WHERE id = ?', b)
      assert.equal(stores.vectors.pruneIneligible(), 1)
      store(c)
      assert.ok((rowIds().get(c) ?? 0) > replaced, 'a rowid is never reused')
      assert.ok(versionNow() > afterReplace, 'the prune and the new vector moved it again')
    })

    it('never moves the store generation with vector writes', () => {
      const [a, b] = [fact('alpha'), fact('beta')]
      const generation = h.db().generation()
      const other = stores.vectors.ensureSpace('emb-other', TEST_IDENTITY, NOW)
      stores.vectors.fixDimension(other.id, DIM)
      store(a, b)
      stores.vectors.recheck(space.id, [{ factId: a, revision: 1 }])
      h.db().ledger(() => h.db().run('UPDATE facts SET sensitivity = ? WHERE id = ?', 'email', b))
      stores.vectors.pruneIneligible()
      stores.vectors.clearVectors()
      assert.equal(h.db().generation(), generation)
      assert.equal(stores.db.generation(), generation)
    })

    it('refuses vectors of another dimension and writes none of the batch', () => {
      const [a, b] = [fact('alpha'), fact('beta')]
      const rows = [rowFor(a, 1, source.gaussianUnit()), rowFor(b, 1, vectorSource(DIM * 2).gaussianUnit())]
      assert.throws(() => stores.vectors.storeVectors(space.id, rows, NOW), (error: { code?: string }) => error.code === 'invalid_arguments')
      assert.equal(rowIds().size, 0)
    })

    it('prunes the vectors of facts forgotten, marked sensitive or hidden since, in every space, bumping only the spaces touched', () => {
      const [kept, forgotten, sensitive, hidden] = [fact('kept'), fact('forgotten'), fact('sensitive'), fact('hidden')]
      const other = stores.vectors.ensureSpace('emb-other', TEST_IDENTITY, NOW)
      stores.vectors.fixDimension(other.id, DIM)
      const idle = stores.vectors.ensureSpace('emb-idle', TEST_IDENTITY, NOW)
      store(kept, forgotten, sensitive, hidden)
      stores.vectors.storeVectors(other.id, [rowFor(forgotten, 1, source.gaussianUnit())], NOW)
      assert.ok(!('code' in h.memory.forgetById(forgotten)))
      h.db().run('UPDATE facts SET sensitivity = ? WHERE id = ?', 'email', sensitive)
      h.db().run('UPDATE facts SET model_use_allowed = 0 WHERE id = ?', hidden)
      const versions = [versionNow(), stores.vectors.version(other.id), stores.vectors.version(idle.id)]
      assert.equal(stores.vectors.pruneIneligible(), 4)
      assert.deepEqual([...rowIds().keys()], [kept])
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM fact_vectors WHERE space_id = ?', other.id), 0)
      const after = [versionNow(), stores.vectors.version(other.id), stores.vectors.version(idle.id)]
      assert.ok((after[0] ?? 0) > (versions[0] ?? 0) && (after[1] ?? 0) > (versions[1] ?? 0), 'the spaces touched moved')
      assert.equal(after[2], versions[2], 'the idle space did not')
      assert.equal(stores.vectors.pruneIneligible(), 0)
    })

    it('clears every vector with the facts when everything is cleared (one transaction) and bumps the versions', () => {
      const [a, b] = [fact('alpha'), fact('beta')]
      store(a, b)
      const version = versionNow()
      const removed = stores.facts.wipe()
      assert.equal(removed.facts, 2)
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM fact_vectors'), 0)
      assert.ok(versionNow() > version, 'an index of the old vectors sees that they changed')
      assert.equal(stores.vectors.spaceState(space.id).count, 0)
    })

    it('rolls the vectors back with the facts when clearing everything fails', () => {
      const a = fact('alpha')
      store(a)
      const version = versionNow()
      assert.throws(() => stores.db.transaction(() => {
        stores.facts.wipe()
        throw new Error('disk full')
      }), /disk full/u)
      assert.equal(rowIds().size, 1)
      assert.equal(versionNow(), version)
    })

    it('moves the version when a vector goes with its fact by a foreign-key cascade, as when any other change does', () => {
      const a = fact('alpha')
      store(a)
      const version = versionNow()
      h.db().run('DELETE FROM review_verdicts')
      h.db().run('UPDATE tombstones SET fact_id = NULL')
      h.db().run('DELETE FROM fact_edits WHERE fact_id = ?', a)
      h.db().run('DELETE FROM fact_sources WHERE fact_id = ?', a)
      h.db().run('DELETE FROM fact_identifiers WHERE fact_id = ?', a)
      h.db().run('DELETE FROM facts WHERE id = ?', a)
      assert.equal(rowIds().size, 0, 'the cascade took the vector')
      assert.ok(versionNow() > version, 'an index of the old codes sees the change')
      assert.equal(stores.vectors.spaceState(space.id).count, 0)
    })

    it('clears every vector of every space on its own', () => {
      const [a, b] = [fact('alpha'), fact('beta')]
      const other = stores.vectors.ensureSpace('emb-other', TEST_IDENTITY, NOW)
      stores.vectors.fixDimension(other.id, DIM)
      store(a, b)
      stores.vectors.storeVectors(other.id, [rowFor(a, 1, source.gaussianUnit())], NOW)
      const versions = [versionNow(), stores.vectors.version(other.id) ?? 0]
      assert.equal(stores.vectors.clearVectors(), 3)
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM fact_vectors'), 0)
      assert.ok(versionNow() > (versions[0] ?? 0) && (stores.vectors.version(other.id) ?? 0) > (versions[1] ?? 0), 'both versions moved')
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM facts'), 2, 'the facts stay')
    })

    it('counts coverage: current, stale (an older revision, or only another space), missing and excluded', () => {
      const [current, older, elsewhere, missing] = [fact('current'), fact('older'), fact('elsewhere'), fact('missing')]
      sensitiveFact('anna')
      hiddenFact('vault')
      forgottenFact('gone')
      store(current, older)
      h.db().run('UPDATE facts SET revision = revision + 1 WHERE id = ?', older)
      const other = stores.vectors.ensureSpace('emb-other', TEST_IDENTITY, NOW)
      stores.vectors.fixDimension(other.id, DIM)
      stores.vectors.storeVectors(other.id, [rowFor(elsewhere, 1, source.gaussianUnit())], NOW)
      assert.deepEqual(stores.vectors.coverage(space.id), { current: 1, stale: 2, missing: 1, excluded: 2 })
      assert.deepEqual(stores.vectors.lacking(space.id, [current, older, elsewhere, missing]), new Set([older, elsewhere, missing]))
    })

    it('counts coverage over the current facts only: a replaced value keeps its vector but is not counted', () => {
      const first = fact('billing-api')
      store(first)
      const second = writeFact(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7802' }).id
      store(second)
      assert.equal(count(h.db(), 'SELECT count(*) AS n FROM fact_vectors WHERE space_id = ?', space.id), 2, 'the old value keeps its vector')
      assert.deepEqual(stores.vectors.coverage(space.id), { current: 1, stale: 0, missing: 0, excluded: 0 })
    })

    it('never names a sensitive or hidden fact as lacking a vector: it never gets one', () => {
      const sensitive = sensitiveFact('anna')
      const hidden = hiddenFact('vault')
      assert.deepEqual(stores.vectors.lacking(space.id, [sensitive, hidden]), new Set())
    })

    it('reads the rescoring rows of model-visible facts only under model visibility, and never of forgotten ones', () => {
      const [shown, hidden, gone] = [fact('shown'), fact('hidden'), fact('gone')]
      store(shown, hidden, gone)
      h.db().run('UPDATE facts SET model_use_allowed = 0 WHERE id = ?', hidden)
      h.db().run(`UPDATE facts SET status = 'forgotten' WHERE id = ?`, gone)
      const ids = (visibility: { includeSensitive: boolean } | undefined): number[] =>
        stores.vectors.rescoreRows(space.id, [shown, hidden, gone], visibility).map((row) => row.factId).sort((x, y) => x - y)
      assert.deepEqual(ids({ includeSensitive: true }), [shown])
      assert.deepEqual(ids({ includeSensitive: false }), [shown])
      assert.deepEqual(ids(undefined), [shown, hidden])
      const [row] = stores.vectors.rescoreRows(space.id, [shown], undefined)
      assert.equal(row?.quantized.length, DIM)
      assert.ok((row?.scale ?? 0) > 0)
    })

    it('reads the codes after a rowid by the rowid range, and the rescoring rows through the space and fact index', () => {
      const ids = ['alpha', 'beta', 'gamma'].map((subject) => fact(subject))
      store(...ids)
      const seen: { sql: string; params: SqlValue[] }[] = []
      const all = stores.db.all.bind(stores.db)
      const spied = stores.db as unknown as { all: (sql: string, ...params: SqlValue[]) => unknown }
      spied.all = (sql, ...params) => {
        seen.push({ sql, params })
        return all(sql, ...params)
      }
      try {
        stores.vectors.codesAfter(space.id, 1)
        stores.vectors.rescoreRows(space.id, ids, { includeSensitive: false })
      } finally {
        spied.all = all
      }
      const [codes, rescore] = seen.map(({ sql, params }) => all(`EXPLAIN QUERY PLAN ${sql}`, ...params).map((row) => String(row['detail'])).join('\n'))
      assert.match(codes ?? '', /SEARCH fact_vectors USING INTEGER PRIMARY KEY \(rowid>\?\)/u)
      assert.doesNotMatch(codes ?? '', /TEMP B-TREE/u)
      assert.match(rescore ?? '', /sqlite_autoindex_fact_vectors_1 \(space_id=\? AND fact_id=\?\)/u)
      assert.doesNotMatch(rescore ?? '', /SCAN/u)
    })

    it('reads a space\'s state from its own row, without counting its vectors', () => {
      store(...['alpha', 'beta', 'gamma'].map((subject) => fact(subject)))
      const seen: { sql: string; params: SqlValue[] }[] = []
      const get = stores.db.get.bind(stores.db)
      const all = stores.db.all.bind(stores.db)
      const spied = stores.db as unknown as { get: (sql: string, ...params: SqlValue[]) => unknown; all: (sql: string, ...params: SqlValue[]) => unknown }
      spied.get = (sql, ...params) => {
        seen.push({ sql, params })
        return get(sql, ...params)
      }
      spied.all = (sql, ...params) => {
        seen.push({ sql, params })
        return all(sql, ...params)
      }
      let state
      try {
        state = stores.vectors.spaceState(space.id)
      } finally {
        spied.get = get
        spied.all = all
      }
      assert.deepEqual(state, { version: versionNow(), dim: DIM, count: 3 })
      const plans = seen.map(({ sql, params }) => all(`EXPLAIN QUERY PLAN ${sql}`, ...params).map((row) => String(row['detail'])).join('\n'))
      assert.ok(plans.length > 0)
      for (const plan of plans) assert.match(plan, /^SEARCH vector_spaces USING INTEGER PRIMARY KEY \(rowid=\?\)$/u)
    })

    it('keeps each space\'s live count equal to its vectors through stores, replacements, prunes, clears and a wipe', () => {
      const other = stores.vectors.ensureSpace('emb-other', TEST_IDENTITY, NOW)
      stores.vectors.fixDimension(other.id, DIM)
      const counted = (): number[] => [space.id, other.id].map((id) => stores.vectors.spaceState(id).count)
      const rows = (): number[] => [space.id, other.id].map((id) => count(h.db(), 'SELECT count(*) AS n FROM fact_vectors WHERE space_id = ?', id))
      const [a, b, c] = [fact('alpha'), fact('beta'), fact('gamma')]
      store(a, b, c)
      stores.vectors.storeVectors(other.id, [rowFor(a, 1, source.gaussianUnit())], NOW)
      assert.deepEqual(counted(), [3, 1])
      store(a, b)
      assert.deepEqual(counted(), [3, 1], 'a replaced vector is still one')
      assert.ok(!('code' in h.memory.forgetById(a)))
      stores.vectors.pruneIneligible()
      assert.deepEqual(counted(), [2, 0])
      assert.deepEqual(counted(), rows())
      stores.vectors.clearVectors()
      assert.deepEqual(counted(), [0, 0])
      store(b, c)
      stores.facts.wipe()
      assert.deepEqual(counted(), [0, 0])
      assert.deepEqual(counted(), rows())
    })

    it('reads back the stored vectors of a few facts, byte for byte', () => {
      const [a, b] = [fact('alpha'), fact('beta')]
      const unit = source.gaussianUnit()
      const written = rowFor(a, 1, unit)
      stores.vectors.storeVectors(space.id, [written], NOW)
      const read = stores.vectors.vectorsOf(space.id, [a, b])
      assert.deepEqual([...read.keys()], [a])
      assert.deepEqual(Array.from(read.get(a)?.quantized ?? []), Array.from(written.quantized))
      assert.equal(read.get(a)?.scale, written.scale)
      const [code] = stores.vectors.codesAfter(space.id, 0)
      assert.deepEqual(Array.from(code?.bits ?? []), Array.from(written.bits))
    })

    it('reads back no vector for a fact whose revision moved since (its text may have changed)', () => {
      const a = fact('alpha')
      store(a)
      h.db().run('UPDATE facts SET revision = revision + 1 WHERE id = ?', a)
      assert.deepEqual([...stores.vectors.vectorsOf(space.id, [a]).keys()], [])
    })
  })
}
