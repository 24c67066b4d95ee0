/**
 * Masks the credentials a copy of the store holds (a backup, the copy taken before a migration or a move of project
 * keys): the copy is opened on its own connection, each fact row the caller's judgement masks is rewritten with every
 * source quote of its fact, and the file is then compacted into one self-contained file (rollback journal, no WAL),
 * so no freed page keeps the old text. Works on a copy of any schema version: folded values and cues are read and
 * written only where the copy has those columns. The judgement itself is the caller's, a pure function.
 */
import type { CopiedRow } from '../privacy-rescan.ts'
import type { Sensitivity } from '../types.ts'
import { openConnection, textOrNull, type Connection, type DriverName, type Row } from './connection.ts'

/** The judgement of one copied row: the row as the copy may keep it, or undefined to leave it. */
export type CopyJudge = (row: CopiedRow) => CopiedRow | undefined

/** A source quote as the copy may keep it, given the texts its fact's judgement masked. */
export type QuoteMask = (quote: string, known: readonly string[]) => string

/** The judgement of one proposed row of a review card: the row as the copy may keep it, or undefined to leave it. */
export type ProposalRowJudge = (row: Readonly<Record<string, unknown>>) => Record<string, unknown> | undefined

/** How a copy is masked: its fact rows, their source quotes, and the rows its review cards propose. */
export interface CopyMasking {
  readonly judge: CopyJudge
  readonly maskQuote: QuoteMask
  readonly maskProposalRow: ProposalRowJudge
}

/**
 * Which rows a copy's judgement reads: `stored` only the facts stored as credentials (a copy of the open store, whose
 * rows today's privacy rules have already rescanned), `every` each fact (a copy an older version made).
 */
export type CopyRows = 'stored' | 'every'

/**
 * Mask the credentials in a copy of the store, in place, and compact it.
 * @param path - the copy; no other connection may hold it.
 * @param driver - the binding to open it with (the live store's).
 * @param rows - which facts the judgement reads (every card's proposed rows are read either way).
 * @param masking - masks one fact row, one source quote, one proposed row.
 * @returns how many fact rows and cards were masked.
 */
export function maskCredentialsInCopy(path: string, driver: DriverName, rows: CopyRows, masking: CopyMasking): number {
  const { judge, maskQuote } = masking
  const copy = openConnection(path, driver)
  try {
    copy.exec('PRAGMA journal_mode = DELETE')
    const columns = new Set(
      copy
        .prepare("SELECT name FROM pragma_table_info('facts')")
        .all()
        .map((row) => String(row['name'])),
    )
    const folded = columns.has('folded_from')
    const cued = columns.has('cues')
    const read = `SELECT id, subject, property, value, qualifiers, quote, sensitivity, model_use_allowed${folded ? ', folded_from' : ''}${cued ? ', cues' : ''} FROM facts${rows === 'stored' ? " WHERE sensitivity = 'credential'" : ''}`
    const known = new Map<number, string[]>()
    let cards = 0
    copy.exec('BEGIN IMMEDIATE')
    try {
      for (const row of copy.prepare(read).all()) {
        const stored = toCopied(row)
        const next = judge(stored)
        if (next === undefined) continue
        const id = Number(row['id'])
        known.set(id, maskedTexts(stored, next))
        copy
          .prepare(`UPDATE facts SET subject = ?, property = ?, value = ?, qualifiers = ?, quote = ?, sensitivity = ?, model_use_allowed = ?
            ${folded ? ', folded_from = ?' : ''}${cued ? ', cues = ?' : ''} WHERE id = ?`)
          .run(
            next.subject,
            next.property,
            next.value,
            JSON.stringify(next.qualifiers),
            next.quote,
            next.sensitivity,
            next.modelUseAllowed ? 1 : 0,
            ...(folded ? [JSON.stringify(next.foldedFrom)] : []),
            ...(cued ? [next.cues.length === 0 ? null : JSON.stringify(next.cues)] : []),
            id,
          )
      }
      // A stored fact's source quotes were masked when written; a copy an older version made is masked whole.
      const quotes =
        rows === 'stored'
          ? [...known.keys()].flatMap((id) =>
              copy
                .prepare('SELECT id, fact_id, quote FROM fact_sources WHERE fact_id = ? AND quote IS NOT NULL')
                .all(id),
            )
          : copy.prepare('SELECT id, fact_id, quote FROM fact_sources WHERE quote IS NOT NULL').all()
      for (const row of quotes) {
        const quote = String(row['quote'])
        const masked = maskQuote(quote, known.get(Number(row['fact_id'])) ?? [])
        if (masked !== quote)
          copy.prepare('UPDATE fact_sources SET quote = ? WHERE id = ?').run(masked, Number(row['id']))
      }
      cards = maskProposals(copy, masking.maskProposalRow)
      copy.exec('COMMIT')
    } catch (error) {
      copy.exec('ROLLBACK')
      throw error
    }
    // Rebuilt from the live rows only: the pages that held the old text are not carried over.
    copy.exec('VACUUM')
    return known.size + cards
  } finally {
    copy.close()
  }
}

/** Mask the proposed rows of every card the copy holds (a value a card proposes is kept nowhere else); returns the cards changed. */
function maskProposals(copy: Connection, judge: ProposalRowJudge): number {
  const columns = new Set(
    copy
      .prepare("SELECT name FROM pragma_table_info('proposals')")
      .all()
      .map((row) => String(row['name'])),
  )
  if (!columns.has('rows')) return 0
  let changed = 0
  for (const card of copy.prepare('SELECT id, rows FROM proposals').all()) {
    const rows: unknown = JSON.parse(String(card['rows']))
    if (!Array.isArray(rows)) continue
    let masked = false
    const next = rows.map((row: unknown) => {
      if (typeof row !== 'object' || row === null) return row
      const judged = judge(row as Record<string, unknown>)
      if (judged === undefined) return row
      masked = true
      return judged
    })
    if (!masked) continue
    copy.prepare('UPDATE proposals SET rows = ? WHERE id = ?').run(JSON.stringify(next), Number(card['id']))
    changed += 1
  }
  return changed
}

/** The original texts a judgement replaced: the value and every qualifier value it masked. */
function maskedTexts(stored: CopiedRow, next: CopiedRow): string[] {
  const texts = next.value === stored.value ? [] : [stored.value]
  const kept = new Set(Object.values(next.qualifiers))
  for (const text of Object.values(stored.qualifiers)) if (text !== '' && !kept.has(text)) texts.push(text)
  return texts
}

function toCopied(row: Row): CopiedRow {
  return {
    subject: String(row['subject']),
    property: String(row['property']),
    value: String(row['value']),
    qualifiers: JSON.parse(String(row['qualifiers'])) as Record<string, string>,
    quote: textOrNull(row['quote']),
    sensitivity: textOrNull(row['sensitivity']) as Sensitivity | null,
    modelUseAllowed: Number(row['model_use_allowed']) === 1,
    foldedFrom: row['folded_from'] === undefined ? [] : (JSON.parse(String(row['folded_from'])) as string[]),
    cues: row['cues'] === undefined || row['cues'] === null ? [] : (JSON.parse(String(row['cues'])) as string[]),
  }
}
