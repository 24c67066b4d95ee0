/**
 * The index of the changes review cards hold (`proposal_changes`), and the pruning of decided cards. Every write to a
 * card re-indexes that card ({@link indexCard}); a sweep, an audit and a held-change check then read keys from the
 * index ({@link knownChanges}) and never parse a card. A change the user declined keeps its row after its card is
 * pruned ({@link pruneDecided}), so it is not proposed again. A store from before the index fills it from its cards
 * on first use ({@link ensureIndexed}), once, stamped in store_meta.
 */
import { rowKey } from '../rules/proposal-cards.ts'
import type { ProposalKind, ReviewKind } from '../types.ts'
import type { Database } from './database.ts'
import { parseStoredRows } from './proposal-rows.schema.ts'

/** Days a decided card (applied, rejected, stale) is kept after its decision. */
export const DECIDED_CARD_DAYS = 90
/** Most decided cards kept; the newest stay. */
export const DECIDED_CARD_KEEP = 1000
/** The version of the index's contents; a store stamped lower is re-indexed. */
const INDEX_VERSION = 1

const DAY_MS = 86_400_000
/** Keys bound in one lookup, well under SQLite's variable limit. */
const KEYS_PER_QUERY = 500

/** The changes one review kind's cards hold: row key → the card, for pending cards and for declined changes. */
export interface KnownChanges {
  readonly pending: ReadonlyMap<string, number>
  readonly declined: ReadonlyMap<string, number>
}

/**
 * Re-index one card from its stored rows: its pending keys while it is pending, the keys the user declined (its rows
 * once rejected, its struck rows always; an add_fact card's fingerprint once rejected). A card that is gone or
 * unreadable keeps no pending row, and its declined rows stay as they were.
 * @param db - the open database, inside the transaction that changed the card.
 * @param id - the card.
 */
export function indexCard(db: Database, id: number): void {
  const card = db.get(
    'SELECT kind, status, fingerprint, rows, coalesce(decided_at, updated_at) AS decided_at FROM proposals WHERE id = ?',
    id,
  )
  db.run(`DELETE FROM proposal_changes WHERE proposal_id = ? AND state = 'pending'`, id)
  if (card === undefined) return
  const kind = card['kind'] as ProposalKind
  const status = String(card['status'])
  const decidedAt = status === 'pending' ? null : String(card['decided_at'])
  if (kind === 'add_fact') {
    db.run(`DELETE FROM proposal_changes WHERE proposal_id = ?`, id)
    if (status === 'rejected') insert(db, kind, String(card['fingerprint']), 'declined', id, decidedAt)
    return
  }
  const stored = parseStoredRows(kind, String(card['rows']))
  if (!stored.ok) return
  db.run(`DELETE FROM proposal_changes WHERE proposal_id = ?`, id)
  for (const key of stored.struck) insert(db, kind, key, 'declined', id, decidedAt)
  if (status !== 'pending' && status !== 'rejected') return
  for (const row of stored.rows)
    insert(db, kind, rowKey(kind, row), status === 'pending' ? 'pending' : 'declined', id, decidedAt)
}

/**
 * Of the given changes of one review kind, those a pending card holds and those the user declined, each with its card
 * (the newest when several name one change): index seeks, one per key, whatever the number of cards.
 * @param db - the open database.
 * @param kind - the review kind.
 * @param keys - the row keys asked about.
 * @returns both maps, holding only keys asked about.
 */
export function knownChanges(db: Database, kind: ReviewKind, keys: readonly string[]): KnownChanges {
  const pending = new Map<string, number>()
  const declined = new Map<string, number>()
  const unique = [...new Set(keys)]
  for (let start = 0; start < unique.length; start += KEYS_PER_QUERY) {
    const chunk = unique.slice(start, start + KEYS_PER_QUERY)
    for (const row of db.all(
      `SELECT change_key, state, max(proposal_id) AS id FROM proposal_changes
        WHERE kind = ? AND change_key IN (${chunk.map(() => '?').join(', ')}) GROUP BY change_key, state`,
      kind,
      ...chunk,
    )) {
      ;(row['state'] === 'pending' ? pending : declined).set(String(row['change_key']), Number(row['id']))
    }
  }
  return { pending, declined }
}

/**
 * The newest card that declined an add_fact change, by its fingerprint, or undefined.
 * @param db - the open database.
 * @param fingerprint - the add_fact card's fingerprint.
 * @returns the card id and when the user declined it.
 */
export function declinedAddition(
  db: Database,
  fingerprint: string,
): { readonly proposalId: number; readonly decidedAt: string } | undefined {
  const row = db.get(
    `SELECT proposal_id, decided_at FROM proposal_changes WHERE kind = 'add_fact' AND change_key = ? AND state = 'declined'
    ORDER BY proposal_id DESC LIMIT 1`,
    fingerprint,
  )
  return row === undefined
    ? undefined
    : { proposalId: Number(row['proposal_id']), decidedAt: String(row['decided_at'] ?? '') }
}

/**
 * Delete decided cards (applied, rejected, stale) decided more than {@link DECIDED_CARD_DAYS} days before `now`, and
 * all but the newest {@link DECIDED_CARD_KEEP}. Pending cards stay; the index's declined rows stay.
 * @param db - the open database, inside a transaction.
 * @param now - ISO instant.
 * @returns how many cards went.
 */
export function pruneDecided(db: Database, now: string): number {
  const cutoff = new Date(Date.parse(now) - DECIDED_CARD_DAYS * DAY_MS).toISOString()
  const gone = db
    .all(
      `SELECT id FROM proposals WHERE status <> 'pending' AND (coalesce(decided_at, updated_at) < ?
      OR id NOT IN (SELECT id FROM proposals WHERE status <> 'pending' ORDER BY id DESC LIMIT ?))`,
      cutoff,
      DECIDED_CARD_KEEP,
    )
    .map((row) => Number(row['id']))
  for (const id of gone) {
    db.run(`DELETE FROM proposal_changes WHERE proposal_id = ? AND state = 'pending'`, id)
    db.run('DELETE FROM proposals WHERE id = ?', id)
  }
  return gone.length
}

/**
 * Fill the index from every card, once per index version (a store migrated from before it).
 * @param db - the open database.
 */
export function ensureIndexed(db: Database): void {
  if (
    Number(db.get(`SELECT value FROM store_meta WHERE key = 'proposal_changes_version'`)?.['value'] ?? 0) >=
    INDEX_VERSION
  )
    return
  db.ledger(() => {
    db.run('DELETE FROM proposal_changes')
    for (const row of db.all('SELECT id FROM proposals ORDER BY id')) indexCard(db, Number(row['id']))
    db.run(
      `INSERT INTO store_meta (key, value) VALUES ('proposal_changes_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      String(INDEX_VERSION),
    )
  })
}

function insert(
  db: Database,
  kind: ProposalKind,
  key: string,
  state: 'pending' | 'declined',
  id: number,
  decidedAt: string | null,
): void {
  db.run(
    'INSERT OR IGNORE INTO proposal_changes (kind, change_key, state, proposal_id, decided_at) VALUES (?, ?, ?, ?, ?)',
    kind,
    key,
    state,
    id,
    decidedAt,
  )
}
