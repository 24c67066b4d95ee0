/**
 * Consistent SQLite backups into <dataDir>/backups, taken before exports and before "Clear everything", with
 * rotation to the newest `backupKeep` files (0 keeps all).
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { StoreSet } from '../store/store-set.ts'

/** Where backups go, under the data directory. */
export const BACKUP_DIR = 'backups'

/** A backup that was written. */
export interface BackupReceipt {
  readonly path: string
  readonly relativePath: string
  readonly at: string
}

/**
 * Copy the live database to a new file. Reads only: the store's generation does not move.
 * @param stores - the open stores.
 * @param reason - why (`export`, `wipe`), part of the file name.
 * @param now - ISO instant.
 * @param keep - how many backups to keep afterwards; 0 keeps all.
 * @returns where it went.
 */
export async function takeBackup(stores: StoreSet, reason: 'export' | 'wipe', now: string, keep: number): Promise<BackupReceipt> {
  const dir = join(stores.dataDir, BACKUP_DIR)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const name = `memory-${reason}-${now.replace(/[:.]/gu, '-')}.db`
  const path = join(dir, name)
  await stores.db.backup(path)
  if (keep > 0) {
    const files = readdirSync(dir).filter((file) => /^memory-(?:export|wipe)-.+\.db$/u.test(file)).sort()
    for (const old of files.slice(0, Math.max(0, files.length - keep))) rmSync(join(dir, old), { force: true })
  }
  return { path, relativePath: `${BACKUP_DIR}/${name}`, at: now }
}
