/**
 * VectorStore: every read and write of the vector spaces and the quantized fact vectors. Only facts that may leave
 * the machine are ever listed for embedding or given a vector: not forgotten, no sensitivity mark, usable by the
 * model. Vectors are bookkeeping derived from the facts: every write goes through `Database.ledger` and never moves
 * the store generation, and every change to a space's vectors bumps that space's `version` in the same transaction
 * (where the schema's triggers keep its `vector_count`), so an in-memory scan index (in this process or another one
 * sharing the file) knows when to look again. Rows are replaced by DELETE + INSERT under AUTOINCREMENT, so a changed
 * vector always gets a rowid above every earlier one.
 */
import { FactMemoryError } from '../errors.ts'
import type { Database } from './database.ts'
import { chunks, MODEL_VISIBLE, placeholders } from './fact-rows.ts'
import type { Visibility } from './fact-reader.ts'

/** The condition (on `facts f`) for a fact whose text may be sent to an embedding endpoint. */
const EMBEDDABLE = `f.status <> 'forgotten' AND f.sensitivity IS NULL AND f.model_use_allowed = 1`

/** Ids per IN list, under SQLite's bind limit. */
const CHUNK = 500

/** One embedding fingerprint's space of vectors. */
export interface VectorSpace {
  /** The vector generation: a review verdict of the vector leg is remembered under it. */
  readonly id: number
  readonly fingerprint: string
  /** Fixed by the first vector stored; 0 until then. */
  readonly dim: number
  /** Counts every change to the space's vectors. */
  readonly version: number
}

/** What a space was made for (shown by status). */
export interface SpaceIdentity {
  readonly provider: string
  readonly baseUrl: string
  readonly model: string
}

/** A fact that needs a vector (or a check that its vector still matches its text). */
export interface FactToEmbed {
  readonly id: number
  readonly revision: number
  readonly subject: string
  readonly property: string
  readonly qualifiers: Readonly<Record<string, string>>
  readonly value: string
  /** The text hash of the vector the space holds for the fact, or null when it holds none. */
  readonly storedHash: string | null
}

/** A vector to store. */
export interface VectorRow {
  readonly factId: number
  /** The fact's revision when its text was read. */
  readonly revision: number
  readonly textHash: string
  readonly scale: number
  readonly bits: Uint8Array
  readonly quantized: Int8Array
}

/** A space's live state, for deciding whether an in-memory index must reload. */
export interface SpaceState {
  readonly version: number
  readonly dim: number
  /** Vectors in the space. */
  readonly count: number
}

/** A stored code for the coarse scan. */
export interface StoredCode {
  readonly rowId: number
  readonly factId: number
  readonly bits: Uint8Array
}

/** A stored vector for the exact rescoring. */
export interface StoredVector {
  readonly scale: number
  readonly quantized: Int8Array
}

/**
 * How many current facts (active, scheduled, contested) a space covers: the counts a person compares with the current
 * facts. History rows get vectors too (a search may find an old value), but are not counted here.
 */
export interface VectorCoverage {
  /** Embeddable, with a vector at the fact's revision in this space. */
  readonly current: number
  /** Embeddable, with a vector in this space at an older revision, or only in another space. */
  readonly stale: number
  /** Embeddable, with no vector anywhere. */
  readonly missing: number
  /** Sensitive or hidden from the model: never embedded. */
  readonly excluded: number
}

/** The vector spaces and fact vectors. */
export class VectorStore {
  private readonly db: Database

  /** @param db - an open, migrated database. */
  constructor(db: Database) {
    this.db = db
  }

  /**
   * The space of a fingerprint, created when missing.
   * @param fingerprint - the embedding fingerprint.
   * @param identity - what the space is for (recorded on creation only).
   * @param now - ISO timestamp.
   * @returns the space.
   */
  ensureSpace(fingerprint: string, identity: SpaceIdentity, now: string): VectorSpace {
    this.db.ledger(() => {
      // The caller passes the base URL as it may be shown (no user info or query); the fingerprint covers the rest.
      this.db.run('INSERT OR IGNORE INTO vector_spaces (fingerprint, provider, base_url, model, created_at) VALUES (?, ?, ?, ?, ?)',
        fingerprint, identity.provider, identity.baseUrl, identity.model, now)
    })
    const space = this.space(fingerprint)
    if (space === undefined) throw new FactMemoryError('internal_error', `the vector space ${fingerprint} was not created`)
    return space
  }

  /**
   * @param fingerprint - the embedding fingerprint.
   * @returns its space, or undefined when none was made.
   */
  space(fingerprint: string): VectorSpace | undefined {
    const row = this.db.get('SELECT id, fingerprint, dim, version FROM vector_spaces WHERE fingerprint = ?', fingerprint)
    return row === undefined ? undefined : { id: Number(row['id']), fingerprint: String(row['fingerprint']), dim: Number(row['dim']), version: Number(row['version']) }
  }

