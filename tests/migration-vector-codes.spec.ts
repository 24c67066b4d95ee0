/**
 * Upgrading a store that holds vectors to the code blocks (sql/migrations/*-vector-codes.sql), both SQLite bindings:
 * a store written before, with vectors in two spaces of different dimensions (one crossing a block, one whose codes
 * do not fill whole words), replaced vectors (so rowid order is not fact order) and hidden and forgotten facts, reads
 * back every vector exactly after the migration, its blocks hold every sign code in rowid order, and a search answers
 * what the scan of before answered on the same rows: the same coarse ranking over the codes in rowid order, the same
 * exact rescoring.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createHash } from 'node:crypto'
import { cosineQuantized, quantize } from '../src/semantic/quantize.ts'
import { VectorIndex, type ScanWidth } from '../src/semantic/vector-index.ts'
import { Database } from '../src/store/database.ts'
import { defaultMigrationsDir, readMigrations } from '../src/store/migrate.ts'
import { VectorStore } from '../src/store/vector-store.ts'
import { coarseRank } from './helpers/coarse-oracle.ts'
import { DRIVERS, openAtVersion, removeDir, tempDir } from './helpers/store.ts'
import { vectorSource } from './helpers/vectors.ts'

const NOW = '2026-03-01T09:00:00.000Z'

/** The raw rows below follow the schema as migration 0018 (aliases) left it, before any layout work. */
const ROWS_FOLLOW = '-aliases.sql'

const FACT = `INSERT INTO facts (id, entity_id, subject, property, predicate_key, value, scope, slot_key, claim_key, evidence_key, status,
    evidence, evidence_rank, model_use_allowed, observed_at, recorded_at, valid_from, origin, updated_at)
  VALUES (?, 1, ?, 'port', 'port', ?, 'global', ?, ?, ?, ?, 'observed', 2, ?, ?, ?, ?, 'tool', ?)`
const VECTOR = `INSERT INTO fact_vectors (space_id, fact_id, revision, text_hash, scale, bits, quantized, embedded_at)
  VALUES (?, ?, 1, ?, ?, ?, ?, ?)`

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')

/** A vector as the old rows held it. */
interface OldRow {
  readonly rowId: number
  readonly spaceId: number
  readonly factId: number
  readonly textHash: string
  readonly scale: number
  readonly bits: Uint8Array
  readonly quantized: Int8Array
}

/** What the scan before the migration answered: coarse ranking over the codes in rowid order, exact rescoring. */
function searchBefore(
  rows: readonly OldRow[],
  visible: (factId: number) => boolean,
  query: Float32Array,
  depth: number,
  width: ScanWidth,
): { id: number; score: number }[] {
  const ordered = [...rows].sort((a, b) => a.rowId - b.rowId)
  const slots = coarseRank(
    ordered.map((row) => row.bits),
    query,
    width.shortlist,
    Math.max(width.candidates, depth),
  )
  return Array.from(slots, (slot) => ordered[slot])
    .filter((row): row is OldRow => row !== undefined && visible(row.factId))
    .map((row) => ({ id: row.factId, score: cosineQuantized(query, row.quantized, row.scale) }))
    .sort((a, b) => b.score - a.score || b.id - a.id)
    .slice(0, depth)
}

