/**
 * The thin shell over the file system that finds a session's project: the session header's working directory,
 * resolved (realpath) and taken up to its repository root. One answer per working directory is cached, since a
 * folder's repository does not move under a running host.
 */
import { existsSync, realpathSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { projectOfRoot, repositoryRootOf } from './project-ref.ts'
import type { ProjectRef } from '../types.ts'

/** The file-system reads the locator needs. */
export interface ProjectFileSystem {
  /** The resolved form of a path; throws when it does not exist. */
  realpath(path: string): string
  /** Whether a path exists (a file or a directory). */
  exists(path: string): boolean
}

/** The real file system. */
export const NODE_FILE_SYSTEM: ProjectFileSystem = {
  realpath: (path) => realpathSync.native(path),
  exists: (path) => existsSync(path),
}

/** Working directories remembered at once; the oldest is dropped past this. */
export const LOCATOR_CACHE_SIZE = 256

/** Finds the project of a working directory, with a bounded cache per directory. */
export class ProjectLocator {
  private readonly fs: ProjectFileSystem
  private readonly cache = new Map<string, ProjectRef>()

  /** @param fs - the file-system reads; the real ones by default. */
  constructor(fs: ProjectFileSystem = NODE_FILE_SYSTEM) {
    this.fs = fs
  }

  /**
   * The project of a working directory: the nearest folder at or above it holding `.git`, or the directory itself
   * outside a repository. A directory that no longer exists is taken as written (resolved, not realpath'd).
   * @param cwd - an absolute working directory.
   * @returns the project; never throws.
   */
  locate(cwd: string): ProjectRef {
    const cached = this.cache.get(cwd)
    if (cached !== undefined) return cached
    const start = this.resolved(cwd)
    const root = repositoryRootOf(start, (folder) => this.holdsGit(folder), dirname)
    const project: ProjectRef = { ...projectOfRoot(root), repository: this.holdsGit(root) }
    if (this.cache.size >= LOCATOR_CACHE_SIZE) {
      const oldest = this.cache.keys().next().value
      if (oldest !== undefined) this.cache.delete(oldest)
    }
    this.cache.set(cwd, project)
    return project
  }

  private resolved(cwd: string): string {
    try {
      return this.fs.realpath(cwd)
    } catch {
      // A working directory removed since the session began still names the project it was.
      return resolve(cwd)
    }
  }

  private holdsGit(folder: string): boolean {
    try {
      return this.fs.exists(join(folder, '.git'))
    } catch {
      // An unreadable folder holds no repository this session can be in.
      return false
    }
  }
}

/** The locator behind {@link projectOfSession}: one per process, its cache bounded. */
const sessionProjects = new ProjectLocator()

/**
 * The project a session works in, from its header's working directory.
 * @param session - a live session (or anything with its header), or undefined outside one.
 * @returns the project, or null when there is no session or it has no working directory.
 */
export function projectOfSession(session: { readonly header: { readonly cwd?: string | undefined } } | undefined): ProjectRef | null {
  const cwd = session?.header.cwd
  if (cwd === undefined || cwd.trim() === '') return null
  return sessionProjects.locate(cwd)
}
