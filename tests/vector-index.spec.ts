/**
 * The vector channel's scan on a real file, both SQLite bindings: a stored vector is its own nearest neighbour, the
 * coarse stages (Hamming shortlist, asymmetric score) with exact rescoring keep recall@10 of an exact scan at or
 * above 0.95 on 3,000 clustered vectors and 0.92 on 20,000 (where the Hamming scan alone falls below; recall measured
 * on one binding, as the binding plays no part in it), the in-memory
 * codes follow writes and deletions made through another connection to the same file, and facts hidden from the
 * model never come back under model visibility.
 */
import { afterEach, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mulberry32 } from '../scripts/bench-corpus.ts'
import { ClusteredVectors } from '../scripts/bench-vector-corpus.ts'
import { prepareWrite } from '../src/fact-input.ts'
import { cosineQuantized, quantize } from '../src/semantic/quantize.ts'
import { COARSE_CANDIDATES, SCAN_WIDTH, VectorIndex, type ScanWidth } from '../src/semantic/vector-index.ts'
import type { StoreSet } from '../src/store/store-set.ts'
import { VectorStore, type VectorSpace } from '../src/store/vector-store.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { DRIVERS, ONE_DRIVER, openMemory, writeFact, type MemoryHandle } from './helpers/store.ts'
import { rowFor, storesOf, TEST_IDENTITY, vectorSource } from './helpers/vectors.ts'

const NOW = '2026-03-01T09:00:00.000Z'
const MODEL = { includeSensitive: false } as const

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0
  for (let i = 0; i < a.length; i += 1) sum += (a[i] ?? 0) * (b[i] ?? 0)
  return sum
}

/** Write `n` plain facts in one transaction, straight through the fact store. */
function seedFacts(stores: StoreSet, n: number): number[] {
  return stores.db.transaction(() =>
    Array.from({ length: n }, (_, i) => {
      const prepared = prepareWrite(
        { subject: `service-${i}`, property: 'port', value: String(10_000 + i), evidence: 'observed', origin: 'tool' },
        NOW,
        { refuseCredentials: true, timeZone: 'UTC' },
      )
      if (!prepared.ok) throw new Error('not prepared')
      const result = stores.facts.write(prepared.write, NOW)
      if (result.kind !== 'saved') throw new Error(result.kind)
      return result.fact.id
    }),
  )
}

