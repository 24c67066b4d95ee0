/**
 * TeamStore: the store side of team memory (issue 34 item 5). It keeps, per project key, whether the user shares the
 * project's facts through its repository (off unless turned on), where the repository is checked out here, and the
 * read cursor of the team folder; it hands out this device's team log (the project's records, never a sensitive
 * one, whatever the sync opt-in says); and it keeps and applies teammates' records through the sync log's `receive`,
 * so they meet this device's own records under the same merge and write rules. The choice lives in `store_meta`, one
 * row per project (`team_memory:<key>`): it belongs to this library (a copy or backup of the store carries it) and
 * to no profile, and it needs no table of its own.
 */
import type { ChangeRecord } from '../sync/change-record.ts'
import type { Cursor } from '../sync/sync-folder.ts'
import type { DeviceIdentity } from '../sync/sync-log-port.ts'
import type { ProjectRef } from '../types.ts'
import type { Database } from './database.ts'
import type { ReceivedRecords, SyncLogStore } from './sync-log-store.ts'
import { parseTeamShare, type TeamShareRecord } from './team-share.schema.ts'

const KEY_PREFIX = 'team_memory:'

/** A shared project. */
export interface TeamShare extends TeamShareRecord {
  /** The project's key (its repository's identity). */
  readonly key: string
}

/** The team memory choices and the team log. */
export class TeamStore {
  private readonly db: Database
  private readonly log: SyncLogStore

  /** @param db - an open, migrated database; @param log - the sync log teammates' records are kept and applied in. */
  constructor(db: Database, log: SyncLogStore) {
    this.db = db
    this.log = log
  }

  /** This device, as the sync log names it. */
  device(): DeviceIdentity {
    return this.log.device()
  }

  /** False while a change commits in slices: its records may yet roll back, so a round waits. */
  settled(): boolean {
    return this.log.settled()
  }

  /**
   * The projects shared through their repository.
   * @returns each, by key.
   */
  shared(): TeamShare[] {
    return this.db
      .all(
        'SELECT key, value FROM store_meta WHERE key >= ? AND key < ? ORDER BY key',
        KEY_PREFIX,
        `${KEY_PREFIX}\uffff`,
      )
      .flatMap((row) => {
        const share = parseTeamShare(String(row['value']))
        return share === undefined ? [] : [{ ...share, key: String(row['key']).slice(KEY_PREFIX.length) }]
      })
  }

  /**
   * One project's choice.
   * @param key - the project key.
   * @returns the share, or undefined when the project is not shared.
   */
  shareOf(key: string): TeamShare | undefined {
    const row = this.db.get('SELECT value FROM store_meta WHERE key = ?', `${KEY_PREFIX}${key}`)
    const share = row === undefined ? undefined : parseTeamShare(String(row['value']))
    return share === undefined ? undefined : { ...share, key }
  }

  /**
   * Share a project through its repository (bookkeeping: no fact changes). Sharing it again keeps its cursor and
   * notes the checkout's root anew.
   * @param project - the project (its key is its repository's identity).
   * @param root - where the repository is checked out here.
   * @param now - ISO instant.
   * @returns the share.
   */
  share(project: ProjectRef, root: string, now: string): TeamShare {
    const held = this.shareOf(project.key)
    const share: TeamShareRecord = {
      name: project.name.slice(0, 200) || project.key.slice(0, 200),
      root,
      since: held?.since ?? now,
      cursor: held?.cursor ?? {},
    }
    this.write(project.key, share)
    return { ...share, key: project.key }
  }

  /**
   * Stop sharing a project: teammates' records already applied stay (they are history and current values like any
   * other); its cursor is dropped, so sharing it again reads the folder from the start (applying is idempotent).
   * @param key - the project key.
   * @returns whether it was shared.
   */
  unshare(key: string): boolean {
    return this.db.ledger(() => this.db.run('DELETE FROM store_meta WHERE key = ?', `${KEY_PREFIX}${key}`).changes > 0)
  }

  /**
   * This device's records of a project's slots that may go to its team folder: never a sensitive record, and never
   * a sensitive value among the ends, whatever the sync opt-in says (the team rules in team/team-records.ts pick
   * from these).
   * @param key - the project key.
   * @returns the records, in clock order.
   */
  teamLog(key: string): ChangeRecord[] {
    return this.db
      .all(
        `SELECT record, sensitive_ends FROM sync_own_records WHERE sensitive = 0 AND (kind = 'restore'
          OR json_extract(record, '$.slot.project') = ? OR json_extract(record, '$.to.project') = ?)
        ORDER BY hlc, op`,
        key,
        key,
      )
      .map((row) => withoutValues(JSON.parse(String(row['record'])) as ChangeRecord, row['sensitive_ends']))
  }

  /**
   * The team folder's read cursor of a project.
   * @param key - the project key.
   * @returns per device, the last sequence number read cleanly; empty when the project is not shared.
   */
  cursor(key: string): Cursor {
    return this.shareOf(key)?.cursor ?? {}
  }

  /**
   * Keep and apply teammates' records (already made team records: team/team-records.ts) and store the folder's
   * cursor, in one transaction: a crash before it commits leaves both as they were. Idempotent by operation id.
   * @param key - the project key.
   * @param records - the records to apply.
   * @param cursor - the folder's cursor after them.
   * @param names - the teammates' devices' names, by their team device id.
   * @returns what the sync log's receive did.
   */
  receive(
    key: string,
    records: readonly ChangeRecord[],
    cursor: Cursor,
    names: Readonly<Record<string, string>>,
  ): ReceivedRecords {
    return this.db.ledger(() => {
      const got = this.log.receive(records, {}, names)
      const held = this.shareOf(key)
      if (held !== undefined) this.write(key, { ...held, cursor: { ...held.cursor, ...cursor } })
      return got
    })
  }

  private write(key: string, share: TeamShareRecord): void {
    const { name, root, since, cursor } = share
    this.db.ledger(() => {
      this.db.run(
        'INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        `${KEY_PREFIX}${key}`,
        JSON.stringify({ name, root, since, cursor }),
      )
    })
  }
}

/** A record with the values a JSON array text names left out of its `ends` (null: none). */
function withoutValues(record: ChangeRecord, valuesText: unknown): ChangeRecord {
  if (valuesText === null || !('ends' in record)) return record
  const left = new Set(JSON.parse(String(valuesText)) as string[])
  return { ...record, ends: record.ends.filter((end) => !left.has(end.value)) }
}
