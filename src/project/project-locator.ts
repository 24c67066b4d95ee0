/**
 * The thin shell over the file system (and the user's own `git`) that finds a session's project: the session header's
 * working directory, resolved (realpath) and taken up to its repository root, and that repository's identity
 * (repository-identity.ts): its `origin` remote, read from the repository's configuration (the common one a worktree
 * shares with its main checkout), followed through a clone of a local folder to the remote that folder names; else its
 * root commit, asked of `git rev-list`; else the folder. One answer per working directory is cached, since a folder's
 * repository does not move under a running host.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { projectOfRoot, repositoryRootOf } from './project-ref.ts'
import { configuredRemotes, remoteTarget, rootCommitKey } from './repository-identity.ts'
import type { ProjectRef } from '../types.ts'

/** The file-system reads (and the one git question) the locator needs. */
export interface ProjectFileSystem {
  /** The resolved form of a path; throws when it does not exist. */
  realpath(path: string): string
  /** Whether a path exists (a file or a directory). */
  exists(path: string): boolean
  /** Whether a path is a directory; false when it does not exist. */
  isDirectory?(path: string): boolean
  /** A small text file's contents, or undefined when it cannot be read. */
  readText?(path: string): string | undefined
  /** The root commits of the repository checked out at a folder, or none (no git, no commit, a timeout). */
  rootCommits?(root: string): string[]
}

/** How long the one `git rev-list` a repository without a remote costs at most. */
export const GIT_TIMEOUT_MS = 3000

/** The real file system, and the user's own `git` for a repository's root commit. */
export const NODE_FILE_SYSTEM: Required<ProjectFileSystem> = {
  realpath: (path) => realpathSync.native(path),
  exists: (path) => existsSync(path),
  isDirectory: (path) => {
    try {
      return statSync(path).isDirectory()
    } catch {
      // A path that cannot be read is no directory this session can use.
      return false
    }
  },
  readText: (path) => {
    try {
      return readFileSync(path, 'utf8')
    } catch {
      // Unreadable: the caller falls back to the next way of naming the repository.
      return undefined
    }
  },
  rootCommits: (root) => {
    const result = spawnSync('git', ['rev-list', '--max-parents=0', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
      timeout: GIT_TIMEOUT_MS,
      windowsHide: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    if (result.status !== 0 || typeof result.stdout !== 'string') return []
    return result.stdout.split(/\s+/u).filter((line) => line !== '')
  },
}

/** Working directories remembered at once; the oldest is dropped past this. */
export const LOCATOR_CACHE_SIZE = 256

/** How many clones of local folders are followed to find a remote. */
const LOCAL_REMOTE_HOPS = 3

/** Finds the project of a working directory, with a bounded cache per directory. */
export class ProjectLocator {
  private readonly fs: ProjectFileSystem
  private readonly cache = new Map<string, ProjectRef>()

  /** @param fs - the file-system reads; the real ones by default. */
  constructor(fs: ProjectFileSystem = NODE_FILE_SYSTEM) {
    this.fs = fs
  }

  /**
   * The project of a working directory: the repository that the nearest folder at or above it holding `.git` checks
   * out, keyed by the repository's identity; the directory itself outside a repository. A directory that no longer
   * exists is taken as written (resolved, not realpath'd).
   * @param cwd - an absolute working directory.
   * @returns the project; never throws.
   */
  locate(cwd: string): ProjectRef {
    const cached = this.cache.get(cwd)
    if (cached !== undefined) return cached
    const start = this.resolved(cwd)
    const root = repositoryRootOf(start, (folder) => this.holdsGit(folder), dirname)
    const project = this.holdsGit(root) ? this.repositoryAt(root) : { ...projectOfRoot(root), repository: false }
    if (this.cache.size >= LOCATOR_CACHE_SIZE) {
      const oldest = this.cache.keys().next().value
      if (oldest !== undefined) this.cache.delete(oldest)
    }
    this.cache.set(cwd, project)
    return project
  }

  /**
   * The project of a repository checked out at a folder, as a folder key stored by an older version names it.
   * @param folder - a repository root.
   * @returns the project, or undefined when the folder holds no repository (any more).
   */
  repositoryOfFolder(folder: string): ProjectRef | undefined {
    let root: string
    try {
      root = this.fs.realpath(folder)
    } catch {
      // A folder removed since its facts were written: nothing tells which repository it was.
      return undefined
    }
    return this.holdsGit(root) ? this.repositoryAt(root) : undefined
  }

  /** The repository at a root: its identity's key, the root folder's name, and the folder's own key. */
  private repositoryAt(root: string): ProjectRef {
    const folder = projectOfRoot(root)
    const key = this.identityKey(root) ?? folder.key
    return { key, name: folder.name, repository: true, folderKey: folder.key }
  }

  /** The origin's key (followed through local clones), else the root commit's, else undefined. */
  private identityKey(root: string): string | undefined {
    let repository = root
    for (let hop = 0; hop <= LOCAL_REMOTE_HOPS; hop += 1) {
      const config = this.fs.readText?.(join(this.commonDir(repository), 'config'))
      const origin = config === undefined ? undefined : configuredRemotes(config).get('origin')
      const target = origin === undefined ? { kind: 'none' as const } : remoteTarget(origin)
      if (target.kind === 'network') return target.key
      if (target.kind !== 'local') break
      const next = this.localRepository(isAbsolute(target.path) ? target.path : resolve(repository, target.path))
      if (next === undefined || next === repository) break
      repository = next
    }
    const commits = (this.fs.rootCommits?.(root) ?? []).flatMap((sha) => rootCommitKey(sha) ?? [])
    return commits.sort()[0]
  }

  /** The folder a local remote path names, when it is a repository: a checkout (holding `.git`) or a bare one. */
  private localRepository(path: string): string | undefined {
    let real: string
    try {
      real = this.fs.realpath(path)
    } catch {
      // The folder the clone came from is gone.
      return undefined
    }
    if (this.holdsGit(real)) return real
    return this.fs.exists(join(real, 'config')) && this.fs.exists(join(real, 'objects')) ? real : undefined
  }

  /**
   * The git directory whose `config` holds a repository's remotes: `.git` itself; for a worktree (whose `.git` is a
   * file naming its own git directory) the common directory that directory names; a bare repository's own folder.
   */
  private commonDir(repository: string): string {
    const dotGit = join(repository, '.git')
    if (!this.fs.exists(dotGit)) return repository
    if (this.fs.isDirectory?.(dotGit) !== false) return dotGit
    const pointer = /^gitdir:\s*(.+?)\s*$/mu.exec(this.fs.readText?.(dotGit) ?? '')?.[1]
    if (pointer === undefined) return dotGit
    const gitDir = isAbsolute(pointer) ? pointer : resolve(repository, pointer)
    const common = this.fs.readText?.(join(gitDir, 'commondir'))?.trim()
    return common === undefined || common === '' ? gitDir : isAbsolute(common) ? common : resolve(gitDir, common)
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
export function projectOfSession(
  session: { readonly header: { readonly cwd?: string | undefined } } | undefined,
): ProjectRef | null {
  const cwd = session?.header.cwd
  if (cwd === undefined || cwd.trim() === '') return null
  return sessionProjects.locate(cwd)
}