for (const driver of DRIVERS) {
  describe(`vector index (${driver})`, () => {
    let h: MemoryHandle
    let stores: StoreSet
    let space: VectorSpace
    let index: VectorIndex
    beforeEach(() => {
      h = openMemory(driver, new FakeClock(NOW))
      stores = storesOf(h.memory)
      space = stores.vectors.ensureSpace('emb-test', TEST_IDENTITY, NOW)
      index = new VectorIndex()
    })
    afterEach(() => {
      h.dispose()
    })

    /** Store vectors for the facts, returning them by fact id. */
    const embed = (store: VectorStore, ids: readonly number[], vectors: readonly Float32Array[]): void => {
      store.fixDimension(space.id, vectors[0]?.length ?? 0)
      store.storeVectors(
        space.id,
        ids.map((id, i) => rowFor(id, 1, vectors[i] ?? new Float32Array())),
        NOW,
      )
    }

    it('finds a stored vector as its own nearest neighbour, with a cosine of about 1', () => {
      const source = vectorSource(1024)
      const ids = seedFacts(stores, 300)
      const vectors = ids.map(() => source.subject(1)[0] ?? source.gaussianUnit())
      embed(stores.vectors, ids, vectors)
      for (const at of [0, 17, 299]) {
        const [top] = index.search(stores.vectors, space, vectors[at] ?? new Float32Array(), 5, MODEL)
        assert.equal(top?.id, ids[at])
        assert.ok(Math.abs((top?.score ?? 0) - 1) < 0.001, `score ${top?.score}`)
      }
    })

    // Recall is the index's arithmetic over vectors it has loaded: the binding that stored them plays no part (the
    // tests around these prove each binding hands the same vectors back), so one binding measures it.
    if (driver === ONE_DRIVER[0]) {
      it('keeps recall@10 of an exact scan at 0.95 or more over 3,000 clustered vectors with 200 coarse candidates', (t) => {
        const source = vectorSource(1024, 21, 30)
        const vectors: Float32Array[] = []
        while (vectors.length < 3000) vectors.push(...source.subject(1 + (vectors.length % 8)))
        vectors.length = 3000
        const ids = seedFacts(stores, vectors.length)
        embed(stores.vectors, ids, vectors)
        const queries = Array.from({ length: 60 }, (_, i) =>
          source.near(vectors[(i * 47) % vectors.length] ?? source.gaussianUnit(), i % 2 === 0 ? 0.5 : 1),
        )
        const exact = queries.map((query) =>
          ids
            .map((id, i) => ({ id, score: dot(query, vectors[i] ?? query) }))
            .sort((a, b) => b.score - a.score)
            .slice(0, 10)
            .map((hit) => hit.id),
        )
        const recall = (candidates: number): number => {
          let found = 0
          queries.forEach((query, q) => {
            const got = new Set(
              index.search(stores.vectors, space, query, 10, MODEL, { ...SCAN_WIDTH, candidates }).map((hit) => hit.id),
            )
            found += (exact[q] ?? []).filter((id) => got.has(id)).length
          })
          return found / (queries.length * 10)
        }
        const measured = new Map(
          [25, 50, 100, COARSE_CANDIDATES, 400].map((candidates) => [candidates, recall(candidates)]),
        )
        t.diagnostic(
          `recall@10 by candidates rescored (Hamming shortlist ${SCAN_WIDTH.shortlist}): ${[...measured].map(([k, r]) => `${k}: ${r.toFixed(3)}`).join(', ')}`,
        )
        const shipped = measured.get(COARSE_CANDIDATES) ?? 0
        assert.ok(shipped >= 0.95, `recall@10 ${shipped}`)
        assert.ok((measured.get(50) ?? 1) < shipped, 'fewer candidates lose neighbours: the cut is not arbitrary')
      })

      it('keeps recall@10 of an exact scan at 0.92 or more over 20,000 clustered 1024-d vectors, where the Hamming scan alone falls below', (t) => {
        // The bench's corpus as it makes it for 20,000 facts: subjects of 1-6 facts around 40 topics, queries near a
        // stored vector. The truth is an exact scan of the stored int8 rows, so only the coarse ranking can miss.
        const random = mulberry32(20_000)
        const source = new ClusteredVectors(1024, 40, random)
        const vectors: Float32Array[] = []
        while (vectors.length < 20_000) vectors.push(...source.subject(1 + Math.floor(random() * 6)))
        vectors.length = 20_000
        const ids = seedFacts(stores, vectors.length)
        embed(stores.vectors, ids, vectors)
        const stored = vectors.map((vector) => quantize(vector))
        const queries = Array.from({ length: 40 }, (_, i) =>
          source.near(vectors[Math.floor(random() * vectors.length)] ?? source.gaussianUnit(), i % 2 === 0 ? 0.5 : 1),
        )
        const truths = queries.map((query) =>
          stored
            .map((vector, i) => ({ id: ids[i] ?? 0, score: cosineQuantized(query, vector.quantized, vector.scale) }))
            .sort((a, b) => b.score - a.score)
            .slice(0, 10),
        )
        const measure = (width: ScanWidth): { recall: number; epsilonRecall: number } => {
          let found = 0
          let close = 0
          queries.forEach((query, q) => {
            const truth = truths[q] ?? []
            const got = index.search(stores.vectors, space, query, 10, MODEL, width)
            const truthIds = new Set(truth.map((hit) => hit.id))
            found += got.filter((hit) => truthIds.has(hit.id)).length
            // ann-benchmarks' epsilon recall: a hit counts when its distance (1 - cosine) is within 1.01 × the true 10th's.
            const tenth = 1 - (truth.at(-1)?.score ?? 1)
            close += got.filter((hit) => 1 - hit.score <= 1.01 * tenth).length
          })
          return { recall: found / (queries.length * 10), epsilonRecall: close / (queries.length * 10) }
        }
        const shipped = measure(SCAN_WIDTH)
        const hammingAlone = measure({ shortlist: COARSE_CANDIDATES, candidates: COARSE_CANDIDATES })
        t.diagnostic(
          `recall@10 / epsilon recall@10: ${shipped.recall.toFixed(3)} / ${shipped.epsilonRecall.toFixed(3)}; ` +
            `the Hamming scan alone: ${hammingAlone.recall.toFixed(3)} / ${hammingAlone.epsilonRecall.toFixed(3)}`,
        )
        assert.ok(shipped.recall >= 0.92, `recall@10 ${shipped.recall}`)
        assert.ok(shipped.epsilonRecall >= 0.98, `epsilon recall@10 ${shipped.epsilonRecall}`)
        assert.ok(hammingAlone.recall < 0.92, 'the Hamming scan alone misses neighbours the asymmetric score keeps')
      })
    }

    it('finds a vector written through another connection to the same file once its space version moves', () => {
      const source = vectorSource(64)
      const ids = seedFacts(stores, 20)
      embed(
        stores.vectors,
        ids,
        ids.map(() => source.gaussianUnit()),
      )
      const query = source.gaussianUnit()
      assert.equal(
        index.search(stores.vectors, space, query, 3, MODEL).some((hit) => hit.id === ids[0]),
        false,
      )
      // Another process (a one-shot headless run, say) replaces fact 0's vector with the query itself and adds a new fact.
      const newcomer = writeFact(h.memory, h.config, { subject: 'newcomer', property: 'port', value: '4242' }).id
      const other = new VectorStore(h.db())
      other.storeVectors(space.id, [rowFor(ids[0] ?? 0, 1, query), rowFor(newcomer, 1, source.near(query, 0.1))], NOW)
      // Two coarse candidates: only codes loaded from the new rows can put these two first.
      const hits = index.search(stores.vectors, space, query, 2, MODEL, { shortlist: 2, candidates: 2 })
      assert.deepEqual(
        hits.map((hit) => hit.id),
        [ids[0], newcomer],
      )
      assert.equal(index.footprint(stores.vectors, space.id).facts, 21, "the replaced vector took its fact's slot")
    })

    it('drops a vector pruned through another connection', () => {
      const source = vectorSource(64)
      const ids = seedFacts(stores, 10)
      const vectors = ids.map(() => source.gaussianUnit())
      embed(stores.vectors, ids, vectors)
      const target = vectors[3] ?? new Float32Array()
      assert.equal(index.search(stores.vectors, space, target, 1, undefined)[0]?.id, ids[3])
      h.db().run('UPDATE facts SET model_use_allowed = 0 WHERE id = ?', ids[3] ?? 0)
      new VectorStore(h.db()).pruneIneligible()
      assert.equal(
        index.search(stores.vectors, space, target, 10, undefined).some((hit) => hit.id === ids[3]),
        false,
      )
      assert.equal(index.footprint(stores.vectors, space.id).facts, 9)
    })

    it("drops a deleted vector's slot in place, without reading every block again, and still finds the others", () => {
      const source = vectorSource(64)
      const ids = seedFacts(stores, 50)
      const vectors = ids.map(() => source.gaussianUnit())
      embed(stores.vectors, ids, vectors)
      assert.equal(index.search(stores.vectors, space, vectors[0] ?? new Float32Array(), 1, undefined)[0]?.id, ids[0])
      const reads: number[] = []
      const blocksSince = stores.vectors.blocksSince.bind(stores.vectors)
      stores.vectors.blocksSince = (spaceId, afterVersion) => {
        reads.push(afterVersion)
        return blocksSince(spaceId, afterVersion)
      }
      h.db().run('UPDATE facts SET model_use_allowed = 0 WHERE id IN (?, ?)', ids[3] ?? 0, ids[40] ?? 0)
      new VectorStore(h.db()).pruneIneligible()
      for (const [position, id] of ids.entries()) {
        const hits = index.search(stores.vectors, space, vectors[position] ?? new Float32Array(), 1, undefined)
        if (position === 3 || position === 40) assert.notEqual(hits[0]?.id, id)
        else assert.equal(hits[0]?.id, id, `fact ${position} is still its own nearest`)
      }
      assert.equal(index.footprint(stores.vectors, space.id).facts, 48)
      assert.ok(
        reads.length > 0 && reads.every((after) => after >= 0),
        `no read of the whole space: ${JSON.stringify(reads)}`,
      )
    })

    it('follows a clear and a refill of as many vectors, in the same slots', () => {
      const source = vectorSource(64)
      const ids = seedFacts(stores, 10)
      embed(
        stores.vectors,
        ids,
        ids.map(() => source.gaussianUnit()),
      )
      const query = source.gaussianUnit()
      index.warm(stores.vectors, space.id)
      const other = new VectorStore(h.db())
      other.clearVectors()
      other.storeVectors(
        space.id,
        ids.map((id, i) => rowFor(id, 1, i === 5 ? query : source.gaussianUnit())),
        NOW,
      )
      // One coarse candidate: the stale codes of the cleared rows would pick another fact.
      assert.equal(index.search(stores.vectors, space, query, 1, MODEL, { shortlist: 1, candidates: 1 })[0]?.id, ids[5])
    })

    it('reuses a pruned slot for a vector written through another connection, and finds the newcomer there', () => {
      const source = vectorSource(64)
      const ids = seedFacts(stores, 10)
      const vectors = ids.map(() => source.gaussianUnit())
      embed(stores.vectors, ids, vectors)
      index.warm(stores.vectors, space.id)
      const other = new VectorStore(h.db())
      h.db().run('UPDATE facts SET model_use_allowed = 0 WHERE id = ?', ids[3] ?? 0)
      other.pruneIneligible()
      assert.equal(index.warm(stores.vectors, space.id), 9)
      const newcomer = writeFact(h.memory, h.config, { subject: 'newcomer', property: 'port', value: '4242' }).id
      const query = source.gaussianUnit()
      other.storeVectors(space.id, [rowFor(newcomer, 1, query)], NOW)
      const hits = index.search(stores.vectors, space, query, 10, undefined, { shortlist: 1, candidates: 1 })
      assert.equal(hits[0]?.id, newcomer)
      assert.ok(Math.abs((hits[0]?.score ?? 0) - 1) < 0.001)
      assert.equal(
        index.search(stores.vectors, space, vectors[3] ?? query, 10, undefined).some((hit) => hit.id === ids[3]),
        false,
      )
      assert.equal(index.footprint(stores.vectors, space.id).facts, 10)
    })

    it('scores a candidate from its stored sign bits when another connection replaces its vector during the search', () => {
      const source = vectorSource(64)
      const ids = seedFacts(stores, 30)
      embed(
        stores.vectors,
        ids,
        ids.map(() => source.gaussianUnit()),
      )
      const target = ids[7] ?? 0
      const replacement = source.gaussianUnit()
      const other = new VectorStore(h.db())
      // The rows are read after another process committed a new vector for the target (its codes held are the old ones).
      const racing = Object.create(stores.vectors) as VectorStore
      racing.magnitudeRows = (spaceId, factIds, visibility) => {
        other.storeVectors(space.id, [rowFor(target, 1, replacement)], NOW)
        return stores.vectors.magnitudeRows(spaceId, factIds, visibility)
      }
      const hits = index.search(racing, space, replacement, 30, undefined, { shortlist: 30, candidates: 30 })
      const [stored] = stores.vectors.rescoreRows(space.id, [target], undefined)
      const hit = hits.find((entry) => entry.id === target)
      assert.equal(
        hit?.score,
        cosineQuantized(replacement, stored?.quantized ?? new Int8Array(), stored?.scale ?? 0),
        "the stored vector's cosine",
      )
      assert.ok(Math.abs((hit?.score ?? 0) - 1) < 0.001)
    })

    it('never returns a fact hidden from the model under model visibility, before or after the prune', () => {
      const source = vectorSource(64)
      const ids = seedFacts(stores, 10)
      const vectors = ids.map(() => source.gaussianUnit())
      embed(stores.vectors, ids, vectors)
      h.db().run('UPDATE facts SET model_use_allowed = 0 WHERE id = ?', ids[2] ?? 0)
      const target = vectors[2] ?? new Float32Array()
      assert.equal(
        index.search(stores.vectors, space, target, 10, MODEL).some((hit) => hit.id === ids[2]),
        false,
      )
      assert.equal(
        index.search(stores.vectors, space, target, 10, { includeSensitive: true }).some((hit) => hit.id === ids[2]),
        false,
      )
      assert.equal(
        index.search(stores.vectors, space, target, 1, undefined)[0]?.id,
        ids[2],
        'the page, which sees every live fact, still finds it',
      )
    })

    it('answers nothing for a query of another dimension, or a space without vectors', () => {
      const source = vectorSource(64)
      const ids = seedFacts(stores, 5)
      assert.deepEqual(index.search(stores.vectors, space, source.gaussianUnit(), 5, MODEL), [])
      embed(
        stores.vectors,
        ids,
        ids.map(() => source.gaussianUnit()),
      )
      assert.deepEqual(index.search(stores.vectors, space, vectorSource(128).gaussianUnit(), 5, MODEL), [])
      assert.equal(index.search(stores.vectors, space, source.gaussianUnit(), 5, MODEL).length, 5)
    })

    describe('loaded ahead (the warm start)', () => {
      /** Count block reads through the real store methods, as the prune test does. */
      const countReads = (store: VectorStore): { whole: number; since: number; ranges: number } => {
        const reads = { whole: 0, since: 0, ranges: 0 }
        const blocksSince = store.blocksSince.bind(store)
        const blockRange = store.blockRange.bind(store)
        store.blocksSince = (spaceId, afterVersion) => {
          if (afterVersion < 0) reads.whole += 1
          else reads.since += 1
          return blocksSince(spaceId, afterVersion)
        }
        store.blockRange = (spaceId, from, to) => {
          reads.ranges += 1
          return blockRange(spaceId, from, to)
        }
        return reads
      }

      it('loads a space a slice at a time, pausing between slices, and its first search reads no block and answers as a cold load does', async () => {
        const source = vectorSource(64)
        const ids = seedFacts(stores, 300)
        const vectors = ids.map(() => source.gaussianUnit())
        embed(stores.vectors, ids, vectors)
        const reads = countReads(stores.vectors)
        let pauses = 0
        // Blocks of 64 slots: 300 vectors are 5 blocks, 3 slices of 2, then the warm-up search.
        const loaded = await index.preload(
          stores.vectors,
          space.id,
          async () => {
            pauses += 1
          },
          undefined,
          2,
        )
        assert.equal(loaded, 300)
        assert.equal(pauses, 4)
        assert.deepEqual(reads, { whole: 0, since: 0, ranges: 3 })
        const cold = new VectorIndex()
        for (const target of [vectors[0], vectors[150], vectors[299], source.gaussianUnit()]) {
          const query = target ?? source.gaussianUnit()
          assert.deepEqual(
            index.search(stores.vectors, space, query, 10, MODEL),
            cold.search(new VectorStore(h.db()), space, query, 10, MODEL),
          )
        }
        assert.deepEqual(reads, { whole: 0, since: 0, ranges: 3 }, 'the searches read no block')
      })

      it('finds what another connection wrote during the load, reading only the blocks written since', async () => {
        const source = vectorSource(64)
        const ids = seedFacts(stores, 200)
        embed(
          stores.vectors,
          ids,
          ids.map(() => source.gaussianUnit()),
        )
        const query = source.gaussianUnit()
        const newcomer = writeFact(h.memory, h.config, { subject: 'newcomer', property: 'port', value: '4242' }).id
        const other = new VectorStore(h.db())
        const reads = countReads(stores.vectors)
        let pauses = 0
        await index.preload(
          stores.vectors,
          space.id,
          async () => {
            pauses += 1
            // After the first slice: fact 0 (already read) gets the query as its vector, and a new fact a slot past the rest.
            if (pauses === 1)
              other.storeVectors(
                space.id,
                [rowFor(ids[0] ?? 0, 1, query), rowFor(newcomer, 1, source.near(query, 0.1))],
                NOW,
              )
          },
          undefined,
          2,
        )
        const hits = index.search(stores.vectors, space, query, 2, MODEL, { shortlist: 2, candidates: 2 })
        assert.deepEqual(
          hits.map((hit) => hit.id),
          [ids[0], newcomer],
        )
        // 200 vectors are 4 blocks, 2 slices; then one read of the blocks written since (by the warm-up search).
        assert.deepEqual(reads, { whole: 0, since: 1, ranges: 2 })
        assert.equal(index.footprint(stores.vectors, space.id).facts, 201)
      })

      it('lets a search that comes during the load finish it, reading only the blocks still to come, and then ends', async () => {
        const source = vectorSource(64)
        const ids = seedFacts(stores, 300)
        const vectors = ids.map(() => source.gaussianUnit())
        embed(stores.vectors, ids, vectors)
        const reads = countReads(stores.vectors)
        let found: number | undefined
        // 300 vectors are 5 blocks: the load reads blocks 0-1, then a search comes and reads 2-4 in one pass.
        const loaded = await index.preload(
          stores.vectors,
          space.id,
          async () => {
            found ??= index.search(stores.vectors, space, vectors[299] ?? source.gaussianUnit(), 1, MODEL)[0]?.id
          },
          undefined,
          2,
        )
        assert.equal(found, ids[299], 'the search found a vector of a block the load had not reached')
        assert.equal(loaded, 300)
        assert.deepEqual(reads, { whole: 0, since: 0, ranges: 2 })
        assert.equal(index.search(stores.vectors, space, vectors[9] ?? source.gaussianUnit(), 1, MODEL)[0]?.id, ids[9])
        assert.deepEqual(reads, { whole: 0, since: 0, ranges: 2 }, 'nothing read again')
      })

      it('keeps nothing when stopped between slices, and leaves an empty or missing space alone', async () => {
        const source = vectorSource(64)
        assert.equal(await index.preload(stores.vectors, space.id, async () => undefined), 0, 'an empty space')
        assert.equal(await index.preload(stores.vectors, space.id + 1, async () => undefined), 0, 'no such space')
        const ids = seedFacts(stores, 200)
        embed(
          stores.vectors,
          ids,
          ids.map(() => source.gaussianUnit()),
        )
        const stop = new AbortController()
        assert.equal(
          await index.preload(
            stores.vectors,
            space.id,
            async () => {
              stop.abort()
            },
            stop.signal,
            2,
          ),
          0,
        )
        assert.deepEqual(index.footprint(stores.vectors, space.id), { facts: 0, bytes: 0 })
        assert.equal(index.warm(stores.vectors, space.id), 200, 'a search still loads it')
      })
    })

    it("lets an emptied space's memory go", () => {
      const source = vectorSource(64)
      const ids = seedFacts(stores, 20)
      embed(
        stores.vectors,
        ids,
        ids.map(() => source.gaussianUnit()),
      )
      assert.equal(index.warm(stores.vectors, space.id), 20)
      assert.ok(index.footprint(stores.vectors, space.id).bytes > 0)
      h.db().run('UPDATE facts SET model_use_allowed = 0')
      new VectorStore(h.db()).pruneIneligible()
      assert.deepEqual(index.search(stores.vectors, space, source.gaussianUnit(), 5, undefined), [])
      assert.deepEqual(index.footprint(stores.vectors, space.id), { facts: 0, bytes: 0 })
    })

    it("holds 134 bytes a fact at 1024 dimensions (sign bits, fact id, a scan's distance) beside a fixed scratch", () => {
      const source = vectorSource(1024)
      const ids = seedFacts(stores, 3000)
      embed(
        stores.vectors,
        ids,
        ids.map(() => source.gaussianUnit()),
      )
      assert.equal(index.warm(stores.vectors, space.id), 3000)
      index.search(stores.vectors, space, source.gaussianUnit(), 20, MODEL)
      const { facts, bytes } = index.footprint(stores.vectors, space.id)
      assert.equal(facts, 3000)
      assert.ok(bytes >= 3000 * 134, `${bytes} bytes`)
      // The scratch: the query's table (128 KiB at 1,024 dimensions), the histogram, the shortlist; and a page of rounding.
      assert.ok(bytes - 3000 * 134 <= 150 * 1024 + 65_536, `${bytes - 3000 * 134} bytes beside the codes`)
    })
  })
}
