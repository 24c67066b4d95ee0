/**
 * The terms the full-text index holds, read back from the index itself: it keeps no copy of the text it indexed
 * (contentless), so a test that checks what a fact is findable by asks the index's own vocabulary (fts5vocab,
 * `instance`: one row per token occurrence), on a read-only connection of its own beside the store's.
 */
import Sqlite from 'better-sqlite3'

/**
 * Every indexed fact's tokens, in the order they were indexed (stemmed as the tokenizer stems them).
 * @param dbPath - the store file.
 * @returns the space-joined tokens by fact id, in id order.
 */
export function indexedTerms(dbPath: string): Map<number, string> {
  const db = new Sqlite(dbPath, { readonly: true })
  try {
    db.exec(`CREATE VIRTUAL TABLE temp.facts_fts_vocab USING fts5vocab('main', 'facts_fts', 'instance')`)
    const rows = db
      .prepare(`SELECT doc, group_concat(term, ' ') AS terms FROM (SELECT doc, term FROM temp.facts_fts_vocab ORDER BY doc, offset)
      GROUP BY doc ORDER BY doc`)
      .all() as { doc: number; terms: string }[]
    return new Map(rows.map((row) => [Number(row.doc), String(row.terms)]))
  } finally {
    db.close()
  }
}

/**
 * One fact's indexed tokens.
 * @param dbPath - the store file.
 * @param id - the fact.
 * @returns its space-joined tokens, or undefined when the index holds nothing for it.
 */
export function indexedTermsOf(dbPath: string, id: number): string | undefined {
  return indexedTerms(dbPath).get(id)
}