  /**
   * Fix a space's dimension, once.
   * @param spaceId - the space.
   * @param dim - the dimension of its first vectors.
   * @returns the dimension in force afterwards: `dim`, or the one fixed earlier (the caller compares).
   */
  fixDimension(spaceId: number, dim: number): number {
    this.db.ledger(() => {
      this.db.run('UPDATE vector_spaces SET dim = ? WHERE id = ? AND dim = 0', dim, spaceId)
    })
    return Number(this.db.get('SELECT dim FROM vector_spaces WHERE id = ?', spaceId)?.['dim'] ?? 0)
  }

  /**
   * Embeddable facts without a vector in the space, or whose vector was checked at another revision, oldest first.
   * Sensitive, hidden and forgotten facts are never listed: their text must not reach an endpoint.
   * @param spaceId - the space.
   * @param limit - how many at most.
   * @param since - only facts changed (updated_at) at or after this ISO instant, read through their index: the sweep
   *   a write asks for looks at what changed lately instead of every fact.
   * @param afterId - only facts with a larger id (the sweep's cursor).
   * @returns the facts with the stored vector's text hash, if any.
   */
  factsNeedingVectors(spaceId: number, limit: number, since?: string, afterId = 0): FactToEmbed[] {
    const changed = since === undefined ? '' : 'AND f.updated_at >= ?'
    // Without the hint the planner walks every fact in id order to honour ORDER BY … LIMIT.
    const facts = since === undefined ? 'facts f' : 'facts f INDEXED BY facts_by_updated'
    return this.db.all(
      `SELECT f.id, f.revision, f.subject, f.property, f.qualifiers, f.value, v.text_hash
        FROM ${facts} LEFT JOIN fact_vectors v ON v.space_id = ? AND v.fact_id = f.id
        WHERE ${EMBEDDABLE} AND (v.id IS NULL OR v.revision <> f.revision) AND f.id > ? ${changed}
        ORDER BY f.id LIMIT ?`, spaceId, afterId, ...(since === undefined ? [] : [since]), limit,
    ).map((row) => ({
      id: Number(row['id']),
      revision: Number(row['revision']),
      subject: String(row['subject']),
      property: String(row['property']),
      qualifiers: JSON.parse(String(row['qualifiers'])) as Record<string, string>,
      value: String(row['value']),
      storedHash: row['text_hash'] === null || row['text_hash'] === undefined ? null : String(row['text_hash']),
    }))
  }

  /**
   * Record that vectors still match their facts' text at a new revision (a change of status, say): the vectors stay
   * as they are, so the version does not move.
   * @param spaceId - the space.
   * @param checks - the facts and the revisions their text was read at.
   */
  recheck(spaceId: number, checks: readonly { readonly factId: number; readonly revision: number }[]): void {
    this.db.ledger(() => {
      for (const check of checks) {
        this.db.run('UPDATE fact_vectors SET revision = ? WHERE space_id = ? AND fact_id = ?', check.revision, spaceId, check.factId)
      }
    })
  }

  /**
   * Store vectors, replacing each fact's earlier one with a row of a new rowid; bumps the version when anything
   * changed. A fact deleted, forgotten, marked sensitive or hidden since its text was read gets no vector (and loses
   * its old one).
   * @param spaceId - the space; its dimension must be fixed.
   * @param rows - the vectors.
   * @param now - ISO timestamp.
   * @returns how many were stored.
   * @throws FactMemoryError `invalid_arguments` when a row's length disagrees with the space's dimension (nothing is
   *   written).
   */
  storeVectors(spaceId: number, rows: readonly VectorRow[], now: string): number {
    const dim = Number(this.db.get('SELECT dim FROM vector_spaces WHERE id = ?', spaceId)?.['dim'] ?? 0)
    const wrong = rows.find((row) => row.quantized.length !== dim || row.bits.length !== Math.ceil(dim / 8))
    if (wrong !== undefined) {
      throw new FactMemoryError('invalid_arguments', `the vector of fact ${wrong.factId} has ${wrong.quantized.length} components; the space holds ${dim}`)
    }
    return this.db.ledger(() => {
      let stored = 0
      for (const row of rows) {
        this.db.run('DELETE FROM fact_vectors WHERE space_id = ? AND fact_id = ?', spaceId, row.factId)
        const inserted = this.db.run(
          `INSERT INTO fact_vectors (space_id, fact_id, revision, text_hash, scale, bits, quantized, embedded_at)
            SELECT ?, f.id, ?, ?, ?, ?, ?, ? FROM facts f WHERE f.id = ? AND ${EMBEDDABLE}`,
          spaceId, row.revision, row.textHash, row.scale, row.bits, bytesOf(row.quantized), now, row.factId).changes
        stored += inserted
      }
      return stored
    })
  }