for (const driver of DRIVERS) {
  describe(`migration to vector code blocks (${driver})`, () => {
    it('reads back every vector of two spaces exactly, holds every code in its block, and answers searches as before', () => {
      const root = tempDir()
      try {
        const migrations = readMigrations(defaultMigrationsDir())
        const before = migrations.find((entry) => entry.name.endsWith(ROWS_FOLLOW))
        assert.ok(before !== undefined && migrations.some((entry) => entry.name.endsWith('-vector-codes.sql')))
        const { db: old, dataDir } = openAtVersion(root, before.version, driver, () => NOW)
        old.run(`INSERT INTO entities (id, entity_key, display, created_at) VALUES (1, 'services', 'services', ?)`, NOW)
        const FACTS = 90
        const hidden = 7
        const forgotten = 11
        old.transaction(() => {
          for (let id = 1; id <= FACTS; id += 1) {
            old.run(
              FACT,
              id,
              `service-${id}`,
              String(7000 + id),
              sha256(`slot-${id}`),
              sha256(`claim-${id}`),
              sha256(`evidence-${id}`),
              id === forgotten ? 'forgotten' : 'active',
              id === hidden ? 0 : 1,
              NOW,
              NOW,
              NOW,
              NOW,
            )
          }
        })
        const spaces = [
          { fingerprint: 'emb-a', dim: 64, facts: 80 },
          { fingerprint: 'emb-b', dim: 96, facts: 30 },
        ].map((space) => {
          old.run(
            `INSERT INTO vector_spaces (fingerprint, provider, base_url, model, dim, created_at) VALUES (?, 'openai', 'http://127.0.0.1:9/v1', 'm', ?, ?)`,
            space.fingerprint,
            space.dim,
            NOW,
          )
          const id = Number(old.get('SELECT id FROM vector_spaces WHERE fingerprint = ?', space.fingerprint)?.['id'])
          return { ...space, id, source: vectorSource(space.dim, space.dim) }
        })
        const store = (spaceId: number, factId: number, unit: Float32Array, hash: string): void => {
          const { scale, bits, quantized } = quantize(unit)
          old.run('DELETE FROM fact_vectors WHERE space_id = ? AND fact_id = ?', spaceId, factId)
          old.run(VECTOR, spaceId, factId, hash, scale, bits, new Uint8Array(quantized.buffer), NOW)
        }
        old.transaction(() => {
          for (const space of spaces) {
            // Facts in reverse for the second space, so rowid order differs from fact order there.
            const ids = Array.from({ length: space.facts }, (_, i) => (space.dim === 64 ? i + 1 : FACTS - i))
            for (const id of ids) store(space.id, id, space.source.gaussianUnit(), sha256(`text-${space.id}-${id}`))
          }
          // Replaced vectors take new rowids, as the old store did; one row's hash is a label, not SHA-256.
          for (const id of [3, 40, 64, 65])
            store(spaces[0]?.id ?? 0, id, spaces[0]?.source.gaussianUnit() ?? new Float32Array(), sha256(`again-${id}`))
          store(spaces[1]?.id ?? 0, FACTS, spaces[1]?.source.gaussianUnit() ?? new Float32Array(), 'hash-label')
        })
        const oldRows = old
          .all('SELECT id, space_id, fact_id, text_hash, scale, bits, quantized FROM fact_vectors ORDER BY id')
          .map((row): OldRow => {
            const bytes = row['quantized'] as Uint8Array
            return {
              rowId: Number(row['id']),
              spaceId: Number(row['space_id']),
              factId: Number(row['fact_id']),
              textHash: String(row['text_hash']),
              scale: Number(row['scale']),
              bits: Uint8Array.from(row['bits'] as Uint8Array),
              quantized: Int8Array.from(new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)),
            }
          })
        old.close()

        const upgraded = Database.open({ dataDir, driver, now: () => NOW })
        try {
          assert.equal(Number(upgraded.get('PRAGMA user_version')?.['user_version']), migrations.length)
          const vectors = new VectorStore(upgraded)
          const index = new VectorIndex()
          for (const space of spaces) {
            const rows = oldRows.filter((row) => row.spaceId === space.id)
            const state = vectors.spaceState(space.id)
            assert.deepEqual(
              { count: state.count, slotCount: state.slotCount, dim: state.dim },
              { count: rows.length, slotCount: rows.length, dim: space.dim },
            )
            assert.deepEqual(vectors.freeSlots(space.id), [])
            // Every vector reads back exactly, through the rescoring read and the review's read.
            const ids = rows.map((row) => row.factId)
            const rescored = new Map(vectors.rescoreRows(space.id, ids, undefined).map((row) => [row.factId, row]))
            const reviewed = vectors.vectorsOf(space.id, ids)
            for (const row of rows) {
              for (const read of [rescored.get(row.factId), reviewed.get(row.factId)]) {
                if (row.factId === forgotten && read === rescored.get(row.factId)) {
                  assert.equal(read, undefined, 'the rescoring never reads a forgotten fact')
                  continue
                }
                assert.equal(read?.scale, row.scale, `scale of fact ${row.factId}`)
                assert.deepEqual(
                  Array.from(read?.quantized ?? []),
                  Array.from(row.quantized),
                  `components of fact ${row.factId}`,
                )
              }
            }
            // The blocks hold each code in the slot of its row's rank in rowid order.
            const bytes = Math.ceil(space.dim / 8)
            const codes = new Map<number, { factId: number; bits: number[] }>()
            for (const block of vectors.blocksSince(space.id, -1)) {
              block.factIds.forEach((factId, i) =>
                codes.set(block.blockNo * state.blockSlots + i, {
                  factId,
                  bits: Array.from(block.codes.subarray(i * bytes, (i + 1) * bytes)),
                }),
              )
            }
            rows.forEach((row, slot) =>
              assert.deepEqual(codes.get(slot), { factId: row.factId, bits: Array.from(row.bits) }, `slot ${slot}`),
            )
            assert.equal(codes.size, rows.length)
            // Text hashes as their bytes; the label that was no hash reads as zeros, which no text hashes to.
            const hashes = new Map(
              upgraded
                .all('SELECT fact_id, lower(hex(text_hash)) AS hash FROM fact_vectors WHERE space_id = ?', space.id)
                .map((row) => [Number(row['fact_id']), String(row['hash'])]),
            )
            for (const row of rows)
              assert.equal(hashes.get(row.factId), row.textHash === 'hash-label' ? '0'.repeat(64) : row.textHash)
            // Searches answer as before, under model visibility and for the page, at the shipped width and a narrow one.
            for (const width of [undefined, { shortlist: 12, candidates: 6 }]) {
              for (const visibility of [{ includeSensitive: false }, undefined]) {
                const visible = (factId: number): boolean =>
                  factId !== forgotten && (visibility === undefined || factId !== hidden)
                for (let q = 0; q < 8; q += 1) {
                  // Half the queries near a stored vector, half anywhere.
                  const base = rows[(q * 13) % rows.length]
                  const query =
                    q % 2 === 0 && base !== undefined
                      ? space.source.near(unitOf(base), 0.5)
                      : space.source.gaussianUnit()
                  const expected = searchBefore(rows, visible, query, 5, width ?? { shortlist: 1000, candidates: 200 })
                  const got = index.search(vectors, { id: space.id }, query, 5, visibility, width)
                  assert.deepEqual(got, expected, `query ${q} of ${space.fingerprint}`)
                  assert.ok(got.length > 0)
                }
              }
            }
          }
          assert.equal(
            upgraded.get(`SELECT name FROM sqlite_schema WHERE name = 'fact_vectors_by_fact'`),
            undefined,
            'the unique index serves the cascade',
          )
        } finally {
          upgraded.close()
        }
      } finally {
        removeDir(root)
      }
    })
  })
}

/** The dequantized (unit) vector of a stored row. */
function unitOf(row: OldRow): Float32Array {
  return Float32Array.from(row.quantized, (component) => component * row.scale)
}
