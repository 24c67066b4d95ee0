/**
 * VectorStore: every read and write of the vector spaces and the quantized fact vectors. Only facts that may leave
 * the machine are ever listed for embedding or given a vector: not forgotten, no sensitivity mark, usable by the
 * model. Vectors are bookkeeping derived from the facts: every write goes through `Database.ledger` and never moves
 * the store generation, and every change to a space's vectors bumps that space's `version` in the same transaction
 * (where the schema's triggers keep its `vector_count`), so an in-memory scan index (in this process or another one
 * sharing the file) knows when to look again.
 * Each vector of a space has a slot. The sign codes of a space live in its blocks, `block_slots` slots to a row with
 * the fact id of each slot, so a process loads every code of a space in one pass; a block is rewritten, stamped with
 * the space's new version, in the transaction that gives one of its slots a vector. A deleted vector's slot (a prune,
 * a foreign-key cascade from facts) is listed free by the schema's delete trigger and taken by the next new vector.
 * A row keeps the magnitudes of its int8 components; with the sign bits of its slot they give the vector back
 * exactly (vector-codec.ts). A replaced vector keeps its row and slot.
 */
import { FactMemoryError } from '../errors.ts'
import type { Row } from './connection.ts'
import type { Database } from './database.ts'
import { chunks, INSTANT, MODEL_VISIBLE, placeholders } from './fact-rows.ts'
import type { Visibility } from './fact-reader.ts'
import { codeBytes, decodeIds, ID_BYTES, packMagnitudes, signsAgree, unpackVector, writeId } from './vector-codec.ts'

/** The condition (on `facts f`) for a fact whose text may be sent to an embedding endpoint. */
const EMBEDDABLE = `f.status <> 'forgotten' AND f.sensitivity IS NULL AND f.model_use_allowed = 1`

/** Ids per IN list, under SQLite's bind limit. */
const CHUNK = 500

/** A text hash as the sweep computes it: SHA-256 in lower-case hex (stored as its 32 bytes). */
const TEXT_HASH = /^[0-9a-f]{64}$/u

/** The rescoring read's vector columns: the row's scale and magnitudes, and the sign bits of its slot's block. */
const VECTOR_COLUMNS = `v.fact_id, v.scale, v.magnitudes, substr(b.codes, (v.slot % s.block_slots) * ((s.dim + 7) / 8) + 1, (s.dim + 7) / 8) AS bits, s.dim`

/** Joins the space and the slot's block to `fact_vectors v` (by the block's unique index). */
const VECTOR_JOINS = `JOIN vector_spaces s ON s.id = v.space_id JOIN vector_blocks b ON b.space_id = v.space_id AND b.block_no = v.slot / s.block_slots`

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
  /** SHA-256 of the embedded text, lower-case hex. */
  readonly textHash: string
  readonly scale: number
  /** The sign bits (of the float vector); every nonzero int8 component must have the sign of its bit. */
  readonly bits: Uint8Array
  readonly quantized: Int8Array
}

/** A space's live state, for deciding whether an in-memory index must reload. */
export interface SpaceState {
  readonly version: number
  readonly dim: number
  /** Vectors in the space. */
  readonly count: number
  /** One past the highest slot given (slots below it that hold no vector are free). */
  readonly slotCount: number
  /** Slots per code block. */
  readonly blockSlots: number
}

/** One block of a space's sign codes. */
export interface CodeBlock {
  /** Its first slot is `blockNo × blockSlots`. */
  readonly blockNo: number
  /** The fact id of each slot it holds (0: never used); a freed slot keeps its last id (see `freeSlots`). */
  readonly factIds: Int32Array
  /** `ceil(dim / 8)` bytes of sign bits per slot, in slot order. */
  readonly codes: Uint8Array
}

/** A stored vector for the exact rescoring. */
export interface StoredVector {
  readonly scale: number
  readonly quantized: Int8Array
}

