/**
 * The shell that moves a store written by an older version onto repository keys: when the store opens, every
 * project stored under a folder key whose folder still holds a repository is moved to that repository's key
 * (store/project-rekey.ts), once, after a copy of the store is taken into <dataDir>/backups (its credentials masked,
 * as in every backup). A folder that is gone
 * or no longer a repository keeps its key (nothing tells which repository it was); a session in that repository's
 * checkout finds its facts again once the folder is back. The locator is the file system's; a failure leaves the
 * store as it was and is reported, never thrown.
 */
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { keysUnder } from '../fact-input.ts'
import { maskCopy } from '../store-copies.ts'
import { ProjectLocator } from '../project/project-locator.ts'
import { isFolderKey } from '../project/repository-identity.ts'
import type { OpenStores } from '../store/store-set.ts'
import type { ProjectRef } from '../types.ts'

/** What one run did. */
export interface RekeyReport {
  /** Projects moved, each from its folder key to its repository's. */
  readonly projects: readonly {
    readonly from: string
    readonly to: string
    readonly name: string
    readonly moved: number
    readonly joined: number
    readonly contested: number
  }[]
  /** The copy taken before the first move, relative to the data directory; null when nothing moved. */
  readonly backup: string | null
  /** Why the run stopped, when it did. */
  readonly error: string | null
}

/** Where the copy before a move goes, under the data directory (rotated with the other backups). */
export const REKEY_BACKUP_DIR = 'backups'

/**
 * Move every folder-keyed project whose folder holds a repository to the repository's key.
 * @param stores - the open stores.
 * @param now - ISO instant.
 * @param locator - finds a folder's repository; the file system's by default.
 * @returns what moved.
 */
export function rekeyFolderProjects(
  stores: OpenStores,
  now: string,
  locator: Pick<ProjectLocator, 'repositoryOfFolder'> = new ProjectLocator(),
): RekeyReport {
  const plan: { from: string; to: ProjectRef }[] = []
  for (const key of stores.projectRekeys.projectKeys()) {
    if (!isFolderKey(key)) continue
    const repository = locator.repositoryOfFolder(key)
    if (repository !== undefined && repository.key !== key) plan.push({ from: key, to: repository })
  }
  if (plan.length === 0) return { projects: [], backup: null, error: null }
  const name = `memory-project-keys-${now.replace(/[:.]/gu, '-')}.db`
  const copy = join(stores.dataDir, REKEY_BACKUP_DIR, name)
  try {
    mkdirSync(join(stores.dataDir, REKEY_BACKUP_DIR), { recursive: true, mode: 0o700 })
    stores.projectRekeys.copyTo(copy)
    maskCopy(copy, stores)
  } catch (error) {
    // A copy that could not be masked is not kept: it would hold credentials in clear.
    rmSync(copy, { force: true })
    return {
      projects: [],
      backup: null,
      error: `the store could not be copied before moving project keys: ${error instanceof Error ? error.message : String(error)}`,
    }
  }
  const projects: RekeyReport['projects'][number][] = []
  for (const { from, to } of plan) {
    try {
      const outcome = stores.projectRekeys.rekeyProject(
        from,
        to,
        (fact, scope) => keysUnder({ ...fact, scope }, fact.subject),
        now,
      )
      projects.push({ from, to: to.key, name: to.name, ...outcome })
    } catch (error) {
      return {
        projects,
        backup: `${REKEY_BACKUP_DIR}/${name}`,
        error: `moving ${to.name} to its repository's key failed: ${error instanceof Error ? error.message : String(error)}`,
      }
    }
  }
  return { projects, backup: `${REKEY_BACKUP_DIR}/${name}`, error: null }
}
