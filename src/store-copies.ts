/**
 * Copies of the open store with their credentials masked (see maskCopy), and the copies migrations leave beside the
 * store (`memory.v<N>-backup-<instant>.db`, see migrationBackupPath): masked once the privacy rescan has run, so none
 * keeps in clear what the rescan masked in the store (a copy that cannot be masked is removed), and rotated to the newest `backupKeep` by the instant in their names, counted apart from the
 * backups in <dataDir>/backups (those are routine; a migration copy is the only way back to an older version, and
 * routine exports must not push it out).
 */
import { readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { maskCopiedProposalRow, maskCopiedRow } from './privacy-rescan.ts'
import { maskCredentialsInCopy, type CopyMasking, type CopyRows } from './store/copy-masking.ts'
import type { OpenStores } from './store/store-set.ts'
import { maskCredentials } from './text/privacy.ts'

/** Today's privacy rules as a copy is masked by them. */
export const COPY_MASKING: CopyMasking = {
  judge: maskCopiedRow,
  maskQuote: maskCredentials,
  maskProposalRow: maskCopiedProposalRow,
}

/** A migration copy's name: the schema version it had, the instant it was taken (`:` and `.` as `-`), a count. */
const COPY_NAME = /^memory\.v(\d+)-backup-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z(?:-(\d+))?\.db$/u

/**
 * Mask every credential in a copy, in place (see maskCopiedRow): a copy of the open store (a backup, the copy before
 * a move of project keys) reads only the facts stored as credentials, since today's rules already rescanned the rest;
 * a copy a migration left (`every`) has each fact judged.
 * @param path - the copy; nothing else may hold it open.
 * @param stores - the open store, whose binding opens the copy.
 * @param rows - `stored` for a copy of the open store, `every` for a copy an older version made.
 * @returns how many facts were masked.
 */
export function maskCopy(path: string, stores: Pick<OpenStores, 'db'>, rows: CopyRows = 'stored'): number {
  return maskCredentialsInCopy(path, stores.db.driver, rows, COPY_MASKING)
}

/** What one pass over the copies did. */
export interface MigrationCopiesOutcome {
  /** Copies whose credentials were masked. */
  readonly masked: readonly string[]
  /** Copies removed: beyond `backupKeep`, or impossible to mask. */
  readonly removed: readonly string[]
}

/**
 * The migration copies in a data directory, newest first by the instant in their names (then by count and name).
 * @param dataDir - the data directory.
 * @returns their file names; empty when there are none or the directory cannot be read.
 */
export function migrationCopiesIn(dataDir: string): string[] {
  let files: string[]
  try {
    files = readdirSync(dataDir)
  } catch {
    // No data directory: no copies.
    return []
  }
  const copies = files.flatMap((file) => {
    const stamp = COPY_NAME.exec(file)
    return stamp === null
      ? []
      : [
          {
            file,
            key: `${stamp[2]}T${stamp[3]}:${stamp[4]}:${stamp[5]}.${stamp[6]}Z ${(stamp[7] ?? '1').padStart(6, '0')}`,
          },
        ]
  })
  return copies
    .sort((a, b) => (a.key === b.key ? (a.file < b.file ? 1 : -1) : a.key < b.key ? 1 : -1))
    .map((copy) => copy.file)
}

/**
 * Mask the credentials in every migration copy (when `rescanned`: the privacy rescan just ran over the store, so the
 * copies taken before it may hold what it masked), then keep the newest `keep` copies (0 keeps all).
 * @param stores - the open store, whose binding opens the copies.
 * @param rescanned - whether the privacy rescan ran on this open.
 * @param keep - how many copies to keep; undefined leaves every copy.
 * @returns what was masked and removed.
 */
export function tendMigrationCopies(
  stores: Pick<OpenStores, 'db' | 'dataDir'>,
  rescanned: boolean,
  keep: number | undefined,
): MigrationCopiesOutcome {
  const masked: string[] = []
  const removed: string[] = []
  let copies = migrationCopiesIn(stores.dataDir)
  if (keep !== undefined && keep > 0) {
    for (const file of copies.slice(keep)) {
      rmSync(join(stores.dataDir, file), { force: true })
      removed.push(file)
    }
    copies = copies.slice(0, keep)
  }
  if (rescanned) {
    for (const file of copies) {
      const path = join(stores.dataDir, file)
      try {
        if (maskCopy(path, stores, 'every') > 0) masked.push(file)
      } catch {
        // A copy that cannot be opened or masked would keep credentials in clear; the store itself holds its data.
        for (const leftover of [path, `${path}-journal`, `${path}-wal`, `${path}-shm`])
          rmSync(leftover, { force: true })
        removed.push(file)
      }
    }
  }
  return { masked, removed }
}