/** A stored vector's row without its sign bits, which an index holding its slot's code supplies (vector-codec.ts). */
export interface MagnitudeRow {
  readonly factId: number
  readonly slot: number
  readonly scale: number
  /** Seven bits per component. */
  readonly magnitudes: Uint8Array
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
      this.db.run(
        'INSERT OR IGNORE INTO vector_spaces (fingerprint, provider, base_url, model, created_at) VALUES (?, ?, ?, ?, ?)',
        fingerprint,
        identity.provider,
        identity.baseUrl,
        identity.model,
        now,
      )
    })
    const space = this.space(fingerprint)
    if (space === undefined)
      throw new FactMemoryError('internal_error', `the vector space ${fingerprint} was not created`)
    return space
  }

  /**
   * @param fingerprint - the embedding fingerprint.
   * @returns its space, or undefined when none was made.
   */
  space(fingerprint: string): VectorSpace | undefined {
    const row = this.db.get(
      'SELECT id, fingerprint, dim, version FROM vector_spaces WHERE fingerprint = ?',
      fingerprint,
    )
    return row === undefined
      ? undefined
      : {
          id: Number(row['id']),
          fingerprint: String(row['fingerprint']),
          dim: Number(row['dim']),
          version: Number(row['version']),
        }
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
    const changed = since === undefined ? '' : `AND f.updated_at >= ${INSTANT}`
    // Without the hint the planner walks every fact in id order to honour ORDER BY … LIMIT.
    const facts = since === undefined ? 'facts f' : 'facts f INDEXED BY facts_by_updated'
    return this.db
      .all(
        `SELECT f.id, f.revision, f.subject, f.property, f.qualifiers, f.value, CASE WHEN v.id IS NOT NULL THEN lower(hex(v.text_hash)) END AS text_hash
        FROM ${facts} LEFT JOIN fact_vectors v ON v.space_id = ? AND v.fact_id = f.id
        WHERE ${EMBEDDABLE} AND (v.id IS NULL OR v.revision <> f.revision) AND f.id > ? ${changed}
        ORDER BY f.id LIMIT ?`,
        spaceId,
        afterId,
        ...(since === undefined ? [] : [since]),
        limit,
      )
      .map((row) => ({
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
        this.db.run(
          'UPDATE fact_vectors SET revision = ? WHERE space_id = ? AND fact_id = ?',
          check.revision,
          spaceId,
          check.factId,
        )
      }
    })
  }

  /**
   * Store vectors: a fact's earlier vector is replaced in its row and slot, a new one takes the space's lowest free
   * slot or the next; the blocks of the slots written are rewritten once each, stamped with the version this write
   * moved the space to. A fact deleted, forgotten, marked sensitive or hidden since its text was read gets no vector
   * (and loses its old one).
   * @param spaceId - the space; its dimension must be fixed.
   * @param rows - the vectors.
   * @param now - ISO timestamp.
   * @returns how many were stored.
   * @throws FactMemoryError `invalid_arguments` when a row's length disagrees with the space's dimension, its sign
   *   bits with its components, or its text hash is not SHA-256 hex (nothing is written).
   */
  storeVectors(spaceId: number, rows: readonly VectorRow[], now: string): number {
    const layout = this.db.get('SELECT dim, block_slots FROM vector_spaces WHERE id = ?', spaceId)
    const dim = Number(layout?.['dim'] ?? 0)
    const blockSlots = Number(layout?.['block_slots'] ?? 1)
    const wrong = rows.find((row) => row.quantized.length !== dim || row.bits.length !== codeBytes(dim))
    if (wrong !== undefined) {
      throw new FactMemoryError(
        'invalid_arguments',
        `the vector of fact ${wrong.factId} has ${wrong.quantized.length} components; the space holds ${dim}`,
      )
    }
    const unsigned = rows.find((row) => !signsAgree(row.quantized, row.bits))
    if (unsigned !== undefined)
      throw new FactMemoryError(
        'invalid_arguments',
        `the sign bits of fact ${unsigned.factId}'s vector disagree with its components`,
      )
    const unhashed = rows.find((row) => !TEXT_HASH.test(row.textHash))
    if (unhashed !== undefined)
      throw new FactMemoryError(
        'invalid_arguments',
        `the text hash of fact ${unhashed.factId}'s vector is not SHA-256 hex`,
      )
    return this.db.ledger(() => {
      const written = new Map<number, { readonly factId: number; readonly bits: Uint8Array }>()
      let stored = 0
      for (const row of rows) {
        const slot = this.writeRow(spaceId, row, now)
        if (slot === undefined) continue
        written.set(slot, { factId: row.factId, bits: row.bits })
        stored += 1
      }
      if (written.size > 0) this.writeBlocks(spaceId, blockSlots, codeBytes(dim), written)
      return stored
    })
  }

  /** Write one vector's row (or delete the fact's vector when it may no longer have one); answers the slot written. */
  private writeRow(spaceId: number, row: VectorRow, now: string): number | undefined {
    const eligible =
      this.db.get(`SELECT 1 AS ok FROM facts f WHERE f.id = ? AND ${EMBEDDABLE}`, row.factId) !== undefined
    const held = this.db.get('SELECT slot FROM fact_vectors WHERE fact_id = ? AND space_id = ?', row.factId, spaceId)
    if (!eligible) {
      if (held !== undefined)
        this.db.run('DELETE FROM fact_vectors WHERE fact_id = ? AND space_id = ?', row.factId, spaceId)
      return undefined
    }
    const magnitudes = packMagnitudes(row.quantized)
    if (held !== undefined) {
      this.db.run(
        'UPDATE fact_vectors SET revision = ?, text_hash = unhex(?), scale = ?, magnitudes = ?, embedded_at = ? WHERE fact_id = ? AND space_id = ?',
        row.revision,
        row.textHash,
        row.scale,
        magnitudes,
        now,
        row.factId,
        spaceId,
      )
      return Number(held['slot'])
    }
    const free = this.db.get('SELECT slot FROM vector_free_slots WHERE space_id = ? ORDER BY slot LIMIT 1', spaceId)
    const slot = Number(
      free?.['slot'] ?? this.db.get('SELECT slot_count FROM vector_spaces WHERE id = ?', spaceId)?.['slot_count'] ?? 0,
    )
    // The insert trigger takes the slot off the free list and moves the count, the version and slot_count.
    this.db.run(
      `INSERT INTO fact_vectors (space_id, fact_id, slot, revision, text_hash, scale, magnitudes, embedded_at)
        VALUES (?, ?, ?, ?, unhex(?), ?, ?, ?)`,
      spaceId,
      row.factId,
      slot,
      row.revision,
      row.textHash,
      row.scale,
      magnitudes,
      now,
    )
    return slot
  }

  /** Rewrite the blocks of the slots written, each once, stamped with the space's version moved past this write. */
  private writeBlocks(
    spaceId: number,
    blockSlots: number,
    bytes: number,
    written: ReadonlyMap<number, { readonly factId: number; readonly bits: Uint8Array }>,
  ): void {
    // A replaced vector moves no count; the version moves here for every write, so a block's stamp is always new.
    this.db.run('UPDATE vector_spaces SET version = version + 1 WHERE id = ?', spaceId)
    const version = Number(this.db.get('SELECT version FROM vector_spaces WHERE id = ?', spaceId)?.['version'] ?? 0)
    const byBlock = new Map<number, number[]>()
    for (const slot of written.keys()) {
      const blockNo = Math.floor(slot / blockSlots)
      byBlock.set(blockNo, [...(byBlock.get(blockNo) ?? []), slot])
    }
    for (const [blockNo, slots] of byBlock) {
      const stored = this.db.get(
        'SELECT fact_ids, codes FROM vector_blocks WHERE space_id = ? AND block_no = ?',
        spaceId,
        blockNo,
      )
      const first = blockNo * blockSlots
      const held = Math.floor((stored?.['fact_ids'] as Uint8Array | undefined)?.byteLength ?? 0) / ID_BYTES
      const size = Math.max(held, ...slots.map((slot) => slot - first + 1))
      const ids = new Uint8Array(size * ID_BYTES)
      const codes = new Uint8Array(size * bytes)
      if (stored !== undefined) {
        ids.set(stored['fact_ids'] as Uint8Array)
        codes.set(stored['codes'] as Uint8Array)
      }
      for (const slot of slots) {
        const entry = written.get(slot)
        if (entry === undefined) continue
        writeId(ids, slot - first, entry.factId)
        codes.set(entry.bits, (slot - first) * bytes)
      }
      this.db.run(
        `INSERT INTO vector_blocks (space_id, block_no, version, fact_ids, codes) VALUES (?, ?, ?, ?, ?)
          ON CONFLICT (space_id, block_no) DO UPDATE SET version = excluded.version, fact_ids = excluded.fact_ids, codes = excluded.codes`,
        spaceId,
        blockNo,
        version,
        ids,
        codes,
      )
    }
  }

  /**
   * Delete the vectors of facts now forgotten, sensitive or hidden from the model, in every space.
   * @param since - only facts changed at or after this ISO instant (their index), as in {@link factsNeedingVectors}.
   * @returns how many were deleted.
   */
  pruneIneligible(since?: string): number {
    return this.db.ledger(() => {
      const doomed =
        since === undefined
          ? this.db.all(
              `SELECT v.id, v.space_id FROM fact_vectors v JOIN facts f ON f.id = v.fact_id WHERE NOT (${EMBEDDABLE})`,
            )
          : this.db.all(
              `SELECT v.id, v.space_id FROM facts f JOIN fact_vectors v ON v.fact_id = f.id WHERE f.updated_at >= ${INSTANT} AND NOT (${EMBEDDABLE})`,
              since,
            )
      for (const chunk of chunks(
        doomed.map((row) => Number(row['id'])),
        CHUNK,
      )) {
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
   * @returns its version, dimension, vector count, slot count and block size (zeros for a missing space), all from
   *   the space's one row: the count is kept by the schema's triggers, so they agree with each other and reading them
   *   costs no scan.
   */
  spaceState(spaceId: number): SpaceState {
    const space = this.db.get(
      'SELECT version, dim, vector_count, slot_count, block_slots FROM vector_spaces WHERE id = ?',
      spaceId,
    )
    return {
      version: Number(space?.['version'] ?? 0),
      dim: Number(space?.['dim'] ?? 0),
      count: Number(space?.['vector_count'] ?? 0),
      slotCount: Number(space?.['slot_count'] ?? 0),
      blockSlots: Number(space?.['block_slots'] ?? 1),
    }
  }

  /**
   * The code blocks of a space written after a version, in no particular order (the whole space is a
   * {@link blockRange}).
   * @param spaceId - the space.
   * @param afterVersion - the space version the caller's codes are at.
   * @returns the blocks.
   */
  blocksSince(spaceId: number, afterVersion: number): CodeBlock[] {
    // The version index finds them.
    return this.db
      .all(
        'SELECT block_no, fact_ids, codes FROM vector_blocks WHERE space_id = ? AND version > ?',
        spaceId,
        afterVersion,
      )
      .map(blockOf)
  }

  /**
   * A run of a space's code blocks by number: a whole space, or a slice of one, in one pass (its unique index).
   * @param spaceId - the space.
   * @param from - the first block number.
   * @param to - one past the last block number.
   * @returns the blocks in that run that exist, in block order.
   */
  blockRange(spaceId: number, from: number, to: number): CodeBlock[] {
    return this.db
      .all(
        'SELECT block_no, fact_ids, codes FROM vector_blocks WHERE space_id = ? AND block_no >= ? AND block_no < ? ORDER BY block_no',
        spaceId,
        from,
        to,
      )
      .map(blockOf)
  }

  /**
   * @param spaceId - the space.
   * @returns the slots below its slot count that hold no vector, ascending (a block keeps a freed slot's last id).
   */
  freeSlots(spaceId: number): number[] {
    return this.db
      .all('SELECT slot FROM vector_free_slots WHERE space_id = ? ORDER BY slot', spaceId)
      .map((row) => Number(row['slot']))
  }

  /**
   * The stored vectors of candidate facts, for the exact rescoring: forgotten facts never, and under model visibility
   * only what the model may read.
   * @param spaceId - the space.
   * @param factIds - the candidates.
   * @param visibility - model visibility, or undefined for every live fact.
   * @returns one entry per candidate that has a vector and passes, in no particular order.
   */
  rescoreRows(
    spaceId: number,
    factIds: readonly number[],
    visibility: Visibility | undefined,
  ): (StoredVector & { readonly factId: number })[] {
    return this.candidateRows(
      `${VECTOR_COLUMNS} FROM fact_vectors v JOIN facts f ON f.id = v.fact_id ${VECTOR_JOINS}`,
      spaceId,
      factIds,
      visibility,
    ).map((row) => ({ factId: Number(row['fact_id']), ...vectorOf(row) }))
  }

  /**
   * The rows of candidate facts without their sign bits, under the same conditions as {@link rescoreRows}: an index
   * that holds the codes of the space at its current version supplies them, and reads no block.
   * @param spaceId - the space.
   * @param factIds - the candidates.
   * @param visibility - model visibility, or undefined for every live fact.
   * @returns one entry per candidate that has a vector and passes, in no particular order.
   */
  magnitudeRows(spaceId: number, factIds: readonly number[], visibility: Visibility | undefined): MagnitudeRow[] {
    return this.candidateRows(
      'v.fact_id, v.slot, v.scale, v.magnitudes FROM fact_vectors v JOIN facts f ON f.id = v.fact_id',
      spaceId,
      factIds,
      visibility,
    ).map((row) => ({
      factId: Number(row['fact_id']),
      slot: Number(row['slot']),
      scale: Number(row['scale']),
      magnitudes: row['magnitudes'] as Uint8Array,
    }))
  }

  /** `SELECT <columns and joins>` over candidate facts: forgotten ones never, under model visibility only what the model may read. */
  private candidateRows(
    select: string,
    spaceId: number,
    factIds: readonly number[],
    visibility: Visibility | undefined,
  ): Record<string, unknown>[] {
    const model = visibility === undefined ? 0 : 1
    const sensitive = visibility?.includeSensitive === true ? 1 : 0
    return chunks(factIds, CHUNK).flatMap((chunk) =>
      this.db.all(
        `SELECT ${select} WHERE v.space_id = ? AND v.fact_id IN (${placeholders(chunk.length)}) AND f.status <> 'forgotten' AND (? = 0 OR (${MODEL_VISIBLE}))`,
        spaceId,
        ...chunk,
        model,
        sensitive,
      ),
    )
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
        spaceId,
        ...chunk,
      )) {
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
        WHERE f.status IN ('active', 'scheduled', 'conflict')`,
      spaceId,
    )
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
        `SELECT ${VECTOR_COLUMNS} FROM fact_vectors v JOIN facts f ON f.id = v.fact_id AND f.revision = v.revision ${VECTOR_JOINS}
          WHERE v.space_id = ? AND v.fact_id IN (${placeholders(chunk.length)})`,
        spaceId,
        ...chunk,
      )) {
        out.set(Number(row['fact_id']), vectorOf(row))
      }
    }
    return out
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
 * Delete every fact vector, with the code blocks and free slots of every space, and bump the version of every space
 * that held one; the caller owns the transaction (`FactStore.wipe` runs it with the facts).
 * @param db - the database, inside a transaction.
 * @returns how many vectors were deleted.
 */
export function clearVectorRows(db: Database): number {
  // The delete trigger moves each space's version and count (and lists the slots free, cleared just after).
  const deleted = db.run('DELETE FROM fact_vectors').changes
  db.run('DELETE FROM vector_blocks')
  db.run('DELETE FROM vector_free_slots')
  db.run('UPDATE vector_spaces SET slot_count = 0, version = version + 1 WHERE slot_count <> 0')
  return deleted
}

function vectorOf(row: Record<string, unknown>): StoredVector {
  return {
    scale: Number(row['scale']),
    quantized: unpackVector(row['magnitudes'] as Uint8Array, row['bits'] as Uint8Array, Number(row['dim'])),
  }
}

function blockOf(row: Row): CodeBlock {
  return {
    blockNo: Number(row['block_no']),
    factIds: decodeIds(row['fact_ids'] as Uint8Array),
    codes: row['codes'] as Uint8Array,
  }
}
