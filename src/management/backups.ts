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

/**
 * The newest backup on disk, whoever took it; its time is the one written into its name when it was taken.
 * @param dataDir - the data directory.
 * @returns its path and time, or null when there is none.
 */
export function lastBackup(dataDir: string): { path: string; at: string } | null {
  const dir = join(dataDir, BACKUP_DIR)
  let files: string[]
  try {
    files = readdirSync(dir)
  } catch {
    // No backups directory yet: nothing was ever backed up.
    return null
  }
  const taken = files.flatMap((file) => {
    const stamp = /^memory-(?:export|wipe)-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z\.db$/u.exec(file)
    return stamp === null ? [] : [{ path: join(dir, file), at: `${stamp[1]}T${stamp[2]}:${stamp[3]}:${stamp[4]}.${stamp[5]}Z` }]
  })
  return taken.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0))[0] ?? null
}