  /**
   * Delete the vectors of facts now forgotten, sensitive or hidden from the model, in every space.
   * @param since - only facts changed at or after this ISO instant (their index), as in {@link factsNeedingVectors}.
   * @returns how many were deleted.
   */
  pruneIneligible(since?: string): number {
    return this.db.ledger(() => {
      const doomed = since === undefined
        ? this.db.all(`SELECT v.id, v.space_id FROM fact_vectors v JOIN facts f ON f.id = v.fact_id WHERE NOT (${EMBEDDABLE})`)
        : this.db.all(`SELECT v.id, v.space_id FROM facts f JOIN fact_vectors v ON v.fact_id = f.id WHERE f.updated_at >= ? AND NOT (${EMBEDDABLE})`, since)
      for (const chunk of chunks(doomed.map((row) => Number(row['id'])), CHUNK)) {
        this.db.run(`DELETE FROM fact_vectors WHERE id IN (${placeholders(chunk.length)})`, ...chunk)
      }
      return doomed.length
    })
  }

  /**
   * Delete every vector of every space ("Clear everything"); nested in a caller's transaction it is part of it.
   * @returns how many were deleted.
   */
  clearVectors(): number {
    return this.db.ledger(() => clearVectorRows(this.db))
  }

  /**
   * @param spaceId - the space.
   * @returns its version, or undefined when there is no such space. One indexed row: cheap enough for every query.
   */
  version(spaceId: number): number | undefined {
    const row = this.db.get('SELECT version FROM vector_spaces WHERE id = ?', spaceId)
    return row === undefined ? undefined : Number(row['version'])
  }

  /**
   * @param spaceId - the space.
   * @returns its version, dimension and vector count (zeros for a missing space), all from the space's one row: the
   *   count is kept by the schema's triggers, so the three agree with each other and reading them costs no scan.
   */
  spaceState(spaceId: number): SpaceState {
    const space = this.db.get('SELECT version, dim, vector_count FROM vector_spaces WHERE id = ?', spaceId)
    return {
      version: Number(space?.['version'] ?? 0),
      dim: Number(space?.['dim'] ?? 0),
      count: Number(space?.['vector_count'] ?? 0),
    }
  }

  /**
   * The sign bits of the space's vectors stored after a rowid, in rowid order.
   * @param spaceId - the space.
   * @param afterRowId - 0 for every vector.
   * @returns the codes.
   */
  codesAfter(spaceId: number, afterRowId: number): StoredCode[] {
    // `+space_id` keeps the planner on the rowid range: the space's index would read every row of it and sort them.
    return this.db.all('SELECT id, fact_id, bits FROM fact_vectors WHERE id > ? AND +space_id = ? ORDER BY id', afterRowId, spaceId)
      .map((row) => ({ rowId: Number(row['id']), factId: Number(row['fact_id']), bits: row['bits'] as Uint8Array }))
  }

  /**
   * The stored vectors of candidate facts, for the exact rescoring: forgotten facts never, and under model visibility
   * only what the model may read.
   * @param spaceId - the space.
   * @param factIds - the candidates.
   * @param visibility - model visibility, or undefined for every live fact.
   * @returns one entry per candidate that has a vector and passes, in no particular order.
   */
  rescoreRows(spaceId: number, factIds: readonly number[], visibility: Visibility | undefined): (StoredVector & { readonly factId: number })[] {
    const out: (StoredVector & { readonly factId: number })[] = []
    const model = visibility === undefined ? 0 : 1
    const sensitive = visibility?.includeSensitive === true ? 1 : 0
    for (const chunk of chunks(factIds, CHUNK)) {
      for (const row of this.db.all(
        `SELECT v.fact_id, v.scale, v.quantized FROM fact_vectors v JOIN facts f ON f.id = v.fact_id
          WHERE v.space_id = ? AND v.fact_id IN (${placeholders(chunk.length)}) AND f.status <> 'forgotten' AND (? = 0 OR (${MODEL_VISIBLE}))`,
        spaceId, ...chunk, model, sensitive)) {
        out.push({ factId: Number(row['fact_id']), ...vectorOf(row['scale'], row['quantized']) })
      }
    }
    return out
  }

