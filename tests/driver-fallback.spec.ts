/**
 * Binding choice: `auto` prefers better-sqlite3 and falls back to the built-in node:sqlite when the native binding
 * cannot load; the status reports which one serves the store; both bindings read each other's files.
 */
import { afterEach, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { FactMemory } from '../src/fact-memory.ts'
import { loadBetterSqlite, type BetterSqliteLoader } from '../src/store/connection.ts'
import { Database } from '../src/store/database.ts'
import { FactStore } from '../src/store/fact-store.ts'
import { prepareWrite } from '../src/fact-input.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { DRIVERS, expectKind, makeConfig, removeDir, tempDir, write } from './helpers/store.ts'

const now = (): string => '2026-03-01T09:00:00.000Z'

/** A loader that fails the way a missing native binding does. */
const missingBinding: BetterSqliteLoader = () => {
  throw new Error('Could not locate the bindings file. Tried:\n → /nowhere/build/Release/better_sqlite3.node')
}

/** A loader whose module loads but whose binding fails on first use. */
const brokenBinding: BetterSqliteLoader = () => {
  const Real = loadBetterSqlite()
  return new Proxy(Real, {
    construct() {
      throw new Error('The module was compiled against a different Node.js version using NODE_MODULE_VERSION 115.')
    },
  })
}

describe('driver choice', () => {
  let root: string
  beforeEach(() => {
    root = tempDir()
  })
  afterEach(() => {
    removeDir(root)
  })

  it('falls back to node:sqlite under auto when better-sqlite3 cannot load, and says why', () => {
    const db = Database.open({ dataDir: join(root, 'fallback'), driver: 'auto', loader: missingBinding, now })
    try {
      assert.equal(db.driver, 'node:sqlite')
      assert.equal(db.fallbackReason, 'Could not locate the bindings file. Tried:')
      const store = new FactStore(db)
      const prepared = prepareWrite(
        { subject: '支付服务', property: '端口', value: '7801', evidence: 'explicit_user', origin: 'tool' },
        now(),
        { refuseCredentials: true, timeZone: 'UTC' },
      )
      assert.ok(prepared.ok)
      const result = store.write(prepared.write, now())
      assert.equal(result.kind, 'saved')
      assert.equal(db.generation(), 1)
    } finally {
      db.close()
    }
  })

  it('falls back under auto when the binding loads but fails on first use', () => {
    const db = Database.open({ dataDir: join(root, 'abi'), driver: 'auto', loader: brokenBinding, now })
    try {
      assert.equal(db.driver, 'node:sqlite')
      assert.match(db.fallbackReason ?? '', /NODE_MODULE_VERSION/u)
    } finally {
      db.close()
    }
  })

  it('uses better-sqlite3 under auto with the real loader, with no fallback reason', () => {
    const db = Database.open({ dataDir: join(root, 'auto'), driver: 'auto', now })
    try {
      assert.equal(db.driver, 'better-sqlite3')
      assert.equal(db.fallbackReason, undefined)
    } finally {
      db.close()
    }
  })

  it('reports storage_unavailable instead of falling back when better-sqlite3 is demanded and missing', () => {
    assert.throws(
      () => Database.open({ dataDir: join(root, 'demanded'), driver: 'better-sqlite3', loader: missingBinding, now }),
      (error: unknown) => error instanceof Error && 'code' in error && error.code === 'storage_unavailable',
    )
  })

  it('reports the serving driver and the fallback reason in FactMemory.status()', () => {
    const clock = new FakeClock()
    const fallback = new FactMemory({ clock, driver: 'auto', loader: missingBinding })
    fallback.open(join(root, 'status-fallback'))
    const config = makeConfig(root)
    try {
      const status = fallback.status()
      assert.equal(status.available, true)
      assert.equal(status.driver, 'node:sqlite')
      assert.match(status.fallbackReason ?? '', /bindings file/u)
      expectKind(write(fallback, config, { subject: 'payments API', property: 'region', value: 'eu-west-1' }), 'saved')
      assert.equal(
        fallback.searchLexical({ query: 'payments region', limit: 5, asOf: undefined }, config).outcome,
        'ok',
      )
    } finally {
      fallback.close()
    }

    const native = new FactMemory({ clock })
    native.open(join(root, 'status-native'))
    try {
      const status = native.status()
      assert.equal(status.driver, 'better-sqlite3')
      assert.equal(status.fallbackReason, null)
    } finally {
      native.close()
    }
    assert.equal(native.status().driver, null, 'a closed store reports no driver')
  })
})

for (const writer of DRIVERS) {
  const reader = writer === 'better-sqlite3' ? 'node:sqlite' : 'better-sqlite3'
  describe(`a store written with ${writer} (read with ${reader})`, () => {
    let root: string
    beforeEach(() => {
      root = tempDir()
    })
    afterEach(() => {
      removeDir(root)
    })

    it('reads every fact, its history, conflicts, tombstones and the generation written by the other driver', () => {
      const dataDir = join(root, 'shared')
      const clock = new FakeClock('2026-03-01T09:00:00.000Z')
      const config = makeConfig(root, { dataDir })
      const first = new FactMemory({ clock, driver: writer })
      first.open(dataDir)
      assert.equal(first.status().driver, writer)
      expectKind(
        write(first, config, { subject: '支付服务', property: '端口', value: '7801', evidence: 'explicit_user' }),
        'saved',
      )
      clock.advance(3_600_000)
      expectKind(
        write(first, config, { subject: '支付服务', property: '端口', value: '7802', evidence: 'explicit_user' }),
        'saved',
      )
      expectKind(
        write(first, config, {
          subject: 'payments API',
          property: 'region',
          value: 'eu-west-1',
          evidence: 'explicit_user',
        }),
        'saved',
      )
      expectKind(
        write(first, config, { subject: 'payments API', property: 'region', value: 'us-east-1', evidence: 'observed' }),
        'conflict',
      )
      const forgotten = expectKind(
        write(first, config, { subject: 'billing job', property: 'namespace', value: 'billing-prod' }),
        'saved',
      )
      assert.equal(first.forgetById(forgotten.fact.id).kind, 'forgotten')
      const written = first.status()
      first.close()

      const second = new FactMemory({ clock, driver: reader })
      second.open(dataDir)
      try {
        const status = second.status()
        assert.equal(status.driver, reader)
        assert.equal(status.storeId, written.storeId)
        assert.equal(status.generation, written.generation)
        assert.deepEqual(status.counts, written.counts)
        const port = second.searchLexical({ query: '支付服务的端口', limit: 5, asOf: undefined }, config)
        assert.deepEqual(
          port.results[0]?.values.map((row) => [row.value, row.status]),
          [
            ['7802', 'active'],
            ['7801', 'superseded'],
          ],
        )
        assert.equal(
          second.searchLexical({ query: 'payments region', limit: 5, asOf: undefined }, config).outcome,
          'needs_selection',
        )
        assert.equal(
          second.searchLexical({ query: 'billing-prod', limit: 5, asOf: undefined }, config).outcome,
          'not_found',
        )
        expectKind(
          write(second, config, { subject: 'billing job', property: 'namespace', value: 'billing-prod' }),
          'refused',
        )
        expectKind(
          write(second, config, { subject: '支付服务', property: '端口', value: '7803', evidence: 'explicit_user' }),
          'saved',
        )
        assert.equal(second.status().generation, written.generation + 1)
      } finally {
        second.close()
      }
    })
  })
}
