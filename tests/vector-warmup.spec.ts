/**
 * The vector index's warm start on a real file, both SQLite bindings: with an embedding channel configured, following
 * the configuration loads the space of the model in force in the background (status can then say what is held), once
 * per store and model; another model loads its own space; nothing is read while the channel is off; stopping keeps
 * nothing; and a store closed under the load leaves a warning, not an error.
 */
import { afterEach, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { prepareWrite } from '../src/fact-input.ts'
import type { ResolvedConfig } from '../src/config.ts'
import { embeddingSettings } from '../src/semantic/settings.ts'
import { VectorIndex } from '../src/semantic/vector-index.ts'
import { VectorWarmup } from '../src/semantic/vector-warmup.ts'
import type { StoreSet } from '../src/store/store-set.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { DRIVERS, makeConfig, openMemory, type MemoryHandle } from './helpers/store.ts'
import { rowFor, storesOf, vectorSource } from './helpers/vectors.ts'

const NOW = '2026-03-01T09:00:00.000Z'

/** The configuration with an embedding channel of a model (nothing is sent: the warm start only reads the store). */
function configFor(h: MemoryHandle, model: string | undefined): ResolvedConfig {
  return makeConfig(
    h.root,
    model === undefined
      ? {}
      : { embeddingSource: 'openai', embeddingBaseUrl: 'http://127.0.0.1:9/v1', embeddingModel: model },
  )
}

/** Give `n` new facts vectors in the space of a configuration's model. */
function embedFacts(stores: StoreSet, config: ResolvedConfig, n: number): void {
  const settings = embeddingSettings(config)
  if (!settings.configured) throw new Error('not configured')
  const space = stores.vectors.ensureSpace(settings.fingerprint, settings.identity, NOW)
  const ids = stores.db.transaction(() =>
    Array.from({ length: n }, (_, i) => {
      const prepared = prepareWrite(
        {
          subject: `service-${settings.identity.model}-${i}`,
          property: 'port',
          value: String(10_000 + i),
          evidence: 'observed',
          origin: 'tool',
        },
        NOW,
        { refuseCredentials: true, timeZone: 'UTC' },
      )
      if (!prepared.ok) throw new Error('not prepared')
      const result = stores.facts.write(prepared.write, NOW)
      if (result.kind !== 'saved') throw new Error(result.kind)
      return result.fact.id
    }),
  )
  const source = vectorSource(64)
  stores.vectors.fixDimension(space.id, 64)
  stores.vectors.storeVectors(
    space.id,
    ids.map((id) => rowFor(id, 1, source.gaussianUnit())),
    NOW,
  )
}

for (const driver of DRIVERS) {
  describe(`the vector index's warm start (${driver})`, () => {
    let h: MemoryHandle
    let index: VectorIndex
    let warnings: string[]
    let reads: number
    let warmup: VectorWarmup
    const stores = (): StoreSet | undefined => {
      const open = h.memory.storeSet()
      return 'stores' in open ? open.stores : undefined
    }

    beforeEach(() => {
      h = openMemory(driver, new FakeClock(NOW))
      index = new VectorIndex()
      warnings = []
      reads = 0
      const vectors = storesOf(h.memory).vectors
      const blockRange = vectors.blockRange.bind(vectors)
      vectors.blockRange = (spaceId, from, to) => {
        reads += 1
        return blockRange(spaceId, from, to)
      }
      warmup = new VectorWarmup({
        index,
        stores,
        logger: {
          warn: (format, ...args) => {
            warnings.push([format, ...args].join(' '))
          },
        },
      })
    })
    afterEach(async () => {
      await warmup.stop()
      h.dispose()
    })

    it('loads the space of the model in force once, in the background, and says what it holds', async () => {
      const config = configFor(h, 'embed-a')
      embedFacts(storesOf(h.memory), config, 300)
      assert.equal(warmup.held(config), undefined, 'nothing held before the load')
      warmup.follow(config)
      assert.equal(reads, 0, "nothing is read inside the configuration's own call")
      await warmup.whenLoaded()
      const held = warmup.held(config)
      assert.equal(held?.vectors, 300)
      assert.ok((held?.bytes ?? 0) >= 300 * 12, JSON.stringify(held))
      assert.ok(reads > 0)
      const before = reads
      warmup.follow(config)
      await warmup.whenLoaded()
      assert.equal(reads, before, 'the same store and model are not loaded again')
      assert.deepEqual(warnings, [])
    })

    it("loads another model's space when the model changes", async () => {
      const first = configFor(h, 'embed-a')
      const second = configFor(h, 'embed-b')
      embedFacts(storesOf(h.memory), first, 20)
      embedFacts(storesOf(h.memory), second, 30)
      warmup.follow(first)
      await warmup.whenLoaded()
      warmup.follow(second)
      await warmup.whenLoaded()
      assert.equal(warmup.held(first)?.vectors, 20)
      assert.equal(warmup.held(second)?.vectors, 30)
    })

    it('reads nothing while the channel is off or the plugin is disabled', async () => {
      embedFacts(storesOf(h.memory), configFor(h, 'embed-a'), 20)
      warmup.follow(configFor(h, undefined))
      warmup.follow({ ...configFor(h, 'embed-a'), enabled: false })
      warmup.follow(undefined)
      await warmup.whenLoaded()
      assert.equal(reads, 0)
      assert.equal(warmup.held(configFor(h, 'embed-a')), undefined)
    })

    it('keeps nothing when stopped during the load', async () => {
      const config = configFor(h, 'embed-a')
      embedFacts(storesOf(h.memory), config, 300)
      let pauses = 0
      // The first pause comes before the load, the second after its first slice.
      const stopping = new VectorWarmup({
        index,
        stores,
        logger: { warn: () => undefined },
        pause: async () => {
          if ((pauses += 1) === 2) void stopping.stop()
        },
      })
      stopping.follow(config)
      await stopping.whenLoaded()
      assert.equal(pauses, 2)
      assert.ok(reads > 0, 'a slice was read')
      assert.equal(warmup.held(config), undefined)
    })

    it('leaves a warning, not an error, when the store closes under the load', async () => {
      const config = configFor(h, 'embed-a')
      embedFacts(storesOf(h.memory), config, 20)
      const open = storesOf(h.memory)
      let pauses = 0
      const closing = new VectorWarmup({
        index,
        stores: () => open,
        logger: {
          warn: (format, ...args) => {
            warnings.push([format, ...args].join(' '))
          },
        },
        // The first pause comes before the load, the second after its first slice: the store closes under the load.
        pause: async () => {
          pauses += 1
          if (pauses === 2) open.db.close()
        },
      })
      closing.follow(config)
      await closing.whenLoaded()
      assert.ok(reads > 0, 'a slice was read before the store closed')
      assert.equal(warnings.length, 1, warnings.join('\n'))
      assert.match(warnings[0] ?? '', /the vector index was not loaded ahead/u)
    })
  })
}