  /**
   * Which of these facts are embeddable yet have no vector at their current revision in the space (a search says
   * so rather than pretend the vector channel covered them). Facts that are never embedded are not lacking.
   * @param spaceId - the space.
   * @param factIds - the facts a search found.
   * @returns the lacking ids.
   */
  lacking(spaceId: number, factIds: readonly number[]): Set<number> {
    const out = new Set<number>()
    for (const chunk of chunks(factIds, CHUNK)) {
      for (const row of this.db.all(
        `SELECT f.id FROM facts f LEFT JOIN fact_vectors v ON v.space_id = ? AND v.fact_id = f.id
          WHERE f.id IN (${placeholders(chunk.length)}) AND ${EMBEDDABLE} AND (v.id IS NULL OR v.revision <> f.revision)`,
        spaceId, ...chunk)) {
        out.add(Number(row['id']))
      }
    }
    return out
  }

  /**
   * How the non-forgotten facts stand against a space.
   * @param spaceId - the space.
   * @returns current, stale, missing and excluded counts (they sum to the current facts).
   */
  coverage(spaceId: number): VectorCoverage {
    const row = this.db.get(
      `SELECT
          coalesce(sum(CASE WHEN NOT (${EMBEDDABLE}) THEN 1 ELSE 0 END), 0) AS excluded,
          coalesce(sum(CASE WHEN (${EMBEDDABLE}) AND v.revision = f.revision THEN 1 ELSE 0 END), 0) AS current,
          coalesce(sum(CASE WHEN (${EMBEDDABLE}) AND v.id IS NULL AND NOT EXISTS (SELECT 1 FROM fact_vectors o WHERE o.fact_id = f.id) THEN 1 ELSE 0 END), 0) AS missing,
          count(*) AS total
        FROM facts f LEFT JOIN fact_vectors v ON v.space_id = ? AND v.fact_id = f.id
        WHERE f.status IN ('active', 'scheduled', 'conflict')`, spaceId)
    const excluded = Number(row?.['excluded'] ?? 0)
    const current = Number(row?.['current'] ?? 0)
    const missing = Number(row?.['missing'] ?? 0)
    return { current, stale: Number(row?.['total'] ?? 0) - excluded - current - missing, missing, excluded }
  }

  /**
   * The current vectors of some facts in a space (the near-duplicate review compares pairs of one subject): only
   * those checked at the fact's revision, so a value edited since its vector was made takes no part.
   * @param spaceId - the space.
   * @param factIds - the facts.
   * @returns the vectors found, by fact id.
   */
  vectorsOf(spaceId: number, factIds: readonly number[]): Map<number, StoredVector> {
    const out = new Map<number, StoredVector>()
    for (const chunk of chunks(factIds, CHUNK)) {
      for (const row of this.db.all(
        `SELECT v.fact_id, v.scale, v.quantized FROM fact_vectors v JOIN facts f ON f.id = v.fact_id AND f.revision = v.revision
          WHERE v.space_id = ? AND v.fact_id IN (${placeholders(chunk.length)})`, spaceId, ...chunk)) {
        out.set(Number(row['fact_id']), vectorOf(row['scale'], row['quantized']))
      }
    }
    return out
  }

  /**
   * The facts a space holds vectors of (an index drops the slots of deleted vectors without reading their codes).
   * @param spaceId - the space.
   * @returns fact ids.
   */
  factIdsOf(spaceId: number): number[] {
    return this.db.all('SELECT fact_id FROM fact_vectors WHERE space_id = ?', spaceId).map((row) => Number(row['fact_id']))
  }

  /**
   * Keep what the last sweep of a space did, for status in any process sharing the file (bookkeeping).
   * @param spaceId - the space swept.
   * @param record - the sweep's outcome as JSON text.
   */
  recordSweep(spaceId: number, record: string): void {
    this.db.ledger(() => {
      this.db.run('UPDATE vector_spaces SET last_sweep = ? WHERE id = ?', record, spaceId)
    })
  }

  /**
   * @param fingerprint - the embedding fingerprint.
   * @returns the JSON text of its space's last sweep, or undefined before the first.
   */
  lastSweep(fingerprint: string): string | undefined {
    const value = this.db.get('SELECT last_sweep FROM vector_spaces WHERE fingerprint = ?', fingerprint)?.['last_sweep']
    return value === null || value === undefined ? undefined : String(value)
  }
}

/**
 * Delete every fact vector and bump the version of every space that held one; the caller owns the transaction
 * (`FactStore.wipe` runs it with the facts).
 * @param db - the database, inside a transaction.
 * @returns how many vectors were deleted.
 */
export function clearVectorRows(db: Database): number {
  // The delete trigger moves each space's version and count.
  return db.run('DELETE FROM fact_vectors').changes
}

function bytesOf(quantized: Int8Array): Uint8Array {
  return new Uint8Array(quantized.buffer, quantized.byteOffset, quantized.byteLength)
}

function vectorOf(scale: unknown, blob: unknown): StoredVector {
  const bytes = blob as Uint8Array
  return { scale: Number(scale), quantized: new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) }
}
