/**
 * Consistent SQLite backups into <dataDir>/backups, taken before exports and before "Clear everything", with every
 * credential masked before the file takes its name, and rotation to the newest `backupKeep` backups by the time each
 * was taken (0 keeps all).
 */
import { randomBytes } from 'node:crypto'
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { maskCopy } from '../store-copies.ts'
import type { OpenStores } from '../store/store-set.ts'

/** Where backups go, under the data directory. */
export const BACKUP_DIR = 'backups'

/** A backup that was written. */
export interface BackupReceipt {
  readonly path: string
  readonly relativePath: string
  readonly at: string
}

/** A backup's file name: its reason and the ISO instant it was taken, with `:` and `.` written as `-`. */
const BACKUP_NAME = /^memory-(?:export|wipe|project-keys)-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z\.db$/u

/**
 * Copy the live database to a temp file, mask every credential in it (a credential kept in clear because
 * refuseCredentials is off is masked too: see maskCopiedRow), rename it into place, then delete the oldest backups
 * beyond `keep`, whatever their reason. A failed copy or mask leaves no file behind and is thrown. A
 * backup's time is the instant written into its name when it was taken (never the file's mtime, whose resolution
 * varies); files whose name carries no such instant are not this plugin's and stay. The backup just written is
 * always kept, also when an older one carries the same instant. Reads only: the store's generation does not move.
 * @param stores - the open stores.
 * @param reason - why (`export`, `wipe`), part of the file name.
 * @param now - ISO instant.
 * @param keep - how many backups to keep afterwards; 0 keeps all.
 * @returns where it went.
 */
export async function takeBackup(
  stores: OpenStores,
  reason: 'export' | 'wipe',
  now: string,
  keep: number,
): Promise<BackupReceipt> {
  const dir = join(stores.dataDir, BACKUP_DIR)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const name = `memory-${reason}-${now.replace(/[:.]/gu, '-')}.db`
  const path = join(dir, name)
  const temp = join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`)
  try {
    await stores.db.backup(temp)
    maskCopy(temp, stores)
    renameSync(temp, path)
  } catch (error) {
    for (const leftover of [temp, `${temp}-journal`, `${temp}-wal`, `${temp}-shm`]) rmSync(leftover, { force: true })
    throw error
  }
  if (keep > 0) {
    const older = backupsIn(dir).filter((backup) => backup.file !== name)
    for (const old of older.slice(keep - 1)) rmSync(join(dir, old.file), { force: true })
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
  const newest = backupsIn(dir)[0]
  return newest === undefined ? null : { path: join(dir, newest.file), at: newest.at }
}

/**
 * The backups in a directory, newest first by the instant in their names (ties by name, so the order is stable).
 * @param dir - the backups directory.
 * @returns each backup's file name and ISO time; empty when the directory does not exist.
 */
function backupsIn(dir: string): { file: string; at: string }[] {
  let files: string[]
  try {
    files = readdirSync(dir)
  } catch {
    // No backups directory yet: nothing was ever backed up.
    return []
  }
  const taken = files.flatMap((file) => {
    const stamp = BACKUP_NAME.exec(file)
    return stamp === null ? [] : [{ file, at: `${stamp[1]}T${stamp[2]}:${stamp[3]}:${stamp[4]}.${stamp[5]}Z` }]
  })
  // The instants share one fixed-width ISO form, so comparing them as text compares them in time.
  return taken.sort((a, b) => order(b.at, a.at) || order(b.file, a.file))
}

function order(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
