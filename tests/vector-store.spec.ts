/**
 * The vector store on a real file, both SQLite bindings: which facts may be embedded (never a sensitive, hidden or
 * forgotten one), revision checks against the text hash, replacement in place with a version bump, slots and their
 * code blocks kept in step with every write, prune, cascade, clear and a space's removal, vector writes that never
 * move the store generation, coverage counts and the rescoring read under model visibility.
 */
import { afterEach, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { VectorIndex } from '../src/semantic/vector-index.ts'
import { prepareWrite } from '../src/fact-input.ts'
import type { SqlValue } from '../src/store/connection.ts'
import type { StoreSet } from '../src/store/store-set.ts'
import type { VectorRow, VectorSpace } from '../src/store/vector-store.ts'
import type { FactInput } from '../src/types.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { count, DRIVERS, expectKind, openMemory, write, writeFact, type MemoryHandle } from './helpers/store.ts'
import { labelHash, rowFor, storesOf, TEST_IDENTITY, vectorSource } from './helpers/vectors.ts'

const DIM = 64
const NOW = '2026-03-01T09:00:00.000Z'
const CRASH_WRITER = fileURLToPath(new URL('./fixtures/vector-crash-writer.ts', import.meta.url))

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
    afterEach(() => {
      h.dispose()
    })

    const fact = (subject: string, extra: Partial<FactInput> = {}): number =>
      writeFact(h.memory, h.config, { subject, property: 'port', value: `${subject.length}801`, ...extra }).id
    /** A fact written as a restoring import writes one the file marked as withheld from the model. */
    const hiddenFact = (subject: string): number => {
      const prepared = prepareWrite(
        { subject, property: 'port', value: '9900', evidence: 'observed', origin: 'import' },
        NOW,
        { refuseCredentials: true, timeZone: 'UTC' },
      )
      if (!prepared.ok) throw new Error('not prepared')
      const result = stores.facts.write({ ...prepared.write, modelUseAllowed: false }, NOW)
      if (result.kind !== 'saved') throw new Error(result.kind)
      return result.fact.id
    }
    const sensitiveFact = (subject: string): number =>
      writeFact(h.memory, h.config, { subject, property: 'email', value: 'anna@example.com' }).id
    const forgottenFact = (subject: string): number => {
      const id = fact(subject)
      assert.ok(!('code' in h.memory.forgetById(id)))
      return id
    }
    const store = (...ids: number[]): number =>
      writeAll(
        space.id,
        ids.map((id) => rowFor(id, revisionOf(id), source.gaussianUnit())),
      )
    const revisionOf = (id: number): number => count(h.db(), 'SELECT revision AS n FROM facts WHERE id = ?', id)
    const rowIds = (): Map<number, number> =>
      new Map(
        h
          .db()
          .all('SELECT fact_id, id FROM fact_vectors WHERE space_id = ?', space.id)
          .map((row) => [Number(row['fact_id']), Number(row['id'])]),
      )
    const versionNow = (): number => stores.vectors.version(space.id) ?? -1
    const slotsOf = (spaceId = space.id): Map<number, number> =>
      new Map(
        h
          .db()
          .all('SELECT fact_id, slot FROM fact_vectors WHERE space_id = ?', spaceId)
          .map((row) => [Number(row['fact_id']), Number(row['slot'])]),
      )
    /** Every code a space's blocks hold for its live vectors is the one last written for them, and every other slot is free. */
    const written = new Map<string, Uint8Array>()
    const writeAll = (spaceId: number, rows: readonly VectorRow[]): number => {
      for (const row of rows) written.set(`${spaceId}:${row.factId}`, row.bits)
      return stores.vectors.storeVectors(spaceId, rows, NOW)
    }
    const assertBlocksInStep = (spaceId: number): void => {
      const state = stores.vectors.spaceState(spaceId)
      const bytes = Math.ceil(state.dim / 8)
      const bySlot = new Map<number, { factId: number; bits: Uint8Array }>()
      for (const block of stores.vectors.blockRange(spaceId, 0, Number.MAX_SAFE_INTEGER)) {
        block.factIds.forEach((factId, i) =>
          bySlot.set(block.blockNo * state.blockSlots + i, {
            factId,
            bits: block.codes.subarray(i * bytes, (i + 1) * bytes),
          }),
        )
      }
      const live = slotsOf(spaceId)
      const free = new Set(stores.vectors.freeSlots(spaceId))
      assert.equal(live.size, state.count, 'the live count')
      for (const [factId, slot] of live) {
        assert.ok(slot < state.slotCount && !free.has(slot), `slot ${slot} of fact ${factId} is in use`)
        assert.equal(bySlot.get(slot)?.factId, factId, `block slot ${slot} names fact ${factId}`)
        const bits = written.get(`${spaceId}:${factId}`)
        if (bits !== undefined)
          assert.deepEqual(Array.from(bySlot.get(slot)?.bits ?? []), Array.from(bits), `the code of fact ${factId}`)
      }
      const used = new Set(live.values())
      for (let slot = 0; slot < state.slotCount; slot += 1)
        assert.ok(used.has(slot) !== free.has(slot), `slot ${slot} is either used or free`)
      assert.ok(
        [...bySlot.keys()].every((slot) => slot < state.slotCount),
        'no block slot past the slot count',
      )
    }

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
      assert.deepEqual(
        listed.map((row) => row.id),
        [plain],
      )
      assert.deepEqual(listed[0], {
        id: plain,
        revision: 1,
        subject: 'billing-api',
        property: 'port',
        qualifiers: {},
        value: '11801',
        storedHash: null,
      })
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
      assert.equal(again?.storedHash, labelHash(first))
      stores.vectors.recheck(space.id, [{ factId: first, revision: 2 }])
      assert.equal(
        stores.vectors.factsNeedingVectors(space.id, 100).some((row) => row.id === first),
        false,
      )
      assert.equal(rowIds().get(first), before, 'the same row')
      assert.equal(versionNow(), version, 'the vectors did not change')
    })

    it("replaces a vector in its row and slot and bumps the version; a deleted vector's slot goes to the next new one", () => {
      const [a, b, c] = [fact('alpha'), fact('beta'), fact('gamma')]
      store(a, b)
      const first = rowIds()
      const slots = slotsOf()
      const version = versionNow()
      store(b)
      assert.deepEqual(rowIds(), first, 'the same rows')
      assert.deepEqual(slotsOf(), slots, 'the same slots')
      const afterReplace = versionNow()
      assert.ok(afterReplace > version, 'the version moved')
      h.db().run('UPDATE facts SET model_use_allowed = 0 WHERE id = ?', a)
      assert.equal(stores.vectors.pruneIneligible(), 1)
      assert.deepEqual(stores.vectors.freeSlots(space.id), [slots.get(a)])
      store(c)
      assert.equal(slotsOf().get(c), slots.get(a), 'the new vector took the free slot')
      assert.deepEqual(stores.vectors.freeSlots(space.id), [])
      assert.ok(versionNow() > afterReplace, 'the prune and the new vector moved it again')
      assertBlocksInStep(space.id)
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
      assert.throws(
        () => stores.vectors.storeVectors(space.id, rows, NOW),
        (error: { code?: string }) => error.code === 'invalid_arguments',
      )
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
      assert.ok(
        (after[0] ?? 0) > (versions[0] ?? 0) && (after[1] ?? 0) > (versions[1] ?? 0),
        'the spaces touched moved',
      )
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
      assert.throws(
        () =>
          stores.db.transaction(() => {
            stores.facts.wipe()
            throw new Error('disk full')
          }),
        /disk full/u,
      )
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
      assert.ok(
        versionNow() > (versions[0] ?? 0) && (stores.vectors.version(other.id) ?? 0) > (versions[1] ?? 0),
        'both versions moved',
      )
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
      assert.deepEqual(
        stores.vectors.lacking(space.id, [current, older, elsewhere, missing]),
        new Set([older, elsewhere, missing]),
      )
    })

    it('counts coverage over the current facts only: a replaced value keeps its vector but is not counted', () => {
      const first = fact('billing-api')
      store(first)
      const second = writeFact(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7802' }).id
      store(second)
      assert.equal(
        count(h.db(), 'SELECT count(*) AS n FROM fact_vectors WHERE space_id = ?', space.id),
        2,
        'the old value keeps its vector',
      )
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
        stores.vectors
          .rescoreRows(space.id, [shown, hidden, gone], visibility)
          .map((row) => row.factId)
          .sort((x, y) => x - y)
      assert.deepEqual(ids({ includeSensitive: true }), [shown])
      assert.deepEqual(ids({ includeSensitive: false }), [shown])
      assert.deepEqual(ids(undefined), [shown, hidden])
      const [row] = stores.vectors.rescoreRows(space.id, [shown], undefined)
      assert.equal(row?.quantized.length, DIM)
      assert.ok((row?.scale ?? 0) > 0)
    })

    it('reads the blocks written since a version, the free slots, the rescoring rows and the vectors of facts through indexes, never a scan', () => {
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
        stores.vectors.blockRange(space.id, 0, Number.MAX_SAFE_INTEGER)
        stores.vectors.blocksSince(space.id, 1)
        stores.vectors.freeSlots(space.id)
        stores.vectors.rescoreRows(space.id, ids, { includeSensitive: false })
        stores.vectors.vectorsOf(space.id, ids)
      } finally {
        spied.all = all
      }
      const [whole, blocks, free, rescore, vectors] = seen.map(({ sql, params }) =>
        all(`EXPLAIN QUERY PLAN ${sql}`, ...params)
          .map((row) => String(row['detail']))
          .join('\n'),
      )
      assert.match(
        whole ?? '',
        /SEARCH vector_blocks USING INDEX sqlite_autoindex_vector_blocks_1 \(space_id=\? AND block_no>\? AND block_no<\?\)/u,
      )
      assert.match(
        blocks ?? '',
        /SEARCH vector_blocks USING INDEX vector_blocks_by_version \(space_id=\? AND version>\?\)/u,
      )
      assert.match(free ?? '', /SEARCH vector_free_slots USING PRIMARY KEY \(space_id=\?\)/u)
      for (const plan of [rescore, vectors]) {
        assert.match(plan ?? '', /SEARCH v USING INDEX sqlite_autoindex_fact_vectors_1 \(fact_id=\? AND space_id=\?\)/u)
        assert.match(
          plan ?? '',
          /SEARCH b USING INDEX sqlite_autoindex_vector_blocks_1 \(space_id=\? AND block_no=\?\)/u,
        )
        assert.doesNotMatch(plan ?? '', /SCAN/u)
      }
      for (const plan of [whole, blocks, free]) assert.doesNotMatch(plan ?? '', /SCAN|TEMP B-TREE/u)
    })

    it("reads a space's state from its own row, without counting its vectors", () => {
      store(...['alpha', 'beta', 'gamma'].map((subject) => fact(subject)))
      const seen: { sql: string; params: SqlValue[] }[] = []
      const get = stores.db.get.bind(stores.db)
      const all = stores.db.all.bind(stores.db)
      const spied = stores.db as unknown as {
        get: (sql: string, ...params: SqlValue[]) => unknown
        all: (sql: string, ...params: SqlValue[]) => unknown
      }
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
      assert.deepEqual(state, { version: versionNow(), dim: DIM, count: 3, slotCount: 3, blockSlots: 64 })
      const plans = seen.map(({ sql, params }) =>
        all(`EXPLAIN QUERY PLAN ${sql}`, ...params)
          .map((row) => String(row['detail']))
          .join('\n'),
      )
      assert.ok(plans.length > 0)
      for (const plan of plans) assert.match(plan, /^SEARCH vector_spaces USING INTEGER PRIMARY KEY \(rowid=\?\)$/u)
    })

    it("keeps each space's live count equal to its vectors through stores, replacements, prunes, clears and a wipe", () => {
      const other = stores.vectors.ensureSpace('emb-other', TEST_IDENTITY, NOW)
      stores.vectors.fixDimension(other.id, DIM)
      const counted = (): number[] => [space.id, other.id].map((id) => stores.vectors.spaceState(id).count)
      const rows = (): number[] =>
        [space.id, other.id].map((id) => count(h.db(), 'SELECT count(*) AS n FROM fact_vectors WHERE space_id = ?', id))
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
      const row = rowFor(a, 1, unit)
      stores.vectors.storeVectors(space.id, [row], NOW)
      const read = stores.vectors.vectorsOf(space.id, [a, b])
      assert.deepEqual([...read.keys()], [a])
      assert.deepEqual(Array.from(read.get(a)?.quantized ?? []), Array.from(row.quantized))
      assert.equal(read.get(a)?.scale, row.scale)
      const [block] = stores.vectors.blockRange(space.id, 0, Number.MAX_SAFE_INTEGER)
      assert.deepEqual(Array.from(block?.factIds ?? []), [a])
      assert.deepEqual(Array.from(block?.codes ?? []), Array.from(row.bits))
      assert.equal(
        count(h.db(), 'SELECT length(magnitudes) AS n FROM fact_vectors WHERE fact_id = ?', a),
        (DIM / 8) * 7,
        'seven bits a component',
      )
      assert.equal(count(h.db(), 'SELECT length(text_hash) AS n FROM fact_vectors WHERE fact_id = ?', a), 32)
    })

    it("keeps every slot's code and fact id in its block through stores across blocks, replacements, prunes, a cascade, a clear and a refill", () => {
      const ids = Array.from({ length: 150 }, (_, i) => fact(`service-${i}`))
      const other = stores.vectors.ensureSpace('emb-other', TEST_IDENTITY, NOW)
      stores.vectors.fixDimension(other.id, DIM)
      const rows = (list: readonly number[]): VectorRow[] =>
        list.map((id) => rowFor(id, revisionOf(id), source.gaussianUnit()))
      // Three batches, the second crossing from the first block (64 slots) into the third.
      writeAll(space.id, rows(ids.slice(0, 40)))
      writeAll(space.id, rows(ids.slice(40, 140)))
      writeAll(space.id, rows(ids.slice(140)))
      writeAll(other.id, rows(ids.slice(0, 10)))
      assertBlocksInStep(space.id)
      assertBlocksInStep(other.id)
      assert.equal(stores.vectors.blockRange(space.id, 0, Number.MAX_SAFE_INTEGER).length, 3)
      // Replacements in one batch with new vectors of facts that had none in the other space.
      writeAll(space.id, rows([ids[3] ?? 0, ids[70] ?? 0, ids[149] ?? 0]))
      writeAll(other.id, rows([ids[3] ?? 0, ids[20] ?? 0]))
      assertBlocksInStep(space.id)
      assertBlocksInStep(other.id)
      // Prunes free slots in both spaces; the next vectors take them, lowest first.
      for (const id of [ids[5], ids[66], ids[130]])
        h.db().run('UPDATE facts SET model_use_allowed = 0 WHERE id = ?', id ?? 0)
      stores.vectors.pruneIneligible()
      const freed = stores.vectors.freeSlots(space.id)
      assert.equal(freed.length, 3)
      assertBlocksInStep(space.id)
      const newcomers = [fact('newcomer-1'), fact('newcomer-2')]
      writeAll(space.id, rows(newcomers))
      assert.deepEqual(
        newcomers.map((id) => slotsOf().get(id)),
        freed.slice(0, 2),
      )
      assertBlocksInStep(space.id)
      // A cascade from facts frees the slot too.
      const gone = ids[100] ?? 0
      h.db().run('DELETE FROM review_verdicts')
      h.db().run('UPDATE tombstones SET fact_id = NULL')
      for (const table of ['fact_edits', 'fact_sources', 'fact_identifiers'])
        h.db().run(`DELETE FROM ${table} WHERE fact_id = ?`, gone)
      const slot = slotsOf().get(gone)
      h.db().run('DELETE FROM facts WHERE id = ?', gone)
      assert.ok(stores.vectors.freeSlots(space.id).includes(slot ?? -1), 'the cascade freed its slot')
      assertBlocksInStep(space.id)
      // A clear empties every space's blocks and slots; a refill starts again from slot 0.
      stores.vectors.clearVectors()
      for (const spaceId of [space.id, other.id]) {
        assert.deepEqual(stores.vectors.blockRange(spaceId, 0, Number.MAX_SAFE_INTEGER), [])
        assert.deepEqual(stores.vectors.freeSlots(spaceId), [])
        assert.equal(stores.vectors.spaceState(spaceId).slotCount, 0)
      }
      writeAll(space.id, rows(ids.slice(0, 5)))
      assert.deepEqual(
        [...slotsOf().values()].sort((x, y) => x - y),
        [0, 1, 2, 3, 4],
      )
      assertBlocksInStep(space.id)
    })

    it("takes a space's vectors, blocks and free slots with it when the space is removed", () => {
      const ids = ['alpha', 'beta', 'gamma'].map((subject) => fact(subject))
      const other = stores.vectors.ensureSpace('emb-other', TEST_IDENTITY, NOW)
      stores.vectors.fixDimension(other.id, DIM)
      store(...ids)
      writeAll(
        other.id,
        ids.map((id) => rowFor(id, 1, source.gaussianUnit())),
      )
      h.db().run('UPDATE facts SET model_use_allowed = 0 WHERE id = ?', ids[0] ?? 0)
      stores.vectors.pruneIneligible()
      h.db().run('DELETE FROM vector_spaces WHERE id = ?', space.id)
      for (const table of ['fact_vectors', 'vector_blocks', 'vector_free_slots']) {
        assert.equal(count(h.db(), `SELECT count(*) AS n FROM ${table} WHERE space_id = ?`, space.id), 0, table)
      }
      assertBlocksInStep(other.id)
      assert.equal(stores.vectors.spaceState(other.id).count, 2)
    })

    it('refuses a slot in use, a vector moved to another slot, sign bits that disagree with the components and a text hash that is not SHA-256', () => {
      const [a, b] = [fact('alpha'), fact('beta')]
      store(a)
      const row = rowFor(b, 1, source.gaussianUnit())
      assert.throws(
        () =>
          h.db().run(
            `INSERT INTO fact_vectors (space_id, fact_id, slot, revision, text_hash, scale, magnitudes, embedded_at)
          VALUES (?, ?, 0, 1, zeroblob(32), 1, x'00', ?)`,
            space.id,
            b,
            NOW,
          ),
        /vector slot in use/u,
      )
      assert.throws(
        () => h.db().run('UPDATE fact_vectors SET slot = 5 WHERE fact_id = ?', a),
        /keeps its space, fact and slot/u,
      )
      const flipped = Uint8Array.from(row.bits, (byte) => byte ^ 0xff)
      const refused = (candidate: VectorRow): boolean => {
        assert.throws(
          () => stores.vectors.storeVectors(space.id, [candidate], NOW),
          (error: { code?: string }) => error.code === 'invalid_arguments',
        )
        return true
      }
      assert.ok(refused({ ...row, bits: flipped }))
      assert.ok(refused({ ...row, textHash: 'hash-b' }))
      assert.ok(refused({ ...row, textHash: labelHash(b).toUpperCase() }))
      assert.deepEqual([...rowIds().keys()], [a], 'nothing was written')
      assertBlocksInStep(space.id)
    })

    it('loses no vector a sweep committed when its process is killed inside the next batch, and keeps none of that batch', () => {
      const ids = Array.from({ length: 120 }, (_, i) => fact(`service-${i}`))
      const [batch, batches] = [32, 3]
      const child = spawnSync(
        process.execPath,
        ['--disable-warning=ExperimentalWarning', CRASH_WRITER, h.dataDir, driver, String(batch), String(batches)],
        {
          encoding: 'utf8',
          timeout: 60_000,
        },
      )
      assert.equal(child.signal, 'SIGKILL', `the writer should die by SIGKILL; stderr:\n${child.stderr}`)
      const lines = child.stdout.trim().split('\n')
      assert.ok(lines.at(-1)?.startsWith('killing ') && !lines.includes('still alive'))
      const committed = lines
        .filter((line) => line.startsWith('committed '))
        .flatMap((line) => line.slice('committed '.length).split(',').map(Number))
      assert.deepEqual(committed, ids.slice(0, batch * batches))
      // The child's vectors, drawn again in its order: the committed ones must read back, the killed batch's not.
      const crash = stores.vectors.space('emb-crash')
      assert.ok(crash !== undefined)
      const drawn = vectorSource(DIM, 99)
      const expected = new Map(committed.map((id) => [id, rowFor(id, 1, drawn.gaussianUnit())]))
      const read = stores.vectors.vectorsOf(crash.id, ids)
      assert.deepEqual(
        [...read.keys()].sort((x, y) => x - y),
        committed,
      )
      for (const [id, row] of expected)
        assert.deepEqual(Array.from(read.get(id)?.quantized ?? []), Array.from(row.quantized), `fact ${id}`)
      for (const [id, row] of expected) written.set(`${crash.id}:${id}`, row.bits)
      assertBlocksInStep(crash.id)
      const index = new VectorIndex()
      for (const [id, row] of [...expected].filter((_, i) => i % 9 === 0)) {
        const unit = Float32Array.from(row.quantized, (component) => component * row.scale)
        assert.equal(index.search(stores.vectors, crash, unit, 1, undefined)[0]?.id, id)
      }
      // A sweep carries on from there.
      assert.equal(stores.vectors.factsNeedingVectors(crash.id, 1000).length, ids.length - committed.length)
    })

    it('reads back no vector for a fact whose revision moved since (its text may have changed)', () => {
      const a = fact('alpha')
      store(a)
      h.db().run('UPDATE facts SET revision = revision + 1 WHERE id = ?', a)
      assert.deepEqual([...stores.vectors.vectorsOf(space.id, [a]).keys()], [])
    })
  })
}
