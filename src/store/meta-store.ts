/**
 * MetaStore: small named values about the store itself (when the review queue was last marked as seen). They are
 * bookkeeping, not memory: writing one changes no fact, proposal or conflict, so it never moves the generation.
 */
import type { Database } from './database.ts'

/**
 * The closed set of metadata keys: when the review queue was last seen, the version of the privacy rules the
 * stored rows were last rescanned under, the version of the index of proposed changes, and the sync target (as
 * shown, URLs masked) the log was last sealed into.
 */
export type MetaKey = 'review_seen_at' | 'privacy_rules_version' | 'proposal_changes_version' | 'sync_target'

/** Synchronous reads and writes of store metadata. */
export class MetaStore {
  private readonly db: Database

  /** @param db - an open, migrated database. */
  constructor(db: Database) {
    this.db = db
  }

  /** Read a value. */
  get(key: MetaKey): string | undefined {
    const row = this.db.get('SELECT value FROM store_meta WHERE key = ?', key)
    return row === undefined ? undefined : String(row['value'])
  }

  /** Write a value: committed as bookkeeping, so a page's next edit is not refused as stale because of it. */
  set(key: MetaKey, value: string): void {
    this.db.ledger(() => {
      this.db.run(
        'INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        key,
        value,
      )
    })
  }
}
