/**
 * The bench's comparison store: the cheapest honest version of the plugin's hot paths over the same facts. One
 * table (id, subject, property, value, status, evidence rank, the dates as ISO text as the plugin keeps them, the
 * claim key as a 32-byte blob), a contentless FTS5 index over exactly the terms the plugin indexes (the plugin's own
 * `prepareWrite` builds them), the two indexes a write's claim lookup and the directory's order need, and the same
 * pragmas as the plugin's store (WAL, synchronous=FULL). It knows no slot rules: every fact is one row.
 * A benchmark helper, not part of the plugin.
 */
import { mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { ResolvedConfig } from '../src/config.ts'
import { prepareWrite, type PreparedWrite } from '../src/fact-input.ts'
import { evidenceRank } from '../src/rules/write-policy.ts'
import { openConnection, type Connection, type Statement } from '../src/store/connection.ts'
import { orExpression, questionTerms } from '../src/text/tokenize.ts'
import type { FactInput } from '../src/types.ts'

/** The bare store's file name inside its directory. */
export const BARE_FILE = 'bare.db'

/** The plugin's cap on a search's distinct terms (MAX_QUERY_TERMS in src/retrieval/retrieve.ts). */
const MAX_QUERY_TERMS = 32

const SCHEMA = `
CREATE TABLE IF NOT EXISTS facts (
  id INTEGER PRIMARY KEY,
  subject TEXT NOT NULL,
  property TEXT NOT NULL,
  value TEXT NOT NULL,
  status TEXT NOT NULL,
  evidence_rank INTEGER NOT NULL,
  observed_at TEXT NOT NULL,
  recorded_at TEXT NOT NULL,
  valid_from TEXT NOT NULL,
  valid_to TEXT,
  claim_key BLOB NOT NULL
) STRICT;
CREATE UNIQUE INDEX IF NOT EXISTS facts_one_current_claim ON facts (claim_key) WHERE status = 'active';
CREATE INDEX IF NOT EXISTS facts_directory_order ON facts (evidence_rank, observed_at DESC, id) WHERE status = 'active';
CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts USING fts5 (terms, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2');
`

/** The bare store over one file. */
export class BareStore {
  /** The file path. */
  readonly path: string
  private readonly db: Connection
  private readonly insertRow: Statement
  private readonly insertTerms: Statement
  private readonly search: Statement

  private constructor(path: string, db: Connection) {
    this.path = path
    this.db = db
    // A claim already current is a restatement: nothing new is stored (RETURNING yields no row).
    this.insertRow =
      db.prepare(`INSERT INTO facts (subject, property, value, status, evidence_rank, observed_at, recorded_at, valid_from, valid_to, claim_key)
      VALUES (?, ?, ?, 'active', ?, ?, ?, ?, ?, unhex(?)) ON CONFLICT DO NOTHING RETURNING id`)
    this.insertTerms = db.prepare('INSERT INTO facts_fts (rowid, terms) VALUES (?, ?)')
    this.search = db.prepare(`SELECT f.id, f.subject, f.property, f.value FROM
      (SELECT rowid AS id, rank FROM facts_fts WHERE facts_fts MATCH ? ORDER BY rank LIMIT ?) AS hit
      JOIN facts f ON f.id = hit.id WHERE f.status = 'active' ORDER BY hit.rank`)
  }

  /**
   * Open (creating) the bare store in a directory, with the plugin store's pragmas.
   * @param dir - the directory.
   * @returns the open store.
   */
  static open(dir: string): BareStore {
    mkdirSync(dir, { recursive: true })
    const path = join(dir, BARE_FILE)
    const db = openConnection(path, 'auto')
    db.exec('PRAGMA journal_mode = WAL')
    db.exec('PRAGMA synchronous = FULL')
    db.exec(SCHEMA)
    return new BareStore(path, db)
  }

  /** Which binding serves the connection (the plugin's default choice, `auto`). */
  get driver(): string {
    return this.db.driver
  }

  /**
   * Insert one prepared fact: its row and its FTS row, in the caller's transaction.
   * @returns whether a row was added.
   */
  private insert(write: PreparedWrite, now: string): boolean {
    const row = this.insertRow.get(
      write.subject,
      write.property,
      write.value,
      evidenceRank(write.evidence),
      now,
      now,
      write.validFrom,
      write.validTo,
      write.claimKey,
    )
    if (row === undefined) return false
    this.insertTerms.run(Number(row['id']), write.terms)
    return true
  }

  /**
   * Seed facts, 5,000 to a transaction, as the plugin's seed does.
   * @param facts - the corpus.
   * @param config - the privacy policy and time zone `prepareWrite` reads.
   * @returns elapsed milliseconds and rows added.
   */
  seed(facts: readonly FactInput[], config: ResolvedConfig): { ms: number; rows: number } {
    const started = performance.now()
    let rows = 0
    for (let offset = 0; offset < facts.length; offset += 5000) {
      this.transaction(() => {
        for (const input of facts.slice(offset, offset + 5000)) {
          const now = new Date().toISOString()
          const prepared = prepareWrite(input, now, {
            refuseCredentials: config.refuseCredentials,
            timeZone: config.displayTimeZone,
          })
          if (prepared.ok && this.insert(prepared.write, now)) rows += 1
        }
      })
    }
    return { ms: performance.now() - started, rows }
  }

  /**
   * One fact in its own transaction (row + FTS row), as a single write commits: the write is prepared before the
   * transaction, as the plugin's write path prepares it before its own.
   * @param input - the fact.
   * @param config - the policy `prepareWrite` reads.
   * @returns whether a row was added.
   */
  write(input: FactInput, config: ResolvedConfig): boolean {
    const now = new Date().toISOString()
    const prepared = prepareWrite(input, now, {
      refuseCredentials: config.refuseCredentials,
      timeZone: config.displayTimeZone,
    })
    if (!prepared.ok) return false
    return this.transaction(() => this.insert(prepared.write, now))
  }

  /**
   * Lexical search: the query's terms as the plugin plans them (`questionTerms`, OR-joined), one FTS5 MATCH ranked
   * by BM25 with a LIMIT, the rows read by id.
   * @param query - the question.
   * @param limit - how many hits.
   * @returns the hits' ids.
   */
  searchLexical(query: string, limit: number): number[] {
    const terms = questionTerms(query, MAX_QUERY_TERMS)
    if (terms.length === 0) return []
    return this.search.all(orExpression(terms), limit).map((row) => Number(row['id']))
  }

  /** Run `fn` in one IMMEDIATE transaction, as the plugin's store does. */
  private transaction<T>(fn: () => T): T {
    this.db.exec('BEGIN IMMEDIATE')
    try {
      const result = fn()
      this.db.exec('COMMIT')
      return result
    } catch (error) {
      this.db.exec('ROLLBACK')
      throw error
    }
  }

  /** Close the connection (the last one: SQLite folds the WAL into the file). */
  close(): void {
    this.db.close()
  }

  /** @returns the file's bytes (after `close`, the whole store). */
  fileBytes(): number {
    return statSync(this.path).size
  }
}
